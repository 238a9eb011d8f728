"""Fixtures of the rrr room's tests: the 3-RRR model, its twin and the paper's 21-point sampling run."""

from __future__ import annotations

import pytest

from paperlib.experiments.rrr import sampling
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, simulate, to_recording


@pytest.fixture(scope="session")
def robot() -> ThreeRRR:
    """The 3-RRR of paper 002 (``data/robots/three_rrr.toml``)."""
    return ThreeRRR.default()


@pytest.fixture(scope="session")
def twin() -> ThreeRRRTwin:
    """The 3-RRR twin with its stated parameters."""
    return ThreeRRRTwin.default()


@pytest.fixture(scope="session")
def recording(robot, twin):
    """The 21-point sampling run of the paper on the twin (PD only, before compensation)."""
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=7.0)
    return to_recording(simulate(robot, twin, ref), twin, controller="PD", config={"run": "sampling"})
