"""Fig. 4 and the identification run: 21 sampling positions visited by ladder-velocity moves.

The paper samples 21 positions spread over the work space (10 on its boundary, numbers 0-9,
and 11 near the centre, 10-20), moving between them on straight lines under LVCA at 300 mm/s
and staying 2 s at each. The positions themselves are not printed: here they are 10 points
evenly on the boundary circle of the work region W (radius R, see ``[work_region]`` in
``data/robots/three_rrr.toml``), the centre, and two rings of five at R/4 and R/2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.control.ladder import point_sequence
from paperlib.robots.three_rrr import ThreeRRR

#: The paper's sampling run: 300 mm/s under LVCA, 2 s at each of 21 positions.
SAMPLING_SPEED_M_S = 0.300
DWELL_S = 2.0
#: The sampling run's acceleration [m/s^2] (the paper does not print it).
A_MAX_SAMPLING_M_S2 = 7.0
N_BOUNDARY = 10
N_CENTRE = 11


def sampling_points(robot: ThreeRRR) -> np.ndarray:
    """The 21 positions (21, 2) [m]: 0-9 on the boundary of W, 10-20 near its centre."""
    c, R = robot.work_centre, robot.work_radius
    a = 2 * np.pi * np.arange(N_BOUNDARY) / N_BOUNDARY
    boundary = c + R * np.stack([np.cos(a), np.sin(a)], axis=1)
    b = 2 * np.pi * np.arange(5) / 5 + np.pi / 5
    ring1 = c + R / 4 * np.stack([np.cos(b), np.sin(b)], axis=1)
    ring2 = c + R / 2 * np.stack([np.cos(b + np.pi / 5), np.sin(b + np.pi / 5)], axis=1)
    return np.vstack([boundary, c[None], ring1, ring2])


def sampling_reference(robot: ThreeRRR, fs_hz: float, a_max: float, v_max: float = SAMPLING_SPEED_M_S,
                       dwell_s: float = DWELL_S) -> dict[str, Any]:
    """Platform reference of the sampling run (see :func:`paperlib.control.ladder.point_sequence`).

    Starts at rest at the centre of W and visits positions 0-20; ``arrivals`` (21,) are the
    instants the reference reaches each position [s], ``points`` (21, 2) the positions [m].
    """
    pts = sampling_points(robot)
    # start at rest at the centre of W, so that position 0 is reached by a move like the others
    ref = point_sequence([robot.work_centre, *pts], v_max, a_max, dwell_s, fs_hz, lead_s=0.2)
    ref["points"] = pts
    ref["arrivals"] = ref["arrivals"][1:]
    return ref
