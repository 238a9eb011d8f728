"""Physics of the generated 5R model: kinematics, Jacobians, dynamics, energy."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.robots.five_bar import FiveBar


@pytest.fixture(scope="module")
def robot() -> FiveBar:
    return FiveBar.default()


def _well_conditioned_states(robot: FiveBar, n: int, seed: int, sigma_min: float = 0.2) -> np.ndarray:
    """Random joint states in the well-conditioned region (condition index >= sigma_min)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        q = rng.uniform(np.radians([40, -20]), np.radians([200, 140]))
        try:
            if robot.condition_index(q) >= sigma_min:
                out.append(q)
        except ValueError:
            continue
    return np.array(out)


def _d5(f, x0: float, h: float):
    """Five-point central difference (error O(h^4))."""
    return (-f(x0 + 2 * h) + 8 * f(x0 + h) - 8 * f(x0 - h) + f(x0 - 2 * h)) / (12 * h)


# -- kinematics ----------------------------------------------------------------------------------

def _in_paper_working_mode(robot: FiveBar, q: np.ndarray) -> bool:
    """Elbow 1 has the lower x and elbow 2 the higher x of their two mirror solutions."""
    p, _ = robot.fk(q)
    ok = True
    for j, (s, low) in enumerate(zip(robot.base_joints, (True, False))):
        e = s + robot.param(f"l_p{j + 1}") * np.array([np.cos(q[j]), np.sin(q[j])])
        u = (p - s) / np.linalg.norm(p - s)
        mirror = s + 2 * ((e - s) @ u) * u - (e - s)  # reflection of e across the line s -> p
        ok &= (e[0] <= mirror[0] + 1e-12) if low else (e[0] >= mirror[0] - 1e-12)
    return bool(ok)


def test_fk_ik_round_trip(robot):
    Q = _well_conditioned_states(robot, 300, seed=1)
    Q = Q[[_in_paper_working_mode(robot, q) for q in Q]]
    assert len(Q) > 100
    p, phi = robot.fk(Q)
    q_back = robot.ik(p)
    np.testing.assert_allclose(np.angle(np.exp(1j * (q_back - Q))), 0.0, atol=1e-10)
    np.testing.assert_allclose(robot.fk(q_back)[0], p, atol=1e-12)
    # loop closure: both distal links end at p with their lengths
    e1 = robot.base_joints[0] + robot.param("l_p1") * np.stack([np.cos(Q[:, 0]), np.sin(Q[:, 0])], 1)
    e2 = robot.base_joints[1] + robot.param("l_p2") * np.stack([np.cos(Q[:, 1]), np.sin(Q[:, 1])], 1)
    np.testing.assert_allclose(np.linalg.norm(p - e1, axis=1), robot.param("l_d1"), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(p - e2, axis=1), robot.param("l_d2"), atol=1e-12)
    np.testing.assert_allclose(phi[:, 0], np.arctan2(p[:, 1] - e1[:, 1], p[:, 0] - e1[:, 0]), atol=1e-12)


def test_internal_angles_match_definitions(robot):
    Q = _well_conditioned_states(robot, 20, seed=2)
    _, phi = robot.fk(Q)
    psi = robot.psi(Q)
    expected = np.stack([Q[:, 0], np.pi - Q[:, 1], np.pi - phi[:, 1] + Q[:, 1],
                         phi[:, 1] - phi[:, 0], np.pi - Q[:, 0] + phi[:, 0]], 1)
    np.testing.assert_allclose(psi, expected, atol=1e-12)


def _both_roots(robot: FiveBar, q: np.ndarray) -> np.ndarray:
    """Both circle intersections of eqs. 26-27 (independent of the kernel)."""
    e1 = robot.base_joints[0] + robot.param("l_p1") * np.array([np.cos(q[0]), np.sin(q[0])])
    e2 = robot.base_joints[1] + robot.param("l_p2") * np.array([np.cos(q[1]), np.sin(q[1])])
    ld1, ld2 = robot.param("l_d1"), robot.param("l_d2")
    d = e2 - e1
    L = np.linalg.norm(d)
    a = (ld1**2 - ld2**2 + L**2) / (2 * L)
    h = np.sqrt(ld1**2 - a**2)
    mid = e1 + a * d / L
    perp = np.array([-d[1], d[0]]) / L
    return np.array([mid + h * perp, mid - h * perp])


