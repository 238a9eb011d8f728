"""std of the EWR-RLS estimates (paperlib.estimation.uncertainty): calibrated where its assumptions hold."""

from __future__ import annotations

import numpy as np

from paperlib.estimation.replay import replay
from paperlib.estimation.uncertainty import autocorrelation_time, coverage, parameter_std
from paperlib.experiments.mems.synthetic import DEFAULT_PI_F, synthetic_recording


def test_autocorrelation_time() -> None:
    rng = np.random.default_rng(0)
    white = rng.standard_normal(20000)
    assert autocorrelation_time(white) < 1.6
    a = 0.9
    ar = np.zeros(20000)
    for k in range(1, len(ar)):
        ar[k] = a * ar[k - 1] + white[k]
    # AR(1): tau = (1 + a) / (1 - a) = 19; batch means over 50 blocks of 400 samples: +- ~20 %
    assert 12 < autocorrelation_time(ar) < 28


def test_intervals_cover_the_truth_on_a_small_exact_case() -> None:
    """Synthetic recordings whose torques follow model (3) exactly plus white noise: the 95 % intervals
    hold the truth in about 95 % of seeds (pooled over the 10 parameters and 20 seeds)."""
    ests, stds, truths = [], [], []
    for seed in range(20):
        ds = synthetic_recording(3.0, seed=seed, controller="CTC", torque_noise_Nm=0.01)
        res = replay(ds, 3, keep_rows=True, gate_velocity=0.05)
        u = parameter_std(res)
        assert u["tau_samples"] < 2.5  # white residual: the correction is small here
        ests.append(res.estimator.theta)
        stds.append(u["std"])
        truths.append(np.r_[[1.08, 0.94], DEFAULT_PI_F])  # synthetic_recording's defaults
    cov = coverage(np.array(ests), np.array(stds), np.array(truths))
    pooled = float(cov.mean())
    assert 0.88 <= pooled <= 0.995, cov
    assert cov.min() >= 0.75, cov
