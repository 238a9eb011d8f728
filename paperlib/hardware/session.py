"""One controlled run on a rig: trajectory, controller, 4 kHz loop, recording (``paperlib run``).

:func:`run_session` is what ``paperlib run --rig {hardware,twin}`` and ``paperlib hardware
selftest`` execute:

1. warm the compiled controller step up (numba loads or compiles it: never inside the loop);
2. open the rig (EtherCAT to OP, drives enabled, IMU streaming), zero it with the proximity
   sensors if asked, and read where the robot is;
3. while a keep-alive thread keeps the drive's process-data watchdog fed: plan the paper's
   random point-to-point trajectory (Table 3 bounds, targets in the well-conditioned polygon,
   ``dwell_s`` at each target) *from the current position*, build the controller
   (:class:`paperlib.control.controllers.Controller`: the same compiled step as the twin's
   loop) and the streaming recording writer (preallocated), collect and freeze the heap;
4. :func:`paperlib.hardware.loop.run_loop` at 4 kHz: each cycle writes the measurement and the
   setpoints into the controller's rows, calls ``Controller.step`` and logs the cycle (grid
   time ``k / 4000``; a late cycle is logged at its slot time, never skipped: the loop's
   default catch-up policy runs every slot, which the writer's uniform time base needs);
5. write the recording (also on a fault or Ctrl-C: everything up to the stop), then add the
   loop's deadline statistics and the link counters to its attributes.

Labels (see :mod:`paperlib.hardware.rig`): a rig with real devices records
``source = "hardware"``; the twin rig and the emulated hardware record ``source = "twin"``
(with the attribute ``rig`` = ``"twin"`` or ``"emulated-hardware"`` and the twin's truth).

Deadlines. The loop's ``deadline_misses`` counts cycles that *started* more than one period
after their deadline. A cycle also has to *finish* in its slot: its command frame must leave
before the next deadline. :func:`run_session` measures that too (``late_commands``: cycles
whose command went out after ``t0 + (k + 1) T``) from the rig's per-cycle timestamps, and
reports ``deadline_met_fraction = 1 - late_commands / cycles`` (the stricter of the two).
"""

from __future__ import annotations

import gc
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from paperlib.control import controllers as ctl
from paperlib.control.step import ST_NONFINITE, ST_SETPOINT_INVALID
from paperlib.estimation.config import EstimatorConfig
from paperlib.hardware.loop import Limits, LoopStats, RunResult, Watchdog, order_problems, run_loop
from paperlib.rig import HasTruth, ImuDelay, Measurement, Rig, RigFault, capabilities

__all__ = ["SessionResult", "ControlStep", "run_session", "controller_config", "summary_problems", "LOOP_ATTRS",
           "command_deadlines"]

#: What a session's recording says about its loop (attributes, besides the estimator's state).
LOOP_ATTRS = ("loop_cycles", "deadline_misses", "late_commands", "lateness_median_us", "lateness_p99_us",
              "lateness_p999_us", "lateness_max_us", "stop_reason", "loop_stats", "link_counters", "rig_timings")


def controller_config(name: str, *, model: int = 3, pi_pds0: Any = None, pi_F0: Any = None,
                      closed_from_start: bool = False, imu_delay_cycles: int = 0,
                      estimator: EstimatorConfig | None = None) -> ctl.ControllerConfig:
    """The controller configuration of a run: ``estimator`` whole (every setting, a warm start's
    P0 included) when given, else the paper's defaults with the warm-start arguments. The IMU
    delay is the rig's (``imu_delay_cycles``), as the twin takes its calibration's."""
    if estimator is None:
        estimator = EstimatorConfig(model=int(model), pi_pds0=pi_pds0, pi_F0=pi_F0, closed_from_start=closed_from_start)
    elif (model, pi_pds0, pi_F0, closed_from_start) != (3, None, None, False):
        raise ValueError("give the estimator settings in one place: estimator= or model/pi_pds0/pi_F0/closed_from_start")
    return ctl.ControllerConfig.from_estimator(name, estimator.replace(imu_delay_cycles=int(imu_delay_cycles)))


