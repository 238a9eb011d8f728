"""The 3-RRR on the generic layers: its kernel set, and its twin's plant steps in the plant layer.

The kernel set's terms are checked against the robot's own model (finite differences of the
inverse kinematics, ``M_s pdd + C_s pd``); the twin's plant against energy: a frictionless,
unactuated platform coasts with constant kinetic energy, and with the PD loops driving it the
work of the drives' held torques, ``gain tau . d theta`` per control period (exact for a torque
held while the drive angle moves by ``d theta``), equals the change of kinetic energy.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paperlib.robots.kernel_sets import THREE_RRR, robot_dynamics, robot_state_terms, robot_terms
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, simulate


@pytest.fixture(scope="module")
def robot() -> ThreeRRR:
    return ThreeRRR.default()


def _states(robot: ThreeRRR, n: int, seed: int):
    rng = np.random.default_rng(seed)
    r = 0.8 * robot.work_radius * np.sqrt(rng.uniform(0, 1, n))
    a = rng.uniform(0, 2 * np.pi, n)
    P = robot.work_centre + np.stack([r * np.cos(a), r * np.sin(a)], axis=1)
    return P, rng.normal(0, 0.3, (n, 2)), rng.normal(0, 3.0, (n, 2))


def test_kernel_set_terms_are_the_robot_model(robot):
    assert robot.kernels is THREE_RRR
    ks, prm = THREE_RRR, robot.params
    assert (ks.n_joints, ks.n_drives, ks.n_ups, ks.n_inertial) == (2, 3, 3, 0)
    P, PD, PDD = _states(robot, 20, seed=4)
    for p, pd, pdd in zip(P, PD, PDD):
        M, h, M2, h2 = np.empty((2, 2)), np.empty(2), np.empty((2, 2)), np.empty(2)
        D, ud, R, D_m, D_u, ud2 = np.empty((3, 2)), np.empty(3), np.empty(2), np.empty((3, 2)), np.empty((3, 2)), np.empty(3)
        assert robot_dynamics(ks.kid, p, pd, prm, M, h) == 0
        assert robot_state_terms(ks.kid, p, pd, prm, M2, h2, D, ud) == 0
        assert robot_terms(ks.kid, p, pd, pdd, prm, R, D_m, D_u, ud2, np.empty((2, 0))) == 0
        np.testing.assert_array_equal(M, M2)
        np.testing.assert_array_equal(h, h2)
        np.testing.assert_allclose(M, robot.mass_matrix(p), rtol=1e-12)
        np.testing.assert_allclose(h, robot.coriolis_matrix(p, pd) @ pd, rtol=1e-10, atol=1e-12)
        # Q_I = -(M_s pdd + C_s pd): no gravity, nothing unknown
        np.testing.assert_allclose(R, -(M @ pdd + h), rtol=1e-10, atol=1e-12)
        # drives = friction joints, map = the actuated Jacobian; their rates by a central difference of ik
        eps = 1e-6
        fd = (robot.ik(p + eps * pd) - robot.ik(p - eps * pd)) / (2 * eps)
        np.testing.assert_allclose(ud, fd, rtol=1e-6, atol=1e-9)
        np.testing.assert_array_equal(ud, ud2)
        np.testing.assert_array_equal(D, D_u)
        np.testing.assert_array_equal(D_m, D)
    # outside the workspace the status is the kernel's
    M, h = np.empty((2, 2)), np.empty(2)
    assert robot_dynamics(ks.kid, robot.work_centre + np.array([5.0, 0.0]), np.zeros(2), prm, M, h) != 0


def _twin(frictionless: bool, gains: bool) -> ThreeRRRTwin:
    tw = ThreeRRRTwin.default()
    changes: dict = {"torque_quantum_Nm": 0.0}
    if frictionless:
        changes["friction"] = tuple(dataclasses.replace(j, bristle_stiffness_Nm_per_rad=0.0,
                                                        bristle_damping_Nm_s_per_rad=0.0, viscous_Nm_s_per_rad=0.0)
                                    for j in tw.friction)
    if not gains:
        changes["kp"] = np.zeros(3)
        changes["kd"] = np.zeros(3)
    return dataclasses.replace(tw, **changes)


def _reference(robot: ThreeRRR, fs: float, duration: float, amp: float, freq: float):
    t = np.arange(int(duration * fs)) / fs
    w = 2 * np.pi * freq
    d = np.array([np.cos(0.4), np.sin(0.4)])
    s, sd, sdd = amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w ** 2 * np.sin(w * t)
    return {"t": t, "p": robot.work_centre + s[:, None] * d, "pd": sd[:, None] * d, "pdd": sdd[:, None] * d}


def test_frictionless_unactuated_platform_coasts_with_constant_kinetic_energy(robot):
    tw = _twin(frictionless=True, gains=False)
    ref = _reference(robot, tw.control_rate_hz, 1.0, 0.03, 0.5)  # starts at the centre at 0.094 m/s
    run = simulate(robot, tw, ref)
    assert np.all(run["tau_m"] == 0.0)
    T = robot.kinetic_energy(run["p_true"], run["pd_true"])
    moved = np.linalg.norm(run["p_true"][-1] - run["p_true"][0])
    assert moved > 0.05  # it coasted through the workspace (M_s changes along the way) ...
    # ... with the energy it started with: RK4 at 4 kHz, measured 1e-14 relative
    assert np.ptp(T) < 1e-11 * T[0], (np.ptp(T) / T[0])


@pytest.mark.parametrize("frictionless", [True, False])
def test_work_of_the_held_drive_torques_is_the_change_of_kinetic_energy(robot, frictionless):
    tw = _twin(frictionless=frictionless, gains=True)
    ref = _reference(robot, tw.control_rate_hz, 2.0, 0.04, 1.0)
    run = simulate(robot, tw, ref)
    th = np.unwrap(robot.ik(run["p_true"]), axis=0)
    work = tw.drive_gain * np.sum(run["tau_m"][:-1] * np.diff(th, axis=0), axis=1)  # per control period [J]
    T = robot.kinetic_energy(run["p_true"], run["pd_true"])
    dT = np.diff(T)
    scale = np.sum(np.abs(work))
    assert scale > 1.0  # the drives did work
    if frictionless:
        # held torques on a frictionless plant: d T = W per period, up to RK4's truncation (measured
        # 1e-13 of the total work; holding Q = J_a^T tau of the step's start instead gives 3e-6)
        assert np.max(np.abs(dT - work)) < 1e-10 * scale, np.max(np.abs(dT - work)) / scale
    else:
        # the drives' work exceeds d T by the friction's, ~ F_ss(qd) . d theta (the LuGre law in
        # sliding; measured 0.4 % apart, the bristles' presliding at the reversals)
        loss = np.sum(work - dT)
        F_ss = np.stack([tw.steady_friction(run["qd_true"][:-1, i], i) for i in range(3)], axis=1)
        est = np.sum(F_ss * np.diff(th, axis=0))
        assert loss > 0.1 * scale
        assert abs(loss - est) < 0.02 * est, (loss, est)


def test_a_plant_step_that_leaves_the_workspace_stops_the_run(robot):
    tw = _twin(frictionless=True, gains=False)
    n = 1000
    ref = {"t": np.arange(n) / tw.control_rate_hz, "p": np.tile(robot.work_centre, (n, 1)), "pd": np.zeros((n, 2)),
           "pdd": np.zeros((n, 2))}
    ref["pd"][0] = [2.0, 0.0]  # coasting at 2 m/s, the platform reaches the edge of the workspace within 1 s
    with pytest.raises(ValueError, match="left the workspace at t = 0"):
        simulate(robot, tw, ref)
