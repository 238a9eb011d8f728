"""The MuJoCo 5R against the own twin: same mechanics, same motion under the same torques, energy balance."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from paperlib.crosscheck.mjcf_five_bar import PSI_CONST, PSI_JACOBIAN, five_bar_mjcf, qpos_qvel  # noqa: E402
from paperlib.crosscheck.mujoco_five_bar import MuJoCoFiveBar, closed_loop, open_loop  # noqa: E402
from paperlib.crosscheck.own_twin import own_closed_loop, own_open_loop  # noqa: E402
from paperlib.recordings import validate  # noqa: E402
from paperlib.robots.five_bar import FiveBar  # noqa: E402

# states inside the planning polygon and near its edges [rad], rates [rad/s]
STATES = [([2.094, 1.047], [1.0, -0.5]), ([1.6, 0.4], [-2.0, 3.0]), ([2.8, 1.6], [0.3, 0.2])]


@pytest.fixture(scope="module")
def robot() -> FiveBar:
    return FiveBar.default()


@pytest.fixture(scope="module")
def torque_history(robot):
    """Actual motor torques (N, 2) of 1 s of the own twin's PD run with friction, and its start state."""
    ds = own_closed_loop(robot, duration_s=1.0, seed=3)
    return ds["tau_m_true"].values, ds["q_true"].values[0], ds["qd_true"].values[0]


def _reduction(robot, q):
    """G (4, 2): MuJoCo's qvel = G qd on the closed chain (from the robot's own D_phi)."""
    D_chi, _ = robot.jacobians(q)
    return np.array([[1.0, 0.0], [D_chi[2, 0] - 1.0, D_chi[2, 1]], [0.0, 1.0], [D_chi[3, 0], D_chi[3, 1] - 1.0]])


@pytest.mark.parametrize("q, qd", STATES)
def test_mujoco_model_has_the_symbolic_mass_matrix_and_internal_angles(robot, q, qd):
    """Reduced to the actuated joints, MuJoCo's mass matrix of the MJCF built from the robot file is eq. 45's."""
    sim = MuJoCoFiveBar(robot)
    sim.set_state(q, qd)
    assert sim.closure_error() < 1e-12
    M4 = np.zeros((4, 4))
    mujoco.mj_fullM(sim.model, M4, sim.data.qM)
    G = _reduction(robot, np.asarray(q))
    M_sym = robot.mass_matrix(q)
    np.testing.assert_allclose(G.T @ M4 @ G, M_sym, rtol=1e-9, atol=1e-12)
    assert sim.kinetic_energy() == pytest.approx(robot.kinetic_energy(q, qd), rel=1e-9)
    _, D_psi = robot.jacobians(q)
    np.testing.assert_allclose(PSI_JACOBIAN @ G, D_psi, atol=1e-12)
    qpos, _ = qpos_qvel(robot, q, qd)
    np.testing.assert_allclose(np.angle(np.exp(1j * (PSI_CONST + PSI_JACOBIAN @ qpos - robot.psi(q)))), 0.0, atol=1e-12)


def test_the_mass_check_sees_a_wrong_inertia(robot):
    """The comparison can fail: a 10 % heavier distal link 1 in the MJCF alone breaks it."""
    heavy = robot.with_params(I_d1=1.1 * robot.param("I_d1"), m_d1=1.1 * robot.param("m_d1"))
    m = mujoco.MjModel.from_xml_string(five_bar_mjcf(heavy))
    d = mujoco.MjData(m)
    q = np.array(STATES[0][0])
    d.qpos[:], _ = qpos_qvel(robot, q, [0.0, 0.0])
    mujoco.mj_forward(m, d)
    M4 = np.zeros((4, 4))
    mujoco.mj_fullM(m, M4, d.qM)
    G = _reduction(robot, q)
    assert np.max(np.abs(G.T @ M4 @ G - robot.mass_matrix(q))) > 1e-3


@pytest.mark.parametrize("friction_scale", [0.0, 1.0])
def test_same_torques_same_motion_open_loop(robot, torque_history, friction_scale):
    """0.25 s of the same motor torques from the same state: the two simulators' joint angles agree.

    Measured: 4.5e-7 rad (frictionless) over a 0.9 rad motion; the RK4 of each at its own step and
    MuJoCo's soft closure make the difference.
    """
    tau, q0, qd0 = torque_history
    n = 1000
    own = own_open_loop(robot, tau[:n], q0, qd0, friction_scale=friction_scale)
    mj = open_loop(robot, tau[:n], q0, qd0, friction_scale=friction_scale)
    span = np.max(np.abs(own["q"] - own["q"][0]))
    assert span > 0.3  # the torques move the robot
    assert np.max(np.abs(own["q"] - mj["q"])) < 1e-5
    assert np.max(mj["closure"]) < 1e-6


