"""The controller-step and trajectory benchmarks of :mod:`paperlib.control.bench` on the flagship's
5R (``paperlib bench``; registered by the mems room): ``step_us_python`` and the planner's keys."""

from __future__ import annotations

from typing import Callable


def benchmarks() -> dict[str, Callable[[], float]]:
    """Benchmark key -> callable, on ``FiveBar.default()``."""
    from paperlib.control.bench import benchmarks as control_benchmarks
    from paperlib.robots import load

    return control_benchmarks(load("five_bar"))
