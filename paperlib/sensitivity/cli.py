"""``paperlib sensitivity run FILE``: a sensitivity study on the sweep engine, locally or on SLURM.

    paperlib sensitivity run config/sensitivity/PAPER.yaml                   # local, 2 cores
    paperlib sensitivity run config/sensitivity/PAPER.yaml --cores 1
    paperlib sensitivity run config/sensitivity/PAPER.yaml --profile config/profiles/slurm [--partition NAME]
    paperlib sensitivity run config/sensitivity/PAPER.yaml --dry-run           # stage 1's plan only
    paperlib sensitivity check config/sensitivity/PAPER.yaml                   # validate, count the runs

Stage 1 (Morris) runs, then stage 2 (Sobol' on the top assumptions) whose points depend on stage 1.
Each stage is a sweep of explicit points (``paperlib sweep``'s Snakemake rules): a rerun runs only
the points without a result, so an interrupted study restarted with the same command finishes.
Writes ``<results>/<paper>/sensitivity/<name>/summary.json`` and the figures
``<figures>/<paper>/sensitivity_<name>_{tornado,differing}.{png,svg}``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paperlib.cli_args import plain_text
from paperlib.sweeps.cli import add_run_arguments


def add_parser(subparsers: Any) -> None:
    """Register ``paperlib sensitivity``."""
    p = subparsers.add_parser("sensitivity", help="global sensitivity of headline numbers to the twin's assumptions "
                              "(Morris, then Sobol'; SALib on the sweep engine)",
                              description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", required=True)
    c = sub.add_parser("check", help="validate a study file and count its runs")
    c.add_argument("study_file", help="study file (YAML), e.g. config/sensitivity/PAPER.yaml")
    c.set_defaults(func=check)
    r = sub.add_parser("run", help="run both stages, write the summary and figures")
    r.add_argument("study_file", help="study file (YAML), e.g. config/sensitivity/PAPER.yaml")
    add_run_arguments(r)
    r.add_argument("--unlock", action="store_true", help="first remove the lock a killed run left")
    r.add_argument("--no-figures", action="store_true", help="write the summary only (the pipeline's notebook draws)")
    r.set_defaults(func=run)


def _load(path: str) -> Any:
    from paperlib.sensitivity.study import StudyConfigError, load_study

    try:
        return load_study(path)
    except StudyConfigError as exc:
        print(f"paperlib sensitivity: {exc}", file=sys.stderr)
        return None


def check(args: argparse.Namespace) -> int:
    st = _load(args.study_file)
    if st is None:
        return 2
    print(f"study {st.name}: paper {st.paper}, {len(st.assumptions)} assumptions, {len(st.headlines)} headlines; "
          f"stage 1 {st.n_morris_runs} runs, stage 2 {st.n_sobol_runs} runs")
    return 0


def run(args: argparse.Namespace) -> int:
    from paperlib.sensitivity.engine import run_study

    st = _load(args.study_file)
    if st is None:
        return 2
    return run_study(st, args)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.sensitivity.cli", description="the same as paperlib sensitivity ...")
    add_parser(ap.add_subparsers(dest="command", required=True))
    a = ap.parse_args(argv)
    return int(a.func(a))


if __name__ == "__main__":
    sys.exit(main())
