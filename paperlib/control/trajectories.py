"""Random point-to-point test trajectories, as in the flagship paper (Sec. 3.2, Table 3, Fig. 4).

The paper's test motions are random, high-speed point-to-point motions planned as
joint-space straight segments between targets drawn inside a well-conditioned convex
polygon of the joint space. Each motion law is time-optimal under symmetric bounds on
the velocity, acceleration and jerk of every joint (Table 3), rest-to-rest; by
Pontryagin's principle the jerk is, at every instant, ``+j_max``, ``-j_max`` or ``0``.

Pieces, from the bottom up:

* :func:`double_s_times` / :func:`plan_double_s` -- the scalar time-optimal
  rest-to-rest jerk-limited law (the 7-phase "double S"), with exact closed-form phase
  durations for all four cases (maximum velocity and/or maximum acceleration reached
  or not).
* :func:`plan_straight_segment` -- a synchronised joint-space straight segment
  ``q(s) = q0 + s (q1 - q0)``, ``s in [0, 1]``, whose path law is the double S with the
  tightest joint bounds scaled by ``|q1_j - q0_j|``: every joint stays within its own
  bounds and at least one joint saturates a bound, so the segment is time-optimal
  among motions along that straight line.
* :class:`Polygon` and :func:`well_conditioned_polygon` -- a convex polygon inside
  the region of the joint space where a condition index ``sigma >= threshold``.
* :func:`random_point_to_point` -> :class:`Trajectory` -- consecutive random targets
  drawn uniformly in the polygon; fast vectorised sampling of ``q, qd, qdd`` (and jerk).

Units are SI throughout (rad, rad/s, rad/s^2, rad/s^3, s). Degrees appear only at the
edges, in names ending in ``_deg``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MotionBounds",
    "TABLE3_V_MAX_DEG_S",
    "TABLE3_A_MAX_DEG_S2",
    "TABLE3_J_MAX_DEG_S3",
    "TABLE3_BOUNDS",
    "double_s_times",
    "double_s_duration",
    "DoubleSProfile",
    "plan_double_s",
    "Segment",
    "plan_straight_segment",
    "straight_segment_duration",
    "Trajectory",
    "random_point_to_point",
    "Polygon",
    "safe_sigma",
    "well_conditioned_polygon",
    "longest_motion_duration",
    "benchmarks",
]

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------------------
# Bounds (Table 3)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MotionBounds:
    """Symmetric per-joint kinematic bounds: ``|qd| <= v_max``, ``|qdd| <= a_max``, ``|qddd| <= j_max``.

    Each bound is either a scalar (same bound for every joint) or an array of shape
    ``(n,)``. Lower bounds are the negated upper bounds, as in the paper's Table 3.

    Attributes
    ----------
    v_max : float or ndarray, shape (n,)
        Velocity bound [rad/s], > 0.
    a_max : float or ndarray, shape (n,)
        Acceleration bound [rad/s^2], > 0.
    j_max : float or ndarray, shape (n,)
        Jerk bound [rad/s^3], > 0.
    """

    v_max: float | FloatArray
    a_max: float | FloatArray
    j_max: float | FloatArray

    def __post_init__(self) -> None:
        for name in ("v_max", "a_max", "j_max"):
            value = np.asarray(getattr(self, name), dtype=float)
            if value.ndim > 1 or not np.all(np.isfinite(value)) or np.any(value <= 0.0):
                raise ValueError(f"MotionBounds.{name} must be finite, > 0, scalar or shape (n,); got {value!r}")

    @classmethod
    def from_deg(cls, v_max_deg_s: ArrayLike, a_max_deg_s2: ArrayLike, j_max_deg_s3: ArrayLike) -> "MotionBounds":
        """Build bounds from values in degrees (deg/s, deg/s^2, deg/s^3)."""
        return cls(
            v_max=np.deg2rad(np.asarray(v_max_deg_s, dtype=float)),
            a_max=np.deg2rad(np.asarray(a_max_deg_s2, dtype=float)),
            j_max=np.deg2rad(np.asarray(j_max_deg_s3, dtype=float)),
        )

    def per_joint(self, n: int) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Bounds broadcast to ``n`` joints.

        Returns
        -------
        v, a, j : ndarray, shape (n,)
            Velocity [rad/s], acceleration [rad/s^2] and jerk [rad/s^3] bounds.
        """
        out = []
        for value in (self.v_max, self.a_max, self.j_max):
            arr = np.asarray(value, dtype=float)
            if arr.ndim == 1 and arr.shape[0] != n:
                raise ValueError(f"bounds have {arr.shape[0]} joints, trajectory has {n}")
            out.append(np.broadcast_to(arr, (n,)).astype(float))
        return out[0], out[1], out[2]


#: Table 3 of the flagship paper, per joint, at the edge in degrees.
TABLE3_V_MAX_DEG_S: float = 210.0
TABLE3_A_MAX_DEG_S2: float = 1680.0
TABLE3_J_MAX_DEG_S3: float = 25200.0

#: Table 3 bounds in SI (rad/s, rad/s^2, rad/s^3), the same for every joint.
TABLE3_BOUNDS: MotionBounds = MotionBounds(
    v_max=float(np.deg2rad(TABLE3_V_MAX_DEG_S)),
    a_max=float(np.deg2rad(TABLE3_A_MAX_DEG_S2)),
    j_max=float(np.deg2rad(TABLE3_J_MAX_DEG_S3)),
)


# ---------------------------------------------------------------------------------------
# Scalar double-S law
# ---------------------------------------------------------------------------------------


