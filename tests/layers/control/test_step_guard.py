"""The control step guards itself: a non-finite input gives a fault status, zero torque and a safe stop."""

import json

import numpy as np
import pytest

from paperlib.control import controllers as ctl
from paperlib.robots.five_bar import FiveBar
from paperlib.twin.robots.five_bar import simulate


def _controller(name="AC"):
    c = ctl.Controller(FiveBar.default(), ctl.ControllerConfig(name=name), 4000.0)
    c.meas[ctl.M_Q] = np.radians([120.0, 60.0])
    c.meas[ctl.M_QD] = [0.5, -0.4]
    c.meas[ctl.M_QDD] = [1.0, 2.0]
    c.meas[ctl.M_TAU] = [0.3, -0.2]
    c.meas[ctl.M_Q_SP] = c.meas[ctl.M_Q] + 0.01
    c.meas[ctl.M_QD_SP] = c.meas[ctl.M_QD]
    c.meas[ctl.M_QDD_SP] = c.meas[ctl.M_QDD]
    return c


@pytest.mark.parametrize("row", [ctl.M_Q, ctl.M_QD, ctl.M_QDD, ctl.M_TAU, ctl.M_Q_SP, ctl.M_QD_SP, ctl.M_QDD_SP])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_input_gives_fault_and_zero_torque(row, bad):
    c = _controller()
    tau = c.step(0.0).copy()
    assert np.all(tau != 0) and c.status is not ctl.StepStatus.NONFINITE
    theta, P = c.theta.copy(), c.P.copy()
    c.meas[row, 1] = bad
    tau = c.step(0.00025)
    assert c.status is ctl.StepStatus.NONFINITE and c.status.is_fault
    np.testing.assert_array_equal(tau, 0.0)
    np.testing.assert_array_equal(c.parts, 0.0)
    np.testing.assert_array_equal(c.theta, theta)  # estimator untouched
    np.testing.assert_array_equal(c.P, P)
    name = ctl.MEAS_ROWS[row][0]
    assert f"{name}[2] = {bad}" in str(c.fault())


def test_nonfinite_command_gives_fault():
    c = _controller("PD")
    c.gains[0, 0] = np.inf  # a broken gain makes the command non-finite with finite inputs
    tau = c.step(0.0)
    assert c.status is ctl.StepStatus.NONFINITE
    np.testing.assert_array_equal(tau, 0.0)


def test_drive_gain_outside_band_is_flagged_not_used():
    c = ctl.Controller(FiveBar.default(), ctl.ControllerConfig(name="PD", estimate=False, pi_pds0=(0.01, 1.0)), 4000.0)
    c.iflags[ctl.I_CLOSED] = c.iflags[ctl.I_REQUESTED]
    c.meas[ctl.M_Q] = np.radians([120.0, 60.0])
    c.meas[ctl.M_Q_SP] = c.meas[ctl.M_Q] + 0.01
    c.step(0.0)
    assert c.pds_out_of_band_cycles == 1  # drive 1's estimate 0.01 is outside (0.05, 20]
    np.testing.assert_allclose(c.tau_tgt[0], c.parts[ctl.PART_FEEDBACK, 0])  # not divided by 0.01
    np.testing.assert_allclose(c.tau_tgt[1], c.parts[ctl.PART_FEEDBACK, 1] / 1.0)


def test_twin_nan_gyro_sample_ends_in_safe_stop_with_valid_recording(tmp_path):
    from paperlib.recordings import read_recording, write_recording

    ds = simulate(controller="AC", duration_s=0.6, seed=2, imu_calibration="none", inject_nan_qd=(0.4, 2))
    assert "qd[2] = nan" in ds.attrs["fault"] and "t = 0.400000 s" in ds.attrs["fault"]
    assert ds.sizes["time"] == 1600  # cycles 0 .. 1599 logged; the faulting cycle stopped the run
    assert np.all(np.isfinite(ds.qd.values)) and np.all(np.isfinite(ds.tau_tgt.values))
    path = write_recording(ds, tmp_path / "nan.nc")
    back = read_recording(path)
    assert back.attrs["fault"] == ds.attrs["fault"]
    assert json.loads(back.attrs["config"])["controller"] == "AC"
