"""Second-order thermal model of each actuated joint's gearbox (paper 001, eqs. 12-13).

Two thermal capacities per gearbox: an *inner* node (gears, bearings, lubricant: where the
friction heat is generated) and the *case* (housing and motor flange, where the flagship's
type K thermocouples were attached). Heat flows inner -> case -> ambient (plus an optional
inner -> ambient path)::

    C_i dT_i/dt = W_f - G_ic (T_i - T_c) - G_ia (T_i - T_amb)
    C_c dT_c/dt =       G_ic (T_i - T_c) - G_ca (T_c - T_amb)

with W_f = |tau_F psi_dot| the joint's friction power [W]. Written as rises above ambient,
``e = x - T_amb``: ``de/dt = A e + B W_f``. The driving-point response T_i(s)/W_f(s) of such
an RC network has two real poles with *positive* residues, i.e. exactly paper 001's eq. (12)
``c1/(s + 1/tau1) + c2/(s + 1/tau2)`` (see :func:`modal_form`); the friction of the joint
therefore follows the inner temperature (:func:`friction_temperature`), the recordings carry
the case temperature (:func:`case_temperature`), as the flagship measured it.

Layouts (float64):

* physical row per gearbox, ``params[g, TH_*]``: ``TH_C_INNER`` [J/K], ``TH_C_CASE`` [J/K],
  ``TH_G_IC``, ``TH_G_CA``, ``TH_G_IA`` [W/K];
* state per gearbox, ``x[g, TS_*]``: ``TS_INNER``, ``TS_CASE`` absolute temperatures [degC];
* exact zero-order-hold discretization per gearbox for a step dt, ``disc[g, TD_*]``:
  ``TD_A00, TD_A01, TD_A10, TD_A11`` (= expm(A dt)) and ``TD_B0, TD_B1`` [K/W].

Gearbox g = 0 belongs to joint psi_1 (q1), g = 1 to psi_2 (q2).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np
import scipy.linalg
import scipy.optimize

from paperlib._jit import rt_njit
from paperlib.friction.lugre import steady_friction

__all__ = [
    "TH_C_INNER", "TH_C_CASE", "TH_G_IC", "TH_G_CA", "TH_G_IA", "N_THERMAL_PARAMS",
    "TS_INNER", "TS_CASE", "N_THERMAL_STATE",
    "TD_A00", "TD_A01", "TD_A10", "TD_A11", "TD_B0", "TD_B1", "N_THERMAL_DISC",
    "GearboxThermal", "GEARBOX_THERMAL_RANGES", "thermal_array",
    "thermal_matrices", "discretize", "thermal_discrete_array", "thermal_step",
    "friction_temperature", "case_temperature", "joint_temperatures",
    "initial_state", "warm_up", "warm_up_alternating", "alternating_power", "steady_state", "step_response", "time_constants",
    "modal_form", "design_network",
]

TH_C_INNER = 0  #: inner (gears + lubricant) heat capacity C_i [J/K]
TH_C_CASE = 1   #: case (housing + flange) heat capacity C_c [J/K]
TH_G_IC = 2     #: inner-case conductance G_ic [W/K]
TH_G_CA = 3     #: case-ambient conductance G_ca [W/K]
TH_G_IA = 4     #: inner-ambient conductance G_ia [W/K] (through shafts; may be 0)
N_THERMAL_PARAMS = 5

TS_INNER = 0    #: inner temperature T_i [degC]
TS_CASE = 1     #: case temperature T_c [degC]
N_THERMAL_STATE = 2

TD_A00 = 0
TD_A01 = 1
TD_A10 = 2
TD_A11 = 3
TD_B0 = 4
TD_B1 = 5
N_THERMAL_DISC = 6


@dataclass(frozen=True)
class GearboxThermal:
    """Thermal network of one gearbox (field names = TOML keys of ``[thermal.gearboxN]``)."""

    inner_capacity_J_per_K: float
    case_capacity_J_per_K: float
    inner_case_conductance_W_per_K: float
    case_ambient_conductance_W_per_K: float
    inner_ambient_conductance_W_per_K: float

    def row(self) -> np.ndarray:
        """Return the parameter row, shape (N_THERMAL_PARAMS,), layout ``TH_*``."""
        r = np.empty(N_THERMAL_PARAMS)
        r[TH_C_INNER] = self.inner_capacity_J_per_K
        r[TH_C_CASE] = self.case_capacity_J_per_K
        r[TH_G_IC] = self.inner_case_conductance_W_per_K
        r[TH_G_CA] = self.case_ambient_conductance_W_per_K
        r[TH_G_IA] = self.inner_ambient_conductance_W_per_K
        return r

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "GearboxThermal":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})


GEARBOX_THERMAL_RANGES: dict[str, tuple[float, float]] = {
    "inner_capacity_J_per_K": (1.0, 1e5),
    "case_capacity_J_per_K": (1.0, 1e5),
    "inner_case_conductance_W_per_K": (1e-3, 1e3),
    "case_ambient_conductance_W_per_K": (1e-3, 1e3),
    "inner_ambient_conductance_W_per_K": (0.0, 1e3),
    "design_power_W": (0.0, 500.0),
}
"""Accepted [min, max] of the keys of a ``[thermal.gearboxN]`` table."""


def thermal_array(gearboxes: list[GearboxThermal]) -> np.ndarray:
    """Stack rows: ndarray, shape (n_gearboxes, N_THERMAL_PARAMS)."""
    return np.ascontiguousarray(np.stack([g.row() for g in gearboxes]))


# --- linear system ------------------------------------------------------------------------------
def thermal_matrices(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Continuous-time matrices of one gearbox.

    Parameters
    ----------
    p : ndarray, shape (N_THERMAL_PARAMS,)

    Returns
    -------
    A : ndarray, shape (2, 2)
        [1/s], acting on the rises above ambient (inner, case) [K].
    B : ndarray, shape (2,)
        [K/J]: the friction power enters the inner node.
    """
    ci, cc = p[TH_C_INNER], p[TH_C_CASE]
    gic, gca, gia = p[TH_G_IC], p[TH_G_CA], p[TH_G_IA]
    A = np.array([[-(gic + gia) / ci, gic / ci],
                  [gic / cc, -(gic + gca) / cc]])
    B = np.array([1.0 / ci, 0.0])
    return A, B


