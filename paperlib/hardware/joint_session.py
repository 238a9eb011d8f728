"""One run of a joint-space rig (:class:`~paperlib.hardware.joint_rig.JointRig`): impedance moves, loop, recording.

The bearing room turns its joint (and a grasped wheel bearing) with joint impedance control along
back-to-back trapezoidal-velocity moves (paper 004, Sec. 3.1.2;
:func:`paperlib.twin.robots.torque_joint.trapezoidal_moves`). :func:`run_joint_session` runs that on
the rig through the one real-time loop (:func:`paperlib.hardware.loop.run_loop`)::

    tau_joint = kp (q0 + q_sp - q) + kd (qd_sp - qd)        tau_motor = tau_joint / N

and writes a schema-2 recording of ``q``, ``qd`` (the drive's velocity), ``tau_m``, ``tau_tgt``, the
setpoints and every terminal channel of the joints (``tau_s``, ``tau_ref``, ``temperature``), whose
attribute ``channel_sources`` says which device, terminal and channel each came from (units,
sensor ratings, filter, tare). A fault (a terminal's error bit, a lost link, the joint range) ends
the run safely; the recording holds every cycle up to it and names the fault.

A rig of several axes runs the same law on every axis, each with its own setpoints. A caller that
has its own joint-space experiment (absolute setpoints, feed-forward torques, gains, a velocity
estimated from the encoder as a drive's position loop does: the 3-RRR's sampling run) passes it
as a :class:`JointReference`; the loop, the recording writer and the checks are the same.
"""

from __future__ import annotations

import gc
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware.joint_rig import JointRig
from paperlib.hardware.loop import FreeRunClock, Limits, LoopStats, RunResult, Watchdog, run_loop
from paperlib.hardware.session import command_deadlines

__all__ = ["JointSessionResult", "JointReference", "ImpedanceStep", "run_joint_session", "run_drive_session",
           "finish_run"]


@dataclass
class JointReference:
    """A joint-space experiment for :func:`run_joint_session`, sampled at the rig's loop rate.

    Attributes
    ----------
    q_sp, qd_sp : ndarray, shape (n, n_joints)
        Setpoints [rad, rad/s] (joint side); absolute angles unless ``relative``.
    kp, kd : array_like, shape (n_joints,) or float
        Joint gains [N m/rad, N m s/rad] (joint side).
    tau_ff : ndarray, shape (n, n_joints), optional
        Joint-side feed-forward torque [N m] (default none).
    qdd_sp : ndarray, shape (n, n_joints), optional
        Setpoint accelerations [rad/s^2], recorded only (default zeros).
    relative : bool
        Setpoints relative to the start angles (as the impedance moves are).
    velocity_filter_s : float, optional
        Estimate the joint rates from the encoder angles by a backward difference through a
        first-order filter of this time constant [s] (a drive's position loop); None: the
        drive's velocity 0x606C.
    controller : str
        The recording's controller name.
    config : dict
        What else the recording's run configuration says about the experiment.
    """

    q_sp: np.ndarray
    qd_sp: np.ndarray
    kp: Any
    kd: Any
    tau_ff: np.ndarray | None = None
    qdd_sp: np.ndarray | None = None
    relative: bool = False
    velocity_filter_s: float | None = None
    controller: str = "joint PD"
    config: dict[str, Any] = field(default_factory=dict)


