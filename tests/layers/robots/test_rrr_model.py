"""Physics of the generated 3-RRR model (paper 002): kinematics, Jacobians, dynamics, energy, eq. 37."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.robots.three_rrr import ThreeRRR


@pytest.fixture(scope="module")
def robot() -> ThreeRRR:
    return ThreeRRR.default()


def _points(robot: ThreeRRR, n: int, seed: int, radius: float | None = None) -> np.ndarray:
    """Random platform points in the work region (a disk about the centroid of D_1..3)."""
    rng = np.random.default_rng(seed)
    r = (radius or robot.work_radius) * np.sqrt(rng.uniform(0, 1, n))
    a = rng.uniform(0, 2 * np.pi, n)
    return robot.work_centre + np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def _d5(f, x0: np.ndarray, h: float):
    return (-f(x0 + 2 * h) + 8 * f(x0 + h) - 8 * f(x0 - h) + f(x0 - 2 * h)) / (12 * h)


def _unit(a: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


# -- kinematics ----------------------------------------------------------------------------------

def test_ik_closes_every_chain_and_fk_inverts_it(robot):
    P = _points(robot, 200, seed=1)
    chi = robot.positions(P)
    th, thb = chi[:, 0:3], chi[:, 3:6]
    lD, lB = robot.link_lengths
    for i in range(3):
        end = robot.base_joints[i] + lD[i] * _unit(th[:, i]) + lB[i] * _unit(thb[:, i])
        np.testing.assert_allclose(end, P, atol=1e-13)
        # working mode: elbow on the sigma = +1 (left) side of D_i -> p
        d = P - robot.base_joints[i]
        e = lD[i] * _unit(th[:, i])
        assert np.all(d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0] > 0)
    np.testing.assert_allclose(robot.fk(th), P, atol=1e-12)
    # centres of mass (eq. 17)
    rD = robot.param("rD2")
    np.testing.assert_allclose(chi[:, 8:10], robot.base_joints[1] + rD * _unit(th[:, 1]), atol=1e-14)
    np.testing.assert_allclose(chi[:, 18:20], P, atol=0)


def test_errors_outside_workspace_and_at_singularity(robot):
    D1 = robot.base_joints[0]
    with pytest.raises(ValueError, match="outside the workspace"):
        robot.ik(D1 + [0.50, 0.0])  # beyond the 490 mm reach of chain 1
    with pytest.raises(ValueError, match="serial singularity"):
        robot.ik(D1 + [0.49, 0.0])  # chain 1 exactly stretched
    with pytest.raises(ValueError, match=r"p\[1\]"):
        robot.mass_matrix([robot.work_centre, D1 + [0.6, 0.0]])
    with pytest.raises(ValueError, match="shape"):
        robot.mass_matrix([1.0, 2.0, 3.0])


def test_single_and_batch_shapes(robot):
    P = _points(robot, 5, seed=2)
    assert robot.positions(P[0]).shape == (20,)
    assert robot.jacobians(P).shape == (5, 20, 2)
    assert robot.mass_matrix(P[0]).shape == (2, 2)
    assert robot.min_norm_torques(P, P * 0, P * 0 + 1).shape == (5, 3)
    assert robot.min_norm_torques(P[0], [0, 0], [1, 0]).shape == (3,)


def test_jacobians_match_finite_differences(robot):
    for p in _points(robot, 12, seed=3):
        D = robot.jacobians(p)
        chi0 = robot.positions(p)
        for j in range(2):
            e = np.eye(2)[j]

            def f(h, e=e, p=p):
                chi = robot.positions(p + h * e)
                chi[:6] = chi0[:6] + np.angle(np.exp(1j * (chi[:6] - chi0[:6])))  # angles without wrap
                return chi
            np.testing.assert_allclose(D[:, j], _d5(f, 0.0, 1e-5), rtol=1e-6, atol=1e-6)


def test_actuated_jacobian_matches_paper_eq10(robot):
    """J rows of eq. 10: th_dot_i = (cos thb_i, sin thb_i) / (l sin(thb_i - th_i)) . p_dot."""
    for p in _points(robot, 10, seed=4):
        chi = robot.positions(p)
        J = robot.actuated_jacobian(p)
        lD, _ = robot.link_lengths
        for i in range(3):
            th, thb = chi[i], chi[3 + i]
            row = np.array([np.cos(thb), np.sin(thb)]) / (lD[i] * np.sin(thb - th))
            np.testing.assert_allclose(J[i], row, rtol=1e-12)


def test_jacobian_rates_match_finite_differences(robot):
    rng = np.random.default_rng(5)
    for p in _points(robot, 10, seed=5):
        pd = rng.normal(0, 0.3, 2)
        Dd = robot.jacobian_rates(p, pd)
        num = _d5(lambda t: robot.jacobians(p + t * pd), 0.0, 1e-4)
        np.testing.assert_allclose(Dd, num, rtol=1e-6, atol=1e-7)


# -- dynamics ------------------------------------------------------------------------------------

def _paper_mass_matrix(robot: ThreeRRR, p: np.ndarray) -> np.ndarray:
    """J^T M J + m_p I with the paper's joint-space M (epsilon, mu, kappa of eqs. 20-22) and J by differences."""
    chi = robot.positions(p)
    h = 1e-6
    J6 = np.stack([(robot.positions(p + h * e)[:6] - robot.positions(p - h * e)[:6]) / (2 * h) for e in np.eye(2)], 1)
    M6 = np.zeros((6, 6))
    for i in range(3):
        n = i + 1
        l = robot.param(f"lD{n}")
        mB, rB = robot.param(f"mB{n}"), robot.param(f"rB{n}")
        eps = robot.param(f"ID{n}") + robot.param(f"Ir{n}") + robot.param(f"mD{n}") * robot.param(f"rD{n}") ** 2 + mB * l**2
        mu = robot.param(f"IB{n}") + mB * rB**2
        kap = mB * l * rB * np.cos(chi[i] - chi[3 + i])
        M6[i, i], M6[3 + i, 3 + i] = eps, mu
        M6[i, 3 + i] = M6[3 + i, i] = kap
    return J6.T @ M6 @ J6 + robot.param("m_p") * np.eye(2)


