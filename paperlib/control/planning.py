"""Where and how fast a robot's motions are planned: its planning polygon and its motion bounds.

:func:`planning_polygon` (the well-conditioned polygon of the joint space, Fig. 4) reads the search settings from the robot description's ``[planning]``
table (condition-index threshold, search box and seed in degrees, lattice size) and builds the
convex polygon of :func:`paperlib.control.trajectories.well_conditioned_polygon`, so the twin,
the hardware session and the experiments plan in the same region without knowing the robot.
:func:`motion_bounds` reads the velocity, acceleration and jerk bounds of the test motions from
the description's ``[motion_limits]`` table (degrees at the edge, SI out).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from paperlib.control.double_s import MotionBounds
from paperlib.control.workspace_geometry import Polygon, well_conditioned_polygon


_CACHE: dict[tuple, Polygon] = {}


def planning_polygon(robot: Any, sigma_threshold: float | None = None) -> Polygon:
    """The robot's planning polygon (``sigma >= sigma_threshold`` everywhere inside).

    Parameters
    ----------
    robot : object
        With ``condition_index(Q, invalid="nan")`` (NaN at invalid states), ``params`` and
        ``description["planning"]`` (keys
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
        index = functools.partial(robot.condition_index, invalid="nan")  # NaN where a state is invalid: one batch
        _CACHE[key] = well_conditioned_polygon(index, sigma, box, seed_rad=seed, grid_n=int(p["grid_n"]))
    return _CACHE[key]


def motion_bounds(robot: Any) -> MotionBounds:
    """The symmetric per-joint bounds the robot's test motions are planned under.

    Parameters
    ----------
    robot : object
        With ``description["motion_limits"]``: ``v_max_deg_s``, ``a_max_deg_s2`` and
        ``j_max_deg_s3``, each one value for every joint or a list of one per joint.

    Returns
    -------
    MotionBounds
        Velocity [rad/s], acceleration [rad/s^2] and jerk [rad/s^3] bounds (a float each
        when the description gives one value for every joint).
    """
    try:
        lim = robot.description["motion_limits"]
        deg = (lim["v_max_deg_s"], lim["a_max_deg_s2"], lim["j_max_deg_s3"])
    except KeyError as exc:
        raise ValueError(f"the robot description has no motion limit {exc} (table [motion_limits])") from None
    si = [np.deg2rad(np.asarray(x, dtype=float)) for x in deg]
    v, a, j = (float(x) if x.ndim == 0 else x for x in si)
    return MotionBounds(v_max=v, a_max=a, j_max=j)
