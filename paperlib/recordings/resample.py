"""Jittery logs onto the uniform time grid a recording needs (:func:`resample_uniform`).

A lab's logger stamps each sample with the time it was taken, and those times are rarely
uniform (a ROS node at "100 Hz" delivers steps of 2 to 34 ms). Schema 2 demands uniform time
(:mod:`paperlib.recordings.schema`, *Time tolerances*), so the samples are interpolated onto the
grid ``t0 + k / fs``:

* the nominal rate ``fs`` is estimated unless given: each stamp is put in its slot of a grid of
  period ``span / (N - 1)`` (``median(diff(t))`` if that differs by more than 5 %) (so a dropped sample leaves an empty slot), and the period is
  the least-squares slope of stamp against slot (twice); a rate within 0.2 % of a value with 3
  significant digits (100 Hz, 94.3 Hz) is taken as that value. The median of the steps alone
  is off by ~0.5 % on 6,000 steps with +-5 ms jitter at 100 Hz;
* each channel is interpolated by a not-a-knot cubic spline through the logged (time, value)
  pairs (:class:`scipy.interpolate.CubicSpline`): its error on a smooth signal falls as
  ``dt^4``, where linear interpolation's falls as ``dt^2`` and, at 100 Hz, already exceeds an
  encoder's resolution on a fast joint;
* a gap (a step longer than ``max_gap_periods`` nominal periods) is refused: nothing can be
  interpolated across a missing stretch of the log; the message says where it is and how to
  cut the log around it;
* the jitter is reported (:class:`JitterReport`): the step statistics before resampling, so a
  user sees what the file was.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping

import numpy as np

__all__ = ["JitterReport", "resample_uniform", "logged_time_variable", "DEFAULT_MAX_GAP_PERIODS"]

#: Longest step accepted, in nominal periods (a longer one is a gap in the log).
DEFAULT_MAX_GAP_PERIODS = 5.0


@dataclass(frozen=True)
class JitterReport:
    """What the time stamps of a log looked like before resampling (SI).

    Attributes
    ----------
    sample_rate_hz : float
        Nominal rate of the uniform grid [Hz].
    n_in, n_out : int
        Samples logged, samples on the grid.
    step_median_s, step_min_s, step_max_s, step_std_s : float
        Statistics of the logged steps ``diff(t)`` [s].
    jitter_max_s : float
        Largest deviation of a logged step from the nominal period [s].
    resampled : bool
        False when the log was uniform within the schema's tolerance already and was kept as is.
    method : str
        How the channels were interpolated.
    """

    sample_rate_hz: float
    n_in: int
    n_out: int
    step_median_s: float
    step_min_s: float
    step_max_s: float
    step_std_s: float
    jitter_max_s: float
    resampled: bool
    method: str

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """One line for a command's output."""
        what = "resampled onto the uniform grid by cubic splines" if self.resampled else "uniform already: kept as logged"
        return (f"{self.n_in} samples, steps {1e3 * self.step_min_s:.3g} to {1e3 * self.step_max_s:.3g} ms "
                f"(median {1e3 * self.step_median_s:.4g} ms, std {1e3 * self.step_std_s:.3g} ms, largest deviation "
                f"{1e3 * self.jitter_max_s:.3g} ms) -> {self.sample_rate_hz:g} Hz, {self.n_out} samples, {what}")


def _nominal_rate(t: np.ndarray, period: float) -> float:
    """The nominal rate [Hz] of jittered stamps (see the module docstring)."""
    rel = t - t[0]
    span = rel[-1] / (rel.size - 1)  # exact when no sample was dropped
    period = span if abs(span / period - 1.0) < 0.05 else period
    for _ in range(2):
        slot = np.round(rel / period)
        sc = slot - slot.mean()
        period = float(sc @ (rel - rel.mean()) / (sc @ sc))
    fs = 1.0 / period
    nice = float(f"{fs:.3g}")
    return nice if abs(nice / fs - 1.0) < 2e-3 else fs


