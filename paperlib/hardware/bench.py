"""Benchmarks of the hardware path (``paperlib bench``): the self-test's deadline statistics, per rig file.

For each rig file in ``config/rigs/`` the self-test (:func:`paperlib.hardware.selftest.selftest`)
runs once in real time (not lock step) against the emulated rig: the real master, loop and
controller at the rig's control rate, the emulator on the other core. Its deadline statistics
become the keys, ``<rig>`` being the file's stem:

``selftest_<rig>_deadline_met_fraction``
    fraction of cycles whose command left before its deadline (1.0 = every one);
``selftest_<rig>_lateness_p99_us``, ``selftest_<rig>_lateness_max_us``
    99th percentile and maximum of the cycle's lateness behind its deadline [us];
``selftest_<rig>_deadline_misses``
    cycles that missed their deadline (count).

These depend on the host (its load, its scheduler, whether real-time priorities are granted),
which is why they are measured here and reported, never asserted in a test. The self-test needs
root (network namespaces, raw sockets); without it the keys are left out, as a benchmark that
cannot run says nothing.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Any, Callable

#: Seconds of the real-time run per rig (after zeroing and the IMU calibration run).
DURATION_S = 8.0
#: The self-test summary's keys reported (each benchmark key is ``selftest_<rig>_<summary key>``).
KEYS = ("deadline_met_fraction", "lateness_p99_us", "lateness_max_us", "deadline_misses")


def rig_files() -> list[Path]:
    """The rig files of ``config/rigs/`` (sorted by name)."""
    from paperlib.hardware.selftest import REPO

    return sorted((REPO / "config" / "rigs").glob("*.toml"))


@functools.lru_cache(maxsize=None)
def selftest_summary(rig_file: str, duration_s: float = DURATION_S) -> dict[str, Any]:
    """The self-test's JSON summary for ``rig_file`` in real time (run once per process and rig)."""
    from paperlib.hardware.selftest import selftest

    with tempfile.TemporaryDirectory(prefix="paperlib-bench-selftest-") as wd:
        summary = selftest(duration_s, rig_file=rig_file, workdir=wd, lockstep=False)
    if summary.get("fault") or summary.get("deadline_met_fraction") is None:
        raise RuntimeError(f"self-test of {rig_file} did not run through: fault {summary.get('fault')!r}, "
                           f"stop reason {summary.get('stop_reason')!r}")
    return summary


def _key(rig_file: Path, summary_key: str) -> Callable[[], float]:
    return lambda: float(selftest_summary(str(rig_file))[summary_key])


def benchmarks() -> dict[str, Callable[[], float]]:
    from paperlib.hardware.netns import unavailable_reason

    if unavailable_reason() is not None:
        return {}
    return {f"selftest_{rig.stem}_{key}": _key(rig, key) for rig in rig_files() for key in KEYS}
