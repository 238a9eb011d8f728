"""``paperlib data fetch NAME [--mirror DIR] [--output FILE.nc]``: get public data, verify, import."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paperlib.cli_args import output_file
from paperlib.data.registry import MIRROR_ENV, DataError, fetch, load_dataset_registry

#: dataset name -> importer into a recording (module:function)
IMPORTERS = {"tx40": "paperlib.data.tx40:import_tx40"}


def _run_fetch(args: argparse.Namespace) -> int:
    try:
        files = fetch(args.name, mirror=args.mirror, allow_download=not args.no_download)
    except DataError as exc:
        print(f"paperlib data fetch: {exc}", file=sys.stderr)
        return 2
    for f, p in files.items():
        print(f"ok      {f}  ({p}, sha256 verified)")
    if args.output:
        if args.name not in IMPORTERS:
            print(f"paperlib data fetch: no importer into a recording for {args.name!r}", file=sys.stderr)
            return 2
        import importlib

        from paperlib.recordings import write_recording

        mod, fn = IMPORTERS[args.name].split(":")
        try:
            ds = getattr(importlib.import_module(mod), fn)(files)
        except DataError as exc:
            print(f"paperlib data fetch: {exc}", file=sys.stderr)
            return 2
        out = write_recording(ds, Path(args.output))
        print(f"wrote   {out} ({ds.sizes['time']} samples, source = {ds.attrs['source']})")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="public external data: fetch, verify and import into recordings")
    ss = p.add_subparsers(dest="data_command", metavar="DATA_COMMAND")
    f = ss.add_parser("fetch", help="fetch a dataset (or read a local mirror), verify sha256, optionally import it")
    f.add_argument("name", choices=sorted(load_dataset_registry()), help="dataset name in paperlib/data/registry.toml")
    f.add_argument("--mirror", help=f"folder holding the files themselves (also: ${MIRROR_ENV})")
    f.add_argument("--output", type=output_file, help="write the imported recording (.nc, schema 2) here")
    f.add_argument("--no-download", action="store_true", help="fail instead of downloading when no mirror is found")
    f.set_defaults(func=_run_fetch)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
