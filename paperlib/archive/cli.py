"""``paperlib archive pack | verify | resolve``: data releases of the recordings a build used.

Exit codes: 0 on success, 1 when a release cannot be packed, does not verify or cannot be
fetched (each fault printed on its own line, naming its file); argparse usage errors give 2.
"""

from __future__ import annotations

import argparse
import sys

from paperlib.cli_args import output_dir


def _date(text: str) -> str:
    """argparse type: a date YYYY-MM-DD (returns ``text``)."""
    import datetime as _dt

    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD") from None
    if len(text) != 10:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD")
    return text


def _faults(command: str, problems: list[str]) -> int:
    for p in problems:
        print(f"FAIL {p}")
    print(f"paperlib archive {command}: {len(problems)} fault(s)", file=sys.stderr)
    return 1


def cmd_pack(args: argparse.Namespace) -> int:
    """Pack the recordings of the given papers' build into a new release folder."""
    from paperlib.archive import ArchiveError, pack
    from paperlib.archive.layout import REGISTRY_FILE
    from paperlib.recordings import load_recording_registry

    try:
        out = pack(args.papers, args.output, results_root=args.results_root, figures_root=args.figures_root, root=args.root,
                   authors=args.author, title=args.title, version=args.version, date=args.date)
    except ArchiveError as exc:
        return _faults("pack", exc.problems)
    entries = load_recording_registry(out / REGISTRY_FILE)
    twins = sum(e.source == "twin" for e in entries)
    print(f"OK   {out}: {len(entries)} recording(s) ({twins} twin, {len(entries) - twins} hardware), "
          "registry, CITATION.cff, .zenodo.json, licences and README written and verified")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Verify a release folder; print each fault."""
    from paperlib.archive import verify
    from paperlib.archive.layout import REGISTRY_FILE
    from paperlib.recordings import load_recording_registry

    problems = verify(args.directory)
    if problems:
        return _faults("verify", problems)
    n = len(load_recording_registry(f"{args.directory}/{REGISTRY_FILE}"))
    print(f"OK   {args.directory}: {n} recording(s), every sha256 as registered, nothing missing or extra, "
          "metadata well-formed")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    """Fetch (a URL) or find (a folder) a release, verify it, print its local folder."""
    from paperlib.archive import ArchiveError, resolve

    from paperlib.archive.layout import REGISTRY_FILE
    from paperlib.recordings import sha256_file

    try:
        folder = resolve(args.spec, cache_dir=args.cache)
    except ArchiveError as exc:
        return _faults("resolve", exc.problems)
    if "#" not in str(args.spec) and "://" in str(args.spec):
        print(f"registry sha256 {sha256_file(folder / REGISTRY_FILE)}: pin this release with "
              f"{args.spec}#sha256=<that>", file=sys.stderr)
    print(folder)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``archive {pack,verify,resolve}`` on the ``paperlib`` command."""
    p = sub.add_parser("archive", help="data releases: pack the recordings a build used, verify a release, fetch one")
    asub = p.add_subparsers(dest="archive_command", metavar="ACTION", required=True)

    pk = asub.add_parser("pack", help="write a release: the recordings as stored, registry with sha256, "
                                      "CITATION.cff, licences, .zenodo.json, README")
    pk.add_argument("papers", nargs="*", metavar="PAPER",
                    help="room slugs to pack (default: every paper with a folder in the results root)")
    pk.add_argument("--output", required=True, type=output_dir, metavar="DIR",
                    help="the release folder to write (new, or empty)")
    pk.add_argument("--results-root", default="results", metavar="DIR",
                    help="the build's results folder (default: results; a run configuration may use another, "
                         "e.g. results/smoke)")
    pk.add_argument("--figures-root", default=None, metavar="DIR",
                    help="the build's figures folder (default: figures beside the results folder)")
    pk.add_argument("--root", default=None, metavar="DIR",
                    help="where the relative paths in the build's outputs start (default: this repository when the "
                         "results folder is in it, else the results folder's parent)")
    pk.add_argument("--author", action="append", metavar="NAME",
                    help="an author of the release, 'Family, Given' for a person (repeatable; default: paperlib maintainers)")
    pk.add_argument("--title", metavar="TEXT", help="the release's title (default: names the papers)")
    pk.add_argument("--version", metavar="TEXT", help="the release's version (default: package version and build commit)")
    pk.add_argument("--date", type=_date, metavar="YYYY-MM-DD", help="release date (default: today UTC, or SOURCE_DATE_EPOCH)")
    pk.set_defaults(func=cmd_pack)

    v = asub.add_parser("verify", help="check a release: every sha256, no file missing or extra, metadata well-formed")
    v.add_argument("directory", metavar="DIR", help="the release folder")
    v.set_defaults(func=cmd_verify)

    r = asub.add_parser("resolve", help="a release folder or URL as a verified local folder (a URL fetched with "
                                        "sha256 checks and cached)")
    r.add_argument("spec", metavar="DIR|URL", help="release folder, or its URL (optionally #sha256=HEX of its registry)")
    r.add_argument("--cache", metavar="DIR", default=None,
                   help="where fetched releases are kept (default: ~/.cache/paperlib/archive)")
    r.set_defaults(func=cmd_resolve)
