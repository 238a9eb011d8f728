"""The one rig interface that the digital twins and the hardware both implement.

The controllers, the estimator and the real-time loop talk to a :class:`Rig`:
read the sensors of one control cycle, command the drives' target torques.
So the code that runs on the robot is the code the twin exercises every day.
Replaying a recording needs no rig.

Units are SI (rad, rad/s, rad/s^2, N m, s); ``temperature`` is in degC (CF ``degC``).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Literal

import numpy as np


@dataclass
class Measurement:
    """One control cycle's sensor reading, in preallocated arrays the rig overwrites.

    Attributes
    ----------
    t : float
        Time since the start of the run [s].
    q : ndarray, shape (n,)
        Actuated joint angles from the encoders [rad].
    qd : ndarray, shape (n,)
        Joint angular velocities from the gyroscopes [rad/s].
    qdd : ndarray, shape (n,)
        Joint angular accelerations from the accelerometers [rad/s^2].
    tau_m : ndarray, shape (n,)
        Motor torques reported by the drives (the paper's tau_m-check) [N m].
    temperature : ndarray, shape (n,)
        Gearbox case temperatures [degC]; NaN where not measured.
    digital_inputs : int
        Bit field of digital inputs (e.g. proximity sensors for zeroing).
    """

    n: int
    t: float = 0.0
    q: np.ndarray = field(init=False)
    qd: np.ndarray = field(init=False)
    qdd: np.ndarray = field(init=False)
    tau_m: np.ndarray = field(init=False)
    temperature: np.ndarray = field(init=False)
    digital_inputs: int = 0

    def __post_init__(self) -> None:
        self.q = np.zeros(self.n)
        self.qd = np.zeros(self.n)
        self.qdd = np.zeros(self.n)
        self.tau_m = np.zeros(self.n)
        self.temperature = np.full(self.n, np.nan)


class RigFault(RuntimeError):
    """A rig cannot go on safely (lost frames, a dead sensor link, a limit violated)."""


class Rig(abc.ABC):
    """A robot rig: the twin or the hardware.

    Life cycle: ``open()`` -> repeatedly ``read()`` then ``command(tau_tgt)`` once per
    cycle at ``sample_rate_hz`` -> ``close()`` (always; it leaves the drives disabled).
    ``close`` must be safe to call twice and after a fault.

    Optional health attributes, read after each ``read()`` by the real-time loop's watchdog
    (:mod:`paperlib.hardware.loop`) and by the control step's sample-timing check
    (:class:`paperlib.hardware.session.ControlStep`); a rig without them (the twin) is never
    stale:

    * ``imu_age_s`` (float): age of the IMU sample used by the last ``read`` [s] (``inf``
      before the first sample);
    * ``consecutive_frame_errors`` (int): current run of cycles whose fieldbus frame was lost,
      stale or had a wrong working counter (0 when the last one was good);
    * ``counters()`` (method returning a dict): link counters for the run statistics.
    """

    robot: str
    source: Literal["twin", "hardware"]
    n_joints: int
    sample_rate_hz: float

    @abc.abstractmethod
    def open(self) -> None:
        """Bring the rig up (drives enabled, sensors streaming)."""

    @abc.abstractmethod
    def read(self) -> Measurement:
        """Return this cycle's measurement (the same object each call, overwritten)."""

    @abc.abstractmethod
    def command(self, tau_tgt: np.ndarray) -> None:
        """Send target motor torques [N m], shape (n_joints,), for this cycle."""

    @abc.abstractmethod
    def close(self) -> None:
        """Command zero torque, disable the drives, release resources."""

    def __enter__(self) -> "Rig":
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
