"""Bench key ``serial_identify_tx40_s``: ``paperlib serial identify`` on the public TX40 recording, wall seconds.

The recording (45,000 samples) is imported once from the data registry's local mirror
(``paperlib data fetch tx40``, untimed) into a temporary folder; one untimed run warms the
kernel cache; then the median of :data:`RUNS` runs of ``paperlib serial identify tx40.nc --robot
tx40`` in fresh interpreters counts (imports, reading, identification: what a user waits for).
Target: < 3 s. Without a mirror of the TX40 files on this machine (``PAPERLIB_DATA_MIRROR`` or
``../shared/external/staubli_tx40``) the key is left out: a benchmark never downloads.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

from paperlib.cli_bench import median_wall_s

#: Timed runs; the median counts.
RUNS = 3


def serial_identify_tx40_s(runs: int = RUNS) -> float:
    """Median wall seconds of ``paperlib serial identify`` on the TX40 recording (kernel cache warm)."""
    with tempfile.TemporaryDirectory(prefix="paperlib-bench-tx40-") as tmp:
        rec = Path(tmp) / "tx40.nc"
        median_wall_s(["data", "fetch", "tx40", "--output", str(rec)], runs=1)
        argv = ["serial", "identify", str(rec), "--robot", "tx40"]
        median_wall_s(argv, runs=1)  # warm-up: compiles or loads the kernels
        return median_wall_s(argv, runs=runs)


def benchmarks() -> dict[str, Callable[[], float]]:
    from paperlib.data.registry import find_mirror

    if find_mirror("tx40") is None:
        return {}
    return {"serial_identify_tx40_s": serial_identify_tx40_s}
