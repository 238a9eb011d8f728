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


#: The reflected rotor inertia the twin assumed before it was calibrated to Table 4's a_max [kg m^2].
LIGHT_ROTOR_KG_M2 = 0.10


@pytest.fixture(scope="session")
def light_robot(robot) -> ThreeRRR:
    """The 3-RRR with the previously assumed light rotors (I_r = 0.10 kg m^2), its friction a sizeable share of its torque."""
    from paperlib.experiments.rrr.limits import with_rotor_inertia

    return with_rotor_inertia(robot, LIGHT_ROTOR_KG_M2)


@pytest.fixture(scope="session")
def light_twin(robot, twin) -> ThreeRRRTwin:
    """The twin with the light rotors, its gains following the joint inertia as the stated rule designs them."""
    import dataclasses

    J = float(twin.description["controller"]["joint_inertia_kg_m2"])
    s = (J - robot.param("Ir1") + LIGHT_ROTOR_KG_M2) / J
    return dataclasses.replace(twin, kp=twin.kp * s, kd=twin.kd * s)


@pytest.fixture(scope="session")
def light_recording(light_robot, light_twin):
    """The 21-point sampling run on the light-rotor twin."""
    ref = sampling.sampling_reference(light_robot, light_twin.control_rate_hz, a_max=7.0)
    return to_recording(simulate(light_robot, light_twin, ref), light_twin, controller="PD", config={"run": "sampling"})
