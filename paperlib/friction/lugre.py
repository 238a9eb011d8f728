"""Stribeck, shear-thinning viscous, LuGre and thermal scaling: the nonlinear friction laws.

These are the laws the twins use as truth (the 5R twin's are deliberately *richer* than the
estimator's odd polynomials of the joint velocity, flagship paper, eq. 10): a dynamic LuGre
model (real stick and presliding), a Stribeck dip, a sub-linear ("shear-thinning") viscous
term and temperature-dependent levels. One parameter row per joint (layout ``FR_*``); the
5R twin's numbers live in ``data/twin/five_bar_twin.toml`` and are assumed, not the paper's.
:class:`StribeckLaw` and :class:`LuGreLaw` wrap one row behind the
:class:`~paperlib.friction.base.FrictionLaw` protocol (steady-state curve and its slope).

Model (per joint j, relative velocity ``v`` = psi_dot_j [rad/s], gearbox temperature ``T``
[degC], bristle state ``z`` [rad])::

    s_c(T) = max(1 + alpha_c (T - T_ref), COULOMB_SCALE_FLOOR)     Coulomb/static scale
    s_v(T) = exp(-beta_v (T - T_ref))                              viscous scale
    g(v,T) = s_c(T) [Fc + (Fs - Fc) exp(-(|v|/vs)^delta)]          Stribeck level [N m]
    f_v(v,T) = s_v(T) Fv v (1 + (v/v_thin)^2)^((delta_v - 1)/2)    viscous torque [N m]
    dz/dt  = v - sigma0 |v| z / g(v,T)                             LuGre bristle [rad/s]
    F      = sigma0 z + sigma1 exp(-(v/v_d)^2) dz/dt + f_v(v,T)    friction torque [N m]

Steady state (dz/dt = 0): ``F_ss(v,T) = sign(v) g(v,T) + f_v(v,T)``.

Sign convention: ``F`` is the *resisting* friction torque, ``F v >= 0`` in steady sliding
(dissipative). The torque the joint receives is ``-F``; the generalized force on the
mechanism is ``Q_F = -sum_j D_psi_j(q)^T F_j``.

Stiffness and the integrator (fixed-step RK4). Frozen at a velocity ``v``, the bristle
equation is a linear decay with rate ``lambda = sigma0 |v| / g(v,T)``, i.e. ``|v| / z_ss``
with the presliding deflection ``z_ss = g / sigma0``. Explicit RK4 is stable for
``lambda h < RK4_REAL_AXIS_LIMIT`` (2.785), so ``h_max = 2.785 g_min / (sigma0 |v|_max)``
(:func:`lugre_max_step`). The TOML values (presliding deflection >= ~3.5e-4 rad at 22 degC)
keep 16 kHz RK4 (4 sub-steps of the 4 kHz loop) stable up to ~8 rad/s at every joint and
up to 60 degC; the plain 4 kHz step is marginal (stable below ~3.9 rad/s cold, ~2.8 rad/s
when warm, i.e. not at the paper's 3.7 rad/s after warm-up). Alternatively, advance
``z`` with the exact frozen-velocity update :func:`lugre_z_advance`, which is stable for any
step. The presliding (stick) mode ``sqrt(sigma0 / J)`` with J ~ 0.3 kg m^2 is ~140 rad/s, far
below the step limit.

Parameter layout: one float64 row per joint (``params[j, FR_*]``); a twin stacks the rows in
its own joint order (the 5R twin: psi_1..psi_5, :mod:`paperlib.twin.drives`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from paperlib._jit import rt_njit

__all__ = [
    "FR_FC", "FR_FS", "FR_VS", "FR_DELTA", "FR_FV", "FR_VTHIN", "FR_DV", "FR_SIGMA0",
    "FR_SIGMA1", "FR_VD", "FR_TREF", "FR_ALPHA_C", "FR_BETA_V", "FR_RIPPLE_A", "FR_RIPPLE_K", "N_FRICTION_PARAMS",
    "COULOMB_SCALE_FLOOR", "RK4_REAL_AXIS_LIMIT",
    "FrictionJoint", "FRICTION_JOINT_RANGES", "friction_array",
    "coulomb_scale", "viscous_scale", "stribeck_level", "viscous_torque", "steady_friction",
    "lugre_dz", "lugre_torque", "lugre_steady_z", "lugre_z_advance", "lugre_rates",
    "friction_power", "lugre_max_step", "steady_friction_curve", "lugre_step",
    "StribeckLaw", "LuGreLaw",
]

# --- parameter row layout -------------------------------------------------------------
FR_FC = 0       #: Coulomb level Fc at T_ref [N m]
FR_FS = 1       #: static (breakaway) level Fs at T_ref [N m]
FR_VS = 2       #: Stribeck velocity vs [rad/s]
FR_DELTA = 3    #: Stribeck exponent delta [-]
FR_FV = 4       #: low-speed viscous coefficient Fv at T_ref [N m s/rad]
FR_VTHIN = 5    #: shear-thinning onset velocity v_thin [rad/s]
FR_DV = 6       #: high-speed viscous exponent delta_v [-] (1 = linear viscous)
FR_SIGMA0 = 7   #: bristle stiffness sigma0 [N m/rad]
FR_SIGMA1 = 8   #: bristle (micro-)damping sigma1 [N m s/rad]
FR_VD = 9       #: velocity over which sigma1 fades, v_d [rad/s]
FR_TREF = 10    #: reference temperature T_ref [degC]
FR_ALPHA_C = 11  #: Coulomb/static temperature coefficient alpha_c [1/K] (negative)
FR_BETA_V = 12  #: viscous exponential temperature decay beta_v [1/K] (positive)
FR_RIPPLE_A = 13  #: relative amplitude a of the position ripple, friction x (1 + a sin(k phi)) [-] (0: none)
FR_RIPPLE_K = 14  #: ripple cycles per joint revolution k [-] (the gearbox order that carries it)
N_FRICTION_PARAMS = 15

COULOMB_SCALE_FLOOR = 0.25
"""Lower bound of the linear Coulomb temperature scale (keeps g > 0 far outside the range)."""
RK4_REAL_AXIS_LIMIT = 2.785293563405282
"""Explicit RK4 is stable for real negative ``lambda h`` down to -2.785."""


# --- Python-level parameters ------------------------------------------------------------
@dataclass(frozen=True)
class FrictionJoint:
    """True friction parameters of one joint (field names = TOML keys, units in the names).

    Attributes
    ----------
    coulomb_Nm, static_Nm : float
        Coulomb level Fc and static level Fs at the reference temperature [N m].
    stribeck_velocity_rad_per_s, stribeck_exponent : float
        Stribeck velocity vs [rad/s] and exponent delta [-].
    viscous_Nm_s_per_rad : float
        Low-speed viscous coefficient Fv [N m s/rad].
    viscous_thinning_velocity_rad_per_s, viscous_exponent : float
        Onset v_thin [rad/s] and high-speed exponent delta_v [-] of the sub-linear viscous term.
    bristle_stiffness_Nm_per_rad, bristle_damping_Nm_s_per_rad : float
        LuGre sigma0 [N m/rad] and sigma1 [N m s/rad].
    bristle_damping_velocity_rad_per_s : float
        v_d [rad/s]: sigma1 is multiplied by exp(-(v/v_d)^2) (acts in presliding only).
    coulomb_temp_coeff_per_K : float
        alpha_c [1/K] (negative: friction falls as the gearbox warms).
    viscous_temp_decay_per_K : float
        beta_v [1/K] (positive: viscous scale exp(-beta_v (T - T_ref))).
    reference_temperature_degC : float
        T_ref [degC] at which the levels above hold.
    ripple_relative, ripple_cycles_per_rev : float
        Position ripple of the whole torque, ``x (1 + a sin(k phi))`` with ``phi`` the joint angle
        travelled [rad]: relative amplitude a [-] (0, the default: no ripple) and k cycles per
        joint revolution [-]. The law itself (:func:`lugre_step`) has no angle; the twins' plant
        applies it (:func:`paperlib.twin.plant.friction_torques`).
    """

    coulomb_Nm: float
    static_Nm: float
    stribeck_velocity_rad_per_s: float
    stribeck_exponent: float
    viscous_Nm_s_per_rad: float
    viscous_thinning_velocity_rad_per_s: float
    viscous_exponent: float
    bristle_stiffness_Nm_per_rad: float
    bristle_damping_Nm_s_per_rad: float
    bristle_damping_velocity_rad_per_s: float
    coulomb_temp_coeff_per_K: float
    viscous_temp_decay_per_K: float
    reference_temperature_degC: float
    ripple_relative: float = 0.0
    ripple_cycles_per_rev: float = 1.0

    def row(self) -> np.ndarray:
        """Return the joint's parameter row, shape (N_FRICTION_PARAMS,), layout ``FR_*``."""
        r = np.empty(N_FRICTION_PARAMS)
        r[FR_FC] = self.coulomb_Nm
        r[FR_FS] = self.static_Nm
        r[FR_VS] = self.stribeck_velocity_rad_per_s
        r[FR_DELTA] = self.stribeck_exponent
        r[FR_FV] = self.viscous_Nm_s_per_rad
        r[FR_VTHIN] = self.viscous_thinning_velocity_rad_per_s
        r[FR_DV] = self.viscous_exponent
        r[FR_SIGMA0] = self.bristle_stiffness_Nm_per_rad
        r[FR_SIGMA1] = self.bristle_damping_Nm_s_per_rad
        r[FR_VD] = self.bristle_damping_velocity_rad_per_s
        r[FR_TREF] = self.reference_temperature_degC
        r[FR_ALPHA_C] = self.coulomb_temp_coeff_per_K
        r[FR_BETA_V] = self.viscous_temp_decay_per_K
        r[FR_RIPPLE_A] = self.ripple_relative
        r[FR_RIPPLE_K] = self.ripple_cycles_per_rev
        return r

    @classmethod
    def from_mapping(cls, table: Mapping[str, float], reference_temperature_degC: float
                     ) -> "FrictionJoint":
        """Build from an already validated TOML table (extra keys such as ``reason`` ignored)."""
        names = [f.name for f in fields(cls) if f.name in FRICTION_JOINT_RANGES]
        return cls(**{k: float(table[k]) for k in names},
                   reference_temperature_degC=float(reference_temperature_degC))


