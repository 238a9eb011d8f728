"""Excitation trajectories for identification (paper 001, Sec. 2.2).

- :class:`FourierTrajectory`: the finite Fourier series of eq. 7 (Swevers et al.),
  ``q_i(t) = q_i0 + sum_l a_li/(w_f l) sin(w_f l t) - b_li/(w_f l) cos(w_f l t)``, N = 5 harmonics;
  :func:`optimise_fourier` chooses the coefficients that minimise the condition number of the
  base regressor over one period, within joint position, velocity and acceleration limits;
- :func:`cycloidal`: eqs. 8-10, a rest-to-rest cycloidal motion, and
  :func:`cycloidal_round_trip` (reversed so it holds both velocity signs, first and last points
  coincident);
- :func:`trapezoidal_plateaus`: constant-velocity segments at 5, 20, 40, 60, 80 and 100 % of the
  joint's maximum speed in both directions, all plateaus of equal duration (the friction
  stage of paper 001), with a mask of the constant-velocity samples.

Angles in rad, time in s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

__all__ = ["FourierTrajectory", "optimise_fourier", "cycloidal", "cycloidal_round_trip", "trapezoidal_plateaus",
           "PAPER_SPEED_FRACTIONS"]

#: plateau speeds of paper 001's friction stage, fractions of the maximum joint speed
PAPER_SPEED_FRACTIONS: tuple[float, ...] = (0.05, 0.20, 0.40, 0.60, 0.80, 1.00)


@dataclass(frozen=True)
class FourierTrajectory:
    """Eq. 7 of paper 001 for n joints.

    Attributes
    ----------
    wf : float
        Fundamental angular frequency [rad/s] (period ``2 pi / wf``).
    q0 : ndarray, shape (n,)
        Offsets [rad].
    a, b : ndarray, shape (N, n)
        Coefficients [rad/s] of harmonic ``l = 1..N`` (rows) per joint (columns).
    """

    wf: float
    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def period(self) -> float:
        return 2.0 * np.pi / self.wf

    def __call__(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Angles, velocities and accelerations at times ``t`` (M,): three (M, n) arrays."""
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        N = self.a.shape[0]
        l = np.arange(1, N + 1)[:, None]  # (N, 1)
        wl = self.wf * l
        ph = wl[None, :, :] * t[:, None, None]  # (M, N, 1)
        s, c = np.sin(ph), np.cos(ph)
        a, b = self.a[None], self.b[None]
        q = self.q0 + np.sum(a / wl * s - b / wl * c, axis=1)
        qd = np.sum(a * c + b * s, axis=1)
        qdd = np.sum(-a * wl * s + b * wl * c, axis=1)
        return q, qd, qdd

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Analytic upper bounds per joint, (n,) each: the largest excursion of ``q`` about its mean,
        ``max |qd|`` and ``max |qdd|`` (sums of the harmonics' amplitudes)."""
        N = self.a.shape[0]
        wl = self.wf * np.arange(1, N + 1)[:, None]
        amp = np.hypot(self.a, self.b)
        return np.sum(amp / wl, axis=0), np.sum(amp, axis=0), np.sum(amp * wl, axis=0)


def optimise_fourier(
    base_regressor: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    n_joints: int,
    *,
    q_center: Sequence[float],
    q_range: Sequence[float],
    qd_max: Sequence[float],
    qdd_max: Sequence[float],
    wf: float = 2 * np.pi * 0.1,
    n_harmonics: int = 5,
    n_grid: int = 100,
    seed: int = 0,
    maxiter: int = 60,
) -> tuple[FourierTrajectory, float]:
    """Fourier coefficients minimising ``cond(W_b)`` over one period, within the limits.

    Parameters
    ----------
    base_regressor : callable
        ``(q, qd, qdd) (M, n) -> (M, n, r)``: the base regressor (e.g.
        ``lambda q, qd, qdd: bp.columns(arm.regressor(q, qd, qdd))``).
    n_joints : int
    q_center, q_range : sequence of float, (n,)
        Mean angle and the largest excursion about it [rad].
    qd_max, qdd_max : sequence of float, (n,)
        Velocity and acceleration limits [rad/s], [rad/s^2].
    wf : float
        Fundamental angular frequency [rad/s] (default 0.1 Hz: a 10-s period).
    n_harmonics : int
        N of eq. 7 (5 in paper 001).
    n_grid : int
        Samples of one period on which the condition number is evaluated.
    seed : int
        Start point (random coefficients scaled inside the limits).
    maxiter : int
        L-BFGS-B iterations (0: the random start, scaled into the limits).

    Returns
    -------
    trajectory : FourierTrajectory
        With ``q0 = q_center`` (the mean over a period).
    cond : float
        Condition number of the base regressor on the grid.

    Notes
    -----
    The limits hold through analytic sufficient conditions (sums of harmonic amplitudes,
    :meth:`FourierTrajectory.bounds`), so every sample of the trajectory satisfies them, not
    only the grid's: each joint's coefficients are scaled down until its three bounds hold, which
    makes every point of the search space feasible, and L-BFGS-B (finite-difference gradients)
    minimises ``log cond`` without constraints.
    """
    from scipy.optimize import minimize

    n, N = n_joints, n_harmonics
    qc, qr, vm, am = (np.asarray(x, dtype=np.float64).reshape(n) for x in (q_center, q_range, qd_max, qdd_max))
    t = np.linspace(0.0, 2 * np.pi / wf, n_grid, endpoint=False)
    wl = wf * np.arange(1, N + 1)[:, None]

    def raw(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[: N * n].reshape(N, n), x[N * n:].reshape(N, n)

    def unpack(x: np.ndarray) -> FourierTrajectory:
        """Coefficients scaled per joint into the limits: every x maps to a feasible trajectory."""
        a, b = raw(x)
        amp = np.hypot(a, b)
        dq, dv, da = np.sum(amp / wl, axis=0), np.sum(amp, axis=0), np.sum(amp * wl, axis=0)
        with np.errstate(divide="ignore"):
            k = np.minimum(1.0, np.min(np.stack([qr / dq, vm / dv, am / da]), axis=0))
        k = np.where(np.isfinite(k), k, 1.0)
        a, b = a * k, b * k
        # the series' mean over a period is q0: centre it on q_center
        return FourierTrajectory(wf, qc.copy(), a, b)

    r = base_regressor(*unpack(np.ones(2 * N * n))(t[:1])).shape[-1]

    def cost(x: np.ndarray) -> float:
        W = base_regressor(*unpack(x)(t)).reshape(-1, r)
        s = np.linalg.svd(W, compute_uv=False)
        return float(np.log(s[0] / max(s[-1], 1e-300)))

    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, 2 * N * n) * np.repeat(vm / N, 1)[None, :].repeat(2 * N, 0).ravel()
    if maxiter > 0:
        res = minimize(cost, x0, method="L-BFGS-B", options={"maxiter": maxiter})
        x = res.x if res.fun <= cost(x0) else x0
    else:
        x = x0
    return unpack(x), float(np.exp(cost(x)))


def cycloidal(theta0: float, dtheta: float, td: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eqs. 8-10: cycloidal motion of amplitude ``dtheta`` [rad] over ``td`` [s], rest to rest.

    ``theta = theta0 + dtheta (t/td - sin(2 pi t/td)/(2 pi))``; held at the ends outside
    ``[0, td]``. Peak speed ``2 dtheta / td`` at ``t = td/2``.
    """
    t = np.clip(np.asarray(t, dtype=np.float64), 0.0, td)
    x = 2 * np.pi * t / td
    q = theta0 + dtheta * (t / td - np.sin(x) / (2 * np.pi))
    qd = dtheta / td * (1 - np.cos(x))
    qdd = 2 * np.pi * dtheta / td**2 * np.sin(x)
    return q, qd, qdd


def cycloidal_round_trip(theta0: float, dtheta: float, td: float, fs: float) -> tuple[np.ndarray, ...]:
    """Cycloidal motion there and back (``2 td`` long), sampled at ``fs`` [Hz]: t, q, qd, qdd.

    Both velocity signs, first and last points coincident (paper 001's second stage). Note
    that eq. 10 prints ``2 dtheta / td^2`` for the acceleration; the derivative of eq. 9 is
    ``2 pi dtheta / td^2 sin(2 pi t / td)``, which is what is used here.
    """
    t = np.arange(int(round(2 * td * fs)) + 1) / fs
    q1, v1, a1 = cycloidal(theta0, dtheta, td, t)
    q2, v2, a2 = cycloidal(theta0 + dtheta, -dtheta, td, t - td)
    first = t <= td
    return t, np.where(first, q1, q2), np.where(first, v1, v2), np.where(first, a1, a2)


def trapezoidal_plateaus(
    v_max: float, a_max: float, plateau_s: float, fs: float, fractions: Sequence[float] = PAPER_SPEED_FRACTIONS,
    theta0: float = 0.0,
) -> tuple[np.ndarray, ...]:
    """Constant-velocity segments for friction identification: t, q, qd, qdd, plateau mask, speed.

    For each fraction ``f`` the joint accelerates at ``a_max`` to ``+f v_max``, holds it for
    ``plateau_s`` seconds, decelerates, then does the same at ``-f v_max`` back to where it
    started (equal plateau durations: the excursion grows with the speed, as in paper 001).

    Returns
    -------
    t, q, qd, qdd : ndarray, shape (M,)
    plateau : ndarray of bool, shape (M,)
        Samples on a constant-velocity plateau (the acceleration parts are to be ignored).
    speed : ndarray, shape (M,)
        The plateau's commanded speed [rad/s] (0 elsewhere).
    """
    dt = 1.0 / fs
    qd_list: list[np.ndarray] = []
    mask: list[np.ndarray] = []
    spd: list[np.ndarray] = []
    for f in fractions:
        v = f * v_max
        for sgn in (1.0, -1.0):
            n_ramp = max(int(np.ceil(v / a_max * fs)), 1)
            ramp = np.linspace(0.0, v, n_ramp, endpoint=False)
            hold = np.full(int(round(plateau_s * fs)), v)
            prof = sgn * np.concatenate([ramp, hold, ramp[::-1]])
            qd_list.append(prof)
            mask.append(np.concatenate([np.zeros(n_ramp, bool), np.ones(hold.size, bool), np.zeros(n_ramp, bool)]))
            spd.append(np.where(mask[-1], sgn * v, 0.0))
    qd = np.concatenate(qd_list + [np.zeros(1)])
    plateau = np.concatenate(mask + [np.zeros(1, bool)])
    speed = np.concatenate(spd + [np.zeros(1)])
    q = theta0 + np.concatenate([[0.0], np.cumsum(0.5 * (qd[1:] + qd[:-1]) * dt)])
    qdd = np.gradient(qd, dt)
    t = np.arange(qd.size) * dt
    return t, q, qd, qdd, plateau, speed
