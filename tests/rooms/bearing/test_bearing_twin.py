"""The joint / wheel-bearing twin of paper 004's rig: its bookkeeping and physics."""

import math

import numpy as np
import pytest

from paperlib.experiments.bearing.runs import bearing_run, no_load_run
from paperlib.twin.robots.torque_joint import TorqueJointTwin, trapezoidal_moves, trapezoidal_torque_profile
from paperlib.twin.robots.wheel_bearing import population

QUIET = dict(sensor_noise_Nm=0.0, sensor_shift_std_Nm=0.0, sensor_drift_std_Nm_per_s=0.0)


def test_profiles():
    tau = trapezoidal_torque_profile()
    assert tau.size == 30000 and tau.max() == pytest.approx(3.0) and tau.min() == pytest.approx(-3.0)
    assert abs(tau[:3000]).max() == pytest.approx(1.0)            # first trapezoid 1 N m
    q, qd, qdd = trapezoidal_moves((4 * math.pi, -4 * math.pi), v_max=1.5, a_max=3.0, dwell_s=1.0)
    assert q.max() == pytest.approx(4 * math.pi, abs=1e-6)       # two revolutions ...
    assert q[-1] == pytest.approx(0.0, abs=1e-6)                 # ... and back
    assert np.abs(qd).max() <= 1.5 + 1e-9


def test_sensor_reads_the_sum_of_its_components_without_noise():
    twin = TorqueJointTwin(**QUIET)
    run = no_load_run(twin, seed=0)
    total = sum(run.intrinsic.values())
    np.testing.assert_allclose(run.tau_s, total, atol=1e-9)
    # the joint moves both ways, up to about the Gen3's speed
    assert run.qd.min() < -1.0 and run.qd.max() > 1.0
    # paper-level intrinsic numbers (calibrated by construction, Fig. 3c)
    assert np.ptp(run.intrinsic["ripple"]) == pytest.approx(0.4, abs=0.1)
    assert run.intrinsic["friction"].min() == pytest.approx(-0.25, abs=0.1)


def test_no_load_energy_balance():
    """Work of the command = kinetic energy + friction dissipation + ripple potential (no load)."""
    twin = TorqueJointTwin(**QUIET, substeps=40)
    run = no_load_run(twin, seed=0, duration_s=10.0)
    tau_cmd = trapezoidal_torque_profile(duration_s=10.0)
    J = twin.motor_inertia + twin.sensed_inertia
    dt = 1e-3
    fric = twin.drive_friction.torque(run.qd) + twin.sensor_friction.torque(run.qd)
    w_in = np.sum((tau_cmd * run.qd)[1:]) * dt
    w_f = np.sum((fric * run.qd)[1:]) * dt
    # ripple is conservative: its work is minus the change of its potential
    comps = twin.ripple_components
    V = lambda q: sum(c.amplitude_Nm / c.order * np.sin(c.order * q + c.phase_rad) for c in comps)
    dV = V(run.q_true[-1]) - V(run.q_true[0])
    ke = 0.5 * J * (run.qd[-1] ** 2 - run.qd[0] ** 2)
    assert w_in == pytest.approx(ke + w_f + dV, rel=0.02, abs=0.02)


def test_bearing_trial_load_cell_and_bearing_friction():
    twin = TorqueJointTwin(**QUIET)
    b = population("good", 1, 5)[0]
    run = bearing_run(b, twin, seed=1)
    moving = np.abs(run.qd) > 0.5
    # the load cell reads the bearing friction (plus the small ring/adapter inertia) within its noise
    err = run.tau_ref[moving] - run.bearing_torque[moving]
    assert np.sqrt(np.mean(err ** 2)) < 0.05
    # friction resists: the sign of the reference follows the velocity while turning
    assert np.all(np.sign(run.tau_ref[np.abs(run.qd) > 1.0]) == np.sign(run.qd[np.abs(run.qd) > 1.0]))
    # two revolutions each way
    assert run.q_true.max() - run.q_true.min() == pytest.approx(4 * math.pi, rel=0.02)
    assert run.truth["run"]["load_cell_saturated_samples"] == 0


def test_worn_bearings_need_more_torque():
    twin = TorqueJointTwin()
    good = [bearing_run(b, twin, seed=i).truth["run"]["bearing_torque_rms_Nm"]
            for i, b in enumerate(population("good", 6, 1))]
    worn = [bearing_run(b, twin, seed=i).truth["run"]["bearing_torque_rms_Nm"]
            for i, b in enumerate(population("worn", 6, 2))]
    assert np.mean(worn) > np.mean(good) + 0.1
