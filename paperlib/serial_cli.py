"""``paperlib serial identify``: a serial arm's base and friction parameters (and drive gains) from recordings.

The command sits above the figures layer because ``--validate`` draws measured against
predicted torque (:mod:`paperlib.figures.torque_prediction`); the identification itself is
:mod:`paperlib.estimation.serial_identification`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paperlib.cli_args import add_robot_arguments, output_file_in_new_dir


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers (N m per A, one per joint); got {text!r}")


def _run_identify(args: argparse.Namespace) -> int:
    from paperlib.estimation.drive_gains import parse_payload
    from paperlib.estimation.serial_identification import IdentificationConfig, finalise, identify_recording, validate_runs
    from paperlib.recordings import RecordingError
    from paperlib.robots.serial import SerialArm

    cfg = IdentificationConfig(method=args.method, cutoff_hz=args.cutoff_hz, decimate=args.decimate, v_gate=args.v_gate,
                               holdout_fraction=args.holdout_fraction, torque=args.torque, kinematics=args.kinematics,
                               drive_gains=args.drive_gains, gain_side=args.gain_side)
    figures: list[str] = []
    try:
        if (args.payload is None) != (args.payload_run is None):
            raise ValueError("--payload-run and --payload go together: the run carrying the payload, and the payload's "
                             "MASS_KG,CX,CY,CZ[,inertia] (or a TOML file)")
        payload = parse_payload(args.payload) if args.payload is not None else None
        arm = SerialArm.named(args.robot, base_link=args.base_link, tip_link=args.tip_link)
        res, _ = identify_recording(args.recording, arm, cfg, payload_run=args.payload_run, payload=payload)
        for key, why in res["choices"].items():
            print(f"paperlib serial identify: {key}: {why}", file=sys.stderr)
        if args.validate:
            from dataclasses import replace

            used = replace(cfg, **{k: res["config"][k] for k in ("cutoff_hz", "decimate", "torque", "gain_side")})
            bp = arm.base_parameters(n_states=cfg.base_states, seed=0, tol=cfg.base_tol)
            summaries, traces = validate_runs(args.validate, arm, res, used, bp)
            res["validation"] = summaries
            fig_dir = Path(args.figures) if args.figures else (Path(args.json).parent if args.json else None)
            if fig_dir is not None:
                from paperlib.figures.torque_prediction import save_torque_prediction

                for s, tr in zip(summaries, traces):
                    stem = fig_dir / f"validation_{Path(s['recording']).stem}"
                    written = save_torque_prediction(tr, stem, rms=s["rms"],
                                                     extra_provenance={"identified_on": res["recording"]})
                    figures += [str(w) for w in written if w.suffix == ".png"]
            for s in summaries:
                rel = ", ".join(f"{x:.3f}" for x in s["rms_relative"])
                print(f"paperlib serial identify: validation on {s['recording']}: relative RMS per joint {rel}",
                      file=sys.stderr)
        if figures:
            res["figures"] = figures
    except (RecordingError, ValueError, RuntimeError, OSError) as exc:
        print(f"paperlib serial identify: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(finalise(res), indent=2, allow_nan=False)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
        print(f"wrote {args.json}")
    else:
        print(text)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serial", help="serial arms: identification from a recording")
    ss = p.add_subparsers(dest="serial_command", metavar="SERIAL_COMMAND")
    ident = ss.add_parser(
        "identify", help="identify base and friction parameters (and drive gains) of a serial arm from a recording",
        description="Identify a serial arm's base and friction parameters from a schema-2 recording. The torque "
                    "source, the velocities, the filter cut-off and the decimation are chosen from the recording "
                    "and printed with the reason; options override them.")
    ident.add_argument("recording", help="recording (.nc, schema 2) with q and a torque channel (tau_m, tau_s or current)")
    add_robot_arguments(ident, help="robot name (a file stem in data/robots/) or a URDF path")
    ident.add_argument("--method", choices=("ols", "wls", "sdp"), default="wls",
                       help="ordinary / per-joint weighted least squares, or physically consistent SDP (default wls)")
    ident.add_argument("--torque", choices=("auto", "tau_m", "tau_s", "current"), default="auto",
                       help="torque channel (default auto: the first of tau_m, tau_s, current the file has)")
    ident.add_argument("--drive-gains", type=_floats, metavar="K1,..,Kn",
                       help="drive gains for --torque current [N m per A], one per joint (side: --gain-side)")
    ident.add_argument("--gain-side", choices=("joint", "motor"), default="joint",
                       help="side of the drive gains: joint (tau_j = K_j i_j, default) or motor (through the robot "
                            "file's gear ratios)")
    ident.add_argument("--payload-run", metavar="RUN.nc",
                       help="a second run with a known payload on the last link: identifies the drive gains of "
                            "'current' (with --payload)")
    ident.add_argument("--payload", metavar="MASS_KG,CX,CY,CZ[,IXX,IXY,IXZ,IYY,IYZ,IZZ] | FILE.toml",
                       help="the payload of --payload-run: mass [kg], centre of mass [m] in the last joint's frame, "
                            "optionally the inertia about the centre of mass [kg m^2]")
    ident.add_argument("--kinematics", choices=("auto", "measured", "derive"), default="auto",
                       help="use the recording's qd when its origin is a sensor (auto, default), require it, or derive "
                            "velocities from the angles")
    ident.add_argument("--holdout-fraction", type=float, default=0.2,
                       help="share of the motion span (its end) held out for validation (default 0.2)")
    ident.add_argument("--cutoff-hz", type=float, default=None,
                       help="zero-phase Butterworth cut-off [Hz] (default: 5 x the excitation's bandwidth)")
    ident.add_argument("--decimate", type=int, default=None,
                       help="keep every k-th sample after filtering (default: the largest k leaving >= 8 samples per "
                            "cut-off period)")
    ident.add_argument("--v-gate", type=float, default=0.05, help="per-row velocity gate [rad/s] (default 0.05)")
    ident.add_argument("--validate", nargs="+", metavar="RUN.nc",
                       help="other runs: predict their torques with the identified model (RMS per joint in the JSON, "
                            "a figure of measured vs predicted torque each)")
    ident.add_argument("--figures", metavar="DIR",
                       help="directory of the validation figures (default: the --json file's directory)")
    ident.add_argument("--json", type=output_file_in_new_dir, help="write the results here instead of printing them")
    ident.set_defaults(func=_run_identify)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
