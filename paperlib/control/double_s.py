"""The scalar time-optimal rest-to-rest jerk-limited law (the 7-phase "double S") and its bounds.

* :class:`MotionBounds` -- symmetric per-joint bounds on velocity, acceleration and jerk
  (a robot's values: :func:`paperlib.control.planning.motion_bounds`).
* :func:`double_s_times` / :func:`double_s_duration` / :func:`plan_double_s` -- exact
  closed-form phase durations for all four cases (maximum velocity and/or maximum
  acceleration reached or not), and the planned law :class:`DoubleSProfile`. By
  Pontryagin's principle the jerk of the time-optimal law is, at every instant,
  ``+j_max``, ``-j_max`` or ``0``.

Units are SI throughout (rad, rad/s, rad/s^2, rad/s^3, s, or any unit ``u`` for the scalar
law). Degrees appear only at the edges, in names ending in ``_deg``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MotionBounds",
    "double_s_times",
    "double_s_duration",
    "DoubleSProfile",
    "plan_double_s",
]

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------------------
# Bounds
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
