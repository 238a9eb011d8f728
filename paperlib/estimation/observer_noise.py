"""The encoder observer's noise and process levels estimated from the recording itself.

The Kalman design of :mod:`paperlib.estimation.encoder_kinematics` needs two numbers: the white-jerk
power spectral density ``S`` [rad^2/s^5] of the motion and the variance ``R`` [rad^2] of the angle
measurement error. Chosen by hand they carry what the designer knows about the robot (or its
twin); :func:`estimate_observer_noise` takes them from the encoder angles alone, by maximum
likelihood of the steady-state filter's innovations.

Model, sample time ``T``, scaled state ``z = [q, T qd, T^2 qdd]``::

    z_{k+1} = A z_k + w_k,   w_k ~ N(0, r R Qbar),   r = S T^5 / R
    y_k     = z_k[0] + v_k,  v_k ~ N(0, R)
    A = [[1, 1, 1/2], [0, 1, 1], [0, 0, 1]],  Qbar = [[1/20, 1/8, 1/6], [1/8, 1/3, 1/2], [1/6, 1/2, 1]]

(``Qbar`` is white jerk integrated exactly over one sample.) The steady-state Kalman gain ``L(r)``
depends on the ratio ``r`` alone; so does the innovation ``e_k(r) = y_k - [A zhat_{k-1}]_0`` and its
variance, ``s = R c(r)`` with ``c = 1 / (1 - L_0(r))`` (``L_0 = p / (p + 1)``, ``p`` the a-priori
angle variance in units of ``R``). The Gaussian log-likelihood of the innovations after a burn-in
of ``k0`` samples (``n = N - k0``) is::

    l(r, R) = -1/2 sum_k [ log(2 pi R c(r)) + e_k(r)^2 / (R c(r)) ]

Rules:

* both free (default): for fixed ``r`` the maximising ``R`` is ``R(r) = mean(e_k(r)^2) / c(r)``,
  and the profile likelihood is ``-n/2 [log(2 pi mean(e_k(r)^2)) + 1]``: the maximum-likelihood ``r`` is
  the one that minimises the mean squared one-step prediction error. Then ``S = r R / T^5``.
* ``noise_variance`` given (e.g. the quantization ``step^2 / 12``): ``R`` fixed, ``l`` maximised over ``r``.

``r`` is searched on a grid of ``log10 r`` in :data:`LOG10_RATIO_RANGE` and refined by a bounded
scalar minimisation around the best grid point. Each column (joint) of ``q`` is estimated on its
own. The innovations' autocorrelation is returned as a whiteness diagnostic (at lag 1, and the
largest over lags 2..100; close to 0 when the model fits; it is not used by the rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ObserverNoise", "LOG10_RATIO_RANGE", "WHITENESS_LAGS", "estimate_observer_noise", "innovations"]

#: Search range of ``log10(S T^5 / R)`` (the default design at the flagship's 4 kHz and 9.6 urad
#: step has ``log10 r`` ~ -2.9; the Kalman gain is close to 1 from ``r`` ~ 1e2 on).
LOG10_RATIO_RANGE = (-14.0, 3.0)
#: Lags [samples] over which :attr:`ObserverNoise.largest_autocorrelation` is taken.
WHITENESS_LAGS = 100


@dataclass(frozen=True)
class ObserverNoise:
    """Noise levels of one joint's encoder observer estimated from its recording.

    Attributes
    ----------
    jerk_psd : float
        White-jerk power spectral density ``S`` [rad^2/s^5].
    noise_variance : float
        Angle measurement-error variance ``R`` [rad^2].
    ratio : float
        ``S T^5 / R`` [-], the one number the gain depends on.
    log_likelihood : float
        Gaussian log-likelihood of the innovations at the estimate [-].
    whiteness_lag1 : float
        Lag-1 autocorrelation of the normalised innovations [-] (diagnostic).
    largest_autocorrelation : float
        Largest ``|rho_l|`` of the innovations over lags ``l`` = 2..:data:`WHITENESS_LAGS` [-] (diagnostic:
        white innovations stay near ``1/sqrt(n_samples)``; a motion the white-jerk model misdescribes leaves
        them correlated at the lags of its own band).
    largest_autocorrelation_lag : int
        The lag of ``largest_autocorrelation`` [samples].
    n_samples : int
        Innovations used (after the burn-in).
    noise_estimated : bool
        True when ``R`` was estimated, False when it was given.
    """

    jerk_psd: float
    noise_variance: float
    ratio: float
    log_likelihood: float
    whiteness_lag1: float
    largest_autocorrelation: float
    largest_autocorrelation_lag: int
    n_samples: int
    noise_estimated: bool

    @property
    def noise_rad(self) -> float:
        """Standard deviation of the angle measurement error [rad]."""
        return math.sqrt(self.noise_variance)


def innovations(q: np.ndarray, sample_rate_hz: float, ratio: float) -> tuple[np.ndarray, float]:
    """One-step prediction errors of the steady-state Kalman filter with ratio ``r = S T^5 / R``.

    Parameters
    ----------
    q : ndarray, shape (N,)
        Encoder angles [rad].
    sample_rate_hz : float
        Sample rate [Hz].
    ratio : float
        ``S T^5 / R`` [-].

    Returns
    -------
    e : ndarray, shape (N,)
        Innovations ``y_k - [A zhat_{k-1}]_0`` [rad] (the filter starts at rest on the first sample).
    c : float
        Innovation variance in units of ``R``, ``1 / (1 - L_0)`` [-].
    """
    from paperlib.estimation.kinematic_observer import EncoderObserver

    T = 1.0 / float(sample_rate_hz)
    # the observer's gain depends on jerk_psd T^5 / (step^2/12) only: pass R = 1/12 through a unit step
    obs = EncoderObserver(float(sample_rate_hz), "kalman", step_rad=1.0, jerk_psd=float(ratio) / 12.0 / T ** 5)
    q = np.asarray(q, dtype=np.float64)
    q_hat, _, _ = obs.run(q)
    one_minus = 1.0 - float(obs.gain_scaled[0])  # x_hat0 = p + L0 (y - p)  =>  y - x_hat0 = (1 - L0) e
    return (q - q_hat) / one_minus, 1.0 / one_minus


def _burn_in(n: int) -> int:
    return min(max(50, n // 100), n // 4)


def _nll(q: np.ndarray, fs: float, log10_r: float, R: float | None, k0: int) -> tuple[float, float, np.ndarray, float]:
    """(-log-likelihood per sample, R used, innovations after burn-in, c)."""
    e, c = innovations(q, fs, 10.0 ** log10_r)
    e = e[k0:]
    m2 = float(np.mean(e * e))
    if R is None:
        R = max(m2 / c, 1e-300)
    s = R * c
    return 0.5 * (math.log(2 * math.pi * s) + m2 / s), R, e, c


def _one_joint(q: np.ndarray, fs: float, noise_variance: float | None) -> ObserverNoise:
    from scipy.optimize import minimize_scalar

    n = len(q)
    k0 = _burn_in(n)
    if n - k0 < 10:
        raise ValueError(f"observer noise: {n} samples are too few")
    if not np.ptp(q) > 0:
        raise ValueError("observer noise: the angle never changes; nothing to estimate from")
    lo, hi = LOG10_RATIO_RANGE
    grid = np.arange(lo, hi + 1e-9, 0.5)
    vals = [_nll(q, fs, g, noise_variance, k0)[0] for g in grid]
    i = int(np.argmin(vals))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best = minimize_scalar(lambda x: _nll(q, fs, x, noise_variance, k0)[0], bounds=(a, b), method="bounded",
                           options={"xatol": 1e-3})
    x = float(best.x) if best.fun <= vals[i] else float(grid[i])
    nll, R, e, c = _nll(q, fs, x, noise_variance, k0)
    r = 10.0 ** x
    z = e / math.sqrt(R * c)
    z = z - z.mean()
    den = float(np.dot(z, z))
    lags = np.arange(1, min(WHITENESS_LAGS, len(z) - 1) + 1)
    rho = np.array([np.dot(z[k:], z[:-k]) for k in lags]) / den if den > 0 else np.full(len(lags), np.nan)
    i2 = int(np.nanargmax(np.abs(rho[1:]))) + 1 if len(rho) > 1 and np.isfinite(rho[1:]).any() else 0
    return ObserverNoise(jerk_psd=r * R * fs ** 5, noise_variance=R, ratio=r, log_likelihood=-nll * len(e),
                         whiteness_lag1=float(rho[0]), largest_autocorrelation=float(abs(rho[i2])),
                         largest_autocorrelation_lag=int(lags[i2]), n_samples=len(e),
                         noise_estimated=noise_variance is None)


def estimate_observer_noise(q: np.ndarray, sample_rate_hz: float, noise_variance: float | None = None
                            ) -> list[ObserverNoise]:
    """Jerk PSD and angle-noise variance of the encoder observer, per joint, from the angles (module docstring).

    Parameters
    ----------
    q : ndarray, shape (N,) or (N, m)
        Encoder angles [rad], one column per joint.
    sample_rate_hz : float
        Sample rate [Hz].
    noise_variance : float, optional
        Angle measurement-error variance ``R`` [rad^2] if known (e.g. ``step^2 / 12``); estimated when None.

    Returns
    -------
    list of ObserverNoise
        One per column of ``q``.
    """
    fs = float(sample_rate_hz)
    if not fs > 0:
        raise ValueError(f"sample rate must be > 0 Hz, got {sample_rate_hz!r}")
    if noise_variance is not None and not noise_variance > 0:
        raise ValueError(f"noise_variance must be > 0 rad^2, got {noise_variance!r}")
    Q = np.asarray(q, dtype=np.float64)
    Q = Q.reshape(len(Q), -1)
    if not np.isfinite(Q).all():
        raise ValueError("observer noise: non-finite angle")
    return [_one_joint(np.ascontiguousarray(Q[:, j]), fs, noise_variance) for j in range(Q.shape[1])]
