"""Table 4: V_max and a_max of the work region from singular values (Cai's formulas, paper 002).

    V_max = min_W omega_max / (n rho_max(J_a))             a_max = min_W rho(M_s^-1 J_a^T) n ||tau||_max

The paper writes ``1 / rho_max(J^+)`` for the velocity bound, with its ``J^+`` the inverse
kinematic Jacobian (joint rates from the platform velocity), i.e. our ``J_a``: at every point of
W a platform speed ``V`` needs joint rates up to ``rho_max(J_a) V``, so the bound is the
speed at which the worst direction reaches ``omega_max / n``. For the acceleration it prints
``rho_max(M_s^-1 J^T)``; the guaranteed bound in every direction uses the smallest singular
value. Both are reported; the table row uses the paper's (largest) form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
        "work_radius_m": robot.work_radius,
    }
