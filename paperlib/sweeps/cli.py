"""``paperlib sweep FILE``: run a sweep through Snakemake, locally (progress bar) or on SLURM.

    paperlib sweep config/sweeps/PAPER.yaml                       # local, 2 cores
    paperlib sweep config/sweeps/PAPER.yaml --cores 4
    paperlib sweep config/sweeps/PAPER.yaml --profile config/profiles/slurm [--partition NAME]
    paperlib sweep config/sweeps/PAPER.yaml --dry-run

Snakemake (``rules/sweep.smk``) runs every missing job and then the aggregation; a sweep that
was interrupted reruns only the jobs without a result (``--rerun-incomplete`` drops a job that
was killed half-way). Snakemake's own log goes to ``<results>/<paper>/sweeps/<name>/snakemake.log``;
the terminal shows a progress bar of the results written.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from paperlib import provenance
from paperlib.cli_args import output_dir, plain_text

ROOT = provenance.REPO_ROOT
LOCK_HINT = ("sweep {name}: the repository is locked by another Snakemake run, or by one that was killed "
             "(power cut, kill -9). If none is running, add --unlock; finished results are kept.")


def add_parser(subparsers: Any) -> None:
    """Register ``paperlib sweep``."""
    p = subparsers.add_parser("sweep", help="Monte-Carlo sweep of a paper's headline numbers (Snakemake; local or SLURM)",
                              description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep_file", help="sweep file (YAML), e.g. config/sweeps/PAPER.yaml")
    add_run_arguments(p)
    p.add_argument("--runs-only", action="store_true", help="run the jobs but not the aggregation")
    p.add_argument("--unlock", action="store_true",
                   help="first remove the lock a killed sweep left (only when no other sweep runs in this repository)")
    p.set_defaults(func=run)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a command that runs sweep jobs through Snakemake (``paperlib sweep``, ``paperlib sensitivity run``)."""
    p.add_argument("--cores", type=int, default=2, help="local cores (default 2); with --profile, the profile's setting wins")
    p.add_argument("--profile", default=None,
                   help="Snakemake profile directory, e.g. config/profiles/slurm (default config/profiles/local)")
    p.add_argument("--partition", default=None, help="SLURM partition (overrides the sweep file's slurm.partition)")
    p.add_argument("--account", default=None, help="SLURM account (overrides the sweep file's slurm.account)")
    p.add_argument("--jobs", type=int, default=None, help="jobs in flight at once (cluster; overrides the profile)")
    p.add_argument("--results-dir", default="results", type=output_dir, help="results root (default results)")
    p.add_argument("--figures-dir", default="figures", type=output_dir, help="figures root (default figures)")
    p.add_argument("--dry-run", "-n", action="store_true", help="show what would run, run nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar; Snakemake's output on the terminal")


def snakemake_command(args: argparse.Namespace, targets: Sequence[str]) -> list[str]:
    """The Snakemake command line of a sweep."""
    profile = args.profile or str(ROOT / "config" / "profiles" / "local")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "rules" / "sweep.smk"), "--directory", str(ROOT),
           "--profile", profile, "--config", f"sweeps={Path(args.sweep_file)}", f"results_dir={args.results_dir}",
           f"figures_dir={args.figures_dir}"]
    cmd += [f"slurm_partition={args.partition}"] if getattr(args, "partition", None) else []
    cmd += [f"slurm_account={args.account}"] if getattr(args, "account", None) else []
    cmd += ["--rerun-incomplete"]
    if args.profile is None or args.cores != 2:
        cmd += ["--cores", str(args.cores)]
    if args.jobs is not None:
        cmd += ["--jobs", str(args.jobs)]
    if args.dry_run:
        cmd += ["--dry-run"]
    return cmd + list(targets)


def _count(files: Sequence[Path]) -> int:
    return sum(f.exists() for f in files)


def run(args: argparse.Namespace) -> int:
    from paperlib.sweeps.config import SweepConfigError, load_sweep

    try:
        sw = load_sweep(args.sweep_file)
    except SweepConfigError as exc:
        print(f"paperlib sweep: {exc}", file=sys.stderr)
        return 2
    runs = sw.run_files(args.results_dir)
    if args.runs_only:
        targets = runs
    else:
        targets = list(sw.summary_files(args.results_dir).values())
    cmd = snakemake_command(args, targets)
    if args.unlock:
        subprocess.run(cmd + ["--unlock"], cwd=ROOT, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out_dir = ROOT / sw.out_dir(args.results_dir)
    files = [ROOT / f for f in runs]
    done0 = _count(files)
    n_jobs = len(sw.seed_batches()) * len(sw.combos)
    per_job = f" ({sw.seeds_per_job} seeds a job)" if sw.seeds_per_job > 1 else ""
    print(f"sweep {sw.name}: paper {sw.paper}, {len(sw.seeds)} seeds x {len(sw.combos)} combination(s) = "
          f"{len(runs)} runs in {n_jobs} jobs{per_job}, {done0} already done; "
          f"{'profile ' + args.profile if args.profile else f'{args.cores} local cores'}")
    if args.no_progress or args.dry_run:
        proc = subprocess.run(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(proc.stderr)
        if proc.returncode != 0 and "LockException" in proc.stderr:
            print(LOCK_HINT.format(name=sw.name), file=sys.stderr)
        return proc.returncode
    from tqdm import tqdm

    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "snakemake.log"
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
        stop = threading.Event()
        with tqdm(total=len(files), initial=done0, unit="run", desc=f"sweep {sw.name}", dynamic_ncols=True,
                  smoothing=0.0) as bar:
            def poll() -> None:
                while not stop.wait(0.5):
                    bar.update(_count(files) - bar.n)
            th = threading.Thread(target=poll, daemon=True)
            th.start()
            try:
                rc = proc.wait()
            except KeyboardInterrupt:
                proc.terminate()
                rc = proc.wait()
                print("\nsweep interrupted: results written so far are kept; run the same command to finish",
                      file=sys.stderr)
            stop.set()
            th.join()
            bar.update(_count(files) - bar.n)
    wall = time.perf_counter() - t0
    done = _count(files) - done0
    rate = done / wall * 60.0 if wall > 0 else float("nan")
    if rc != 0:
        if "LockException" in log.read_text():
            print(LOCK_HINT.format(name=sw.name), file=sys.stderr)
            return rc
        print(f"sweep {sw.name}: Snakemake failed (exit {rc}); see {log} and "
              f"{sw.out_dir(args.results_dir)}/logs/", file=sys.stderr)
        return rc
    where = f"results in {sw.out_dir(args.results_dir)}/runs" if args.runs_only else \
        f"table {sw.summary_files(args.results_dir)['md']}"
    print(f"sweep {sw.name}: {done} runs in {wall:.0f} s ({rate:.1f} runs per minute); {where}")
    return 0