#: Bits of the ``sample_faults`` channel (see :class:`ControlStep`).
FAULT_TIMING, FAULT_LINK, FAULT_IMU = 1, 2, 4


class ControlStep:
    """The loop's ``step(measurement, t)``: measurement + setpoints -> ``Controller.step``.

    Preallocated; ``log_channels`` maps the controller channels the loop logs after each
    step (setpoints, estimate, torque parts, IMU age, estimator status).

    Sample timing. The estimator pairs each IMU sample with the encoder angle and the drive
    torque of ``imu_delay_cycles`` before (:mod:`paperlib.control.controllers`), which holds
    only while the cycles keep their period and every sample is fresh. So the update is held
    back (:meth:`~paperlib.control.controllers.Controller.hold_estimation`, for the delay
    plus ``hold_margin_cycles``) after a cycle that started more than half a period off its
    spacing from the previous one (a stall, or the back-to-back cycles that catch up after
    one), a cycle whose EtherCAT frame was lost or stale (encoder and torque held from an
    older cycle: ``rig.consecutive_frame_errors > 0``), or an IMU sample older than
    ``max_imu_age_s`` (a late or lost packet). Control is not affected. ``check_timing=False``
    drops the period check, for an emulated rig in lock-step (its robot advances one cycle per
    frame, so a late cycle pairs the same samples as one on time).
    """

    def __init__(self, controller: ctl.Controller, rig: Rig, q_sp: np.ndarray, qd_sp: np.ndarray,
                 qdd_sp: np.ndarray, rate_hz: float | None = None, *, max_imu_age_s: float = 1.5e-3,
                 hold_margin_cycles: int = 6, check_timing: bool = True) -> None:
        self.c = controller
        self._check_timing = bool(check_timing)
        self.rig = rig
        self.q_sp, self.qd_sp, self.qdd_sp = q_sp, qd_sp, qdd_sp
        self.n = q_sp.shape[0]
        self.rate = float(controller.sample_rate_hz if rate_hz is None else rate_hz)
        self.cur_q = np.zeros(2)
        self.cur_qd = np.zeros(2)
        self.cur_qdd = np.zeros(2)
        self.imu_age = np.zeros(())
        self.status = np.zeros((), dtype=np.int64)
        self.faults = np.zeros((), dtype=np.int64)
        self.log_channels = {
            "q_sp": self.cur_q, "qd_sp": self.cur_qd, "qdd_sp": self.cur_qdd,
            "pi_hat": controller.theta, "tau_parts": controller.parts, "imu_age": self.imu_age,
            "estimator_status": self.status, "sample_faults": self.faults,
        }
        self._meas = controller.meas
        caps = capabilities(rig)  # once, not per cycle
        caps.require("q", "qd", "qdd", analysis="the control step")
        if "tau_m" not in caps.channels and "tau_s" not in caps.channels:
            raise RigFault(f"the control step needs a torque channel (tau_m or tau_s); the rig provides "
                           f"{list(caps.channels)}")
        self._torque = "tau_m" if "tau_m" in caps.channels else "tau_s"
        self._has_age, self._has_link = caps.sample_age, caps.fieldbus_health
        self.max_imu_age_s = float(max_imu_age_s)
        self.hold_cycles = int(controller.config.imu_delay_cycles) + int(hold_margin_cycles)
        self._period_ns = int(round(1e9 / self.rate))
        self._last_ns = 0
        self.holds = 0  # cycles that started a hold (statistics)

    def __call__(self, m: Measurement, t: float) -> np.ndarray:
        k = int(t * self.rate + 0.5)
        if k >= self.n:
            k = self.n - 1
        meas = self._meas
        meas[ctl.M_Q] = m.q
        meas[ctl.M_QD] = m.qd
        meas[ctl.M_QDD] = m.qdd
        meas[ctl.M_TAU] = getattr(m, self._torque)
        qs, qds, qdds = self.q_sp[k], self.qd_sp[k], self.qdd_sp[k]
        meas[ctl.M_Q_SP] = qs
        meas[ctl.M_QD_SP] = qds
        meas[ctl.M_QDD_SP] = qdds
        self.cur_q[:] = qs
        self.cur_qd[:] = qds
        self.cur_qdd[:] = qdds
        now = time.perf_counter_ns()
        gap = now - self._last_ns
        self._last_ns = now
        bad = FAULT_TIMING if self._check_timing and abs(gap - self._period_ns) * 2 > self._period_ns else 0
        if self._has_age:
            a = self.rig.imu_age_s  # type: ignore[attr-defined]
            self.imu_age[()] = a if a < 1e9 else 1e9
            if not a <= self.max_imu_age_s:
                bad |= FAULT_IMU
        if self._has_link and self.rig.consecutive_frame_errors > 0:  # type: ignore[attr-defined]
            bad |= FAULT_LINK
        self.faults[()] = bad
        if bad:
            self.holds += 1
            self.c.hold_estimation(self.hold_cycles)
        tau = self.c.step(t)
        st = self.c.last_status
        self.status[()] = st
        if st == ST_NONFINITE or st == ST_SETPOINT_INVALID:
            raise self.c.fault()  # zero torque was commanded; the loop stops safely and records why
        return tau