@pytest.mark.parametrize("q_deg", [(120, 60), (100, 80), (60, 120), (30, 150), (150, 100)])
def test_branch_with_larger_py_also_when_elbows_swap(robot, q_deg):
    q = np.radians(q_deg)
    roots = _both_roots(robot, q)
    p, _ = robot.fk(q)
    np.testing.assert_allclose(p, roots[np.argmax(roots[:, 1])], atol=1e-12)


def test_elbow_swap_case_is_exercised(robot):
    # q = (30, 150) deg puts e2 to the left of e1: the "+" root would be the wrong branch there
    q = np.radians([30, 150])
    e1x = -robot.param("l_f") / 2 + robot.param("l_p1") * np.cos(q[0])
    e2x = robot.param("l_f") / 2 + robot.param("l_p2") * np.cos(q[1])
    assert e2x < e1x
    p, _ = robot.fk(q)
    assert p[1] == pytest.approx(_both_roots(robot, q)[:, 1].max(), abs=1e-12)


def test_errors_outside_workspace_and_at_singularity(robot):
    with pytest.raises(ValueError, match="outside the workspace"):
        robot.fk([np.radians(-90), np.radians(-90) + np.pi])  # elbows 0.68 m apart > l_d1 + l_d2
    with pytest.raises(ValueError, match="outside the workspace"):
        robot.ik([0.0, 0.9])
    # parallel singularity: distal links aligned (p on the segment e1-e2, |e1 - e2| = l_d1 + l_d2)
    lf, lp, ld = robot.param("l_f"), robot.param("l_p1"), robot.param("l_d1")
    # symmetric pose with e1x = -ld, e2x = +ld: cos(q1) = (lf/2 - ld)/lp
    q1 = np.arccos((lf / 2 - ld) / lp)
    with pytest.raises(ValueError, match="singularity|outside"):
        robot.mass_matrix([q1, np.pi - q1])
    with pytest.raises(ValueError, match="not finite"):
        robot.mass_matrix([np.nan, 1.0])
    with pytest.raises(ValueError, match="shape"):
        robot.mass_matrix(np.zeros((3, 3)))


def test_single_and_batch_shapes(robot):
    Q = _well_conditioned_states(robot, 5, seed=3)
    assert robot.mass_matrix(Q[0]).shape == (2, 2)
    assert robot.mass_matrix(Q).shape == (5, 2, 2)
    assert robot.inertial_lagrangian(Q, Q, Q).shape == (5, 2)
    assert np.ndim(robot.condition_index(Q[0])) == 0
    assert robot.condition_index(Q).shape == (5,)
    np.testing.assert_allclose(robot.mass_matrix(Q)[2], robot.mass_matrix(Q[2]), rtol=0, atol=0)



def test_condition_index_gives_nan_at_invalid_states_and_the_same_values_elsewhere(robot):
    rng = np.random.default_rng(11)
    Q = rng.uniform(np.radians([-60, -120]), np.radians([260, 260]), size=(400, 2))  # many outside the workspace
    sigma = robot.condition_index(Q, invalid="nan")
    for q, s in zip(Q, sigma):
        try:
            expected = robot.condition_index(q)
        except ValueError:
            assert np.isnan(s)
            continue
        assert s == expected  # the same batch kernel and SVD: bit for bit
    assert np.isnan(sigma).any() and np.isfinite(sigma).any()
    assert np.isnan(robot.condition_index(Q[np.isnan(sigma)][0], invalid="nan"))  # one state: a float NaN
    with pytest.raises(ValueError, match="invalid"):
        robot.condition_index(Q, invalid="zero")

# -- Jacobians against finite differences ---------------------------------------------------------

def test_jacobians_match_finite_differences(robot):
    for q in _well_conditioned_states(robot, 25, seed=4):
        D_chi, D_psi = robot.jacobians(q)
        for j in range(2):
            def chi_psi(x, j=j):
                qq = q.copy()
                qq[j] = x
                c, s = robot.chi_psi(qq)
                return np.concatenate([c, s])

            fd = _d5(chi_psi, q[j], 2e-4)
            analytic = np.concatenate([D_chi[:, j], D_psi[:, j]])
            np.testing.assert_allclose(analytic, fd, rtol=0, atol=1e-8 * max(1.0, np.abs(fd).max()))


def test_jacobian_rates_match_finite_differences(robot):
    rng = np.random.default_rng(5)
    for q in _well_conditioned_states(robot, 25, seed=5):
        qd = rng.uniform(-4, 4, 2)

        def jac(t):
            a, b = robot.jacobians(q + qd * t)
            return np.concatenate([a.ravel(), b.ravel()])

        fd = _d5(jac, 0.0, 2e-4)
        a, b = robot.jacobian_rates(q, qd)
        np.testing.assert_allclose(np.concatenate([a.ravel(), b.ravel()]), fd, atol=1e-8 * max(1.0, np.abs(fd).max()))