FRICTION_JOINT_RANGES: dict[str, tuple[float, float]] = {
    "coulomb_Nm": (0.0, 20.0),
    "static_Nm": (0.0, 30.0),
    "stribeck_velocity_rad_per_s": (1e-4, 5.0),
    "stribeck_exponent": (0.3, 3.0),
    "viscous_Nm_s_per_rad": (0.0, 10.0),
    "viscous_thinning_velocity_rad_per_s": (1e-3, 100.0),
    "viscous_exponent": (0.2, 1.0),
    "bristle_stiffness_Nm_per_rad": (1.0, 1e6),
    "bristle_damping_Nm_s_per_rad": (0.0, 1e3),
    "bristle_damping_velocity_rad_per_s": (1e-4, 10.0),
    "coulomb_temp_coeff_per_K": (-0.05, 0.0),
    "viscous_temp_decay_per_K": (0.0, 0.1),
}
"""Accepted [min, max] of each TOML key of a ``[friction.jointN]`` table (loader checks)."""


def friction_array(joints: list[FrictionJoint]) -> np.ndarray:
    """Stack joint rows into the numba parameter array.

    Parameters
    ----------
    joints : list of FrictionJoint
        In joint order psi_1..psi_5.

    Returns
    -------
    ndarray, shape (len(joints), N_FRICTION_PARAMS)
        C-contiguous float64; row j = joint j, columns ``FR_*``.
    """
    return np.ascontiguousarray(np.stack([j.row() for j in joints]))


