"""``paperlib reproduce``: rebuild one, several or all papers (Snakemake) and list what it made.

    paperlib reproduce [PAPER ...] [--list] [--cores 2] [--config FILE] [--dry-run]
                       [--results-dir DIR] [--figures-dir DIR] [--source twin|hardware|archive]
                       [--archive DIR|URL]
                       [--rig-config FILE [--emulate-rig]] [--full-recordings] [--forceall] [--report FILE.html]

With no PAPER, every paper is built, then the index ``results/paper_comparison.md``. Each paper
reads its own ``config/<slug>.yaml``; ``--config FILE`` is a run configuration merged over them
(``config/smoke.yaml`` is the fast CI run). The papers are the registered rooms
(:mod:`paperlib.experiments.kit.registry`); each room's configuration checks run before Snakemake. Snakemake decides what is out of date, so a second
run with nothing changed does nothing. ``--report FILE.html`` (or ``.zip``) then writes Snakemake's
report of the finished build (its jobs, their run times and provenance: ``snakemake --report``).
Before running, the Jupyter kernel ``paperlib`` that the notebooks are executed with is checked
and, if missing, installed into this environment.
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
from paperlib.cli_args import output_dir, output_problem, plain_text

ROOT = provenance.REPO_ROOT
#: Targets of ``reproduce`` that are not a paper: the whole-site book (``rule book`` of rules/common.smk).
SITE_TARGETS = ("book",)
KERNEL_NAME = "paperlib"


def add_parser(subparsers: Any) -> None:
    """Register ``paperlib reproduce``."""
    from paperlib.experiments import papers

    rows = papers()
    buildable = [r["slug"] for r in rows if r["status"] != "planned"]
    planned = [r["slug"] for r in rows if r["status"] == "planned"]
    p = subparsers.add_parser("reproduce", help="rebuild the figures and tables of one, several or all papers",
                              description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("papers", nargs="*", metavar="PAPER",
                   help=f"paper slug(s) to build: {', '.join(buildable)} (default: all); or book, the static "
                        f"site of the course and every paper built so far (results/book)"
                        + (f"; planned, nothing to build yet: {', '.join(planned)}" if planned else ""))
    p.add_argument("--list", action="store_true", help="list the papers, their status and what each builds; build nothing")
    p.add_argument("--cores", type=int, default=2, help="parallel jobs (default 2)")
    p.add_argument("--config", default=None, help="run configuration merged over each paper's config/<slug>.yaml")
    p.add_argument("--dry-run", "-n", action="store_true", help="show what would be done, do nothing")
    p.add_argument("--results-dir", default=None, type=output_dir, help="results root (default results/; papers write <root>/<slug>/)")
    p.add_argument("--figures-dir", default=None, type=output_dir, help="figures root (default figures/; papers write <root>/<slug>/)")
    p.add_argument("--source", choices=["twin", "hardware", "archive"], default=None,
                   help="where the papers' recordings come from (default: each paper's config)"
                        + _source_rooms())
    p.add_argument("--archive", default=None, metavar="DIR|URL",
                   help="a data release (paperlib archive pack) to read every recording from: implies --source "
                        "archive; a URL is fetched, sha256-checked and cached first; no twin code runs")
    p.add_argument("--rig-config", default=None, help="rig configuration TOML (with --source hardware)")
    p.add_argument("--emulate-rig", action="store_true",
                   help="with --source hardware, for a room whose rig paperlib can emulate: (root) bring up "
                        "paperlib's emulated devices for the rig file's chain around the room's twin, in lock-step, "
                        "instead of the file's EtherCAT interface; the recordings are labelled source = twin, "
                        "rig = emulated-hardware")
    p.add_argument("--full-recordings", action="store_true",
                   help="keep every channel of the twin recordings the papers make, in float64 (several times "
                        "the disk); default: only what their notebooks read, quantized channels as integer counts "
                        "(config key recording_storage)")
    p.add_argument("--forceall", action="store_true", help="rebuild everything, even what is up to date")
    p.add_argument("--quiet", action="store_true", help="less Snakemake output")
    p.add_argument("--report", default=None, metavar="FILE.html", type=_report_path,
                   help="after the build, write Snakemake's report of it (jobs, run times, provenance) to this "
                        "self-contained HTML file (.zip for a large build)")
    p.set_defaults(func=run)


def _source_rooms() -> str:
    """``"; understood by: a (twin, hardware, archive), ..."`` for the rooms that take more than the twin."""
    from paperlib.experiments.kit import registry

    rooms = [f"{r.slug} ({', '.join(r.sources)})" for r in registry.rooms() if tuple(r.sources) != ("twin",)]
    return f"; rooms with more than the twin: {', '.join(rooms)}" if rooms else ""


def check_rooms(slugs: list[str], args: argparse.Namespace) -> str | None:
    """Run each room's configuration checks (:attr:`paperlib.experiments.kit.Room.config_checks`).

    Returns
    -------
    str or None
        The message to print when a check refuses (``ValueError`` / ``OSError``: a bad configuration;
        ``RuntimeError``: e.g. no rig for ``--source hardware``), else None.
    """
    from paperlib.experiments.kit import registry

    try:
        run_cfg = _run_config(args)
    except (ValueError, OSError) as exc:
        return f"reproduce: bad configuration: {exc}"
    source = getattr(args, "source", None)
    if getattr(args, "emulate_rig", False) and source != "hardware":
        return "reproduce: --emulate-rig brings up the emulated devices of a rig: it needs --source hardware"
    for slug in slugs:  # every room's sources first: a refusal names the room that cannot
        room = registry.room(slug)
        if source is not None and source not in room.sources:
            return (f"reproduce: {slug} cannot read its recordings from --source {source}: it knows "
                    f"{', '.join(room.sources)} (its {source} path does not exist yet; nothing falls back to the twin)")
        if source == "archive" and not getattr(args, "archive", None) and not room.own_archive:
            return (f"reproduce: {slug}: --source archive needs the release to read from: --archive DIR|URL "
                    "(a folder written by `paperlib archive pack`)")
    for slug in slugs:
        for check in registry.config_checks(slug):
            try:
                check(run_cfg, args)
            except (ValueError, OSError) as exc:
                return f"reproduce: bad configuration: {exc}"
            except RuntimeError as exc:
                return f"reproduce: {exc}"
    return None


def _use_archive(args: argparse.Namespace) -> str | None:
    """``--archive DIR|URL``: the source becomes ``archive`` and the release a verified local folder.

    Returns the refusal message, or None (``args.archive`` is then the folder's absolute path).
    """
    from paperlib.archive.errors import ArchiveError
    from paperlib.archive.fetch import resolve

    if args.source not in (None, "archive"):
        return f"reproduce: --archive reads the recordings from a release; it cannot be combined with --source {args.source}"
    args.source = "archive"
    try:
        args.archive = str(Path(resolve(args.archive)).resolve())
    except ArchiveError as exc:
        return f"reproduce: --archive {args.archive}: {exc}"
    return None


def list_papers() -> str:
    """The papers, their status and what each builds, as printed by ``--list``."""
    from paperlib.experiments import papers

    rows = papers()
    w = max(len(r["slug"]) for r in rows)
    lines = []
    for r in rows:
        lines.append(f"{r['slug']:<{w}}  {r['status']:<10}  {r['title']}")
        lines.append(f"{'':<{w}}  {'':<10}  builds: {r['builds']}")
        cite = [", ".join(r.get("authors") or ()) or "authors not named in its text",
                str(r.get("year") or "year not given"),
                f"doi:{r['doi']}" if r.get("doi") else (r.get("venue") or "no venue or DOI in its text")]
        lines.append(f"{'':<{w}}  {'':<10}  paper: {'; '.join(cite)}; text ../shared/papers/{r['paper_file']}")
    return "\n".join(lines)


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
    cmd = [sys.executable, "-m", "snakemake", *(getattr(args, "papers", None) or ["all"]),
           "--snakefile", str(ROOT / "Snakefile"), "--directory", str(ROOT),
           "--cores", str(args.cores), "--rerun-triggers", "mtime", "params", "input", "code"]
    cfg = []
    if args.config:
        cfg.append(f"config_file={Path(args.config).resolve()}")
    for key, val in (("results_dir", args.results_dir), ("figures_dir", args.figures_dir), ("source", args.source),
                     ("archive", getattr(args, "archive", None)), ("rig_config", args.rig_config)):
        if val is not None:
            cfg.append(f"{key}={val}")
    if getattr(args, "full_recordings", False):
        cfg.append("recording_storage=full")
    if getattr(args, "emulate_rig", False):
        cfg.append("emulate_rig=true")
    if cfg:
        cmd += ["--config"] + cfg
    if args.dry_run:
        cmd.append("--dry-run")
    if args.forceall:
        cmd.append("--forceall")
    if args.quiet:
        cmd += ["--quiet", "rules"]
    return cmd


def _report_path(value: str) -> Path:
    """``--report``'s file: ``.html`` or ``.zip`` (Snakemake's two report forms), writable (missing folders are
    created after the build)."""
    path = Path(value).expanduser().resolve()
    if path.suffix not in (".html", ".zip"):
        raise argparse.ArgumentTypeError(f"{value}: a report is a .html or a .zip file (Snakemake's report forms)")
    why = output_problem(path, create_parents=True)
    if why:
        raise argparse.ArgumentTypeError(why)
    return path


def report_command(args: argparse.Namespace) -> list[str]:
    """The ``python -m snakemake ... --report FILE`` command line: the build's own, reporting instead of running."""
    base = snakemake_command(argparse.Namespace(**{**vars(args), "dry_run": False, "forceall": False, "quiet": False}))
    return base + ["--report", str(args.report)]


