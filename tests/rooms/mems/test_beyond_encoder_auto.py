"""The encoder-only identification with its observer settings estimated from the recording (``auto``).

On one run of the room's study (CTC, 30 s, seed 101, IMU calibrated, model 3), the encoder-only
path with ``jerk_psd=auto, noise_rad=auto``
(:func:`paperlib.estimation.observer_noise.estimate_observer_noise`) must (a) find as the
angle-noise level the encoder's quantization, ``step / sqrt(12)``, which it is not told (measured:
2 % below it), and (b) identify the friction curves within the 5 % of issue 28's Done-when line
(measured 2.73 / 4.86 % on this run; 2.7-4.9 % over seeds 101-105). The run is the room's 30 s
because on 15 s (tried first) joint 2's error is 5.5 % (joint 1: 1.8 %): the bound does not hold on
shorter runs.
"""

from __future__ import annotations

import math

import numpy as np

from paperlib.estimation.encoder_kinematics import encoder_step_of, with_encoder_kinematics
from paperlib.estimation.observer_noise import estimate_observer_noise
from paperlib.estimation.replay import replay
from paperlib.experiments.mems import beyond
from paperlib.robots.five_bar import FiveBar


def test_encoder_only_with_auto_settings_on_a_short_twin_run() -> None:
    robot = FiveBar.default()
    ds = beyond.twin_run(101, 30.0)
    enc = with_encoder_kinematics(ds, "kalman", robot=robot, jerk_psd="auto", noise_rad="auto")
    assert "estimated from the recording" in enc.attrs["kinematics"]
    quant = encoder_step_of(ds, robot) / math.sqrt(12.0)
    noise = [e.noise_rad for e in estimate_observer_noise(ds["q"].values, ds.attrs["sample_rate_hz"])]
    assert len(noise) == 2 and all(abs(n / quant - 1) < 0.10 for n in noise), (noise, quant)
    res = replay(enc, 3, keep_rows=True, imu_delay_cycles=0)
    m = beyond.kinematics_metrics(ds, res)
    err = np.array(m["friction_curve_error_pct"])
    assert np.all(err > 0.1)  # an identification error, not the truth handed back
    assert np.all(err < 5.0), err
    assert np.all(np.array(m["drive_gain_error_pct"]) < 1.0)
