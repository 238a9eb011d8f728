"""Kernel sets: what the generic controller step and plant need from a robot, behind one id.

A robot hands the controller its :class:`KernelSet` (``robot.kernels``); the compiled step calls
:func:`robot_terms` and the plant :func:`robot_dynamics` with the set's integer ``kid``, and the
branch on ``kid`` picks the robot's compiled kernels. (numba cannot cache a compiled function
that takes another compiled function as an argument, or a closure over one: it would recompile
the control step in every process. A branch on an integer costs one compare per call and keeps
every caller cached.) The branches and the ids are generated (``paperlib/kernels/dispatch.py``,
``python -m paperlib.codegen``) from the robots' data files and their kinds' symbolic modules
(:mod:`paperlib.symbolic.module_text`): adding a robot adds no branch by hand.

Kernel-set interface (every array preallocated, SI units; the status is 0 when valid)::

    robot_terms(kid, q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I) -> status
        R     (n,)         known part of Q_I + Q_G (inertial and gravity generalized forces)
        D_m   (n_drv, n)   drive map: Q_m = D_m^T tau_m
        D_ups (n_ups, n)   Jacobian of the friction (relative) joint coordinates
        ups_d (n_ups,)     their velocities
        Y_I   (n, n_I)     inertial columns of the unknown inertial parameters (n_I may be 0):
                           Q_I + Q_G = R - Y_I pi_I
    robot_dynamics(kid, q, qd, prm, M, h) -> status     M qdd + h = Q  (h: Coriolis and gravity)
    robot_state_terms(kid, q, qd, prm, M, h, D_ups, ups_d) -> status   both of the above at once

``FIVE_BAR``, ``THREE_RRR``, ... (a robot's name in capitals) and ``KID_<NAME>`` stay importable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paperlib.kernels import dispatch as _dispatch
from paperlib.kernels.dispatch import robot_dynamics, robot_state_terms, robot_terms  # noqa: F401  (the interface)


@dataclass(frozen=True)
class KernelSet:
    """Sizes and id of one robot's kernels.

    Attributes
    ----------
    kid : int
        Branch of :func:`robot_terms` / :func:`robot_dynamics`.
    name : str
        Robot name.
    n_joints, n_drives, n_ups, n_inertial, n_params : int
        Degrees of freedom, drives, friction joints, unknown inertial parameters, kernel parameters.
    inertial_names : tuple of str
        Names of the unknown inertial parameters (columns of ``Y_I``).
    """

    kid: int
    name: str
    n_joints: int
    n_drives: int
    n_ups: int
    n_inertial: int
    n_params: int
    inertial_names: tuple[str, ...] = ()


#: Every robot with compiled kernels, by name (from the generated dispatch).
KERNEL_SETS: dict[str, KernelSet] = {name: KernelSet(kid, name, *sizes[:5], tuple(sizes[5]))
                                     for name, (kid, *sizes) in _dispatch.KERNEL_SETS.items()}


def kernel_set(name: str) -> KernelSet:
    """The kernel set of robot ``name``; a ``ValueError`` naming the known sets (regenerate after adding one)."""
    try:
        return KERNEL_SETS[name]
    except KeyError:
        raise ValueError(f"no compiled kernel set for robot {name!r} (known: {sorted(KERNEL_SETS)}); "
                         "run `python -m paperlib.codegen` after adding a robot") from None


def __getattr__(attr: str) -> Any:
    """``FIVE_BAR`` / ``KID_FIVE_BAR`` style names of the generated sets (kept for callers)."""
    if attr.startswith("KID_") and hasattr(_dispatch, attr):
        return getattr(_dispatch, attr)
    if attr.isupper() and attr.lower() in KERNEL_SETS:
        return KERNEL_SETS[attr.lower()]
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