def _run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run configuration ``--config FILE`` (empty without one)."""
    from paperlib.experiments.kit.config import read_run_config

    return read_run_config(args.config)


def _roots(args: argparse.Namespace) -> tuple[str, str]:
    """Results and figures roots for the options (the run configuration's roots, else results/, figures/)."""
    run_cfg = _run_config(args)
    return (args.results_dir or run_cfg.get("results_root") or "results",
            args.figures_dir or run_cfg.get("figures_root") or "figures")


def made_outputs(slugs: list[str], results_root: str, figures_root: str) -> dict[str, list[str]]:
    """What the papers' rules made, grouped for the end-of-run listing (existing files only)."""
    out: dict[str, list[str]] = {"figures": [], "tables": [], "notebooks": [], "recordings": []}
    for slug in slugs:
        res, fig = ROOT / results_root / slug, ROOT / figures_root / slug
        rel = lambda ps: [str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p) for p in ps]  # noqa: E731
        out["figures"] += rel(sorted(fig.glob("*.png")))
        out["tables"] += rel(sorted(res.glob("paper_comparison.*")) + sorted(res.glob("*.json")))
        out["notebooks"] += rel(sorted((res / "notebooks").glob("*.ipynb")))
        out["recordings"] += rel(sorted((res / "recordings").glob("*.nc")))
    index = ROOT / results_root / "paper_comparison.md"
    if index.exists():
        out["tables"].append(str(index.relative_to(ROOT)) if index.is_relative_to(ROOT) else str(index))
    return out