@dataclass
class SessionResult(RunResult):
    """Outcome of :func:`run_session`: :class:`~paperlib.hardware.loop.RunResult` and the estimator's results."""

    pi_hat_final: list[float] = field(default_factory=list)
    param_names: list[str] = field(default_factory=list)
    converged_s: float = math.nan


def _channels(names: list[str]) -> dict[str, Any]:
    from paperlib.recordings import Channel

    return {
        "pi_hat": Channel("EWR-RLS estimate (online)", "1", dims=("param",)),
        "tau_parts": Channel("motor torque command parts: dynamic FF, friction FF, feedback", "N m",
                             dims=("part", "joint")),
        "lateness": Channel("start lateness of the control cycle w.r.t. its deadline", "s", dims=()),
        "digital_inputs": Channel("digital inputs (bit k: proximity sensor of joint k + 1)", "1", dims=(),
                                  dtype="int64"),
        "imu_age": Channel("age of the IMU sample used in the cycle (capped at 1e9 s)", "s", dims=()),
        "estimator_status": Channel("estimator status (1 updated, 0 gated, -5 held back, other <0 rejected/off)",
                                    "1", dims=(), dtype="int64"),
        "sample_faults": Channel("sample faults of the cycle (bit 0: off its period, bit 1: EtherCAT frame lost "
                                 "or stale, bit 2: IMU sample too old)", "1", dims=(), dtype="int64"),
    }


@dataclass
class _Sched:
    policy: int = 0
    priority: int = 0
    affinity: set[int] | None = None


def _set_realtime(rt_priority: int, cpu: int | None) -> tuple[_Sched, list[str]]:
    """SCHED_FIFO and/or CPU pinning for the calling thread; returns what to restore and warnings."""
    old = _Sched()
    notes: list[str] = []
    try:
        old.policy = os.sched_getscheduler(0)
        old.priority = os.sched_getparam(0).sched_priority
        old.affinity = os.sched_getaffinity(0)
    except (OSError, AttributeError):
        return old, ["scheduling information unavailable"]
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {int(cpu)})
        except OSError as exc:
            notes.append(f"cannot pin the loop to CPU {cpu}: {exc}")
    if rt_priority > 0:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(rt_priority)))
        except OSError as exc:
            notes.append(f"SCHED_FIFO {rt_priority} not available: {exc}")
    return old, notes


def _restore(old: _Sched) -> None:
    try:
        os.sched_setscheduler(0, old.policy, os.sched_param(old.priority))
    except OSError:
        pass
    if old.affinity:
        try:
            os.sched_setaffinity(0, old.affinity)
        except OSError:
            pass


def _warm_up(robot: Any, cfg: ctl.ControllerConfig) -> None:
    """Load / compile the controller step outside the real-time loop."""
    c = ctl.Controller(robot, cfg, robot.sample_rate_hz)
    q = np.radians([120.0, 60.0])
    c.meas[ctl.M_Q] = q
    c.meas[ctl.M_Q_SP] = q
    c.meas[ctl.M_QD] = 0.2
    for k in range(3):
        c.step(k / robot.sample_rate_hz)