# --- numba kernels (scalars, allocation-free) ----------------------------------------------
@rt_njit
def coulomb_scale(p: np.ndarray, T: float) -> float:
    """Temperature scale of the Coulomb/static levels, ``max(1 + alpha_c dT, floor)`` [-]."""
    return max(1.0 + p[FR_ALPHA_C] * (T - p[FR_TREF]), COULOMB_SCALE_FLOOR)


@rt_njit
def viscous_scale(p: np.ndarray, T: float) -> float:
    """Temperature scale of the viscous term, ``exp(-beta_v (T - T_ref))`` [-]."""
    return math.exp(-p[FR_BETA_V] * (T - p[FR_TREF]))


@rt_njit
def stribeck_level(v: float, p: np.ndarray, T: float) -> float:
    """Stribeck level g(v, T) > 0 [N m] (the magnitude of the steady non-viscous friction).

    Parameters
    ----------
    v : float
        Joint relative velocity [rad/s].
    p : ndarray, shape (N_FRICTION_PARAMS,)
        One joint's row.
    T : float
        Gearbox (or hinge) temperature [degC].
    """
    x = abs(v) / p[FR_VS]
    base = p[FR_FC] + (p[FR_FS] - p[FR_FC]) * math.exp(-(x ** p[FR_DELTA]))
    return coulomb_scale(p, T) * base


