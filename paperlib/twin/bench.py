"""Benchmarks of the digital twin (``paperlib bench``).

``twin_realtime_factor``: seconds of robot time simulated per second of wall time, for a
40-s closed-loop AC run at 4 kHz (plant, drives, IMU stream, thermal, controller and
estimator, recording assembled), on one core; best of three after compilation.

``serial_identify_1h_s``: wall time [s] of ``paperlib serial identify`` (reading the file,
choosing the rates, filtering, regressor, WLS) on one hour of a 6-joint arm (the TX40 twin of
:mod:`paperlib.twin.robots.serial_log`) logged at 1 kHz with joint-side torques; the recording is
generated first (not timed) in a temporary directory.
"""

from __future__ import annotations

import time
from typing import Callable


def bench_twin_realtime_factor(duration_s: float = 40.0) -> float:
    from paperlib.twin.robots import twin_module

    simulate = twin_module().simulate

    simulate(controller="AC", duration_s=1.0, seed=1, imu_calibration="none")  # compile
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        simulate(controller="AC", duration_s=duration_s, seed=1, imu_calibration="none")
        best = min(best, time.perf_counter() - t0)
    return duration_s / best


def bench_serial_identify_1h(duration_s: float = 3600.0, sample_rate_hz: float = 1000.0) -> float:
    """Seconds to identify a 6-joint arm from ``duration_s`` of data at ``sample_rate_hz`` (see the module docstring)."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from paperlib.estimation.serial_identification import IdentificationConfig, identify_recording
    from paperlib.recordings import from_arrays, write_recording
    from paperlib.robots.serial import SerialArm
    from paperlib.twin.robots import serial_log as sl

    arm = SerialArm.named("tx40")
    fr = sl.tx40_friction()
    pi = sl.true_params(arm, fr["fv"], fr["fs"])
    run = sl.logged_run(arm, pi, duration_s=duration_s, sample_rate_hz=sample_rate_hz, jitter_s=0.0,
                        noise_nm=fr["noise_Nm"], chunk=200_000)
    tau = run.current * np.asarray(run.truth["drive_gains"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "serial_1h.nc"
        write_recording(from_arrays(run.q, sample_rate_hz=sample_rate_hz, robot=arm.name, source="twin",
                                    channels={"tau_s": tau}, truth=run.truth), path)
        del run, tau
        t0 = time.perf_counter()
        identify_recording(path, arm, IdentificationConfig())
        return time.perf_counter() - t0


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"twin_realtime_factor": bench_twin_realtime_factor, "serial_identify_1h_s": bench_serial_identify_1h}
