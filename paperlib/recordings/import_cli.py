"""``paperlib import csv | rosbag2``: a lab's log as a schema-2 recording (``source = hardware``)."""

from __future__ import annotations

import argparse
import sys

from paperlib.cli_args import output_file
from paperlib.recordings.schema import VELOCITY_ORIGINS


def _run(args: argparse.Namespace) -> int:
    from paperlib.recordings.importers import import_csv, import_rosbag2
    from paperlib.recordings.io import write_recording
    from paperlib.recordings.schema import RecordingError

    try:
        if args.import_command == "csv":
            origins = {"qd": args.qd_origin} if args.qd_origin else None
            ds, report = import_csv(args.log, args.columns, robot=args.robot, origins=origins,
                                    torque_side=args.torque_side, sample_rate_hz=args.sample_rate_hz,
                                    max_gap_periods=args.max_gap_periods)
        else:
            ds, report = import_rosbag2(args.bag, args.topic, robot=args.robot,
                                        joints=args.joints.split(",") if args.joints else None,
                                        effort_channel=args.effort_channel, velocity_origin=args.qd_origin or "drive",
                                        sample_rate_hz=args.sample_rate_hz, max_gap_periods=args.max_gap_periods)
        write_recording(ds, args.output)
    except (RecordingError, ValueError, OSError) as exc:
        print(f"paperlib import {args.import_command}: {exc}", file=sys.stderr)
        return 2
    print(f"paperlib import {args.import_command}: {report.describe()}", file=sys.stderr)
    print(f"wrote {args.output} ({', '.join(v for v in ds.data_vars)}; source = hardware)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import a lab's log (CSV, ROS 2 bag) as a schema-2 recording")
    ss = p.add_subparsers(dest="import_command", metavar="FORMAT", required=True)
    c = ss.add_parser("csv", help="a CSV log with a header row",
                      description="Columns map to channels by --columns (see paperlib.recordings.importers): "
                                  "'time=stamp@ms;q=pos_{1..6}@deg;current=i_{1..6}'. Jittery stamps are resampled "
                                  "onto a uniform grid (the jitter is reported); gaps are refused.")
    c.add_argument("log", help="the CSV file")
    c.add_argument("--columns", required=True, metavar="SPEC", help="CHANNEL=COL[,COL...][@UNIT] entries separated by ';'")
    r = ss.add_parser("rosbag2", help="a ROS 2 bag of sensor_msgs/JointState (position, velocity, effort)",
                      description="Reads the bag with the pure-Python rosbags package: position -> q, velocity -> qd "
                                  "(origin --qd-origin, default drive), effort -> joint-side torque (--effort-channel).")
    r.add_argument("bag", help="the bag's directory")
    r.add_argument("--topic", default="/joint_states", help="JointState topic (default /joint_states)")
    r.add_argument("--joints", metavar="NAME,NAME", help="joints to keep, in order (default: the first message's)")
    r.add_argument("--effort-channel", choices=("tau_m", "tau_s"), default="tau_m",
                   help="channel of the effort: tau_m (drive torque, joint side; default) or tau_s (torque sensor)")
    for q in (c, r):
        q.add_argument("-o", "--output", required=True, type=output_file, help="the recording to write (.nc)")
        q.add_argument("--robot", required=True, help="the recording's robot (a robot name, or your arm's name)")
        q.add_argument("--sample-rate-hz", type=float, help="rate of the uniform grid (default: from the stamps)")
        q.add_argument("--max-gap-periods", type=float, default=5.0,
                       help="longest step interpolated, in periods (default 5); a longer one is refused")
        q.add_argument("--qd-origin", choices=VELOCITY_ORIGINS, help="where the velocity comes from")
    c.add_argument("--torque-side", choices=("joint", "motor"), help="side of tau_m (required with it)")
    p.set_defaults(func=_run)
    for q in (c, r):
        q.set_defaults(func=_run)
