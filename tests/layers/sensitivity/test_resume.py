"""A whole study through the sweep engine (Snakemake, 1 core) on a toy room with a cheap analytic
runner; a rerun after one result was removed recomputes only that one, and the summary is the same.

The toy room is written into a temporary folder found through ``PAPERLIB_ROOMS_PATH`` (as a sixth
lab's room would be): its runner's headline is ``y = 3 a + b^2`` of two assumptions, so ``a`` must
come out as the one that moves it most. The runner declares no FACTORS: its ASSUMPTIONS are its factors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from paperlib.experiments.kit import registry
from paperlib.provenance import REPO_ROOT

INIT = '''\
from paperlib.experiments.kit import Paper, Room

PAPER = Paper(slug="toysens", title="A toy paper", seed_file="999_toysens.txt", status="planned", builds="nothing")
ROOM = Room(paper=PAPER, sweep_runner="paperlib.experiments.toysens.sweep")
'''

RUNNER = '''\
from paperlib.comparison import Headline
from paperlib.sweeps.assumptions import Assumption, check_factors

ASSUMPTIONS = {"a": Assumption("a", 1.0, 0.0, 2.0, "1", "toy a", "toy range"),
               "b": Assumption("b", 0.5, 0.0, 1.0, "1", "toy b", "toy range")}


def run_seed(seed, factors, settings):
    v = {**{k: x.baseline for k, x in ASSUMPTIONS.items()}, **check_factors(factors, ASSUMPTIONS)}
    return {"values": {"y": 3.0 * v["a"] + v["b"] ** 2}, "source": "twin"}


def headlines():
    return [Headline("y", "toy y", "-", 6.5, "approx", "1", "nb", lambda r: None)]


def code_inputs(settings=None):
    return []
'''

STUDY = """\
name: toy
paper: toysens
headlines: [y]
morris: {trajectories: 3, levels: 4, seed: 1}
sobol: {base_n: 4, top_k: 2, seed: 2}
"""


def _run(study: Path, out: Path, rooms: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, registry.ROOMS_PATH_ENV: str(rooms), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "paperlib", "sensitivity", "run", str(study), "--cores", "1",
                           "--no-progress", "--results-dir", str(out / "results"), "--figures-dir", str(out / "figures")],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_a_study_runs_on_the_sweep_engine_and_resumes(tmp_path: Path) -> None:
    rooms = tmp_path / "rooms"
    (rooms / "toysens").mkdir(parents=True)
    (rooms / "toysens" / "__init__.py").write_text(INIT)
    (rooms / "toysens" / "sweep.py").write_text(RUNNER)
    study = tmp_path / "toy.yaml"
    study.write_text(STUDY)
    first = _run(study, tmp_path, rooms)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    summary_file = tmp_path / "results" / "toysens" / "sensitivity" / "toy" / "summary.json"
    summary = json.loads(summary_file.read_text())
    row = summary["rows"][0]
    assert summary["n_runs"] == {"morris": 3 * 3 + 1, "sobol": 4 * 4}
    assert row["twin_stated"] == 3.25 and row["ranking"][0]["name"] == "a"
    assert row["morris"]["mu_star"][0] == 6.0  # 3 per unit of a, over its range of 2
    # 'approx' 6.5 needs y well above the stated 3.25: a above 1 (y <= 4 there), whatever b
    assert row["reachable"] and 1.0 < row["region"]["a"][0] <= row["region"]["a"][1] <= 2.0
    assert not row["agrees_stated"]
    assert (tmp_path / "figures" / "toysens" / "sensitivity_toy_tornado.png").is_file()
    runs = sorted((tmp_path / "results" / "toysens" / "sweeps").glob("sensitivity-toy-*/runs/*/seed_*.json"))
    assert len(runs) == 10 + 16
    mtimes = {p: p.stat().st_mtime_ns for p in runs}
    removed = runs[4]
    removed.unlink()
    second = _run(study, tmp_path, rooms)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    changed = [p for p in runs if p.stat().st_mtime_ns != mtimes[p]]
    assert changed == [removed]
    assert json.loads(summary_file.read_text()) == summary
