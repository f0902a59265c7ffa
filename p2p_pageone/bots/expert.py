"""The ``expert`` CPU: a determinized search over what its own seat may know, in both families.

On each real choice it deals the cards it cannot see as its view and the public record allow
(``SeatView.determinize``; in qdan with ``infer.py``'s slot-by-slot guesses, in classic with
``infer_classic.py``'s: who drew or passed on a suit, and what each lead and follow says about
the hand that made it), plays every candidate move on a copy of that deal, plays the copy on
with the fast engine (the others by ``normal``'s habits, itself by ``sharp``'s) and scores the
outcome for its own seat: in qdan whether it takes the best place still free, the first until
someone has gone out (a guess from the hand sizes if the horizon comes first); in classic, at
the deal's end (a guess from the hands' points and sizes if the horizon comes first), its
chance of winning the game: each other seat's lead over it against the spread of the deals
left (``deal_sigma``), sure in the last deal. Every candidate meets the same deals and the same
luck, so the sums differ by what the moves change. The budget is a number of
playouts per decision (deterministic for a seed); an optional time cap, read from a clock passed
in, may stop it sooner. The candidates race (``Race``): every few worlds, one whose mean
trails the leader's by 2.5 standard errors of their paired differences meets no more worlds,
so the budget goes to the close choices (in classic, 6 candidates a choice on average, a search
at 120 playouts agreed with one at 2,400 on 66% of its choices). Out of turn, for calls and
catches, it acts as ``normal`` does.

A particle filter over ``normal``'s plays (bots36, ``walk``, ``particles.py``, off): deals weighed
by the clues of every play since the deal, carried over the deal's decisions: fresh seeds
9601-9602 (400 games each) 0.2925 and 0.315 at 24 ms, walked afresh uncapped (60 ms) 0.2575 and
0.360, the default 0.3025 and 0.3275 at 17-19 ms: the clues barely narrow the low hands.

What qdan lacks (bots35, README): fresh seeds 9501 0.2875 [0.245, 0.334] and 9502 0.2925
[0.250, 0.339] at 21 ms. Handed the true hands of the players at 3 cards or fewer only, the
search wins 0.36 (200 games, seed 601), but the public record barely narrows them: worlds
kept only where every play since the deal is ``normal``'s match 6.7% of those cards (5.0%
with the slot guesses) and measured no gain; nor did own playouts by other habits (per root
candidate, or preferring plays the next player cannot follow) or a 24-move horizon.

Qdan spend and places (bots34): a qdan decision gets its full budget (1,200 playouts) only
where some player still racing holds 3 cards or fewer, a quarter of it before, a twentieth once
the first place has gone (``Spend``, ``qdan_search.py``); and after the first place its
playouts race for the best place still free (before, every playout then scored the same). On
tuning seeds 631-635 (1,000 games) 0.313 at 18-22 ms against 0.284 for 400 everywhere, 0.293
for 1,000 everywhere (25 ms) and 0.293 for 800/200/40; on seeds not tuned on (400 games each)
9401 0.310 [0.267, 0.357] and 9402 0.2825 [0.241, 0.329] at 19-20 ms, against 0.2975 and 0.280
for 400 everywhere: within the noise, short of issue 29's 0.36.

Game-win scoring in classic (bots33): before, a playout scored tanh((best other total - its
total) / 20) whatever the deals left, too sharp early and too soft in the last deal; now the
chance of ending with the lowest total, a deal's score difference spreading 55 points (measured
on ``normal`` tables: one seat's deal score 35 +- 40). Seed 601 (200 games, tuning) 0.405
[0.339, 0.474] against 0.345 [0.283, 0.413]; seed 602 0.360 [0.297, 0.429]; seed 9301 (400
games, not tuned on) 0.3725 [0.3265, 0.4209] at 17.4 ms per decision (max 445 ms: the machine's
load stood at 3.5 on 2 cores); with the cap now also stopping mid-world (that world then
counts for none, so an overrun is at most one playout), seed 9302 (400 games, not tuned on)
0.3725 [0.3265, 0.4209] at 16.6 ms (max 203): classic meets issue 29's target. Qdan does not
(bots33, 400 games, not tuned on: seed 9301 0.3025 [0.2595, 0.3492] at 14.4 ms, max 201; seed
9302 0.270 [0.229, 0.316] at 12.6 ms, and at 600 playouts 0.295 [0.252, 0.342] at 18.6 ms).
Tuning it on seeds 601-603 (200 games each): 400 playouts 0.338 (600 games); on 601-602 (400
games) 600 playouts 0.355, 600 with a 100-move horizon 0.3025, 800 with it 0.3175, a 100-move
horizon 0.335, race z 2.0 0.315, softness 0.4 0.3175, all within the noise of 400 at 0.325;
worlds drawn one of three by the likelihood of the others' recent plays under ``normal``
(``proposals``, off) 0.2975 against 0.325, and 60% slower.

Racing (issue 29, bots29): classic at 360-400 playouts, raced, against the old 120 unraced:
seed 611 (150 games, tuning) 0.327 against 0.300; seed 612 (200 games) 0.445 [0.378, 0.514]
against 0.340 [0.278, 0.408], at 20-23 ms per decision; seed 7301 (400 games, not tuned on)
0.353 [0.307, 0.401] at 360 playouts, 21.1 ms (max 223), against 0.293 [0.250, 0.339] at 7.3
ms: the lower bound clears 0.30, the share is short of 0.36. Qdan, raced, measured no better:
seed 611 (200 games) 0.275 at 400 playouts and 0.270 at 700, against 0.255 unraced at 400;
seed 7301 (400 games, not tuned on) 0.305 [0.262, 0.352] at 700 playouts (24.6 ms)
against 0.3225 [0.279, 0.370] unraced at 400 (16.0 ms). Qdan keeps 400 (raced: fewer ms).

Qdan playouts break ``normal``'s ties by a salt drawn once per world (``qdan_habit``), not by a
fresh random draw, so every candidate's playout of a world breaks them alike (bots30): seed 9101
(400 games, not tuned on) 0.3375 [0.293, 0.385] at 12.1 ms (max 174) against 0.3175 [0.274,
0.365] at 11.9 ms untied, within the noise. Classic there (unchanged): 0.305 [0.262, 0.352] at
15.2 ms (max 209). Issue 29's target is not met in either family on that seed.

Measured (README, scripts/bench_expert.py): against three ``normal``, seats rotated, ``--cap
0.2``. Qdan, 400 playouts (the default), 400 games on seed 5001 (not tuned on): 0.298 [0.255,
0.344] at 13.8 ms per decision (max 140), short of issue 29's 0.36. On tuning seeds 1-3 (900
games, paired): 120 playouts 0.267, 400 playouts 0.304 (+0.038, z 2.1); re-dealing hands whose
recent plays ``normal`` would not have made (``fit_qdan``, off) costs a third of the time and
measured no gain (at 120 playouts the slot guesses alone won 0.283, with it 0.267, z 1.0); a
draw or every colour as extra candidates, no head start, or ``normal``'s habits for its own seat
in the playouts: no better (-0.026, -0.008, +0.002, -0.013). Handed the others' true hands the
qdan search wins 0.485: what limits it is what it cannot see (a hand dealt with the guesses
matches the true one in 4% of its cards, about 2% by chance). Classic, 120 playouts: to the
deal's end with no head start it wins 0.345 [0.300, 0.393] (400 games, seed 2, tuned on), 0.318
[0.274, 0.365] on seed 4243 and 0.293 [0.250, 0.339] on seed 5002 (5.6 ms, max 91); 300 playouts
measured the same as 120 (seed 1, 200 games, 0.295 both). Handed the true hands, 0.505.
Re-dealing hands whose plays ``normal`` would not have made (``fit_classic``, off) measured
0.280 [0.238, 0.326] on seed 2, and slower.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.moves import Move, ReshuffleRequest
from ..engine.qdan import QdanDeal
from ..engine.settings import ClassicSettings
from ..engine.view import SeatView
from .fit_classic import fitting_world, read_choices
from .hard import SharpBot, _candidates, _classic_voids, _fast_move, _fitting_world, _same_move
from .infer import Record, read_record
from .infer_classic import classic_guesses
from .normal import NormalBot
from .particles import Filter, Walk
from .qdan_search import Spend, Stakes, finish_line, place_value, read_stakes
from .rollout import classic_habit, qdan_habit


@dataclass(frozen=True)
class Budget:
    """What one decision may spend: ``playouts`` in all (shared among the candidates; 0: the
    family's default, ``PLAYOUTS``), each at most ``horizon`` moves long; ``seconds`` (0: none)
    caps it on the clock passed in."""

    playouts: int = 0
    horizon: int = 60
    seconds: float = 0.0

    def playouts_for(self, family: str) -> int:
        return self.playouts or PLAYOUTS[family]


@dataclass(frozen=True)
class Race:
    """When a candidate stops meeting worlds: checked every ``every`` worlds (0: never) from the
    ``first`` on, it drops out once its mean trails the leader's by ``z`` standard errors of
    their paired differences (the same worlds and luck for both)."""

    first: int = 8
    every: int = 4
    z: float = 2.5

    def survivors(self, alive: list[int], rows: list[list[float]],
                  bonus: list[float]) -> list[int]:
        count = len(rows[alive[0]])
        means = {i: sum(rows[i]) / count + bonus[i] for i in alive}
        lead = max(alive, key=lambda i: (means[i], -i))
        keep = []
        for i in alive:
            gap = means[lead] - means[i]
            if i == lead or gap <= 0:
                keep.append(i)
                continue
            diffs = [a - b for a, b in zip(rows[lead], rows[i], strict=True)]
            mean = sum(diffs) / count
            var = sum((d - mean) ** 2 for d in diffs) / max(1, count - 1)
            if gap <= self.z * math.sqrt(var / count):
                keep.append(i)
        return keep


# Playouts per decision by default (raced): what stays under 25 ms per decision on average on a
# loaded 2-core machine (README; see the module docstring). In qdan that many only where some
# player still racing holds 3 cards or fewer; ``QDAN_SPEND`` gives the other decisions less.
PLAYOUTS = {"qdan": 1200, "classic": 360}
QDAN_SPEND = Spend(cards=3, low=1.0, high=0.25, later=0.05)


class ExpertBot(SharpBot):
    """``sharp``'s reflexes and habits; on its own turn, a determinized search."""

    name = "expert"

    def __init__(self, budget: Budget | None = None,
                 clock: Callable[[], float] | None = None, tries: int = 12,
                 prior: tuple[float, float] = (0.0, 0.02), softness: float = 0.6,
                 spread: float = 20.0,
                 guess_classic: bool = True, tricks: int = 0, card_weight: float = 0.8,
                 exact_classic: bool = True, fit_classic: bool = False,
                 fit_qdan: bool = False, race: Race | None = None,
                 tied_qdan: bool = True, deal_sigma: float = 55.0, proposals: int = 1,
                 misfit: float = 0.3, spend: Spend | None = None,
                 walk: Walk | None = None) -> None:
        self.walk = walk  # qdan: worlds drawn from a population weighed by normal's habits
        self._filter = Filter(walk) if walk is not None else None
        self.spend = spend or QDAN_SPEND  # qdan: how the playouts scale with the stakes
        self._stakes = Stakes(0, 0)  # qdan: what the decision under way plays for
        self.proposals, self.misfit = proposals, misfit  # qdan: deals weighed, one kept
        self.deal_sigma = deal_sigma  # classic: spread of one deal's score difference (0: off)
        self.tied_qdan = tied_qdan  # qdan playouts break ties alike across the candidates
        self.race = race or Race()  # when a candidate clearly behind stops being played
        self.fit_qdan = fit_qdan  # qdan: re-deal hands whose recent plays normal would not make
        self.fit_classic = fit_classic  # classic: re-deal hands whose plays normal would not make
        self.exact_classic = exact_classic  # classic playouts by normal's and sharp's own rules
        self.guess_classic = guess_classic
        self.tricks = tricks  # classic: tricks played on before scoring (0: to the deal's end)
        self.card_weight = card_weight
        self.budget = budget or Budget()
        self.clock = clock  # only read when the budget has a time cap
        self.tries = tries  # qdan: fresh hands tried for a player whose plays do not fit
        # the habit's head start per playout (classic, qdan): none in classic, where the
        # search to the deal's end beats the habits (a head start was needed at one trick)
        self.prior = prior
        self.softness = softness  # qdan: how a cut-off playout's hand sizes turn into a chance
        self.spread = spread  # classic: penalty points that make a clear lead
        self.habits = (NormalBot(), SharpBot())  # the others', its own
        self.playouts_used = 0  # in the last decision (tests read it)

    def cap(self, clock: Callable[[], float], seconds: float) -> None:
        """Stop each search after ``seconds`` on ``clock`` (the playouts done by then count)."""
        self.clock = clock
        self.budget = Budget(self.budget.playouts, self.budget.horizon, seconds)

    def decide(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        usual = super().decide(view, moves, rng)
        candidates = _candidates(view, moves)
        self.playouts_used = 0
        if len(candidates) <= 1:
            return candidates[0] if candidates else usual
        head = self.prior[view.family == "qdan"]
        bonus = [head if move == usual else 0.0 for move in candidates]
        means = self._race(view, candidates, bonus, rng)
        best = max(range(len(candidates)), key=lambda i: (means[i], -i))
        return candidates[best]

    def _race(self, view: SeatView, candidates: list[Move], bonus: list[float],
              rng: random.Random) -> list[float]:
        """Each candidate's mean score (plus its ``bonus``) over the worlds it met; one that
        falls clearly behind the leader (``Race``) meets no more, so the playouts left go to
        the close ones. Every candidate still running meets the same worlds and luck."""
        if view.family == "qdan":
            self._stakes = read_stakes(view)
        budget, clock = self.budget, self.clock
        walked = clock() if clock is not None and self.walk is not None else None
        sample, score = self._sampler(view, rng), self._scorer(view)
        start = clock() if clock is not None else 0.0
        if walked is not None:  # a walk's population counts against the cap
            start = walked
        deadline = start + budget.seconds if clock is not None and budget.seconds > 0 else 0.0
        playouts = budget.playouts_for(view.family)
        if view.family == "qdan":
            playouts = int(playouts * self.spend.scale(view, self._stakes))
        rows: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        done = 0
        while len(alive) > 1 and self.playouts_used + len(alive) <= playouts:
            if deadline and done and clock is not None:  # stop if one more world would overrun
                now = clock()
                if now + (now - start) / done >= deadline:
                    break
            world = sample(rng)
            luck = rng.getrandbits(64)
            for index in alive:
                if deadline and done and clock is not None and clock() >= deadline:
                    for row in rows:  # past the cap mid-world: that world counts for none
                        del row[done:]
                    return _means(rows, alive, bonus)
                copy = world.clone()
                copy.apply(_same_move(copy, candidates[index]))
                self._play_on(copy, view.seat, budget.horizon, random.Random(luck), luck)
                rows[index].append(score(copy))
                self.playouts_used += 1
            done += 1
            if self.race.every and done >= self.race.first and done % self.race.every == 0:
                alive = self.race.survivors(alive, rows, bonus)
        return _means(rows, alive, bonus)

    def _sampler(self, view: SeatView, rng: random.Random) -> Callable[[random.Random], Deal]:
        if view.family == "qdan":
            record = read_record(view)
            if self.fit_qdan:
                return lambda rng: _fitting_world(view, record, rng, self.tries)
            if self._filter is not None and self._filter.walk.applies(view):
                return self._filter.sampler(view, rng)
            if self.proposals > 1:
                return lambda rng: _likely_world(view, record, rng, self.proposals, self.misfit)
            return lambda rng: view.determinize(rng, forbidden=record.unlikely)
        if self.guess_classic:
            guesses = classic_guesses(view)
            if self.fit_classic:
                choices = read_choices(view)
                return lambda rng: fitting_world(view, guesses, choices, rng, self.tries)
            return lambda rng: view.determinize(rng, forbidden=guesses)
        voids = _classic_voids(view)
        return lambda rng: view.determinize(rng, voids)

    def _play_on(self, deal: Deal, me: int, horizon: int, rng: random.Random,
                 salt: int = 0) -> None:
        """Play ``deal`` on: until someone goes out or is eliminated (qdan), to the deal's end
        or after ``tricks`` more tricks (classic), or for ``horizon`` moves."""
        others, mine = self.habits
        finished = _finish_line(deal, self.tricks, self._stakes)
        exact = isinstance(deal, ClassicDeal) and self.exact_classic
        for _ in range(horizon):
            if finished():
                return
            chance = deal.chance
            if isinstance(chance, ReshuffleRequest):
                cards = list(chance.cards)
                rng.shuffle(cards)
                deal.reshuffle(cards)
                continue
            seat = deal.turn
            moves = deal.legal_moves(seat)
            if len(moves) == 1:  # forced (a draw, mostly): what every habit answers
                deal.apply(moves[0])
                continue
            habits = mine if seat == me else others
            if exact:
                assert isinstance(deal, ClassicDeal)
                deal.apply(classic_habit(deal, seat, habits, moves))
            elif self.tied_qdan and isinstance(deal, QdanDeal):
                deal.apply(qdan_habit(deal, seat, habits, moves, salt))
            else:
                deal.apply(_fast_move(deal, rng, habits, moves))

    def _scorer(self, view: SeatView) -> Callable[[Deal], float]:
        me = view.seat
        if view.family == "qdan":
            stakes = self._stakes
            return lambda deal: place_value(deal, me, self.softness, stakes)
        totals = view.totals()
        settings = view.settings
        if self.deal_sigma > 0 and isinstance(settings, ClassicSettings) and (
                settings.scoring == "deals"):
            left = max(0, settings.deals - view.deals_done() - 1)
            sigma = self.deal_sigma
            return lambda deal: _classic_win_chance(deal, me, totals, left, sigma,
                                                    self.card_weight)
        return lambda deal: _classic_value(deal, me, totals, self.spread, self.card_weight)


def _means(rows: list[list[float]], alive: list[int], bonus: list[float]) -> list[float]:
    """Each candidate still running: its mean over the worlds it met, plus its bonus."""
    return [sum(row) / len(row) + bonus[i] if row and i in alive else -math.inf
            for i, row in enumerate(rows)]


def _likely_world(view: SeatView, record: Record, rng: random.Random, proposals: int,
                  misfit: float) -> Deal:
    """One of ``proposals`` deals (each honouring the slot guesses), drawn in proportion to how
    likely the others' recent plays are under ``normal``'s habits with it: ``misfit`` for each
    play ``normal`` would not have made from the hand dealt."""
    worlds = [view.determinize(rng, forbidden=record.unlikely) for _ in range(proposals)]
    weights = [misfit ** record.misfits(world.known) for world in worlds]
    return worlds[rng.choices(range(proposals), weights)[0]]


def _finish_line(deal: Deal, tricks: int, stakes: Stakes) -> Callable[[], bool]:
    """When a playout of ``deal`` stops (besides its horizon)."""
    if isinstance(deal, QdanDeal):
        return finish_line(deal, stakes)
    assert isinstance(deal, ClassicDeal)
    classic, stop = deal, deal.tricks + tricks if tricks else 1 << 30
    return lambda: classic.over or classic.tricks >= stop


def _classic_after(deal: ClassicDeal, totals: list[int], card_weight: float) -> list[float]:
    """Each seat's total after this deal: its score if the deal is over, else its hand's points
    times the chance someone else goes out first (fewer cards, likelier to go out)."""
    if deal.over:
        scores: dict[int, float] = {p: float(v) for p, v in deal.scores().items()}
    else:
        hands = deal.hands
        weights = {p: math.exp(-card_weight * len(hands[p])) for p in deal.players}
        whole = sum(weights.values())
        scores = {p: deal.hand_points(p) * (1 - weights[p] / whole) for p in deal.players}
    after = [float(t) for t in totals]
    for p, points in scores.items():
        after[p] += points
    return after


def _classic_win_chance(deal: Deal, me: int, totals: list[int], left: int, sigma: float,
                        card_weight: float) -> float:
    """The chance ``me`` ends the game with the lowest total (a tie shares first place): each
    other seat's lead over it after this deal, against the spread of ``left`` more deals
    (``sigma`` per deal, for the difference of two seats' scores) and of a guessed score if the
    deal is not over; the product over the others. Plus a small share of the margin over the
    best other, so that sure wins (or losses) still prefer the wider margin."""
    assert isinstance(deal, ClassicDeal)
    after = _classic_after(deal, totals, card_weight)
    spread = sigma * math.sqrt(left + (0.0 if deal.over else 0.25))
    mine, chance = after[me], 1.0
    for p in deal.players:
        if p == me:
            continue
        gap = after[p] - mine
        if spread <= 0:
            chance *= 1.0 if gap >= 0 else 0.0
        else:
            chance *= 0.5 * (1.0 + math.erf((gap + 0.5) / (spread * math.sqrt(2.0))))
    best_other = min(after[p] for p in deal.players if p != me)
    return chance + 0.02 * math.tanh((best_other - mine) / 20.0)


def _classic_value(deal: Deal, me: int, totals: list[int], spread: float,
                   card_weight: float) -> float:
    """How the game stands for ``me`` after this deal (``_classic_after``): its total against
    the best other total, squashed so that a clear lead counts about as much as a huge one."""
    assert isinstance(deal, ClassicDeal)
    after = _classic_after(deal, totals, card_weight)
    best_other = min(after[p] for p in deal.players if p != me)
    return math.tanh((best_other - after[me]) / spread)
