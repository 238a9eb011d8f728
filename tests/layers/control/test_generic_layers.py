"""The same control step and closed-loop runner on robots other than the 5R.

* a one-joint pendulum under gravity with a joint torque sensor (paper 004's shape): gravity
  is known (right-hand side), the inertia is identified (inertial column block), 1 kHz;
* a toy with three drives for two degrees of freedom (the 3-RRR's shape): the torque is
  distributed by the minimum-norm solution, 2 kHz.

The twin parts are the 5R twin's own (drive current loop, LuGre friction, RK4 with held forces),
with the toys' numbers. Ideal rate sensors: the toys have no IMU model.
"""

import numpy as np
import pytest

from paperlib.control import controllers as ctl
from paperlib.control.step import distribute
from paperlib.friction import FrictionModel
from paperlib.friction.lugre import FrictionJoint, friction_array
from paperlib.robots.toys import Pendulum, TriDrive
from paperlib.twin import drives as dr
from paperlib.twin import runner
from paperlib.twin import thermal as th

FC, FV = 0.3, 0.05


def _friction(n: int) -> np.ndarray:
    """LuGre rows whose steady curve is exactly Coulomb + viscous (no Stribeck dip, linear viscous)."""
    j = FrictionJoint(coulomb_Nm=FC, static_Nm=FC, stribeck_velocity_rad_per_s=0.1, stribeck_exponent=2.0,
                      viscous_Nm_s_per_rad=FV, viscous_thinning_velocity_rad_per_s=100.0, viscous_exponent=1.0,
                      bristle_stiffness_Nm_per_rad=500.0, bristle_damping_Nm_s_per_rad=1.0,
                      bristle_damping_velocity_rad_per_s=0.05, coulomb_temp_coeff_per_K=0.0,
                      viscous_temp_decay_per_K=0.0, reference_temperature_degC=22.0)
    return friction_array([j] * n)


def _drives(pi_pds, dt):
    common = dr.DriveCommon(drive_peak_current_A=50.0, drive_continuous_current_A=20.0, current_loop_bandwidth_Hz=1500.0,
                            current_loop_damping=0.8, bus_voltage_V=48.0, quantize_torque_permille=0.0,
                            joint_max_speed_rad_per_s=20.0, joint_peak_torque_required_Nm=30.0)
    axes = [dr.DriveAxis(gear_ratio=1.0, torque_constant_nominal_Nm_per_A=0.5, torque_constant_true_Nm_per_A=0.5 * p,
                         current_sense_gain=1.0, current_sense_offset_A=0.0, rated_torque_Nm=30.0,
                         motor_peak_torque_Nm=40.0, max_torque_permille=1000.0, motor_max_speed_rpm=6000.0)
            for p in pi_pds]
    return dr.drive_array(common, axes, dt)


def _sines(rate, duration, amp, freq, offset):
    t = np.arange(int(duration * rate)) / rate
    w = 2 * np.pi * np.asarray(freq)
    q = offset + amp * np.sin(w * t[:, None])
    qd = amp * w * np.cos(w * t[:, None])
    qdd = -amp * w ** 2 * np.sin(w * t[:, None])
    return np.ascontiguousarray(q), np.ascontiguousarray(qd), np.ascontiguousarray(qdd)


def _run(robot, cfg, rate, duration, amp, freq, offset, pi_pds, D_drive, torque_sensor):
    q_sp, qd_sp, qdd_sp = _sines(rate, duration, amp, freq, offset)
    c = ctl.Controller(robot, cfg, rate)
    la = runner.LoopArrays.build(
        robot=robot, controller=c, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp, sample_rate_hz=rate,
        fric=_friction(robot.kernels.n_ups), therm_x=np.zeros((0, th.N_THERMAL_STATE)),
        therm_disc=np.zeros((0, th.N_THERMAL_DISC)), T_amb=22.0, drv=_drives(pi_pds, 1.0 / rate), D_drive=D_drive,
        enc_step=np.full(robot.n_joints, 2 * np.pi / 2 ** 20), torque_sensor=torque_sensor)
    status, k = runner.run(la)
    assert status == 0 and k == len(q_sp)
    return c, la, q_sp


def test_pendulum_with_torque_sensor_identifies_inertia_and_friction():
    robot = Pendulum()
    cfg = ctl.ControllerConfig(name="AC", model=FrictionModel(joints=(1,), order=1), conv_v_max=2.0)
    c, la, q_sp = _run(robot, cfg, 1000.0, 20.0, np.array([1.0]), [0.4], np.array([0.3]),
                       pi_pds=[0.9], D_drive=np.ones((1, 1)), torque_sensor=True)
    # the sensor reads the actual torque: its gain is 1; J and Coulomb + viscous recovered
    assert c.param_names == ["pi_pds,1", "pi_I,J", "pi_F,1,0", "pi_F,1,1"]
    np.testing.assert_allclose(c.pi_pds, [1.0], rtol=0.01)
    np.testing.assert_allclose(c.pi_I, [robot.params[0]], rtol=0.05)
    np.testing.assert_allclose(c.pi_F, [FC, FV], rtol=0.1)
    assert c.switches_closed
    # the model fed forward (gravity, identified inertia and friction) tracks far better than PD
    pd, la_pd, _ = _run(robot, ctl.ControllerConfig(name="PD", estimate=False, model=FrictionModel(joints=(1,), order=1)), 1000.0, 20.0, np.array([1.0]), [0.4],
                        np.array([0.3]), pi_pds=[0.9], D_drive=np.ones((1, 1)), torque_sensor=True)
    rms = [np.sqrt(np.mean((x["log_truth"][-5000:, 0, 0] - q_sp[-5000:, 0]) ** 2)) for x in (la, la_pd)]
    assert rms[0] < 0.25 * rms[1], rms