def test_condition_index_matches_definition(robot):
    Q = _well_conditioned_states(robot, 10, seed=6)
    D_chi, _ = robot.jacobians(Q)
    for k, q in enumerate(Q):
        Dp = D_chi[k, 8:10]
        mu = np.linalg.eigvalsh(Dp.T @ Dp)
        assert robot.condition_index(q) == pytest.approx(np.sqrt(mu[0] / mu[1]), rel=1e-10)


# -- dynamics -------------------------------------------------------------------------------------

def test_mass_matrix_symmetric_positive_definite_over_workspace(robot):
    Q = _well_conditioned_states(robot, 500, seed=7, sigma_min=0.1)
    M = robot.mass_matrix(Q)
    np.testing.assert_array_equal(M, np.transpose(M, (0, 2, 1)))
    eig = np.linalg.eigvalsh(M)
    assert eig.min() > 0.1  # at least the proximal inertia scale (I_p = 0.292 kg m^2)


def test_mdot_minus_2c_is_skew_symmetric(robot):
    rng = np.random.default_rng(8)
    for q in _well_conditioned_states(robot, 25, seed=8):
        qd = rng.uniform(-4, 4, 2)
        Mdot = _d5(lambda t: robot.mass_matrix(q + qd * t), 0.0, 2e-4)
        N = Mdot - 2 * robot.coriolis_matrix(q, qd)
        np.testing.assert_allclose(N + N.T, 0.0, atol=1e-8 * np.abs(Mdot).max() + 1e-12)


def test_inertial_lagrangian_is_minus_m_qdd_minus_c_qd(robot):
    rng = np.random.default_rng(9)
    Q = _well_conditioned_states(robot, 50, seed=9)
    QD = rng.uniform(-4, 4, Q.shape)
    QDD = rng.uniform(-30, 30, Q.shape)
    M = robot.mass_matrix(Q)
    C = robot.coriolis_matrix(Q, QD)
    expected = -(np.einsum("nij,nj->ni", M, QDD) + np.einsum("nij,nj->ni", C, QD))
    np.testing.assert_allclose(robot.inertial_lagrangian(Q, QD, QDD), expected, rtol=1e-12, atol=1e-12)


def test_power_balance_on_simulated_motion(robot):
    """d/dt(1/2 qd^T M qd) = qd^T Q: the kinetic energy gained equals the work of the torques."""
    q = np.radians([120.0, 60.0])
    qd = np.array([0.8, -0.6])

    def Q_m(t):  # a smooth generalized force [N m]
        return np.array([3.0 * np.sin(7 * t), -2.0 * np.cos(5 * t)])

    def f(t, y):
        M = robot.mass_matrix(y[:2])
        h = -robot.inertial_lagrangian(y[:2], y[2:], np.zeros(2))  # C qd
        return np.concatenate([y[2:], np.linalg.solve(M, Q_m(t) - h)])

    dt, n = 1e-4, 3000
    y = np.concatenate([q, qd])
    work, t = 0.0, 0.0
    E0 = robot.kinetic_energy(y[:2], y[2:])
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        y_new = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        work += dt / 2 * (y[2:] @ Q_m(t) + y_new[2:] @ Q_m(t + dt))  # trapezoidal power integral
        y, t = y_new, t + dt
    E1 = robot.kinetic_energy(y[:2], y[2:])
    assert abs(E1 - E0) > 0.1  # the torques did real work
    assert E1 - E0 == pytest.approx(work, rel=2e-5)


def test_free_motion_conserves_energy(robot):
    y = np.concatenate([np.radians([120.0, 60.0]), [1.0, 1.5]])
    E0 = robot.kinetic_energy(y[:2], y[2:])

    def f(y):
        M = robot.mass_matrix(y[:2])
        return np.concatenate([y[2:], np.linalg.solve(M, robot.inertial_lagrangian(y[:2], y[2:], np.zeros(2)))])

    dt = 2.5e-4
    for _ in range(800):
        k1 = f(y); k2 = f(y + dt / 2 * k1); k3 = f(y + dt / 2 * k2); k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    assert robot.kinetic_energy(y[:2], y[2:]) == pytest.approx(E0, rel=1e-8)
