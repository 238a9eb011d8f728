"""Several friction models replayed over one recording: one kernel pass, the same numbers as one replay each."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib import robots
from paperlib.estimation.replay import regressor_rows, replay, replay_models, summed_regressor_rows
from paperlib.friction import FrictionModel
from paperlib.twin.robots.five_bar import simulate


@pytest.fixture(scope="module")
def pd_run():
    return simulate(controller="PD", duration_s=6.0, seed=4, imu_calibration="none")


def _models(n_ups):
    joints = tuple(range(1, n_ups + 1))
    return [FrictionModel(joints=joints, order=3), FrictionModel(joints=joints[:1], order=1),
            FrictionModel(joints=joints, order=2, symmetric=False)]


@pytest.mark.parametrize("name", ["toy_tridrive", "toy_pendulum"])
def test_summed_rows_are_the_per_joint_rows_summed_bit_for_bit(name):
    robot = robots.load(name)
    ks = robot.kernels
    rng = np.random.default_rng(11)
    q, qd, qdd = rng.normal(size=(3, 400, ks.n_joints))
    tau = rng.normal(size=(400, ks.n_drives))
    models = _models(ks.n_ups)
    Y_sums, R_sum = summed_regressor_rows(robot, models, q, qd, qdd, tau)
    assert len(Y_sums) == len(models)
    for fm, Y_sum in zip(models, Y_sums):
        Y, R = regressor_rows(robot, fm, q, qd, qdd, tau)
        assert Y_sum.flags.c_contiguous and Y_sum.shape == (400, Y.shape[2])
        assert np.array_equal(Y_sum, Y.sum(axis=1))
        assert np.array_equal(R_sum, R.sum(axis=1))


def test_replay_models_gives_each_models_replay(pd_run):
    models = [1, 3, 5]
    fits = replay_models(pd_run, models, record_every_s=0.05, keep_rows=True)
    for m, fit in zip(models, fits):
        one = replay(pd_run, m, record_every_s=0.05, keep_rows=True)
        assert fit.param_names == one.param_names
        assert np.array_equal(fit.estimator.theta, one.estimator.theta)
        assert np.array_equal(fit.estimator.P, one.estimator.P)
        assert np.array_equal(fit.history.theta, one.history.theta)
        assert np.array_equal(fit.history.rho_rms, one.history.rho_rms)
        assert np.array_equal(fit.converged_s, one.converged_s, equal_nan=True)
        for a, b in zip(fit.extra["rows"], one.extra["rows"]):
            assert np.array_equal(a, b)
    # per-joint rows (their own path) give the same numbers through either call
    fit = replay_models(pd_run, [3], per_joint_rows=True)[0]
    assert np.array_equal(fit.estimator.theta, replay(pd_run, 3, per_joint_rows=True).estimator.theta)


def test_replay_models_refuses_what_it_cannot_do(pd_run):
    with pytest.raises(ValueError, match="no model"):
        replay_models(pd_run, [])
    with pytest.raises(ValueError, match="pi0 needs a single model"):
        replay_models(pd_run, [3, 4], pi0=np.zeros(10))
    with pytest.raises(ValueError, match="unknown setting"):
        replay_models(pd_run, [3], half_life=600.0)


def test_a_sample_outside_the_workspace_is_named():
    robot = robots.load("five_bar")
    q = np.array([[0.5, 2.0], [np.pi, 0.0]])  # the second: proximal links stretched apart, the loop cannot close
    z = np.zeros_like(q)
    with pytest.raises(ValueError, match=r"sample 1 .* outside the workspace or singular; 1 such"):
        summed_regressor_rows(robot, _models(5), q, z, z, z)


def test_a_model_naming_a_joint_the_robot_lacks_is_refused():
    robot = robots.load("toy_pendulum")  # one friction joint
    q = np.zeros((3, 1))
    tau = np.zeros((3, robot.kernels.n_drives))
    five_joints = FrictionModel(joints=(1, 2, 3, 4, 5), order=2)
    with pytest.raises(ValueError, match="uses joint 5, but 'toy_pendulum' has 1 friction joints"):
        regressor_rows(robot, five_joints, q, q, q, tau)
    with pytest.raises(ValueError, match="uses joint 5"):
        summed_regressor_rows(robot, [FrictionModel(joints=(1,), order=1), five_joints], q, q, q, tau)
