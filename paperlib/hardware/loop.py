"""The real-time loop: read the rig, run the controller step, command, log -- at 4 kHz.

:func:`run_loop` drives any :class:`paperlib.rig.Rig` (the twin or the hardware) on a fixed
grid of absolute deadlines ``t0 + k T`` (T = 1 / rate_hz, 250 us at the paper's 4 kHz).
Each cycle::

    wait for the deadline -> m = rig.read() -> watchdog + joint limits
    -> tau = step(m, t) -> clip to +-tau_max -> rig.command(tau) -> writer.append(t, ...)

Timing (see ``/work/shared/NOTES.md``, "Hardware"): on a non-RT Linux kernel a Python loop
holds 4 kHz only by busy-waiting on ``time.perf_counter_ns`` to absolute deadlines with the
cyclic garbage collector off (``time.sleep`` alone is ~90 us late at the median). So the
loop spins (optionally sleeping while more than ``sleep_margin_s`` remains), disables the
GC and ``gc.freeze()``s the heap for the run (restoring both after), writes lateness into
a preallocated array and reuses its command buffers.

Catch-up policy. Deadlines stay on the original grid and a late cycle still runs in full:
it is never dropped and never skips the watchdog, the limit checks or the log. By default
(``max_catch_up=None``) cycles that fell behind run back-to-back, late, until the loop is
on schedule again, so every grid slot is executed and logged exactly once -- the recording
keeps its gap-free time grid ``k / rate_hz``, which :class:`paperlib.recordings.RecordingWriter`
requires -- and each cycle starting more than one period late is counted as a deadline miss.
With ``max_catch_up=N``, if after a cycle the next deadline is overdue by more than N
periods, the missed slots are skipped instead (counted in ``LoopStats.skipped``; ``t``
jumps over them) so the drives never see a burst of more than about N + 1 commands; the
log then has gaps in time, which ``RecordingWriter`` rejects (use it with a writer that
accepts gaps, or none). Independently, ``max_lateness_s`` turns a cycle that starts later
than that into an "overload" fault (like Simulink Real-Time's CPU-overload halt); off by
default because a twin run on a shared machine would trip it, recommended on hardware.

Safety. Any of these stops the run with a fault message, commands zero torque and closes
the rig (which disables the drives): the rig raising :class:`~paperlib.rig.RigFault`; the
watchdog (IMU data older than ``Watchdog.max_imu_age_s``, or more than
``Watchdog.max_frame_errors`` consecutive bad EtherCAT cycles, as reported by the rig); a
joint angle outside ``[q_min, q_max]`` (or NaN); a non-finite torque from ``step``. Torques
beyond ``+-tau_max`` are clipped and counted, not faulted. SIGINT (Ctrl-C) -- or a
``KeyboardInterrupt`` raised by ``step`` -- stops cleanly at the end of the cycle. Any
other exception is treated as a fault as well (zero torque, rig closed, writer finished)
and is then re-raised, so a bug never looks like a completed run. In every case the writer
is finished, holding every executed cycle up to the stop. A position-controlled rig (one with a
``hold_command()`` method, :class:`paperlib.hardware.arm_rig.ArmRig`) is sent that instead of
zeros: for it the command is a target position, and stopping means holding where it is.

Rig health (optional duck-typed attributes; :class:`~paperlib.rig.Rig` does not declare
them yet): ``rig.imu_age_s`` (float, age of the IMU sample used by the last ``read`` [s]),
``rig.consecutive_frame_errors`` (int, the current run of cycles whose EtherCAT frame was
lost or came back with a wrong working counter -- ``EthercatMaster.stats.consecutive_errors``)
and ``rig.counters()`` (mapping of link counters, e.g. ``wkc_errors``, ``imu_lost``; copied
into :attr:`LoopStats.rig_counters`).

Writer (duck type): ``writer.append(t, **channels)`` once per executed cycle, with ``t`` the
cycle's grid time ``k / rate_hz`` [s] and the channels named in ``log_channels``, by default
the measurement ``q`` [rad], ``qd`` [rad/s], ``qdd`` [rad/s^2], ``tau_m`` [N m] and
``tau_tgt`` [N m] (the torque actually commanded: after clipping, and zero on the cycle that
stopped the run). Also available: ``temperature`` [degC], ``digital_inputs`` [1] and
``lateness`` [s] (the cycle's start lateness). Channels computed by the controller -- the
setpoints ``q_sp``, ``qd_sp``, ``qdd_sp`` that ``RecordingWriter`` requires -- come from
``extra_channels`` (or a ``step.log_channels`` mapping): preallocated arrays that ``step``
overwrites each cycle and the loop logs after it. The arrays are reused every cycle: the
writer must copy them (``RecordingWriter`` does). A channel outside the writer's declared
set (e.g. ``lateness`` without ``extra_channels={"lateness": Channel(..., "s", dims=())}``)
makes ``append`` raise, which stops the run as an error. At the end the loop calls
``writer.finish(fault=...)`` (or ``writer.close()``; the ``fault`` keyword -- the fault
message or ``None`` -- is passed only if the method accepts it).
"""