def test_open_loop_differs_when_the_model_differs(robot, torque_history):
    """The open-loop comparison can fail: MuJoCo with a 10 % heavier end mass drifts well beyond the tolerance."""
    tau, q0, qd0 = torque_history
    heavy = robot.with_params(m_p=1.1 * robot.param("m_p"))
    own = own_open_loop(robot, tau[:1000], q0, qd0, friction_scale=0.0)
    mj = open_loop(heavy, tau[:1000], q0, qd0, friction_scale=0.0)
    assert np.max(np.abs(own["q"] - mj["q"])) > 1e-3


def test_energy_balance_without_friction(robot, torque_history):
    """Frictionless MuJoCo: the kinetic energy gained equals the held motor torques' work.

    Measured residual: 2e-6 J on 14 J of work over 0.25 s (the soft closure's own work).
    """
    tau, q0, qd0 = torque_history
    mj = open_loop(robot, tau[:1000], q0, qd0, friction_scale=0.0)
    assert np.all(mj["w_friction"] == 0.0)
    work = np.max(np.abs(mj["w_motor"]))
    assert work > 1.0
    residual = mj["ekin"] - mj["ekin"][0] - mj["w_motor"]
    assert np.max(np.abs(residual)) < 1e-5 * work


def test_energy_balance_with_friction(robot, torque_history):
    """With friction: kinetic energy gained = motor work - friction dissipation (dissipation positive)."""
    tau, q0, qd0 = torque_history
    mj = open_loop(robot, tau[:1000], q0, qd0, friction_scale=1.0)
    assert mj["w_friction"][-1] > 0.1
    residual = mj["ekin"] - mj["ekin"][0] - mj["w_motor"] + mj["w_friction"]
    assert np.max(np.abs(residual)) < 1e-5 * np.max(np.abs(mj["w_motor"]))


def test_pd_ten_seconds_same_joint_angles(robot):
    """10 s of PD (the compendium's controller) on MuJoCo and on the own twin, same setpoints, drives, friction.

    Issue 28's criterion is 1e-3 rad; measured 2.6e-7 rad (1.1e-2 rad tracking error), so the test
    holds it to 1e-5. The MuJoCo run is a valid schema-2 recording labelled as MuJoCo's.
    """
    mj = closed_loop(robot, duration_s=10.0, seed=1)
    own = own_closed_loop(robot, duration_s=10.0, seed=1)
    validate(mj, "mujoco PD")
    assert mj.attrs["source"] == "twin" and mj.attrs["simulator"] == "mujoco"
    q_mj, q_own = mj["q_true"].values, own["q_true"].values
    assert q_mj.shape == q_own.shape == (40000, 2)
    tracking = np.max(np.abs(q_own - own["q_sp"].values))
    assert tracking > 1e-3  # the robot is driven and the controller is working
    assert np.max(np.abs(q_mj - q_own)) < 1e-5
    assert np.max(mj["closure_error"].values) < 1e-6
    # both runs heat the gearboxes and dissipate alike (friction from the same law)
    w_mj, w_own = mj["work_friction"].values[-1], own["work_friction"].values[-1]
    assert w_own > 1.0
    assert w_mj == pytest.approx(w_own, rel=1e-5)  # measured 1.4e-7


def test_pd_with_the_imu_in_the_loop_as_the_room_runs_it(robot):
    """Sensed by the twin's IMU model (same noise keys, nominal conversion), MuJoCo and the room's own twin
    (:func:`paperlib.twin.robots.five_bar.simulate`) run 5 s of PD to the same joint angles.

    Measured: 1.9e-6 rad (1.8e-6 on 10 s); the fed-back rates differ by at most 6e-4 rad/s, against
    0.03 rad/s between the IMU's rate and the true one (noise and delay).
    """
    from paperlib.twin.robots.five_bar import simulate

    own = simulate(controller="PD", duration_s=5.0, seed=2, estimate=False, imu_calibration="none")
    mj = closed_loop(robot, controller="PD", duration_s=5.0, seed=2, sensing="imu", imu_calibration="none")
    validate(mj, "mujoco PD with IMU")
    assert mj["qd"].attrs["origin"] == "gyroscope"
    noise = np.std(mj["qd"].values - mj["qd_true"].values)
    assert noise > 1e-2  # the rates fed back are the IMU's, not the simulator's
    np.testing.assert_allclose(mj["qd"].values, own["qd"].values, atol=3e-3)
    assert np.max(np.abs(mj["q_true"].values - own["q_true"].values)) < 1e-5


def test_a_mujoco_recording_is_written_and_read_back(tmp_path):
    """The file keeps the simulator's label, the MJCF text and the ideal-sensing origins."""
    from paperlib.crosscheck.mujoco_five_bar import record
    from paperlib.recordings import read_recording

    path = record(tmp_path / "mj.nc", duration_s=0.2, seed=4)
    ds = read_recording(path)
    validate(ds, "read back")
    assert ds.attrs["source"] == "twin" and ds.attrs["simulator"] == "mujoco"
    assert ds.attrs["simulator_version"] == mujoco.__version__
    m = mujoco.MjModel.from_xml_string(ds.attrs["mjcf"])  # the model text rebuilds the model
    assert m.neq == 1 and m.nu == 2
    assert ds["qd"].attrs["origin"] == "model"
    assert ds.sizes["time"] == 800
