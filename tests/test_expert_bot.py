"""The ``expert`` CPU: its own view only, repeatable under a seed, a budget that holds; the
classic guesses it deals by; the ``easy`` level; CPU reaction times to a missed call."""

from __future__ import annotations

import random

import pytest

from p2p_pageone.bots import Budget, EasyBot, ExpertBot, NormalBot, make_bot
from p2p_pageone.bots.expert import Race
from p2p_pageone.bots.infer_classic import classic_guesses
from p2p_pageone.engine import Catch, Game, SeatView, make_settings
from p2p_pageone.sim.referee import play_game, resolve_chance

SMALL = Budget(playouts=24, horizon=40)


def _midgame(family: str, seed: int, moves: int, seat: int = -1) -> tuple[Game, list[int]]:
    """A 4-seat game played ``moves`` moves on by ``normal`` players (then on to ``seat``'s
    turn with a choice to make, if given), and its deck."""
    rng = random.Random(seed)
    game = Game(make_settings(family), 4, 3)
    deck = list(range(game.settings.deck_size))
    rng.shuffle(deck)
    game.deal_cards(deck)
    normal = NormalBot()
    played = 0
    while not game.results and (played < moves or (seat >= 0 and not _choosing(game, seat))):
        if game.chance is not None:
            resolve_chance(game, rng)
            continue
        move = normal.choose(SeatView(game, game.deal.turn), rng)
        assert move is not None
        game.apply(move)
        played += 1
    return game, deck


def _choosing(game: Game, seat: int) -> bool:
    return game.chance is None and game.deal.turn == seat and len(
        SeatView(game, seat).legal_moves()) > 2


@pytest.mark.parametrize("family", ["classic", "qdan"])
def test_expert_decides_the_same_whoever_holds_the_unseen_cards(family: str) -> None:
    """Seat 0's view fixed (its hand, every public card and event), the cards it cannot see
    dealt otherwise among the other hands and the stock: the same decision, for a seed."""
    compared = 0
    for seed in range(10):
        game, deck = _midgame(family, seed, 0)
        while game.chance is not None:  # qdan start card, public
            game.turn_up(game.deal.known[game.deal.stock[-1]])
        hidden = [s for seat in (1, 2, 3) for s in game.deal.hands[seat]] + game.deal.stock
        cards = [deck[s] for s in hidden]
        random.Random(seed + 100).shuffle(cards)
        other_deck = list(deck)
        for slot, card in zip(hidden, cards, strict=True):
            other_deck[slot] = card
        other = Game(make_settings(family), 4, 3)
        other.deal_cards(other_deck)
        while other.chance is not None:
            other.turn_up(other.deal.known[other.deal.stock[-1]])
        assert other.deal.hands[0] == game.deal.hands[0]
        assert other.deal.known != game.deal.known
        view, other_view = SeatView(game, 0), SeatView(other, 0)
        if len(view.legal_moves()) <= 2:
            continue
        expert = ExpertBot(SMALL)
        mine = expert.choose(view, random.Random(seed))
        assert expert.playouts_used > 0
        assert mine == expert.choose(other_view, random.Random(seed))
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize(("family", "fit_qdan"),
                         [("classic", False), ("qdan", False), ("qdan", True)])
def test_expert_mid_game_reads_only_its_view(family: str, fit_qdan: bool) -> None:
    """Later in a deal (a public record of plays and draws to read), the referee's engine and
    a copy in which the cards seat 0 cannot see are scrambled give the same decisions (in qdan
    also with hands re-dealt to fit the recent plays, ``fit_qdan``)."""
    compared = 0
    for seed in range(5):
        game, _ = _midgame(family, seed, 14 + seed % 5, seat=0)
        deal = game.deal
        if game.results or game.chance is not None or deal.turn != 0:
            continue
        view = SeatView(game, 0)
        if len(view.legal_moves()) <= 2:
            continue
        twin = game.what_if(deal.clone())
        twin.deal.events = list(deal.events)
        hidden = [s for p in deal.players if p != 0 for s in deal.hands[p]] + deal.stock
        cards = [deal.known[s] for s in hidden]
        random.Random(seed).shuffle(cards)
        for slot, card in zip(hidden, cards, strict=True):
            twin.deal.known[slot] = card
        expert = ExpertBot(SMALL, fit_qdan=fit_qdan)
        mine = expert.choose(view, random.Random(seed))
        assert mine == expert.choose(SeatView(twin, 0), random.Random(seed))
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("family", ["classic", "qdan"])
def test_expert_is_repeatable_and_spends_its_playouts(family: str) -> None:
    searched = 0
    for seed in range(8):
        game, _ = _midgame(family, seed, 6)
        if game.chance is not None or game.results:
            continue
        view = SeatView(game, game.deal.turn)
        expert = ExpertBot(Budget(playouts=30, horizon=30))
        first = expert.choose(view, random.Random(seed))
        used = expert.playouts_used
        assert used <= 30
        assert expert.choose(view, random.Random(seed)) == first
        assert expert.playouts_used == used
        searched += used > 0
    assert searched >= 2