def test_three_drives_for_two_dof_min_norm_and_drive_gains():
    robot = TriDrive()
    D = robot.params[3:].reshape(3, 2)
    cfg = ctl.ControllerConfig(name="AC", model=FrictionModel(joints=(1, 2), order=1), per_joint_rows=True,
                               conv_v_max=2.0)
    pi_true = np.array([0.93, 1.06, 1.0])
    c, la, q_sp = _run(robot, cfg, 2000.0, 20.0, np.array([0.8, 0.6]), [0.3, 0.47], np.zeros(2),
                       pi_pds=pi_true, D_drive=D, torque_sensor=False)
    assert c.tau_tgt.shape == (3,) and c.parts.shape == (3, 3)
    np.testing.assert_allclose(c.pi_pds, pi_true, rtol=0.02)
    np.testing.assert_allclose(c.pi_F, [FC, FV, FC, FV], rtol=0.1)
    np.testing.assert_allclose(c.tau_tgt, c.parts.sum(axis=0) / c.pi_pds, rtol=1e-12)  # (c) per drive
    pd, la_pd, _ = _run(robot, ctl.ControllerConfig(name="PD", estimate=False, model=FrictionModel(joints=(1, 2), order=1)), 2000.0, 20.0, np.array([0.8, 0.6]),
                        [0.3, 0.47], np.zeros(2), pi_pds=pi_true, D_drive=D, torque_sensor=False)
    rms = [np.sqrt(np.mean((x["log_truth"][-10000:, 0, :2] - q_sp[-10000:]) ** 2)) for x in (la, la_pd)]
    assert rms[0] < 0.25 * rms[1], rms


def test_minimum_norm_distribution():
    rng = np.random.default_rng(1)
    D = rng.standard_normal((3, 2))
    b = rng.standard_normal(2)
    out = np.empty(3)
    distribute(D, b, np.empty((2, 2)), np.empty(2), out)
    np.testing.assert_allclose(D.T @ out, b, atol=1e-12)          # produces the wanted force
    np.testing.assert_allclose(out, np.linalg.pinv(D.T) @ b, atol=1e-12)  # with the least torque


def test_controller_refuses_a_friction_joint_the_robot_lacks():
    with pytest.raises(ValueError, match="friction joints"):
        ctl.Controller(Pendulum(), ctl.ControllerConfig(model=FrictionModel(joints=(1, 2), order=1)), 1000.0)


# -- a robot is a data file: kinds, the model protocol, the generated dispatch ---------------------
def test_robots_load_by_kind_and_unknown_names_list_the_known_ones():
    import dataclasses

    from paperlib import robots
    from paperlib.robots.kinds import KINDS, kind_of, robot_files
    from paperlib.robots.model import RobotModel

    files = robot_files()
    assert {"five_bar", "three_rrr", "tx40", "toy_pendulum", "toy_tridrive"} <= set(files)
    for name, path in files.items():
        assert kind_of(path) in KINDS
    compiled = ["five_bar", "three_rrr", "toy_pendulum", "toy_tridrive"]
    for name in compiled:
        model = robots.load(name)
        assert isinstance(model, RobotModel), name
        assert model.name == name and model.kernels.name == name
        assert (model.n_joints, model.n_drives) == (model.kernels.n_joints, model.kernels.n_drives)
        assert len(model.param_names) == model.params.shape[0] == model.kernels.n_params
        with pytest.raises(dataclasses.FrozenInstanceError):  # immutable: workspaces belong to the caller
            model.n_joints = 7
    assert type(robots.load("tx40")).__name__ == "SerialArm"
    with pytest.raises(ValueError, match="known: .*five_bar.*three_rrr"):
        robots.load("no_such_robot")


def test_toy_defaults_are_their_data_files():
    from paperlib import robots

    for cls, name in ((Pendulum, "toy_pendulum"), (TriDrive, "toy_tridrive")):
        a, b = cls(), robots.load(name)
        np.testing.assert_array_equal(a.params, b.params)
        assert a.description == b.description


def test_robot_path_env_adds_a_robot_and_a_dispatch_branch(tmp_path, monkeypatch):
    from paperlib import codegen, robots
    from paperlib.robots.kinds import ROBOT_PATH_ENV, ROBOTS_DIR

    text = (ROBOTS_DIR / "toy_pendulum.toml").read_text().replace('name = "toy_pendulum"', 'name = "my_pendulum"')
    (tmp_path / "my_pendulum.toml").write_text(text.replace("J_kg_m2 = 0.05", "J_kg_m2 = 0.07"))
    monkeypatch.setenv(ROBOT_PATH_ENV, str(tmp_path))
    assert robots.load("my_pendulum").params[0] == 0.07
    disp = codegen.generate_dispatch()
    assert "from paperlib.kernels import my_pendulum as K_my_pendulum" in disp
    assert disp.count("if kid == KID_MY_PENDULUM:") == 3  # one branch in each of the three functions
    assert "my_pendulum" in codegen.generators()


def test_twin_layer_names_no_robot():
    """Only paperlib/twin/robots/ names a robot; the shared twin layer finds it by name."""
    import re
    from pathlib import Path

    import paperlib.twin

    root = Path(paperlib.twin.__file__).parent
    word = re.compile(r"(?<![\w])(five_bar|fivebar|tx40|three_rrr|threerrr|pendulum|tridrive)(?![\w])", re.I)
    hits = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py") if "robots" not in p.relative_to(root).parts
            for i, line in enumerate(p.read_text().splitlines(), 1) if word.search(line)]
    assert hits == []
