"""Samples out of step: the estimator holds back, the IMU calibration skips them.

On a real rig a cycle can start late (a stall, then back-to-back catch-up cycles), an
EtherCAT frame can be lost or answered late (encoder and torque held from an older cycle), or
an IMU packet can be late. Rows built from such samples pair an IMU sample with the encoder
and torque of another time. Here the twin provides clean data; the faults are injected.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.control import controllers as ctl
from paperlib.estimation.imu_calibration import IC_DELAY, calibrate_imu_extended
from paperlib.twin.robots.five_bar import SAMPLE_RATE_HZ, simulate

TS = 1.0 / SAMPLE_RATE_HZ


@pytest.fixture(scope="module")
def pd_nominal():
    """A twin PD run read with the nominal IMU conversion (calibration data)."""
    return simulate(controller="PD", duration_s=12.0, seed=11, estimate=False, imu_calibration="none")


@pytest.fixture(scope="module")
def ac_run():
    return simulate(controller="AC", duration_s=6.0, seed=3)


def _replay(ds, hold_at: int | None = None, hold: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Feed a recording's measurements through a fresh AC controller; theta and status per cycle."""
    from paperlib.robots.five_bar import FiveBar
    from paperlib.hardware.session import controller_config
    import json

    cfg = json.loads(ds.attrs["config"])["controller_config"]
    c = ctl.Controller(FiveBar.default(), controller_config("AC", imu_delay_cycles=cfg["imu_delay_cycles"]),
                       SAMPLE_RATE_HZ)
    arr = {v: ds[v].values for v in ("q", "qd", "qdd", "tau_m", "q_sp", "qd_sp", "qdd_sp")}
    n = ds.sizes["time"]
    theta = np.empty((n, c.n_params))
    status = np.empty(n, dtype=int)
    for k in range(n):
        m = c.meas
        m[ctl.M_Q], m[ctl.M_QD], m[ctl.M_QDD], m[ctl.M_TAU] = arr["q"][k], arr["qd"][k], arr["qdd"][k], arr["tau_m"][k]
        m[ctl.M_Q_SP], m[ctl.M_QD_SP], m[ctl.M_QDD_SP] = arr["q_sp"][k], arr["qd_sp"][k], arr["qdd_sp"][k]
        if k == hold_at:
            c.hold_estimation(hold)
        c.step(k * TS)
        theta[k] = c.theta
        status[k] = c.last_status
    return theta, status


def test_held_cycles_leave_the_estimate_alone_and_updates_resume(ac_run):
    k0, hold = 8000, 40
    ref, st_ref = _replay(ac_run)
    theta, st = _replay(ac_run, hold_at=k0, hold=hold)
    # identical before the hold (the replay is deterministic)
    np.testing.assert_array_equal(theta[:k0], ref[:k0])
    # held: status -5 and no change, for exactly `hold` cycles
    assert (st[k0:k0 + hold] == ctl.EST_HELD).all() and st[k0 + hold] != ctl.EST_HELD
    assert (st[:k0] != ctl.EST_HELD).all()
    np.testing.assert_array_equal(theta[k0:k0 + hold], np.repeat(theta[k0 - 1:k0], hold, axis=0))
    # the reference did update in that window, and the held run updates again afterwards
    assert (st_ref[k0:k0 + hold] == 1).sum() > hold // 2
    after = st[k0 + hold:k0 + hold + 400]
    assert (after == 1).sum() > 100
    assert np.abs(np.diff(theta[k0 + hold:k0 + hold + 400], axis=0)).max() > 0
    # a shorter hold request does not cut a running one short
    from paperlib.robots.five_bar import FiveBar

    c = ctl.Controller(FiveBar.default(), ctl.ControllerConfig(name="AC"), SAMPLE_RATE_HZ)
    c.hold_estimation(10)
    c.hold_estimation(3)
    assert c.iflags[ctl.I_HOLD] == 10


def _stale_encoder(ds, k0: int, k1: int, lag: int) -> tuple[np.ndarray, np.ndarray]:
    """q with samples k0..k1 replaced by those `lag` cycles older (a master reading stale replies)."""
    q = ds.q.values.copy()
    q[k0:k1] = ds.q.values[k0 - lag:k1 - lag]
    valid = np.ones(len(q), dtype=bool)
    valid[k0:k1] = False
    return q, valid


def test_calibration_skips_invalid_samples(pd_nominal):
    ds = pd_nominal
    clean = calibrate_imu_extended(ds.q.values, ds.qd.values, ds.qdd.values, TS)
    # 3 s of 12 with the encoder 32 cycles (8 ms) stale: what the stale-reply bug did
    q_bad, valid = _stale_encoder(ds, 16000, 28000, 32)
    fooled = calibrate_imu_extended(q_bad, ds.qd.values, ds.qdd.values, TS)
    masked = calibrate_imu_extended(q_bad, ds.qd.values, ds.qdd.values, TS, valid=valid)
    # the stale stretch corrupts the fit (delay and scales) ...
    assert np.abs(fooled.rows[:, 0] - clean.rows[:, 0]).max() > 0.01 or \
        (fooled.rows[:, IC_DELAY] != clean.rows[:, IC_DELAY]).any()
    # ... the mask removes it: same delay, gyro and accelerometer scales as the clean data
    assert (masked.rows[:, IC_DELAY] == clean.rows[:, IC_DELAY]).all()
    np.testing.assert_allclose(masked.rows[:, 0], clean.rows[:, 0], rtol=2e-3)
    np.testing.assert_allclose(masked.rows[:, 2], clean.rows[:, 2], rtol=5e-3)


def test_calibration_valid_mask_errors(pd_nominal):
    ds = pd_nominal
    q, qd, qdd = ds.q.values, ds.qd.values, ds.qdd.values
    with pytest.raises(ValueError, match="one entry per sample"):
        calibrate_imu_extended(q, qd, qdd, TS, valid=np.ones(10, dtype=bool))
    with pytest.raises(ValueError, match="valid and away from a fault"):
        calibrate_imu_extended(q, qd, qdd, TS, valid=np.zeros(len(q), dtype=bool))