class ImpedanceStep:
    """The loop's ``step(measurement, t)``: joint impedance control along preallocated setpoints.

    Parameters
    ----------
    q_sp, qd_sp, qdd_sp : ndarray, shape (n,) or (n, n_joints)
        Setpoints relative to the start angles (:attr:`q0`) [rad, rad/s, rad/s^2] at ``k / rate_hz``.
    rate_hz : float
        Loop rate [Hz].
    gear_ratio : float
        Motor / joint angle.
    kp, kd : float or array_like, shape (n_joints,)
        Joint gains [N m/rad], [N m s/rad].
    signals : sequence of str
        Terminal channels of the measurement to log (``tau_s``, ``tau_ref``, ``temperature``).
    tau_ff : ndarray, shape (n,) or (n, n_joints), optional
        Joint-side feed-forward torque [N m] added to the impedance torque (with ``kp = kd = 0`` an
        open-loop torque profile: the bearing room's no-load run).
    velocity_filter_s : float, optional
        The rate fed back: None, the measurement's ``qd`` (the drive's); otherwise the backward
        difference of ``q`` through a first-order filter of this time constant [s] (zero at the
        first cycle).
    """

    def __init__(self, q_sp: np.ndarray, qd_sp: np.ndarray, qdd_sp: np.ndarray, rate_hz: float, gear_ratio: float,
                 kp: Any, kd: Any, signals: tuple[str, ...] = (), tau_ff: np.ndarray | None = None,
                 velocity_filter_s: float | None = None) -> None:
        def cols(a: np.ndarray) -> np.ndarray:
            a = np.asarray(a, float)
            return a.reshape(a.shape[0], -1)

        self.q_sp, self.qd_sp, self.qdd_sp = cols(q_sp), cols(qd_sp), cols(qdd_sp)
        n, nj = self.q_sp.shape
        self.n_joints = nj
        self.tau_ff = np.zeros((n, nj)) if tau_ff is None else cols(tau_ff)
        self.rate, self.gear = float(rate_hz), float(gear_ratio)
        self.kp = [float(v) for v in np.broadcast_to(np.asarray(kp, float), (nj,))]
        self.kd = [float(v) for v in np.broadcast_to(np.asarray(kd, float), (nj,))]
        self.alpha = None if velocity_filter_s is None else (1.0 / self.rate) / (float(velocity_filter_s) + 1.0 / self.rate)
        self.v_est = [0.0] * nj
        self._q_prev: list[float] | None = None
        self.q0 = np.zeros(nj)
        self.tau = np.zeros(nj)
        self.cur = {k: np.zeros(nj) for k in ("q_sp", "qd_sp", "qdd_sp", *signals)}
        self.signals = signals
        self.log_channels = self.cur

    def __call__(self, m: Any, t: float) -> np.ndarray:
        k = min(int(t * self.rate + 0.5), self.q_sp.shape[0] - 1)
        cur = self.cur
        for name in self.signals:
            cur[name][:] = getattr(m, name)
        alpha = self.alpha
        first = self._q_prev is None
        for j in range(self.n_joints):
            q_sp = self.q0[j] + self.q_sp[k, j]
            qd_sp = self.qd_sp[k, j]
            cur["q_sp"][j], cur["qd_sp"][j], cur["qdd_sp"][j] = q_sp, qd_sp, self.qdd_sp[k, j]
            q = m.q[j]
            if alpha is None:
                v = m.qd[j]
            else:  # the drive's position loop: filtered backward difference of the encoder
                if not first:
                    self.v_est[j] += alpha * ((q - self._q_prev[j]) * self.rate - self.v_est[j])  # type: ignore[index]
                v = self.v_est[j]
            self.tau[j] = (self.kp[j] * (q_sp - q) + self.kd[j] * (qd_sp - v) + self.tau_ff[k, j]) / self.gear
        if alpha is not None:
            if first:
                self._q_prev = [0.0] * self.n_joints
            for j in range(self.n_joints):
                self._q_prev[j] = m.q[j]  # type: ignore[index]
        return self.tau


#: Outcome of :func:`run_joint_session` (the loop's statistics, the recording, how the run ended).
JointSessionResult = RunResult


