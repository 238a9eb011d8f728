"""Encoder-only kinematics (paperlib.estimation.encoder_kinematics): the causal observer on known signals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.estimation.encoder_kinematics import EncoderObserver, parse_kinematics

FS = 4000.0
STEP = 2 * math.pi / (2 ** 16 * 10)


@pytest.mark.parametrize("method", ["kalman", "observer"])
def test_exact_on_a_parabola(method: str) -> None:
    t = np.arange(int(2 * FS)) / FS
    q = 0.3 + 1.2 * t - 4.0 * t ** 2
    obs = EncoderObserver(FS, method, step_rad=STEP)
    _, qd, qdd = obs.run(q, x0=np.array([[0.3], [1.2], [-8.0]]))
    np.testing.assert_allclose(qd, 1.2 - 8.0 * t, atol=1e-7)
    np.testing.assert_allclose(qdd, -8.0, atol=1e-5)


@pytest.mark.parametrize("method", ["kalman", "observer"])
def test_sinusoid_quantized_zero_mean_error_and_stated_lag(method: str) -> None:
    """On a quantized 2-Hz sinusoid: the velocity error, once the lag is removed, has zero mean; the lag
    measured by projection equals the one the design states (frequency response)."""
    f, A = 2.0, 0.8
    t = np.arange(int(6 * FS)) / FS
    q_true = A * np.sin(2 * math.pi * f * t)
    q = np.floor(q_true / STEP + 0.5) * STEP
    obs = EncoderObserver(FS, method, step_rad=STEP)
    _, qd, qdd = obs.run(q)
    keep = t > 1.0
    w = 2 * math.pi * f
    for est, amp, phase0, k in ((qd, A * w, 0.5 * math.pi, 1), (qdd, A * w * w, math.pi, 2)):
        # fit est = a sin(w t) + b cos(w t) + c: phase lag of the estimate relative to the true derivative
        X = np.column_stack([np.sin(w * t[keep]), np.cos(w * t[keep]), np.ones(keep.sum())])
        (a, b, c), *_ = np.linalg.lstsq(X, est[keep], rcond=None)
        phase = math.atan2(b, a)
        lag = (phase0 - phase) / w
        stated = obs.lag_s(f, k)
        assert abs(lag - stated) < 2e-5, (method, k, lag, stated)
        assert abs(math.hypot(a, b) / amp - 1) < 0.01
        resid = est[keep] - X @ np.array([a, b, c])
        assert abs(c) < 3 * resid.std() / math.sqrt(keep.sum() / 50) + 1e-9 * amp, (method, k, c)
    assert 0 < obs.lag_s(f, 1) < 5e-3
    assert "Kalman" in obs.describe() or "pole placement" in obs.describe()


def test_coarser_encoder_narrows_the_kalman_bandwidth() -> None:
    fine = EncoderObserver(FS, "kalman", step_rad=STEP)
    coarse = EncoderObserver(FS, "kalman", step_rad=STEP * 64)
    assert coarse.bandwidth_3db_hz() < fine.bandwidth_3db_hz()
    assert coarse.lag_s(2.0) > fine.lag_s(2.0)


def test_parse_kinematics() -> None:
    assert parse_kinematics("imu") == ("imu", "", {})
    assert parse_kinematics("encoder") == ("encoder", "kalman", {})
    assert parse_kinematics("encoder:observer:bandwidth_hz=40") == ("encoder", "observer", {"bandwidth_hz": 40.0})
    for bad in ("gyro", "encoder:butter", "imu:kalman", "encoder:kalman:foo=1"):
        with pytest.raises(ValueError):
            parse_kinematics(bad)