def discretize(p: np.ndarray, dt: float) -> np.ndarray:
    """Exact zero-order-hold discretization for a step ``dt`` [s].

    Returns
    -------
    ndarray, shape (N_THERMAL_DISC,)
        ``TD_*`` layout: Ad = expm(A dt) row-major, Bd = int_0^dt expm(A s) ds B [K/W].
    """
    A, B = thermal_matrices(p)
    M = np.zeros((3, 3))
    M[:2, :2] = A
    M[:2, 2] = B
    E = scipy.linalg.expm(M * dt)
    d = np.empty(N_THERMAL_DISC)
    d[TD_A00], d[TD_A01], d[TD_A10], d[TD_A11] = E[0, 0], E[0, 1], E[1, 0], E[1, 1]
    d[TD_B0], d[TD_B1] = E[0, 2], E[1, 2]
    return d


def thermal_discrete_array(params: np.ndarray, dt: float) -> np.ndarray:
    """Discretize every gearbox: ndarray, shape (n_gearboxes, N_THERMAL_DISC)."""
    params = np.atleast_2d(params)
    return np.ascontiguousarray(np.stack([discretize(p, dt) for p in params]))


# --- numba kernels ---------------------------------------------------------------------------------
@rt_njit
def thermal_step(x: np.ndarray, power: float, disc: np.ndarray, T_amb: float) -> None:
    """Advance one gearbox by the step its ``disc`` row was built for, in place.

    Parameters
    ----------
    x : ndarray, shape (N_THERMAL_STATE,)
        Inner and case temperatures [degC]; overwritten.
    power : float
        Friction power held over the step (zero-order hold) [W].
    disc : ndarray, shape (N_THERMAL_DISC,)
        Row of :func:`thermal_discrete_array`.
    T_amb : float
        Ambient temperature [degC].
    """
    e0 = x[TS_INNER] - T_amb
    e1 = x[TS_CASE] - T_amb
    x[TS_INNER] = T_amb + disc[TD_A00] * e0 + disc[TD_A01] * e1 + disc[TD_B0] * power
    x[TS_CASE] = T_amb + disc[TD_A10] * e0 + disc[TD_A11] * e1 + disc[TD_B1] * power


@rt_njit
def friction_temperature(x: np.ndarray) -> float:
    """Temperature that sets the joint's friction: the inner node [degC]."""
    return x[TS_INNER]


@rt_njit
def case_temperature(x: np.ndarray) -> float:
    """Temperature a thermocouple on the gearbox case reads [degC]."""
    return x[TS_CASE]


@rt_njit
def joint_temperatures(x: np.ndarray, T_amb: float, out: np.ndarray) -> None:
    """Temperatures of the 5 joints for the friction model, written in place.

    Parameters
    ----------
    x : ndarray, shape (2, N_THERMAL_STATE)
        Gearbox states (gearbox g drives joint g).
    T_amb : float
        Ambient temperature [degC]: the unheated passive hinges sit at ambient.
    out : ndarray, shape (5,)
        [degC].
    """
    for g in range(x.shape[0]):
        out[g] = x[g, TS_INNER]
    for j in range(x.shape[0], out.shape[0]):
        out[j] = T_amb


