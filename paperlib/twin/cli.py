"""``paperlib record --rig twin``: make a recording with the digital twin."""

from __future__ import annotations

import argparse
import sys

from paperlib.cli_args import output_file


def _twin_only(text: str) -> str:
    if text != "twin":
        raise argparse.ArgumentTypeError(
            f"{text!r}: 'paperlib record' records the twin only; for the robot use "
            "'paperlib run --rig hardware --config RIG.toml ...'")
    return text


def record(args: argparse.Namespace) -> int:
    if args.rig != "twin":
        print("paperlib record: only --rig twin records here; for the robot use "
              "`paperlib run --rig hardware --config rig.toml ...`", file=sys.stderr)
        return 2
    from paperlib.twin.robots import twin_module

    twin_record = twin_module().record

    try:
        path = twin_record(
            args.output, controller=args.controller, duration_s=args.duration, seed=args.seed, model=args.model,
            ambient_temperature_C=args.ambient_temperature, warm_up_minutes=args.warm_up_minutes,
            decimate=args.decimate, progress=True,
        )
    except (ValueError, RuntimeError) as exc:
        print(f"paperlib record: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path} (source = twin: simulated, not measured)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("record", help="record a run of the digital twin (schema paperlib.recording/2)")
    p.add_argument("--rig", type=_twin_only, default="twin", metavar="{twin}",
                   help="only the twin records here (default twin); for the robot use 'paperlib run --rig hardware "
                        "--config RIG.toml'")
    p.add_argument("--controller", choices=["PD", "CTC", "AC", "OPEN"], default="AC",
                   help="switches of the paper's Fig. 1: PD, CTC, AC (adaptive) or OPEN (default AC)")
    p.add_argument("--duration", type=float, required=True, metavar="S", help="run length [s]")
    p.add_argument("--seed", type=int, default=1, help="seeds trajectory and noise (default 1)")
    p.add_argument("--output", required=True, metavar="FILE.nc", type=output_file,
                   help="recording to write (its directory must exist; checked before the run)")
    p.add_argument("--model", type=int, default=3, choices=[1, 2, 3, 4, 5], help="Table 4 model the estimator fits")
    p.add_argument("--ambient-temperature", type=float, default=None, metavar="C", help="room temperature [degC]")
    p.add_argument("--warm-up-minutes", type=float, default=0.0, metavar="M",
                   help="minutes of the paper's fast warm-up motion before the run (120: ~39 degC)")
    p.add_argument("--decimate", type=int, default=1, metavar="N", help="log every N-th 4 kHz cycle (default 1)")
    p.set_defaults(func=record)