@rt_njit
def viscous_torque(v: float, p: np.ndarray, T: float) -> float:
    """Sub-linear viscous torque f_v(v, T) [N m], odd in v, slope Fv s_v(T) at v = 0."""
    r = v / p[FR_VTHIN]
    return viscous_scale(p, T) * p[FR_FV] * v * (1.0 + r * r) ** (0.5 * (p[FR_DV] - 1.0))


@rt_njit
def steady_friction(v: float, params: np.ndarray, T: float) -> float:
    """Steady-state (sliding) friction torque F_ss(v, T) [N m]; 0 at v = 0.

    Parameters
    ----------
    v : float
        Joint relative velocity [rad/s].
    params : ndarray, shape (N_FRICTION_PARAMS,)
        One joint's row.
    T : float
        Temperature [degC].

    Returns
    -------
    float
        ``sign(v) g(v, T) + f_v(v, T)``, with ``F v >= 0``.
    """
    if v == 0.0:
        return 0.0
    return math.copysign(stribeck_level(v, params, T), v) + viscous_torque(v, params, T)


@rt_njit
def lugre_dz(v: float, z: float, params: np.ndarray, T: float) -> float:
    """LuGre bristle rate dz/dt = v - sigma0 |v| z / g(v, T) [rad/s].

    Parameters
    ----------
    v : float
        Joint relative velocity [rad/s].
    z : float
        Bristle deflection [rad].
    params : ndarray, shape (N_FRICTION_PARAMS,)
        One joint's row.
    T : float
        Temperature [degC].
    """
    return v - params[FR_SIGMA0] * abs(v) * z / stribeck_level(v, params, T)


@rt_njit
def lugre_torque(v: float, z: float, dz: float, params: np.ndarray, T: float) -> float:
    """LuGre friction torque F = sigma0 z + sigma1(v) dz + f_v(v, T) [N m] (resisting sign).

    Parameters
    ----------
    v : float
        Joint relative velocity [rad/s].
    z : float
        Bristle deflection [rad].
    dz : float
        Bristle rate from :func:`lugre_dz` [rad/s].
    params : ndarray, shape (N_FRICTION_PARAMS,)
        One joint's row.
    T : float
        Temperature [degC].
    """
    r = v / params[FR_VD]
    sigma1 = params[FR_SIGMA1] * math.exp(-r * r)
    return params[FR_SIGMA0] * z + sigma1 * dz + viscous_torque(v, params, T)


@rt_njit
def lugre_steady_z(v: float, params: np.ndarray, T: float) -> float:
    """Steady bristle deflection z_ss = sign(v) g(v, T) / sigma0 [rad]; 0 at v = 0."""
    if v == 0.0:
        return 0.0
    return math.copysign(stribeck_level(v, params, T), v) / params[FR_SIGMA0]


@rt_njit
def lugre_z_advance(v: float, z: float, params: np.ndarray, T: float, h: float) -> float:
    """Advance z over a step h [s] exactly for a velocity frozen over the step [rad].

    An unconditionally stable alternative to integrating :func:`lugre_dz` with RK4
    (operator splitting: the mechanics use the torque at the step's start).
    """
    a = params[FR_SIGMA0] * abs(v) / stribeck_level(v, params, T)
    if a * h < 1e-12:
        return z + v * h
    zs = lugre_steady_z(v, params, T)
    return zs + (z - zs) * math.exp(-a * h)


