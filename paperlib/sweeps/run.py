"""One sweep job: run a paper's per-seed runner and write its small JSON result.

Command line (the ``sweep_run`` rule of ``rules/sweep.smk``)::

    python -m paperlib.sweeps.run --job JSON --seed N --output results/<paper>/sweeps/<name>/runs/<combo>/seed_NNNN.json

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
    ap.add_argument("--seed", required=True, type=int, help="sweep seed")
    ap.add_argument("--output", required=True, help="result JSON to write")
    a = ap.parse_args(argv)
    from paperlib.sweeps.aggregate import dumps

    try:
        job = json.loads(a.job)
    except json.JSONDecodeError as exc:
        print(f"sweep job: --job is not valid JSON: {exc}", file=sys.stderr)
        return 2
    out = Path(a.output)
    rec_dir = out.with_suffix("")  # runs/<combo>/seed_NNNN/ (only written when keep_recordings)
    result = run_job(job, a.seed, rec_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.write_text(dumps(result) + "\n")
    os.replace(tmp, out)  # never a half-written result, even when killed
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    # CPU time of this job (the log only: the result holds nothing that depends on the host)
    from paperlib import provenance

    print(f"sweep job {job['paper']} seed {a.seed} {job.get('factors') or ''} -> {out}; "
          f"cpu_s={ru.ru_utime + ru.ru_stime:.2f}; code {provenance.git_commit()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
