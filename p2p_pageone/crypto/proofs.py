"""Zero-knowledge proofs of the deck's passes (protocol/SPEC.md §5.4–5.6), non-interactive
through Fiat–Shamir (``transcript``).

- ``prove_lock`` / ``verify_lock``: per position p, ``Y_p = t_p·X_p`` and ``T_p = t_p·G`` with
  the same t_p (Chaum–Pedersen, one challenge for the whole pass, the G side batched with
  weights drawn after the statement).
- ``prove_shuffle`` / ``verify_shuffle``: ``Y_i = s·X_{π(i)}`` for a permutation π and the one
  scalar s with ``G = s·W`` (Terelius–Wikström's proof of a shuffle, its re-encryption part
  replaced by a linear relation in (e', s); see the spec for the argument).
- ``check_key``: an unlock key u for a position with lock commitment T is right iff
  ``u·T = W``.

Every verifier takes points already decoded (validated) and raises ``ProofError`` saying what
failed; it never raises anything else for bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import group
from .group import N, Point, PointError
from .transcript import Transcript, nonces

SCALAR = 32


class ProofError(ValueError):
    """A proof that does not verify, or does not parse."""


def _points(points: Sequence[Point]) -> list[bytes]:
    return [group.encode(p) for p in points]


def _scalars(data: bytes, count: int) -> list[int]:
    try:
        return [group.scalar_of(data[SCALAR * i : SCALAR * i + SCALAR]) for i in range(count)]
    except PointError as error:
        raise ProofError(f"a proof holds a bad scalar: {error}") from None


def _decode_points(data: bytes, count: int) -> list[Point]:
    size = group.POINT_SIZE
    try:
        return [group.decode(data[size * i : size * i + size]) for i in range(count)]
    except PointError as error:
        raise ProofError(f"a proof holds a bad point: {error}") from None


def _statement(proof: str, context: bytes, inputs: Sequence[Point], outputs: Sequence[Point],
               commits: Sequence[Point]) -> Transcript:
    transcript = Transcript(proof)
    transcript.absorb("context", context)
    transcript.absorb_points("inputs", _points(inputs))
    transcript.absorb_points("outputs", _points(outputs))
    transcript.absorb_points("commits", _points(commits))
    return transcript


# --- lock pass: Chaum–Pedersen per position, the G side batched -----------------------------


def prove_lock(context: bytes, inputs: Sequence[Point], outputs: Sequence[Point],
               commits: Sequence[Point], scalars: Sequence[int], key: bytes) -> bytes:
    """Proof that ``outputs[p] = t_p·inputs[p]`` and ``commits[p] = t_p·G`` for every p, as
    ``c ‖ z_0 … z_{n-1}``."""
    transcript = _statement("lock", context, inputs, outputs, commits)
    r = nonces(key, transcript.digest(), len(inputs))
    w = transcript.short_challenges("w", len(inputs))
    a = group.base(sum(x * y for x, y in zip(w, r, strict=True)) % N)
    transcript.absorb_points("a", [group.encode(a)])
    b = group.mul_each(inputs, r)
    transcript.absorb_points("b", _points(b))
    c = transcript.short_challenge("c")
    z = [(k + c * t) % N for k, t in zip(r, scalars, strict=True)]
    return b"".join(group.scalar_bytes(v) for v in [c, *z])


def verify_lock(context: bytes, inputs: Sequence[Point], outputs: Sequence[Point],
                commits: Sequence[Point], proof: bytes) -> None:
    n = len(inputs)
    if len(outputs) != n or len(commits) != n or len(proof) != SCALAR * (n + 1):
        raise ProofError(f"a lock proof for {n} positions has the wrong size")
    c, *z = _scalars(proof, n + 1)
    transcript = _statement("lock", context, inputs, outputs, commits)
    w = transcript.short_challenges("w", n)
    try:
        # A = (Σ w_p·z_p)·G − c·Σ w_p·T_p
        a = group.mul_add_base(group.lincomb(w, commits), N - c,
                               sum(x * y for x, y in zip(w, z, strict=True)) % N)
        # B_p = z_p·X_p − c·Y_p, formed as −B_p = (−z_p)·X_p + c·Y_p (c is short, −c is not)
        products = group.mul_each([p for pair in zip(inputs, outputs, strict=True) for p in pair],
                                  [k for zp in z for k in (N - zp, c)])
        minus_b = [group.add(products[i : i + 2]) for i in range(0, 2 * n, 2)]
    except PointError:
        raise ProofError("the lock proof does not verify") from None
    transcript.absorb_points("a", [group.encode(a)])
    transcript.absorb_points("b", [group.encode_negated(p) for p in minus_b])
    if transcript.short_challenge("c") != c:
        raise ProofError("the lock proof does not verify: an output is not its own "
                         "position's input under the committed lock")


def check_key(key: int, commit: Point, round_commit: Point) -> bool:
    """An unlock key u is the one committed to iff ``u·T = W`` (one multiplication)."""
    return group.mul(commit, key) == round_commit


# --- shuffle pass: Terelius–Wikström for a common exponent ------------------------------------


@dataclass(frozen=True)
class ShuffleProof:
    u: list[Point]  # permutation commitment: u_j = r_j·G + h_{π⁻¹(j)}
    b: list[Point]  # product chain: B_i = b_i·G + e'_i·B_{i-1}, B_{-1} = the chain generator
    v: int
    k_a: int
    k_b: int  # one response for the chain, batched with the weights ρ
    k_c: int
    k_d: int
    k_s: int
    k_e: list[int]

    def encode(self) -> bytes:
        scalars = [self.v, self.k_a, self.k_b, self.k_c, self.k_d, self.k_s, *self.k_e]
        return b"".join(_points(self.u) + _points(self.b)
                        + [group.scalar_bytes(k) for k in scalars])

    @classmethod
    def decode(cls, data: bytes, n: int) -> ShuffleProof:
        if len(data) != shuffle_proof_size(n):
            raise ProofError(f"a shuffle proof for {n} cards has the wrong size")
        size = group.POINT_SIZE * n
        u, b = _decode_points(data[:size], n), _decode_points(data[size : 2 * size], n)
        scalars = _scalars(data[2 * size :], 6 + n)
        v, k_a, k_b, k_c, k_d, k_s = scalars[:6]
        return cls(u, b, v, k_a, k_b, k_c, k_d, k_s, scalars[6:])


def shuffle_proof_size(n: int) -> int:
    return 2 * group.POINT_SIZE * n + SCALAR * (6 + n)


def _chain_commit(transcript: Transcript, u: Sequence[Point], n: int) -> list[int]:
    transcript.absorb_points("u", _points(u))
    return transcript.short_challenges("e", n)


def _weights(transcript: Transcript, chain: Sequence[Point]) -> list[int]:
    """ρ: random weights that batch the n chain relations into one (after B is fixed)."""
    transcript.absorb_points("B", _points(chain))
    return transcript.challenges("rho", len(chain))


def prove_shuffle(context: bytes, inputs: Sequence[Point], outputs: Sequence[Point],
                  commit: Point, order: Sequence[int], scalar: int, key: bytes) -> bytes:
    """Proof that ``outputs[i] = s·inputs[order[i]]`` and ``G = s·commit``."""
    n = len(inputs)
    h, h_chain = group.generators(n), group.chain_generator()
    transcript = _statement("shuffle", context, inputs, outputs, [commit])
    r = nonces(key, transcript.digest(), 3 * n + 5)
    rs, bs, eps = r[:n], r[n : 2 * n], r[2 * n : 3 * n]
    alpha, beta, gamma, delta, phi = r[3 * n : 3 * n + 5]
    position = [0] * n  # position[order[i]] = i: where input j went
    for i, j in enumerate(order):
        position[j] = i
    u = [group.add([h[position[j]], r]) for j, r in enumerate(group.base_each(rs))]
    e = _chain_commit(transcript, u, n)
    e_perm = [e[order[i]] for i in range(n)]
    chain, previous, d = [], h_chain, 0
    for i in range(n):
        previous = group.mul_add_base(previous, e_perm[i], bs[i])
        chain.append(previous)
        d = (bs[i] + e_perm[i] * d) % N
    rho = _weights(transcript, chain)
    a_prime = group.lincomb(eps, h, alpha)
    # B' = β·G + Σ ρ_i·ε_i·B_{i-1}
    b_prime = group.lincomb([x * y for x, y in zip(rho, eps, strict=True)],
                            [h_chain, *chain[:-1]], beta)
    # F' = Σ ε_i·Y_i − φ·Σ e_j·X_j, computed from the inputs since Y_i = s·X_{order[i]}
    f_prime = group.lincomb([scalar * eps[position[j]] - phi * e[j] for j in range(n)], inputs)
    w_prime = group.mul(commit, phi)
    _absorb_commitments(transcript, a_prime, b_prime, group.base(gamma), group.base(delta),
                        f_prime, w_prime)
    v = transcript.challenge("v")
    proof = ShuffleProof(
        u, chain, v,
        k_a=(alpha + v * sum(x * y for x, y in zip(rs, e, strict=True))) % N,
        k_b=(beta + v * sum(x * y for x, y in zip(rho, bs, strict=True))) % N,
        k_c=(gamma + v * sum(rs)) % N,
        k_d=(delta + v * d) % N,
        k_s=(phi + v * scalar) % N,
        k_e=[(eps[i] + v * e_perm[i]) % N for i in range(n)],
    )
    return proof.encode()


def _absorb_commitments(transcript: Transcript, a_prime: Point, b_prime: Point, c_prime: Point,
                        d_prime: Point, f_prime: Point, w_prime: Point) -> None:
    transcript.absorb_points("A'B'C'D'F'W'",
                             _points([a_prime, b_prime, c_prime, d_prime, f_prime, w_prime]))


def verify_shuffle(context: bytes, inputs: Sequence[Point], outputs: Sequence[Point],
                   commit: Point, data: bytes) -> None:
    n = len(inputs)
    if len(outputs) != n:
        raise ProofError("a shuffle must output as many points as it was given")
    proof = ShuffleProof.decode(data, n)
    h, h_chain = group.generators(n), group.chain_generator()
    transcript = _statement("shuffle", context, inputs, outputs, [commit])
    e = _chain_commit(transcript, proof.u, n)
    v, minus_v = proof.v, N - proof.v
    product = 1
    for x in e:
        product = product * x % N
    try:
        # A' = k_A·G + Σ k_E,i·h_i − v·(Σ e_j·u_j): the e_j are short, v·e_j would not be
        a_prime = group.lincomb([*proof.k_e, minus_v], [*h, group.lincomb(e, proof.u)],
                                proof.k_a)
        # B' = k_B·G + Σ ρ_i·(k_E,i·B_{i-1} − v·B_i): one coefficient per chain point
        rho = _weights(transcript, proof.b)
        coefficients = [rho[0] * proof.k_e[0]]
        coefficients += [rho[i + 1] * proof.k_e[i + 1] - v * rho[i] for i in range(n - 1)]
        coefficients.append(-v * rho[n - 1])
        b_prime = group.lincomb(coefficients, [h_chain, *proof.b], proof.k_b)
        # C' = k_C·G − v·(Σ u_j − Σ h_i)
        c_prime = group.mul_add_base(group.add([*proof.u, group.negate(group.generator_sum(n))]),
                                     minus_v, proof.k_c)
        # D' = k_D·G − v·(B_{n-1} − (∏ e_i)·h_chain)
        d_prime = group.mul_add_base(group.add([proof.b[-1], group.mul(h_chain, N - product)]),
                                     minus_v, proof.k_d)
        # F' = Σ k_E,i·Y_i − k_s·(Σ e_j·X_j)
        f_prime = group.lincomb([*proof.k_e, N - proof.k_s],
                                [*outputs, group.lincomb(e, inputs)])
        # W' = k_s·W − v·G
        w_prime = group.mul_add_base(commit, proof.k_s, minus_v)
    except PointError:
        raise ProofError("the shuffle proof does not verify") from None
    _absorb_commitments(transcript, a_prime, b_prime, c_prime, d_prime, f_prime, w_prime)
    if transcript.challenge("v") != v:
        raise ProofError("the shuffle proof does not verify: the output is not the input "
                         "permuted and multiplied by the committed scalar")