def test_mass_matrix_equals_paper_lagrangian_form_and_is_positive_definite(robot):
    P = _points(robot, 200, seed=6)
    M = robot.mass_matrix(P)
    np.testing.assert_allclose(M, np.swapaxes(M, 1, 2), atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M)[:, 0] > 0)
    for p in P[:15]:
        np.testing.assert_allclose(robot.mass_matrix(p), _paper_mass_matrix(robot, p), rtol=1e-7)


def test_msdot_minus_2cs_is_skew_symmetric(robot):
    rng = np.random.default_rng(7)
    for p in _points(robot, 10, seed=7):
        pd = rng.normal(0, 0.3, 2)
        Md = _d5(lambda t: robot.mass_matrix(p + t * pd), 0.0, 1e-4)
        N = Md - 2 * robot.coriolis_matrix(p, pd)
        np.testing.assert_allclose(N + N.T, 0.0, atol=1e-7)


def test_inverse_dynamics_is_ms_pdd_plus_cs_pd(robot):
    rng = np.random.default_rng(8)
    P = _points(robot, 20, seed=8)
    PD, PDD = rng.normal(0, 0.3, (20, 2)), rng.normal(0, 3, (20, 2))
    F, J, qd = robot.inverse_dynamics(P, PD, PDD)
    M, C = robot.mass_matrix(P), robot.coriolis_matrix(P, PD)
    np.testing.assert_allclose(F, np.einsum("nij,nj->ni", M, PDD) + np.einsum("nij,nj->ni", C, PD), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(qd, np.einsum("nij,nj->ni", J, PD), rtol=1e-12)


def test_min_norm_torques_are_the_least_norm_solution(robot):
    rng = np.random.default_rng(9)
    P = _points(robot, 30, seed=9)
    PD, PDD = rng.normal(0, 0.3, (30, 2)), rng.normal(0, 3, (30, 2))
    tau = robot.min_norm_torques(P, PD, PDD)
    F, J, _ = robot.inverse_dynamics(P, PD, PDD)
    np.testing.assert_allclose(np.einsum("nij,ni->nj", J, tau), F, rtol=1e-10, atol=1e-12)  # J_a^T tau = F
    np.testing.assert_allclose(tau, np.stack([np.linalg.pinv(J[k].T) @ F[k] for k in range(30)]), rtol=1e-9, atol=1e-12)
    for k in range(30):  # any other solution (tau + a null-space vector) is longer
        null = np.linalg.svd(J[k].T)[2][-1]
        assert np.linalg.norm(tau[k] + 0.1 * null) > np.linalg.norm(tau[k])


def _rhs(robot, x, tau_fn, t):
    p, pd = x[:2], x[2:]
    M, C, J = robot.mass_matrix(p), robot.coriolis_matrix(p, pd), robot.actuated_jacobian(p)
    return np.concatenate([pd, np.linalg.solve(M, J.T @ tau_fn(t, p, pd) - C @ pd)])


def _rk4(robot, x0, tau_fn, dt, n):
    xs = [np.asarray(x0, float)]
    x = xs[0]
    for k in range(n):
        t = k * dt
        k1 = _rhs(robot, x, tau_fn, t)
        k2 = _rhs(robot, x + dt / 2 * k1, tau_fn, t + dt / 2)
        k3 = _rhs(robot, x + dt / 2 * k2, tau_fn, t + dt / 2)
        k4 = _rhs(robot, x + dt * k3, tau_fn, t + dt)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        xs.append(x)
    return np.array(xs)


def _reference(robot, t):
    """A smooth platform path in the work region: p, pd, pdd."""
    c, a = robot.work_centre, 0.08
    w = np.array([2.0, 3.0])
    p = c + a * np.sin(w * t[:, None]) * [1.0, 0.7]
    pd = a * w * np.cos(w * t[:, None]) * [1.0, 0.7]
    pdd = -a * w**2 * np.sin(w * t[:, None]) * [1.0, 0.7]
    return p, pd, pdd


def test_min_norm_torques_reproduce_the_platform_motion(robot):
    """Open loop: the torques of eq. 37 along a reference drive the plant along it."""
    dt, n = 1e-3, 1500

    def tau_fn(t, p, pd):
        pr, pdr, pddr = _reference(robot, np.array([t]))
        return robot.min_norm_torques(pr[0], pdr[0], pddr[0])

    p0, pd0, _ = _reference(robot, np.array([0.0]))
    xs = _rk4(robot, np.concatenate([p0[0], pd0[0]]), tau_fn, dt, n)
    pr, pdr, _ = _reference(robot, np.arange(n + 1) * dt)
    assert np.max(np.abs(xs[:, :2] - pr)) < 1e-8  # metres, after 1.5 s open loop
    assert np.max(np.abs(xs[:, 2:] - pdr)) < 1e-7


def test_power_balance_and_energy(robot):
    """d/dt (1/2 pd^T M_s pd) = tau . th_dot_a for any drive torques; zero torque conserves energy."""
    dt, n = 5e-4, 800
    rng = np.random.default_rng(10)
    a, w = rng.normal(0, 2.0, 3), rng.uniform(2, 6, 3)

    def tau_fn(t, p, pd):
        return a * np.sin(w * t)

    x0 = np.concatenate([robot.work_centre, [0.1, -0.05]])
    xs = _rk4(robot, x0, tau_fn, dt, n)
    T = robot.kinetic_energy(xs[:, :2], xs[:, 2:])
    t = np.arange(n + 1) * dt
    _, _, qd = robot.inverse_dynamics(xs[:, :2], xs[:, 2:], xs[:, 2:] * 0)
    power = np.sum(np.stack([tau_fn(tk, None, None) for tk in t]) * qd, axis=1)
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * dt)])
    assert abs(T[-1] - T[0]) > 1e-3  # the torques did work
    np.testing.assert_allclose(T - T[0], work, atol=2e-5 * max(1.0, np.max(np.abs(work))))
    xs0 = _rk4(robot, x0, lambda t, p, pd: np.zeros(3), dt, n)
    T0 = robot.kinetic_energy(xs0[:, :2], xs0[:, 2:])
    np.testing.assert_allclose(T0, T0[0], rtol=1e-9)
