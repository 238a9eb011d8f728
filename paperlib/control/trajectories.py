"""Random point-to-point test trajectories, as in the flagship paper (Sec. 3.2, Fig. 4).

The paper's test motions are random, high-speed point-to-point motions planned as
joint-space straight segments between targets drawn inside a well-conditioned convex
polygon of the joint space. Each motion law is time-optimal under symmetric bounds on
the velocity, acceleration and jerk of every joint (the robot's, e.g.
:func:`paperlib.control.planning.motion_bounds`), rest-to-rest.

Pieces, from the bottom up:

* :mod:`paperlib.control.double_s` -- :class:`MotionBounds` and the scalar time-optimal
  rest-to-rest jerk-limited law (:func:`double_s_times` / :func:`plan_double_s`);
* :func:`plan_straight_segment` -- a synchronised joint-space straight segment
  ``q(s) = q0 + s (q1 - q0)``, ``s in [0, 1]``, whose path law is the double S with the
  tightest joint bounds scaled by ``|q1_j - q0_j|``: every joint stays within its own
  bounds and at least one joint saturates a bound, so the segment is time-optimal
  among motions along that straight line;
* :mod:`paperlib.control.workspace_geometry` -- :class:`Polygon` and
  :func:`well_conditioned_polygon`, a convex polygon inside the region of the joint
  space where a condition index ``sigma >= threshold``;
* :func:`random_point_to_point` -> :class:`Trajectory` -- consecutive random targets
  drawn uniformly in the polygon; fast vectorised sampling of ``q, qd, qdd`` (and jerk).

The names of the two lower modules are re-exported here. Units are SI throughout (rad,
rad/s, rad/s^2, rad/s^3, s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from paperlib.control.double_s import (
    DoubleSProfile,
    MotionBounds,
    double_s_duration,
    double_s_times,
    plan_double_s,
)
from paperlib.control.workspace_geometry import Polygon, convex_hull, safe_sigma, well_conditioned_polygon

__all__ = [
    "MotionBounds",
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
]

FloatArray = NDArray[np.float64]


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


def straight_segment_duration(delta: ArrayLike, bounds: MotionBounds) -> FloatArray:
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
    q_start: ArrayLike, q_end: ArrayLike, bounds: MotionBounds, t_start: float = 0.0
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
        Per-joint bounds (a robot's: :func:`paperlib.control.planning.motion_bounds`).
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
        q_last = np.asarray(q_initial, dtype=float)
        n = q_last.size
        n_pieces = 1 + sum((seg.duration > 0.0) if seg.path is None else int(np.count_nonzero(seg.path.durations[:7] > 0.0))
                           for seg in segments)
        starts = np.empty(n_pieces)
        lengths = np.empty(n_pieces)
        coef = np.zeros((n_pieces, 4, n))  # (q, qd, qdd, qddd) at each piece's start; a hold's rates stay 0
        i = 0
        t_last = 0.0
        for seg in segments:
            if seg.path is None:
                if seg.duration > 0.0:
                    starts[i], lengths[i] = seg.t_start, seg.duration
                    coef[i, 0] = seg.q_start
                    i += 1
            else:
                p = seg.path
                delta = seg.q_end - seg.q_start
                for k in range(7):
                    if p.durations[k] <= 0.0:
                        continue
                    starts[i], lengths[i] = seg.t_start + p.knots[k], p.durations[k]
                    coef[i, 0] = seg.q_start + p.s0[k] * delta
                    coef[i, 1] = p.v0[k] * delta
                    coef[i, 2] = p.a0[k] * delta
                    coef[i, 3] = p.jerks[k] * delta
                    i += 1
            q_last = seg.q_end
            t_last = seg.t_end
        starts[i], lengths[i] = t_last, np.inf
        coef[i, 0] = q_last
        self.n = n
        self.starts = starts
        self.lengths = lengths
        self.coef = coef

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
        bounds: MotionBounds,
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
    bounds: MotionBounds,
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
        Per-joint bounds (a robot's: :func:`paperlib.control.planning.motion_bounds`).
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
# Longest motion in a polygon
# ---------------------------------------------------------------------------------------


def longest_motion_duration(polygon: Polygon, bounds: MotionBounds, per_edge: int = 64) -> float:
    """Duration [s] of the longest straight time-optimal motion between two points of the polygon.

    The displacements ``q1 - q0`` of point pairs form the difference body ``P - P``, a
    convex polygon whose vertices are vertex differences; the motion time grows along
    every ray from the origin, so the maximum lies on its boundary, which is sampled
    with ``per_edge`` points per edge. With the same bounds for every joint
    the time depends only on ``max_j |dq_j|`` and the maximum is at a vertex pair.
    """
    v = polygon.vertices
    diffs = (v[:, None, :] - v[None, :, :]).reshape(-1, 2)
    dbody = convex_hull(diffs)
    if dbody.shape[0] < 3:
        cand = diffs
    else:
        w = np.roll(dbody, -1, axis=0)
        s = np.arange(per_edge)[:, None, None] / per_edge
        cand = (dbody[None] + s * (w - dbody)[None]).reshape(-1, 2)
    return float(np.max(straight_segment_duration(cand, bounds)))
