"""One run of a single-joint rig (:class:`~paperlib.hardware.joint_rig.JointRig`): impedance moves, loop, recording.

The bearing room turns its joint (and a grasped wheel bearing) with joint impedance control along
back-to-back trapezoidal-velocity moves (paper 004, Sec. 3.1.2;
:func:`paperlib.twin.robots.torque_joint.trapezoidal_moves`). :func:`run_joint_session` runs that on
the rig through the one real-time loop (:func:`paperlib.hardware.loop.run_loop`)::

    tau_joint = kp (q0 + q_sp - q) + kd (qd_sp - qd)        tau_motor = tau_joint / N

and writes a schema-2 recording of ``q``, ``qd`` (the drive's velocity), ``tau_m``, ``tau_tgt``, the
setpoints and every terminal channel of the joint (``tau_s``, ``tau_ref``, ``temperature``), whose
attribute ``channel_sources`` says which device, terminal and channel each came from (units,
sensor ratings, filter, tare). A fault (a terminal's error bit, a lost link, the joint range) ends
the run safely; the recording holds every cycle up to it and names the fault.
"""

from __future__ import annotations

import gc
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware.joint_rig import JointRig
from paperlib.hardware.loop import Limits, LoopStats, Watchdog, run_loop
from paperlib.hardware.session import command_deadlines

__all__ = ["JointSessionResult", "ImpedanceStep", "run_joint_session", "finish_run"]


class ImpedanceStep:
    """The loop's ``step(measurement, t)``: joint impedance control along preallocated setpoints.

    Parameters
    ----------
    q_sp, qd_sp, qdd_sp : ndarray, shape (n,)
        Setpoints relative to the start angle [rad, rad/s, rad/s^2] at ``k / rate_hz``.
    rate_hz : float
        Loop rate [Hz].
    gear_ratio, kp, kd : float
        Motor / joint angle, joint impedance gains [N m/rad], [N m s/rad].
    signals : sequence of str
        Terminal channels of the measurement to log (``tau_s``, ``tau_ref``, ``temperature``).
    tau_ff : ndarray, shape (n,), optional
        Joint-side feed-forward torque [N m] added to the impedance torque (with ``kp = kd = 0`` an
        open-loop torque profile: the bearing room's no-load run).
    """

    def __init__(self, q_sp: np.ndarray, qd_sp: np.ndarray, qdd_sp: np.ndarray, rate_hz: float, gear_ratio: float,
                 kp: float, kd: float, signals: tuple[str, ...] = (), tau_ff: np.ndarray | None = None) -> None:
        self.q_sp, self.qd_sp, self.qdd_sp = q_sp, qd_sp, qdd_sp
        self.tau_ff = np.zeros(q_sp.shape[0]) if tau_ff is None else np.asarray(tau_ff, float)
        self.rate, self.gear, self.kp, self.kd = float(rate_hz), float(gear_ratio), float(kp), float(kd)
        self.q0 = 0.0
        self.tau = np.zeros(1)
        self.cur = {k: np.zeros(1) for k in ("q_sp", "qd_sp", "qdd_sp", *signals)}
        self.signals = signals
        self.log_channels = self.cur

    def __call__(self, m: Any, t: float) -> np.ndarray:
        k = min(int(t * self.rate + 0.5), self.q_sp.shape[0] - 1)
        q_sp = self.q0 + self.q_sp[k]
        qd_sp = self.qd_sp[k]
        self.cur["q_sp"][0], self.cur["qd_sp"][0], self.cur["qdd_sp"][0] = q_sp, qd_sp, self.qdd_sp[k]
        for name in self.signals:
            self.cur[name][0] = getattr(m, name)[0]
        self.tau[0] = (self.kp * (q_sp - m.q[0]) + self.kd * (qd_sp - m.qd[0]) + self.tau_ff[k]) / self.gear
        return self.tau


