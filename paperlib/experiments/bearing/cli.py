"""``paperlib bearing``: fit a joint's intrinsic model, inspect bearings, make twin recordings.

::

    paperlib bearing fit NOLOAD.nc [NOLOAD2.nc ...] --json MODEL.json
    paperlib bearing inspect --model MODEL.json BEARING.nc [...] [--threshold N_M] --json OUT.json
    paperlib bearing twin --kind no-load|bearing [--grade good|worn] --seed S --output RUN.nc
    paperlib bearing rig --rig-config RIG.toml [--emulated] --kind no-load|bearing [...] --output RUN.nc

Any schema-2 recording with ``q`` and ``tau_s`` (and ``tau_ref`` to inspect) from any robot
works: only the joint's own signals are used; ``qd``/``qdd`` are derived from ``q`` when absent.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from paperlib.cli_args import output_file_in_new_dir


def _fail(cmd: str, exc: BaseException) -> int:
    print(f"paperlib bearing {cmd}: {exc}", file=sys.stderr)
    return 1


def _write(text: str, path: str | None) -> None:
    print(text)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")


def _sources(values: list[str]) -> str:
    vals = sorted(set(values))
    return vals[0] if len(vals) == 1 else "mixed:" + ",".join(vals)


def fit(args: argparse.Namespace) -> int:
    from paperlib.experiments.bearing.inspection import fit_intrinsic
    from paperlib.recordings import RecordingError, read_recording

    orders = None
    if args.orders:
        try:
            orders = [float(x) for x in args.orders.split(",") if x.strip()]
        except ValueError:
            return _fail("fit", ValueError(f"--orders: not a comma-separated list of numbers: {args.orders!r}"))
    try:
        dss = [read_recording(p, require=("q", "tau_s"), analysis="bearing fit") for p in args.recordings]
        model, info = fit_intrinsic(dss, names=[str(p) for p in args.recordings], joint=args.joint,
                                    cutoff_hz=args.cutoff, alpha=args.alpha, orders=orders,
                                    max_order=args.max_order, selection=args.selection,
                                    detect_orders=not args.no_detect_orders)
    except (RecordingError, ValueError, FileNotFoundError) as exc:
        return _fail("fit", exc)
    d = model.to_dict()
    out: dict[str, Any] = {"source": _sources(info["sources"]), "recordings": info["files"],
                           "robots": info["robots"], "kinematics": info["kinematics"], **d}
    if not args.keep_table and out.get("selection"):
        out["selection"] = {k: v for k, v in out["selection"].items() if k != "table"}
    _write(json.dumps(out, indent=2, default=float), args.json)
    return 0


def inspect(args: argparse.Namespace) -> int:
    from paperlib.experiments.bearing.inspection import inspect as inspect_one
    from paperlib.experiments.bearing.inspection import model_from_json
    from paperlib.recordings import RecordingError, read_recording

    try:
        mpath = Path(args.model)
        if not mpath.is_file():
            raise FileNotFoundError(f"{mpath}: no such model file (make one with 'paperlib bearing fit')")
        try:
            model = model_from_json(json.loads(mpath.read_text()), str(mpath))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{mpath}: not JSON ({exc})") from None
        threshold = args.threshold
        if args.classifier:
            cls = json.loads(Path(args.classifier).read_text())
            try:
                threshold = float(cls["threshold_Nm"])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"{args.classifier}: no 'threshold_Nm' number") from None
        if threshold is not None and not (math.isfinite(threshold) and threshold > 0):
            raise ValueError(f"--threshold must be a positive number of N m, got {threshold!r}")
        files = {}
        sources = []
        for p in args.recordings:
            ds = read_recording(p, require=("q", "tau_s", "tau_ref"), analysis="bearing inspect")
            files[str(p)] = inspect_one(ds, model, threshold_Nm=threshold, joint=args.joint, cutoff_hz=args.cutoff,
                                        name=str(p))
            sources.append(files[str(p)]["source"])
    except (RecordingError, ValueError, FileNotFoundError) as exc:
        return _fail("inspect", exc)
    out = {"source": _sources(sources), "model": str(args.model), "threshold_Nm": threshold,
           "definitions": {"rms_error_before": "RMS(tau_s - tau_ref) / RMS(tau_ref)",
                           "rms_error_after": "RMS(tau_s - intrinsic - tau_ref) / RMS(tau_ref)",
                           "bearing_torque_rms": "RMS(tau_s - intrinsic) [N m]",
                           "verdict": "pass if bearing_torque_rms <= threshold_Nm, fail otherwise; "
                                      "unclassified without a threshold"},
           "files": files}
    _write(json.dumps(out, indent=2, default=float), args.json)
    return 0


def twin(args: argparse.Namespace) -> int:
    from paperlib.experiments.bearing import runs
    from paperlib.recordings import write_recording
    from paperlib.twin.robots.wheel_bearing import population

    if args.kind == "no-load":
        ds = runs.no_load_recording(seed=args.seed, duration_s=args.duration)
    else:
        bearing = population(args.grade, args.bearing_index + 1, args.bearing_seed)[args.bearing_index]
        ds = runs.bearing_recording(bearing, seed=args.seed, q0=args.q0)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    write_recording(ds, args.output)
    print(f"wrote {args.output} (source = twin, {ds.sizes['time']} samples at {ds.attrs['sample_rate_hz']:g} Hz)")
    return 0


def rig(args: argparse.Namespace) -> int:
    from paperlib.experiments.bearing.rig_runs import RigRunError, record_on_rig
    from paperlib.experiments.kit.rig_config import RigUnavailable

    spec: dict[str, Any] = {"kind": args.kind, "seed": args.seed, "q0": args.q0, "path": args.output}
    if args.kind == "no-load":
        spec["duration_s"] = args.duration
    else:
        spec.update(grade=args.grade, bearing_seed=args.bearing_seed, bearing_index=args.bearing_index)
    try:
        ds = record_on_rig(spec, args.rig_config, args.output, emulated=args.emulated,
                           log=(lambda m: print(m, flush=True)))
    except (RigUnavailable, RigRunError, OSError, ValueError) as exc:
        return _fail("rig", exc)
    print(f"wrote {args.output} (source = {ds.attrs['source']}, rig = {ds.attrs.get('rig')}, "
          f"{ds.sizes['time']} samples at {ds.attrs['sample_rate_hz']:g} Hz)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bearing", help="joint intrinsic torque model and wheel-bearing inspection (paper 004)")
    bsub = p.add_subparsers(dest="bearing_command", metavar="ACTION")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--joint", type=int, default=None, help="joint label (needed when the file has several)")
    common.add_argument("--cutoff", type=float, default=20.0, metavar="HZ",
                        help="cut-off of the zero-phase filter deriving qd, qdd from q when absent (default 20 Hz)")
    common.add_argument("--json", metavar="OUT", type=output_file_in_new_dir, help="also write the JSON to this file")

    f = bsub.add_parser("fit", parents=[common], help="fit the intrinsic model on no-load recordings (q, tau_s)")
    f.add_argument("recordings", nargs="+", help="no-load recordings (schema 2) with q and tau_s")
    f.add_argument("--alpha", type=float, default=None, metavar="S_PER_RAD",
                   help="fix the sigmoid sharpness (default: chosen by the selection rule)")
    f.add_argument("--orders", default=None, metavar="K1,K2,...",
                   help="fix the ripple orders (default: 1..n with n chosen by the rule, plus periodogram orders)")
    f.add_argument("--max-order", type=int, default=12, help="largest integer ripple order tried (default 12)")
    f.add_argument("--selection", choices=["blocked_cv", "bic"], default="blocked_cv",
                   help="selection rule for alpha and n (default blocked_cv)")
    f.add_argument("--no-detect-orders", action="store_true",
                   help="do not search the residual's angle periodogram for further ripple orders")
    f.add_argument("--keep-table", action="store_true", help="keep the full selection table in the JSON")
    f.set_defaults(func=fit)

    i = bsub.add_parser("inspect", parents=[common],
                        help="compensate bearing trials (q, tau_s, tau_ref) and compare with the load cell")
    i.add_argument("recordings", nargs="+", help="bearing-turning recordings with q, tau_s and tau_ref")
    i.add_argument("--model", required=True, help="model JSON from 'paperlib bearing fit'")
    i.add_argument("--threshold", type=float, default=None, metavar="N_M",
                   help="fail a bearing whose compensated torque RMS exceeds this [N m]")
    i.add_argument("--classifier", default=None, metavar="JSON",
                   help="read the threshold ('threshold_Nm') from this JSON instead")
    i.set_defaults(func=inspect)

    run = argparse.ArgumentParser(add_help=False)
    run.add_argument("--kind", choices=["no-load", "bearing"], required=True, help="which experiment")
    run.add_argument("--seed", type=int, default=0, help="seed of sensor noise and drift (default 0)")
    run.add_argument("--duration", type=float, default=30.0, metavar="S", help="no-load run length (default 30 s)")
    run.add_argument("--grade", choices=["good", "worn"], default="good", help="bearing grade (default good)")
    run.add_argument("--bearing-seed", type=int, default=7, help="seed of the bearing population drawn from (default 7)")
    run.add_argument("--bearing-index", type=int, default=0, help="which bearing of that population (default 0)")
    run.add_argument("--q0", type=float, default=0.0, metavar="RAD", help="start angle of the trial (default 0)")
    run.add_argument("--output", required=True, type=output_file_in_new_dir, help="recording to write (.nc)")

    r = bsub.add_parser("rig", parents=[run],
                        help="run the experiment on the single-joint rig of a rig file (emulated: source = twin, "
                             "rig = emulated-hardware)")
    r.add_argument("--rig-config", required=True, metavar="RIG.toml", help="the rig file (config/rigs/bearing.toml)")
    r.add_argument("--emulated", action="store_true",
                   help="(root) bring up paperlib's emulated devices for the file's chain around the joint twin, in "
                        "lock-step, instead of the file's EtherCAT interface; the bearing, seed and start angle are "
                        "the emulated twin's")
    r.set_defaults(func=rig)

    t = bsub.add_parser("twin", parents=[run], help="write a twin recording of the rig (source = twin)")
    t.set_defaults(func=twin)
