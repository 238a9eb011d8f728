"""Benchmarks of the digital twin (``paperlib bench``).

``twin_realtime_factor``: seconds of robot time simulated per second of wall time, for a
40-s closed-loop AC run at 4 kHz (plant, drives, IMU stream, thermal, controller and
estimator, recording assembled), on one core; best of three after compilation.
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


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"twin_realtime_factor": bench_twin_realtime_factor}
