"""The Byzantine simulator: in-memory tables in simulated time, an adversary that controls the
host and/or a minority coalition of seats, and the invariants every honest peer must keep
(protocol/SPEC.md §8). ``scripts/byzantine.py`` runs it; the tests run a smaller budget."""
