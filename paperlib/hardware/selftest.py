"""``paperlib hardware selftest``: the real master, loop and controller against the emulated rig.

A lab runs it on a new controller PC before the robot is connected. As root it

1. creates two network namespaces joined by a veth pair (:class:`~paperlib.hardware.netns.NetnsPair`);
2. starts the emulated rig in the "slave" namespace
   (:mod:`paperlib.hardware.emulators.twin_rig`: EK1828-like coupler with the proximity
   sensors, CiA 402 drive in CST mode and the IMU board, all around *one* twin of the
   robot, so the IMU stream shows the motion the drive's torques cause), with an unknown encoder
   offset that only the zeroing can find; the robot, the chain the master expects and the
   emulated chain (:func:`~paperlib.hardware.emulators.rig_chain.emulated_chain`) are the rig
   file's (``rig_file``: ``[rig] robot`` and the ``[[ethercat.slave]]`` tables);
3. in the "master" namespace runs the real code: :class:`~paperlib.hardware.rig.HardwareRig`
   (pysoem/SOEM master to OP, IMU receiver), zeroing with the proximity sensors, then
   (``calibrate_s > 0``) a PD run whose recording calibrates the IMUs against the encoders
   (:func:`paperlib.estimation.imu_calibration.calibrate_imu_extended`, as the paper calibrates
   before identifying), then the requested controller (AC by default) for ``duration_s`` at
   4 kHz, recorded;
4. stops the emulator and removes the namespaces (always, also on errors and Ctrl-C);
5. returns / prints a JSON summary: ``slaves_found``, ``cycles``, ``deadline_misses``,
   ``wkc_errors``, ``imu_packets_lost``, ``recording``, ``recording_valid``, the deadline
   statistics (median, p99, p99.9, max lateness; ``late_commands`` and
   ``deadline_met_fraction``), the final drive-gain estimate against the twin's truth, the
   zeroing error against the emulator's encoder offset, and the link counters.

The recordings are simulated data: they say ``source = "twin"``, ``rig = "emulated-hardware"``
and carry the twin's truth.

Fault injection (for the tests) goes through ``emulator`` (the emulator's config:
``faults``, ``imu_faults``, ``chain``...) and ``start_emulator=False`` (no slave at all).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware import netns
from paperlib.hardware.emulators.rig_chain import emulated_chain
from paperlib.hardware.ethercat_config import found_summary
from paperlib.hardware.rig import (
    IDENTITY_FIELDS,
    HardwareRig,
    RigSettings,
    ZeroingSettings,
    load_rig_settings,
    write_imu_calibration,
)
from paperlib.hardware.selftest_process import EmulatorProcess, SelftestUnavailable
from paperlib.hardware.selftest_process import json_default as _json_default
from paperlib.rig import RigFault

__all__ = ["SelftestUnavailable", "selftest", "EmulatorProcess"]

REPO = Path(__file__).resolve().parents[2]
#: The rig file whose robot and chain the self-test runs by default (the documented example: the flagship's).
DEFAULT_RIG_FILE = REPO / "config" / "rig.example.toml"
IMU_PORT = 5005
HALF_WIDTH_RAD = 0.05


#: Link thresholds of the host-independent mode (``paperlib hardware selftest --lockstep``, the tests): the
#: master waits up to 50 ms for each reply (in lock-step a lost frame would be a cycle the robot did not
#: move: it must not happen because the host was busy), the IMU may be 0.5 s old, 400 bad cycles in a
#: row, the drive's watchdog 1 s. Wide enough that host stalls (measured up to ~50 ms on a 2-core VM with
#: another process keeping a core busy) never trip them; finite, so lasting faults (a pulled cable, a dead
#: board) still stop the run.
LOCKSTEP_LINK: dict[str, Any] = {"receive_timeout_s": 0.05, "max_imu_age_s": 0.5, "max_lost_frames": 400,
                                 "pd_watchdog_s": 1.0}


def _emulator_config(seed: int, overrides: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Emulator config (unknown encoder offsets, proximity sensors near the start pose) and what the test knows."""
    rng = np.random.default_rng(seed + 7919)
    q0_deg = [120.0, 60.0]
    switch_deg = [q0_deg[0] + 3.0, q0_deg[1] + 3.0]  # approached from below (direction +1)
    home_rad = [math.radians(s) + HALF_WIDTH_RAD for s in switch_deg]  # sensor window: home +- half width
    offsets = [int(rng.integers(-2**20, 2**20)), int(rng.integers(-2**20, 2**20))]
    cfg: dict[str, Any] = {
        "seed": int(seed), "q0_deg": q0_deg, "encoder_offset_counts": offsets,
        "proximity": {"home_rad": home_rad, "half_width_rad": HALF_WIDTH_RAD},
    }
    for k, v in (overrides or {}).items():
        cfg[k] = v
    known = {"switch_deg": switch_deg, "encoder_offset_counts": cfg.get("encoder_offset_counts", offsets)}
    return cfg, known


