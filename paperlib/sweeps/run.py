"""One sweep job: run a paper's per-seed runner and write its small JSON result.

Command line (the ``sweep_run`` rule of ``rules/sweep.smk``)::

    python -m paperlib.sweeps.run --job JSON --seed N --output results/<paper>/sweeps/<name>/runs/<combo>/seed_NNNN.json
    python -m paperlib.sweeps.run --job JSON --seed N M ... --output FILE_N FILE_M ...   # a job of several seeds

Several seeds (``resources.seeds_per_job`` of the sweep file) run in turn in one process, so the
start-up (imports, loading the compiled kernels, the robot's planning polygon) is paid once; each
seed's result file is written as soon as it is done and holds the same bytes as a job of one seed.

``--job`` is :meth:`paperlib.sweeps.config.Sweep.job_settings` (paper, factors, runner
settings, keep_recordings). The result holds no wall-clock time, host name, path or commit, only
what the seed and the code determine, so the same job gives the same bytes locally and on a
cluster. The job's log names its CPU time and the code's commit; Snakemake's benchmark file
beside the result its wall time and memory; the sweep's summary the commit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

__all__ = ["run_job", "main", "RESULT_SCHEMA"]

RESULT_SCHEMA = "paperlib.sweep-result/1"


def run_job(job: Mapping[str, Any], seed: int, recordings_dir: str | Path | None = None) -> dict[str, Any]:
    """The result dict of one job (see module docstring).

    Parameters
    ----------
    job : mapping
        ``paper``, ``factors``, ``settings``, ``keep_recordings``.
    seed : int
    recordings_dir : path-like, optional
        Where the runner writes the job's recordings when ``keep_recordings`` is true.
    """
    from paperlib.sweeps import RUNNERS

    paper = str(job["paper"])
    if paper not in RUNNERS:
        raise ValueError(f"no sweep runner for paper {paper!r}; papers with one: {sorted(RUNNERS)}")
    runner = importlib.import_module(RUNNERS[paper])
    settings = dict(job.get("settings") or {})
    if job.get("keep_recordings") and recordings_dir is not None:
        settings["recordings_dir"] = str(recordings_dir)
    out = runner.run_seed(int(seed), dict(job.get("factors") or {}), settings)
    return {"schema": RESULT_SCHEMA, "paper": paper, "seed": int(seed), "factors": dict(job.get("factors") or {}),
            "settings": dict(job.get("settings") or {}), **out}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.sweeps.run", description="run one sweep job")
    ap.add_argument("--job", required=True, help="job settings as JSON (paper, factors, settings, keep_recordings)")
    ap.add_argument("--seed", required=True, type=int, nargs="+", help="sweep seed(s), run in turn")
    ap.add_argument("--output", required=True, nargs="+", help="result JSON to write, one per seed")
    a = ap.parse_args(argv)
    import resource

    from paperlib import provenance
    from paperlib.sweeps.aggregate import dumps

    if len(a.seed) != len(a.output):
        print(f"sweep job: {len(a.seed)} seed(s) but {len(a.output)} output file(s); give one output per seed",
              file=sys.stderr)
        return 2
    try:
        job = json.loads(a.job)
    except json.JSONDecodeError as exc:
        print(f"sweep job: --job is not valid JSON: {exc}", file=sys.stderr)
        return 2
    cpu_before = 0.0
    for seed, output in zip(a.seed, a.output):
        out = Path(output)
        rec_dir = out.with_suffix("")  # runs/<combo>/seed_NNNN/ (only written when keep_recordings)
        result = run_job(job, seed, rec_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        tmp.write_text(dumps(result) + "\n")
        os.replace(tmp, out)  # never a half-written result, even when killed
        ru = resource.getrusage(resource.RUSAGE_SELF)
        cpu = ru.ru_utime + ru.ru_stime
        # CPU time of this seed, the process's start-up counted with its first (the log only: the result
        # holds nothing that depends on the host)
        print(f"sweep job {job['paper']} seed {seed} {job.get('factors') or ''} -> {out}; "
              f"cpu_s={cpu - cpu_before:.2f}; code {provenance.git_commit()}", flush=True)
        cpu_before = cpu
    return 0


if __name__ == "__main__":
    sys.exit(main())
