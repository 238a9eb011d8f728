"""Benchmarks of the flagship's Monte-Carlo sweep (``paperlib bench``; registered in the room's ``ROOM``).

``sweep_runs_per_min``: jobs of ``config/sweeps/mems.yaml`` (the 100-seed sweep of the flagship
paper) finished per minute of wall time on 2 local cores, through ``paperlib sweep`` (Snakemake,
one process per job of ``seeds_per_job`` seeds: start-up, six twin runs and the analysis per seed, the
result files), for 8 seeds (or two jobs' worth when a job holds more than four)
(1..8 of the sweep) into a temporary folder. 100 seeds in 10 minutes needs >= 10.

``sweep_cpu_s_per_run``: the mean CPU time per seed [s] (from the jobs' logs; a job of several seeds,
``resources.seeds_per_job``, shares its start-up among them).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from paperlib import provenance

_LAST: dict[str, float] = {}


def _run(n_seeds: int | None = None) -> None:
    import yaml

    root = provenance.REPO_ROOT
    with tempfile.TemporaryDirectory(prefix="paperlib_sweep_bench_") as d:
        doc = yaml.safe_load((root / "config" / "sweeps" / "mems.yaml").read_text())
        if n_seeds is None:  # two full jobs per core's worth: 8 seeds, or two jobs of the sweep's group size
            n_seeds = max(8, 2 * int((doc.get("resources") or {}).get("seeds_per_job", 1)))
        doc["name"] = "bench"
        doc["seeds"] = {"start": 1, "count": n_seeds}
        sweep = Path(d) / "bench.yaml"
        sweep.write_text(yaml.safe_dump(doc))
        cmd = [sys.executable, "-m", "paperlib", "sweep", str(sweep), "--cores", "2", "--runs-only", "--no-progress",
               "--results-dir", str(Path(d) / "results"), "--figures-dir", str(Path(d) / "figures")]
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        # one cpu_s= line per seed (a job of several seeds counts its start-up with its first seed)
        cpu = [float(x) for f in (Path(d) / "results").rglob("logs/**/*.log")
               for x in re.findall(r"cpu_s=([0-9.]+)", f.read_text())]
    _LAST["runs_per_min"] = n_seeds / wall * 60.0
    _LAST["cpu_s"] = sum(cpu) / len(cpu) if cpu else float("nan")


def bench_runs_per_min() -> float:
    _run()
    return _LAST["runs_per_min"]


def bench_cpu_s_per_run() -> float:
    if "cpu_s" not in _LAST:
        _run()
    return _LAST["cpu_s"]


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"sweep_runs_per_min": bench_runs_per_min, "sweep_cpu_s_per_run": bench_cpu_s_per_run}