def selftest(
    duration_s: float = 12.0,
    *,
    calibrate_s: float = 4.0,
    controller: str = "AC",
    seed: int = 1,
    json_out: str | os.PathLike[str] | None = None,
    rig_file: str | os.PathLike[str] | None = None,
    workdir: str | os.PathLike[str] | None = None,
    emulator: dict[str, Any] | None = None,
    start_emulator: bool = True,
    zeroing: bool = True,
    max_lost_frames: int = 100,
    max_imu_age_s: float = 0.025,
    receive_timeout_s: float = 1e-4,
    pd_watchdog_s: float = 0.1,
    lockstep: bool = False,
    inject_nan_qd: tuple[float, int] | None = None,
    rt_priority: int = 10,
    emulator_rt_priority: int = 20,
    sleep_margin_s: float | None = 8e-5,
    cpu: int | None | str = "auto",
    emulator_cpu: int | None | str = "auto",
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the self-test (module docstring); returns the JSON summary as a dict.

    Parameters
    ----------
    duration_s : float
        Length of the controlled run [s].
    calibrate_s : float
        Length of the PD run that calibrates the IMUs first [s] (0: nominal IMU conversion).
    controller : str
        Controller of the main run.
    seed : int
        Trajectory and twin seed.
    json_out : path-like, optional
        Also write the summary there.
    rig_file : path-like, optional
        Rig TOML whose ``[rig] robot`` and ``[[ethercat.slave]]`` chain the master expects
        (:data:`paperlib.hardware.rig.IDENTITY_FIELDS`; default :data:`DEFAULT_RIG_FILE`); the
        interfaces, thresholds and zeroing are the self-test's own.
    workdir : path-like, optional
        Where the recordings go (default: a new temporary directory, kept).
    emulator : dict, optional
        Emulator config overrides (fault injection).
    start_emulator : bool
        False: no slave on the link (the "no slave" fault).
    zeroing : bool
        Zero with the proximity sensors (otherwise the emulator's encoder offset is zero).
    max_lost_frames, max_imu_age_s : int, float
        Watchdog thresholds: consecutive bad EtherCAT cycles and IMU sample age [s]. Default 100
        (25 ms) and 25 ms, five times the rig's defaults (20 frames, 5 ms): the emulated devices
        are one Python process on a 2-core VM whose host steals CPU time (20-40 ms per 25-s run),
        and the emulator and the loop were measured to pause for 5-18 ms now and then even under
        SCHED_FIFO on their own CPUs (an 8-ms pause of the emulator loses ~44 frames in a row:
        it then answers the backlog of stale frames). Such a pause is not a fault of the
        master under test. The fault tests still check that the watchdog stops the run.
        The test suite widens both further (``tests/layers/hardware/test_hardware_rig.py``): there a host
        stall may make a run late, never stop it.
    receive_timeout_s : float
        How long the master waits for a process-data reply before counting the frame lost
        [s] (the rig's default, 100 us, on a real controller PC; the tests wait longer so that
        a stalled emulator makes the loop late instead of losing frames).
    pd_watchdog_s : float
        The emulated drive's process-data watchdog [s]: it disables the axes when no frame
        came for this long.
    lockstep : bool
        The emulated robot advances exactly one control cycle per process-data frame and never
        on its own (:mod:`paperlib.hardware.emulators.twin_rig`): a stalled host makes the run
        late, never different. For tests on shared machines; a lab's self-test keeps the
        real-time default.
    inject_nan_qd : (float, int), optional
        Fault injection: the master turns joint ``j``'s (1-based) rate sample at ``t_s`` of each
        run into NaN (:attr:`paperlib.hardware.rig.RigSettings.inject_nan_qd`): the run must stop
        safely with a valid recording whose ``fault`` names it.
    rt_priority, emulator_rt_priority : int
        SCHED_FIFO priorities of the loop thread (during the loop only) and of the emulator
        process (0: normal scheduling). Default 10 and 20: on a 2-core machine shared by the
        master, the emulator and anything else, normal scheduling time-slices the busy loop
        away for milliseconds (measured: 98.5 % of cycles on time instead of 99.9 %).
    sleep_margin_s : float, optional
        The loop sleeps until this long before each deadline, then spins (None: always spin).
        Under SCHED_FIFO a loop must not spin all the time: the kernel's RT throttling would
        stop it for 50 ms every second. 80 us leaves the loop ~50 % of a core.
    cpu, emulator_cpu : int or None or "auto"
        CPUs to pin the loop thread (during the loop) and the emulator to. "auto": the last
        CPU for the loop and CPU 0 for the emulator when there are at least two, so the two
        SCHED_FIFO processes never share a CPU (together they would exceed the kernel's RT
        budget of 95 % of a CPU and be throttled for up to 50 ms); None: no pinning.
    log : callable, optional
        Progress messages (e.g. ``print``).

    Raises
    ------
    SelftestUnavailable
        Not root / no network namespaces.
    """
    say = log or (lambda s: None)
    identity = load_rig_settings(DEFAULT_RIG_FILE if rig_file is None else rig_file)
    if identity.joint is not None:  # a joint-space rig without IMU (single joint, 3-RRR): its own self-test
        from paperlib.hardware.joint_selftest import selftest_joint

        return selftest_joint(identity, duration_s=duration_s, seed=seed, json_out=json_out, workdir=workdir,
                              emulator=emulator, start_emulator=start_emulator, max_lost_frames=max_lost_frames,
                              receive_timeout_s=receive_timeout_s, pd_watchdog_s=pd_watchdog_s, lockstep=lockstep,
                              log=log)
    if identity.twin == "tx40_campaign":  # a position-controlled arm (the warm-up campaign's): its own self-test
        from paperlib.hardware.arm_selftest import selftest_arm

        return selftest_arm(identity, duration_s=duration_s, seed=seed, json_out=json_out, workdir=workdir,
                            emulator=emulator, start_emulator=start_emulator, max_lost_frames=max_lost_frames,
                            receive_timeout_s=receive_timeout_s, pd_watchdog_s=pd_watchdog_s, lockstep=lockstep,
                            log=log)
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(ncpu))
    if cpu == "auto":
        cpu = cpus[-1] if ncpu >= 2 else None
    if emulator_cpu == "auto":
        emulator_cpu = cpus[0] if ncpu >= 2 else None
    reason = netns.unavailable_reason()
    if reason:
        raise SelftestUnavailable(f"paperlib hardware selftest {reason}")
    wd = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_selftest_"))
    wd.mkdir(parents=True, exist_ok=True)
    overrides = dict(emulator or {})
    overrides.setdefault("robot", identity.robot)  # the emulated robot is the rig file's
    overrides.setdefault("chain", emulated_chain(identity.chain, identity.axes, identity.terminals))  # and its chain
    if lockstep:
        overrides.setdefault("lockstep", True)
    if not zeroing:
        overrides.setdefault("encoder_offset_counts", [0, 0])
    emu_cfg, known = _emulator_config(seed, overrides)
    summary: dict[str, Any] = {
        "slaves_found": 0, "slaves": [], "cycles": 0, "deadline_misses": None, "wkc_errors": None,
        "imu_packets_lost": None, "recording": None, "recording_valid": False, "fault": None,
        "stop_reason": None, "workdir": str(wd), "controller": controller, "duration_s": duration_s,
        "calibrate_s": calibrate_s, "seed": seed, "lockstep": bool(lockstep),
        "rig_file": identity.source_file, "robot": identity.robot,
    }
    t_start = time.perf_counter()
    steal0 = _steal_ms()
    emu: EmulatorProcess | None = None
    with netns.NetnsPair() as pair:
        try:
            summary["namespaces"] = dict(pair.ns)
            if start_emulator:
                t0 = time.perf_counter()
                emu = EmulatorProcess(pair, emu_cfg, (pair.ip["master"], IMU_PORT), rt_priority=emulator_rt_priority,
                                      cpu=emulator_cpu, workdir=wd)
                summary["emulator_start_s"] = round(time.perf_counter() - t0, 3)
                say(f"emulated rig started in {summary['emulator_start_s']} s (pid {emu.info.get('pid')})")
            truth = emu.info.get("truth") if emu else None
            z = ZeroingSettings(enabled=zeroing, switch_angle_deg=tuple(known["switch_deg"]), direction=(1, 1),
                                velocity_deg_s=10.0, max_torque_Nm=2.0, travel_max_deg=15.0, timeout_s=5.0)
            settings = RigSettings(
                **{k: getattr(identity, k) for k in IDENTITY_FIELDS},
                interface=pair.ifname["master"], name="selftest", emulated=True, netns=pair.ns["master"],
                udp_port=IMU_PORT, bind_address=pair.ip["master"], source_address=pair.ip["slave"],
                max_lost_frames=max_lost_frames, max_imu_age_s=max_imu_age_s, pd_watchdog_s=pd_watchdog_s, zeroing=z,
                imu_wait_s=3.0, receive_timeout_s=receive_timeout_s, inject_nan_qd=inject_nan_qd)
            from paperlib.hardware.loop import Watchdog
            from paperlib.hardware.session import run_session

            wdog = Watchdog(max_imu_age_s=max_imu_age_s, max_frame_errors=max_lost_frames)
            common = dict(truth=truth, watchdog=wdog, rt_priority=rt_priority, sleep_margin_s=sleep_margin_s, cpu=cpu,
                          check_timing=not lockstep, log=say)
            summary["scheduling"] = {"loop_rt_priority": rt_priority, "loop_cpu": cpu, "sleep_margin_s": sleep_margin_s,
                                     "emulator_rt_priority": emulator_rt_priority, "emulator_cpu": emulator_cpu}
            _runs(run_session, settings, z, summary, known, wd, controller, duration_s, calibrate_s, seed, zeroing,
                  common)
        except (RigFault, RuntimeError, OSError, ValueError) as exc:
            summary["fault"] = f"{type(exc).__name__}: {exc}"
            summary["stop_reason"] = "bring-up fault" if summary["cycles"] == 0 else "fault"
            say("fault: " + summary["fault"])
        except KeyboardInterrupt:
            summary["fault"] = "interrupted (Ctrl-C) outside the control loop: nothing more recorded"
            summary["stop_reason"] = "interrupted"
            say(summary["fault"])
        finally:
            if emu is not None:
                if summary.get("stop_reason") == "fault" and summary["cycles"] > 0:
                    # a link fault: give the drive's own process-data watchdog time to act before its
                    # state is read (the report then says what the drive did, whatever the host's pace)
                    time.sleep(1.5 * pd_watchdog_s)
                summary["emulator"] = _emulator_report(emu.stop())
    steal1 = _steal_ms()
    if steal0 is not None and steal1 is not None:
        summary["host_steal_ms"] = steal1 - steal0
    return _finish(summary, None, json_out, t_start, say)


def _steal_ms() -> float | None:
    """CPU time stolen by the hypervisor so far, all CPUs [ms] (/proc/stat; None if unknown)."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
        return float(fields[8]) * 1000.0 / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _runs(run_session: Any, settings: RigSettings, z: ZeroingSettings, summary: dict[str, Any], known: dict[str, Any],
          wd: Path, controller: str, duration_s: float, calibrate_s: float, seed: int, zeroing: bool,
          common: dict[str, Any]) -> None:
    """The calibration run (optional) and the main run; results go into ``summary``."""
    truth = common.get("truth")
    rows = None
    zero_now = zeroing
    if calibrate_s > 0:
        rig = HardwareRig(settings)
        res = _session(run_session, rig, summary, "calibration", controller="PD", duration_s=calibrate_s,
                       seed=seed + 1_000_003, output=wd / "calibration.nc", zero=zero_now, **common)
        zero_now = False
        if rig.zeroing is not None:
            summary["zeroing"] = _zeroing_report(rig, known)
        if res.fault or not res.recording_valid:
            summary.update(_main_keys(res, rig))
            summary["fault"] = f"calibration run: {res.fault or res.validation_error}"
            return
        rows = _calibrate(res.recording, wd, summary)
        settings = replace(settings, position_offset_deg=tuple(np.degrees(rig.offset).tolist()),
                           zeroing=replace(z, enabled=False))
    rig = HardwareRig(settings, imu_rows=rows)
    res = _session(run_session, rig, summary, "run", controller=controller, duration_s=duration_s, seed=seed,
                   output=wd / "selftest.nc", zero=zero_now, **common)
    if rig.zeroing is not None:
        summary["zeroing"] = _zeroing_report(rig, known)
    summary.update(_main_keys(res, rig))
    summary["estimate"] = _estimate_report(res, truth)


def _session(run_session: Any, rig: HardwareRig, summary: dict[str, Any], what: str, **kw: Any) -> Any:
    try:
        return run_session(rig, **kw)
    finally:
        _note_bringup(summary, rig)


def _note_bringup(summary: dict[str, Any], rig: HardwareRig) -> None:
    m = rig.master
    if m is not None and m.found:
        summary["slaves_found"] = len(m.found)
        summary["slaves"] = found_summary(m.found, m.config.chain)
        if "op_s" in m.timings:
            summary.setdefault("time_to_op_s", round(m.timings["op_s"], 4))
            summary.setdefault("time_to_enabled_s", round(m.timings.get("enabled_s", math.nan), 4))
        summary["expected_wkc"] = m.expected_wkc
        summary["soem_expected_wkc"] = m.soem_expected_wkc
        summary["distributed_clocks"] = m.has_dc
    if rig.identity:
        summary["drive_software_version"] = rig.identity.get("software_version")
        summary["emulated"] = bool(rig.emulated)


def _main_keys(res: Any, rig: HardwareRig) -> dict[str, Any]:
    s = res.summary
    lc = s.get("link_counters", {})
    return {
        "cycles": s["cycles"], "deadline_misses": s["deadline_misses"], "stalls": s.get("stalls"),
        "late_commands": s["late_commands"], "deadline_met_fraction": s["deadline_met_fraction"],
        "lateness_median_us": s["lateness_median_us"], "lateness_p99_us": s["lateness_p99_us"],
        "lateness_p999_us": s["lateness_p999_us"], "lateness_max_us": s["lateness_max_us"],
        "command_offset_p99_us": s["command_offset_p99_us"], "command_offset_max_us": s["command_offset_max_us"],
        "report_problems": s["report_problems"],
        "wkc_errors": lc.get("wkc_errors"), "lost_frames": lc.get("lost_frames"),
        "max_consecutive_wkc_errors": lc.get("max_consecutive_wkc_errors"),
        "stale_replies": lc.get("stale_replies"), "flushed_replies": lc.get("flushed_replies"),
        "imu_packets_lost": lc.get("imu_lost"), "imu_valid": lc.get("imu_valid"),
        "imu_malformed": lc.get("imu_malformed"), "imu_foreign": lc.get("imu_foreign"),
        "imu_malformed_reasons": lc.get("imu_malformed_reasons"),
        "torque_clips": s["torque_clips"], "fault": s["fault"], "stop_reason": s["stop_reason"],
        "recording": None if res.recording is None else str(res.recording), "recording_valid": res.recording_valid,
        "validation_error": res.validation_error, "converged_s": s["converged_s"],
        "estimator_holds": s.get("estimator_holds"),
        "cleanup_errors": s["cleanup_errors"], "source": rig.source, "rig": rig.rig_label,
    }


def _calibrate(recording: Path, wd: Path, summary: dict[str, Any]) -> np.ndarray:
    from paperlib.estimation.imu_calibration import IC_DELAY, calibrate_imu_extended
    from paperlib.recordings import read_recording

    ds = read_recording(recording)
    valid = ds.sample_faults.values == 0 if "sample_faults" in ds else None
    cal = calibrate_imu_extended(ds.q.values, ds.qd.values, ds.qdd.values, 1.0 / float(ds.attrs["sample_rate_hz"]),
                                 valid=valid)
    path = write_imu_calibration(wd / "imu_calibration.toml", cal.rows, source=str(recording))
    summary["imu_calibration"] = {"file": str(path), "rows": cal.rows.round(5).tolist(),
                                  "delay_cycles": cal.rows[:, IC_DELAY].tolist(),
                                  "samples_excluded": 0 if valid is None else int((~valid).sum()),
                                  "rms_gyro_rad_s": cal.rms_gyro.tolist(), "rms_accel_rad_s2": cal.rms_accel.tolist()}
    return cal.rows


def _zeroing_report(rig: HardwareRig, known: dict[str, Any]) -> dict[str, Any]:
    z = rig.zeroing
    assert z is not None
    cpr = float(rig.robot_model.description["sensors"]["encoder_counts_per_motor_rev"])
    true_offset = -np.asarray(known["encoder_offset_counts"], float) * 2 * math.pi / cpr / rig.gear
    err = z.offset_rad - true_offset
    return {**z.as_dict(), "true_offset_deg": np.degrees(true_offset).tolist(), "error_deg": np.degrees(err).tolist()}


def _estimate_report(res: Any, truth: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"param_names": res.param_names[:2], "pi_pds_final": res.pi_hat_final[:2],
                           "converged_s": res.converged_s}
    if truth and "pi_pds" in truth:
        true = np.asarray(truth["pi_pds"], float)
        out["pi_pds_true"] = true.tolist()
        out["pi_pds_rel_error_final"] = (np.asarray(res.pi_hat_final[:2]) / true - 1.0).tolist()
        if res.recording is not None and res.recording_valid:
            from paperlib.recordings import read_recording

            ds = read_recording(res.recording)
            t = ds["time"].values
            pi = ds["pi_hat"].values[:, :2]
            for ts in (5.0, 10.0):
                if t[-1] >= ts:
                    k = int(np.searchsorted(t, ts))
                    out[f"pi_pds_rel_error_at_{ts:g}s"] = (pi[k] / true - 1.0).tolist()
    return out


def _emulator_report(stats: dict[str, Any]) -> dict[str, Any]:
    keep = {k: stats.get(k) for k in ("returncode", "serve", "imu", "twin", "drive", "wall_s", "stderr") if k in stats}
    return keep


def _finish(summary: dict[str, Any], emu: EmulatorProcess | None, json_out: Any, t_start: float,
            say: Callable[[str], None]) -> dict[str, Any]:
    if emu is not None:
        summary["emulator"] = _emulator_report(emu.stop())
    summary["wall_s"] = round(time.perf_counter() - t_start, 2)
    if json_out is not None:
        Path(json_out).write_text(json.dumps(summary, indent=2, default=_json_default) + "\n")
    return json.loads(json.dumps(summary, default=_json_default))
