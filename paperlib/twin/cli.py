"""``paperlib record --rig twin``: make a recording with the digital twin."""

from __future__ import annotations

import argparse
import sys


def record(args: argparse.Namespace) -> int:
    if args.rig != "twin":
        print("paperlib record: only --rig twin records here; for the robot use "
              "`paperlib run --rig hardware --config rig.toml ...`", file=sys.stderr)
        return 2
    from paperlib.twin.simulate import record as twin_record

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
    p.add_argument("--rig", choices=["twin", "hardware"], default="twin")
    p.add_argument("--controller", choices=["PD", "CTC", "AC", "OPEN"], default="AC")
    p.add_argument("--duration", type=float, required=True, metavar="S", help="run length [s]")
    p.add_argument("--seed", type=int, default=1, help="seeds trajectory and noise (default 1)")
    p.add_argument("--output", required=True, metavar="FILE.nc")
    p.add_argument("--model", type=int, default=3, choices=[1, 2, 3, 4, 5], help="Table 4 model the estimator fits")
    p.add_argument("--ambient-temperature", type=float, default=None, metavar="C", help="room temperature [degC]")
    p.add_argument("--warm-up-minutes", type=float, default=0.0, metavar="M",
                   help="minutes of the paper's fast warm-up motion before the run (120: ~39 degC)")
    p.add_argument("--decimate", type=int, default=1, help="log every N-th 4 kHz cycle (default 1)")
    p.set_defaults(func=record)
