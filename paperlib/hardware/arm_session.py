"""One run of a position-controlled arm (:class:`~paperlib.hardware.arm_rig.ArmRig`): a joint program, loop, recording.

A position-controlled arm's controller sends the joint positions of its program every cycle and
logs what the drives report. :func:`run_arm_session` does that through the one real-time loop
(:func:`paperlib.hardware.loop.run_loop`): the loop's command is the program's joint positions
``q_sp[k]`` at ``k / rate``, and the recording (schema 2) holds ``q``, ``qd`` (the drives'),
``tau_m`` (the torque each drive applies, motor side), ``q_sp`` and ``temperature`` (the RTD
channels), with ``channel_sources`` naming the axis or terminal channel of each. The arm must
start within ``[arm] max_start_error_deg`` of the program's first pose (else nothing moves and
:class:`~paperlib.rig.RigFault` names the joint). A fault ends the run safely (the drives hold, then
are disabled); the recording holds every cycle up to it and names the fault.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict
from typing import Any, Callable

import numpy as np

from paperlib.hardware.arm_rig import ArmRig
from paperlib.hardware.joint_session import run_drive_session
from paperlib.hardware.loop import FreeRunClock, Limits, RunResult, Watchdog
from paperlib.rig import RigFault

__all__ = ["ArmSessionResult", "ProgramStep", "run_arm_session"]


class ProgramStep:
    """The loop's ``step(measurement, t)``: the program's joint positions of the cycle.

    Parameters
    ----------
    q_sp : ndarray, shape (n, n_joints)
        Joint positions [rad] at ``k / rate_hz`` (the last row is held after the end).
    rate_hz : float
        Loop rate [Hz].
    """

    def __init__(self, q_sp: np.ndarray, rate_hz: float) -> None:
        self.q_sp = np.ascontiguousarray(q_sp, dtype=float)
        self.rate = float(rate_hz)
        self.cmd = np.zeros(self.q_sp.shape[1])
        self.log_channels = {"q_sp": self.cmd}

    def __call__(self, m: Any, t: float) -> np.ndarray:
        k = min(int(t * self.rate + 0.5), self.q_sp.shape[0] - 1)
        self.cmd[:] = self.q_sp[k]
        return self.cmd


#: Outcome of :func:`run_arm_session` (the loop's statistics, the recording, how the run ended).
ArmSessionResult = RunResult


def run_arm_session(
    rig: ArmRig,
    q_sp: np.ndarray,
    *,
    output: str | os.PathLike[str],
    seed: int = 1,
    truth: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    attrs: dict[str, Any] | None = None,
    watchdog: Watchdog | None = None,
    sleep_margin_s: float | None = None,
    free_run: bool = False,
    log: Callable[[str], None] | None = None,
) -> ArmSessionResult:
    """Open the rig, run the joint program ``q_sp`` through the loop and write the recording (module docstring).

    Parameters
    ----------
    rig : ArmRig
        Not yet opened.
    q_sp : ndarray, shape (n, n_joints)
        The program's joint positions [rad] at the rig's cycle rate; the run lasts ``n`` cycles.
    output : path-like
        Recording (``.nc``).
    seed : int
        Recorded as the run's seed (a twin's recording needs one).
    truth : dict, optional
        True values (an emulated rig's twin) for a ``source = "twin"`` recording.
    config, attrs : dict, optional
        Added to the recording's configuration and attributes.
    watchdog : Watchdog, optional
        Link thresholds (no IMU: its age is not checked).
    sleep_margin_s : float, optional
        :func:`run_loop`'s sleep margin (None: lock step, never sleep).
    free_run : bool
        Lock-step rigs only: the loop keeps its deadlines on a simulated clock
        (:class:`~paperlib.hardware.loop.FreeRunClock`) and runs the cycles back to back; the recording
        says so (``loop_clock``) and its deadline statistics measure nothing about real time.
    log : callable, optional
        Progress messages.

    Raises
    ------
    RigFault
        The rig cannot be brought up, or the arm is not at the program's first pose (nothing recorded).
    """
    from paperlib.recordings import RecordingWriter

    say = log or (lambda s: None)
    rate = float(rig.sample_rate_hz)
    tr = rig.train
    q_sp = np.asarray(q_sp, dtype=float)
    n = int(q_sp.shape[0])
    if q_sp.ndim != 2 or q_sp.shape[1] != rig.n_joints or n < 2:
        raise ValueError(f"q_sp must have shape (n >= 2, {rig.n_joints}), got {q_sp.shape}")
    step = ProgramStep(q_sp, rate)
    limits = Limits(np.radians(tr.q_min_deg), np.radians(tr.q_max_deg), np.inf)
    watchdog = watchdog or Watchdog(max_imu_age_s=None)
    temperature = ("temperature",) if "temperature" in rig.channels else ()

    def at_start() -> None:
        q_start = rig.read_idle().q.copy()
        err = np.degrees(np.abs(q_start - q_sp[0]))
        if np.any(err > tr.max_start_error_deg):
            j = int(np.argmax(err))
            raise RigFault(f"the arm is not at its program's first pose: joint {j + 1} at "
                           f"{math.degrees(q_start[j]):.2f} deg, the program starts at {math.degrees(q_sp[0, j]):.2f} deg "
                           f"(more than [arm] max_start_error_deg = {tr.max_start_error_deg} deg)")

    def make_writer() -> Any:
        source = rig.source
        cfg = {"controller": "joint position program (CSP)", "duration_s": n / rate,
               "arm_train": asdict(tr), "watchdog": asdict(watchdog), "rig_file": rig.settings.source_file,
               **(config or {})}
        rec_attrs = {"rig": rig.rig_label, "channel_sources": json.dumps(rig.channel_sources()),
                     "loop_clock": "free-running lock step (simulated time)" if free_run else "host",
                     "devices": json.dumps(rig.identity, default=str), **(attrs or {})}
        return RecordingWriter(
            output, list(range(1, rig.n_joints + 1)), robot=rig.robot, source=source, sample_rate_hz=rate,
            controller="position", config=cfg, seed=int(seed) if source == "twin" else None,
            truth=(truth or {"note": "emulated hardware"}) if source == "twin" else None, attrs=rec_attrs,
            channels=("q", "qd", "tau_m", "q_sp", *temperature), origins={"qd": "drive"}, torque_side="motor",
            preallocate=n + 2)

    return run_drive_session(rig, step, duration_s=n / rate, n=n, rate=rate, output=output, watchdog=watchdog,
                             limits=limits, log_channels=("q", "qd", "tau_m", *temperature), at_start=at_start,
                             make_writer=make_writer, sleep_margin_s=None if free_run else sleep_margin_s, say=say,
                             clock=FreeRunClock() if free_run else None)
