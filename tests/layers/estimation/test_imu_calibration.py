"""IMU scale calibration (paper eqs. 47-48) on synthetic signals with noise."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.estimation.imu_calibration import (
    calibrate_accel,
    calibrate_gyro,
    calibrate_imu,
    central_difference,
    zero_phase_lowpass,
)

TS = 1.0 / 4000.0
ALPHA_G = np.array([1.03, 0.985])  # gyro sensitivity / misalignment errors
R_ACC = np.array([0.118, 0.131])  # accelerometer lever arms [m]: alpha_a = 1 / r
ALPHA_A = 1.0 / R_ACC


def _motion(seconds: float = 20.0, seed: int = 0):
    """Joint motion (sum of sines, up to ~4 rad/s, ~30 rad/s^2) and raw sensor signals."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds / TS)) * TS
    q = np.zeros((t.size, 2))
    qd = np.zeros_like(q)
    qdd = np.zeros_like(q)
    for j in range(2):
        for f, amp, ph in zip([0.37, 1.1, 2.3], [0.6, 0.25, 0.08], rng.uniform(0, 2 * np.pi, 3)):
            w = 2 * np.pi * f
            q[:, j] += amp * np.sin(w * t + ph)
            qd[:, j] += amp * w * np.cos(w * t + ph)
            qdd[:, j] -= amp * w * w * np.sin(w * t + ph)
    step = 2 * np.pi / 2**18  # encoder resolution [rad]
    q_enc = np.round(q / step) * step
    gyro = qd / ALPHA_G + 2e-3 * rng.standard_normal(q.shape)  # ~MEMS gyro noise at 4 kHz [rad/s]
    acc = qdd / ALPHA_A + 0.03 * rng.standard_normal(q.shape)  # tangential accel + noise [m/s^2]
    return q_enc, gyro, acc


@pytest.mark.parametrize("cutoff_hz", [None, 30.0])
def test_recovers_scale_factors(cutoff_hz: float | None) -> None:
    q_enc, gyro, acc = _motion()
    cal = calibrate_imu(q_enc, gyro, acc, TS, cutoff_hz=cutoff_hz)
    np.testing.assert_allclose(cal.alpha_g, ALPHA_G, rtol=5e-3)
    np.testing.assert_allclose(cal.alpha_a, ALPHA_A, rtol=5e-3)
    assert (cal.gyro.r2 > 0.999).all()
    assert (cal.accel.r2 > (0.99 if cutoff_hz else 0.8)).all()
    assert (cal.gyro.n_used > 0.9 * len(gyro)).all()
    assert (cal.accel.rel_std_error < 5e-3).all()
    assert cal.gyro.rms_residual.shape == (2,)


def test_filter_is_tight_on_the_noisy_accelerometer_fit() -> None:
    q_enc, gyro, acc = _motion(seed=1)
    cal = calibrate_imu(q_enc, gyro, acc, TS, cutoff_hz=30.0)
    np.testing.assert_allclose(cal.alpha_a, ALPHA_A, rtol=5e-4)
    np.testing.assert_allclose(cal.alpha_g, ALPHA_G, rtol=5e-4)


def test_single_joint_1d_input() -> None:
    q_enc, gyro, acc = _motion(seconds=10.0, seed=2)
    g = calibrate_gyro(gyro[:, 0], q_enc[:, 0], TS)
    assert g.alpha.shape == (1,)
    a = calibrate_accel(acc[:, 0], gyro[:, 0], g.alpha, TS, cutoff_hz=30.0)
    assert a.alpha[0] == pytest.approx(ALPHA_A[0], rel=5e-3)


def test_errors() -> None:
    q_enc, gyro, acc = _motion(seconds=2.0)
    bad = gyro.copy()
    bad[100, 1] = np.nan
    with pytest.raises(ValueError, match=r"gyro_z contains 1 non-finite.*sample 100, joint 1"):
        calibrate_imu(q_enc, bad, acc, TS)
    with pytest.raises(ValueError, match="same shape"):
        calibrate_imu(q_enc[:-1], gyro, acc, TS)
    with pytest.raises(ValueError, match="same shape"):
        calibrate_gyro(gyro[:, :1], q_enc, TS)
    with pytest.raises(ValueError, match="alpha_g must have shape"):
        calibrate_accel(acc, gyro, [1.0], TS)
    with pytest.raises(ValueError, match="ts"):
        calibrate_gyro(gyro, q_enc, 0.0)
    # a robot that stands still: noise only
    rng = np.random.default_rng(3)
    still_q = np.full_like(q_enc, 0.3)
    still_g = 2e-3 * rng.standard_normal(gyro.shape)
    with pytest.raises(ValueError, match=r"too little motion on joint 0: 0 sample\(s\) above the threshold"):
        calibrate_gyro(still_g, still_q, TS)
    with pytest.raises(ValueError, match="too little motion on joint 1"):
        moving_then_still = acc.copy()
        moving_then_still[:, 1] = 0.03 * rng.standard_normal(len(acc))
        calibrate_accel(moving_then_still, gyro, ALPHA_G, TS)


def test_central_difference_and_zero_phase_lowpass() -> None:
    t = np.arange(4000) * TS
    x = 3.0 * t**2 - t
    np.testing.assert_allclose(central_difference(x, TS), 6.0 * t - 1.0, atol=1e-9)
    s = np.sin(2 * np.pi * 2.0 * t)
    y = zero_phase_lowpass(s, TS, 50.0)
    # no lag, unit gain well below the cutoff
    np.testing.assert_allclose(y[400:-400], s[400:-400], atol=1e-3)
    with pytest.raises(ValueError, match="cutoff_hz"):
        zero_phase_lowpass(s, TS, 3000.0)


def test_conversion_rows_of_a_runs_argument():
    """'auto' asks the rig's calibration (only then), 'none' is the identity, an array is reshaped; else an error."""
    from paperlib.estimation.imu_calibration import IC_ALPHA_G, IC_DELAY, N_IC, conversion_rows, identity_conversion

    calls = []

    def calibrate():
        calls.append(1)
        rows = identity_conversion(2)
        rows[:, IC_DELAY] = 3.0
        return rows

    assert conversion_rows("auto", calibrate)[:, IC_DELAY].tolist() == [3.0, 3.0] and calls == [1]
    np.testing.assert_array_equal(conversion_rows("none", calibrate), identity_conversion(2))
    given = np.arange(2 * N_IC, dtype=float)
    out = conversion_rows(list(given), calibrate)
    assert out.shape == (2, N_IC) and out.flags["C_CONTIGUOUS"] and out[1, IC_ALPHA_G] == given[N_IC + IC_ALPHA_G]
    assert calls == [1]
    with pytest.raises(ValueError, match="imu_calibration"):
        conversion_rows("sometimes", calibrate)
