"""Benchmarks of the digital twin (``paperlib bench``).

``twin_realtime_factor``: seconds of robot time simulated per second of wall time, for a
40-s closed-loop AC run at 4 kHz (plant, drives, IMU stream, thermal, controller and
estimator, recording assembled), on one core; best of three after compilation.

``serial_identify_1h_s``: wall time [s] of ``paperlib serial identify`` (reading the file,
choosing the rates, filtering, regressor, WLS) on one hour of a 6-joint arm (the twin of
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
    """Seconds to identify a 6-joint arm from ``duration_s`` of data at ``sample_rate_hz`` (module docstring)."""
    from paperlib.twin.robots import twin_module

    return twin_module("serial_log").identify_seconds(duration_s, sample_rate_hz)


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"twin_realtime_factor": bench_twin_realtime_factor, "serial_identify_1h_s": bench_serial_identify_1h}