def _tick(now: list[float]) -> float:
    now[0] += 0.001
    return now[0]


def test_the_time_cap_holds_on_the_clock_passed_in() -> None:
    """A clock that moves 1 ms per reading, a cap of 5 ms: the search stops before a world
    that would pass the cap (or mid-world once past it), whatever its playout budget."""
    for seed in range(12):
        game, _ = _midgame("qdan", seed, 8)
        if game.chance is not None or game.results:
            continue
        view = SeatView(game, game.deal.turn)
        now = [0.0]
        expert = ExpertBot(Budget(playouts=100_000, horizon=20, seconds=0.005),
                           lambda now=now: _tick(now))
        expert.choose(view, random.Random(seed))
        if expert.playouts_used:
            worlds_done = now[0] / 0.001 - 1  # one reading per world after the first
            assert worlds_done <= 6
            assert expert.playouts_used < 100
            return
    raise AssertionError("no searched decision found")


def test_the_race_drops_only_a_candidate_clearly_behind_on_the_same_worlds() -> None:
    """Paired rows: one candidate loses every world the leader wins, one is level with it on
    all but one world, one wins fewer but on different worlds (too noisy to drop yet)."""
    race = Race(first=8, every=4, z=2.5)
    lead = [1.0, 0.0] * 8
    behind = [0.0] * 16
    level = [1.0, 0.0] * 7 + [0.0, 0.0]
    noisy = [0.0, 1.0] * 6 + [0.0] * 4
    rows = [lead, behind, level, noisy]
    assert race.survivors([0, 1, 2, 3], rows, [0.0] * 4) == [0, 2, 3]
    assert race.survivors([0, 1], rows, [0.0, 0.6]) == [0, 1]  # a head start counts


def test_the_race_spends_fewer_playouts_and_never_more() -> None:
    spent = {0: 0, 4: 0}
    for seed in range(8):
        game, _ = _midgame("classic", seed, 10)
        if game.chance is not None or game.results:
            continue
        view = SeatView(game, game.deal.turn)
        for every in spent:
            expert = ExpertBot(Budget(playouts=240, horizon=40), race=Race(every=every))
            expert.choose(view, random.Random(seed))
            assert expert.playouts_used <= 240
            spent[every] += expert.playouts_used
    assert 0 < spent[4] < spent[0]


@pytest.mark.parametrize(("family", "players"), [("classic", 3), ("qdan", 4), ("qdan", 2)])
def test_expert_plays_whole_games_without_a_refused_move(family: str, players: int) -> None:
    options: dict[str, object] = {"deals": 1} if family == "classic" else {}
    bots = [ExpertBot(SMALL), make_bot("easy"), NormalBot(), NormalBot()][:players]
    record = play_game(make_settings(family, options), bots, random.Random(players), "all")
    assert not record.violations, record.violations
    assert 1 in record.places


def test_classic_guesses_never_rule_out_a_card_normal_holds() -> None:
    """Against ``normal`` players the guesses are never wrong, and there are many."""
    masked = 0
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(make_settings("classic", {"deals": 1}), 4, 0)
        normal = NormalBot()
        while not game.over:
            if game.chance is not None:
                resolve_chance(game, rng)
                continue
            view = SeatView(game, game.deal.turn)
            for slot, mask in classic_guesses(view).items():
                masked += 1
                assert not mask >> game.deal.known[slot] & 1
            move = normal.choose(view, rng)
            if move is None:  # a catch or late call is due from another seat
                move = next(m for s in game.players
                            if (m := normal.choose(SeatView(game, s), rng)) is not None)
            game.apply(move)
    assert masked > 100


def test_easy_forgets_calls_and_plays_carelessly() -> None:
    from p2p_pageone.engine import Call, Play, QdanSettings

    from .helpers import rig

    def forgets(level: str, seed: int) -> bool:
        game = rig(QdanSettings(), ["5r 5b 9g", "1g 2y 3y"], stock="3r")  # 0 owes a call
        move = make_bot(level, 0.5).choose(SeatView(game, 0), random.Random(seed))
        return not isinstance(move, Call) and not (isinstance(move, Play) and move.call)

    bot = make_bot("easy")
    assert isinstance(bot, EasyBot) and bot.forget > 0
    assert not any(forgets("expert", seed) for seed in range(30))
    assert 3 < sum(forgets("easy", seed) for seed in range(30)) < 20
    record = play_game(make_settings("qdan"), [bot, NormalBot(), NormalBot()],
                       random.Random(3), "all")
    assert not record.violations