def run_session(
    rig: Rig,
    *,
    controller: str = "AC",
    duration_s: float = 10.0,
    seed: int = 1,
    output: str | os.PathLike[str],
    model: int = 3,
    pi_pds0: Any = None,
    pi_F0: Any = None,
    closed_from_start: bool = False,
    estimator: EstimatorConfig | None = None,
    truth: dict[str, Any] | None = None,
    limits: Limits | None = None,
    watchdog: Watchdog | None = None,
    zero: bool = False,
    rt_priority: int = 0,
    cpu: int | None = None,
    sleep_margin_s: float | None = None,
    dwell_s: float = 0.05,
    extra_attrs: dict[str, Any] | None = None,
    open_rig: bool = True,
    check_timing: bool = True,
    live_mirror: str | os.PathLike[str] | None = None,
    clock: Callable[[], int] | None = None,
    log: Callable[[str], None] | None = None,
) -> SessionResult:
    """Run ``controller`` on ``rig`` for ``duration_s`` along the paper's random trajectory.

    Parameters
    ----------
    rig : Rig
        :class:`~paperlib.hardware.rig.HardwareRig` or :class:`~paperlib.twin.rig.TwinRig`
        (anything with ``robot_model`` and ``imu_rows``/``imu_delay_cycles``).
    controller : {"PD", "CTC", "AC", "OPEN"}
        The paper's controllers (switches of Fig. 1).
    duration_s : float
        Loop duration [s].
    seed : int
        Trajectory seed (and the twin's noise seed for the twin rig).
    output : path-like
        Recording file (``.nc``).
    model : int
        Table 4 friction model of the estimator.
    pi_pds0, pi_F0 : array_like, optional
        Initial estimates (warm start).
    closed_from_start : bool
        Switches (b), (c) closed from t = 0 (needs a warm start).
    estimator : EstimatorConfig, optional
        Every estimator setting at once (instead of ``model``, ``pi_pds0``, ``pi_F0``,
        ``closed_from_start``; a warm start's ``P0`` can only come this way).
    truth : dict, optional
        True values for ``source = "twin"`` recordings (default: the rig's ``truth()``).
    limits, watchdog : optional
        Loop limits (default: the robot's joint range and drive torque limit) and link
        watchdog (default :class:`Watchdog`).
    zero : bool
        Run the rig's zeroing (proximity sensors) after opening it.
    rt_priority, cpu : int
        SCHED_FIFO priority of the loop thread (0 = normal) and CPU to pin it to, for the run.
    sleep_margin_s : float, optional
        run_loop's sleep margin (``None``: busy-wait; with SCHED_FIFO use e.g. 8e-5).
    dwell_s : float
        Dwell at each target [s].
    extra_attrs : dict, optional
        More recording attributes (numbers or strings).
    open_rig : bool
        Open the rig here (False: the caller did).
    check_timing : bool
        Mark cycles off their period as sample faults (see :class:`ControlStep`); False for an
        emulated rig in lock-step.
    live_mirror : path-like, optional
        An empty folder where the recording writer keeps its chunks for a reader in another
        process while the loop runs (:class:`paperlib.recordings.LiveMirror`; ``paperlib run
        --live`` serves a page from it). The recording is the same with and without it.
    clock : callable, optional
        The loop's monotonic clock [ns] (:func:`~paperlib.hardware.loop.run_loop`; default the
        host's). A test gives a simulated one (the loop then busy-waits on it, no sleep).
    log : callable, optional
        Progress messages.

    Returns
    -------
    SessionResult

    Raises
    ------
    RigFault
        When the rig cannot be brought up (no slave, wrong slave, SDO abort, no IMU data,
        zeroing failed) or the robot is outside the planning polygon: nothing is recorded
        then (there is no cycle to record). Faults *during* the loop do not raise: they end
        the run safely and are reported in the result and the recording's ``fault``.
    """
    from paperlib.control.trajectories import random_point_to_point
    from paperlib.recordings import RecordingError, read_recording, validate, write_recording
    from paperlib.control.planning import motion_bounds, planning_polygon

    say = log or (lambda s: None)
    if controller not in ctl.CONTROLLER_SWITCHES:
        raise ValueError(f"unknown controller {controller!r}; choose from {sorted(ctl.CONTROLLER_SWITCHES)}")
    if not duration_s > 0:
        raise ValueError("duration_s must be > 0")
    robot = rig.robot_model  # type: ignore[attr-defined]
    rate = float(rig.sample_rate_hz)  # the rig's control rate (the robot description's)
    desc = robot.description
    cfg = controller_config(controller, model=model, pi_pds0=pi_pds0, pi_F0=pi_F0,
                            closed_from_start=closed_from_start, estimator=estimator,
                            imu_delay_cycles=rig.imu_delay_cycles if isinstance(rig, ImuDelay) else 0)
    t_prep = time.perf_counter()
    _warm_up(robot, cfg)
    polygon = planning_polygon(robot)
    if limits is None:
        lim = desc["limits"]
        limits = Limits(np.radians(lim["q_min_deg"]), np.radians(lim["q_max_deg"]),
                        np.asarray(desc["drives"]["max_torque_Nm"], float))
    watchdog = watchdog or Watchdog()
    n_slots = int(round(duration_s * rate))
    say(f"controller step ready ({time.perf_counter() - t_prep:.2f} s)")
    # A full collection of a large heap holds the GIL for a long time: do it before the rig is up
    # (the keep-alive thread below needs the GIL every millisecond); the loop's own collection
    # then only sees what was allocated since.
    gc.collect()
    gc.freeze()

    writer = None
    try:
        if open_rig:
            t0 = time.perf_counter()
            rig.open()
            say(f"rig open in {time.perf_counter() - t0:.3f} s")
        zeroing = None
        if zero:
            zeroing = rig.zero()  # type: ignore[attr-defined]
            say(f"zeroed: {zeroing.as_dict()}")
        read_now = getattr(rig, "read_idle", None) or rig.read
        q_now = np.array(read_now().q, dtype=float)
        if not bool(polygon.contains(q_now[None, :], tol=1e-9)[0]):
            raise RigFault(
                f"the robot is at q = {np.degrees(q_now).round(2).tolist()} deg, outside the planning polygon "
                f"(box {np.degrees(polygon.box).round(1).tolist()} deg): move it inside before a run")
        keepalive = getattr(rig, "keepalive", None)
        ctx = keepalive() if keepalive is not None else _null()
        with ctx:
            traj = random_point_to_point(polygon, duration_s, seed, motion_bounds(robot), dwell_s=dwell_s, start=q_now)
            _, q_sp, qd_sp, qdd_sp = traj.sample_rate(rate)
            if q_sp.shape[0] < n_slots:  # hold the last setpoint
                pad = n_slots - q_sp.shape[0]
                q_sp = np.vstack([q_sp, np.repeat(q_sp[-1:], pad, axis=0)])
                qd_sp = np.vstack([qd_sp, np.zeros((pad, 2))])
                qdd_sp = np.vstack([qdd_sp, np.zeros((pad, 2))])
            q_sp, qd_sp, qdd_sp = (np.ascontiguousarray(a[:n_slots]) for a in (q_sp, qd_sp, qdd_sp))
            c = ctl.Controller(robot, cfg, rate)
            step = ControlStep(c, rig, q_sp, qd_sp, qdd_sp, rate, check_timing=check_timing)
            source = rig.source
            if truth is None and source == "twin":
                truth = rig.truth() if isinstance(rig, HasTruth) else {
                    "note": "emulated hardware: the master has no access to the emulator's true values"}
            settings = getattr(rig, "settings", None)
            config = {
                "controller": controller, "duration_s": float(duration_s), "seed": int(seed),
                "model": cfg.to_dict()["model"], "pi_pds0": cfg.pi_pds0, "pi_F0": cfg.pi_F0,
                "closed_from_start": bool(cfg.closed_from_start), "estimator": cfg.estimator_config().to_dict(),
                "dwell_s": dwell_s, "trajectory_start_rad": q_now.tolist(),
                "controller_config": {k: v for k, v in asdict(cfg).items() if k not in ("model", "P0")},
                "imu_conversion": np.asarray(getattr(rig, "imu_rows", np.zeros((2, 6)))).tolist(),
                "imu_calibrated": bool(getattr(rig, "imu_calibrated", False)),
                "limits": {"q_min_rad": np.asarray(limits.q_min, float).tolist(),
                           "q_max_rad": np.asarray(limits.q_max, float).tolist(),
                           "tau_max_Nm": np.broadcast_to(np.asarray(limits.tau_max, float), (2,)).tolist()},
                "watchdog": asdict(watchdog),
                "rig_settings": None if settings is None else {k: v for k, v in asdict(settings).items()},
                "zeroing": None if zeroing is None else zeroing.as_dict(),
            }
            attrs = {"rig": getattr(rig, "rig_label", source), "param_names": json.dumps(c.param_names)}
            temperature = bool(getattr(rig, "measures_temperature", False))  # RTD terminals on the chain
            if temperature:
                attrs["channel_sources"] = json.dumps(rig.channel_sources())  # type: ignore[attr-defined]
            identity = getattr(rig, "identity", None)
            if identity:
                attrs["devices"] = json.dumps(identity, default=str)
            attrs.update(extra_attrs or {})
            from paperlib.recordings import LiveMirror, RecordingWriter

            writer = RecordingWriter(
                output, [1, 2], robot=rig.robot, source=source, sample_rate_hz=rate, controller=controller,
                config=config, seed=int(seed) if source == "twin" else None,
                truth=truth if source == "twin" else None, attrs=attrs,
                origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor",
                optional=("temperature",) if temperature else (),
                extra_channels=_channels(c.param_names),
                coords={"param": c.param_names, "part": ["dynamic_ff", "friction_ff", "feedback"]},
                preallocate=n_slots + 2, mirror=None if live_mirror is None else LiveMirror(live_mirror))
            prep = getattr(rig, "prepare_timing", None)
            if callable(prep):
                prep(n_slots)
            gc.collect()
            gc.freeze()
    except BaseException:
        rig.close()
        gc.unfreeze()
        raise

    if clock is not None:
        sleep_margin_s = None  # a simulated clock is read, never slept on
    elif rt_priority > 0 and sleep_margin_s is None:
        sleep_margin_s = 8e-5  # a SCHED_FIFO loop that always spins is stopped by RT throttling
    old, notes = _set_realtime(rt_priority, cpu)
    for n in notes:
        say("warning: " + n)
    say(f"control loop running: {n_slots} cycles at {rate:g} Hz ({controller})")
    try:
        stats = run_loop(rig, step, duration_s, rate, writer, watchdog, limits,
                         log_channels=("q", "qd", "qdd", "tau_m", "tau_tgt", "lateness", "digital_inputs")
                         + (("temperature",) if temperature else ()),
                         sleep_margin_s=sleep_margin_s, open_rig=False, clock=clock)
    finally:
        _restore(old)
        gc.unfreeze()
    say(stats.summary())

    # the stricter deadline: the command of cycle k must leave before t0 + (k + 1) T
    late_commands, send_p99_us, send_max_us = command_deadlines(rig, stats)
    out_path = Path(output)
    recording: Path | None = out_path if out_path.is_file() else None
    valid, err = False, None
    pi_final = c.theta.tolist()
    summary = {
        "cycles": stats.cycles, "deadline_misses": stats.deadline_misses, "stalls": getattr(stats, "stalls", None),
        "late_commands": late_commands,
        "deadline_met_fraction": (1.0 - late_commands / stats.cycles) if stats.cycles else None,
        "lateness_median_us": stats.lateness_median_us, "lateness_p99_us": stats.lateness_p99_us,
        "lateness_p999_us": stats.lateness_p999_us, "lateness_max_us": stats.lateness_max_us,
        "command_offset_p99_us": send_p99_us, "command_offset_max_us": send_max_us,
        "torque_clips": stats.torque_clips, "stop_reason": stats.stop_reason, "fault": stats.fault,
        "elapsed_s": stats.elapsed_s, "converged_s": c.converged_s, "estimator_holds": step.holds,
        "link_counters": stats.rig_counters, "cleanup_errors": stats.cleanup_errors,
        "timings": dict(getattr(rig, "timings", {})),
    }
    summary["report_problems"] = stats.inconsistencies() + summary_problems(summary)
    if recording is not None:
        try:
            ds = read_recording(recording)
            ds.attrs.update({  # every key of LOOP_ATTRS, and the estimator's state
                "converged_s": float(c.converged_s), "loop_cycles": int(stats.cycles),
                "estimator_holds": int(step.holds),
                # the estimator's internal state with its estimate (the paper's warm start), as the twin's
                "estimator_P": json.dumps(c.P.tolist()),
                "deadline_misses": int(stats.deadline_misses), "late_commands": int(late_commands),
                "lateness_median_us": float(stats.lateness_median_us),
                "lateness_p99_us": float(stats.lateness_p99_us),
                "lateness_p999_us": float(stats.lateness_p999_us),
                "lateness_max_us": float(stats.lateness_max_us),
                "stop_reason": stats.stop_reason,
                "loop_stats": json.dumps(stats.as_dict(), default=float),
                "link_counters": json.dumps(stats.rig_counters, default=str),
                "rig_timings": json.dumps(summary["timings"], default=float),
            })
            write_recording(ds, recording)
            validate(read_recording(recording), str(recording))
            valid = True
        except (RecordingError, OSError, ValueError) as exc:
            err = f"{type(exc).__name__}: {exc}"
    else:
        err = "no recording written (fewer than two cycles before the stop)"
    return SessionResult(stats=stats, recording=recording, recording_valid=valid, validation_error=err,
                         fault=stats.fault, stop_reason=stats.stop_reason, summary=summary, pi_hat_final=pi_final,
                         param_names=list(c.param_names), converged_s=c.converged_s)