def run_joint_session(
    rig: JointRig,
    *,
    duration_s: float = 6.0,
    output: str | os.PathLike[str],
    seed: int = 1,
    distances_rad: tuple[float, ...] = (math.pi, -math.pi),
    v_max: float = 1.5,
    a_max: float = 6.0,
    dwell_s: float = 0.5,
    tau_ff: np.ndarray | None = None,
    reference: JointReference | None = None,
    truth: dict[str, Any] | None = None,
    watchdog: Watchdog | None = None,
    sleep_margin_s: float | None = None,
    log: Callable[[str], None] | None = None,
) -> JointSessionResult:
    """Open the rig, run the impedance moves for ``duration_s`` and write the recording (module docstring).

    Parameters
    ----------
    rig : JointRig
        Not yet opened.
    duration_s : float
        Loop duration [s] (the moves are cut or the last setpoint held to fit).
    output : path-like
        Recording (``.nc``).
    seed : int
        Recorded as the run's seed (a twin's recording needs one).
    distances_rad, v_max, a_max, dwell_s : optional
        The moves: signed lengths [rad], cruise velocity [rad/s], acceleration [rad/s^2], dwell [s].
    tau_ff : ndarray, shape (n,), optional
        Instead of the moves, an open-loop joint torque profile [N m] at the loop rate (no setpoints,
        impedance gains zero: the bearing room's no-load run); cut or padded with zeros to fit.
    reference : JointReference, optional
        Instead of both, the caller's own experiment (cut, or its last setpoint held, to fit).
    truth : dict, optional
        True values (an emulated rig's twin) for a ``source = "twin"`` recording.
    watchdog : Watchdog, optional
        Link thresholds (no IMU: its age is not checked).
    sleep_margin_s : float, optional
        :func:`run_loop`'s sleep margin.
    log : callable, optional
        Progress messages.

    Raises
    ------
    RigFault
        When the rig cannot be brought up (nothing recorded).
    """
    from paperlib.recordings import RecordingWriter
    from paperlib.twin.robots.torque_joint import trapezoidal_moves

    say = log or (lambda s: None)
    rate = float(rig.sample_rate_hz)
    tr = rig.train
    n = int(round(duration_s * rate))
    nj = int(rig.n_joints)
    kp, kd = tr.kp_Nm_per_rad, tr.kd_Nm_s_per_rad
    if reference is not None:
        step = _reference_step(reference, n, nj, rate, tr.gear_ratio, rig.channels)
        ff = step.tau_ff
        controller = reference.controller
    elif tau_ff is not None:  # open-loop torque profile: no setpoints, no impedance
        ff = np.asarray(tau_ff, float)
        ff = np.r_[ff, np.zeros(max(0, n - ff.shape[0]))][:n]
        q_sp = qd_sp = qdd_sp = np.zeros(n)
        kp = kd = 0.0
    else:
        ff = None
        q_sp, qd_sp, qdd_sp = trapezoidal_moves(tuple(distances_rad), v_max=v_max, a_max=a_max, dwell_s=dwell_s,
                                                fs=rate)
    signals = tuple(c for c in rig.channels if c in ("tau_s", "tau_ref", "temperature"))
    if reference is None:
        m0 = q_sp.shape[0]  # the moves' length (before the last setpoint is held to fill the run)
        if q_sp.shape[0] < n:
            pad = n - q_sp.shape[0]
            q_sp = np.r_[q_sp, np.full(pad, q_sp[-1])]
            qd_sp, qdd_sp = np.r_[qd_sp, np.zeros(pad)], np.r_[qdd_sp, np.zeros(pad)]
        step = ImpedanceStep(_in_turn(q_sp, n, nj, m0), _in_turn(qd_sp, n, nj, m0), _in_turn(qdd_sp, n, nj, m0),
                             rate, tr.gear_ratio, kp, kd, signals, tau_ff=None if ff is None else _in_turn(ff, n, nj, m0))
        controller = "impedance" if ff is None else "torque profile"
    limits = Limits(math.radians(tr.q_min_deg), math.radians(tr.q_max_deg), tr.max_motor_torque_Nm)
    watchdog = watchdog or Watchdog(max_imu_age_s=None)
    started: dict[str, Any] = {}

    def at_start() -> None:
        start = np.array(rig.read_idle().q, dtype=float)
        if reference is None or reference.relative:
            step.q0[:] = start
        started["rad"] = float(start[0]) if nj == 1 else start.tolist()

    def make_writer() -> Any:
        source, start_rad = rig.source, started["rad"]
        if reference is not None:
            config = {"controller": reference.controller, "duration_s": float(duration_s),
                      "kp_Nm_per_rad": list(step.kp), "kd_Nm_s_per_rad": list(step.kd),
                      "velocity_filter_s": reference.velocity_filter_s, "relative_setpoints": reference.relative,
                      **reference.config, "start_rad": start_rad}
        else:
            config = {"controller": "joint impedance" if ff is None else "torque profile",
                      "duration_s": float(duration_s),
                      "distances_rad": list(distances_rad) if ff is None else [], "v_max_rad_s": v_max,
                      "a_max_rad_s2": a_max, "dwell_s": dwell_s, "start_rad": start_rad}
        config.update({"joint_train": asdict(tr), "watchdog": asdict(watchdog),
                       "rig_file": rig.settings.source_file})
        attrs = {"rig": rig.rig_label, "channel_sources": json.dumps(rig.channel_sources()),
                 "devices": json.dumps(rig.identity, default=str)}
        return RecordingWriter(
            output, list(range(1, nj + 1)), robot=rig.robot, source=source, sample_rate_hz=rate,
            controller=controller, config=config,
            seed=int(seed) if source == "twin" else None,
            truth=(truth or {"note": "emulated hardware"}) if source == "twin" else None, attrs=attrs,
            channels=("q", "qd", "tau_m", "tau_tgt", "q_sp", "qd_sp", "qdd_sp", *signals),
            origins={"qd": "drive"}, torque_side="motor", preallocate=n + 2)

    return run_drive_session(rig, step, duration_s=duration_s, n=n, rate=rate, output=output, watchdog=watchdog,
                             limits=limits, log_channels=("q", "qd", "tau_m", "tau_tgt"), at_start=at_start,
                             make_writer=make_writer, sleep_margin_s=sleep_margin_s, say=say)


