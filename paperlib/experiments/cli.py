"""``paperlib reproduce``: run the Snakemake pipeline from the repository root and list what it made.

    paperlib reproduce [--cores 2] [--config FILE] [--dry-run] [--results-dir DIR] [--figures-dir DIR]
                       [--source twin|hardware|archive] [--rig-config FILE] [--forceall]

The configuration is ``config/default.yaml``; ``--config FILE`` merges another file over it
(``config/smoke.yaml`` is the fast CI run). Snakemake decides what is out of date, so a second
run with nothing changed does nothing. Before running, the Jupyter kernel ``paperlib`` that the
notebooks are executed with is checked and, if missing, installed into this environment.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from paperlib import provenance

ROOT = provenance.REPO_ROOT
KERNEL_NAME = "paperlib"


def add_parser(subparsers: Any) -> None:
    """Register ``paperlib reproduce``."""
    p = subparsers.add_parser("reproduce", help="rebuild every figure and table of the flagship paper (Snakemake)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cores", type=int, default=2, help="parallel jobs (default 2)")
    p.add_argument("--config", default=None, help="configuration file merged over config/default.yaml")
    p.add_argument("--dry-run", "-n", action="store_true", help="show what would be done, do nothing")
    p.add_argument("--results-dir", default=None, help="override results_dir")
    p.add_argument("--figures-dir", default=None, help="override figures_dir")
    p.add_argument("--source", choices=["twin", "hardware", "archive"], default=None, help="override source")
    p.add_argument("--rig-config", default=None, help="rig configuration (source hardware)")
    p.add_argument("--forceall", action="store_true", help="rebuild everything")
    p.add_argument("--quiet", action="store_true", help="less Snakemake output")
    p.set_defaults(func=run)


def kernel_installed(name: str = KERNEL_NAME) -> bool:
    """Whether a Jupyter kernel spec called ``name`` is visible to this interpreter."""
    from jupyter_client.kernelspec import KernelSpecManager

    return name in KernelSpecManager().find_kernel_specs()


def ensure_kernel(name: str = KERNEL_NAME) -> None:
    """Install the ``paperlib`` kernel spec into this environment (``sys.prefix``) if it is missing."""
    if kernel_installed(name):
        return
    print(f"reproduce: Jupyter kernel {name!r} missing; installing it into {sys.prefix} (as `make kernel` does)")
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", sys.prefix, "--name", name,
                    "--display-name", "paperlib (Python 3.11)"], check=True, stdout=subprocess.DEVNULL)


def snakemake_command(args: argparse.Namespace) -> list[str]:
    """The ``python -m snakemake`` command line for the options."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(ROOT),
           "--cores", str(args.cores), "--rerun-triggers", "mtime", "params", "input", "code"]
    cfg = []
    if args.config:
        cfg.append(f"config_file={Path(args.config).resolve()}")
    for key, val in (("results_dir", args.results_dir), ("figures_dir", args.figures_dir), ("source", args.source),
                     ("rig_config", args.rig_config)):
        if val is not None:
            cfg.append(f"{key}={val}")
    if cfg:
        cmd += ["--config"] + cfg
    if args.dry_run:
        cmd.append("--dry-run")
    if args.forceall:
        cmd.append("--forceall")
    if args.quiet:
        cmd += ["--quiet", "rules"]
    return cmd


def _config_for_listing(args: argparse.Namespace) -> dict[str, Any]:
    from paperlib.experiments import pipeline as P

    cfg = P.load_config(args.config)
    over = {k: v for k, v in (("results_dir", args.results_dir), ("figures_dir", args.figures_dir)) if v is not None}
    return P.merge(cfg, over)


def run(args: argparse.Namespace) -> int:
    """Run the pipeline; print the figures and tables it made."""
    from paperlib.experiments import pipeline as P
    from paperlib.experiments.sources import RigUnavailable

    try:
        cfg = _config_for_listing(args)
        if args.source is not None or args.rig_config is not None:
            P.normalise_config(P.merge(cfg, {k: v for k, v in (("source", args.source), ("rig_config", args.rig_config))
                                             if v is not None}))
    except RigUnavailable as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"reproduce: bad configuration: {exc}", file=sys.stderr)
        return 2
    if not args.dry_run:
        ensure_kernel()
    cmd = snakemake_command(args)
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"reproduce: snakemake failed (exit {proc.returncode}) after {wall:.0f} s; logs in "
              f"{cfg['results_dir']}/logs/", file=sys.stderr)
        return proc.returncode
    if args.dry_run:
        return 0
    made = P.made_outputs(cfg)
    print(f"\nreproduce: done in {wall:.0f} s (source: {args.source or cfg['source']})")
    for group in ("figures", "tables", "notebooks", "recordings"):
        files = made[group]
        print(f"{group} ({len(files)}):")
        for f in files:
            print(f"  {f}")
    return 0