def write_figure_catalogs(slugs: list[str], figures_root: str) -> list[str]:
    """``<figures_root>/<slug>/README.md`` of each built room, from its figures' sidecars; the files written."""
    from paperlib.figures.catalog import write_catalog

    out = []
    for slug in slugs:
        path = write_catalog(ROOT / figures_root / slug, title=f"Figures of the room `{slug}`")
        if path is not None:
            out.append(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
    return out


def run(args: argparse.Namespace) -> int:
    """Run the pipeline for the chosen papers; print the figures and tables it made."""
    from paperlib.comparison import write_index
    from paperlib.experiments.kit import registry

    if args.list:
        print(list_papers())
        return 0
    known = registry.slugs()
    unknown = [p for p in args.papers if p not in known and p not in SITE_TARGETS]
    if unknown:
        print(f"reproduce: unknown paper(s) {unknown}; known: {', '.join(known)} (see --list)", file=sys.stderr)
        return 2
    slugs = [p for p in dict.fromkeys(args.papers) if p not in SITE_TARGETS] or (list(known) if not args.papers else [])
    from paperlib.experiments import papers

    planned = [p["slug"] for p in papers() if p["slug"] in slugs and p["status"] == "planned"]
    if planned and args.papers:
        print(f"reproduce: {', '.join(planned)}: planned, nothing to build yet (see --list)", file=sys.stderr)
        return 2
    results_root, figures_root = _roots(args)
    if args.archive is not None:
        refused = _use_archive(args)
        if refused:
            print(refused, file=sys.stderr)
            return 2
    refused = check_rooms([s for s in slugs if s not in planned], args)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    if not args.dry_run:
        ensure_kernel()
    cmd = snakemake_command(args)
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    if args.source == "archive":  # a build from archived recordings runs no twin: a room that tries stops
        from paperlib.twin.guard import FORBID_ENV

        env[FORBID_ENV] = "1"
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"reproduce: snakemake failed (exit {proc.returncode}) after {wall:.0f} s; logs in "
              f"{results_root}/<paper>/logs/", file=sys.stderr)
        return proc.returncode
    if args.dry_run:
        return 0
    if getattr(args, "report", None) is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        rep = subprocess.run(report_command(args), cwd=ROOT, env=env)
        if rep.returncode != 0:
            print(f"reproduce: the build succeeded, but snakemake --report failed (exit {rep.returncode})",
                  file=sys.stderr)
            return rep.returncode
    if args.papers:  # `all` builds the index itself; a partial run refreshes it from the tables that exist
        write_index(ROOT / results_root, ROOT / results_root / "paper_comparison.md")
    built = [s for s in slugs if s not in planned]
    catalogs = write_figure_catalogs(built, figures_root)
    made = made_outputs(built, results_root, figures_root)
    print(f"\nreproduce: {', '.join(built + [t for t in args.papers if t in SITE_TARGETS])} done in {wall:.0f} s "
          f"(source: {args.source or 'from each config'})")
    if "book" in args.papers or not args.papers:
        print(f"book: {results_root}/book/index.html (paperlib book serve)")
    if getattr(args, "report", None) is not None:
        print(f"report: {args.report}")
    if catalogs:
        print(f"figure catalogues: {', '.join(catalogs)}")
    for group in ("figures", "tables", "notebooks", "recordings"):
        files = made[group]
        print(f"{group} ({len(files)}):")
        for f in files:
            print(f"  {f}")
    return 0
