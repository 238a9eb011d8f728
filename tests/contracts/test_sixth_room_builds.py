"""A sixth paper is four room folders and nothing else (issue 23).

In a clone of this repository (HEAD), a toy paper is written ONLY into its room's places:
``paperlib/experiments/<slug>/``, ``notebooks/<slug>/``, ``rules/<slug>.smk``, ``config/<slug>.yaml``.
Then, in the clone: ``git status`` lists nothing else; ``paperlib --help`` shows its command;
``paperlib reproduce --list`` lists it; ``paperlib reproduce <slug>`` builds it through Snakemake and
papermill (its notebook, figure and comparison table); the index ``results/paper_comparison.md`` has
its row; and the book (``paperlib.book``) has its page. Minutes: marker ``build``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[2]
SLUG = "toysix"

INIT = '''"""Room ``toysix``: a toy paper (written by tests/contracts/test_sixth_room_builds.py)."""

from paperlib.experiments.kit import Key, Paper, Room, Schema

PAPER = Paper(slug="toysix", title="A toy sixth paper", seed_file="999_toysix.txt", status="reproduced",
              builds="one notebook: the slope of a noiseless line, one figure, one headline")
SCHEMA = Schema({"notebooks": Key(dict)})
ROOM = Room(paper=PAPER, commands=("paperlib.experiments.toysix.cli",), config=SCHEMA)
'''

CLI = '''"""``paperlib toysix``: the toy room's own command."""


def add_parser(sub):
    p = sub.add_parser("toysix", help="the toy sixth room's own command")
    p.set_defaults(func=lambda args: print("toysix ran") or 0)
'''

COMPARISON = '''"""The toy paper's one headline: the slope of y = 2 x."""

from paperlib.comparison import Headline, dig

TITLE = "Reproduced vs published: a toy sixth paper"
HEADLINES = [
    Headline(key="slope", quantity="slope of the line", joint="-", paper=2.0, kind="approx", unit="1",
             notebook="01_line", get=dig("slope")),
]
'''

RULES = '''# Room `toysix` (a toy paper written by a test): one notebook -> one figure -> the comparison table.
TS_RES = f"{RESULTS}/toysix"
TS_FIG = [f"{FIGURES}/toysix/fig01_line.{ext}" for ext in ("png", "svg", "json")]
PAPER_TARGETS["toysix"] = [f"{TS_RES}/01_line.json", *TS_FIG, f"{TS_RES}/paper_comparison.csv",
                           f"{TS_RES}/paper_comparison.md"]
room_notebook("toysix", "01_line", res=TS_RES,
              params={"results_file": f"{TS_RES}/01_line.json", "figures_dir": f"{FIGURES}/toysix", "n": 11},
              outputs={"figures": TS_FIG})
