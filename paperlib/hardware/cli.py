"""``paperlib run`` and ``paperlib hardware {probe,selftest,calibrate-imu}``.

* ``paperlib run --rig {hardware,twin} [--config RIG.toml] --controller {PD,CTC,AC,OPEN}
  --duration S --output FILE.nc [--seed N] [--model N] [--pi-pds0 a,b] [--pi-F0 c1,...]
  [--closed-from-start] [--estimator-config FILE.json] [--imu-calibration FILE] [--live [--live-port N]
  [--live-interval S] [--live-linger S]]``: one run of the paper's random
  point-to-point trajectory at 4 kHz under the chosen controller, recorded
  (:func:`paperlib.hardware.session.run_session`). ``--rig hardware`` needs the rig TOML
  (``config/rig.example.toml``); ``--rig twin`` steps the robot's twin in the same loop and needs
  no hardware. Exit status: 0 completed, 1 stopped by a fault (the recording holds everything
  up to it), 2 the rig could not be brought up (nothing recorded), 130 interrupted (Ctrl-C;
  recording kept). ``--live`` serves a page of the run on localhost while it goes
  (:mod:`paperlib.hardware.live_launch` starts ``python -m paperlib.live``, which reads the
  recording writer's live mirror; the recording is the same with and without it).
* ``paperlib hardware probe --interface IF [--netns NS]``: list the EtherCAT slaves.
* ``paperlib hardware selftest [--duration S] [--json OUT]`` (root): the real master, loop and
  controller against the emulated rig in private network namespaces
  (:mod:`paperlib.hardware.selftest`); prints the JSON summary.
* ``paperlib hardware calibrate-imu RECORDING --output CAL.toml``: IMU conversion rows from a
  recording made with the nominal conversion (e.g. a PD run), for ``[imu] calibration_file``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from paperlib.cli_args import output_dir, output_file


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run", help="run a controller on the hardware or the twin at 4 kHz and record it",
        description="One run of the paper's random point-to-point trajectory under PD, CTC or AC, recorded "
                    "(schema paperlib.recording/2). Emulated hardware is recorded as source 'twin'.")
    p.add_argument("--rig", choices=("hardware", "twin"), required=True,
                   help="hardware: the robot over EtherCAT (needs --config); twin: the robot's twin in the same loop")
    p.add_argument("--config", help="rig configuration TOML (required for --rig hardware; see config/rig.example.toml)")
    p.add_argument("--controller", choices=("PD", "CTC", "AC", "OPEN"), default="AC",
                   help="switches of the paper's Fig. 1 (default AC)")
    p.add_argument("--duration", type=float, required=True, help="run length [s]")
    p.add_argument("--output", required=True, type=output_file,
                   help="recording file (.nc; its directory must exist, checked before the rig starts)")
    p.add_argument("--seed", type=int, default=1, help="trajectory seed (and the twin's noise seed)")
    p.add_argument("--model", type=int, default=3, choices=(1, 2, 3, 4, 5),
                   help="Table 4 friction model of the estimator (default 3)")
    p.add_argument("--pi-pds0", type=_floats, default=None, help="initial drive-gain estimates a,b")
    p.add_argument("--pi-F0", type=_floats, default=None, help="initial friction coefficients c1,c2,...")
    p.add_argument("--closed-from-start", action="store_true", help="switches (b), (c) closed from t = 0 (warm start)")
    p.add_argument("--estimator-config", metavar="FILE.json",
                   help="every estimator setting as JSON (EstimatorConfig.to_json: model, half-life, lambda, gates, "
                        "convergence, warm start with P0); replaces --model/--pi-pds0/--pi-F0/--closed-from-start")
    p.add_argument("--imu-calibration", help="IMU calibration TOML (overrides [imu] calibration_file)")
    p.add_argument("--no-zero", action="store_true", help="skip the zeroing even if [zeroing] enabled")
    p.add_argument("--rt-priority", type=int, default=None, help="SCHED_FIFO priority of the loop (default: config)")
    p.add_argument("--json", dest="json_out", type=output_file, help="also write the run summary as JSON")
    p.add_argument("--live", action="store_true",
                   help="serve a live page of the run on localhost (friction curves, drive-gain estimates, tracking "
                        "errors, deadline statistics), read from the recording writer's shared chunks by a separate "
                        "process; the recording is the same with and without it")
    p.add_argument("--live-port", type=int, default=0, metavar="PORT", help="port of the live page (default: a free one)")
    p.add_argument("--live-interval", type=float, default=1.0, metavar="S", help="live page redraw interval [s] (default 1)")
    p.add_argument("--live-linger", type=float, default=0.0, metavar="S",
                   help="keep the live page up this long after the run (default 0; Ctrl-C ends it early)")
    p.set_defaults(func=cmd_run)

    hw = subparsers.add_parser("hardware", help="EtherCAT / IMU rig tools: probe, selftest, calibrate-imu")
    sub = hw.add_subparsers(dest="hardware_command", metavar="SUBCOMMAND")
    pr = sub.add_parser("probe", help="list the EtherCAT slaves on an interface")
    pr.add_argument("--interface", required=True, help="network interface the EtherCAT bus is on (e.g. eth1)")
    pr.add_argument("--netns", default=None, help="network namespace holding the interface")
    pr.add_argument("--json", action="store_true", help="print JSON")
    pr.set_defaults(func=cmd_probe)
    st = sub.add_parser("selftest", help="(root) run the real master + loop + controller against the emulated rig")
    st.add_argument("--duration", type=float, default=12.0, help="controlled run [s] (default 12)")
    st.add_argument("--calibrate", type=float, default=4.0, help="IMU calibration PD run first [s] (0: none)")
    st.add_argument("--controller", choices=("PD", "CTC", "AC", "OPEN"), default="AC",
                    help="controller of the run (default AC)")
    st.add_argument("--seed", type=int, default=1, help="trajectory and noise seed (default 1)")
    st.add_argument("--json", dest="json_out", type=output_file, help="also write the summary to this file")
    st.add_argument("--workdir", type=output_dir, help="directory for the recordings (default: a new temporary one)")
    st.add_argument("--no-zero", action="store_true", help="skip the zeroing (emulator encoder offset 0)")
    st.add_argument("--rt-priority", type=int, default=10,
                    help="SCHED_FIFO priority of the loop during the run (0: normal scheduling; default 10)")
    st.add_argument("--emulator-rt-priority", type=int, default=20,
                    help="SCHED_FIFO priority of the emulator process (0: normal; default 20)")
    st.add_argument("--sleep-margin", type=float, default=8e-5,
                    help="the loop sleeps until this long before a deadline, then spins [s] (default 8e-5; "
                         "negative: always spin)")
    st.add_argument("--max-lost-frames", type=int, default=100,
                    help="watchdog: consecutive bad EtherCAT cycles (default 100 = 25 ms; the rig's default is 20)")
    st.add_argument("--max-imu-age", type=float, default=0.025,
                    help="watchdog: IMU sample age [s] (default 0.025; the rig's default is 0.005)")
    st.add_argument("--cpu", default="auto", help="CPU for the loop ('auto': the last; 'none': no pinning)")
    st.add_argument("--emulator-cpu", default="auto", help="CPU for the emulator ('auto': the first; 'none')")
    st.add_argument("--lockstep", action="store_true",
                    help="host-independent mode for shared machines (CI): the emulated robot advances one control "
                         "cycle per frame, replies may take 50 ms, the IMU may be 0.5 s old and 400 bad cycles in a "
                         "row are tolerated, so a stalled host makes the run late, never different")
    st.add_argument("--rig-file", "--rig", dest="rig_file", default=None,
                    help="rig TOML whose [rig] robot and [[ethercat.slave]] chain the master expects (default "
                         "config/rig.example.toml, the flagship's; config/rigs/ holds the rigs' own files; a rig "
                         "with a [joint] drive train, config/rigs/bearing.toml or config/rigs/three_rrr.toml, runs "
                         "the joint-space self-test around its [rig] twin, paperlib.hardware.joint_selftest; one whose "
                         "twin is \"tx40_campaign\", config/rigs/tx40_thermal.toml, the position-controlled arm's, "
                         "paperlib.hardware.arm_selftest)")
    st.add_argument("--quiet", action="store_true", help="print only the JSON summary")
    st.set_defaults(func=cmd_selftest)
    ci = sub.add_parser("calibrate-imu", help="IMU conversion rows from a recording (nominal IMU conversion)")
    ci.add_argument("recording", help="recording made with the nominal IMU conversion (e.g. a PD run)")
    ci.add_argument("--output", required=True, type=output_file, help="calibration TOML to write")
    ci.set_defaults(func=cmd_calibrate_imu)
    hw.set_defaults(func=lambda args: (hw.print_help(), 2)[1])


#: How long ``paperlib run --live`` waits for its page's server to come up before starting the run [s].
LIVE_START_S = 120.0


def _print(msg: str) -> None:
    print(msg, flush=True)


def cmd_run(args: argparse.Namespace) -> int:
    from paperlib.hardware.loop import Limits, Watchdog
    from paperlib.hardware.rig import HardwareRig, load_imu_calibration, load_rig_settings
    from paperlib.hardware.session import run_session
    from paperlib.rig import RigFault

    rows = load_imu_calibration(args.imu_calibration) if args.imu_calibration else None
    limits = watchdog = None
    rt, cpu, margin = 0, None, None
    zero = False
    if args.rig == "hardware":
        if not args.config:
            print("paperlib run --rig hardware needs --config RIG.toml (see config/rig.example.toml)", file=sys.stderr)
            return 2
        try:
            settings = load_rig_settings(args.config)
        except (OSError, ValueError) as exc:
            print(f"paperlib run: {exc}", file=sys.stderr)
            return 2
        rig: Any = HardwareRig(settings, imu_rows=rows)
        robot = rig.robot_model
        desc = robot.description
        q_min = settings.q_min_deg or desc["limits"]["q_min_deg"]
        q_max = settings.q_max_deg or desc["limits"]["q_max_deg"]
        tau_max = settings.max_torque_Nm or desc["drives"]["max_torque_Nm"]
        limits = Limits(np.radians(q_min), np.radians(q_max), np.asarray(tau_max, float))
        watchdog = Watchdog(max_imu_age_s=settings.max_imu_age_s, max_frame_errors=settings.max_lost_frames)
        rt, cpu, margin = settings.rt_priority, settings.cpu, settings.sleep_margin_s
        zero = settings.zeroing.enabled and not args.no_zero
    else:
        from paperlib.twin.rig import TwinRig

        rig = TwinRig(seed=args.seed, imu_rows=rows)
    if args.rt_priority is not None:
        rt = args.rt_priority
    from paperlib.estimation.config import EstimatorConfig

    try:
        est = EstimatorConfig.read(args.estimator_config) if args.estimator_config else None
        if est is not None and (args.model != 3 or args.pi_pds0 or args.pi_F0 or args.closed_from_start):
            raise ValueError("--estimator-config holds the model and the warm start: do not also give "
                             "--model/--pi-pds0/--pi-F0/--closed-from-start")
    except ValueError as exc:
        print(f"paperlib run: {exc}", file=sys.stderr)
        return 2
    if not args.live_interval > 0:
        print("paperlib run: --live-interval must be > 0", file=sys.stderr)
        return 2
    live = res = None
    if args.live:
        from paperlib.hardware.live_launch import LivePage

        live = LivePage(args.live_port, interval_s=args.live_interval).start()
        _print(f"live page: {live.url} (redrawn every {args.live_interval:g} s; server log {live.log})")
        t_page = time.perf_counter()
        ready = live.wait_ready(LIVE_START_S)  # the server's imports done before the loop starts
        _print(f"live page: {'up' if ready else 'NOT up (see its log); the run goes on without it'} after "
               f"{time.perf_counter() - t_page:.1f} s")
    try:
        res = run_session(rig, controller=args.controller, duration_s=args.duration, seed=args.seed,
                          output=args.output, model=args.model, pi_pds0=args.pi_pds0, pi_F0=args.pi_F0,
                          closed_from_start=args.closed_from_start, estimator=est,
                          limits=limits, watchdog=watchdog, zero=zero,
                          rt_priority=rt, cpu=cpu, sleep_margin_s=margin,
                          live_mirror=None if live is None else live.mirror, log=_print)
    except RigFault as exc:
        print(f"paperlib run: the run could not start: {type(exc).__name__}: {exc}. "
              "Nothing was recorded (drives disabled, link closed).", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("paperlib run: interrupted before the control loop started; nothing recorded", file=sys.stderr)
        return 130
    finally:
        if live is not None and res is None:  # no run to look at: no lingering
            live.stop()
    try:
        return _report_run(args, rig, res)
    finally:
        if live is not None:
            _stop_live(live, args.live_linger if res.stop_reason != "interrupted" else 0.0)


def _report_run(args: argparse.Namespace, rig: Any, res: Any) -> int:
    """Print the run's deadlines, links and recording; the exit status."""
    s = res.summary
    _print(f"deadlines: {s['cycles']} cycles, {s['deadline_misses']} started > 1 period late, "
           f"{s['late_commands']} commands after their slot (met {_pct(s['deadline_met_fraction'])}); lateness "
           f"median {s['lateness_median_us']:.1f} us, p99 {s['lateness_p99_us']:.1f} us, p99.9 "
           f"{s['lateness_p999_us']:.1f} us, max {s['lateness_max_us']:.1f} us")
    if s.get("report_problems"):
        print("paperlib run: the loop's report contradicts itself (a bug, please report it): "
              + "; ".join(s["report_problems"]), file=sys.stderr)
    lc = s.get("link_counters", {})
    if lc:
        _print("links: " + ", ".join(f"{k} {v}" for k, v in lc.items() if not isinstance(v, dict)))
    _print(f"recording: {res.recording} ({'valid' if res.recording_valid else 'INVALID: ' + str(res.validation_error)})"
           f", source = {rig.source}, rig = {getattr(rig, 'rig_label', rig.source)}")
    if res.fault:
        print(f"paperlib run: stopped by a fault: {res.fault}", file=sys.stderr)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({**s, "recording": str(res.recording),
                                                   "recording_valid": res.recording_valid}, indent=2, default=str))
    if res.stop_reason == "interrupted":
        return 130
    return 0 if res.stop_reason == "completed" and res.recording_valid else 1