# --- Python-level analysis ----------------------------------------------------------------------
def initial_state(T_amb: float, n_gearboxes: int = 2) -> np.ndarray:
    """Gearboxes in equilibrium with the room: ndarray, shape (n_gearboxes, 2) [degC]."""
    return np.full((n_gearboxes, N_THERMAL_STATE), float(T_amb))


def warm_up(minutes: float, mean_power: float | np.ndarray, params: np.ndarray,
            T_amb: float = 22.0, x0: np.ndarray | None = None) -> np.ndarray:
    """Jump the thermal state over ``minutes`` of motion at a constant mean friction power.

    One exact ZOH step (no dynamics simulated), for the twin's ``--warm-up-minutes``.

    Parameters
    ----------
    minutes : float
        Duration [min].
    mean_power : float or ndarray, shape (n_gearboxes,)
        Mean friction power of each gearbox over the warm-up [W].
    params : ndarray, shape (N_THERMAL_PARAMS,) or (n_gearboxes, N_THERMAL_PARAMS)
    T_amb : float
        Ambient temperature [degC].
    x0 : ndarray, shape (n_gearboxes, 2), optional
        Start state [degC]; default: at ambient.

    Returns
    -------
    ndarray, shape (n_gearboxes, 2)
        Inner and case temperatures after the warm-up [degC].
    """
    params = np.atleast_2d(params)
    n = params.shape[0]
    x = initial_state(T_amb, n) if x0 is None else np.array(x0, dtype=float).reshape(n, 2)
    power = np.broadcast_to(np.asarray(mean_power, dtype=float), (n,))
    for g in range(n):
        thermal_step(x[g], float(power[g]), discretize(params[g], 60.0 * minutes), T_amb)
    return x


@rt_njit
def alternating_power(friction_row: np.ndarray, amplitude: float, T: float) -> float:
    """Mean friction power [W] of a joint moving as v = amplitude sin(theta), steady friction.

    Parameters
    ----------
    friction_row : ndarray, shape (N_FRICTION_PARAMS,)
        The joint's friction row (``paperlib.friction.lugre``).
    amplitude : float
        Velocity amplitude [rad/s].
    T : float
        Friction temperature [degC].
    """
    n = 64
    acc = 0.0
    for k in range(n):
        v = amplitude * np.sin(2.0 * np.pi * (k + 0.5) / n)
        acc += abs(steady_friction(v, friction_row, T) * v)
    return acc / n


@rt_njit
def _warm_up_alternating(x: np.ndarray, friction: np.ndarray, disc: np.ndarray,
                         amplitude: float, T_amb: float, n_steps: int) -> None:
    for _ in range(n_steps):
        for g in range(x.shape[0]):
            w = alternating_power(friction[g], amplitude, x[g, TS_INNER])
            thermal_step(x[g], w, disc[g], T_amb)


def warm_up_alternating(minutes: float, amplitude: float, friction: np.ndarray,
                        params: np.ndarray, T_amb: float = 22.0,
                        x0: np.ndarray | None = None, dt: float = 1.0) -> np.ndarray:
    """Warm the gearboxes by fast alternating motion, friction power fed back each ``dt``.

    The friction power of gearbox g is that of joint g moving sinusoidally with velocity
    ``amplitude`` (cycle-averaged steady friction at the current inner temperature), so it
    falls as the gearbox warms, as on the rig. Costs milliseconds for 120 min.

    Parameters
    ----------
    minutes : float
        Duration [min].
    amplitude : float
        Joint velocity amplitude of the alternating motion [rad/s].
    friction : ndarray, shape (>= n_gearboxes, N_FRICTION_PARAMS)
        Friction rows; row g is the joint of gearbox g.
    params : ndarray, shape (n_gearboxes, N_THERMAL_PARAMS)
    T_amb : float
        [degC].
    x0 : ndarray, shape (n_gearboxes, 2), optional
        Start state [degC]; default at ambient.
    dt : float
        Thermal step [s] (the power is held over it).

    Returns
    -------
    ndarray, shape (n_gearboxes, 2)
        Inner and case temperatures [degC].
    """
    params = np.atleast_2d(params)
    n = params.shape[0]
    x = initial_state(T_amb, n) if x0 is None else np.array(x0, dtype=float).reshape(n, 2)
    n_steps = int(round(60.0 * minutes / dt))
    _warm_up_alternating(x, np.ascontiguousarray(friction[:n]), thermal_discrete_array(params, dt),
                         float(amplitude), float(T_amb), n_steps)
    return x


def steady_state(power: float, p: np.ndarray, T_amb: float = 22.0) -> np.ndarray:
    """Equilibrium (inner, case) temperatures [degC] of one gearbox at constant power [W]."""
    A, B = thermal_matrices(p)
    return T_amb - np.linalg.solve(A, B * power)


