"""Bench key ``thermal_campaign_s``: the whole TX40 campaign simulated and analysed, in seconds.

2 robots x 4 days x 24 cycles (2 h of robot time each) plus the faulty day, at 250 Hz, in memory
(no files written): the twin, then the analysis a user runs on recordings (plateaus, eq. 4 per
cycle, double exponentials, thermal models by differential evolution, the monitor with and
without the thermal model). Target: under 5 minutes on the 2-core machine.
"""

from __future__ import annotations

import time
from typing import Callable

TARGET_S = 300.0


def thermal_campaign_s() -> float:
    """Seconds to simulate and analyse the whole campaign."""
    from paperlib.experiments.industrial import thermal as X

    t0 = time.perf_counter()
    datasets = X.simulate_campaign()
    X.analyse_campaign(datasets)
    return time.perf_counter() - t0


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"thermal_campaign_s": thermal_campaign_s}