def resample_uniform(t: np.ndarray, channels: Mapping[str, np.ndarray], *, sample_rate_hz: float | None = None,
                     max_gap_periods: float = DEFAULT_MAX_GAP_PERIODS, name: str = "log", method: str = "cubic"
                     ) -> tuple[np.ndarray, dict[str, np.ndarray], JitterReport]:
    """Interpolate channels logged at jittery times onto a uniform grid starting at 0.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Logged sample times [s], strictly increasing (any origin: the grid starts at 0 = ``t[0]``).
    channels : mapping of str -> ndarray, shape (N,) or (N, n)
        Values at those times, in SI units.
    sample_rate_hz : float, optional
        Rate of the grid [Hz] (default ``1 / median(diff(t))``).
    max_gap_periods : float
        Longest accepted step, in nominal periods; a longer one is refused as a gap.
    name : str
        What the log is called in error messages (its file name).
    method : {"cubic", "linear"}
        Interpolation: not-a-knot cubic spline (default) or linear.

    Returns
    -------
    time : ndarray, shape (M,)
        ``arange(M) / sample_rate_hz`` [s], within the logged span.
    out : dict of str -> ndarray, shape (M,) or (M, n)
        The channels on the grid.
    report : JitterReport

    Raises
    ------
    ValueError
        Fewer than 4 samples, non-finite or non-increasing times, non-finite values, a channel
        of another length, or a gap longer than ``max_gap_periods`` periods (each message says
        what to change).
    """
    from scipy.interpolate import CubicSpline

    t = np.asarray(t, dtype=np.float64)
    if t.ndim != 1 or t.size < 4:
        raise ValueError(f"{name}: need a 1-D time column of at least 4 samples; got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        k = int(np.flatnonzero(~np.isfinite(t))[0])
        raise ValueError(f"{name}: time at row {k} is not finite: remove that row or fix its stamp")
    dt = np.diff(t)
    if np.any(dt <= 0):
        k = int(np.flatnonzero(dt <= 0)[0])
        raise ValueError(f"{name}: time does not increase at row {k + 1} ({t[k]:.6g} s then {t[k + 1]:.6g} s): "
                         "sort the log by time and drop duplicated stamps")
    med = float(np.median(dt))
    fs = float(sample_rate_hz) if sample_rate_hz is not None else _nominal_rate(t, med)
    if not np.isfinite(fs) or fs <= 0:
        raise ValueError(f"{name}: sample rate must be positive and finite; got {fs}")
    period = 1.0 / fs
    if np.any(dt > max_gap_periods * period):
        k = int(np.argmax(dt))
        raise ValueError(f"{name}: gap of {dt[k]:.4g} s between {t[k]:.6g} s and {t[k + 1]:.6g} s "
                         f"({dt[k] / period:.3g} periods of {period:.4g} s; at most {max_gap_periods:g} are "
                         "interpolated): cut the log into the parts before and after the gap, or raise max_gap_periods")
    arrays: dict[str, np.ndarray] = {}
    for key, val in channels.items():
        a = np.asarray(val, dtype=np.float64)
        if a.shape[:1] != t.shape:
            raise ValueError(f"{name}: channel {key!r} has {a.shape[0] if a.ndim else 0} rows, time has {t.size}")
        if not np.all(np.isfinite(a)):
            k = int(np.flatnonzero(~np.all(np.isfinite(a.reshape(a.shape[0], -1)), axis=1))[0])
            raise ValueError(f"{name}: channel {key!r} is not finite at row {k} (t = {t[k]:.6g} s): "
                             "fill or drop that row before importing")
        arrays[key] = a
    rel = t - t[0]
    m = int(np.floor(rel[-1] * fs * (1 + 1e-12))) + 1
    time = np.arange(m, dtype=np.float64) / fs
    dev = np.abs(rel - np.round(rel * fs) / fs)
    uniform = bool(m == t.size and np.all(np.abs(dt - period) <= 1e-3 * period) and np.all(dev <= 0.5 * period))
    out = {}
    for key, a in arrays.items():
        if uniform:
            out[key] = a.copy()
        elif method == "linear":
            out[key] = np.stack([np.interp(time, rel, col) for col in a.reshape(a.shape[0], -1).T], axis=1).reshape((m,) + a.shape[1:])
        else:
            out[key] = CubicSpline(rel, a, axis=0)(time)
    report = JitterReport(sample_rate_hz=fs, n_in=int(t.size), n_out=m, step_median_s=med, step_min_s=float(dt.min()),
                          step_max_s=float(dt.max()), step_std_s=float(dt.std()),
                          jitter_max_s=float(np.max(np.abs(dt - period))), resampled=not uniform,
                          method="none" if uniform else ("linear (numpy.interp)" if method == "linear" else
                                                                 "not-a-knot cubic spline (scipy.interpolate.CubicSpline)"))
    return time, out, report


def logged_time_variable(t: np.ndarray, report: JitterReport) -> dict[str, tuple]:
    """``{"time_logged": ...}``: the log's own stamps (from 0) for a resampled recording's ``extra_vars``.

    Kept so that an analysis can pass a model signal through the same resampling as the data
    (e.g. the Coulomb columns of :func:`paperlib.estimation.serial_identification.prepare`).
    Empty when the log was uniform already.
    """
    if not report.resampled:
        return {}
    t = np.asarray(t, dtype=np.float64)
    return {"time_logged": (("sample_logged",), t - t[0],
                            {"units": "s", "long_name": "time stamp of each logged sample before resampling onto the "
                                                        "uniform grid (not-a-knot cubic spline)"})}