def step_response(t: np.ndarray, power: float, p: np.ndarray, T_amb: float = 22.0
                  ) -> np.ndarray:
    """Response of one gearbox from ambient to a power step.

    Parameters
    ----------
    t : ndarray, shape (m,)
        Times after the step [s].
    power : float
        [W].
    p : ndarray, shape (N_THERMAL_PARAMS,)
    T_amb : float
        [degC].

    Returns
    -------
    ndarray, shape (m, 2)
        Inner and case temperatures [degC].
    """
    t = np.asarray(t, dtype=float).ravel()
    A, B = thermal_matrices(p)
    lam, V = np.linalg.eig(A)
    lam, V = lam.real, V.real
    w = np.linalg.solve(V, B) * power  # modal inputs [K/s]
    # e(t) = sum_k V[:, k] w_k (exp(lam_k t) - 1) / lam_k
    modes = (np.expm1(np.outer(t, lam)) / lam) * w  # (m, 2)
    return T_amb + modes @ V.T


def time_constants(p: np.ndarray) -> tuple[float, float]:
    """Fast and slow time constants (tau1 < tau2) [s] of one gearbox, from eig(A)."""
    A, _ = thermal_matrices(p)
    lam = np.sort(np.linalg.eigvals(A).real)  # both real negative
    return float(-1.0 / lam[0]), float(-1.0 / lam[1])


def modal_form(p: np.ndarray) -> dict[str, float]:
    """Paper 001's eq. (12) parameters of one gearbox.

    ``T_node(s)/W_f(s) = c1/(s + 1/tau1) + c2/(s + 1/tau2)`` for the inner and the case node.

    Returns
    -------
    dict
        ``tau1_s``, ``tau2_s`` and ``c1_inner``, ``c2_inner``, ``c1_case``, ``c2_case`` [K/J].
        The inner residues are both positive (driving point of an RC network); the case
        residues have opposite signs (the case starts with zero slope).
    """
    A, B = thermal_matrices(p)
    lam, V = np.linalg.eig(A)
    order = np.argsort(lam.real)  # most negative first = fast mode
    lam, V = lam.real[order], V.real[:, order]
    w = np.linalg.solve(V, B)  # modal input gains
    res = V * w  # res[node, mode]
    return {"tau1_s": float(-1 / lam[0]), "tau2_s": float(-1 / lam[1]),
            "c1_inner": float(res[0, 0]), "c2_inner": float(res[0, 1]),
            "c1_case": float(res[1, 0]), "c2_case": float(res[1, 1])}


def design_network(tau_fast_s: float, tau_slow_s: float, power_W: float,
                   case_rise_K: float, after_minutes: float, inner_case_gradient_K: float
                   ) -> GearboxThermal:
    """Solve the 4 network values from the calibration targets (no inner-ambient path).

    Parameters
    ----------
    tau_fast_s, tau_slow_s : float
        Wanted time constants [s] (eigenvalues of A).
    power_W : float
        Design friction power [W].
    case_rise_K : float
        Case temperature rise reached after ``after_minutes`` at ``power_W`` [K].
    after_minutes : float
        [min].
    inner_case_gradient_K : float
        Steady inner-minus-case temperature difference at ``power_W`` [K].

    Returns
    -------
    GearboxThermal
        The network (how a twin file's thermal values are chosen).
    """
    g_ic = power_W / inner_case_gradient_K
    s = 1.0 / tau_fast_s + 1.0 / tau_slow_s
    pr = 1.0 / (tau_fast_s * tau_slow_s)

    def net(g_ca: float) -> GearboxThermal:
        # a = 1/C_i, b = 1/C_c: g_ic a + (g_ic + g_ca) b = s, g_ic g_ca a b = pr
        qa, qb, qc = (g_ic + g_ca) * g_ca, -g_ca * s, pr
        b = (-qb - np.sqrt(max(qb * qb - 4 * qa * qc, 0.0))) / (2 * qa)  # big case capacity
        a = (s - (g_ic + g_ca) * b) / g_ic
        return GearboxThermal(1 / a, 1 / b, g_ic, g_ca, 0.0)

    def miss(g_ca: float) -> float:
        p = net(g_ca).row()
        return step_response(np.array([60.0 * after_minutes]), power_W, p, 0.0)[0, 1] - case_rise_K

    lo = 4 * g_ic * pr / (s * s - 4 * pr) * 1.0001  # real-root bound of the quadratic
    if miss(lo) < 0:
        raise ValueError("infeasible: with these time constants the inner-case gradient must be "
                         "larger (a 2-node chain with fast tau1 needs a large inner capacity)")
    g_ca = scipy.optimize.brentq(miss, lo, 1e3)
    return net(g_ca)
