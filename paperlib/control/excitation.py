"""Periodic excitation trajectories for identification: finite Fourier series per joint.

.. math::

    q_j(t) = q_{0,j} + \\sum_{k=1}^{K} \\frac{a_{jk}}{k\\omega_f}\\sin(k\\omega_f t)
             - \\frac{b_{jk}}{k\\omega_f}\\cos(k\\omega_f t)

(Swevers et al. 1997; eq. 7 of paper 001), with the fundamental ``omega_f = 2 pi f0``. Velocity
and acceleration follow analytically, so a twin can use the exact ``qd``/``qdd`` as truth and
the estimator sees only what a sensor gives. The trajectory is periodic with period ``1/f0``:
averaging periods reduces noise without biasing the signal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FourierTrajectory", "random_fourier"]


@dataclass(frozen=True)
class FourierTrajectory:
    """A finite Fourier series per joint.

    Attributes
    ----------
    q0 : ndarray, shape (n,)
        Offsets [rad].
    a, b : ndarray, shape (n, K)
        Sine / cosine coefficients of the *velocity* [rad/s].
    f0 : float
        Fundamental frequency [Hz].
    """

    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    f0: float

    def __post_init__(self) -> None:
        a, b = np.atleast_2d(np.asarray(self.a, float)), np.atleast_2d(np.asarray(self.b, float))
        if a.shape != b.shape:
            raise ValueError(f"a and b must have the same shape; got {a.shape} and {b.shape}")
        q0 = np.asarray(self.q0, float).reshape(-1)
        if q0.shape[0] != a.shape[0]:
            raise ValueError(f"q0 has {q0.shape[0]} joints, a has {a.shape[0]}")
        if not self.f0 > 0:
            raise ValueError(f"f0 must be positive, got {self.f0!r} Hz")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "q0", q0)

    @property
    def n(self) -> int:
        return self.a.shape[0]

    @property
    def period(self) -> float:
        """[s]"""
        return 1.0 / self.f0

    def __call__(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``q, qd, qdd`` at times ``t`` [s]: each (len(t), n) [rad, rad/s, rad/s^2]."""
        t = np.asarray(t, float).reshape(-1)
        w = 2.0 * np.pi * self.f0
        k = np.arange(1, self.a.shape[1] + 1)
        arg = np.outer(t, k * w)                      # (N, K)
        s, c = np.sin(arg), np.cos(arg)
        q = self.q0 + s @ (self.a / (k * w)).T - c @ (self.b / (k * w)).T
        qd = c @ self.a.T + s @ self.b.T
        qdd = -s @ (self.a * k * w).T + c @ (self.b * k * w).T
        return q, qd, qdd


def random_fourier(n: int, harmonics: int = 5, f0: float = 0.1, amplitude: float = 1.0, seed: int = 0,
                   q0: np.ndarray | None = None) -> FourierTrajectory:
    """A random Fourier excitation: coefficients uniform in ``[-1, 1]``, scaled so that each
    joint's peak velocity bound ``sum_k |a_k| + |b_k|`` equals ``amplitude`` [rad/s]."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, harmonics))
    b = rng.uniform(-1, 1, (n, harmonics))
    scale = amplitude / (np.abs(a).sum(1) + np.abs(b).sum(1))[:, None]
    return FourierTrajectory(q0=np.zeros(n) if q0 is None else q0, a=a * scale, b=b * scale, f0=f0)
