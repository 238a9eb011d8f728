"""Ladder-velocity (trapezoidal) motion laws and straight Cartesian paths (paper 002's LVCA).

The "ladder velocity control algorithm" of paper 002 (Fig. 8, steps 1-5) moves a point on a
straight line ``E_1 -> E_2`` with a path law ``s(t)`` whose velocity is a trapezoid: constant
acceleration ``a_max`` up to ``v_max``, a plateau, constant deceleration (a triangle when the
path is too short to reach ``v_max``)::

    x(t) = x_q + s(t) cos(phi),  y(t) = y_q + s(t) sin(phi),  phi = atan2(y_e - y_q, x_e - x_q)

:func:`plan_trapezoid` plans ``s(t)``; :func:`straight_path` samples one move;
:func:`point_sequence` strings moves between several points with dwell times at each (the
paper's single-point sampling: stay 2 s at each of 21 positions). Any dimension, SI units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["TrapezoidProfile", "plan_trapezoid", "straight_path", "point_sequence"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class TrapezoidProfile:
    """A rest-to-rest trapezoidal velocity law ``s(t)`` over ``[0, duration]``.

    Attributes
    ----------
    h : float
        Path length [m] (``s(duration) = h``).
    v_peak : float
        Plateau (or triangle peak) velocity [m/s], ``<= v_max``.
    a_max : float
        Acceleration and deceleration [m/s^2].
    t_a, t_v : float
        Acceleration time and plateau time [s]; ``duration = 2 t_a + t_v``.
    """

    h: float
    v_peak: float
    a_max: float
    t_a: float
    t_v: float

    @property
    def duration(self) -> float:
        """Total time [s]."""
        return 2.0 * self.t_a + self.t_v

    def evaluate(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(s, v, a)`` at times ``t`` [s] (clamped to the rest states outside the motion)."""
        t = np.clip(np.asarray(t, dtype=float), 0.0, self.duration)
        a, ta, tv = self.a_max, self.t_a, self.t_v
        t2 = ta + tv
        s = np.where(t < ta, 0.5 * a * t**2,
                     np.where(t < t2, 0.5 * a * ta**2 + self.v_peak * (t - ta),
                              self.h - 0.5 * a * (self.duration - t) ** 2))
        v = np.where(t < ta, a * t, np.where(t < t2, self.v_peak, a * (self.duration - t)))
        acc = np.where(t < ta, a, np.where(t < t2, 0.0, -a))
        acc = np.where(t >= self.duration, 0.0, acc)
        return s, v, acc


def plan_trapezoid(h: float, v_max: float, a_max: float) -> TrapezoidProfile:
    """Time-optimal rest-to-rest law under ``|v| <= v_max``, ``|a| <= a_max`` over length ``h >= 0``.

    Raises
    ------
    ValueError
        For a negative length or non-positive bounds.
    """
    if h < 0 or not (v_max > 0 and a_max > 0):
        raise ValueError(f"plan_trapezoid needs h >= 0 and positive bounds; got h={h}, v_max={v_max}, a_max={a_max}")
    if h == 0:
        return TrapezoidProfile(0.0, 0.0, a_max, 0.0, 0.0)
    if h >= v_max**2 / a_max:
        ta = v_max / a_max
        return TrapezoidProfile(h, v_max, a_max, ta, (h - v_max * ta) / v_max)
    ta = float(np.sqrt(h / a_max))
    return TrapezoidProfile(h, a_max * ta, a_max, ta, 0.0)


def straight_path(p0: ArrayLike, p1: ArrayLike, v_max: float, a_max: float, t: ArrayLike
                  ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Point, velocity, acceleration (len(t), dim) on the straight move ``p0 -> p1`` at times t [s]."""
    p0, p1 = np.asarray(p0, dtype=float), np.asarray(p1, dtype=float)
    d = p1 - p0
    h = float(np.linalg.norm(d))
    u = d / h if h > 0 else np.zeros_like(d)
    s, v, a = plan_trapezoid(h, v_max, a_max).evaluate(t)
    return p0 + s[:, None] * u, v[:, None] * u, a[:, None] * u


def point_sequence(points: Sequence[ArrayLike], v_max: float, a_max: float, dwell_s: float, fs_hz: float,
                   lead_s: float = 0.0) -> dict[str, FloatArray]:
    """Visit ``points`` in order with straight trapezoidal moves and a dwell at each point.

    Parameters
    ----------
    points : sequence of array_like, each (dim,)
        Points [m]; the motion starts at rest at ``points[0]``.
    v_max, a_max : float
        Path bounds [m/s, m/s^2].
    dwell_s : float
        Time at rest at every point after its arrival (also at the first, after ``lead_s``) [s].
    fs_hz : float
        Sample rate of the returned grid [Hz].
    lead_s : float
        Rest before the first dwell [s].

    Returns
    -------
    dict
        ``t`` (n,) [s], ``p``, ``pd``, ``pdd`` (n, dim), ``segment`` (n,) int (-1 at rest, k on the
        move k -> k+1), ``arrivals`` (len(points),) arrival time at each point [s].
    """
    P = [np.asarray(p, dtype=float) for p in points]
    if len(P) < 1:
        raise ValueError("point_sequence needs at least one point")
    times = [lead_s + dwell_s]
    arrivals = [lead_s]
    plans = []
    for k in range(len(P) - 1):
        prof = plan_trapezoid(float(np.linalg.norm(P[k + 1] - P[k])), v_max, a_max)
        plans.append((times[-1], prof))
        arrivals.append(times[-1] + prof.duration)
        times.append(times[-1] + prof.duration + dwell_s)
    n = int(round(times[-1] * fs_hz)) + 1
    t = np.arange(n) / fs_hz
    dim = P[0].size
    p = np.tile(P[0], (n, 1))
    pd = np.zeros((n, dim))
    pdd = np.zeros((n, dim))
    seg = np.full(n, -1, dtype=np.int64)
    for k, (t0, prof) in enumerate(plans):
        d = P[k + 1] - P[k]
        h = float(np.linalg.norm(d))
        u = d / h if h > 0 else np.zeros_like(d)
        sel = t >= t0
        s, v, a = prof.evaluate(t[sel] - t0)
        p[sel] = P[k] + s[:, None] * u
        pd[sel] = v[:, None] * u
        pdd[sel] = a[:, None] * u
        moving = sel & (t < t0 + prof.duration)
        seg[moving] = k
    return {"t": t, "p": p, "pd": pd, "pdd": pdd, "segment": seg, "arrivals": np.asarray(arrivals)}
