"""`pageone audit`, `pageone replay`, `pageone log show` and `pageone ratings`.

Exit codes: 0 every log OK (the game played to its end, every check holds) and the logs agree;
1 a log FAILs (a fault, naming who the log proves at fault) or logs of one table fork (logs of
several tables are grouped by table, each compared only with its own table's: that is no
fault); 2 a usage error (no such file, not a pageone log, nothing to audit); 3 a log is
INCOMPLETE (the table ended early or the log stops before the game's end: nobody at fault).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..audit.check import Audit, audit_bytes
from ..audit.compare import Comparison, compare
from ..audit.logfile import read_frames
from ..audit.report import SCHEMA, comparison_document, document, text_lines
from .identity_store import config_dir, data_dir
from .render import without_ruling_ids
from .step_keys import step_wait
from .wrap import printed

EXIT_OK, EXIT_FAULT, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


def exit_code(audits: list[Audit], *comparisons: Comparison | None) -> int:
    """FAIL (or logs of one table that do not agree) before INCOMPLETE before OK."""
    if any(a.verdict == "FAIL" for a in audits) or not all(
            c is None or c.ok for c in comparisons):
        return EXIT_FAULT
    return EXIT_INCOMPLETE if any(a.verdict == "INCOMPLETE" for a in audits) else EXIT_OK


def add_parsers(sub: Any) -> None:
    audit = sub.add_parser("audit", help="check a table's log: signatures, deck, every move")
    audit.add_argument("logs", nargs="*", metavar="LOG",
                       help="log files, of one table or several (each log is compared with "
                       "the others of its table)")
    audit.add_argument("--json", action="store_true", help="print one JSON document")
    audit.add_argument("--quiet", action="store_true", help="print only the verdict")
    audit.add_argument("--last", action="store_true", help="audit this user's latest table")
    audit.add_argument("--rate", action="store_true",
                       help="add a clean, finished table to the local ratings")
    audit.add_argument("--every-proof", action="store_true",
                       help="verify every shuffle and lock proof's bytes, even where the seed "
                       "reveal re-derives the pass, as a live peer does on receipt (slower)")
    audit.set_defaults(run=run_audit)

    replay = sub.add_parser("replay", help="replay a table's log move by move")
    replay.add_argument("log", metavar="LOG", help="a table's log file")
    view = replay.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, default=None, metavar="N",
                      help="as seat N saw it (its cards only)")
    view.add_argument("--open", action="store_true", help="every hand open")
    replay.add_argument("--step", action="store_true",
                        help="lines: wait after each move (Enter: next move, q: quit)")
    replay.add_argument("--hand", type=int, default=None, metavar="K", help="only hand K")
    replay.add_argument("--summary", action="store_true", help="hands, players, results")
    replay.add_argument("--plain", action="store_true", help="line by line, not the table screen")
    replay.set_defaults(run=run_replay)

    log = sub.add_parser("log", help="look into a table's log")
    log_sub = log.add_subparsers(dest="log_command", metavar="COMMAND")
    show = log_sub.add_parser("show", help="hands, players, results, where the cards went")
    show.add_argument("log", metavar="LOG", help="a table's log file")
    show.set_defaults(run=run_log_show)
    log.set_defaults(run=lambda args: _usage("log", "say what to do: pageone log show LOG"))

    ratings = sub.add_parser("ratings", help="the local Elo table from audited logs")
    ratings.add_argument("--json", action="store_true", help="print one JSON document")
    ratings.set_defaults(run=run_ratings)


def ratings_path() -> Path:
    return data_dir() / "ratings.json"


def _latest_log() -> Path | None:
    logs = sorted((data_dir() / "logs").glob("*.pageone-log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return None
    mine = _own_fingerprint()
    own = [p for p in logs if mine and p.stem.endswith(mine)]
    return (own or logs)[-1]


def _own_fingerprint() -> str:
    from ..crypto.identity import Identity
    from .identity_store import FILE_NAME

    try:
        return Identity((config_dir() / FILE_NAME).read_bytes()[:32]).fingerprint
    except (OSError, ValueError):
        return ""


def _read(paths: list[str]) -> list[bytes] | str:
    out = []
    for path in paths:
        try:
            out.append(Path(path).read_bytes())
        except OSError as error:
            return f"cannot read {path}: {error.strerror or error}"
    return out


def run_audit(args: argparse.Namespace) -> int:
    paths = list(args.logs)
    if args.last:
        latest = _latest_log()
        if latest is None:
            print(f"pageone audit: no logs under {data_dir() / 'logs'}", file=sys.stderr)
            return EXIT_USAGE
        paths.append(str(latest))
    if not paths:
        print("pageone audit: name a log file (or --last for your latest table)", file=sys.stderr)
        return EXIT_USAGE
    contents = _read(paths)
    if isinstance(contents, str):
        return _audit_usage(args.json, paths, contents)
    audits = [audit_bytes(data, every_proof=args.every_proof) for data in contents]
    if args.json and any(audit.not_a_log for audit in audits):
        why = "; ".join(f"{path} is not a pageone log ({audit.not_a_log})"
                        for path, audit in zip(paths, audits, strict=True) if audit.not_a_log)
        return _audit_usage(True, paths, why)
    if _not_logs(paths, audits, "audit"):
        return EXIT_USAGE
    groups = _by_table(paths, [read_frames(d).entries for d in contents], audits)
    comparisons = [(group, compare(*group)) for group in groups if len(group[0]) > 1]
    code = exit_code(audits, *(c for _, c in comparisons))
    if args.json:
        print(json.dumps(_document(paths, audits, groups, comparisons), indent=1,
                         sort_keys=True))
    else:
        for path, audit in zip(paths, audits, strict=True):
            printed(without_ruling_ids("\n".join(text_lines(path, audit, args.quiet))))
        for (group_paths, _, group_audits), comparison in comparisons:
            which = "" if len(groups) == 1 else (
                f" of table {group_audits[0].table_name!r} "
                f"({', '.join(Path(p).name for p in group_paths)})")
            printed(f"comparison{which}: {'OK' if comparison.ok else 'FAIL'} — "
                    f"{comparison.text}")
        if len(groups) > 1:
            printed(f"{len(paths)} logs of {len(groups)} tables: each log is compared with the "
                    "logs of its own table" + ("" if comparisons else " (one log each: "
                                               "nothing to compare)"))
    if args.rate:
        _rate(audits if code == EXIT_OK else [], json_mode=args.json)
    return code


Group = tuple[list[str], list[list[bytes]], list[Audit]]  # paths, their entries, their audits


def _by_table(paths: list[str], logs: list[list[bytes]], audits: list[Audit]) -> list[Group]:
    """The logs grouped by table (the same first entry, the table's signed description), in
    the order each table first comes: only logs of one table are compared."""
    groups: dict[bytes, Group] = {}
    for path, log, audit in zip(paths, logs, audits, strict=True):
        group = groups.setdefault(log[0] if log else path.encode(), ([], [], []))
        group[0].append(path)
        group[1].append(log)
        group[2].append(audit)
    return list(groups.values())


def _document(paths: list[str], audits: list[Audit], groups: list[Group],
              comparisons: list[tuple[Group, Comparison]]) -> dict[str, Any]:
    """The JSON document: ``comparison`` when every log is of one table (null for one log);
    ``comparisons``, one per table with several logs, each naming its logs."""
    doc = document(paths, audits, comparisons[0][1] if len(groups) == 1 and comparisons
                   else None)
    doc["comparisons"] = [{"logs": group[0], **comparison_document(comparison)}
                          for group, comparison in comparisons]
    doc["ok"] = all(a.ok for a in audits) and all(c.ok for _, c in comparisons)
    return doc


def _audit_usage(as_json: bool, paths: list[str], error: str) -> int:
    """A usage error of ``pageone audit``, on standard error; with ``--json`` also one JSON
    document on standard output."""
    if as_json:
        print(json.dumps({"schema": SCHEMA, "ok": False, "error": error, "logs": [],
                          "comparison": None}, indent=1, sort_keys=True))
    print(f"pageone audit: {error}", file=sys.stderr)
    return EXIT_USAGE


def _not_logs(paths: list[str], audits: list[Audit], command: str) -> bool:
    """Say so of every file that is not a pageone log at all; True if one is not."""
    for path, audit in zip(paths, audits, strict=True):
        if audit.not_a_log:
            print(f"pageone {command}: {path} is not a pageone log ({audit.not_a_log})",
                  file=sys.stderr)
    return any(audit.not_a_log for audit in audits)


def _rate(audits: list[Audit], json_mode: bool) -> None:
    from ..audit import ratings

    out = sys.stderr if json_mode else sys.stdout
    if not audits:
        print("not rated: only a table whose every log is OK (played to its end, every check "
              "holding) counts", file=out)
        return
    try:
        data = ratings.load(ratings_path())
    except (OSError, ValueError) as error:
        print(f"pageone audit: cannot read the ratings: {error}", file=sys.stderr)
        return
    for audit in {a.table_id: a for a in audits}.values():  # one table, counted once
        print(ratings.rate(data, audit).text, file=out)
    ratings.save(ratings_path(), data)


def run_ratings(args: argparse.Namespace) -> int:
    from ..audit import ratings

    try:
        data = ratings.load(ratings_path())
    except (OSError, ValueError) as error:
        print(f"pageone ratings: {error}", file=sys.stderr)
        return EXIT_USAGE
    rows = ratings.table_rows(data)
    if args.json:
        print(json.dumps({"tables": len(data["tables"]), "players": rows}, indent=1))
        return EXIT_OK
    if not rows:
        print("no ratings yet: `pageone audit --rate LOG` adds a table that passes the audit")
    for row in rows:
        print(f"{row['rating']:7.1f}  {row['name']:<16} {row['fingerprint']}  "
              f"{row['games']} table{'s' if row['games'] != 1 else ''}")
    return EXIT_OK


def _audited(path: str, command: str) -> Audit | None:
    contents = _read([path])
    if isinstance(contents, str):
        print(f"pageone {command}: {contents}", file=sys.stderr)
        return None
    audit = audit_bytes(contents[0])
    return None if _not_logs([path], [audit], command) else audit


def run_replay(args: argparse.Namespace) -> int:
    from .replay_view import replay_lines, summary_lines

    audit = _audited(args.log, "replay")
    if audit is None:
        return EXIT_USAGE
    if args.summary:
        print(without_ruling_ids("\n".join(summary_lines(audit))))
        return exit_code([audit])
    refused = _replay_refused(audit, args.seat, args.hand)
    if refused:
        return _usage("replay", refused)
    from .replay_screen import replay_command

    if replay_command(audit, args):  # the replay screen, on a terminal
        return exit_code([audit])
    for line in replay_lines(audit, args.seat, args.open, args.hand):
        if line is None:
            if args.step:
                wanted = step_wait()
                if wanted == "quit":
                    break
                args.step = wanted == "next"
            continue
        print(without_ruling_ids(line), flush=True)
    return exit_code([audit])


def _replay_refused(audit: Audit, seat: int | None, hand: int | None) -> str:
    """Why a replay's ``--seat`` or ``--hand`` cannot be shown ("" if both can)."""
    if seat is not None and not 0 <= seat < len(audit.players):
        return f"there is no seat {seat} at this table (seats 0-{len(audit.players) - 1})"
    numbers = [line.hand for line in audit.hands]
    if hand is not None and hand not in numbers:
        has = ("no hands" if not numbers else f"hand {numbers[0]}" if len(numbers) == 1
               else f"hands {numbers[0]}-{numbers[-1]}")
        return f"there is no hand {hand} in this log (it has {has})"
    return ""


def _usage(command: str, message: str) -> int:
    print(f"pageone {command}: {message}", file=sys.stderr)
    return EXIT_USAGE


def run_log_show(args: argparse.Namespace) -> int:
    from .replay_view import summary_lines

    audit = _audited(args.log, "log show")
    if audit is None:
        return EXIT_USAGE
    print("\n".join(summary_lines(audit)))
    return exit_code([audit])
