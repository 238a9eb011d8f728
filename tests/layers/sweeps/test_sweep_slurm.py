"""The CI sweep through a real SLURM cluster equals the same sweep run locally, bit for bit.

Needs the one-node cluster of ``.ci/slurm-up.sh`` (CI: ``bash .ci/slurm-up.sh`` then
``pytest -m slurm``); marked ``slurm``, so the default test run deselects it. Without a cluster
it fails (it is only run where one was brought up). Prints what SLURM saw: the jobs Snakemake
submitted, ``squeue`` while they ran, the job-completion log (the cluster has no accounting
database, so ``sacct`` has nothing; its answer is printed too) and one job's log.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paperlib.sweeps import config
from paperlib.provenance import REPO_ROOT

ROOT = REPO_ROOT
PY = sys.executable
SWEEP = ROOT / "config" / "sweeps" / "ci.yaml"
JOBCOMP_LOG = Path(os.environ.get("SLURM_JOBCOMP_LOG", "/var/log/slurm/jobcomp.log"))

pytestmark = pytest.mark.slurm


def _sweep(results: Path, figures: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [PY, "-m", "paperlib", "sweep", str(SWEEP), "--results-dir", str(results), "--figures-dir", str(figures),
           "--no-progress", *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_ci_sweep_through_sbatch_equals_the_local_run(tmp_path):
    assert shutil.which("sbatch") and shutil.which("squeue"), "SLURM client missing: run .ci/slurm-up.sh first"
    info = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T %c %m"], capture_output=True, text=True, timeout=30)
    print("sinfo:", info.stdout.strip(), info.stderr.strip())
    assert info.returncode == 0 and re.search(r"\b(idle|mixed|allocated)\b", info.stdout), \
        "no idle SLURM node: run .ci/slurm-up.sh first"
    sw = config.load_sweep(SWEEP)
    assert len(sw.seeds) == 4

    local = _sweep(tmp_path / "local", tmp_path / "local_fig", "--cores", "2")
    assert local.returncode == 0, local.stdout[-3000:] + local.stderr[-3000:]

    snapshots: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(2.0):
            q = subprocess.run(["squeue", "-h", "-o", "%i %j %T %M %N"], capture_output=True, text=True)
            if q.stdout.strip():
                snapshots.append(q.stdout.strip())

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    try:
        slurm = _sweep(tmp_path / "slurm", tmp_path / "slurm_fig", "--profile", str(ROOT / "config" / "profiles" / "slurm"))
    finally:
        stop.set()
        th.join()
    log = slurm.stdout + slurm.stderr
    submitted = re.findall(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (\S+)\)", log)
    print(f"Snakemake submitted {len(submitted)} SLURM jobs: {[j for j, _ in submitted]}")
    print("squeue while running (job id, name, state, time, node):")
    for snap in snapshots[:: max(1, len(snapshots) // 6)]:
        print("  " + snap.replace("\n", "\n  "))
    ids = {j for j, _ in submitted}
    comp = [line for line in (JOBCOMP_LOG.read_text().splitlines() if JOBCOMP_LOG.exists() else [])
            if re.search(r"JobId=(\d+) ", line) and re.search(r"JobId=(\d+) ", line).group(1) in ids]
    print(f"job completion log {JOBCOMP_LOG} ({len(comp)} of our jobs):")
    for line in comp:
        print("  " + " ".join(w for w in line.split() if w.split("=")[0] in
                              ("JobId", "Name", "JobState", "Partition", "StartTime", "EndTime", "NodeList", "ExitCode")))
    sacct = subprocess.run(["sacct", "-j", ",".join(sorted(ids)) or "0", "-X", "-o", "JobID,State,Elapsed,NodeList"],
                           capture_output=True, text=True)
    print("sacct:", (sacct.stdout or sacct.stderr).strip()[:500])
    if submitted and Path(submitted[0][1]).exists():
        print(f"log of SLURM job {submitted[0][0]} ({submitted[0][1]}), last lines:")
        print("  " + "\n  ".join(Path(submitted[0][1]).read_text().splitlines()[-8:]))
    assert slurm.returncode == 0, log[-4000:]
    assert len(submitted) == len(sw.seeds) + 1          # one job per seed and the aggregation, all through sbatch
    assert len(comp) == len(submitted) and all("JobState=COMPLETED" in c for c in comp)

    same = []
    for a in sw.run_files(str(tmp_path / "local")):
        b = Path(a.replace(str(tmp_path / "local"), str(tmp_path / "slurm")))
        same.append(Path(a).read_bytes() == b.read_bytes())
    print(f"result files equal byte for byte: {sum(same)} of {len(same)}")
    assert all(same)
    sa = (tmp_path / "local" / "mems" / "sweeps" / "ci" / "summary.csv").read_bytes()
    sb = (tmp_path / "slurm" / "mems" / "sweeps" / "ci" / "summary.csv").read_bytes()
    assert sa == sb