def test_a_cpu_catches_after_the_window_and_a_reaction_time_of_its_level() -> None:
    from p2p_pageone.cli.cpu import REACTION, ThinkingBot

    class Catcher:
        name = "expert"

        def choose(self, view: SeatView, rng: random.Random) -> Catch:
            return Catch(view.seat, 1)

    game, _ = _midgame("classic", 1, 3)
    view = SeatView(game, game.deal.turn + 1 if game.deal.turn < 3 else 0)
    low, high = REACTION["expert"]
    assert REACTION["easy"][0] > REACTION["normal"][0] > low
    clock = [0.0]
    bot = ThinkingBot(Catcher(), lambda: clock[0], think=1.0, catch_window=2.0,
                      rng=random.Random(0))
    assert bot.choose(view, random.Random(0)) is None
    clock[0] = 2.0 + low - 0.01
    assert bot.choose(view, random.Random(0)) is None  # a person has had the window and more
    clock[0] = 2.0 + high + 0.01
    assert isinstance(bot.choose(view, random.Random(0)), Catch)


def test_sim_reports_the_expert_with_its_interval_and_decision_times() -> None:
    import time

    from p2p_pageone.sim.report import simulate

    report = simulate(make_settings("qdan", {"start_cards": 4}), 4, 2, 1,
                      ["expert", "normal"], "sample", time.perf_counter)
    row = report.as_dict()["levels"]["expert"]
    assert row["games"] == 2 and len(row["ci95"]) == 2
    assert 0 < row["ms_per_decision"] <= row["max_ms"]
    assert "max ms" in report.render()


def test_an_expert_at_a_table_stops_searching_on_the_tables_clock() -> None:
    """``pageone play``/``host``: the expert CPU gets a time cap on the clock the CLI passes."""
    from p2p_pageone.cli.cpu import EXPERT_CAP, ThinkingBot, cpu_bot

    def clock() -> float:
        return 0.0

    bot = cpu_bot("expert", clock, 1.0, 2.0, random.Random(0))
    assert isinstance(bot, ThinkingBot) and isinstance(bot.bot, ExpertBot)
    assert bot.bot.budget.seconds == EXPERT_CAP <= 0.25 and bot.bot.clock is clock
    bare = cpu_bot("expert", clock, 0.0, 0.0, random.Random(0))
    assert isinstance(bare, ExpertBot) and bare.budget.seconds == EXPERT_CAP


def test_qdan_playouts_choose_as_normal_scores_with_ties_broken_by_the_world() -> None:
    """The qdan playout habit picks one of ``normal``'s best-scored plays, and the same one for
    the same salt (the candidates of a world break ties alike)."""
    from p2p_pageone.bots.normal import _preferred_plays, qdan_score
    from p2p_pageone.bots.rollout import qdan_habit
    from p2p_pageone.engine import Play, QdanDeal

    checked = 0
    for seed in range(6):
        game, _ = _midgame("qdan", seed, 8)
        deal = game.deal
        if game.chance is not None or not isinstance(deal, QdanDeal):
            continue
        seat, habits = deal.turn, NormalBot()
        moves = deal.legal_moves(seat)
        plays = _preferred_plays(moves)
        if not plays:
            continue
        colours = [0, 0, 0, 0]
        for slot in deal.hands[seat]:
            if deal.known[slot] < 104:
                colours[deal.known[slot] // 26] += 1
        nxt = len(deal.hands[deal._step(seat, 1)])
        top = max(qdan_score(habits, p, colours, nxt) for p in plays)
        for salt in (1, 2, 3):
            pick = qdan_habit(deal, seat, habits, moves, salt)
            assert isinstance(pick, Play)
            assert qdan_score(habits, pick, colours, nxt) >= top - 1
            assert pick == qdan_habit(deal, seat, habits, moves, salt)
        checked += 1
    assert checked >= 3


def test_classic_playouts_score_the_chance_of_winning_the_game() -> None:
    """With deals left, a lead is a chance between 0 and 1 that grows with the lead; in the last
    deal a finished deal's result is sure (a tie for the lowest total shares first place)."""
    from p2p_pageone.bots.expert import _classic_win_chance

    game, _ = _midgame("classic", 3, 10)
    deal = game.deal.clone()
    ahead = _classic_win_chance(deal, 0, [0, 30, 30, 30], 4, 55.0, 0.8)
    behind = _classic_win_chance(deal, 0, [60, 30, 30, 30], 4, 55.0, 0.8)
    assert 0.0 < behind < ahead < 1.0
    while not deal.over:  # the deal played out by the playout habits
        ExpertBot()._play_on(deal, 0, 400, random.Random(3))
    scores = deal.scores()
    for lead in (-1, 0, 1):
        totals = [0] + [scores[0] - scores[p] + lead for p in (1, 2, 3)]
        chance = _classic_win_chance(deal, 0, totals, 0, 55.0, 0.8)
        assert round(chance) == (1 if lead >= 0 else 0) and abs(chance - round(chance)) <= 0.02