@rt_njit
def lugre_rates(v: np.ndarray, z: np.ndarray, params: np.ndarray, T: np.ndarray,
                dz_out: np.ndarray, tau_out: np.ndarray) -> None:
    """All joints at once: bristle rates and friction torques, written in place.

    Parameters
    ----------
    v : ndarray, shape (n,)
        Joint relative velocities psi_dot [rad/s].
    z : ndarray, shape (n,)
        Bristle states [rad].
    params : ndarray, shape (n, N_FRICTION_PARAMS)
        Friction rows.
    T : ndarray, shape (n,)
        Joint temperatures [degC] (see ``thermal.joint_temperatures``).
    dz_out, tau_out : ndarray, shape (n,)
        Outputs: dz/dt [rad/s] and resisting friction torque F [N m].
    """
    for j in range(v.shape[0]):
        p = params[j]
        d = lugre_dz(v[j], z[j], p, T[j])
        dz_out[j] = d
        tau_out[j] = lugre_torque(v[j], z[j], d, p, T[j])


@rt_njit
def friction_power(tau: float, v: float) -> float:
    """Heat input of a joint, W_f = |tau v| [W] (paper 001's W_f)."""
    return abs(tau * v)


@rt_njit
def lugre_max_step(params: np.ndarray, T: float, v_max: float) -> float:
    """Largest RK4 step [s] keeping the bristle equation stable up to |v| = v_max [rad/s].

    Uses the smallest Stribeck level, ``g_min = s_c(T) min(Fc, Fs)``.
    """
    g_min = coulomb_scale(params, T) * min(params[FR_FC], params[FR_FS])
    return RK4_REAL_AXIS_LIMIT * g_min / (params[FR_SIGMA0] * v_max)


# --- Python helpers ---------------------------------------------------------------------------
def steady_friction_curve(v: np.ndarray, params: np.ndarray, T: float) -> np.ndarray:
    """Vectorized :func:`steady_friction` for plots and fits.

    Parameters
    ----------
    v : array_like, shape (m,)
        Velocities [rad/s].
    params : ndarray, shape (N_FRICTION_PARAMS,)
        One joint's row.
    T : float
        Temperature [degC].

    Returns
    -------
    ndarray, shape (m,)
        Steady friction torque [N m].
    """
    return StribeckLaw.from_row(params).torque(v, T)


@rt_njit(inline="always")
def _pow_fast(x: float, e: float) -> float:  # pragma: no cover - compiled
    """x ** e for x >= 0, with the exponents the twin file uses (1, 2, -0.25, 0.5) done without pow."""
    if e == 1.0:
        return x
    if e == 2.0:
        return x * x
    if e == -0.25:
        return 1.0 / math.sqrt(math.sqrt(x))
    if e == 0.5:
        return math.sqrt(x)
    return x ** e


@rt_njit
def lugre_step(v: float, z: float, p: np.ndarray, T: float, h: float) -> tuple[float, float]:  # pragma: no cover - compiled
    """Friction torque at the step's start and the bristle state after a step, in one pass.

    Equivalent to ``F = lugre_torque(v, z, lugre_dz(v, z, p, T), p, T)`` and
    ``z_new = lugre_z_advance(v, z, p, T, h)`` but evaluates the Stribeck level, the
    temperature scales and the viscous term once, and the file's integer and quarter powers
    without ``pow`` (the twin's per-step path; the tests compare it with the separate functions).

    Returns
    -------
    F : float
        Resisting friction torque [N m].
    z_new : float
        Bristle deflection after the step [rad].
    """
    dT = T - p[FR_TREF]
    x = abs(v) / p[FR_VS]
    g = max(1.0 + p[FR_ALPHA_C] * dT, COULOMB_SCALE_FLOOR) * (
        p[FR_FC] + (p[FR_FS] - p[FR_FC]) * math.exp(-_pow_fast(x, p[FR_DELTA])))
    rt = v / p[FR_VTHIN]
    f_visc = math.exp(-p[FR_BETA_V] * dT) * p[FR_FV] * v * _pow_fast(1.0 + rt * rt, 0.5 * (p[FR_DV] - 1.0))
    s0 = p[FR_SIGMA0]
    a_v = s0 * abs(v) / g
    dz = v - a_v * z
    r = v / p[FR_VD]
    F = s0 * z + p[FR_SIGMA1] * math.exp(-r * r) * dz + f_visc
    if a_v * h < 1e-12:
        z_new = z + v * h
    else:
        zs = math.copysign(g, v) / s0 if v != 0.0 else 0.0
        z_new = zs + (z - zs) * math.exp(-a_v * h)
    return F, z_new