from __future__ import annotations

import gc
import inspect
import math
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Protocol, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paperlib.control.controllers import ControlFault
from paperlib.rig import FieldbusHealth, Measurement, Rig, RigFault, SampleAge

__all__ = [
    "StepFn",
    "RecordingSink",
    "LOOP_CHANNELS",
    "DEFAULT_LOG_CHANNELS",
    "Limits",
    "Watchdog",
    "LoopStats",
    "RunResult",
    "order_problems",
    "deadline_statistics",
    "FreeRunClock",
    "run_loop",
]

_MEASUREMENT_CHANNELS = ("q", "qd", "qdd", "tau_m", "temperature", "digital_inputs")
LOOP_CHANNELS: tuple[str, ...] = _MEASUREMENT_CHANNELS + ("tau_tgt", "lateness")
"""Channels the loop itself can log: the measurement's, ``tau_tgt`` [N m], ``lateness`` [s]."""

DEFAULT_LOG_CHANNELS: tuple[str, ...] = ("q", "qd", "qdd", "tau_m", "tau_tgt")
"""Logged by default: the loop's share of ``paperlib.recordings.REQUIRED_VARIABLES``."""

StepFn = Callable[[Measurement, float], ArrayLike]
"""``step(measurement, t) -> tau_tgt`` [N m], shape (n_joints,); ``t`` is the cycle's
scheduled time since the start of the loop [s]."""


class RecordingSink(Protocol):
    """What :func:`run_loop` needs from a writer (e.g. ``paperlib.recordings.RecordingWriter``)."""

    def append(self, t: float, **channels: Any) -> None:  # pragma: no cover - protocol
        """Append one sample at time ``t`` [s]; must copy the arrays it is given."""


