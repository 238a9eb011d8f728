"""Where a robot's motions are planned: the well-conditioned polygon of its joint space (Fig. 4).

:func:`planning_polygon` reads the search settings from the robot description's ``[planning]``
table (condition-index threshold, search box and seed in degrees, lattice size) and builds the
convex polygon of :func:`paperlib.control.trajectories.well_conditioned_polygon`, so the twin,
the hardware session and the experiments plan in the same region without knowing the robot.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.control.trajectories import Polygon, well_conditioned_polygon


_CACHE: dict[tuple, Polygon] = {}


def planning_polygon(robot: Any, sigma_threshold: float | None = None) -> Polygon:
    """The robot's planning polygon (``sigma >= sigma_threshold`` everywhere inside).

    Parameters
    ----------
    robot : object
        With ``condition_index``, ``params`` and ``description["planning"]`` (keys
        ``sigma_threshold``, ``box_deg`` = [[q1_min, q2_min], [q1_max, q2_max]], ``seed_deg``, ``grid_n``).
    sigma_threshold : float, optional
        Overrides the description's threshold.
    """
    p = robot.description["planning"]
    sigma = float(p["sigma_threshold"] if sigma_threshold is None else sigma_threshold)
    box = np.radians(np.asarray(p["box_deg"], float))
    seed = np.radians(np.asarray(p["seed_deg"], float))
    key = (type(robot).__name__, tuple(np.asarray(robot.params, float).tolist()), sigma, box.tobytes(),
           seed.tobytes(), int(p["grid_n"]))
    if key not in _CACHE:  # the search costs seconds; a robot's polygon does not change
        _CACHE[key] = well_conditioned_polygon(robot.condition_index, sigma, box, seed_rad=seed, grid_n=int(p["grid_n"]))
    return _CACHE[key]
