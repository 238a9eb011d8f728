"""The encoder-only identification of the room's study (``beyond``) on MuJoCo recordings of the 5R.

Issue 28: every identification's error on MuJoCo recordings within 2x its error on the own twin.
The room's setting (CTC, 30 s, model 3, the causal Kalman filter on the quantized encoder) on one
seed of its campaign; the MuJoCo run and the own twin's run with the same (ideal) sensing. Seeds
101-105 give the table of docs/crosscheck.md (measured: the two agree to 0.01 percentage points).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from paperlib.crosscheck.mujoco_five_bar import closed_loop  # noqa: E402
from paperlib.crosscheck.own_twin import own_closed_loop  # noqa: E402
from paperlib.estimation.encoder_kinematics import with_encoder_kinematics  # noqa: E402
from paperlib.estimation.replay import replay  # noqa: E402
from paperlib.experiments.mems import beyond  # noqa: E402
from paperlib.robots.five_bar import FiveBar  # noqa: E402


def _encoder_only_errors(ds, robot) -> dict:
    res = replay(with_encoder_kinematics(ds, "kalman", robot=robot), 3, keep_rows=True, imu_delay_cycles=0)
    return beyond.kinematics_metrics(ds, res)


@pytest.mark.slow
def test_encoder_only_identification_on_mujoco_matches_the_own_twin():
    robot = FiveBar.default()
    mj = closed_loop(robot, controller="CTC", duration_s=30.0, seed=101)
    own = own_closed_loop(robot, controller="CTC", duration_s=30.0, seed=101)
    assert np.max(np.abs(mj["q_true"].values - own["q_true"].values)) < 1e-5
    e_mj, e_own = _encoder_only_errors(mj, robot), _encoder_only_errors(own, robot)
    f_mj, f_own = np.array(e_mj["friction_curve_error_pct"]), np.array(e_own["friction_curve_error_pct"])
    assert np.all(f_own > 0.5)  # a real identification error, not a degenerate fit
    assert np.all(f_mj < 2 * f_own)  # the criterion
    assert np.all(np.abs(f_mj - f_own) < 0.1)  # measured: 0.001-0.003 percentage points
    assert np.all(np.array(e_mj["drive_gain_error_pct"]) < 1.0)
    # issue 28's Done-when line: within 5 % with no setting taken from the own twin (nor from the robot file:
    # jerk PSD and angle noise estimated from MuJoCo's recording). Measured 2.71 / 4.89 % (fixed design 1.65 / 2.91 %).
    auto = replay(with_encoder_kinematics(mj, "kalman", jerk_psd="auto", noise_rad="auto"), 3, keep_rows=True,
                  imu_delay_cycles=0)
    f_auto = np.array(beyond.kinematics_metrics(mj, auto)["friction_curve_error_pct"])
    assert np.all(f_auto < 5.0), f_auto


@pytest.mark.slow
def test_identification_recovers_mujocos_own_friction():
    """MuJoCo's own joint friction (dry-friction constraint + damping, :func:`native_friction`) is what the
    truth says: with the simulator's exact rates the identified curve is that law (measured 0.03 / 0.12 % on
    30 s); the encoder-only path then errs by its kinematics alone (measured 0.57 / 1.31 %)."""
    robot = FiveBar.default()
    ds = closed_loop(robot, controller="CTC", duration_s=15.0, seed=101, friction="native")
    assert "work_friction" not in ds and "frictionloss" in ds.attrs["mjcf"]
    ideal = beyond.kinematics_metrics(ds, replay(ds, 3, keep_rows=True, imu_delay_cycles=0))
    assert np.all(np.array(ideal["friction_curve_error_pct"]) < 0.5)
    enc = _encoder_only_errors(ds, robot)
    assert np.all(np.array(enc["friction_curve_error_pct"]) < 3.0)
