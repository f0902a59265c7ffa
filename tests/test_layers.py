"""The layers of docs/ARCHITECTURE.md, enforced: no import points up a layer or closes a circle
(type-only and function-local imports included); no module over 400 lines, no function over 60."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "code_shape.py"


def shape() -> ModuleType:
    spec = importlib.util.spec_from_file_location("code_shape", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["code_shape"] = module
    spec.loader.exec_module(module)
    return module


def test_no_import_points_up_a_layer_or_closes_a_circle() -> None:
    code = shape()
    assert code.layer_problems(code.import_graph()) == []


def test_a_planted_back_edge_is_found() -> None:
    code = shape()
    up = code.import_graph(extra={"p2p_pageone.engine.planted": "from ..cli import main\n"})
    assert any("engine.planted -> p2p_pageone.cli" in p and "up a layer" in p
               for p in code.layer_problems(up))
    inner = code.import_graph(extra={
        "p2p_pageone.session.fold.planted": "from ..peer import PeerSession\n"})
    assert any("points up a layer" in p for p in code.layer_problems(inner))


def test_a_planted_circle_is_found_even_when_type_only_or_local() -> None:
    code = shape()
    typed = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
             "    from .apply import ENTRIES\n")
    local = "def f() -> None:\n    from .lobby import on_table\n"
    for source in (typed, local):
        graph = code.import_graph(extra={"p2p_pageone.session.fold.state": source,
                                         "p2p_pageone.session.fold.lobby": "from . import state\n"
                                         if source is local else
                                         "from .state import PublicState\n"})
        problems = code.layer_problems(graph)
        assert any(p.startswith("an import circle") for p in problems), problems


def test_modules_and_functions_are_short() -> None:
    assert shape().size_problems() == []
