"""The one rig interface that the digital twins and the hardware both implement.

The controllers, the estimator and the real-time loop talk to a :class:`Rig`:
read the sensors of one control cycle, command the drives' target torques.
So the code that runs on the robot is the code the twin exercises every day.
Replaying a recording needs no rig.

Units are SI (rad, rad/s, rad/s^2, N m, s); ``temperature`` is in degC (CF ``degC``).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np


#: Channels a rig's measurement can carry: schema-2 names (``paperlib.recording/2``), units SI.
MEASUREMENT_CHANNELS = ("q", "qd", "qdd", "tau_m", "tau_s", "tau_ref", "current", "temperature")
#: What a rig provides unless it declares otherwise (the 5R rig: encoders, IMUs, drive torque, temperature).
DEFAULT_CHANNELS = ("q", "qd", "qdd", "tau_m", "temperature")


class Measurement:
    """One control cycle's sensor reading, in preallocated arrays the rig overwrites.

    Only the declared channels exist (schema-2 names, :data:`MEASUREMENT_CHANNELS`): reading a
    channel the rig does not provide is an ``AttributeError``, not a silent zero.

    Parameters
    ----------
    n : int
        Joints.
    channels : sequence of str
        The channels the rig provides (``q`` always). ``temperature`` starts as NaN (not measured).
    n_drives : int, optional
        Length of the torque and current channels (default ``n``).

    Attributes
    ----------
    t : float
        Time since the start of the run [s].
    q, qd, qdd, tau_m, tau_s, tau_ref, current, temperature : ndarray
        The declared channels [rad, rad/s, rad/s^2, N m, N m, N m, A, degC].
    digital_inputs : int
        Bit field of digital inputs (e.g. proximity sensors for zeroing).
    """

    def __init__(self, n: int, channels: tuple[str, ...] | list[str] = DEFAULT_CHANNELS,
                 n_drives: int | None = None) -> None:
        unknown = sorted(set(channels) - set(MEASUREMENT_CHANNELS))
        if unknown:
            raise ValueError(f"unknown measurement channel(s) {unknown}; schema-2 names: {MEASUREMENT_CHANNELS}")
        self.n = int(n)
        self.channels = tuple(dict.fromkeys(("q",) + tuple(channels)))
        nd = self.n if n_drives is None else int(n_drives)
        for name in self.channels:
            size = nd if name in ("tau_m", "current") else self.n
            setattr(self, name, np.full(size, np.nan) if name == "temperature" else np.zeros(size))
        self.t = 0.0
        self.digital_inputs = 0

    def __repr__(self) -> str:
        return f"Measurement(n={self.n}, channels={self.channels}, t={self.t})"


# -- optional capabilities: explicit protocols, checked once when a rig is opened ----------------
@runtime_checkable
class SampleAge(Protocol):
    """Age of the IMU sample used by the last ``read()`` [s] (``inf`` before the first)."""

    imu_age_s: float


@runtime_checkable
class FieldbusHealth(Protocol):
    """Current run of cycles whose fieldbus frame was lost, stale or had a wrong working counter."""

    consecutive_frame_errors: int


@runtime_checkable
class LinkHealth(SampleAge, FieldbusHealth, Protocol):
    """Both of the above (the hardware rig)."""


@runtime_checkable
class LinkCounters(Protocol):
    """Link counters for the run statistics."""

    def counters(self) -> dict: ...


@runtime_checkable
class Zeroing(Protocol):
    """Find the encoders' zero (proximity sensors)."""

    def zero(self, *args, **kwargs): ...


@runtime_checkable
class HasTruth(Protocol):
    """The true values of a simulated rig (twin recordings carry them)."""

    def truth(self) -> dict: ...


@runtime_checkable
class CycleTiming(Protocol):
    """Per-cycle read and command timestamps for the deadline analysis."""

    t_read_ns: np.ndarray
    t_cmd_ns: np.ndarray

    def prepare_timing(self, n_cycles: int) -> None: ...


@runtime_checkable
class ImuDelay(Protocol):
    """The IMU stream's delay behind the encoder and drive, in control cycles (from its calibration)."""

    imu_delay_cycles: int


@dataclass(frozen=True)
class RigCapabilities:
    """What a rig provides, found once (:func:`capabilities`) instead of probing attributes every cycle."""

    channels: tuple[str, ...]
    link_health: bool
    sample_age: bool
    fieldbus_health: bool
    link_counters: bool
    zeroing: bool
    truth: bool
    cycle_timing: bool
    imu_delay: bool

    def require(self, *names: str, analysis: str = "this run") -> None:
        """Raise :class:`RigFault` naming the channels the rig lacks."""
        missing = [n for n in names if n not in self.channels]
        if missing:
            raise RigFault(f"{analysis} needs the channel(s) {missing}; the rig provides {list(self.channels)}")


def capabilities(rig: "Rig") -> RigCapabilities:
    """The rig's declared channels and optional capabilities (call once, after ``open``)."""
    return RigCapabilities(
        channels=tuple(getattr(rig, "channels", DEFAULT_CHANNELS)),
        link_health=isinstance(rig, LinkHealth), sample_age=isinstance(rig, SampleAge),
        fieldbus_health=isinstance(rig, FieldbusHealth), link_counters=isinstance(rig, LinkCounters),
        zeroing=isinstance(rig, Zeroing), truth=isinstance(rig, HasTruth),
        cycle_timing=isinstance(rig, CycleTiming), imu_delay=isinstance(rig, ImuDelay))


class RigFault(RuntimeError):
    """A rig cannot go on safely (lost frames, a dead sensor link, a limit violated)."""


class Rig(abc.ABC):
    """A robot rig: the twin or the hardware.

    Life cycle: ``open()`` -> repeatedly ``read()`` then ``command(tau_tgt)`` once per
    cycle at ``sample_rate_hz`` -> ``close()`` (always; it leaves the drives disabled).
    ``close`` must be safe to call twice and after a fault.

    The measurement carries the channels the rig declares (:attr:`channels`). Optional
    capabilities are the protocols :class:`LinkHealth`, :class:`LinkCounters`,
    :class:`Zeroing`, :class:`HasTruth`, :class:`CycleTiming`, :class:`ImuDelay`;
    :func:`capabilities` finds them once. Health attributes are read after each ``read()`` by the real-time loop's watchdog
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
    #: Schema-2 channels the rig's measurement carries (:data:`MEASUREMENT_CHANNELS`).
    channels: tuple[str, ...] = DEFAULT_CHANNELS
    #: ``origin`` of the rate and acceleration channels (schema 2: gyroscope | accelerometer | ...).
    origins: dict = {"qd": "gyroscope", "qdd": "accelerometer"}
    #: ``side`` of the drive torque channel (motor | joint).
    torque_side: str = "motor"

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
