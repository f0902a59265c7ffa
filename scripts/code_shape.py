"""The shape of the code: imports that point up a layer or close a circle, modules over 400
lines, functions over 60 (docs/ARCHITECTURE.md). Every import counts: module level, type-only
(``if TYPE_CHECKING``) and inside functions.

    python scripts/code_shape.py          # the longest modules and functions, and any problem
    python scripts/code_shape.py --json

Exits 1 if there is a problem. tests/test_layers.py runs the same checks.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "p2p_pageone"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

# Packages from the bottom up: a module imports only from its own package or a lower rank.
PACKAGE_RANK = {"": 0, "engine": 0, "wire": 0, "bots": 1, "crypto": 1, "sim": 2,
                "session": 3, "net": 4, "audit": 5, "byzantine": 5, "cli": 6}
# Inside session/, the same from the bottom up: the deck and small shared pieces; the public
# fold; the player; the sequencer and what drives peers in memory.
SESSION_RANK = {"common": 0, "moves": 0, "rtt": 0, "links": 1, "hand": 0, "deckcheck": 0,
                "early": 0, "deckdriver": 1, "fold": 1, "receipts": 2, "player": 2,
                "witnessing": 3, "intents": 3,
                "logsync": 3, "mesh_gate": 4, "pipeline": 4, "through_others": 4, "admission": 4,
                "attachment": 4, "peer": 5, "gathering": 6, "handover": 6,
                "client": 6, "route": 6, "ceding": 6, "reattach": 7, "sequencing": 7,
                "kept_seats": 8,
                "watching": 9, "doors": 9, "sequencer": 10, "memory": 11, "watch": 6, "reach": 0}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """Every module of the package that ``source`` imports, wherever the import stands."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def import_graph(root: Path = ROOT,
                 extra: Mapping[str, str] | None = None) -> dict[str, set[str]]:
    """Module -> the package's modules it imports. ``extra``: module -> source, added to or
    replacing what is on disk (the test plants a back edge this way)."""
    sources = {module_name(p, root): (p.read_text(), p.name == "__init__.py")
               for p in root.rglob("*.py")}
    for module, source in (extra or {}).items():
        sources[module] = (source, sources.get(module, ("", False))[1])
    known = set(sources)
    return {module: {t for t in imports_of(source, module, is_package) if t in known
                     and t != module}
            for module, (source, is_package) in sources.items()}


def _rank(module: str) -> tuple[int, int]:
    parts = module.split(".")
    package = parts[1] if len(parts) > 1 else ""
    inner = SESSION_RANK.get(parts[2], -1) if package == "session" and len(parts) > 2 else 0
    return PACKAGE_RANK.get(package, -1), inner


def layer_problems(graph: Mapping[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if target in ("p2p_pageone", "p2p_pageone.session") or module.startswith(
                    target + "."):
                continue  # a package's own docstring module
            here, there = _rank(module), _rank(target)
            if -1 in here or -1 in there:
                problems.append(f"{module} -> {target}: a module with no layer (add it to "
                                "scripts/code_shape.py)")
            elif there[0] > here[0] or (there[0] == here[0] and there[1] > here[1]):
                problems.append(f"{module} -> {target}: points up a layer")
    return problems + [f"an import circle: {' -> '.join(c)}" for c in circles(graph)]


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each as a closed path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append([*sorted(group), min(group)])

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def sizes(root: Path = ROOT) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(lines, module) and (lines, function) pairs, longest first."""
    modules, functions = [], []
    for path in root.rglob("*.py"):
        text = path.read_text()
        modules.append((len(text.splitlines()), str(path.relative_to(root.parent))))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                functions.append((node.end_lineno - node.lineno + 1,
                                  f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"))
    return sorted(modules, reverse=True), sorted(functions, reverse=True)


def size_problems(root: Path = ROOT) -> list[str]:
    modules, functions = sizes(root)
    return ([f"{name}: {n} lines (at most {MAX_MODULE_LINES})" for n, name in modules
             if n > MAX_MODULE_LINES]
            + [f"{name}: {n} lines (at most {MAX_FUNCTION_LINES})" for n, name in functions
               if n > MAX_FUNCTION_LINES])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--top", type=int, default=8, help="how many of the longest to list")
    args = parser.parse_args()
    modules, functions = sizes()
    problems = layer_problems(import_graph()) + size_problems()
    if args.json:
        print(json.dumps({"modules": modules[: args.top], "functions": functions[: args.top],
                          "problems": problems}))
    else:
        print("longest modules:", *(f"  {n:4} {name}" for n, name in modules[: args.top]),
              sep="\n")
        print("longest functions:", *(f"  {n:4} {name}" for n, name in functions[: args.top]),
              sep="\n")
        print("problems:" if problems else "problems: none", *problems, sep="\n  ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
