"""Agreement of the generated kernels with an independent closed-form derivation.

The closed form differentiates the explicit circle intersection p(q) and the distal
angles phi_i = atan2(...) directly with sympy (no implicit differentiation), and takes
C from the Christoffel symbols of M as well as from eq. 46.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from paperlib.kernels.five_bar import PARAM_NAMES
from paperlib.robots.five_bar import FiveBar


@pytest.fixture(scope="module")
def closed_form():
    robot = FiveBar.default()
    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2")
    P = dict(zip(PARAM_NAMES, [sp.nsimplify(v, rational=True) for v in robot.params]))
    e1 = sp.Matrix([P["l_p1"] * sp.cos(q1) - P["l_f"] / 2, P["l_p1"] * sp.sin(q1)])
    e2 = sp.Matrix([P["l_p2"] * sp.cos(q2) + P["l_f"] / 2, P["l_p2"] * sp.sin(q2)])
    d = e2 - e1
    L2 = d.dot(d)
    L = sp.sqrt(L2)
    a = (P["l_d1"] ** 2 - P["l_d2"] ** 2 + L2) / (2 * L)
    h = sp.sqrt(P["l_d1"] ** 2 - a**2)
    # branch with larger p_y for e2x > e1x (the test states satisfy it)
    p = e1 + a * d / L + h * sp.Matrix([-d[1], d[0]]) / L
    phi1 = sp.atan2(p[1] - e1[1], p[0] - e1[0])
    phi2 = sp.atan2(p[1] - e2[1], p[0] - e2[0])
    A = lambda f: sp.Matrix([[sp.cos(f), -sp.sin(f)], [sp.sin(f), sp.cos(f)]])  # noqa: E731
    cd1 = e1 + A(phi1) * sp.Matrix([P["r_d1x"], P["r_d1y"]])
    cd2 = e2 + A(phi2) * sp.Matrix([P["r_d2x"], P["r_d2y"]])
    chi = sp.Matrix([q1, q2, phi1, phi2, cd1[0], cd1[1], cd2[0], cd2[1], p[0], p[1]])
    Mstar = sp.diag(P["I_p1"], P["I_p2"], P["I_d1"], P["I_d2"], P["m_d1"], P["m_d1"], P["m_d2"], P["m_d2"], P["m_p"], P["m_p"])
    D = chi.jacobian([q1, q2])
    Dd = D.diff(q1) * qd1 + D.diff(q2) * qd2
    f_D = sp.lambdify((q1, q2), D, "numpy", cse=True)
    f_Dd = sp.lambdify((q1, q2, qd1, qd2), Dd, "numpy", cse=True)
    Mstar_np = np.array(Mstar.tolist(), dtype=float)
    return robot, f_D, f_Dd, Mstar_np


def _states(robot, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        q = rng.uniform(np.radians([70, 20]), np.radians([160, 110]))
        e1x = -robot.param("l_f") / 2 + robot.param("l_p1") * np.cos(q[0])
        e2x = robot.param("l_f") / 2 + robot.param("l_p2") * np.cos(q[1])
        try:
            if e2x > e1x and robot.condition_index(q) > 0.2:
                out.append(q)
        except ValueError:
            pass
    return np.array(out)


def test_kernels_agree_with_closed_form(closed_form):
    robot, f_D, f_Dd, Mstar = closed_form
    rng = np.random.default_rng(0)
    for q in _states(robot, 30, seed=1):
        qd = rng.uniform(-4, 4, 2)
        qdd = rng.uniform(-30, 30, 2)
        D = np.array(f_D(*q), dtype=float)
        Dd = np.array(f_Dd(*q, *qd), dtype=float)
        D_k, _ = robot.jacobians(q)
        Dd_k, _ = robot.jacobian_rates(q, qd)
        np.testing.assert_allclose(D_k, D, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(Dd_k, Dd, rtol=1e-10, atol=1e-11)
        M = D.T @ Mstar @ D
        C = D.T @ Mstar @ Dd
        np.testing.assert_allclose(robot.mass_matrix(q), M, rtol=1e-10)
        np.testing.assert_allclose(robot.coriolis_matrix(q, qd), C, rtol=1e-10, atol=1e-10)
        QI = -(M @ qdd + C @ qd)
        np.testing.assert_allclose(robot.inertial_lagrangian(q, qd, qdd), QI, rtol=1e-10, atol=1e-10)


def test_velocity_terms_agree_with_christoffel_symbols(closed_form):
    """C qd from eq. 46 equals the Christoffel-symbol form built from dM/dq (finite differences)."""
    robot, f_D, _, Mstar = closed_form
    rng = np.random.default_rng(2)
    M_of = lambda q: (lambda D: D.T @ Mstar @ D)(np.array(f_D(*q), dtype=float))  # noqa: E731
    for q in _states(robot, 10, seed=3):
        qd = rng.uniform(-4, 4, 2)
        dM = []
        for k in range(2):
            h = 1e-4
            e = np.zeros(2)
            e[k] = h
            dM.append((-M_of(q + 2 * e) + 8 * M_of(q + e) - 8 * M_of(q - e) + M_of(q - 2 * e)) / (12 * h))
        c = np.zeros(2)
        for i in range(2):
            for j in range(2):
                for k in range(2):
                    c[i] += 0.5 * (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) * qd[j] * qd[k]
        np.testing.assert_allclose(robot.coriolis_matrix(q, qd) @ qd, c, rtol=1e-8, atol=1e-9)
