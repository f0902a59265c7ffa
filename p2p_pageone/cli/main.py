"""`pageone` command line: argument parsing only; each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..engine.settings import SettingError, Settings, parse_options
from .audit_cmd import add_parsers as add_audit_commands
from .table_cmds import default_nick


def _add_rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=("classic", "qdan"), default="classic")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a table setting, e.g. hand_size=5 (repeatable; see docs/RULES.md)",
    )


def settings_from(args: argparse.Namespace) -> Settings:
    options = list(args.option)
    if getattr(args, "deals", None) is not None:
        options.append(f"deals={args.deals}")
    return parse_options(args.rules, options)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pageone", description="Page One (classic and Qdan) with no trusted dealer."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("sim", help="play engine-only games between CPU players")
    _add_rules(sim)
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--bots", default="normal,random",
                     help="bot per seat, comma-separated; the last repeats (default normal,random)")
    sim.add_argument("--no-check", action="store_true",
                     help="skip the referee's per-move cross-checks (faster)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")

    host = sub.add_parser("host", help="host a table on the LAN (with --bots: CPU peers)")
    _add_rules(host)
    host.add_argument("--name", default="", help="the table's name (default: NICK's table)")
    host.add_argument("--nick", default=default_nick(), help="your name at the table")
    host.add_argument("--seats", type=int, default=0, help="seats at the table (default bots+1)")
    host.add_argument("--bots", type=int, default=0, help="CPU peers to start (real peers)")
    host.add_argument("--level", default="normal", choices=("normal", "random"))
    host.add_argument("--autoplay", action="store_true", help="let the CPU play your seat")
    host.add_argument("--deals", type=int, default=None, help="classic: short for --option deals=N")
    host.add_argument("--log", default="", help="where to write the table's log")
    host.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    host.add_argument("--interface", default="", help="the address to listen and advertise on")
    host.add_argument("--no-mdns", action="store_true", help="do not advertise over mDNS")
    host.add_argument("--silent-after", type=float, default=10.0, help=argparse.SUPPRESS)

    join = sub.add_parser("join", help="join a table found on the LAN")
    join.add_argument("table", nargs="?", default="", help="the table's name (default: any)")
    join.add_argument("--name", default=default_nick(), help="your name at the table")
    join.add_argument("--bot", action="store_true", help="sit a CPU player, not a person")
    join.add_argument("--level", default="normal", choices=("normal", "random"))
    join.add_argument("--autoplay", action="store_true", help="let the CPU play your seat")
    join.add_argument("--connect", default="", metavar="HOST:PORT", help="skip discovery")
    join.add_argument("--log", default="", help="where to write the table's log")
    join.add_argument("--interface", default="", help="the address to browse on")
    join.add_argument("--wait", type=float, default=10.0, help="seconds to look for a table")
    join.add_argument("--silent-after", type=float, default=10.0, help=argparse.SUPPRESS)

    tables = sub.add_parser("tables", help="list the tables on the LAN")
    tables.add_argument("--json", action="store_true")
    tables.add_argument("--timeout", type=float, default=3.0, help="seconds to listen")
    tables.add_argument("--interface", default="", help="the address to browse on")

    play = sub.add_parser("play", help="an offline game against CPU players (no network)")
    _add_rules(play)
    play.add_argument("--bots", type=int, default=3, help="CPU players besides you")
    play.add_argument("--level", default="normal", choices=("normal", "random"))
    play.add_argument("--autoplay", action="store_true", help="let the CPU play your seat too")
    play.add_argument("--deals", type=int, default=None, help="classic: short for --option deals=N")
    play.add_argument("--seed", type=int, default=None, help="seed the shuffle (testing)")
    play.add_argument("--name", default="you", help="your name at the table")

    sub.add_parser("whoami", help="show this user's identity fingerprint (made on first use)")
    add_audit_commands(sub)  # audit, replay, log show, ratings (cli/audit_cmd.py)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if hasattr(args, "run"):  # commands that carry their own runner (cli/audit_cmd.py)
        return int(args.run(args))
    if args.command == "whoami":
        return _whoami()
    if args.command == "join":
        from .table_cmds import run_join

        return run_join(args)
    if args.command == "tables":
        from .table_cmds import run_tables

        return run_tables(args)
    try:
        settings = settings_from(args)
    except SettingError as error:
        print(f"pageone: {error}", file=sys.stderr)
        return 2
    if args.command == "sim":
        from .sim_cmd import run_sim

        return run_sim(args, settings)
    if args.command == "host":
        from .table_cmds import run_host

        return run_host(args, settings)
    from .local import run_local

    return run_local(args, settings)


def _whoami() -> int:
    from .identity_store import IdentityFileError, config_dir, load_or_create

    try:
        identity = load_or_create()
    except IdentityFileError as error:
        print(f"pageone: {error}", file=sys.stderr)
        return 1
    print(f"{identity.fingerprint}  ({config_dir() / 'identity.key'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