room_table("toysix", res=TS_RES)
'''

CONFIG = "notebooks:\n  01_line: {n: 11}\n"


def _notebook() -> dict:
    def code(src: str, tags: list[str] | None = None) -> dict:
        return {"cell_type": "code", "execution_count": None, "metadata": {"tags": tags or []}, "outputs": [],
                "source": src}

    return {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "paperlib", "display_name": "paperlib (Python 3.11)", "language": "python"},
                     "language_info": {"name": "python"}},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# A toy paper\n\nThe slope of a noiseless line, fitted."},
            code('results_file = "scratch/toysix/01_line.json"\nfigures_dir = "scratch/toysix"\nn = 11',
                 ["parameters"]),
            code("import numpy as np\nimport matplotlib.pyplot as plt\n"
                 "from paperlib.experiments.kit.outputs import Outputs\n"
                 "run = Outputs('notebooks/toysix/01_line.ipynb', output_dir=figures_dir, results_file=results_file,\n"
                 "              parameters={'results_file': results_file, 'figures_dir': figures_dir, 'n': n})\n"
                 "x = np.linspace(0.0, 1.0, n)\ny = 2.0 * x\nslope = float(np.polyfit(x, y, 1)[0])\n"
                 "fig, ax = plt.subplots()\nax.plot(x, y, 'o')\nax.set_xlabel('x [1]')\nax.set_ylabel('y [1]')\n"
                 "ax.set_title('Toy line (source: model)')\n"
                 "from paperlib.experiments.kit.outputs import save_figure\n"
                 "save_figure(fig, f'{figures_dir}/fig01_line', ('png', 'svg'), run.provenance([], source='model'))\n"
                 "run.write_results({'slope': slope}, used=[], source='model')"),
        ],
    }


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    for var in ("PAPERLIB_ROOMS_PATH", "PAPERLIB_FORBID_TWIN"):
        env.pop(var, None)
    # the clone's package, not the editable install of this checkout
    env["PYTHONPATH"] = str(cwd) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def _ok(proc: subprocess.CompletedProcess, what: str) -> str:
    assert proc.returncode == 0, f"{what} ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_a_sixth_paper_in_its_four_room_folders_builds_and_is_listed_everywhere(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and this repository's history (a clone)")
    clone = tmp_path / "repo"
    _ok(_run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], tmp_path), "git clone")
    room = clone / "paperlib" / "experiments" / SLUG
    room.mkdir()
    (room / "__init__.py").write_text(INIT)
    (room / "cli.py").write_text(CLI)
    (room / "comparison.py").write_text(COMPARISON)
    (clone / "notebooks" / SLUG).mkdir()
    (clone / "notebooks" / SLUG / "01_line.ipynb").write_text(json.dumps(_notebook(), indent=1))
    (clone / "rules" / f"{SLUG}.smk").write_text(RULES)
    (clone / "config" / f"{SLUG}.yaml").write_text(CONFIG)

    status = _ok(_run(["git", "status", "--porcelain", "--untracked-files=all"], clone), "git status")
    changed = sorted(line[3:] for line in status.splitlines())
    assert changed == sorted([f"config/{SLUG}.yaml", f"notebooks/{SLUG}/01_line.ipynb",
                              f"paperlib/experiments/{SLUG}/__init__.py", f"paperlib/experiments/{SLUG}/cli.py",
                              f"paperlib/experiments/{SLUG}/comparison.py", f"rules/{SLUG}.smk"]), changed

    py = [sys.executable, "-m", "paperlib"]
    assert "the toy sixth room's own command" in _ok(_run(py + ["--help"], clone), "paperlib --help")
    assert "toysix ran" in _ok(_run(py + [SLUG], clone), "paperlib toysix")
    assert "A toy sixth paper" in _ok(_run(py + ["reproduce", "--list"], clone), "reproduce --list")

    report = tmp_path / "report.html"
    out = _ok(_run(py + ["reproduce", SLUG, "--cores", "1", "--quiet", "--report", str(report)], clone),
              f"reproduce {SLUG}")
    res = clone / "results" / SLUG
    # Snakemake's report of the build names the room's jobs; the figures' catalogue lists its figure
    assert f"report: {report}" in out and f"{SLUG}_notebook" in report.read_text(errors="replace")
    assert "`fig01_line`" in (clone / "figures" / SLUG / "README.md").read_text()
    table = (res / "paper_comparison.csv").read_text()
    assert "slope" in table and "agrees" in table, table
    assert (clone / "figures" / SLUG / "fig01_line.png").is_file()
    index = (clone / "results" / "paper_comparison.md").read_text()
    assert f"`{SLUG}`" in index and f"{SLUG}/paper_comparison.md" in index, index

    _ok(_run([sys.executable, "-m", "paperlib.book.cli", "build", "--results", "results", "--figures", "figures",
              "--out", "results/book"], clone), "book build")
    pages = [p for p in (clone / "results" / "book").rglob("*.html") if SLUG in p.name or SLUG in p.parent.name]
    assert pages, "the book has no page of the sixth room"
    assert any("A toy sixth paper" in p.read_text(errors="replace") for p in pages)
