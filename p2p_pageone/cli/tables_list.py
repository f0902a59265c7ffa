"""`pageone tables` as a person reads it: one row per table, its columns as wide as what they
hold, the whole row within the terminal's width (the settings on a line of their own, or each
table as a short block, when a row would not fit)."""

from __future__ import annotations

from ..net.discovery import TableAdvert
from .wrap import wrap_text

HEADERS = ("TABLE", "HOST", "RULES", "SEATS", "WATCHING", "ADDRESS")


def watching(t: TableAdvert) -> str:
    """``1 of 4`` (watchers now, of the most the host takes), ``none taken``, or ``?``."""
    now, _, most = t.watch.partition("/")
    if not now.isdigit() or not most.isdigit():
        return "?"
    return f"{now} of {most}" if int(most) else "none taken"


def _cells(t: TableAdvert) -> tuple[str, ...]:
    return (t.name, t.nick or t.fingerprint[:9], t.rules, t.seats_text(), watching(t),
            f"{t.address}:{t.port}")


def table_lines(tables: list[TableAdvert], width: int) -> list[str]:
    """The listing at ``width`` columns (0: no limit, as for a pipe)."""
    rows = [_cells(t) for t in tables]
    sizes = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]

    def row(cells: tuple[str, ...], last: str = "") -> str:
        return "  ".join([*(c.ljust(s) for c, s in zip(cells, sizes, strict=True)),
                          last]).rstrip()

    settings = [t.settings or "defaults" for t in tables]
    columns = sum(sizes) + 2 * (len(sizes) - 1)
    if not width or columns + 2 + max(len(s) for s in settings) <= width:
        return [row(HEADERS, "SETTINGS"),
                *(row(r, s) for r, s in zip(rows, settings, strict=True))]
    if columns <= width:
        out = [row(HEADERS)]
        for r, t in zip(rows, tables, strict=True):
            out.append(row(r))
            if t.settings:
                out += wrap_text(f"  settings: {t.settings}", width, indent="    ")
        return out
    out = []
    for r, t in zip(rows, tables, strict=True):
        name, host, rules, seats, watch, address = r
        out += wrap_text(f"{name}: host {host}, {rules}, {seats}, watching {watch}, at "
                         f"{address}, settings {t.settings or 'defaults'}", width,
                         indent="  ")
    return out