def run_drive_session(rig: Any, step: Any, *, duration_s: float, n: int, rate: float,
                      output: str | os.PathLike[str], watchdog: Watchdog, limits: Limits,
                      log_channels: tuple[str, ...], at_start: Callable[[], None], make_writer: Callable[[], Any],
                      sleep_margin_s: float | None, say: Callable[[str], None],
                      clock: Callable[[], int] | None = None) -> RunResult:
    """What every drive-and-terminals session does around its experiment (joint space, arm).

    The heap is collected and frozen before the bring-up (a full collection holds the GIL for long:
    not while the keep-alive thread must feed the drives' watchdog, as ``run_session`` does); the
    rig is opened; ``at_start()`` looks at the first measurement (its set-up, or a ``RigFault``);
    the recording writer is made by ``make_writer()`` while keep-alive frames run; then ``n`` cycles
    of :func:`~paperlib.hardware.loop.run_loop` (``duration_s`` [s] at ``rate`` [Hz]) and
    :func:`finish_run`. A failure before the loop closes the rig and unfreezes the heap. ``clock``:
    :func:`~paperlib.hardware.loop.run_loop`'s (a :class:`~paperlib.hardware.loop.FreeRunClock` for a
    free-running lock-step rig; None: the host's).

    Returns
    -------
    RunResult
    """
    gc.collect()
    gc.freeze()
    try:
        rig.open()
    except BaseException:
        gc.unfreeze()
        raise
    try:
        at_start()
        with rig.keepalive():  # the drives' watchdog must see frames while the writer is prepared
            writer = make_writer()
    except BaseException:
        rig.close()
        gc.unfreeze()
        raise
    rig.prepare_timing(n)
    say(f"loop: {n} cycles at {rate:g} Hz")
    wall0 = time.perf_counter()
    try:
        stats = run_loop(rig, step, duration_s, rate, writer, watchdog, limits, log_channels=log_channels,
                         sleep_margin_s=sleep_margin_s, open_rig=False, clock=clock)
    finally:
        gc.unfreeze()
    wall_s = time.perf_counter() - wall0
    say(stats.summary())
    note = FreeRunClock.NOTE if isinstance(clock, FreeRunClock) else None
    recording, valid, err, summary = finish_run(rig, stats, output, timing_note=note)
    summary["loop_wall_s"] = wall_s  # the host's time for the loop (free-running: how fast it ran)
    return RunResult(stats=stats, recording=recording, recording_valid=valid, validation_error=err,
                     fault=stats.fault, stop_reason=stats.stop_reason, summary=summary)