def double_s_times(
    h: ArrayLike, v_max: ArrayLike, a_max: ArrayLike, j_max: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Phase durations of the time-optimal rest-to-rest jerk-limited law (vectorised).

    The law has 7 phases of durations ``[Tj, Ta - 2 Tj, Tj, Tv, Tj, Ta - 2 Tj, Tj]``
    and jerks ``[+j, 0, -j, 0, -j, 0, +j]``; it is symmetric (deceleration mirrors
    acceleration) and its total duration is ``2 Ta + Tv``. Closed forms:

    * ``v_max`` reached (cruise, ``Tv >= 0``): if ``v_max j_max >= a_max^2`` then
      ``Tj = a_max/j_max``, ``Ta = Tj + v_max/a_max`` (``a_max`` reached), else
      ``Tj = sqrt(v_max/j_max)``, ``Ta = 2 Tj``; ``Tv = h/v_max - Ta``.
    * ``v_max`` not reached (``Tv = 0``, the displacement is ``h = v_peak Ta``): if
      ``h >= 2 a_max^3 / j_max^2`` then ``Tj = a_max/j_max`` and
      ``Ta = (Tj + sqrt(Tj^2 + 4 h / a_max)) / 2``, else ``Tj = (h / (2 j_max))^(1/3)``,
      ``Ta = 2 Tj`` (total ``T = 4 Tj = 2 (4 h / j_max)^(1/3)``).

    Parameters
    ----------
    h : array_like
        Displacement(s), >= 0 [any unit u].
    v_max, a_max, j_max : array_like
        Bounds [u/s, u/s^2, u/s^3], > 0. All inputs broadcast together.

    Returns
    -------
    t_j, t_a, t_v : ndarray
        Jerk-phase duration ``Tj``, acceleration-phase duration ``Ta`` (so the constant
        acceleration phase lasts ``Ta - 2 Tj >= 0``) and cruise duration ``Tv`` [s].
    """
    h, v, a, j = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (h, v_max, a_max, j_max)))
    if np.any(h < 0.0) or not np.all(np.isfinite(h)):
        raise ValueError("double_s_times: h must be finite and >= 0")
    if np.any(v <= 0.0) or np.any(a <= 0.0) or np.any(j <= 0.0):
        raise ValueError("double_s_times: bounds must be > 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        # Case with the maximum velocity reached.
        a_reachable = v * j >= a * a
        tj_c = np.where(a_reachable, a / j, np.sqrt(v / j))
        ta_c = np.where(a_reachable, tj_c + v / a, 2.0 * tj_c)
        tv = h / v - ta_c
        cruise = tv >= 0.0
        # Case without cruise: peak velocity < v_max.
        a_reached = h >= 2.0 * a**3 / (j * j)
        tj_a = a / j
        ta_a = 0.5 * (tj_a + np.sqrt(tj_a * tj_a + 4.0 * h / a))
        tj_n = np.cbrt(h / (2.0 * j))
        tj_nc = np.where(a_reached, tj_a, tj_n)
        ta_nc = np.where(a_reached, ta_a, 2.0 * tj_n)
    t_j = np.where(cruise, tj_c, tj_nc)
    t_a = np.where(cruise, ta_c, ta_nc)
    t_v = np.where(cruise, tv, 0.0)
    t_a = np.maximum(t_a, 2.0 * t_j)  # rounding only: the constant-acceleration phase is >= 0
    return t_j, t_a, t_v


def double_s_duration(h: ArrayLike, v_max: ArrayLike, a_max: ArrayLike, j_max: ArrayLike) -> FloatArray:
    """Minimum rest-to-rest time ``T = 2 Ta + Tv`` [s] for displacement ``h`` (vectorised).

    See :func:`double_s_times` for the parameters.
    """
    _, t_a, t_v = double_s_times(h, v_max, a_max, j_max)
    return 2.0 * t_a + t_v


_JERK_SIGNS = np.array([1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 1.0])


@dataclass(frozen=True, eq=False)
class DoubleSProfile:
    """A planned scalar time-optimal rest-to-rest double-S law ``s(t)``, ``t in [0, duration]``.

    Build with :func:`plan_double_s`.

    Attributes
    ----------
    h : float
        Displacement, ``s(duration) = h`` [u].
    v_max, a_max, j_max : float
        Bounds it was planned for [u/s, u/s^2, u/s^3].
    t_j, t_a, t_v : float
        Phase durations (see :func:`double_s_times`) [s].
    durations : ndarray, shape (7,)
        Phase durations [s] (some may be 0).
    jerks : ndarray, shape (7,)
        Jerk of each phase, in ``{+j_max, 0, -j_max}`` [u/s^3].
    knots : ndarray, shape (8,)
        Phase start times, ``knots[0] = 0``, ``knots[7] = duration`` [s].
    s0, v0, a0 : ndarray, shape (7,)
        Position [u], velocity [u/s] and acceleration [u/s^2] at each phase start.
    """

    h: float
    v_max: float
    a_max: float
    j_max: float
    t_j: float
    t_a: float
    t_v: float
    durations: FloatArray = field(repr=False)
    jerks: FloatArray = field(repr=False)
    knots: FloatArray = field(repr=False)
    s0: FloatArray = field(repr=False)
    v0: FloatArray = field(repr=False)
    a0: FloatArray = field(repr=False)

    @property
    def duration(self) -> float:
        """Total duration ``2 Ta + Tv`` [s]."""
        return float(self.knots[-1])

    @property
    def v_peak(self) -> float:
        """Peak velocity reached [u/s] (``<= v_max``)."""
        return float(self.v0[3])

    @property
    def a_peak(self) -> float:
        """Peak acceleration magnitude reached [u/s^2] (``<= a_max``)."""
        return float(self.a0[1])

    def evaluate(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Evaluate the law at times ``t`` [s] (held at rest outside ``[0, duration]``).

        Returns
        -------
        s, sd, sdd, sddd : ndarray, same shape as ``t``
            Position [u], velocity [u/s], acceleration [u/s^2], jerk [u/s^3].
        """
        t = np.asarray(t, dtype=float)
        k = np.clip(np.searchsorted(self.knots, t, side="right") - 1, 0, 6)
        tau = np.clip(t - self.knots[k], 0.0, self.durations[k])
        jk, ak, vk, sk = self.jerks[k], self.a0[k], self.v0[k], self.s0[k]
        s = sk + tau * (vk + tau * (0.5 * ak + tau * jk / 6.0))
        sd = vk + tau * (ak + 0.5 * tau * jk)
        sdd = ak + tau * jk
        sddd = np.where((t >= 0.0) & (t < self.duration), jk, 0.0)
        return s, sd, sdd, sddd


def plan_double_s(h: float, v_max: float, a_max: float, j_max: float) -> DoubleSProfile:
    """Plan the time-optimal rest-to-rest jerk-limited law for displacement ``h >= 0``.

    Closed-form phase durations (:func:`double_s_times`), no numeric search. The first
    half is integrated exactly; the second half is its mirror image
    (``s(T - t) = h - s(t)``, ``sd`` even, ``sdd`` odd), so the law ends exactly at
    ``(h, 0, 0)``.

    Parameters
    ----------
    h : float
        Displacement [u], >= 0.
    v_max, a_max, j_max : float
        Symmetric bounds [u/s, u/s^2, u/s^3], > 0.

    Returns
    -------
    DoubleSProfile
    """
    t_j, t_a, t_v = (float(x) for x in double_s_times(h, v_max, a_max, j_max))
    j = float(j_max)
    t_c = t_a - 2.0 * t_j
    durations = np.array([t_j, t_c, t_j, t_v, t_j, t_c, t_j])
    jerks = _JERK_SIGNS * j
    knots = np.concatenate(([0.0], np.cumsum(durations)))
    # First half, exact integration of the cubic pieces.
    a1 = j * t_j
    v1 = 0.5 * j * t_j**2
    s1 = j * t_j**3 / 6.0
    v2 = v1 + a1 * t_c
    s2 = s1 + v1 * t_c + 0.5 * a1 * t_c**2
    v3 = v2 + a1 * t_j - 0.5 * j * t_j**2
    s3 = s2 + v2 * t_j + 0.5 * a1 * t_j**2 - j * t_j**3 / 6.0
    h = float(h)
    # Second half: mirror of the first.
    s0 = np.array([0.0, s1, s2, s3, h - s3, h - s2, h - s1])
    v0 = np.array([0.0, v1, v2, v3, v3, v2, v1])
    a0 = np.array([0.0, a1, a1, 0.0, 0.0, -a1, -a1])
    return DoubleSProfile(
        h=h, v_max=float(v_max), a_max=float(a_max), j_max=j, t_j=t_j, t_a=t_a, t_v=t_v,
        durations=durations, jerks=jerks, knots=knots, s0=s0, v0=v0, a0=a0,
    )


# ---------------------------------------------------------------------------------------
# Synchronised joint-space straight segments
# ---------------------------------------------------------------------------------------


def _path_bounds(delta: FloatArray, bounds: MotionBounds) -> tuple[float, float, float]:
    """Bounds on the path parameter ``s`` for ``q = q0 + s delta`` (tightest joint, scaled)."""
    v, a, j = bounds.per_joint(delta.shape[-1])
    moving = np.abs(delta) > 0.0
    if not np.any(moving):
        return np.inf, np.inf, np.inf
    d = np.abs(delta[moving])
    return float(np.min(v[moving] / d)), float(np.min(a[moving] / d)), float(np.min(j[moving] / d))


def straight_segment_duration(delta: ArrayLike, bounds: MotionBounds = TABLE3_BOUNDS) -> FloatArray:
    """Duration [s] of synchronised straight motions with joint displacements ``delta`` (vectorised).

    Parameters
    ----------
    delta : array_like, shape (..., n)
        Joint displacements ``q1 - q0`` [rad].
    bounds : MotionBounds
        Per-joint bounds.

    Returns
    -------
    ndarray, shape (...)
        Minimum durations [s] (0 for zero displacement).
    """
    delta = np.abs(np.asarray(delta, dtype=float))
    v, a, j = bounds.per_joint(delta.shape[-1])
    # Path-parameter bounds min_j(b_j / |d_j|); the path law runs s from 0 to h = 1 under them.
    with np.errstate(divide="ignore"):
        vs = np.min(v / delta, axis=-1)
        as_ = np.min(a / delta, axis=-1)
        js = np.min(j / delta, axis=-1)
    still = ~np.isfinite(vs)
    vs, as_, js = (np.where(still, 1.0, x) for x in (vs, as_, js))
    return np.where(still, 0.0, double_s_duration(1.0, vs, as_, js))


@dataclass(frozen=True, eq=False)
class Segment:
    """One piece of a trajectory: a straight joint-space motion, or a hold (dwell) at rest.

    Attributes
    ----------
    t_start : float
        Start time [s].
    q_start, q_end : ndarray, shape (n,)
        Joint positions at start and end [rad] (equal for a hold).
    duration : float
        Duration [s].
    path : DoubleSProfile or None
        Path law ``s(t)`` (``h = 1``) of a motion ``q = q_start + s (q_end - q_start)``;
        ``None`` for a hold.
    """

    t_start: float
    q_start: FloatArray
    q_end: FloatArray
    duration: float
    path: DoubleSProfile | None = None

    @property
    def is_motion(self) -> bool:
        """True for a motion, False for a hold."""
        return self.path is not None

    @property
    def t_end(self) -> float:
        """End time [s]."""
        return self.t_start + self.duration

    def shifted(self, t_start: float) -> "Segment":
        """The same segment starting at ``t_start`` [s]."""
        return Segment(float(t_start), self.q_start, self.q_end, self.duration, self.path)

    def evaluate(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Evaluate at absolute times ``t`` [s], shape (N,) (held at rest outside the segment).

        Returns
        -------
        q, qd, qdd, qddd : ndarray, shape (N, n)
            [rad], [rad/s], [rad/s^2], [rad/s^3].
        """
        t = np.atleast_1d(np.asarray(t, dtype=float))
        if self.path is None:
            q = np.broadcast_to(self.q_start, (t.size, self.q_start.size)).copy()
            zero = np.zeros_like(q)
            return q, zero, zero.copy(), zero.copy()
        s, sd, sdd, sddd = self.path.evaluate(t - self.t_start)
        delta = self.q_end - self.q_start
        return (
            self.q_start + s[:, None] * delta,
            sd[:, None] * delta,
            sdd[:, None] * delta,
            sddd[:, None] * delta,
        )


def plan_straight_segment(
    q_start: ArrayLike, q_end: ArrayLike, bounds: MotionBounds = TABLE3_BOUNDS, t_start: float = 0.0
) -> Segment:
    """Plan the time-optimal synchronised straight joint-space motion from ``q_start`` to ``q_end``.

    All joints follow ``q(s) = q_start + s (q_end - q_start)``, rest to rest, with
    ``s(t)`` the double-S law (``h = 1``) under the path bounds
    ``v_s = min_j v_j / |dq_j|`` (same for acceleration and jerk, over the moving
    joints). Hence ``|qd_j| = |dq_j| |sd| <= v_j`` etc. for every joint, and the joint
    attaining each minimum saturates that bound whenever the path law does: no faster
    law along this line exists.

    Parameters
    ----------
    q_start, q_end : array_like, shape (n,)
        Start and end joint positions [rad].
    bounds : MotionBounds
        Per-joint bounds (default: Table 3).
    t_start : float
        Start time [s].

    Returns
    -------
    Segment
        A motion segment; a zero-length hold if ``q_end == q_start``.
    """
    q0 = np.array(q_start, dtype=float).reshape(-1)
    q1 = np.array(q_end, dtype=float).reshape(-1)
    if q0.shape != q1.shape:
        raise ValueError(f"q_start {q0.shape} and q_end {q1.shape} differ in shape")
    delta = q1 - q0
    vs, as_, js = _path_bounds(delta, bounds)
    if not np.isfinite(vs):
        return Segment(float(t_start), q0, q1, 0.0, None)
    path = plan_double_s(1.0, vs, as_, js)
    return Segment(float(t_start), q0, q1, path.duration, path)


# ---------------------------------------------------------------------------------------
# Trajectories
# ---------------------------------------------------------------------------------------


@njit(cache=True)
def _eval_piecewise_cubic(
    starts: FloatArray, lengths: FloatArray, coef: FloatArray, t: FloatArray,
    q: FloatArray, qd: FloatArray, qdd: FloatArray, qddd: FloatArray, with_jerk: bool,
) -> None:  # pragma: no cover - compiled
    """Evaluate the piecewise cubic at ``t`` (N,) into ``q, qd, qdd`` (N, n) and, if asked, ``qddd``.

    Piece lookup walks forward from the previous sample's piece (sorted ``t``: O(1) per
    sample) and falls back to bisection otherwise.
    """
    n_pieces = starts.size
    n = coef.shape[2]
    k = 0
    for i in range(t.size):
        ti = t[i]
        if not (starts[k] <= ti and (k + 1 == n_pieces or ti < starts[k + 1])):
            if k + 2 < n_pieces and starts[k + 1] <= ti and ti < starts[k + 2]:
                k += 1
            else:
                lo = 0
                hi = n_pieces
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if starts[mid] <= ti:
                        lo = mid
                    else:
                        hi = mid
                k = lo
        tau = ti - starts[k]
        before = tau < 0.0
        if before:
            tau = 0.0
        elif tau > lengths[k]:
            tau = lengths[k]
        for j in range(n):
            c0 = coef[k, 0, j]
            c1 = coef[k, 1, j]
            c2 = coef[k, 2, j]
            c3 = coef[k, 3, j]
            q[i, j] = c0 + tau * (c1 + tau * (0.5 * c2 + tau * (c3 * (1.0 / 6.0))))
            qd[i, j] = c1 + tau * (c2 + tau * (0.5 * c3))
            qdd[i, j] = c2 + tau * c3
            if with_jerk:
                qddd[i, j] = 0.0 if before else c3


class _PiecewiseCubic:
    """Joint-space piecewise cubic in time, built from segments; fast evaluation (numba).

    Piece ``k`` starts at ``starts[k]``, lasts ``lengths[k]`` (the last piece, a hold,
    lasts forever) and is ``q = c0 + c1 tau + c2 tau^2/2 + c3 tau^3/6`` with
    ``coef[k] = (q, qd, qdd, qddd)`` at its start, shape (K, 4, n). Before the first
    piece the first piece's start state (at rest) is held.
    """

    def __init__(self, segments: Sequence[Segment], q_initial: FloatArray) -> None:
        starts: list[float] = []
        lengths: list[float] = []
        coef: list[FloatArray] = []
        q_last = np.asarray(q_initial, dtype=float)
        zero = np.zeros_like(q_last)
        t_last = 0.0
        for seg in segments:
            if seg.path is None:
                if seg.duration > 0.0:
                    starts.append(seg.t_start)
                    lengths.append(seg.duration)
                    coef.append(np.stack([seg.q_start, zero, zero, zero]))
            else:
                p = seg.path
                delta = seg.q_end - seg.q_start
                for k in range(7):
                    if p.durations[k] <= 0.0:
                        continue
                    starts.append(seg.t_start + p.knots[k])
                    lengths.append(p.durations[k])
                    coef.append(np.stack([seg.q_start + p.s0[k] * delta, p.v0[k] * delta, p.a0[k] * delta, p.jerks[k] * delta]))
            q_last = seg.q_end
            t_last = seg.t_end
        starts.append(t_last)
        lengths.append(np.inf)
        coef.append(np.stack([q_last, zero, zero, zero]))
        self.n = q_last.size
        self.starts = np.asarray(starts, dtype=float)
        self.lengths = np.asarray(lengths, dtype=float)
        self.coef = np.ascontiguousarray(np.stack(coef), dtype=float)

    def __call__(self, t: ArrayLike, jerk: bool = False) -> tuple[FloatArray, ...]:
        t = np.ascontiguousarray(np.asarray(t, dtype=float).reshape(-1))
        shape = (t.size, self.n)
        q, qd, qdd = np.empty(shape), np.empty(shape), np.empty(shape)
        qddd = np.empty(shape if jerk else (0, self.n))
        _eval_piecewise_cubic(self.starts, self.lengths, self.coef, t, q, qd, qdd, qddd, jerk)
        return (q, qd, qdd, qddd) if jerk else (q, qd, qdd)


@dataclass(frozen=True, eq=False)
class Trajectory:
    """A joint-space trajectory made of straight rest-to-rest motions and holds.

    Attributes
    ----------
    segments : tuple of Segment
        Consecutive segments (motions and holds), contiguous in time from ``t = 0``.
    duration : float
        Nominal duration [s]: :meth:`sample_rate` covers exactly ``[0, duration)``.
        Outside ``[0, end_time]`` the trajectory is held at rest at its end points.
    bounds : MotionBounds
        Bounds the motions were planned for.
    q_initial : ndarray, shape (n,)
        Initial joint position [rad] (where the robot must be, at rest, at ``t = 0``).
    seed : int or None
        Seed of the random generator it was drawn with (provenance), if any.
    """

    segments: tuple[Segment, ...]
    duration: float
    bounds: MotionBounds
    q_initial: FloatArray
    seed: int | None = None
    _pp: _PiecewiseCubic = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "q_initial", np.asarray(self.q_initial, dtype=float).reshape(-1))
        object.__setattr__(self, "_pp", _PiecewiseCubic(self.segments, self.q_initial))

    @classmethod
    def from_targets(
        cls,
        targets: ArrayLike,
        bounds: MotionBounds = TABLE3_BOUNDS,
        dwell_s: float = 0.0,
        duration: float | None = None,
        seed: int | None = None,
    ) -> "Trajectory":
        """Straight time-optimal motions through ``targets`` (the first is the start), with dwells.

        Parameters
        ----------
        targets : array_like, shape (M, n)
            ``targets[0]`` is the initial position; the robot moves to each following
            one in turn and dwells ``dwell_s`` there [rad]. Repeated targets give no motion.
        bounds : MotionBounds
            Per-joint bounds.
        dwell_s : float
            Hold time after each motion [s], >= 0.
        duration : float, optional
            Nominal duration [s]; default: the end of the last segment.
        seed : int, optional
            Recorded for provenance.
        """
        targets = np.asarray(targets, dtype=float)
        if targets.ndim != 2 or targets.shape[0] < 1:
            raise ValueError("targets must have shape (M, n), M >= 1")
        segs: list[Segment] = []
        t = 0.0
        for q0, q1 in zip(targets[:-1], targets[1:]):
            seg = plan_straight_segment(q0, q1, bounds, t)
            if seg.duration > 0.0:
                segs.append(seg)
                t = seg.t_end
            if dwell_s > 0.0:
                segs.append(Segment(t, q1.copy(), q1.copy(), float(dwell_s), None))
                t += dwell_s
        return cls(tuple(segs), float(t if duration is None else duration), bounds, targets[0].copy(), seed)

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return int(self.q_initial.size)

    @property
    def end_time(self) -> float:
        """End of the last segment [s] (may exceed :attr:`duration` if the last motion is cut)."""
        return self.segments[-1].t_end if self.segments else 0.0

    @property
    def motions(self) -> tuple[Segment, ...]:
        """The motion segments (holds left out)."""
        return tuple(s for s in self.segments if s.is_motion)

    @property
    def targets(self) -> FloatArray:
        """Initial position then each motion's end point, shape (n_motions + 1, n) [rad]."""
        return np.vstack([self.q_initial] + [s.q_end for s in self.motions])

    @property
    def motion_start_times(self) -> FloatArray:
        """Start times of the motions, shape (n_motions,) [s]."""
        return np.array([s.t_start for s in self.motions])

    @property
    def motion_durations(self) -> FloatArray:
        """Durations of the motions, shape (n_motions,) [s]."""
        return np.array([s.duration for s in self.motions])

    def sample(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Set-points at times ``t``.

        Parameters
        ----------
        t : array_like, shape (N,)
            Times [s], any order.

        Returns
        -------
        q_sp, qd_sp, qdd_sp : ndarray, shape (N, n)
            Position [rad], velocity [rad/s], acceleration [rad/s^2].
        """
        return self._pp(t)  # type: ignore[return-value]

    def sample_with_jerk(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Like :meth:`sample`, plus the jerk ``qddd_sp`` [rad/s^3], shape (N, n).

        At a phase boundary the jerk of the phase that starts there is returned.
        """
        return self._pp(t, jerk=True)  # type: ignore[return-value]

    def time_grid(self, fs_hz: float) -> FloatArray:
        """Sample times ``k / fs_hz`` covering exactly ``[0, duration)``, shape (N,) [s]."""
        if fs_hz <= 0.0:
            raise ValueError("fs_hz must be > 0")
        n = int(np.ceil(np.round(self.duration * fs_hz, 9)))
        return np.arange(n, dtype=float) / fs_hz

    def sample_rate(self, fs_hz: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Sample at ``fs_hz`` over ``[0, duration)``.

        Returns
        -------
        t : ndarray, shape (N,)
            Times [s], ``N = ceil(duration fs_hz)``.
        q_sp, qd_sp, qdd_sp : ndarray, shape (N, n)
            [rad], [rad/s], [rad/s^2].
        """
        t = self.time_grid(fs_hz)
        q, qd, qdd = self.sample(t)
        return t, q, qd, qdd


def random_point_to_point(
    polygon: "Polygon",
    duration_s: float,
    rng_seed: int,
    bounds: MotionBounds = TABLE3_BOUNDS,
    dwell_s: float = 0.0,
    start: ArrayLike | None = None,
    end: Literal["hold", "truncate", "extend"] = "hold",
) -> Trajectory:
    """Random point-to-point trajectory: straight time-optimal motions between random targets.

    Targets are drawn uniformly inside the convex ``polygon`` (so every straight motion
    stays inside it) from ``numpy.random.Generator(PCG64(rng_seed))``, in fixed-size
    batches: the same seed gives the same target sequence whatever the duration (a
    longer trajectory extends a shorter one). After each motion the robot dwells
    ``dwell_s`` at the target.

    Parameters
    ----------
    polygon : Polygon
        Convex region of the joint space for the targets [rad].
    duration_s : float
        Nominal duration [s], > 0.
    rng_seed : int
        Seed (PCG64).
    bounds : MotionBounds
        Per-joint bounds (default: Table 3).
    dwell_s : float
        Hold after each motion [s], >= 0.
    start : array_like, shape (n,), optional
        Initial position (must be inside the polygon); default: a random point in it.
    end : {"hold", "truncate", "extend"}
        What happens at ``duration_s``:

        * ``"hold"`` (default): only motions that end by ``duration_s`` are kept; the
          robot then rests at the last target until ``duration_s``. Every motion is
          complete and the trajectory ends at rest; the duration is exact.
        * ``"truncate"``: motions are added until one ends at or after ``duration_s``;
          sampling over ``[0, duration_s)`` cuts the last one (the robot is moving at
          the end).
        * ``"extend"``: as ``"truncate"``, but the duration is extended to the end of
          the last motion (ends at rest; duration >= ``duration_s``).

    Returns
    -------
    Trajectory
    """
    if not duration_s > 0.0:
        raise ValueError("duration_s must be > 0")
    if dwell_s < 0.0:
        raise ValueError("dwell_s must be >= 0")
    if end not in ("hold", "truncate", "extend"):
        raise ValueError(f"end must be 'hold', 'truncate' or 'extend', not {end!r}")
    rng = np.random.Generator(np.random.PCG64(rng_seed))
    batch = 64
    pool = polygon.sample(rng, batch)
    used = 0

    def draw() -> FloatArray:
        nonlocal pool, used
        if used == batch:
            pool, used = polygon.sample(rng, batch), 0
        used += 1
        return pool[used - 1]

    if start is None:
        q = draw().copy()
    else:
        q = np.array(start, dtype=float).reshape(-1)
        if q.shape != (polygon.dim,) or not polygon.contains(q[None, :], tol=1e-9)[0]:
            raise ValueError("start must be a point inside the polygon")
    q_initial = q.copy()
    segs: list[Segment] = []
    t = 0.0
    while t < duration_s:
        target = draw().copy()
        seg = plan_straight_segment(q, target, bounds, t)
        if seg.duration <= 0.0:
            continue
        if end == "hold" and seg.t_end > duration_s:
            break
        segs.append(seg)
        t = seg.t_end
        q = target
        if t >= duration_s:
            break
        if dwell_s > 0.0:
            hold = min(dwell_s, duration_s - t) if end == "hold" else dwell_s
            segs.append(Segment(t, q.copy(), q.copy(), float(hold), None))
            t += hold
    total = float(duration_s)
    if end == "extend":
        total = max(total, segs[-1].t_end if segs else 0.0)
    return Trajectory(tuple(segs), total, bounds, q_initial, seed=int(rng_seed))


# ---------------------------------------------------------------------------------------
# Convex polygon in joint space
# ---------------------------------------------------------------------------------------


def _cross2(a: FloatArray, b: FloatArray) -> FloatArray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _hull(points: FloatArray) -> FloatArray:
    """Convex hull vertices, counter-clockwise, collinear points dropped (monotone chain)."""
    pts = np.asarray(points, dtype=float)
    if pts.shape[0] > 64:
        from scipy.spatial import ConvexHull, QhullError

        try:
            pts = pts[ConvexHull(pts).vertices]
        except QhullError:  # degenerate (collinear) input: fall through
            pass
    pts = np.unique(pts, axis=0)
    if pts.shape[0] < 3:
        return pts
    lower: list[FloatArray] = []
    for p in pts:
        while len(lower) >= 2 and _cross2(lower[-1] - lower[-2], p - lower[-2]) <= 0.0:
            lower.pop()
        lower.append(p)
    upper: list[FloatArray] = []
    for p in pts[::-1]:
        while len(upper) >= 2 and _cross2(upper[-1] - upper[-2], p - upper[-2]) <= 0.0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def _area(vertices: FloatArray) -> float:
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


@dataclass(frozen=True, eq=False)
class Polygon:
    """A convex polygon in a 2-D joint space.

    Stored both as vertices and as half-planes ``A q <= b``; :meth:`contains` and
    :meth:`sample` use only the half-plane form and a bounding box, so an n-D convex
    polytope can later offer the same interface.

    Attributes
    ----------
    vertices : ndarray, shape (V, 2)
        Vertices [rad], counter-clockwise, strictly convex (V >= 3).
    A : ndarray, shape (V, 2)
        Outward unit normals of the edges (edge ``i`` from vertex ``i`` to ``i+1``).
    b : ndarray, shape (V,)
        Offsets [rad]: the polygon is ``{q : A q <= b}``.
    """

    vertices: FloatArray
    A: FloatArray = field(init=False, repr=False)
    b: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        v = np.array(self.vertices, dtype=float)
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
            raise ValueError("Polygon vertices must have shape (V, 2), V >= 3")
        edges = np.roll(v, -1, axis=0) - v
        turn = _cross2(edges, np.roll(edges, -1, axis=0))
        if not np.all(turn > 0.0):
            raise ValueError("Polygon vertices must be strictly convex and counter-clockwise")
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        v.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "A", normals)
        object.__setattr__(self, "b", np.einsum("ij,ij->i", normals, v))

    @classmethod
    def from_points(cls, points: ArrayLike) -> "Polygon":
        """Convex hull of ``points`` (shape (M, 2)) [rad]."""
        return cls(_hull(np.asarray(points, dtype=float)))

    @property
    def dim(self) -> int:
        """Dimension of the joint space (2)."""
        return 2

    @property
    def area(self) -> float:
        """Area [rad^2]."""
        return _area(self.vertices)

    @property
    def centroid(self) -> FloatArray:
        """Area centroid, shape (2,) [rad]."""
        v = self.vertices
        w = np.roll(v, -1, axis=0)
        cr = _cross2(v, w)
        return np.sum((v + w) * cr[:, None], axis=0) / (3.0 * np.sum(cr))

    @property
    def box(self) -> FloatArray:
        """Bounding box, shape (2, 2): row 0 lower, row 1 upper corner [rad]."""
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    def contains(self, Q: ArrayLike, tol: float = 0.0) -> NDArray[np.bool_]:
        """Whether points are inside (or within ``tol`` [rad] of) the polygon.

        Parameters
        ----------
        Q : array_like, shape (M, 2)
            Points [rad].
        tol : float
            Outward tolerance [rad].

        Returns
        -------
        ndarray of bool, shape (M,)
        """
        Q = np.asarray(Q, dtype=float)
        x = np.ascontiguousarray(Q[..., 0])
        y = np.ascontiguousarray(Q[..., 1])
        inside = np.ones(x.shape, dtype=bool)
        for (ax, ay), bi in zip(self.A, self.b + tol):  # one pass per edge: fast for 2-D points
            inside &= x * ax + y * ay <= bi
        return inside

    def sample(self, rng: np.random.Generator, n: int) -> FloatArray:
        """``n`` points uniformly distributed inside (rejection sampling in the bounding box).

        Parameters
        ----------
        rng : numpy.random.Generator
        n : int

        Returns
        -------
        ndarray, shape (n, 2)
            Points [rad].
        """
        lo, hi = self.box
        fill = self.area / float(np.prod(hi - lo))
        out = np.empty((0, self.dim))
        while out.shape[0] < n:
            m = int(np.ceil(1.2 * (n - out.shape[0]) / fill)) + 8
            cand = rng.uniform(lo, hi, size=(m, self.dim))
            out = np.vstack([out, cand[self.contains(cand)]])
        return out[:n]

    def boundary_points(self, spacing: float) -> FloatArray:
        """Points along the edges (vertices included), at most ``spacing`` [rad] apart, shape (M, 2)."""
        v = self.vertices
        w = np.roll(v, -1, axis=0)
        pts = []
        for p, q in zip(v, w):
            k = max(1, int(np.ceil(np.linalg.norm(q - p) / spacing)))
            s = np.arange(k)[:, None] / k
            pts.append(p + s * (q - p))
        return np.vstack(pts)

    def interior_points(self, spacing: float, offset: float = 0.5) -> FloatArray:
        """Points of a square lattice of pitch ``spacing`` [rad] that lie inside, shape (M, 2).

        The lattice is anchored at the bounding box's lower corner plus ``offset * spacing``.
        """
        lo, hi = self.box
        axes = [np.arange(lo[i] + offset * spacing, hi[i], spacing) for i in range(2)]
        g = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 2)
        return g[self.contains(g)]

    def shrunk(self, factor: float, center: ArrayLike | None = None) -> "Polygon":
        """Scaled copy about ``center`` (default: centroid) by ``factor`` in (0, 1]."""
        c = self.centroid if center is None else np.asarray(center, dtype=float)
        return Polygon(c + factor * (self.vertices - c))


SigmaFn = Callable[[FloatArray], FloatArray]


def safe_sigma(sigma: SigmaFn, errors: tuple[type[BaseException], ...] = (ValueError,)) -> SigmaFn:
    """Wrap a condition-index function so that points where it raises give NaN.

    The batch is evaluated at once; if it raises one of ``errors``, it is split in
    halves recursively until the offending points are isolated (cost ``O(k log M)``
    calls for ``k`` bad points among ``M``).

    Parameters
    ----------
    sigma : callable
        ``sigma(Q) -> ndarray`` with ``Q`` of shape (M, 2) [rad], result shape (M,).
    errors : tuple of exception types
        Errors meaning "outside the workspace / singular".

    Returns
    -------
    callable
        Same signature; never raises ``errors``; NaN where ``sigma`` raised.
    """

    def wrapped(Q: FloatArray) -> FloatArray:
        Q = np.asarray(Q, dtype=float)
        out = np.full(Q.shape[0], np.nan)

        def fill(lo: int, hi: int) -> None:
            if hi <= lo:
                return
            try:
                value = sigma(Q[lo:hi])
            except errors:
                if hi - lo > 1:
                    mid = (lo + hi) // 2
                    fill(lo, mid)
                    fill(mid, hi)
                return
            out[lo:hi] = np.asarray(value, dtype=float).reshape(hi - lo)

        fill(0, Q.shape[0])
        return out

    return wrapped


def _clip(verts: FloatArray, normal: FloatArray, offset: float) -> FloatArray:
    """Clip a convex polygon (V, 2) to the half-plane ``normal . q <= offset``."""
    out: list[FloatArray] = []
    dist = verts @ normal - offset
    nv = verts.shape[0]
    for i in range(nv):
        p, q = verts[i], verts[(i + 1) % nv]
        dp, dq = dist[i], dist[(i + 1) % nv]
        if dp <= 0.0:
            out.append(p)
        if (dp < 0.0 < dq) or (dq < 0.0 < dp):
            out.append(p + (dp / (dp - dq)) * (q - p))
    return np.array(out).reshape(-1, 2)


def _reduce_vertices(verts: FloatArray, max_vertices: int, center: FloatArray, negligible: float = 1e-3) -> FloatArray:
    """Drop vertices of a convex polygon, least area lost first, keeping ``center`` strictly inside.

    Vertices go while there are more than ``max_vertices``, or while one can go losing
    less than ``negligible`` times the area (near-collinear vertices). The result is a
    subset of the input polygon.
    """
    v = [p for p in verts]
    area0 = _area(np.asarray(verts))
    while len(v) > 3:
        arr = np.array(v)
        prev, nxt = np.roll(arr, 1, axis=0), np.roll(arr, -1, axis=0)
        loss = 0.5 * _cross2(arr - prev, nxt - prev)
        # Removing vertex i leaves edge prev->nxt; center must stay strictly on its left.
        keeps_center = _cross2(nxt - prev, center - prev) > 0.0
        loss = np.where(keeps_center, loss, np.inf)
        i = int(np.argmin(loss))
        if not np.isfinite(loss[i]) or (len(v) <= max_vertices and loss[i] >= negligible * area0):
            break
        v.pop(i)
    return np.array(v)


def _halfplane_polygon(normals: FloatArray, offsets: FloatArray, box: FloatArray) -> FloatArray:
    """Vertices of ``{q in box : normals q <= offsets}``, counter-clockwise."""
    verts = np.array([[box[0, 0], box[0, 1]], [box[1, 0], box[0, 1]], [box[1, 0], box[1, 1]], [box[0, 0], box[1, 1]]])
    for n, d in zip(normals, offsets):
        verts = _clip(verts, n, float(d))
        if verts.shape[0] < 3:
            break
    return verts


def _balloon(start: FloatArray, normals: FloatArray, proj_bad: FloatArray, support: FloatArray, margin: float) -> FloatArray:
    """Grow the polygon ``P = {q : n_k q <= b_k}`` (fixed normals) from ``start`` until every face is blocked.

    All free faces move outward at the same speed (an exact event-driven simulation,
    no time step); a face stops when the polygon would otherwise take in an
    inadmissible point (the face that last kept the point out stops), or at the box.
    It works on the enlarged polygon ``Q = {q : n_k q <= b_k + margin}``, which must hold
    no inadmissible point (``proj_bad``: their projections on the normals, shape (M, K)):
    so every inadmissible point stays farther than ``margin`` from ``P``.

    Returns
    -------
    b : ndarray, shape (K,)
        Offsets of ``P`` (the single point ``start`` if an inadmissible point is within
        ``margin`` of it). ``support`` (K,) is the box's support function.
    """
    bq = normals @ start + margin
    if np.any(np.all(proj_bad <= bq, axis=1)):
        return bq - margin
    limit = support + margin
    free = bq < limit
    tiny = 1e-9 * margin
    while free.any():
        slack = proj_bad - bq  # > 0: the face keeps the point out
        live = ~np.any(slack[:, ~free] > 0.0, axis=1)  # points no stopped face keeps out
        free_idx = np.flatnonzero(free)
        t_box = float(np.min(limit[free_idx] - bq[free_idx]))
        t_pts, j = np.inf, -1
        if live.any():
            s_free = slack[live][:, free_idx]
            entry = s_free.max(axis=1)  # when the last free face keeping it out passes it
            j = int(np.argmin(entry))
            t_pts = max(float(entry[j]), 0.0)
        if t_box <= t_pts:
            bq[free_idx] += max(t_box, 0.0)
            free &= bq < limit - tiny
            continue
        bq[free_idx] += t_pts
        k = int(free_idx[np.argmax(s_free[j])])
        bq[k] = float(proj_bad[np.flatnonzero(live)[j], k]) - tiny
        free[k] = False
    return np.minimum(bq, limit) - margin


_CUT_ANGLES = np.arange(180) * (2.0 * np.pi / 180)  # cut-line normal directions, 2 deg apart


def _repair(
    verts: FloatArray,
    c: FloatArray,
    admissible: Callable[[FloatArray], NDArray[np.bool_]],
    g_pts: FloatArray,
    g_ok: NDArray[np.bool_],
    lattice: FloatArray,
    lattice_ok: NDArray[np.bool_],
    spacing: float,
    max_vertices: int,
    max_iter: int,
    min_area: float,
) -> Polygon | None:
    """Cut inadmissible check points out of a convex polygon (``c`` kept inside), then reduce its vertices.

    ``lattice_ok`` caches the admissibility of ``lattice`` points (NaN-free bool), evaluated
    by the caller. Returns ``None`` if the polygon collapses or ``max_iter`` is reached.
    """
    normals = np.stack([np.cos(_CUT_ANGLES), np.sin(_CUT_ANGLES)], axis=1)
    eps = 0.1 * spacing  # each cut also removes a thin band: no creeping along curved edges
    bad_weight = float(g_pts.shape[0])  # lexicographic: fewest inadmissible kept, then most admissible
    verts = _hull(verts)
    if verts.shape[0] < 3 or _area(verts) <= min_area:
        return None
    poly = Polygon(verts)
    g_idx = np.flatnonzero(poly.contains(g_pts))
    l_idx = np.flatnonzero(poly.contains(lattice))
    for _ in range(max_iter):
        edge_pts = poly.boundary_points(spacing / 4.0)
        bad = np.vstack([
            edge_pts[~admissible(edge_pts)],
            lattice[l_idx[~lattice_ok[l_idx]]],
            g_pts[g_idx[~g_ok[g_idx]]],
        ])
        if bad.shape[0] == 0:
            verts = _reduce_vertices(poly.vertices, max_vertices, c)
            if verts.shape[0] == poly.vertices.shape[0]:
                return poly
        else:
            p = bad[np.argmin(np.sum((bad - c) ** 2, axis=1))]
            offsets = normals @ p - eps  # candidate cuts keep n . q <= n . p - eps
            valid = normals @ c < offsets - eps
            # Score on at most ~8000 planning-grid points, plus the inadmissible check points found.
            sel = g_idx[:: max(1, g_idx.size // 4000)]
            gx = np.concatenate([g_pts[sel, 0], bad[:, 0]])
            gy = np.concatenate([g_pts[sel, 1], bad[:, 1]])
            weight = np.concatenate([np.where(g_ok[sel], 1.0, -bad_weight), np.full(bad.shape[0], -bad_weight)])
            score = np.full(normals.shape[0], -np.inf)
            for k in np.flatnonzero(valid):
                score[k] = weight @ (gx * normals[k, 0] + gy * normals[k, 1] <= offsets[k])
            k = int(np.argmax(score))
            if not np.isfinite(score[k]):
                return None
            verts = _clip(poly.vertices, normals[k], float(offsets[k]))
        verts = _hull(verts)
        if verts.shape[0] < 3 or _area(verts) <= min_area:
            return None
        poly = Polygon(verts)
        g_idx = g_idx[poly.contains(g_pts[g_idx])]
        l_idx = l_idx[poly.contains(lattice[l_idx])]
    return None


def well_conditioned_polygon(
    sigma: SigmaFn,
    threshold: float,
    box_rad: ArrayLike,
    seed_rad: ArrayLike | None = None,
    *,
    grid_n: int = 201,
    max_vertices: int = 10,
    check_spacing_rad: float | None = None,
    catch_errors: bool = True,
    method: Literal["auto", "cut", "balloon"] = "auto",
    n_starts: int = 12,
    n_normals: int = 24,
    max_iter: int = 1000,
) -> Polygon:
    """A large convex polygon of the joint space where the condition index is ``>= threshold``.

    The largest convex subset of a non-convex region (the "potato peeling" problem) is
    expensive to find exactly; this is a multi-start heuristic that keeps the largest
    of several admissible candidates:

    1. evaluate ``sigma`` on a ``grid_n x grid_n`` planning grid over the box; a grid
       point is admissible if ``sigma >= threshold`` (NaN is inadmissible); keep the
       4-connected admissible component holding ``seed_rad`` (default: the largest);
    2. candidates (``method``):

       * ``"cut"``: the component's convex hull, repaired as in step 3 around the
         component's deepest point (largest distance to the inadmissible set or the
         box edge);
       * ``"balloon"``: from each of ``n_starts`` start points (the deepest point,
         then farthest-point samples of the component's interior), a polygon with
         ``n_normals`` fixed edge directions grows, all faces outward at the same
         speed, each face stopping when the polygon would come within one grid pitch
         of an inadmissible grid point (or at the box);
       * ``"auto"`` (default): all of the above;

    3. repair each candidate: evaluate ``sigma`` afresh at check points -- along the
       edges (vertices included, pitch ``check_spacing_rad / 4``) and on a fixed
       interior lattice of pitch ``check_spacing_rad`` offset by half a pitch from the
       planning grid; while some of them or of the planning-grid points inside are inadmissible, cut the polygon with a line through
       the one nearest the candidate's centre, choosing among 180 orientations the one
       that keeps the fewest inadmissible (planning-grid and check) points, then the
       most admissible planning-grid points; then, while there are more than ``max_vertices`` vertices or one of
       them is nearly collinear (removal loses < 0.1 % of the area), drop the vertex
       whose removal loses the least area (the polygon only shrinks) and check again;
    4. return the largest repaired candidate.

    The result is admissible at every check point: between them, to the resolution
    ``check_spacing_rad``. It is deterministic (no random numbers).

    Parameters
    ----------
    sigma : callable
        ``sigma(Q) -> ndarray``, ``Q`` of shape (M, 2) [rad], result shape (M,);
        NaN outside the workspace or at singularities.
    threshold : float
        Minimum admissible condition index.
    box_rad : array_like, shape (2, 2)
        Joint-space box: row 0 lower corner, row 1 upper corner [rad].
    seed_rad : array_like, shape (2,), optional
        A point of the wanted admissible component [rad]; default: largest component.
    grid_n : int
        Planning grid points per axis.
    max_vertices : int
        Maximum number of vertices (>= 3).
    check_spacing_rad : float, optional
        Interior check pitch [rad]; default: the planning grid pitch (the smaller of the two axes).
    catch_errors : bool
        Wrap ``sigma`` with :func:`safe_sigma` (``ValueError`` -> NaN).
    method : {"auto", "cut", "balloon"}
        Candidates to try (see above).
    n_starts : int
        Balloon start points.
    n_normals : int
        Balloon edge directions (a multiple of 4 keeps the box faces among them).
    max_iter : int
        Maximum cut / reduce iterations per candidate.

    Returns
    -------
    Polygon

    Raises
    ------
    ValueError
        No admissible point, or the seed is not admissible.
    RuntimeError
        No candidate could be repaired.
    """
    from scipy import ndimage

    if max_vertices < 3:
        raise ValueError("max_vertices must be >= 3")
    if method not in ("auto", "cut", "balloon"):
        raise ValueError(f"method must be 'auto', 'cut' or 'balloon', not {method!r}")
    fn = safe_sigma(sigma) if catch_errors else sigma
    box = np.asarray(box_rad, dtype=float)
    if box.shape != (2, 2) or np.any(box[1] <= box[0]):
        raise ValueError("box_rad must have shape (2, 2): [lower, upper] with lower < upper")

    def admissible(Q: FloatArray) -> NDArray[np.bool_]:
        if Q.shape[0] == 0:
            return np.zeros(0, dtype=bool)
        s = np.asarray(fn(Q), dtype=float).reshape(Q.shape[0])
        with np.errstate(invalid="ignore"):
            return s >= threshold

    # 1. Planning grid and admissible component.
    axes = [np.linspace(box[0, i], box[1, i], grid_n) for i in range(2)]
    step = np.array([ax[1] - ax[0] for ax in axes])
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    mask = admissible(grid.reshape(-1, 2)).reshape(grid_n, grid_n)
    if not mask.any():
        raise ValueError("well_conditioned_polygon: no grid point has sigma >= threshold")
    labels, _ = ndimage.label(mask)
    if seed_rad is None:
        sizes = np.bincount(labels.ravel())
        sizes[0] = 0
        wanted = int(np.argmax(sizes))
    else:
        seed = np.asarray(seed_rad, dtype=float)
        idx = tuple(int(np.clip(np.rint((seed[i] - box[0, i]) / step[i]), 0, grid_n - 1)) for i in range(2))
        wanted = int(labels[idx])
        if wanted == 0:
            raise ValueError(f"well_conditioned_polygon: seed {seed} is not admissible on the grid")
    comp = labels == wanted
    depth = ndimage.distance_transform_edt(np.pad(comp, 1), sampling=step)[1:-1, 1:-1]
    c_deep = grid[np.unravel_index(int(np.argmax(depth)), depth.shape)]
    hull = _hull(grid[comp])
    if hull.shape[0] < 3:
        raise ValueError("well_conditioned_polygon: the admissible component is degenerate (a point or a line)")

    # Shared check data.
    spacing = float(np.min(step)) if check_spacing_rad is None else float(check_spacing_rad)
    lat_axes = [np.arange(box[0, i] + 0.5 * spacing, box[1, i], spacing) for i in range(2)]
    lattice = np.stack(np.meshgrid(*lat_axes, indexing="ij"), axis=-1).reshape(-1, 2)
    in_hull = Polygon(hull).contains(lattice)
    lattice_ok = np.zeros(lattice.shape[0], dtype=bool)
    lattice_ok[in_hull] = admissible(lattice[in_hull])  # every candidate lies in the hull
    g_pts = grid.reshape(-1, 2)
    g_ok = mask.reshape(-1)
    min_area = 1e-9 * float(np.prod(box[1] - box[0]))

    def repair(verts: FloatArray, centre: FloatArray) -> Polygon | None:
        return _repair(verts, centre, admissible, g_pts, g_ok, lattice, lattice_ok, spacing, max_vertices, max_iter, min_area)

    # 2-3. Candidates.
    candidates: list[Polygon] = []
    if method in ("auto", "cut"):
        poly = repair(hull, c_deep)
        if poly is not None:
            candidates.append(poly)
    if method in ("auto", "balloon"):
        ang = np.arange(n_normals) * (2.0 * np.pi / n_normals)
        normals = np.stack([np.cos(ang), np.sin(ang)], axis=1)
        corners = np.array([[box[i, 0], box[j, 1]] for i in (0, 1) for j in (0, 1)])
        support = np.max(corners @ normals.T, axis=0)
        border = ndimage.binary_dilation(mask, structure=np.ones((3, 3), dtype=bool)) & ~mask
        bad_pts = grid[border]
        proj_bad = bad_pts[:, :1] * normals[:, 0] + bad_pts[:, 1:] * normals[:, 1]
        for start in _start_points(grid, comp, depth, n_starts):
            # Keep a grid pitch from the inadmissible grid points: the region's true edge
            # lies somewhere between them and the admissible ones.
            b = _balloon(start, normals, proj_bad, support, float(np.max(step)))
            verts = _halfplane_polygon(normals, b, box)
            if verts.shape[0] >= 3:
                poly = repair(verts, start)
                if poly is not None:
                    candidates.append(poly)
    if not candidates:
        raise RuntimeError("well_conditioned_polygon: no admissible candidate polygon")
    # 4. The largest.
    return max(candidates, key=lambda p: p.area)


def _start_points(grid: FloatArray, comp: NDArray[np.bool_], depth: FloatArray, n: int) -> FloatArray:
    """The deepest component point, then farthest-point samples of the component's interior, shape (<= n, 2)."""
    deep = comp & (depth >= 0.3 * depth.max())
    pts, d = grid[deep], depth[deep]
    chosen = [int(np.argmax(d))]
    dist = np.linalg.norm(pts - pts[chosen[0]], axis=1)
    while len(chosen) < min(n, pts.shape[0]):
        i = int(np.argmax(dist))
        if dist[i] <= 0.0:
            break
        chosen.append(i)
        dist = np.minimum(dist, np.linalg.norm(pts - pts[i], axis=1))
    return pts[chosen]


def longest_motion_duration(polygon: Polygon, bounds: MotionBounds = TABLE3_BOUNDS, per_edge: int = 64) -> float:
    """Duration [s] of the longest straight time-optimal motion between two points of the polygon.

    The displacements ``q1 - q0`` of point pairs form the difference body ``P - P``, a
    convex polygon whose vertices are vertex differences; the motion time grows along
    every ray from the origin, so the maximum lies on its boundary, which is sampled
    with ``per_edge`` points per edge. With the same bounds for every joint (Table 3)
    the time depends only on ``max_j |dq_j|`` and the maximum is at a vertex pair.
    """
    v = polygon.vertices
    diffs = (v[:, None, :] - v[None, :, :]).reshape(-1, 2)
    dbody = _hull(diffs)
    if dbody.shape[0] < 3:
        cand = diffs
    else:
        w = np.roll(dbody, -1, axis=0)
        s = np.arange(per_edge)[:, None, None] / per_edge
        cand = (dbody[None] + s * (w - dbody)[None]).reshape(-1, 2)
    return float(np.max(straight_segment_duration(cand, bounds)))


# ---------------------------------------------------------------------------------------
# Benchmarks (``paperlib bench`` convention)
# ---------------------------------------------------------------------------------------


def benchmarks() -> dict[str, Callable[[], float]]:
    """Speed of trajectory sampling: 40 s at 4 kHz, best of 5, in ms."""

    def sample_40s_4khz_ms() -> float:
        poly = Polygon(np.deg2rad(np.array([[60.0, 60.0], [150.0, 40.0], [170.0, 120.0], [90.0, 160.0]])))
        traj = random_point_to_point(poly, 40.0, 0)
        t = traj.time_grid(4000.0)
        best = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            traj.sample(t)
            best = min(best, time.perf_counter() - t0)
        return 1e3 * best

    return {"trajectory_sample_40s_4khz_ms": sample_40s_4khz_ms}
