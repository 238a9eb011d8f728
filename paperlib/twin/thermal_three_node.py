"""A second gearbox thermal model: a three-node chain mesh -> oil -> housing -> ambient.

Written apart from :mod:`paperlib.twin.thermal` (the twin's two-node network) so that the
campaign analysis can be tried on warm-up days whose friction follows a thermal network other
than the one it was built on. The friction heat enters the gear *mesh*; it reaches the *oil*
through a fixed conductance, the oil gives it to the *housing* by convection whose conductance
grows with the oil temperature (thinner oil circulates faster), and only the housing loses heat
to the room::

    C_m dT_m/dt = W_f - G_mo (T_m - T_o)
    C_o dT_o/dt =       G_mo (T_m - T_o) - G_oh(T_o) (T_o - T_h)
    C_h dT_h/dt =                          G_oh(T_o) (T_o - T_h) - G_ha (T_h - T_amb)

    G_oh(T_o) = G_oh0 (1 + kappa (T_o - T_amb))

The friction follows the mesh temperature (:func:`friction_temperature`). With ``kappa = 0`` the
network is linear with three real modes; with ``kappa > 0`` it is not, and no finite sum of
exponentials describes its warm-up exactly.

Integration is explicit Euler on the twin's sample step (4 ms, three orders of magnitude below
the fastest node time constant): the heat each step takes from one node is exactly what the next
receives, so the discrete energy balance holds to rounding (:func:`stored_energy`).

Layouts (float64):

* parameters per gearbox, ``p[T3_*]``: ``T3_C_MESH``, ``T3_C_OIL``, ``T3_C_HOUSING`` [J/K],
  ``T3_G_MO``, ``T3_G_OH``, ``T3_G_HA`` [W/K], ``T3_KAPPA`` [1/K];
* state per gearbox, ``x[S3_*]``: ``S3_MESH``, ``S3_OIL``, ``S3_HOUSING`` [degC].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from paperlib._jit import rt_njit

__all__ = [
    "T3_C_MESH", "T3_C_OIL", "T3_C_HOUSING", "T3_G_MO", "T3_G_OH", "T3_G_HA", "T3_KAPPA",
    "N_T3_PARAMS", "S3_MESH", "S3_OIL", "S3_HOUSING", "N_T3_STATE",
    "ThreeNodeDesign", "design_three_node", "three_node_step", "friction_temperature",
    "steady_state", "stored_energy", "linear_time_constants", "simulate_constant_power",
    "load_three_node_designs",
]

T3_C_MESH = 0     #: gear-mesh heat capacity [J/K]
T3_C_OIL = 1      #: oil heat capacity [J/K]
T3_C_HOUSING = 2  #: housing heat capacity [J/K]
T3_G_MO = 3       #: mesh-oil conductance [W/K]
T3_G_OH = 4       #: oil-housing conductance at ambient [W/K]
T3_G_HA = 5       #: housing-ambient conductance [W/K]
T3_KAPPA = 6      #: growth of the oil-housing conductance with the oil's rise [1/K]
N_T3_PARAMS = 7

S3_MESH = 0
S3_OIL = 1
S3_HOUSING = 2
N_T3_STATE = 3


@dataclass(frozen=True)
class ThreeNodeDesign:
    """How one gearbox's three-node network is chosen (keys of ``[three_node]``, one joint).

    Attributes
    ----------
    mesh_share, oil_share : float
        Shares of the total thermal resistance (at ``kappa = 0``) across mesh-oil and oil-housing;
        the housing-ambient share is the rest [-].
    mesh_time_constant_s, oil_time_constant_s, housing_time_constant_s : float
        ``C_k R_k``: each node's capacity times the resistance of its outgoing link [s].
    kappa_per_K : float
        Oil-housing conductance growth [1/K].
    """

    mesh_share: float
    oil_share: float
    mesh_time_constant_s: float
    oil_time_constant_s: float
    housing_time_constant_s: float
    kappa_per_K: float


def design_three_node(d: ThreeNodeDesign, rise_per_W: float) -> np.ndarray:
    """Parameter row of a network whose steady mesh rise per watt (``kappa = 0``) is ``rise_per_W``.

    Parameters
    ----------
    d : ThreeNodeDesign
    rise_per_W : float
        Total series resistance mesh -> ambient [K/W].

    Returns
    -------
    ndarray, shape (N_T3_PARAMS,)
    """
    shares = np.array([d.mesh_share, d.oil_share, 1.0 - d.mesh_share - d.oil_share])
    if np.any(shares <= 0):
        raise ValueError(f"three-node design: resistance shares must be positive, got {shares}")
    R = shares * float(rise_per_W)
    taus = np.array([d.mesh_time_constant_s, d.oil_time_constant_s, d.housing_time_constant_s])
    p = np.empty(N_T3_PARAMS)
    p[T3_C_MESH], p[T3_C_OIL], p[T3_C_HOUSING] = taus / R
    p[T3_G_MO], p[T3_G_OH], p[T3_G_HA] = 1.0 / R
    p[T3_KAPPA] = d.kappa_per_K
    return p


def load_three_node_designs(table: Mapping[str, object], n_joints: int) -> list[ThreeNodeDesign]:
    """Per-joint designs from a TOML table of per-joint lists (minutes as ``*_min`` keys).

    Raises
    ------
    ValueError
        Naming the key that is missing or has the wrong length.
    """
    keys = ("mesh_share", "oil_share", "mesh_time_constant_min", "oil_time_constant_min",
            "housing_time_constant_min", "oil_housing_conductance_temp_coeff_per_K")
    cols = {}
    for k in keys:
        if k not in table:
            raise ValueError(f"three-node table: missing key {k}")
        a = np.asarray(table[k], dtype=float)
        if a.shape != (n_joints,):
            raise ValueError(f"three-node table: {k} must have {n_joints} values, got {a.shape}")
        cols[k] = a
    return [ThreeNodeDesign(float(cols["mesh_share"][j]), float(cols["oil_share"][j]),
                            60.0 * float(cols["mesh_time_constant_min"][j]),
                            60.0 * float(cols["oil_time_constant_min"][j]),
                            60.0 * float(cols["housing_time_constant_min"][j]),
                            float(cols["oil_housing_conductance_temp_coeff_per_K"][j]))
            for j in range(n_joints)]


@rt_njit
def three_node_step(x: np.ndarray, power: float, p: np.ndarray, T_amb: float, dt: float) -> None:
    """Advance one gearbox by ``dt`` [s] (explicit Euler, power held), in place.

    Parameters
    ----------
    x : ndarray, shape (N_T3_STATE,)
        Mesh, oil and housing temperatures [degC]; overwritten.
    power : float
        Friction power into the mesh [W].
    p : ndarray, shape (N_T3_PARAMS,)
    T_amb : float
        [degC].
    dt : float
        [s].
    """
    tm = x[S3_MESH]
    to = x[S3_OIL]
    th = x[S3_HOUSING]
    q_mo = p[T3_G_MO] * (tm - to)
    q_oh = p[T3_G_OH] * (1.0 + p[T3_KAPPA] * (to - T_amb)) * (to - th)
    q_ha = p[T3_G_HA] * (th - T_amb)
    x[S3_MESH] = tm + dt * (power - q_mo) / p[T3_C_MESH]
    x[S3_OIL] = to + dt * (q_mo - q_oh) / p[T3_C_OIL]
    x[S3_HOUSING] = th + dt * (q_oh - q_ha) / p[T3_C_HOUSING]


@rt_njit
def friction_temperature(x: np.ndarray) -> float:
    """Temperature that sets the joint's friction: the gear mesh [degC]."""
    return x[S3_MESH]


