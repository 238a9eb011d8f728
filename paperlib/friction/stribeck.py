"""Asymmetric Stribeck friction: a generic, nonlinear law of the joint velocity.

Per direction (``+`` for ``v > 0``, ``-`` for ``v < 0``) the steady sliding friction is::

    g_+(v) = Fc_+ + (Fs_+ - Fc_+) exp(-(|v| / vs)^delta)        level [N m]
    F(v)   = s(v) g_+(v)            for v > 0
           = s(v) g_-(v)            for v < 0                   (s(v) < 0 there)
    F(v)  += Fv v                                               viscous [N m]

with the sign smoothed by ``s(v) = tanh(v / v_eps)`` (``v_eps`` [rad/s]; ``v_eps = 0`` gives the
discontinuous ``sign``), so the law is continuous through zero and a fixed-step integrator can
use it. ``F`` *resists* the motion (``F v >= 0``) when all levels are positive. The two
directions have their own Coulomb and static levels: real gears and seals are seldom
symmetric.

:class:`StribeckLaw` follows :class:`~paperlib.friction.base.FrictionLaw` (numpy, any shape);
:func:`stribeck_torque` is the same formula as a compiled scalar function for per-sample
loops, reading the parameter vector laid out by :meth:`StribeckLaw.as_array`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from paperlib._jit import rt_njit

__all__ = ["StribeckLaw", "stribeck_torque", "N_STRIBECK_PARAMS"]

# Layout of the parameter vector of :func:`stribeck_torque`.
_FC_P, _FC_N, _FS_P, _FS_N, _VS, _DELTA, _FV, _VEPS = range(8)
N_STRIBECK_PARAMS = 8


@dataclass(frozen=True)
class StribeckLaw:
    """Asymmetric Stribeck + viscous friction (see the module docstring).

    Parameters
    ----------
    coulomb_pos_Nm, coulomb_neg_Nm : float
        Coulomb levels Fc_+ and Fc_- [N m] (magnitudes, positive dissipates).
    static_pos_Nm, static_neg_Nm : float
        Breakaway levels Fs_+ and Fs_- [N m] reached as ``|v| -> 0``.
    stribeck_velocity : float
        vs [rad/s], > 0.
    stribeck_exponent : float
        delta [-], > 0 (2 = Gaussian dip).
    viscous : float
        Fv [N m s/rad].
    smoothing_velocity : float
        v_eps [rad/s] of the tanh sign; 0 for the discontinuous sign.
    """

    coulomb_pos_Nm: float
    coulomb_neg_Nm: float
    static_pos_Nm: float
    static_neg_Nm: float
    stribeck_velocity: float = 0.05
    stribeck_exponent: float = 2.0
    viscous: float = 0.0
    smoothing_velocity: float = 1e-3

    def __post_init__(self) -> None:
        if not self.stribeck_velocity > 0 or not self.stribeck_exponent > 0:
            raise ValueError("StribeckLaw: stribeck_velocity and stribeck_exponent must be > 0")
        if self.smoothing_velocity < 0:
            raise ValueError("StribeckLaw: smoothing_velocity must be >= 0")

    def as_array(self) -> np.ndarray:
        """Parameter vector (N_STRIBECK_PARAMS,) for :func:`stribeck_torque`."""
        return np.array([self.coulomb_pos_Nm, self.coulomb_neg_Nm, self.static_pos_Nm,
                         self.static_neg_Nm, self.stribeck_velocity, self.stribeck_exponent,
                         self.viscous, self.smoothing_velocity], dtype=np.float64)

    def _sign(self, v: np.ndarray) -> np.ndarray:
        if self.smoothing_velocity == 0:
            return np.sign(v)
        return np.tanh(v / self.smoothing_velocity)

    def level(self, v: np.ndarray) -> np.ndarray:
        """Stribeck level g(v) [N m] of the direction of ``v`` (non-viscous magnitude)."""
        v = np.asarray(v, dtype=float)
        dip = np.exp(-((np.abs(v) / self.stribeck_velocity) ** self.stribeck_exponent))
        g_pos = self.coulomb_pos_Nm + (self.static_pos_Nm - self.coulomb_pos_Nm) * dip
        g_neg = self.coulomb_neg_Nm + (self.static_neg_Nm - self.coulomb_neg_Nm) * dip
        return np.where(v >= 0, g_pos, g_neg)

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Friction torque [N m] resisting the motion, shape of ``v`` [rad/s] (no temperature)."""
        v = np.asarray(v, dtype=float)
        return self._sign(v) * self.level(v) + self.viscous * v

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """d torque / d v [N m s/rad], shape of ``v`` (the sign's delta at 0 omitted when v_eps = 0)."""
        v = np.asarray(v, dtype=float)
        vs, d = self.stribeck_velocity, self.stribeck_exponent
        x = np.abs(v) / vs
        dip = np.exp(-(x ** d))
        dfs = np.where(v >= 0, self.static_pos_Nm - self.coulomb_pos_Nm,
                       self.static_neg_Nm - self.coulomb_neg_Nm)
        # d g / d|v| = -(Fs - Fc) dip d x^(d-1) / vs ; d|v|/dv = sign(v)
        with np.errstate(divide="ignore", invalid="ignore"):
            dg = np.where(x > 0, -dfs * dip * d * x ** (d - 1.0) / vs, 0.0) * np.sign(v)
        if self.smoothing_velocity == 0:
            ds = np.zeros_like(v)
            s = np.sign(v)
        else:
            s = np.tanh(v / self.smoothing_velocity)
            ds = (1.0 - s * s) / self.smoothing_velocity
        return ds * self.level(v) + s * dg + self.viscous


@rt_njit
def stribeck_torque(v: float, p: np.ndarray) -> float:  # pragma: no cover - compiled
    """:meth:`StribeckLaw.torque` for one velocity ``v`` [rad/s]; ``p`` from ``as_array()``."""
    x = abs(v) / p[_VS]
    dip = math.exp(-(x ** p[_DELTA]))
    if v >= 0.0:
        g = p[_FC_P] + (p[_FS_P] - p[_FC_P]) * dip
    else:
        g = p[_FC_N] + (p[_FS_N] - p[_FC_N]) * dip
    if p[_VEPS] > 0.0:
        s = math.tanh(v / p[_VEPS])
    elif v > 0.0:
        s = 1.0
    elif v < 0.0:
        s = -1.0
    else:
        s = 0.0
    return s * g + p[_FV] * v
