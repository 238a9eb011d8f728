"""Benchmarks of the controller + estimator step (``paperlib bench``).

``step_us_python``: one full AC step (identification row, EWR-RLS update, feed-forward,
feedback, rescaling) called from Python as the hardware loop calls it [us]; the budget at
4 kHz is 250 us.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np


def bench_step_us_python(n: int = 100_000) -> float:
    from paperlib.control.controllers import Controller, ControllerConfig
    from paperlib.robots.five_bar import FiveBar

    robot = FiveBar.default()
    c = Controller(robot, ControllerConfig(name="AC"), robot.sample_rate_hz)
    c.meas[0] = np.radians([120.0, 60.0])
    c.meas[1] = [1.0, -1.2]
    c.meas[2] = [5.0, 3.0]
    c.meas[3] = [0.5, -0.4]
    c.meas[4:] = c.meas[:3]
    c.step(0.0)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for k in range(n):
            c.step(k * 2.5e-4)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e6


def benchmarks() -> dict[str, Callable[[], float]]:
    from paperlib.control import trajectories

    found = {"step_us_python": bench_step_us_python}
    found.update(trajectories.benchmarks())
    return found
