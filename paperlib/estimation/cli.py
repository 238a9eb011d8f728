"""``paperlib identify RECORDING.nc``: the EWR-RLS estimator over a recording, as JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from paperlib.cli_args import output_file
from paperlib.estimation import identify_options


def identify(args: argparse.Namespace) -> int:
    from paperlib.estimation.replay import CONVERGENCE_CRITERION, REPLAY_CHANNELS, replay
    from paperlib.recordings import RecordingError, read_recording

    from paperlib.estimation.config import EstimatorConfig

    try:
        cfg = EstimatorConfig.read(args.estimator_config) if args.estimator_config else EstimatorConfig()
        flags = {"model": None if args.model == "auto" else args.model, "half_life_s": args.half_life, "lambda_reg": args.lambda_reg,
                 "gate_velocity": args.gate_velocity, "gate_acceleration": args.gate_acceleration,
                 "gate_all_joints": False if args.paper_gating else None,
                 "per_joint_rows": True if args.per_joint_rows else None}
        cfg = cfg.replace(**{k: v for k, v in flags.items() if v is not None})
        ds = read_recording(args.recording, require=REPLAY_CHANNELS, analysis="paperlib identify")
        ds, cfg, delay, extras = identify_options.prepare(args, ds, cfg)
        res = replay(ds, config=cfg, imu_delay_cycles=delay, keep_rows=True)
    except (RecordingError, ValueError, FileNotFoundError) as exc:
        print(f"paperlib identify: {exc}", file=sys.stderr)
        hint = serial_hint(args.recording)
        if hint:
            print(f"paperlib identify: {hint}", file=sys.stderr)
        return 1
    from paperlib import robots

    robot = robots.load(ds.attrs["robot"])
    out = {
        "recording": str(args.recording),
        "source": ds.attrs.get("source"),
        "model": res.config.to_dict()["model"],
        "model_description": res.model.name,
        "friction_joints": list(res.model.joints),
        "pi_pds": res.pi_pds.tolist(),
        "gear_ratio": robot.gear_ratios.tolist(),
        "pi_F": res.pi_F_by_joint(),
        "pi_F_units": "joint space, order k coefficient in N m (s/rad)^k, resisting torque = sign(v) sum_k pi_k |v|^k",
        "rho_rms": float(res.history.rho_rms[-1]) if len(res.history.rho_rms) else math.nan,
        "rho_rms_units": "N m",
        "samples": int(res.estimator.counters[0]),
        "samples_used": int(res.estimator.counters[1]),
        "converged_s": None if math.isnan(res.converged_s) else res.converged_s,
        "convergence_criterion": res.criterion,
        "settled_s": None if math.isnan(res.settled_s) else res.settled_s,
        "settling_rule": CONVERGENCE_CRITERION.format(tol_pds=0.01, tol_f=0.05),
        "estimator": res.config.to_dict(),
        "settings": {"half_life_s": res.config.half_life_s, "lambda": res.config.lambda_reg,
                     "gate_velocity_rad_s": res.config.gate_velocity,
                     "gate_acceleration_rad_s2": res.config.gate_acceleration,
                     "gating": ("every joint slides: min |qd_j| > gate_velocity" if res.config.gate_all_joints
                                else "paper: any |qd| > gate_velocity or any |qdd| > gate_acceleration"),
                     "rows": "per-joint" if res.config.per_joint_rows else "summed",
                     "imu_delay_cycles": res.extra["imu_delay_cycles"]},
    }
    out.update(identify_options.json_extras(res, extras))
    from paperlib.estimation import plausibility

    duration = float(ds["time"].values[-1] - ds["time"].values[0])
    out["warnings"] = plausibility.estimate_warnings(res, duration, out["rho_rms"])
    out["plausibility_rules"] = {"drive_gain_band": list(plausibility.DRIVE_GAIN_BAND),
                                 "late_convergence_fraction": plausibility.LATE_FRACTION,
                                 "min_used_fraction": plausibility.MIN_USED_FRACTION}
    try:
        truth_err = plausibility.truth_errors(ds, res, robot)
    except ValueError as exc:  # e.g. truth of another layout: the estimate stands, the comparison is skipped
        truth_err = None
        out["warnings"].append(f"no comparison with the recording's truth: {exc}")
    if truth_err:
        out["truth_errors"] = truth_err
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    for line in plausibility.describe_truth_errors(truth_err or {}):
        print(f"paperlib identify: against the twin's truth: {line}", file=sys.stderr)
    for w in out["warnings"]:
        print(f"paperlib identify: warning: {w}", file=sys.stderr)
    return 0


def serial_hint(path: str | Path) -> str | None:
    """The command to use instead when the recording's robot is a serial arm or has no robot file."""
    from paperlib.recordings import read_recording
    from paperlib.robots import kinds

    try:
        robot = str(read_recording(path).attrs.get("robot"))
    except (ValueError, OSError):
        return None
    try:
        kind = kinds.kind_of(kinds.find(robot))
    except (ValueError, OSError):
        kind = None
    if kind not in (None, "serial"):
        return None
    what = "a serial arm" if kind == "serial" else f"robot {robot!r} has no robot file; if it is a serial arm"
    return (f"{what}: identify it with `paperlib serial identify {path} --robot ARM.urdf` (or --robot NAME; "
            "docs/robots.md); `paperlib identify` is the EWR-RLS estimator of the closed-loop rigs")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("identify", help="run the EWR-RLS friction/drive-gain estimator over a recording",
                       description="Run the EWR-RLS estimator over a recording and print the estimate as JSON. "
                                   "Warns (stderr, and 'warnings' in the JSON) when the result is implausible: "
                                   "drive gains outside 0.7-1.3, no convergence within the run, non-finite "
                                   "values (rules: paperlib/estimation/plausibility.py). On a twin recording "
                                   "it also gives each estimate's error against the twin's truth.")
    p.add_argument("recording", help="recording file (schema paperlib.recording/2 or /1)")
    p.add_argument("--estimator-config", metavar="FILE.json",
                   help="every estimator setting as JSON (paperlib.estimation.config.EstimatorConfig); the flags "
                        "below override single settings")
    p.add_argument("--model", type=identify_options.model_arg, default=None,
                   help="Table 4 friction model 1..5 (default 3), or auto (chosen by a stated criterion)")
    p.add_argument("--half-life", type=float, default=None, metavar="SECONDS",
                   help="weighting half-life T_HL (default 600 s)")
    p.add_argument("--lambda", dest="lambda_reg", type=float, default=None, metavar="L",
                   help="regularization (default 0.001)")
    p.add_argument("--gate-velocity", type=float, default=None, metavar="RAD_S",
                   help="velocity gate (default 0.1 rad/s: every joint must slide faster)")
    p.add_argument("--gate-acceleration", type=float, default=None, metavar="RAD_S2",
                   help="acceleration gate, used with --paper-gating (default 0.2 rad/s^2)")
    p.add_argument("--paper-gating", action="store_true",
                   help="the paper's rule (any |qd| or |qdd| above its gate; e.g. --gate-velocity 0.02) "
                        "instead of requiring every joint to slide")
    p.add_argument("--per-joint-rows", action="store_true", help="per-joint rows instead of the paper's summed row")
    p.add_argument("--imu-delay-cycles", type=int, default=None, metavar="N",
                   help="IMU lag behind encoder/torque in samples (default: from the recording, else 0)")
    identify_options.add_options(p)
    p.add_argument("--json", metavar="OUT", type=output_file, help="also write the JSON to this file")
    p.set_defaults(func=identify)
