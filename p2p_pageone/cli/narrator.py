"""The session's events as lines for the player, in the order they happened.

What the player must act on comes last in each batch: a catch hint, then "your turn" with what to
do and the legal cards marked. Repeated draws by one player collapse into one line, and the
player's own draws name the cards once they are opened.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.game import DealResult
from ..engine.moves import Play
from ..engine.qdan import QdanDeal
from ..session.common import Event
from ..session.peer import PeerSession
from . import render
from .draws import OwnDraw, ended_text, result_text
from .echoes import without_echoes
from .hints import page_one_hint, playable_cards, refusal_text, what_to_do
from .render import Line

Sink = Callable[[list[Line]], None]
QUIET = ("your_turn", "catchable")  # derived from the table's state instead, at a batch's end


class Narrator:
    def __init__(self, session: PeerSession, sink: Sink, symbols: bool = True,
                 prompts: bool = True, catch_window: float = 2.0) -> None:
        self.session, self.sink, self.symbols = session, sink, symbols
        self.prompts = prompts  # False for a CPU seat: no turn or catch prompts
        self.catch_window = catch_window
        self.lines: list[Line] = []
        self.draw: tuple[int, int, str] | None = None  # (seat, count, why) not printed yet
        self.own = OwnDraw()  # my draw, told once its cards are known
        self.my_cards: set[int] = set()  # slots of my hand already shown to me
        self.deal_id = 0
        self.prompted: tuple[int, int] = (-1, -1)
        self.hinted: tuple[int, int] = (-1, -1)
        self.results_shown = 0
        self.places_shown: set[int] = set()
        self.places_deal = 0
        self.eliminated: set[tuple[int, int]] = set()  # (id of the deal, seat)
        self.recent: list[tuple[object, ...]] = []  # the last two engine events
        self.last_play: dict[int, int] = {}  # seat → index of its last play in this batch
        self.index = 0

    # --- entry points -------------------------------------------------------------------------

    def show(self, events: list[Event]) -> None:
        events, self.last_play = without_echoes(events, self.session.me), {}
        for index, event in enumerate(events):
            if event.kind == "hand":
                self.last_play = {}
            elif event.kind == "engine" and event.data["event"][0] == "play":
                self.last_play[int(event.data["event"][1])] = index
        for self.index, event in enumerate(events):
            self._event(event)
        if self._pending_prompt():
            self._flush_draw()
        self._my_new_cards()
        self._places()
        if self.prompts:
            self._catch_hint()
            self._your_turn()
        self.emit()

    def idle(self) -> None:
        """Nothing has happened for a while: print a draw that is still being counted."""
        self._flush_draw()
        self._my_new_cards()
        self.emit()

    def emit(self) -> None:
        if self.lines:
            lines, self.lines = self.lines, []
            self.sink(lines)

    def say(self, text: str, style: str = "") -> None:
        self.lines.append([(style, text)])

    # --- events -------------------------------------------------------------------------------

    def _name(self, seat: int) -> str:
        s = self.session
        return "you" if seat == s.me else s.names[seat] if 0 <= seat < len(s.names) else "?"

    def _verb(self, seat: int, verb: str) -> str:
        if seat == self.session.me:
            return f"you {verb}"
        return f"{self._name(seat)} {verb}es" if verb.endswith(("ch", "sh", "s")) else (
            f"{self._name(seat)} {verb}s")

    def _event(self, event: Event) -> None:
        if event.kind in QUIET:
            return
        if event.kind == "engine":
            self._engine(tuple(event.data["event"]))
            return
        self._flush_draw()
        if event.kind == "scores":
            self._results(int(event.data.get("hand", -1)))
        elif event.kind == "game_over":
            self._results()
            self._places()
            self._game_over()
        elif event.kind == "hand":
            self._new_hand(event)
        elif event.kind == "say":
            self.say("  " + self._said(event.text), "italic")
        elif event.kind == "refused":
            self.say("  " + refusal_text(self.session, render.without_ruling_ids(event.text)))
        elif event.kind == "ended":
            self._ended(event)
        elif event.kind == "dealer" and event.data.get("dealer") == self.session.me:
            self.say("  the coin toss makes you the first dealer")
        elif event.kind == "table" and self.session.table_name == "offline":
            return  # an offline table has no address or host to tell
        elif event.kind == "seat":
            text = event.text.split(" (")[0]
            seat = int(text.rsplit(" ", 1)[-1])
            if seat != self.session.me:
                self.say("  " + text)
                return
            name = self.session.names[seat]
            renamed = f" as {name} ({self.session.name} was taken)" if (
                name != self.session.name) else ""
            self.say(f"  you sit at seat {seat}{renamed}")
        else:
            self.say("  " + render.without_ruling_ids(event.text))

    def _said(self, text: str) -> str:
        """A chat line; mine (names are unique at a table) as "you: …", as every line says."""
        s = self.session
        mine = f"{s.names[s.me]}: " if 0 <= s.me < len(s.names) else "?"
        return "you: " + text[len(mine):] if text.startswith(mine) else text

    def _engine(self, event: tuple[object, ...]) -> None:
        recent, self.recent = self.recent, [*self.recent[-1:], event]
        kind, *rest = event
        family = self._family()
        if kind == "call" and len(recent) == 2 and recent[0] == event and (
                recent[1][:2] == ("play", rest[0])):
            return  # said before the play, and counted again by it: one call
        if kind == "draw":
            seat, count, why = int(str(rest[0])), int(str(rest[1])), str(rest[2])
            if self.draw is not None and self.draw[0] == seat and self.draw[2] == why:
                self.draw = (seat, self.draw[1] + count, why)
                return
            self._flush_draw()
            self.draw = (seat, count, why)
            if why != "follow":  # only drawing to follow comes one card at a time
                self._flush_draw()
            return
        self._flush_draw()
        if kind == "reshuffle":
            self.say(f"  the discards are reshuffled into a new stock of {rest[0]} cards")
        elif kind == "start":
            self.lines.append([("", "  start card: "),
                               render.card(int(str(rest[0])), family, self.symbols)])
        elif kind == "play":
            self._play(int(str(rest[0])), rest[1], rest[2] if len(rest) > 2 else -1)
        elif kind == "trick":
            seat = int(str(rest[0]))
            self.say(f"  {self._verb(seat, 'win')} the trick",
                     "bold" if seat == self.session.me else "")
        elif kind == "call":
            self.say(f"  {self._name(int(str(rest[0])))}: \"Page One!\"", "bold")
        elif kind == "caught":
            catcher, target = int(str(rest[0])), int(str(rest[1]))
            self.say(f"  {self._verb(catcher, 'catch')} {self._name(target)}: no Page One "
                     "call, penalty cards", "bold")
        elif kind == "eliminated":
            game = self.session.game
            self.eliminated.add((id(game.deal) if game else 0, int(str(rest[0]))))
            self.say(f"  {self._verb(int(str(rest[0])), 'hold')} too many cards")
            self._places(int(str(rest[0])))
        elif kind == "skipped":
            seat = int(str(rest[0]))
            self.say(f"  {self._name(seat)} {'are' if seat == self.session.me else 'is'} skipped")
        elif kind == "stopped":
            self.say(f"  {self._name(int(str(rest[0])))}: stopped by the 8, no card this trick")
        elif kind == "passed":
            self.say(f"  {self._name(int(str(rest[0])))}: cannot follow and the stock is empty, "
                     "passes (no card this trick)")
        elif kind == "forgiven":
            self.say(f"  {self._name(int(str(rest[0])))}: nothing left to draw, "
                     f"{rest[1]} penalty card{'' if rest[1] == 1 else 's'} forgiven")

    def _play(self, seat: int, played: object, colour: object) -> None:
        assert isinstance(played, tuple)
        family = self._family()
        if seat == self.session.me and self.own.pending:  # played as soon as drawn (auto)
            self._own_draw_played([int(c) for c in played])
        line: Line = [("", f"  {self._verb(seat, 'play')} ")]
        line += render.cards([int(c) for c in played], family, self.symbols)
        if isinstance(colour, int) and colour >= 0:
            chooses = "choose" if seat == self.session.me else "chooses"
            line.append(("", f" and {chooses} {render.COLOUR_NAMES[colour]}"))
        game = self.session.game
        if game is not None and seat in game.deal.players and (
                self.last_play.get(seat) == self.index):  # the count is this play's
            left = len(game.deal.hands[seat])
            if 0 < left <= 2:
                line.append(("", f"  ({left} card{'s' if left != 1 else ''} left)"))
        self.lines.append(line)
        if self.last_play.get(seat) == self.index and game is not None and not (
                game.deal.hands[seat]):
            self._places(seat)

    def _flush_draw(self) -> None:
        if self.draw is None:
            return
        seat, count, why = self.draw
        self.draw = None
        what = f"{count} card{'s' if count != 1 else ''}"
        reason = {"penalty": " as a penalty", "pending": " (the pending draw)"}.get(why, "")
        if seat == self.session.me:
            self._own_draw_told(force=True)  # an earlier one still waiting for its cards
            new = self._my_new_cards(announce=False)
            self.own.start(count, reason, new)
            self._own_draw_told()
        else:
            self.say(f"  {self._name(seat)} draws {what}{reason}")

    def _own_draw_played(self, played: list[int]) -> None:
        game = self.session.game
        mine = {game.deal.known[slot] for slot in self.my_cards} if game is not None else set()
        self.own.add([card for card in played if card not in mine])
        self._own_draw_told(force=True)

    def _own_draw_told(self, force: bool = False) -> None:
        if self.own.pending and (force or self.own.complete):
            self.lines.append(self.own.told(self._family(), self.symbols))

    def _my_new_cards(self, announce: bool = True) -> list[int]:
        """Cards of my hand opened since I last looked; on a new deal the whole hand is new."""
        s = self.session
        game = s.game
        if game is None or s.me < 0 or s.me not in game.deal.players:
            return []
        deal = game.deal
        if id(deal) != self.deal_id:
            self._own_draw_told(force=True)
            self.deal_id, self.my_cards = id(deal), set()
        opened = [slot for slot in deal.hands[s.me] if deal.known[slot] >= 0
                  and slot not in self.my_cards]
        if not opened:
            return []
        if self.my_cards and self.draw is not None:
            return []  # a draw still being counted: its cards are told with it
        new = [deal.known[slot] for slot in opened]
        if not self.my_cards:  # the deal: shown once every card of it is open
            if len(opened) < len(deal.hands[s.me]):
                return []
            self.my_cards.update(opened)
            line: Line = [("", "  your cards: ")]
            self.lines.append(line + render.hand(new, self._family(), symbols=self.symbols))
            return []
        self.my_cards.update(opened)
        if self.own.pending:
            self.own.add(new)
            self._own_draw_told()
        elif announce and self.draw is None:
            self.lines.append([("", "  you get "),
                               *render.cards(new, self._family(), self.symbols)])
        return new

    def _new_hand(self, event: Event) -> None:
        s = self.session
        game = s.game
        if game is None:
            return
        hand, dealer = event.data.get("hand"), event.data.get("dealer")
        if isinstance(hand, int) and isinstance(dealer, int):
            self.say(f"— hand {hand}: {self._verb(dealer, 'deal')} —", "bold")
        else:
            self.say(f"— {event.text} —", "bold")

    def _results(self, hand: int = -1) -> None:
        """Results not shown yet. A hand's ``scores`` event brings one, with ``hand`` its
        number at the table (void hands count there, not in the game's own numbering)."""
        s = self.session
        game = s.game
        if game is None:
            return
        while self.results_shown < len(game.results):
            result = game.results[self.results_shown]
            self.results_shown += 1
            self._result(result, hand if hand > 0 else result.number)
            if hand > 0:
                return

    def _result(self, result: DealResult, number: int) -> None:
        s = self.session
        game = s.game
        assert game is not None
        if game.settings.family == "qdan":
            return  # places are announced as players go out
        self.say(result_text(result, number, self._name), "bold")
        self.say("  " + render.scores_line(game, render.seen_names(s.names, s.me)))

    def _places(self, only: int = -1) -> None:
        """Announce places as they are taken (``only``: just that seat's, if it has one)."""
        s = self.session
        game = s.game
        if game is None or not isinstance(game.deal, QdanDeal):
            return
        deal = game.deal
        if id(deal) != self.places_deal:
            self.places_deal, self.places_shown = id(deal), set()
        for seat in deal.players:
            place = deal.places[seat]
            if not place or seat in self.places_shown or only not in (-1, seat):
                continue
            self.places_shown.add(seat)
            if (id(deal), seat) in self.eliminated:
                how = "are out" if seat == s.me else "is out"
            elif not deal.hands[seat]:
                how = "go out" if seat == s.me else "goes out"
            else:
                how = "are the last one playing" if seat == s.me else "is the last one playing"
            self.say(f"  {self._name(seat)} {how}: {render.ordinal(place)} place", "bold")

    def _game_over(self) -> None:
        s = self.session
        game = s.game
        assert game is not None
        winners = [self._name(w) for w in game.winners()]
        one = len(winners) == 1 and winners != ["you"]
        self.say(f"game over: {', '.join(winners)} win{'s' if one else ''}", "bold")
        self.say("final standings:")
        for line in render.standings(game, render.seen_names(s.names, s.me)):
            self.say(line)

    def _ended(self, event: Event) -> None:
        said = ended_text(self.session, int(event.data.get("culprit", -1)))
        if said:
            self.say(said, "bold")

    # --- what to do now -----------------------------------------------------------------------

    def _family(self) -> str:
        settings = self.session.settings
        return settings.family if settings else "classic"

    def _pending_prompt(self) -> bool:
        s = self.session
        game = s.game
        return bool(self.prompts and game is not None and game.chance is None
                    and game.deal.turn == s.me and s.hand_known() and not s.game_over
                    and not s.ended)

    def _catch_hint(self) -> None:
        s = self.session
        game = s.game
        if game is None or game.chance is not None or not game.settings.forget_penalty:
            return
        deal = game.deal
        miss = deal.open_miss
        moment = (s.hand, deal.moves)
        if miss < 0 or self.hinted == moment or s.autoplay:
            return
        self.hinted = moment
        window = f"{self.catch_window:g} s" if self.catch_window > 0 else "a moment"
        if miss == s.me:
            self.say(f"  you did not say Page One! Type pageone now: you have {window} "
                     "before anyone may catch you", "reverse bold")
        else:
            self.say(f"  {s.names[miss]} did not say Page One! Type catch {s.names[miss]} "
                     f"now (you have {window})", "reverse bold")

    def _your_turn(self) -> None:
        s = self.session
        game = s.game
        if not self._pending_prompt() or s.autoplay or game is None:
            return
        moment = (s.hand, game.deal.moves)
        again = self.prompted == moment
        if again and not self.lines:
            return  # shown, and nothing printed below it since
        self.prompted = moment
        view = s.view()
        assert view is not None
        family = game.settings.family
        legal = [m for m in view.legal_moves() if isinstance(m, Play)]
        playable = playable_cards(game.deal, legal)
        if again:  # chat or a hint came in below the prompt: show it again, short
            self.lines.append([("reverse bold", " STILL YOUR TURN "), ("", "  "),
                               *render.hand(view.hand(), family, playable, self.symbols)])
            return
        self.lines.append(render.table(game, s.names, s.me, self.symbols))
        line: Line = [("reverse bold", " YOUR TURN "), ("", "  ")]
        line += render.hand(view.hand(), family, playable, self.symbols)
        self.lines.append(line)
        self.lines.append([("bold", "  " + what_to_do(s, playable, legal))])
        calls = page_one_hint(legal, len(view.hand()), family)
        if calls:
            self.lines.append([("bold", "  " + calls)])
