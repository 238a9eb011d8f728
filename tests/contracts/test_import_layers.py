"""The package's architecture as a contract: layers import only downwards, and no module imports
itself back through a circle.

The layers are declared once, in ``.importlinter`` (``lint-imports``, which ``make test`` runs too);
this test runs the same contract in-process and adds the circle check, on the import graph of every
``paperlib`` module (imports inside functions included: a lazy import is still a dependency).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from paperlib.provenance import REPO_ROOT


def strongly_connected(adj: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member (the import circles)."""
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(adj):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_a_circle():
    adj = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": []}
    assert strongly_connected(adj) == [["a", "b", "c"]]
    assert strongly_connected({"a": ["b"], "b": []}) == []


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("paperlib", cache_dir=None)


def _is_ancestor(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def test_no_import_circle(graph):
    """No circle between modules. An import of a module's own ancestor package (``a.b.c`` importing
    ``a.b``) is not counted: Python has run that package's ``__init__`` before the submodule's first
    line, so it orders nothing (a package re-exporting its submodules is the usual shape)."""
    adj = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if not _is_ancestor(i, m))
           for m in graph.modules}
    circles = strongly_connected(adj)
    assert not circles, "import circles (break them by moving the shared piece down a layer): " + "; ".join(
        " <-> ".join(c) for c in circles)


def test_every_top_level_module_is_in_a_layer():
    """A module left out of ``.importlinter`` would be unconstrained: every top-level name is placed."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(REPO_ROOT / ".importlinter")
    layers = cfg["importlinter:contract:layers"]["layers"]
    placed = {name.strip() for line in layers.splitlines() for name in line.replace(":", "|").split("|")
              if name.strip()}
    tops = {f"paperlib.{p.stem}" for p in (REPO_ROOT / "paperlib").glob("*.py") if p.stem != "__init__"}
    tops |= {f"paperlib.{p.parent.name}" for p in (REPO_ROOT / "paperlib").glob("*/__init__.py")}
    assert sorted(tops - placed) == [], "top-level modules missing from the layers of .importlinter"


def test_the_layers_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache", "--config", str(REPO_ROOT / ".importlinter")], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, "broken import contract (.importlinter):\n" + proc.stdout[-4000:] + proc.stderr[-2000:]


def _room_packages(graph) -> list[str]:
    from paperlib.experiments.kit.registry import slugs

    return [f"paperlib.experiments.{s}" for s in slugs()]


def test_no_generic_module_imports_a_room(graph):
    """The generic modules that serve every room (the kit, comparison, sweeps, book, bench, the
    command line's reproduce) reach rooms only through the registry, never by import."""
    rooms = _room_packages(graph)
    generic = [m for m in graph.modules
               if m.split(".")[1:2] in (["comparison"], ["comparison_builds"], ["sweeps"], ["sensitivity"], ["book"], ["bench"], ["cli_bench"], ["archive"])
               or m.startswith("paperlib.experiments.kit") or m in ("paperlib.experiments", "paperlib.experiments.cli")]
    bad = []
    for m in sorted(generic):
        for r in rooms:
            for imp in graph.find_modules_directly_imported_by(m):
                if imp == r or imp.startswith(r + "."):
                    bad.append(f"{m} -> {imp}")
    assert not bad, "generic modules importing a room: " + ", ".join(bad)


def test_rooms_do_not_import_each_other(graph):
    """A room composes the layers; what two rooms share belongs in a layer."""
    rooms = _room_packages(graph)
    bad = []
    for a in rooms:
        for m in graph.find_children(a) | graph.find_descendants(a) | {a}:
            for imp in graph.find_modules_directly_imported_by(m):
                for b in rooms:
                    if b != a and (imp == b or imp.startswith(b + ".")):
                        bad.append(f"{m} -> {imp}")
    assert not bad, "room-to-room imports: " + ", ".join(sorted(set(bad)))