@rt_njit
def steady_friction_slope(v: float, p: np.ndarray, T: float) -> float:
    """d F_ss / d v [N m s/rad] of :func:`steady_friction` (for v != 0; the viscous slope at 0)."""
    dT = T - p[FR_TREF]
    rt = v / p[FR_VTHIN]
    e = 0.5 * (p[FR_DV] - 1.0)
    base = 1.0 + rt * rt
    dvisc = math.exp(-p[FR_BETA_V] * dT) * p[FR_FV] * (base ** e + v * e * base ** (e - 1.0) * 2.0 * rt / p[FR_VTHIN])
    if v == 0.0:
        return dvisc
    x = abs(v) / p[FR_VS]
    d = p[FR_DELTA]
    dstrib = -coulomb_scale(p, T) * (p[FR_FS] - p[FR_FC]) * d * x ** (d - 1.0) * math.exp(-(x ** d)) / p[FR_VS]
    return dstrib + dvisc


def _temps(v: np.ndarray, temperature_C, default: float) -> np.ndarray:
    T = default if temperature_C is None else temperature_C
    return np.broadcast_to(np.asarray(T, dtype=float), v.shape)


@dataclass(frozen=True)
class StribeckLaw:
    """Steady Stribeck + shear-thinning viscous friction of one joint, with thermal scaling.

    ``torque(v, T) = sign(v) s_c(T) [Fc + (Fs - Fc) exp(-(|v|/vs)^delta)] + f_v(v, T)``
    (module docstring), resisting the motion. Without a temperature, the row's ``T_ref``.

    Parameters
    ----------
    row : tuple of float
        One parameter row, layout ``FR_*`` (``FrictionJoint.row()``).
    """

    row: tuple[float, ...]

    @classmethod
    def from_row(cls, row: np.ndarray) -> "StribeckLaw":
        return cls(tuple(float(x) for x in np.asarray(row, dtype=float)))

    def _p(self) -> np.ndarray:
        return np.asarray(self.row, dtype=float)

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Steady friction torque [N m] at velocities ``v`` [rad/s] (any shape)."""
        v = np.asarray(v, dtype=float)
        p = self._p()
        T = _temps(v, temperature_C, p[FR_TREF])
        return np.array([steady_friction(float(x), p, float(t)) for x, t in zip(v.ravel(), T.ravel())]).reshape(v.shape)

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Slope of :meth:`torque` [N m s/rad] (away from v = 0, where the Coulomb step sits)."""
        v = np.asarray(v, dtype=float)
        p = self._p()
        T = _temps(v, temperature_C, p[FR_TREF])
        return np.array([steady_friction_slope(float(x), p, float(t)) for x, t in zip(v.ravel(), T.ravel())]).reshape(v.shape)


@dataclass(frozen=True)
class LuGreLaw(StribeckLaw):
    """LuGre friction of one joint: the dynamic law :func:`lugre_step` and its steady curve.

    :meth:`torque` and :meth:`dtorque_dv` give the steady-state (sliding) curve, which equals
    the Stribeck law of the same row; :meth:`step` advances the bristle state.
    """

    def step(self, v: float, z: float, temperature_C: float, h: float) -> tuple[float, float]:
        """Friction torque at the step's start [N m] and the bristle state after ``h`` [s]."""
        return lugre_step(float(v), float(z), self._p(), float(temperature_C), float(h))
