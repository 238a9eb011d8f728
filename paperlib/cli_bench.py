"""Bench keys of the command line's cold start, for ``paperlib bench`` (see :mod:`paperlib.bench`).

Each key is the median wall time [s] of a few runs of ``python -m paperlib ...`` in a fresh
interpreter (imports, parser, output; what a user waits for), with this interpreter and the
repository as working folder:

- ``cli_help_s``: ``paperlib --help`` (target < 0.5 s);
- ``reproduce_list_s``: ``paperlib reproduce --list`` (target < 0.5 s).

Wall time counts other load on the machine; report figures measured under load as such.
:func:`median_wall_s` is what a room uses for a command of its own (e.g. on its data).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from paperlib.provenance import REPO_ROOT

#: Runs per key; the median counts.
RUNS = 5


def median_wall_s(argv: Sequence[str], runs: int = RUNS, cwd: str | os.PathLike[str] | None = None) -> float:
    """Median wall time of ``python -m paperlib ARGV`` in a fresh interpreter.

    Parameters
    ----------
    argv : sequence of str
        The command's arguments (after ``paperlib``).
    runs : int
        Timed runs (>= 1); the median counts.
    cwd : path-like, optional
        Working folder (default: the repository).

    Returns
    -------
    float
        Seconds [s].

    Raises
    ------
    RuntimeError
        A run failed (exit code other than 0); the message holds its last error lines.
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "paperlib", *argv], cwd=Path(cwd or REPO_ROOT),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"paperlib {' '.join(argv)} exited with {proc.returncode}:\n{tail}")
    return statistics.median(times)


def cli_help_s() -> float:
    """Median wall seconds of ``paperlib --help``."""
    return median_wall_s(["--help"])


def reproduce_list_s() -> float:
    """Median wall seconds of ``paperlib reproduce --list``."""
    return median_wall_s(["reproduce", "--list"])


def benchmarks() -> dict[str, Callable[[], float]]:
    return {"cli_help_s": cli_help_s, "reproduce_list_s": reproduce_list_s}