@dataclass
class Limits:
    """Joint-angle and torque limits enforced by the loop.

    Parameters
    ----------
    q_min, q_max : array_like, shape (n_joints,)
        Allowed joint-angle range [rad]; leaving it (or a NaN angle) is a fault.
    tau_max : array_like, shape (n_joints,) or float
        Torque magnitude limit [N m]; commands are clipped to ``[-tau_max, tau_max]``.
    """

    q_min: ArrayLike
    q_max: ArrayLike
    tau_max: ArrayLike

    def arrays(self, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The limits as float arrays of shape (n,), validated."""
        out = []
        for name in ("q_min", "q_max", "tau_max"):
            v = np.asarray(getattr(self, name), dtype=np.float64)
            try:
                v = np.broadcast_to(v, (n,)).copy()
            except ValueError:
                raise ValueError(f"Limits.{name} must have shape ({n},), got {v.shape}") from None
            if np.any(np.isnan(v)):
                raise ValueError(f"Limits.{name} contains NaN: {v}")
            out.append(v)
        q_min, q_max, tau_max = out
        if np.any(q_min >= q_max):
            raise ValueError(f"Limits: q_min {q_min} must be below q_max {q_max} [rad]")
        if np.any(tau_max <= 0):
            raise ValueError(f"Limits: tau_max {tau_max} [N m] must be positive")
        return q_min, q_max, tau_max


@dataclass
class Watchdog:
    """Link watchdog thresholds (checked every cycle, right after ``rig.read()``).

    Parameters
    ----------
    max_imu_age_s : float or None
        Fault when ``rig.imu_age_s`` exceeds this [s] (5 ms = 5 missed packets at 1 kHz).
        ``None`` disables the check; it is skipped for rigs without ``imu_age_s``.
    max_frame_errors : int or None
        Fault when ``rig.consecutive_frame_errors`` (consecutive cycles with a lost frame
        or a wrong working counter) exceeds this. Default 20 = 5 ms at 4 kHz, like the IMU
        threshold (and the EtherCAT master's own ``max_consecutive_errors``). ``None``
        disables the check; it is skipped for rigs without ``consecutive_frame_errors``.
    """

    max_imu_age_s: float | None = 0.005
    max_frame_errors: int | None = 20


def order_problems(values: dict[str, float], required: bool) -> list[str]:
    """Problems of a set of ascending statistics (e.g. median, p99, p99.9, max of a lateness [us]).

    ``values`` in the order they must ascend; ``required``: they must be finite (else NaN is allowed,
    for a run without cycles).
    """
    if not required:
        return []
    v = list(values.items())
    bad = [k for k, x in v if not math.isfinite(x)]
    if bad:
        return [f"non-finite statistics: {', '.join(bad)}"]
    return [f"{a} {x:g} > {b} {y:g}" for (a, x), (b, y) in zip(v, v[1:]) if x > y]


def deadline_statistics(lateness_us: NDArray[np.float64], missed: NDArray[np.bool_]) -> dict[str, Any]:
    """The loop's deadline statistics from its per-cycle start lateness.

    Parameters
    ----------
    lateness_us : ndarray, shape (cycles,)
        Start lateness of each executed cycle w.r.t. its deadline [us].
    missed : ndarray of bool, shape (cycles,)
        Cycles that started more than one period late (the caller compares in its own unit).

    Returns
    -------
    dict
        ``cycles``, ``deadline_misses``, ``stalls`` (runs of consecutive misses) and
        ``lateness_median_us``, ``lateness_p99_us``, ``lateness_p999_us``, ``lateness_max_us``
        (NaN without cycles); the names of :class:`LoopStats`.
    """
    n = int(missed.shape[0])
    out: dict[str, Any] = {
        "cycles": n,
        "deadline_misses": int(np.count_nonzero(missed)),
        "stalls": int(np.count_nonzero(missed[1:] & ~missed[:-1]) + (1 if n and missed[0] else 0)),
        "lateness_median_us": math.nan, "lateness_p99_us": math.nan, "lateness_p999_us": math.nan,
        "lateness_max_us": math.nan,
    }
    if n:
        p50, p99, p999 = np.percentile(lateness_us, [50.0, 99.0, 99.9])
        out.update(lateness_median_us=float(p50), lateness_p99_us=float(p99), lateness_p999_us=float(p999),
                   lateness_max_us=float(lateness_us.max()))
    return out


@dataclass
class LoopStats:
    """Outcome and timing of one :func:`run_loop` run.

    Attributes
    ----------
    rate_hz : float
        Loop rate [Hz].
    slots : int
        Grid slots elapsed (executed + skipped).
    cycles : int
        Cycles executed (each one logged).
    skipped : int
        Grid slots skipped by the catch-up policy.
    deadline_misses : int
        Executed cycles that started more than one period after their deadline.
    stalls : int
        Runs of consecutive missed cycles (one stall of the host makes one run of misses
        while the loop catches up).
    lateness_median_us, lateness_p99_us, lateness_p999_us, lateness_max_us : float
        Start-of-cycle lateness w.r.t. the deadline [us] over executed cycles (NaN if none).
    torque_clips : int
        Torque values (cycle x joint) clipped to +-tau_max.
    clipped_cycles : int
        Cycles with at least one clipped torque.
    stop_reason : {"completed", "fault", "interrupted", "error"}
        Why the loop ended ("error": an unexpected exception, re-raised after cleanup).
    fault : str or None
        Fault message (also passed to the writer).
    elapsed_s : float
        Wall time from the first deadline to the end of the loop [s].
    rig_counters : dict
        ``rig.counters()`` at the end (e.g. WKC / IMU counters), if the rig has it.
    cleanup_errors : list of str
        Errors raised while commanding zero torque, closing the rig or finishing the writer.
    lateness_us : ndarray, shape (cycles,)
        Per-cycle lateness [us].
    """

    rate_hz: float
    slots: int = 0
    cycles: int = 0
    skipped: int = 0
    deadline_misses: int = 0
    stalls: int = 0
    lateness_median_us: float = math.nan
    lateness_p99_us: float = math.nan
    lateness_p999_us: float = math.nan
    lateness_max_us: float = math.nan
    torque_clips: int = 0
    clipped_cycles: int = 0
    stop_reason: Literal["completed", "fault", "interrupted", "error"] = "completed"
    fault: str | None = None
    elapsed_s: float = 0.0
    rig_counters: dict[str, Any] = field(default_factory=dict)
    cleanup_errors: list[str] = field(default_factory=list)
    lateness_us: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0), repr=False)

    def as_dict(self) -> dict[str, Any]:
        """Everything but the per-cycle array (JSON-friendly)."""
        d = asdict(self)
        d.pop("lateness_us")
        return d

    def inconsistencies(self) -> list[str]:
        """What this record contradicts in itself; empty when it is consistent.

        Counts that do not add up (executed + skipped slots, misses beyond the executed cycles), a
        per-cycle lateness array of the wrong length, with non-finite or negative entries, lateness percentiles
        out of order. None of this depends on how fast the host was: a slow host gives a consistent
        record with many misses.
        """
        out = []
        if self.cycles + self.skipped != self.slots:
            out.append(f"cycles {self.cycles} + skipped {self.skipped} != slots {self.slots}")
        if not 0 <= self.deadline_misses <= self.cycles:
            out.append(f"misses {self.deadline_misses} outside [0, cycles {self.cycles}]")
        if not 0 <= self.stalls <= self.deadline_misses or (self.stalls == 0) != (self.deadline_misses == 0):
            out.append(f"{self.stalls} stalls for {self.deadline_misses} misses")
        if self.lateness_us.shape != (self.cycles,):
            out.append(f"per-cycle lateness has shape {self.lateness_us.shape}, not ({self.cycles},)")
        elif not np.isfinite(self.lateness_us).all():
            out.append("per-cycle lateness holds non-finite values")
        elif self.cycles and self.lateness_us.min() < 0:  # a cycle starts at or after its deadline
            out.append(f"negative per-cycle lateness {self.lateness_us.min():g} us")
        elif self.cycles:
            # the summary agrees with the per-cycle record it was made from
            late = int(np.count_nonzero(self.lateness_us > 1e6 / self.rate_hz))
            if 0 <= self.deadline_misses <= self.cycles and late != self.deadline_misses:
                out.append(f"{self.deadline_misses} misses counted, {late} cycles later than one period")
            if np.isfinite(self.lateness_max_us) and self.lateness_max_us != self.lateness_us.max():
                out.append(f"lateness max {self.lateness_max_us:g} us, per-cycle max {self.lateness_us.max():g} us")
        out += order_problems({"median": self.lateness_median_us, "p99": self.lateness_p99_us,
                               "p999": self.lateness_p999_us, "max": self.lateness_max_us}, self.cycles > 0)
        return out

    def summary(self) -> str:
        """One line for logs and reports."""
        s = (
            f"{self.cycles} cycles at {self.rate_hz:g} Hz ({self.skipped} skipped), "
            f"{self.deadline_misses} misses in {self.stalls} stalls; lateness median {self.lateness_median_us:.1f} us, "
            f"p99 {self.lateness_p99_us:.1f} us, p99.9 {self.lateness_p999_us:.1f} us, "
            f"max {self.lateness_max_us:.1f} us; {self.torque_clips} torque clips; "
            f"{self.stop_reason}"
        )
        return s + (f": {self.fault}" if self.fault else "")


@dataclass
class RunResult:
    """Outcome of a session on a rig: the loop's statistics, its recording and how the run ended.

    Returned by the sessions (:func:`paperlib.hardware.joint_session.run_joint_session`, the arm's
    and, with the estimator's results added, :func:`paperlib.hardware.session.run_session`).

    Attributes
    ----------
    stats : LoopStats
    recording : Path or None
        The recording written (None: fewer than two cycles ran).
    recording_valid : bool
        Whether it passed :func:`paperlib.recordings.validate`.
    validation_error : str or None
        Why it is missing or invalid.
    fault, stop_reason : str or None, str
        As in :class:`LoopStats`.
    summary : dict
        The run's JSON summary (cycles, deadline statistics, link counters, ...).
    """

    stats: LoopStats
    recording: Path | None
    recording_valid: bool
    validation_error: str | None
    fault: str | None
    stop_reason: str
    summary: dict[str, Any] = field(default_factory=dict)


class FreeRunClock:
    """Simulated time [ns] for a free-running lock-step run: still while a cycle works, at the next deadline when the loop would wait.

    Give it as ``run_loop(clock=...)`` (with ``sleep_margin_s=None``) when every device answers in lock
    step (an emulated rig that advances one cycle per frame): the loop then runs its cycles back to
    back, as fast as the host computes them, and the recording is the same as at real time. Its
    deadline statistics (lateness 0, no misses) describe the simulated clock, not the host: a
    free-running run measures nothing about real time.
    """

    #: What a run's summary says of its deadlines.
    NOTE = "not measured: free-running lock step (simulated clock, cycles back to back)"

    def __init__(self) -> None:
        self.now_ns = 0

    def __call__(self) -> int:
        return self.now_ns

    def advance_to(self, t_ns: int) -> None:
        """Move the clock to ``t_ns`` [ns] (never back)."""
        if t_ns > self.now_ns:
            self.now_ns = t_ns


def _channel_dict(
    m: Measurement, names: list[str], tau_cmd: NDArray[np.float64], extra: dict[str, Any], want_tau: bool
) -> dict[str, Any]:
    d: dict[str, Any] = {name: getattr(m, name) for name in names}
    if want_tau:
        d["tau_tgt"] = tau_cmd
    d.update(extra)
    return d


class _SigintFlag:
    """SIGINT handler: the first Ctrl-C asks for a stop at the end of the cycle; a second
    one (while the loop runs) raises KeyboardInterrupt; during cleanup it is only noted."""

    def __init__(self) -> None:
        self.requested = False
        self.cleaning = False

    def __call__(self, signum: int, frame: object) -> None:
        if self.requested and not self.cleaning:
            raise KeyboardInterrupt
        self.requested = True


def _finish_writer(writer: Any, fault: str | None) -> None:
    fin = getattr(writer, "finish", None) or getattr(writer, "close", None)
    if fin is None:
        return
    try:
        params = inspect.signature(fin).parameters.values()
    except (TypeError, ValueError):
        params = ()
    takes_fault = any(p.name == "fault" or p.kind is p.VAR_KEYWORD for p in params)
    if takes_fault:
        fin(fault=fault)
    else:
        fin()


def run_loop(
    rig: Rig,
    step: StepFn,
    duration_s: float,
    rate_hz: float,
    writer: RecordingSink | None = None,
    watchdog: Watchdog | None = None,
    limits: Limits | None = None,
    *,
    extra_channels: Mapping[str, Any] | None = None,
    log_channels: Sequence[str] = DEFAULT_LOG_CHANNELS,
    max_catch_up: int | None = None,
    max_lateness_s: float | None = None,
    sleep_margin_s: float | None = 1e-3,
    open_rig: bool = True,
    handle_sigint: bool = True,
    clock: Callable[[], int] | None = None,
) -> LoopStats:
    """Run ``step`` on ``rig`` at ``rate_hz`` for ``duration_s``, safely.

    Parameters
    ----------
    rig : Rig
        The twin or the hardware; opened here (unless ``open_rig=False``) and always
        closed here.
    step : callable
        ``step(measurement, t) -> tau_tgt`` [N m], shape (n_joints,); ``t`` is the cycle's
        scheduled time since the first deadline [s] (``k / rate_hz``).
    duration_s : float
        Run length [s]; ``round(duration_s * rate_hz)`` grid slots.
    rate_hz : float
        Loop rate [Hz] (4 kHz in the paper).
    writer : object with ``append(t, **channels)``, optional
        Receives every executed cycle (see the module docstring); finished at the end.
    watchdog : Watchdog, optional
        Link thresholds (default ``Watchdog()``: IMU 5 ms, 20 bad EtherCAT cycles).
    limits : Limits, optional
        Joint and torque limits (default: none checked).
    extra_channels : mapping of str to array, optional
        Controller channels to log each cycle (e.g. ``{"q_sp": ..., "qd_sp": ...,
        "qdd_sp": ...}``): arrays that ``step`` overwrites in place. Default: the mapping
        ``step.log_channels`` if ``step`` has one.
    log_channels : sequence of str
        Loop channels to log: any of ``q, qd, qdd, tau_m, temperature, digital_inputs``
        (from the measurement), ``tau_tgt`` and ``lateness``.
    max_catch_up : int or None
        None: never skip grid slots (late cycles run back-to-back; gap-free log). N: skip
        the missed slots when more than N periods behind (see module docstring).
    max_lateness_s : float or None
        Fault ("overload") when a cycle starts later than this after its deadline [s].
    sleep_margin_s : float or None
        Sleep while more than this remains before a deadline [s], then busy-wait;
        ``None`` always busy-waits. (At 4 kHz, 1 ms means never sleeping.)
    open_rig : bool
        Call ``rig.open()`` first (set False if the caller opened it).
    handle_sigint : bool
        Install a SIGINT handler for the run (main thread only) so Ctrl-C stops at the
        end of a cycle instead of interrupting a rig transaction.
    clock : callable, optional
        Monotonic time [ns] the deadlines are kept on (default ``time.perf_counter_ns``). A test
        passes a simulated clock, so what it counts (misses, stalls) is the code's doing and not
        the host's; with one, give ``sleep_margin_s=None`` (the loop then only reads the clock).
        A clock with an ``advance_to(t_ns)`` method (:class:`FreeRunClock`) is moved to each
        deadline instead of being waited on: the cycles run back to back (lock-step rigs only).

    Returns
    -------
    LoopStats

    Raises
    ------
    ValueError
        On bad arguments (nothing is opened then).
    Exception
        Any unexpected exception from ``step``, the rig or the writer, re-raised after the
        safe stop (zero torque, rig closed, writer finished with the fault).
    """
    if not (duration_s > 0 and math.isfinite(duration_s)):
        raise ValueError(f"duration_s must be positive and finite, got {duration_s}")
    if not rate_hz > 0:
        raise ValueError(f"rate_hz must be positive, got {rate_hz}")
    if max_catch_up is not None and max_catch_up < 0:
        raise ValueError(f"max_catch_up must be >= 0 or None, got {max_catch_up}")
    if max_lateness_s is not None and not max_lateness_s > 0:
        raise ValueError(f"max_lateness_s must be positive or None, got {max_lateness_s}")
    unknown = set(log_channels) - set(LOOP_CHANNELS)
    if unknown:
        raise ValueError(f"unknown log_channels {sorted(unknown)}; known: {list(LOOP_CHANNELS)}")
    if extra_channels is None:
        extra_channels = getattr(step, "log_channels", None)
    extra = dict(extra_channels or {})
    clash = set(extra) & set(log_channels)
    if clash:
        raise ValueError(f"extra_channels {sorted(clash)} clash with log_channels")
    n = int(rig.n_joints)
    watchdog = Watchdog() if watchdog is None else watchdog
    if limits is not None:
        q_min, q_max, tau_max = limits.arrays(n)
        neg_tau_max = -tau_max
    period_ns = int(round(1e9 / rate_hz))
    period_s = period_ns * 1e-9
    n_slots = int(round(duration_s * rate_hz))
    if n_slots < 1:
        raise ValueError(f"duration_s = {duration_s} s is shorter than one period at {rate_hz} Hz")
    sleep_ns = None if sleep_margin_s is None else int(sleep_margin_s * 1e9)
    max_late_ns = None if max_lateness_s is None else int(max_lateness_s * 1e9)
    catch_up_ns = None if max_catch_up is None else max_catch_up * period_ns

    # Preallocated state.
    lateness = np.zeros(n_slots, dtype=np.int64)
    tau_cmd = np.zeros(n)
    zeros = np.zeros(n)
    in_range = np.zeros(n, dtype=bool)
    tmp_bool = np.zeros(n, dtype=bool)
    tmp_abs = np.zeros(n)
    stats = LoopStats(rate_hz=float(rate_hz))
    max_age = watchdog.max_imu_age_s
    max_lost = watchdog.max_frame_errors
    check_age = max_age is not None and isinstance(rig, SampleAge)  # optional capabilities, checked once
    check_lost = max_lost is not None and isinstance(rig, FieldbusHealth)
    append = writer.append if writer is not None else None
    # The keyword dict handed to append: built once and refreshed only when the rig returns
    # a different Measurement object (the Rig contract says it never does) -- only the
    # scalars change per cycle.
    meas_names = [c for c in log_channels if c in _MEASUREMENT_CHANNELS and c != "digital_inputs"]
    want_late = "lateness" in log_channels
    want_di = "digital_inputs" in log_channels
    chans: dict[str, Any] = {}
    chans_for: Measurement | None = None
    pc = time.perf_counter_ns if clock is None else clock
    advance_clock = getattr(clock, "advance_to", None)  # FreeRunClock
    isfinite = np.isfinite

    sig = _SigintFlag()
    prev_handler: Any = None
    installed = False
    gc_was_enabled = gc.isenabled()
    froze = False
    already_frozen = gc.get_freeze_count() > 0  # the caller froze objects: leave them frozen

    fault: str | None = None
    stop_reason = "completed"
    pending: BaseException | None = None
    i = 0  # executed cycles
    k = 0  # grid slot
    t = 0.0
    late = 0
    clips = clipped_cycles = skipped = 0
    m: Measurement | None = None
    logged = True
    phase = "open"
    t_first = pc()

    try:
        if handle_sigint and threading.current_thread() is threading.main_thread():
            prev_handler = signal.signal(signal.SIGINT, sig)
            installed = True
        if open_rig:
            rig.open()
        phase = "start"
        gc.collect()
        gc.disable()
        gc.freeze()
        froze = True
        t0 = pc() + period_ns
        t_first = t0
        while k < n_slots:
            deadline = t0 + k * period_ns
            now = pc()
            if advance_clock is not None and now < deadline:  # a free-running clock: no wait
                advance_clock(deadline)
                now = deadline
            if sleep_ns is not None and deadline - now > sleep_ns:
                time.sleep((deadline - now - sleep_ns) * 1e-9)
                now = pc()
            while now < deadline:
                now = pc()
            late = now - deadline
            t = k * period_s
            m = None
            logged = False
            if max_late_ns is not None and late > max_late_ns:
                fault = (
                    f"overload: cycle started {late * 1e-6:.3f} ms late "
                    f"(> {max_late_ns * 1e-6:.3f} ms) (cycle {i}, t = {t:.6f} s)"
                )
                break
            lateness[i] = late

            phase = "read"
            m = rig.read()
            # Watchdog and limits (never skipped, however late the cycle).
            if check_age:
                age = rig.imu_age_s
                if not age <= max_age:  # NaN counts as stale
                    fault = (
                        f"watchdog: IMU data stale, age {age * 1e3:.3f} ms > "
                        f"{max_age * 1e3:.3f} ms (cycle {i}, t = {t:.6f} s)"
                    )
                    break
            if check_lost:
                lost = rig.consecutive_frame_errors
                if lost > max_lost:
                    fault = (
                        f"watchdog: {lost} consecutive EtherCAT cycles with a lost frame, a stale reply or "
                        f"a wrong working counter (> {max_lost}) (cycle {i}, t = {t:.6f} s)"
                    )
                    break
            if limits is not None:
                np.greater_equal(m.q, q_min, out=in_range)
                np.less_equal(m.q, q_max, out=tmp_bool)
                np.logical_and(in_range, tmp_bool, out=in_range)
                if not in_range.all():
                    j = int(np.argmin(in_range))
                    fault = (
                        f"joint limit: q[{j}] = {m.q[j]:.6g} rad outside "
                        f"[{q_min[j]:.6g}, {q_max[j]:.6g}] rad (cycle {i}, t = {t:.6f} s)"
                    )
                    break

            phase = "step"
            tau = step(m, t)
            tau_cmd[:] = tau
            if not isfinite(tau_cmd).all():
                fault = f"step returned a non-finite torque {tau_cmd.tolist()} (cycle {i}, t = {t:.6f} s)"
                break
            if limits is not None:
                np.abs(tau_cmd, out=tmp_abs)
                np.greater(tmp_abs, tau_max, out=tmp_bool)
                c = int(np.count_nonzero(tmp_bool))
                if c:
                    clips += c
                    clipped_cycles += 1
                    np.clip(tau_cmd, neg_tau_max, tau_max, out=tau_cmd)

            phase = "command"
            rig.command(tau_cmd)
            phase = "log"
            if append is not None:
                if m is not chans_for:
                    chans = _channel_dict(m, meas_names, tau_cmd, extra, want_tau="tau_tgt" in log_channels)
                    chans_for = m
                if want_late:
                    chans["lateness"] = late * 1e-9
                if want_di:
                    chans["digital_inputs"] = m.digital_inputs
                append(t, **chans)
            logged = True
            i += 1
            k += 1
            phase = "wait"
            if sig.requested:
                stop_reason = "interrupted"
                break
            # Catch-up policy: optionally skip slots when more than max_catch_up behind.
            if catch_up_ns is not None:
                overdue = pc() - (t0 + k * period_ns)
                if overdue > catch_up_ns:
                    jump = min(overdue // period_ns, n_slots - k)
                    skipped += jump
                    k += jump
    except KeyboardInterrupt:
        stop_reason = "interrupted"
    except RigFault as exc:
        fault = f"rig fault during {phase}: {exc} (cycle {i}, t = {t:.6f} s)"
    except ControlFault as exc:
        fault = f"{exc} (cycle {i}, t = {t:.6f} s)"
    except BaseException as exc:  # noqa: BLE001 - safe stop first, then re-raise
        fault = f"{type(exc).__name__} during {phase}: {exc} (cycle {i}, t = {t:.6f} s)"
        stop_reason = "error"
        pending = exc
    t_end = pc()
    sig.cleaning = True
    if fault is not None and stop_reason == "completed":
        stop_reason = "fault"

    # Safe stop: zero torque, log the stopping cycle (zero command), close the rig.
    try:
        tau_cmd[:] = 0.0
        if phase != "open":
            try:
                # a position-controlled rig holds where it is (zero would be a target position)
                hold = getattr(rig, "hold_command", None)
                rig.command(zeros if hold is None else hold())
            except BaseException as exc:  # noqa: BLE001
                stats.cleanup_errors.append(f"zero-torque command: {type(exc).__name__}: {exc}")
        if m is not None and not logged and append is not None and phase != "log":
            try:
                if m is not chans_for:
                    chans = _channel_dict(m, meas_names, tau_cmd, extra, want_tau="tau_tgt" in log_channels)
                if want_late:
                    chans["lateness"] = late * 1e-9
                if want_di:
                    chans["digital_inputs"] = m.digital_inputs
                append(t, **chans)
                i += 1  # the stopping cycle is in the log: count it
                k += 1
            except BaseException as exc:  # noqa: BLE001
                stats.cleanup_errors.append(f"logging the last cycle: {type(exc).__name__}: {exc}")
        counters = getattr(rig, "counters", None)
        if callable(counters):
            try:
                stats.rig_counters = dict(counters())
            except BaseException as exc:  # noqa: BLE001
                stats.cleanup_errors.append(f"rig.counters(): {type(exc).__name__}: {exc}")
        try:
            rig.close()
        except BaseException as exc:  # noqa: BLE001
            stats.cleanup_errors.append(f"rig.close(): {type(exc).__name__}: {exc}")
    finally:
        if froze and not already_frozen:
            gc.unfreeze()
        if gc_was_enabled:
            gc.enable()
        if installed:
            # None: the previous handler was not installed from Python; use the default.
            signal.signal(signal.SIGINT, signal.default_int_handler if prev_handler is None else prev_handler)

    # Statistics.
    stats.cycles = i
    stats.slots = min(k, n_slots)
    stats.skipped = skipped
    lat_us = lateness[:i] * 1e-3
    deadlines = deadline_statistics(lat_us, lateness[:i] > period_ns)
    stats.deadline_misses = deadlines["deadline_misses"]
    stats.stalls = deadlines["stalls"]
    stats.torque_clips = clips
    stats.clipped_cycles = clipped_cycles
    stats.stop_reason = stop_reason  # type: ignore[assignment]
    stats.fault = fault
    stats.elapsed_s = max(0, t_end - t_first) * 1e-9
    stats.lateness_us = lat_us
    for key in ("lateness_median_us", "lateness_p99_us", "lateness_p999_us", "lateness_max_us"):
        setattr(stats, key, deadlines[key])

    if writer is not None:
        try:
            _finish_writer(writer, fault)
        except BaseException as exc:  # noqa: BLE001
            stats.cleanup_errors.append(f"writer finish: {type(exc).__name__}: {exc}")
    if pending is not None:
        pending.add_note(f"paperlib.hardware.loop: safe stop done; {stats.summary()}")
        raise pending
    return stats

