"""Per-robot twins: each module composes the shared twin layer (:mod:`paperlib.twin.runner`,
:mod:`~paperlib.twin.plant`, :mod:`~paperlib.twin.drives`, :mod:`~paperlib.twin.imu`,
:mod:`~paperlib.twin.thermal`) for one robot or rig.

=================  ==========================================================================
``five_bar``       the flagship's 5R in closed loop (``simulate``, ``record``; paper 000)
``three_rrr``      the 3-RRR's drive loops over the plant's mapped RK4 (paper 002)
``campaign``       the TX40 thermal warm-up campaign (paper 001)
``torque_joint``   the torque-sensor joint of paper 004; ``wheel_bearing`` its bearing populations
``planar_arm``     the identification course's planar serial arm (paper 003)
``serial_log``     a serial arm's logged run (jittered stamps, currents, payload) with known truth
=================  ==========================================================================

Nothing outside this package names a robot: the shared layer finds a robot's twin here by name.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

#: The robot whose twin ``paperlib record --rig twin`` records and ``paperlib bench`` times.
DEFAULT_TWIN = "five_bar"


def twin_module(name: str = DEFAULT_TWIN) -> ModuleType:
    """The twin module of robot ``name`` (default :data:`DEFAULT_TWIN`)."""
    return importlib.import_module(f"{__name__}.{name}")


def stepped_plant_factory(name: str) -> str:
    """``"module:plant_from_config"`` of twin ``name``'s stepped plant (its ``<name>_plant`` module).

    An emulated rig (:mod:`paperlib.hardware.emulators.joint_rig`) advances such a plant one control
    cycle at a time under the torques its emulated drives apply: ``plant_from_config(config)``
    builds it from the emulator's configuration.

    Raises
    ------
    ValueError
        When twin ``name`` has no stepped plant.
    """
    module = f"{__name__}.{name}_plant"
    if not name.isidentifier() or importlib.util.find_spec(module) is None:
        known = sorted(p.stem[: -len("_plant")] for p in Path(__file__).parent.glob("*_plant.py"))
        raise ValueError(f"twin {name!r} has no stepped plant (an emulated rig can run: {', '.join(known)})")
    return f"{module}:plant_from_config"
