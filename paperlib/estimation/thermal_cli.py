"""``paperlib thermal fit`` and ``paperlib thermal monitor`` (paper 001's thermal friction)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from paperlib.cli_args import output_file_in_new_dir
from paperlib.estimation.thermal import DEFAULT_ALPHA_PER_K


def _read(paths: list[str], analysis: str):
    from paperlib.recordings import RecordingError, read_recording

    out = []
    for p in paths:
        try:
            out.append((str(p), read_recording(p, require=("q", "tau_m"), analysis=analysis)))
        except (FileNotFoundError, RecordingError) as exc:
            raise SystemExit(f"paperlib thermal: {exc}") from None
    return out


def _write(obj: dict, path: str | None) -> None:
    text = json.dumps(obj, indent=1, sort_keys=True, default=float)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")
    else:
        print(text)


def fit(args: argparse.Namespace) -> int:
    from paperlib.estimation.thermal_monitor import fit_recordings

    recs = _read(args.recordings, "thermal fit")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = fit_recordings(recs, alpha=args.alpha, n_sigma=args.n_sigma, seed=args.seed,
                                   progress=not args.quiet, maxiter=args.maxiter, start_offset=args.start_offset)
        except ValueError as exc:
            raise SystemExit(f"paperlib thermal fit: {exc}") from None
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    model["warnings"] = [str(w.message) for w in caught]
    _write(model, args.json)
    if args.json and not args.quiet:
        for j, m in model["joints"].items():
            print(f"joint {j}: t1 {m['t1_min']:.2f} min, t2 {m['t2_min']:.1f} min, cold/hot "
                  f"{m['cold_hot_ratio']:.2f}, thermal model tau1 {m['tau1_min']:.2f} min, "
                  f"tau2 {m['tau2_min']:.1f} min, rms {m['rms']:.3g} N m, "
                  f"{len(m['diagnostics']['messages'])} diagnostic warning(s)", file=sys.stderr)
    return 0


def monitor(args: argparse.Namespace) -> int:
    from paperlib.estimation.thermal_monitor import monitor_recording

    try:
        model = json.loads(Path(args.model).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SystemExit(f"paperlib thermal monitor: {args.model}: cannot read the model ({exc})") from None
    (name, ds), = _read([args.recording], "thermal monitor")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = monitor_recording(model, ds, name, thermal=not args.no_thermal)
        except (ValueError, KeyError) as exc:
            raise SystemExit(f"paperlib thermal monitor: {args.model}: {exc}") from None
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    _write(out, args.json)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("thermal", help="temperature-dependent friction from warm-up recordings (paper 001)")
    ts = p.add_subparsers(dest="thermal_command", metavar="SUBCOMMAND")
    f = ts.add_parser("fit", help="friction per cycle, double exponential and thermal model of warm-up runs")
    f.add_argument("recordings", nargs="+", metavar="DAY.nc",
                   help="healthy warm-up recordings of one robot, each from rest (q and tau_m are read)")
    f.add_argument("--json", metavar="MODEL.json", type=output_file_in_new_dir, help="write the model here (default: print it)")
    f.add_argument("--alpha", type=float, default=DEFAULT_ALPHA_PER_K,
                   help="gauge of eq. 14 [1/K] (friction predictions do not depend on it; default %(default)s)")
    f.add_argument("--n-sigma", type=float, default=4.0,
                   help="alarm threshold = max healthy ratio + N standard deviations (default %(default)s)")
    f.add_argument("--seed", type=int, default=0, help="seed of the differential evolution (default %(default)s)")
    f.add_argument("--maxiter", type=int, default=150,
                   help="generations of the differential evolution (default %(default)s)")
    f.add_argument("--start-offset", action="store_true",
                   help="also fit one start temperature offset shared by the days (runs that start after the same "
                        "rest away from the room's temperature, as paper 001's 15 C gearboxes in a 20 C room)")
    f.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    f.set_defaults(func=fit)
    m = ts.add_parser("monitor", help="alarms where friction exceeds the model's prediction")
    m.add_argument("recording", metavar="DAY.nc", help="a run from rest with friction segments")
    m.add_argument("--model", required=True, metavar="MODEL.json", help="output of 'paperlib thermal fit'")
    m.add_argument("--no-thermal", action="store_true",
                   help="predict the constant nominal friction instead of the thermal model")
    m.add_argument("--json", metavar="OUT.json", type=output_file_in_new_dir, help="write the alarms here (default: print them)")
    m.set_defaults(func=monitor)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
