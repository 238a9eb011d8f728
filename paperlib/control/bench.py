"""Benchmarks of the controller + estimator step and of trajectory sampling (``paperlib bench``).

``step_us_python``: one full AC step (identification row, EWR-RLS update, feed-forward,
feedback, rescaling) called from Python as the hardware loop calls it [us]; the budget at
4 kHz is 250 us. ``trajectory_sample_40s_4khz_ms``: sampling 40 s of random point-to-point
motions at 4 kHz [ms]. Both run on the robot model the caller gives (:mod:`paperlib.bench`
names it): a two-joint robot with a ``[motion_limits]`` table in its description.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np


def bench_step_us_python(robot: Any, n: int = 100_000) -> float:
    """Time of one AC step of ``robot`` (two joints) called from Python [us], best of 3 runs of ``n``."""
    from paperlib.control.controllers import Controller, ControllerConfig

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


def bench_trajectory_sample_ms(robot: Any) -> float:
    """Time to sample 40 s of random motions (the robot's motion bounds) at 4 kHz [ms], best of 5."""
    from paperlib.control.planning import motion_bounds
    from paperlib.control.trajectories import Polygon, random_point_to_point

    poly = Polygon(np.deg2rad(np.array([[60.0, 60.0], [150.0, 40.0], [170.0, 120.0], [90.0, 160.0]])))
    traj = random_point_to_point(poly, 40.0, 0, motion_bounds(robot))
    t = traj.time_grid(4000.0)
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        traj.sample(t)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def benchmarks(robot: Any) -> dict[str, Callable[[], float]]:
    """The benchmarks of this module, on ``robot`` (see the module docstring)."""
    return {
        "step_us_python": lambda: bench_step_us_python(robot),
        "trajectory_sample_40s_4khz_ms": lambda: bench_trajectory_sample_ms(robot),
    }