def summary_problems(summary: Mapping[str, Any]) -> list[str]:
    """What a session summary contradicts in itself; empty when it is consistent.

    Counts beyond the executed cycles, a met fraction outside [0, 1], lateness percentiles out of
    order. How many cycles were late is the host's business and is reported, not checked.
    """
    n = summary["cycles"]
    out = [f"{k} {summary[k]} outside [0, cycles {n}]" for k in ("deadline_misses", "late_commands")
           if not 0 <= summary[k] <= n]
    f = summary["deadline_met_fraction"]
    if n and (f is None or not 0.0 <= f <= 1.0):
        out.append(f"met fraction {f} outside [0, 1]")
    out += order_problems({k: summary[f"lateness_{k}_us"] for k in ("median", "p99", "p999", "max")}, n > 0)
    return out


def command_deadlines(rig: Rig, stats: LoopStats) -> tuple[int, float, float]:
    """Cycles whose command left after the end of their slot; p99 and max command offset [us]."""
    t_read = getattr(rig, "t_read_ns", None)
    t_cmd = getattr(rig, "t_cmd_ns", None)
    n = stats.cycles
    if t_read is None or t_cmd is None or n == 0 or len(t_read) < n:
        return stats.deadline_misses, math.nan, math.nan  # no per-cycle timestamps: the loop's count
    late_us = stats.lateness_us[:n]
    work_us = (t_cmd[:n] - t_read[:n]) * 1e-3
    ok = t_cmd[:n] > 0
    # the command offset from the slot's deadline = start lateness + (read -> command)
    offset = late_us[ok] + work_us[ok]
    period_us = 1e6 / stats.rate_hz
    # cycles with no command (the stopping cycle) are not counted
    late = int(np.count_nonzero(offset > period_us))
    if offset.size == 0:
        return late, math.nan, math.nan
    return late, float(np.percentile(offset, 99)), float(offset.max())


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
