"""Speed of paper 004's analysis for ``paperlib bench`` (see :mod:`paperlib.bench`).

``bearing_fit_30s_ms``: ``paperlib bearing fit``'s work on one 30 s, 1 kHz no-load recording
held in memory (derived kinematics from ``q``, the selection of alpha and orders by blocked
CV over the default grid, the periodogram search, the final rank-revealing solve).
``bearing_inspect_trial_ms``: ``paperlib bearing inspect``'s work on one ~21 s trial (derived
kinematics, prediction, RMS errors). Both exclude file reading. Time is the CPU time of the
whole process (``time.process_time``: it counts the BLAS threads too, and not the time other
programs take the cores away, so a busy machine does not inflate it; on an idle machine the wall
time is at most this), best of a few repeats after a warm-up; target: well under a second each.
"""

from __future__ import annotations

import time
from typing import Callable

from paperlib.experiments.bearing import inspection, runs
from paperlib.twin.robots.wheel_bearing import population

REPEATS = 3


def _best_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return 1e3 * best


def bearing_fit_30s_ms() -> float:
    """CPU milliseconds (process) to fit the intrinsic model on a 30 s, 1 kHz no-load recording."""
    ds = runs.no_load_recording(seed=1)
    return _best_ms(lambda: inspection.fit_intrinsic([ds]))


def bearing_inspect_trial_ms() -> float:
    """CPU milliseconds (process) to inspect one bearing trial with a fitted model."""
    model, _ = inspection.fit_intrinsic([runs.no_load_recording(seed=1)])
    ds = runs.bearing_recording(population("good", 1, 7)[0], seed=11)
    return _best_ms(lambda: inspection.inspect(ds, model))


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"bearing_fit_30s_ms": bearing_fit_30s_ms, "bearing_inspect_trial_ms": bearing_inspect_trial_ms}
