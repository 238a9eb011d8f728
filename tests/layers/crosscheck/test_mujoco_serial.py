"""The TX40 (paper 001's arm) in MuJoCo from the arm's URDF: the same inverse dynamics and mass matrix.

The serial twins' torques are the arm's inverse dynamics (:mod:`paperlib.twin.robots.serial_log`), so
MuJoCo's ``mj_inverse`` of the same arm is the second, independent computation of what they log.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("mujoco")

from paperlib.crosscheck.mujoco_serial import MIN_INERTIA_KG_M2, inverse_dynamics, mass_matrix, serial_model  # noqa: E402
from paperlib.robots.serial import SerialArm  # noqa: E402


@pytest.fixture(scope="module")
def arm() -> SerialArm:
    return SerialArm.named("tx40")


def test_inverse_dynamics_agree_with_the_compendiums_rnea(arm):
    """100 random states (|qd| <= 2 rad/s, |qdd| <= 10 rad/s^2), gravity on: measured 3.2e-8 N m of 36 N m."""
    q, qd, qdd = arm.random_states(100, seed=1)
    tau = arm.inverse_dynamics(q, qd, qdd)
    assert np.max(np.abs(tau)) > 10.0
    np.testing.assert_allclose(inverse_dynamics(serial_model(arm), q, qd, qdd), tau, atol=1e-6)


def test_mass_matrix_agrees_up_to_the_floored_inertia(arm):
    """The only change to load the arm (the last link's zero inertia raised to 1e-9) is all that differs."""
    model = serial_model(arm)
    q, _, _ = arm.random_states(10, seed=2)
    for qk in q:
        assert np.max(np.abs(mass_matrix(model, qk) - arm.mass_matrix(qk))) <= 2 * MIN_INERTIA_KG_M2


def test_a_heavier_link_is_seen(arm):
    """The check can fail: 10 % more mass on link 3 in the URDF MuJoCo reads moves the torques by newtons."""
    inertial = arm.inertial.copy()
    inertial[2] *= 1.1  # link 3: mass, first and second moments together (a heavier copy of the same body)
    heavy = dataclasses.replace(arm, inertial=inertial)
    q, qd, qdd = arm.random_states(20, seed=3)
    diff = inverse_dynamics(serial_model(heavy), q, qd, qdd) - arm.inverse_dynamics(q, qd, qdd)
    assert np.max(np.abs(diff)) > 0.1
