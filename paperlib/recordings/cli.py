"""``paperlib validate`` and ``paperlib recordings {verify,list}``.

Exit codes: 0 when everything is valid, 1 on any fault (argparse usage errors give 2).
"""

from __future__ import annotations

import argparse
import json
import sys

from paperlib.recordings.io import read_recording
from paperlib.recordings.registry import DEFAULT_REGISTRY, load_recording_registry, verify_registry
from paperlib.recordings.schema import RecordingError
from paperlib.recordings.validation import plausibility

_REGISTRY_HELP = "registry file (default: data/recordings/registry.toml)"


def _summary(ds) -> str:
    n = ds.sizes["time"]
    duration = float(ds["time"].values[-1] - ds["time"].values[0])
    fault = f", fault: {ds.attrs['fault']}" if "fault" in ds.attrs else ""
    if "reduced" in ds.attrs:  # a storage copy (recordings.reduce_recording): say it is not the whole log
        note = json.loads(ds.attrs["reduced"])
        fault += f"; reduced for storage, {len(note.get('dropped', []))} variable(s) left out"
    controller = f", controller {ds.attrs['controller']}" if ds.attrs.get("controller") else ", no controller stated"
    return (f"source {ds.attrs['source']}, robot {ds.attrs['robot']}{controller}, "
            f"written by {ds.attrs.get('writer', 'paperlib ' + str(ds.attrs.get('paperlib_version', '?')))}, "
            f"{ds.sizes['joint']} joint(s), {n} samples at {float(ds.attrs['sample_rate_hz']):g} Hz "
            f"({duration:.6g} s){fault}")


def cmd_validate(args: argparse.Namespace) -> int:
    """Print one OK/FAIL line per file: FAIL followed by every fault of the file (one pass), OK
    followed by any plausibility warning (valid, but looks like a mislabelled unit or rate)."""
    failed = 0
    for path in args.files:
        try:
            ds = read_recording(path)
        except RecordingError as exc:
            failed += 1
            print(f"FAIL {path}")
            for problem in exc.problems:
                print(f"     {problem}")
        except OSError as exc:  # missing file, permission denied...
            failed += 1
            print(f"FAIL {path}")
            print(f"     {exc}")
        else:
            print(f"OK   {path}: {_summary(ds)}")
            for warning in plausibility(ds, str(path)):
                print(f"     warning: {warning}")
    if len(args.files) > 1:
        print(f"{len(args.files) - failed} valid, {failed} invalid", file=sys.stderr)
    return 1 if failed else 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Verify every registry entry; print the problems; non-zero exit on any."""
    registry = args.registry or DEFAULT_REGISTRY
    problems = verify_registry(registry)
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"{registry}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"OK   {registry}: {len(load_recording_registry(registry))} recording(s) verified")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """List the registry's recordings (name, source, robot, file, description)."""
    registry = args.registry or DEFAULT_REGISTRY
    try:
        entries = load_recording_registry(registry)
    except RecordingError as exc:
        for problem in exc.problems:
            print(f"FAIL {problem}")
        return 1
    if not entries:
        print(f"{registry}: no recordings registered")
        return 0
    width = max(len(e.name) for e in entries)
    for e in entries:
        present = "" if e.path.is_file() else "  [file missing]"
        print(f"{e.name:{width}s}  {e.source:8s}  {e.robot:12s}  {e.file}  {e.description}{present}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``validate`` and ``recordings {verify,list}`` on the ``paperlib`` command."""
    p = sub.add_parser("validate", help="check recording files against the recording schema (paperlib.recording/2, or /1)")
    p.add_argument("files", nargs="+", metavar="FILE", help="recording (.nc) files")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("recordings", help="the registry of archived recordings")
    rsub = p.add_subparsers(dest="recordings_command", metavar="ACTION", required=True)
    v = rsub.add_parser("verify", help="check presence, sha256 and schema of every entry")
    v.add_argument("--registry", metavar="PATH", help=_REGISTRY_HELP)
    v.set_defaults(func=cmd_verify)
    ls = rsub.add_parser("list", help="list the registered recordings")
    ls.add_argument("--registry", metavar="PATH", help=_REGISTRY_HELP)
    ls.set_defaults(func=cmd_list)
