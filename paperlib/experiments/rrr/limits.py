"""Table 4: V_max and a_max of the work region from singular values (Cai's formulas, paper 002).

    V_max = min_W omega_max / (n rho_max(J_a))             a_max = min_W rho(M_s^-1 J_a^T) n ||tau||_max

The paper writes ``1 / rho_max(J^+)`` for the velocity bound, with its ``J^+`` the inverse
kinematic Jacobian (joint rates from the platform velocity), i.e. our ``J_a``: at every point of
W a platform speed ``V`` needs joint rates up to ``rho_max(J_a) V``, so the bound is the
speed at which the worst direction reaches ``omega_max / n``. For the acceleration it prints
``rho_max(M_s^-1 J^T)``; the guaranteed bound in every direction uses the smallest singular
value. Both are reported; the table row uses the paper's (largest) form.

Calibration (issue 28): the paper publishes ``n`` and ``omega_max`` but neither the motor torque
limit nor the inertias, and its ``a_max`` fixes only their ratio. The robot file's reflected rotor
inertia ``I_r`` (``I_r_status = "calibrated"`` in ``data/robots/three_rrr.toml``, the rule beside it)
is the one value set so that this module's ``a_max`` equals Table 4's: :func:`calibrate_rotor_inertia`.
:func:`coherence` gives the numbers that say whether the result is physically coherent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import brentq

from paperlib.experiments.rrr.identification import min_norm
from paperlib.robots.three_rrr import ThreeRRR

#: Table 4 of the paper: theory and the values the experiments used.
PAPER_TABLE4 = {"V_max_m_s": 0.42, "a_max_m_s2": 7.10, "V_used_m_s": 0.40, "a_used_m_s2": 7.00}


def work_grid(robot: ThreeRRR, n: int = 41) -> np.ndarray:
    """Points (m, 2) [m] of a square grid inside the work region W (the disk), boundary included."""
    c, R = robot.work_centre, robot.work_radius
    x = np.linspace(-R, R, n)
    X, Y = np.meshgrid(x, x)
    P = np.stack([X.ravel(), Y.ravel()], 1)
    P = P[np.hypot(P[:, 0], P[:, 1]) <= R]
    a = np.linspace(0, 2 * np.pi, 4 * n, endpoint=False)
    return c + np.vstack([P, R * np.stack([np.cos(a), np.sin(a)], 1)])


def motion_limits(robot: ThreeRRR, n: int = 41) -> dict[str, Any]:
    """V_max [m/s] and a_max [m/s^2] over W, with where they are attained."""
    P = work_grid(robot, n)
    sv = robot.singular_values(P)
    w_joint = robot.joint_speed_max
    tau_joint = robot.joint_torque_max
    v_bound = w_joint / sv["J_a"][:, 0]
    a_paper = sv["Minv_JT"][:, 0] * tau_joint
    a_all_dirs = sv["Minv_JT"][:, 1] * tau_joint
    k_v, k_a = int(np.argmin(v_bound)), int(np.argmin(a_paper))
    return {
        "V_max_m_s": float(v_bound[k_v]), "V_max_at_m": P[k_v].tolist(),
        "a_max_m_s2": float(a_paper[k_a]), "a_max_at_m": P[k_a].tolist(),
        "a_max_every_direction_m_s2": float(a_all_dirs.min()),
        "V_max_at_centre_m_s": float(w_joint / robot.singular_values(robot.work_centre)["J_a"][0]),
        "joint_speed_max_rad_s": w_joint, "joint_torque_max_Nm": tau_joint, "n_points": int(P.shape[0]),
        "work_radius_m": robot.work_radius, "V_max_on_path_m_s": _v_bound_on_path(robot), "I_r_kg_m2": robot.param("Ir1"),
        "I_r_status": str(robot.description.get("inertia", {}).get("I_r_status", "assumed")),
    }


def _v_bound_on_path(robot: ThreeRRR, n: int = 201) -> float:
    """The smallest V bound [m/s] along Table 3's path E1 -> E2."""
    E1, E2 = robot.path_endpoints()
    P = E1 + np.linspace(0.0, 1.0, n)[:, None] * (E2 - E1)
    return float(np.min(robot.joint_speed_max / robot.singular_values(P)["J_a"][:, 0]))