def finish_run(rig: Any, stats: LoopStats, output: str | os.PathLike[str], timing_note: str | None = None
               ) -> tuple[Path | None, bool, str | None, dict[str, Any]]:
    """After a loop run of a drive-and-terminals rig: stamp the recording with the loop's statistics, validate it.

    Parameters
    ----------
    rig : JointRig or ArmRig
        The rig that ran (its per-cycle timestamps, channel sources and timings).
    stats : LoopStats
        The loop's statistics.
    output : path-like
        The recording the writer wrote (absent: fewer than two cycles ran).
    timing_note : str, optional
        Why the run's deadline statistics measure nothing (a free-running lock-step run:
        :attr:`paperlib.hardware.loop.FreeRunClock.NOTE`): they are then left out of the recording and
        the summary (None there), and the note is written instead (``deadline_statistics``).

    Returns
    -------
    recording : Path or None
    valid : bool
    error : str or None
        Why the recording is missing or invalid.
    summary : dict
        Cycles, deadline statistics, stop reason, fault, link counters, channel sources, timings.
    """
    from paperlib.recordings import RecordingError, read_recording, validate, write_recording

    late, offset_p99_us, offset_max_us = command_deadlines(rig, stats)
    timing: dict[str, Any] = {"deadline_misses": int(stats.deadline_misses), "late_commands": int(late),
                              "lateness_median_us": float(stats.lateness_median_us),
                              "lateness_p99_us": float(stats.lateness_p99_us),
                              "lateness_max_us": float(stats.lateness_max_us)}
    if timing_note is not None:
        timing = {"deadline_statistics": timing_note}
    out = Path(output)
    recording = out if out.is_file() else None
    valid, err = False, None
    if recording is not None:
        try:
            ds = read_recording(recording)
            ds.attrs.update({"loop_cycles": int(stats.cycles), **timing, "stop_reason": stats.stop_reason,
                             "link_counters": json.dumps(stats.rig_counters, default=str)})
            write_recording(ds, recording)
            validate(read_recording(recording), str(recording))
            valid = True
        except (RecordingError, OSError, ValueError) as exc:
            err = f"{type(exc).__name__}: {exc}"
    else:
        err = "no recording written (fewer than two cycles before the stop)"
    summary = {"cycles": stats.cycles, "deadline_misses": stats.deadline_misses, "late_commands": late,
               "deadline_met_fraction": (1.0 - late / stats.cycles) if stats.cycles else None,
               "command_offset_p99_us": offset_p99_us, "command_offset_max_us": offset_max_us,
               "lateness_median_us": stats.lateness_median_us, "lateness_p99_us": stats.lateness_p99_us,
               "lateness_p999_us": stats.lateness_p999_us, "lateness_max_us": stats.lateness_max_us,
               "torque_clips": stats.torque_clips, "stop_reason": stats.stop_reason, "fault": stats.fault,
               "link_counters": stats.rig_counters, "loop_elapsed_s": stats.elapsed_s,
               "channel_sources": rig.channel_sources(), "timings": dict(rig.timings)}
    if timing_note is not None:
        summary.update({k: None for k in ("deadline_misses", "late_commands", "deadline_met_fraction",
                                          "command_offset_p99_us", "command_offset_max_us", "lateness_median_us",
                                          "lateness_p99_us", "lateness_p999_us", "lateness_max_us")},
                       deadline_statistics=timing_note)
    return recording, valid, err, summary


def _reference_step(ref: JointReference, n: int, nj: int, rate: float, gear: float,
                    channels: tuple[str, ...]) -> ImpedanceStep:
    """The loop's step for a caller's :class:`JointReference`: ``n`` cycles (last setpoint held past its end)."""
    def fit(a: np.ndarray | None, hold: bool) -> np.ndarray:
        if a is None:
            return np.zeros((n, nj))
        a = np.asarray(a, float).reshape(np.shape(a)[0], -1)
        if a.shape[1] != nj:
            raise ValueError(f"joint reference: {a.shape[1]} columns for a rig of {nj} axes")
        if a.shape[0] < n:
            a = np.vstack([a, np.repeat(a[-1:] if hold else np.zeros((1, nj)), n - a.shape[0], axis=0)])
        return a[:n]

    signals = tuple(c for c in channels if c in ("tau_s", "tau_ref", "temperature"))
    return ImpedanceStep(fit(ref.q_sp, True), fit(ref.qd_sp, False), fit(ref.qdd_sp, False), rate, gear, ref.kp, ref.kd,
                         signals, tau_ff=fit(ref.tau_ff, False), velocity_filter_s=ref.velocity_filter_s)


def _in_turn(a: np.ndarray, n: int, nj: int, m: int) -> np.ndarray:
    """(n, nj) columns: axis j runs the profile ``a[:m]`` after axes 0..j-1 have run theirs (zero before it).

    One axis: ``a`` cut to ``n`` (``a`` holds its last value past ``m``). Several: the moves go to one
    axis at a time (the same moves on every axis at once could leave a closed chain where it is: the
    3-RRR's three drives turned alike push its platform point equally from three sides); moves out and
    back end where they start, so an axis holds zero before and after its turn.
    """
    a = np.asarray(a, float)
    if nj == 1:
        return a[:n, None].copy()
    out = np.zeros((n, nj))
    for j in range(nj):
        lo = min(j * m, n)
        seg = a[: min(m, n - lo)]
        out[lo: lo + seg.shape[0], j] = seg
    return out