@dataclass
class JointSessionResult:
    """Outcome of :func:`run_joint_session`."""

    stats: LoopStats
    recording: Path | None
    recording_valid: bool
    validation_error: str | None
    fault: str | None
    stop_reason: str
    summary: dict[str, Any] = field(default_factory=dict)


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
    kp, kd = tr.kp_Nm_per_rad, tr.kd_Nm_s_per_rad
    if tau_ff is not None:  # open-loop torque profile: no setpoints, no impedance
        ff = np.asarray(tau_ff, float)
        ff = np.r_[ff, np.zeros(max(0, n - ff.shape[0]))][:n]
        q_sp = qd_sp = qdd_sp = np.zeros(n)
        kp = kd = 0.0
    else:
        ff = None
        q_sp, qd_sp, qdd_sp = trapezoidal_moves(tuple(distances_rad), v_max=v_max, a_max=a_max, dwell_s=dwell_s,
                                                fs=rate)
    if q_sp.shape[0] < n:
        pad = n - q_sp.shape[0]
        q_sp = np.r_[q_sp, np.full(pad, q_sp[-1])]
        qd_sp, qdd_sp = np.r_[qd_sp, np.zeros(pad)], np.r_[qdd_sp, np.zeros(pad)]
    signals = tuple(c for c in rig.channels if c in ("tau_s", "tau_ref", "temperature"))
    step = ImpedanceStep(q_sp[:n], qd_sp[:n], qdd_sp[:n], rate, tr.gear_ratio, kp, kd, signals, tau_ff=ff)
    limits = Limits(math.radians(tr.q_min_deg), math.radians(tr.q_max_deg), tr.max_motor_torque_Nm)
    watchdog = watchdog or Watchdog(max_imu_age_s=None)
    # a full collection of the heap holds the GIL for long: before the bring-up, not while the keep-alive
    # thread must feed the drive's watchdog (as run_session does)
    gc.collect()
    gc.freeze()
    try:
        rig.open()
    except BaseException:
        gc.unfreeze()
        raise
    try:
        step.q0 = float(rig.read_idle().q[0])
        with rig.keepalive():  # the drive's watchdog must see frames while the writer is prepared
            source = rig.source
            config = {"controller": "joint impedance" if ff is None else "torque profile",
                      "duration_s": float(duration_s),
                      "distances_rad": list(distances_rad) if ff is None else [], "v_max_rad_s": v_max, "a_max_rad_s2": a_max, "dwell_s": dwell_s, "start_rad": step.q0,
                      "joint_train": asdict(tr), "watchdog": asdict(watchdog),
                      "rig_file": rig.settings.source_file}
            attrs = {"rig": rig.rig_label, "channel_sources": json.dumps(rig.channel_sources()),
                     "devices": json.dumps(rig.identity, default=str)}
            writer = RecordingWriter(
                output, [1], robot=rig.robot, source=source, sample_rate_hz=rate,
                controller="impedance" if ff is None else "torque profile", config=config,
                seed=int(seed) if source == "twin" else None,
                truth=(truth or {"note": "emulated hardware"}) if source == "twin" else None, attrs=attrs,
                channels=("q", "qd", "tau_m", "tau_tgt", "q_sp", "qd_sp", "qdd_sp", *signals),
                origins={"qd": "drive"}, torque_side="motor", preallocate=n + 2)
    except BaseException:
        rig.close()
        gc.unfreeze()
        raise
    rig.prepare_timing(n)
    say(f"loop: {n} cycles at {rate:g} Hz")
    try:
        stats = run_loop(rig, step, duration_s, rate, writer, watchdog, limits,
                         log_channels=("q", "qd", "tau_m", "tau_tgt"), sleep_margin_s=sleep_margin_s, open_rig=False)
    finally:
        gc.unfreeze()
    say(stats.summary())
    recording, valid, err, summary = finish_run(rig, stats, output)
    return JointSessionResult(stats=stats, recording=recording, recording_valid=valid, validation_error=err,
                              fault=stats.fault, stop_reason=stats.stop_reason, summary=summary)


def finish_run(rig: Any, stats: LoopStats, output: str | os.PathLike[str]
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
    out = Path(output)
    recording = out if out.is_file() else None
    valid, err = False, None
    if recording is not None:
        try:
            ds = read_recording(recording)
            ds.attrs.update({"loop_cycles": int(stats.cycles), "deadline_misses": int(stats.deadline_misses),
                             "late_commands": int(late),
                             "lateness_median_us": float(stats.lateness_median_us),
                             "lateness_p99_us": float(stats.lateness_p99_us),
                             "lateness_max_us": float(stats.lateness_max_us), "stop_reason": stats.stop_reason,
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
    return recording, valid, err, summary

