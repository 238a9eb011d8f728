"""This folder's simulated clock for the loop's deadlines (the tests import it by module name)."""

from __future__ import annotations


class SimulatedClock:
    """A monotonic clock [ns] that moves 1 us per reading and by what a simulated step spends."""

    def __init__(self) -> None:
        self.now_ns = 0

    def __call__(self) -> int:
        self.now_ns += 1_000
        return self.now_ns

    def spend(self, ns: int) -> None:
        self.now_ns += ns