def steady_state(power: float, p: np.ndarray, T_amb: float = 20.0) -> np.ndarray:
    """Equilibrium (mesh, oil, housing) temperatures [degC] at constant power [W] (closed form).

    All the power crosses every link: ``e_h = W / G_ha``; the oil-housing drop ``d`` solves
    ``G_oh0 (1 + kappa (e_h + d)) d = W`` (the positive root); ``e_m = e_o + W / G_mo``.
    """
    W = float(power)
    e_h = W / p[T3_G_HA]
    g, k = p[T3_G_OH], p[T3_KAPPA]
    if k == 0.0:
        d = W / g
    else:
        a, b = k * g, g * (1.0 + k * e_h)
        d = (-b + np.sqrt(b * b + 4.0 * a * W)) / (2.0 * a)
    e_o = e_h + d
    e_m = e_o + W / p[T3_G_MO]
    return T_amb + np.array([e_m, e_o, e_h])


def stored_energy(x: np.ndarray, p: np.ndarray, T_amb: float) -> float:
    """Heat stored above ambient [J]: ``sum_k C_k (T_k - T_amb)``; x shape (N_T3_STATE,)."""
    c = np.array([p[T3_C_MESH], p[T3_C_OIL], p[T3_C_HOUSING]])
    return float(c @ (np.asarray(x, dtype=float) - T_amb))


def linear_time_constants(p: np.ndarray) -> np.ndarray:
    """The three time constants of the network at ``kappa = 0`` [s], ascending, shape (3,)."""
    cm, co, ch = p[T3_C_MESH], p[T3_C_OIL], p[T3_C_HOUSING]
    gmo, goh, gha = p[T3_G_MO], p[T3_G_OH], p[T3_G_HA]
    A = np.array([[-gmo / cm, gmo / cm, 0.0],
                  [gmo / co, -(gmo + goh) / co, goh / co],
                  [0.0, goh / ch, -(goh + gha) / ch]])
    return np.sort(-1.0 / np.linalg.eigvals(A).real)


@rt_njit
def _run_constant(x: np.ndarray, power: float, p: np.ndarray, T_amb: float, dt: float,
                  n: int, out: np.ndarray) -> float:
    lost = 0.0
    for i in range(n):
        lost += dt * p[T3_G_HA] * (x[S3_HOUSING] - T_amb)
        three_node_step(x, power, p, T_amb, dt)
        out[i] = x[S3_MESH]
    return lost


def simulate_constant_power(seconds: float, power: float, p: np.ndarray, T_amb: float = 20.0,
                            dt: float = 0.004, x0: np.ndarray | None = None
                            ) -> tuple[np.ndarray, np.ndarray, float]:
    """Warm one gearbox at constant power from ``x0`` (default: at ambient).

    Parameters
    ----------
    seconds : float
        Duration [s].
    power : float
        [W].
    p : ndarray, shape (N_T3_PARAMS,)
    T_amb : float
        [degC].
    dt : float
        Step [s].
    x0 : ndarray, shape (3,), optional
        [degC].

    Returns
    -------
    x : ndarray, shape (3,)
        Final temperatures [degC].
    T_mesh : ndarray, shape (n,)
        Mesh temperature after each step [degC].
    lost_J : float
        Heat given to the room over the run [J].
    """
    x = np.full(N_T3_STATE, float(T_amb)) if x0 is None else np.array(x0, dtype=float)
    n = int(round(seconds / dt))
    out = np.empty(n)
    lost = _run_constant(x, float(power), np.ascontiguousarray(p, dtype=float), float(T_amb),
                         float(dt), n, out)
    return x, out, float(lost)