def _stop_live(live: Any, linger_s: float) -> None:
    """Stop the live page, after ``linger_s`` seconds when the run ended normally (Ctrl-C: at once)."""
    if linger_s > 0 and live.running():
        _print(f"live page: {live.url} stays up {linger_s:g} s (Ctrl-C ends it)")
    try:
        live.stop(linger_s)
    except KeyboardInterrupt:
        live.stop(0.0)


def _pct(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.3f} %"


def cmd_probe(args: argparse.Namespace) -> int:
    from paperlib.hardware.ethercat import EthercatError, probe

    try:
        found = probe(args.interface, args.netns)
    except EthercatError as exc:
        print(f"paperlib hardware probe: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(found, indent=2))
    elif not found:
        print(f"no EtherCAT slave on {args.interface}")
    else:
        for d in found:
            print(f"{d['position']}: {d['name']:<16} vendor 0x{d['vendor']:08X} product 0x{d['product']:08X} "
                  f"rev 0x{d['revision']:08X} state {d['state']} AL status 0x{d['al_status_code']:04X}")
    return 0 if found else 1


def cmd_selftest(args: argparse.Namespace) -> int:
    from paperlib.hardware.selftest import LOCKSTEP_LINK, SelftestUnavailable, selftest

    link = dict(max_lost_frames=args.max_lost_frames, max_imu_age_s=args.max_imu_age)
    if args.lockstep:
        link = dict(LOCKSTEP_LINK, lockstep=True)
    try:
        summary = selftest(args.duration, calibrate_s=args.calibrate, controller=args.controller, seed=args.seed,
                           json_out=args.json_out, rig_file=args.rig_file, workdir=args.workdir,
                           zeroing=not args.no_zero,
                           rt_priority=args.rt_priority, emulator_rt_priority=args.emulator_rt_priority, **link,
                           cpu=_cpu_arg(args.cpu), emulator_cpu=_cpu_arg(args.emulator_cpu),
                           sleep_margin_s=None if args.sleep_margin < 0 else args.sleep_margin, log=None if args.quiet else
                           (lambda s: print(s, file=sys.stderr, flush=True)))
    except SelftestUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("paperlib hardware selftest: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(summary, indent=2))
    ok = summary.get("recording_valid") and not summary.get("fault")
    return 0 if ok else 1


def _cpu_arg(text: str) -> int | None | str:
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    return int(text)


def cmd_calibrate_imu(args: argparse.Namespace) -> int:
    from paperlib.estimation.imu_calibration import calibrate_imu_extended, identity_conversion
    from paperlib.hardware.rig import write_imu_calibration
    from paperlib.recordings import read_recording

    ds = read_recording(args.recording)
    conv = json.loads(ds.attrs.get("config", "{}")).get("imu_conversion")
    if conv is not None and not np.allclose(np.asarray(conv, float), identity_conversion(ds.sizes["joint"])):
        print(f"{args.recording}: recorded with a calibrated IMU conversion {conv}; calibrate from a run made "
              "with the nominal conversion", file=sys.stderr)
        return 2
    valid = ds.sample_faults.values == 0 if "sample_faults" in ds else None  # skip cycles out of step
    cal = calibrate_imu_extended(ds.q.values, ds.qd.values, ds.qdd.values, 1.0 / float(ds.attrs["sample_rate_hz"]),
                                 valid=valid)
    path = write_imu_calibration(args.output, cal.rows, source=str(args.recording))
    print(f"wrote {path}: rows {cal.rows.round(5).tolist()}; RMS residuals gyro {cal.rms_gyro.round(4).tolist()} "
          f"rad/s, accel {cal.rms_accel.round(3).tolist()} rad/s^2")
    return 0