def with_rotor_inertia(robot: ThreeRRR, I_r_kg_m2: float) -> ThreeRRR:
    """A copy of ``robot`` whose three reflected rotor inertias are ``I_r_kg_m2`` [kg m^2] (joint side)."""
    return robot.with_params(**{f"Ir{n}": float(I_r_kg_m2) for n in (1, 2, 3)})


def calibrate_rotor_inertia(robot: ThreeRRR, a_max_m_s2: float = PAPER_TABLE4["a_max_m_s2"], n: int = 41,
                            bracket_kg_m2: tuple[float, float] = (1e-3, 1e3)) -> float:
    """The reflected rotor inertia [kg m^2], equal on the three drives, at which ``a_max`` over W is ``a_max_m_s2``.

    Everything else of ``robot`` (geometry, link inertias, the torque limit, W) is kept. ``a_max``
    (:func:`motion_limits`, the paper's form) falls monotonically as ``I_r`` grows, so the root is
    unique inside the bracket.

    Parameters
    ----------
    robot : ThreeRRR
        The model whose ``I_r`` is calibrated.
    a_max_m_s2 : float
        The target [m/s^2] (Table 4's theory value by default).
    n : int
        Grid resolution of W (as :func:`motion_limits`).
    bracket_kg_m2 : (float, float)
        Search interval [kg m^2].

    Raises
    ------
    ValueError
        If the target is not reached inside the bracket.
    """
    def f(ir: float) -> float:
        return motion_limits(with_rotor_inertia(robot, ir), n)["a_max_m_s2"] - a_max_m_s2

    lo, hi = bracket_kg_m2
    if f(lo) < 0 or f(hi) > 0:
        raise ValueError(f"a_max = {a_max_m_s2} m/s^2 is not reached for I_r in [{lo}, {hi}] kg m^2")
    return float(brentq(f, lo, hi, xtol=1e-9, rtol=1e-10))


def coherence(robot: ThreeRRR, static_friction_Nm: np.ndarray, a_used_m_s2: float = PAPER_TABLE4["a_used_m_s2"],
              paths: dict[str, dict[str, np.ndarray]] | None = None) -> dict[str, Any]:
    """Whether a torque limit and inertia are physically coherent with the paper's use of them.

    Parameters
    ----------
    robot : ThreeRRR
        The model (its torque limit and inertias).
    static_friction_Nm : ndarray, shape (3,)
        The drives' breakaway (static) friction [N m], joint side.
    a_used_m_s2 : float
        The acceleration the paper ran at (Table 4's "actual" value).
    paths : dict name -> platform reference, optional
        References (``p``, ``pd``, ``pdd``, as :mod:`paperlib.control.ladder` makes them) whose
        largest drive torque (eq. 37's minimum-norm split, no friction) is compared with the limit.

    Returns
    -------
    dict
        ``torque_limit_over_static_friction`` (the limit over the largest breakaway),
        ``torque_limit_for_table4_a_max_Nm`` (the limit that would give Table 4's a_max with this
        inertia), ``inertial_torque_at_a_used_Nm`` (limit x a_used / a_max: the torque the worst
        point of W needs at the paper's acceleration), and per path ``peak_torque_Nm`` (3,) and
        ``peak_over_limit``.
    """
    lim = motion_limits(robot)
    tau = robot.joint_torque_max
    fs = float(np.max(static_friction_Nm))
    out: dict[str, Any] = {
        "torque_limit_Nm": tau, "largest_static_friction_Nm": fs, "torque_limit_over_static_friction": tau / fs,
        "torque_limit_for_table4_a_max_Nm": tau * PAPER_TABLE4["a_max_m_s2"] / lim["a_max_m_s2"],
        "inertial_torque_at_a_used_Nm": tau * a_used_m_s2 / lim["a_max_m_s2"], "paths": {},
    }
    for name, ref in (paths or {}).items():
        F, J, _ = robot.inverse_dynamics(ref["p"], ref["pd"], ref["pdd"])
        peak = np.abs(min_norm(J, F)).max(axis=0)
        out["paths"][name] = {"peak_torque_Nm": peak.tolist(), "peak_over_limit": float(peak.max() / tau)}
    return out
