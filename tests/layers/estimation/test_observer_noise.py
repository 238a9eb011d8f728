"""The encoder observer's noise levels from the recording (paperlib.estimation.observer_noise).

Synthetic data drawn from the observer's own model: a triple integrator driven by white jerk of
known PSD S (so the acceleration is a random walk), sampled with white angle noise of known
variance R. Maximum likelihood of the innovations must give S and R back. Tolerance: with n
samples the relative standard error of a variance estimate is about sqrt(2/n) for R (0.7 % at
40000) and larger for S, which is seen only through the innovations' small share of jerk; the
stated bounds are 10 % for R and 30 % for S (measured on these seeds: R/R_true 1.005, S/S_true 0.95-0.96).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.estimation.encoder_kinematics import EncoderObserver, parse_kinematics, with_encoder_kinematics
from paperlib.estimation.observer_noise import estimate_observer_noise, innovations

FS = 4000.0
T = 1.0 / FS


def white_jerk_with_noise(S: float, R: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(measured angle, true state (n, 3)) of a triple integrator under white jerk of PSD S [rad^2/s^5],
    measured with white noise of variance R [rad^2]."""
    rng = np.random.default_rng(seed)
    Qd = S * np.array([[T ** 5 / 20, T ** 4 / 8, T ** 3 / 6], [T ** 4 / 8, T ** 3 / 3, T ** 2 / 2],
                       [T ** 3 / 6, T ** 2 / 2, T]])
    w = rng.standard_normal((n, 3)) @ np.linalg.cholesky(Qd).T
    A = np.array([[1.0, T, T * T / 2], [0.0, 1.0, T], [0.0, 0.0, 1.0]])
    x = np.zeros((n, 3))
    s = np.zeros(3)
    for k in range(n):
        s = A @ s + w[k]
        x[k] = s
    return x[:, 0] + math.sqrt(R) * rng.standard_normal(n), x


@pytest.mark.parametrize("S, R, seed", [(1e4, 7.7e-12, 1), (1e6, 1e-10, 2), (1e2, 1e-12, 3)])
def test_recovers_known_jerk_psd_and_noise_variance(S: float, R: float, seed: int) -> None:
    q, _ = white_jerk_with_noise(S, R, 40000, seed)
    est = estimate_observer_noise(q, FS)[0]
    assert est.noise_estimated
    assert abs(est.noise_variance / R - 1) < 0.10, (est.noise_variance / R)
    assert abs(est.jerk_psd / S - 1) < 0.30, (est.jerk_psd / S)
    assert abs(est.whiteness_lag1) < 0.05  # the right model leaves white innovations
    assert est.largest_autocorrelation < 5 / math.sqrt(est.n_samples), est.largest_autocorrelation
    fixed = estimate_observer_noise(q, FS, noise_variance=R)[0]  # R given: S alone
    assert not fixed.noise_estimated and fixed.noise_variance == R
    assert abs(fixed.jerk_psd / S - 1) < 0.30, (fixed.jerk_psd / S)


def test_levels_differ_per_joint_and_wrong_levels_are_seen() -> None:
    """Two joints with PSDs 100x apart are told apart; a design 100x off lowers the likelihood."""
    q1, _ = white_jerk_with_noise(1e3, 1e-11, 30000, 4)
    q2, _ = white_jerk_with_noise(1e5, 1e-11, 30000, 5)
    e1, e2 = estimate_observer_noise(np.column_stack([q1, q2]), FS)
    assert 30 < e2.jerk_psd / e1.jerk_psd < 300
    # the likelihood at the estimate beats that of a ratio 100x off (same R)
    def loglik(r: float, R: float) -> float:
        e, c = innovations(q1, FS, r)
        e = e[len(q1) - e1.n_samples:]  # the same burn-in as the estimate
        return float(-0.5 * np.sum(np.log(2 * math.pi * R * c) + e * e / (R * c)))
    assert loglik(e1.ratio, e1.noise_variance) > loglik(100 * e1.ratio, e1.noise_variance)
    assert loglik(e1.ratio, e1.noise_variance) > loglik(e1.ratio / 100, e1.noise_variance)
    assert math.isclose(loglik(e1.ratio, e1.noise_variance), e1.log_likelihood, rel_tol=1e-9)


def test_the_auto_observer_tracks_better_than_a_mistuned_one() -> None:
    """On a motion drawn from the model, the velocity error of the observer with the estimated levels is
    no larger than that of designs with the PSD 100x too low or too high."""
    S, R = 1e5, 1e-10
    q, x = white_jerk_with_noise(S, R, 30000, 6)
    est = estimate_observer_noise(q, FS)[0]
    keep = slice(2000, None)

    def vel_rms(psd: float) -> float:
        _, qd, _ = EncoderObserver(FS, "kalman", step_rad=0.0, noise_rad=est.noise_rad, jerk_psd=psd).run(q)
        return float(np.sqrt(np.mean((qd[keep] - x[keep, 1]) ** 2)))

    auto = vel_rms(est.jerk_psd)
    assert auto <= vel_rms(est.jerk_psd / 100) and auto <= vel_rms(est.jerk_psd * 100)


def test_auto_settings_in_the_encoder_path() -> None:
    import xarray as xr

    assert parse_kinematics("encoder:kalman:auto") == ("encoder", "kalman", {"jerk_psd": "auto", "noise_rad": "auto"})
    assert parse_kinematics("encoder:kalman:jerk_psd=auto") == ("encoder", "kalman", {"jerk_psd": "auto"})
    for bad in ("encoder:observer:auto", "encoder:kalman:noise_rad=auto", "encoder:kalman:bandwidth_hz=auto"):
        with pytest.raises(ValueError):
            parse_kinematics(bad)
    q1, _ = white_jerk_with_noise(1e3, 1e-11, 20000, 7)
    q2, _ = white_jerk_with_noise(1e5, 1e-11, 20000, 8)
    Q = np.column_stack([q1, q2])
    ds = xr.Dataset({"q": (("time", "joint"), Q)}, attrs={"sample_rate_hz": FS, "robot": "none"})
    out = with_encoder_kinematics(ds, "kalman", jerk_psd="auto", noise_rad="auto")
    e = estimate_observer_noise(Q, FS)
    for j in range(2):
        _, qd, qdd = EncoderObserver(FS, "kalman", step_rad=0.0, noise_rad=e[j].noise_rad, jerk_psd=e[j].jerk_psd).run(Q[:, j])
        np.testing.assert_array_equal(out["qd"].values[:, j], qd)
        np.testing.assert_array_equal(out["qdd"].values[:, j], qdd)
    assert "estimated from the recording" in out.attrs["kinematics"]
