"""`pageone` command line: argument parsing only; each subcommand lives in its own module.

To add a subcommand: a function ``add_NAME(sub)`` that declares its arguments and sets
``run=`` to a function of ``args`` (importing its module lazily), and one line in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from ..bots import LEVELS
from ..engine.settings import SettingError, Settings, parse_options
from .cpu import FORGET_DEFAULT
from .wrap import complain


def _rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=("classic", "qdan"), default="classic",
                        help="classic (trick-taking, 53 cards) or qdan (shedding, 108 cards); "
                        "default classic")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a table setting, e.g. hand_size=5 (repeatable; see docs/RULES.md)",
    )


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (0-65535; 0 picks one)")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError("seconds must be between 0 and 3600")
    return value


def _silence(text: str) -> float:
    value = _seconds(text)
    if value < 2:  # pings come every second: a shorter floor drops a link on any hiccup
        raise argparse.ArgumentTypeError("--silent-after must be at least 2 seconds")
    return value


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.lstrip("-").isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number {low}-{high}")
        return int(text)
    return parse


def settings_from(args: argparse.Namespace) -> Settings:
    options = list(args.option)
    if getattr(args, "deals", None) is not None:
        options.append(f"deals={args.deals}")
    return parse_options(args.rules, options)


def _fairness(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catch-window", type=_seconds, default=2.0, metavar="S",
                        help="seconds after a missed Page One call in which people can catch "
                        "it or call late before any CPU player may (default 2)")
    parser.add_argument("--think", type=_seconds, default=1.0, metavar="S",
                        help="about how long CPU players think before a move (default 1)")
    parser.add_argument("--plain", action="store_true", help="line-by-line narration instead "
                        "of the table screen (as when output is piped; for screen readers)")
    parser.add_argument("--cpu-forgets", type=_count(0, 100), default=FORGET_DEFAULT,
                        metavar="PCT", help="how often, in percent, a normal CPU player "
                        "forgets to say Page One, so people get calls to catch (default "
                        f"{FORGET_DEFAULT}; 0: never; CPU players alone never forget)")


NAME_MAX = 32
TABLE_NAME_MAX = 48  # the wire carries at most this (wire/messages.py)


def _player_name(text: str) -> str:
    name = text.strip()
    if not name or not name.isprintable() or len(name) > NAME_MAX:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a name is 1-{NAME_MAX} printable characters, e.g. --name alice")
    return name


def _table_name(text: str) -> str:
    name = text.strip()
    if not name.isprintable() or len(name) > TABLE_NAME_MAX:
        raise argparse.ArgumentTypeError(f"{text!r}: a table name is up to {TABLE_NAME_MAX} "
                                         "printable characters, e.g. --table friday")
    return name


def _you(parser: argparse.ArgumentParser, default: str | None) -> None:
    parser.add_argument("--name", default=default, type=_player_name,
                        help=f"your name at the table, 1-{NAME_MAX} printable characters "
                        "(default: your user name)")


def add_sim(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sim = sub.add_parser("sim", help="play engine-only games between CPU players")
    _rules(sim)
    sim.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    sim.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    sim.add_argument("--seed", type=int, default=0, help="the seed (same seed, same output)")
    sim.add_argument("--bots", default="normal,random",
                     help="bot per seat, comma-separated; the last repeats (default normal,random)")
    sim.add_argument("--no-check", action="store_true",
                     help="skip the referee's checks (same as --check none)")
    sim.add_argument("--check", choices=("all", "sample", "none"), default="sample",
                     help="the referee's cross-checks after every step, a seeded sample "
                          "(default), or none")
    sim.add_argument("--no-timing", action="store_true",
                     help="leave out ms_per_decision, so the same seed prints the same bytes")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(run=_run_sim)


def add_host(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = sub.add_parser("host", help="host a table on the LAN (with --bots: CPU players)")
    _rules(host)
    _you(host, _default_nick())
    host.add_argument("--table", default="", type=_table_name,
                      help="the table's name, up to 48 characters (default: NAME's table)")
    host.add_argument("--seats", type=_count(2, 6), default=0,
                      help="seats at the table, 2-6 (default: 2, or --bots + 1)")
    host.add_argument("--bots", default="0", metavar="N|LEVELS",
                      help="CPU players to seat, each a real peer: a number (of --level), or "
                      "levels such as normal,hard (default none)")
    host.add_argument("--level", default="normal", choices=LEVELS,
                      help="how the CPU players play (default normal)")
    host.add_argument("--autoplay", action="store_true", help="let the CPU play your seat")
    host.add_argument("--deals", type=_count(1, 200), default=None,
                      help="classic: deals in the game (short for --option deals=N)")
    host.add_argument("--log", default="", help="write the table's log here (a new file)")
    host.add_argument("--port", type=_port, default=0, help="TCP port (default: any free port)")
    host.add_argument("--interface", default="",
                      help="an address of this machine to listen and advertise on")
    host.add_argument("--no-mdns", action="store_true", help="do not advertise over mDNS")
    host.add_argument("--min-players", type=_count(2, 6), default=0, metavar="N",
                      help="start with at least N players (2 or more) when the seats do not "
                      "fill, once nobody has sat down or left for --start-after seconds "
                      "(default: wait for every seat)")
    host.add_argument("--start-after", type=_seconds, default=30.0, metavar="S",
                      help="with --min-players: how long the lobby waits for more (default 30)")
    host.add_argument("--lobby-timeout", type=_seconds, default=600.0, metavar="S",
                      help="close the table if nobody sits down or leaves for this long before "
                      "the game starts (default 600)")
    host.add_argument("--reconnect-window", type=_count(0, 3600), default=60, metavar="S",
                      help="seconds a player whose connection drops mid-game keeps the seat to "
                      "come back by running the same join again (default 60; 0: no return)")
    host.add_argument("--watchers", type=_count(0, 64), default=4, metavar="N",
                      help="how many may watch the table live with pageone watch (default 4; "
                      "0: none)")
    host.add_argument("--watcher-chat", action="store_true",
                      help="let watchers chat with you (5 lines every 10 s each; never in the "
                      "log; shown to you alone: relayed to the seats it would be no one's "
                      "signed word)")
    _fairness(host)
    host.add_argument("--silent-after", type=_silence, default=10.0, metavar="S",
                      help="seconds a player's connection may stay silent before it counts as "
                      "dropped, at the least: on a slow or lossy link the wait grows with the "
                      "measured round trip, up to 60 s (default 10)")
    host.set_defaults(run=_run_host)


def add_join(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    join = sub.add_parser("join", help="join a table found on the LAN")
    join.add_argument("table", nargs="?", default="",
                      help="the table's name, any case (default: the one open table, or ask)")
    _you(join, None)
    join.add_argument("--bot", action="store_true", help="sit a CPU player, not a person")
    join.add_argument("--level", default="normal", choices=LEVELS,
                      help="with --bot: how it plays (default normal)")
    join.add_argument("--autoplay", action="store_true", help="let the CPU play your seat")
    join.add_argument("--connect", default="", metavar="HOST:PORT",
                      help="skip discovery and connect to this address")
    join.add_argument("--log", default="", help="write the table's log here (a new file)")
    join.add_argument("--interface", default="", help="an address of this machine to browse on")
    join.add_argument("--wait", type=_seconds, default=10.0, metavar="S",
                      help="seconds to look for a table (default 10)")
    _fairness(join)
    join.add_argument("--silent-after", type=_silence, default=10.0, metavar="S",
                      help="seconds the host may stay silent before this pageone counts the "
                      "connection as lost (and tries to reconnect), at the least: on a slow or "
                      "lossy link the wait grows with the measured round trip, up to 60 s "
                      "(default 10)")
    join.set_defaults(run=_run_join)


def add_tables(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tables = sub.add_parser("tables", help="list the tables on the LAN (one row each, fitted "
                            "to the terminal's width)")
    tables.add_argument("--json", action="store_true", help="print one JSON list")
    tables.add_argument("--all", action="store_true", help="list full tables too")
    tables.add_argument("--timeout", type=_seconds, default=3.0, metavar="S",
                        help="seconds to listen (default 3)")
    tables.add_argument("--interface", default="", help="an address of this machine to browse on")
    tables.set_defaults(run=_run_tables)


def add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser("play", help="an offline game against CPU players (no network)")
    _rules(play)
    _you(play, _default_nick())
    play.add_argument("--bots", type=_count(1, 5), default=3,
                      help="CPU players besides you, 1-5 (default 3)")
    play.add_argument("--level", default="normal", choices=LEVELS,
                      help="how the CPU players play (default normal)")
    play.add_argument("--autoplay", action="store_true", help="let the CPU play your seat too")
    play.add_argument("--deals", type=_count(1, 200), default=None,
                      help="classic: deals in the game (short for --option deals=N)")
    play.add_argument("--seed", type=int, default=None, help="seed every shuffle (testing)")
    play.add_argument("--log", default="", help="write the table's log here (a new file)")
    _fairness(play)
    play.set_defaults(run=_run_play)


def add_whoami(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    whoami = sub.add_parser("whoami", help="show this user's identity fingerprint")
    whoami.set_defaults(run=lambda args: _whoami())


def add_watch(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .watch_cmd import add_watch as add

    add(sub)


def add_audit(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .audit_cmd import add_parsers

    add_parsers(sub)  # audit, replay, log show, ratings


SUBCOMMANDS = (add_host, add_join, add_tables, add_watch, add_play, add_sim, add_whoami,
               add_audit)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pageone", description="Page One (classic and Qdan) on a LAN, with no trusted "
        "dealer. Start with: pageone play (offline), pageone host, pageone join. On the table "
        "screen type help for the commands; PageUp/PageDown look back through the story.")
    parser.add_argument("--version", action="version", version=f"pageone {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


ALIASES = {"--family": "--rules", "--variant": "--rules", "--game": "--rules",
           "--cpus": "--bots", "--cpu": "--bots", "--players": "--bots", "--nick": "--name"}


def unknown_options(parser: argparse.ArgumentParser, command: str, extra: list[str]) -> str:
    """What to say of arguments the command does not take: the option meant, where one is
    close (``--family`` → ``--rules``), and where the list is."""
    sub = _subparsers(parser).get(command, parser)
    options = [o for action in sub._actions for o in action.option_strings]
    said = []
    aliases = {alias: option for alias, option in ALIASES.items() if option in options}
    for word in [w for w in extra if w.startswith("-")] or extra[:1]:
        name = word.split("=", 1)[0]
        close = difflib.get_close_matches(name, [*options, *aliases], n=1, cutoff=0.6)
        meant = aliases.get(close[0], close[0]) if close else ""
        what = f"no option {name}" if name.startswith("-") else f"unexpected {word!r}"
        said.append(f"{what}: did you mean {meant}?" if meant else what)
    return (f"pageone {command}: {'; '.join(said)} (pageone {command} --help lists what it "
            "takes)")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    _wrap_back_on()
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        complain(unknown_options(parser, args.command, extra))
        return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        complain(f"pageone {args.command}: stopped")
        return 4
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`)
        sys.stderr.close()
        return 1


def _wrap_back_on() -> None:
    """Line wrap on again, on a terminal: a full-screen pageone killed with ``kill -9`` leaves
    it off (the screen turns it off while it runs and back on when it ends, Ctrl-C and SIGTERM
    included), so the next pageone started there restores it."""
    if sys.stdout.isatty() and os.environ.get("TERM", "") != "dumb":
        sys.stdout.write("\x1b[?7h")
        sys.stdout.flush()


def _with_settings(args: argparse.Namespace) -> Settings | None:
    try:
        return settings_from(args)
    except SettingError as error:
        complain(f"pageone {args.command}: {error}")
        return None


def _run_sim(args: argparse.Namespace) -> int:
    from .sim_cmd import run_sim

    settings = _with_settings(args)
    return 2 if settings is None else run_sim(args, settings)


def _run_host(args: argparse.Namespace) -> int:
    from .table_cmds import run_host

    settings = _with_settings(args)
    return 2 if settings is None else run_host(args, settings)


def _run_join(args: argparse.Namespace) -> int:
    from .join_cmd import run_join

    return run_join(args)


def _run_tables(args: argparse.Namespace) -> int:
    from .table_cmds import run_tables

    return run_tables(args)


def _run_play(args: argparse.Namespace) -> int:
    from .local import run_local

    settings = _with_settings(args)
    return 2 if settings is None else run_local(args, settings)


def _default_nick() -> str:
    from .table_cmds import default_nick

    return default_nick()


def _whoami() -> int:
    from .identity_store import IdentityFileError, config_dir, load_or_create

    try:
        identity = load_or_create()
    except IdentityFileError as error:
        complain(f"pageone: {error}")
        return 1
    print(f"{identity.fingerprint}  ({config_dir() / 'identity.key'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
