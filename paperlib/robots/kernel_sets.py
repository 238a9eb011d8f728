"""Kernel sets: what the generic controller step and plant need from a robot, behind one id.

A robot hands the controller its :class:`KernelSet` (``robot.kernels``); the compiled step calls
:func:`robot_terms` and the plant :func:`robot_dynamics` with the set's integer ``kid``, and the
branch on ``kid`` picks the robot's compiled kernels. (numba cannot cache a compiled function
that takes another compiled function as an argument, or a closure over one: it would recompile
the control step in every process. A branch on an integer costs one compare per call and keeps
every caller cached.) Adding a robot adds one branch here and one :class:`KernelSet`.

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
"""

from __future__ import annotations

from dataclasses import dataclass

from paperlib._jit import rt_njit
from paperlib.kernels import five_bar as K5
from paperlib.kernels import three_rrr as K3
from paperlib.robots import toys

KID_FIVE_BAR = 0
KID_PENDULUM = 1
KID_TRIDRIVE = 2
KID_THREE_RRR = 3


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


FIVE_BAR = KernelSet(KID_FIVE_BAR, "five_bar", 2, 2, K5.N_PSI, 0, K5.N_PARAMS)
PENDULUM = KernelSet(KID_PENDULUM, "toy_pendulum", 1, 1, 1, 1, len(toys.PENDULUM_PARAM_NAMES), ("J",))
TRIDRIVE = KernelSet(KID_TRIDRIVE, "toy_tridrive", 2, 3, 2, 0, len(toys.TRIDRIVE_PARAM_NAMES))
#: 3-RRR of paper 002: coordinates the platform point p (2,); drives and friction joints the three
#: actuated joints (passive joints frictionless): D_m = D_ups = J_a (3, 2), ups_d = J_a p_dot.
THREE_RRR = KernelSet(KID_THREE_RRR, "three_rrr", 2, K3.N_DRIVES, K3.N_DRIVES, 0, K3.N_PARAMS)


@rt_njit(inline="always")
def robot_terms(kid, q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I):  # pragma: no cover - compiled
    """Right-hand side, drive map, friction Jacobian and inertial columns at one state (see module)."""
    if kid == KID_FIVE_BAR:
        return K5.row_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)
    if kid == KID_PENDULUM:
        return toys.pendulum_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I)
    if kid == KID_TRIDRIVE:
        return toys.tridrive_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I)
    if kid == KID_THREE_RRR:
        # Q_I = -(M_s pdd + C_s pd) (horizontal: no gravity); the drives are the friction joints
        s = K3.inverse_dynamics(q, qd, qdd, prm, R, D_ups, ups_d)
        for i in range(R.shape[0]):
            R[i] = -R[i]
        for d in range(D_ups.shape[0]):
            for i in range(D_ups.shape[1]):
                D_m[d, i] = D_ups[d, i]
        return s
    return -1


@rt_njit(inline="always")
def robot_dynamics(kid, q, qd, prm, M, h):  # pragma: no cover - compiled
    """Mass matrix and bias forces (Coriolis, gravity) at one state."""
    if kid == KID_FIVE_BAR:
        return K5.mass_bias(q, qd, prm, M, h)
    if kid == KID_PENDULUM:
        return toys.pendulum_dynamics(q, qd, prm, M, h)
    if kid == KID_TRIDRIVE:
        return toys.tridrive_dynamics(q, qd, prm, M, h)
    if kid == KID_THREE_RRR:
        return K3.mass_bias(q, qd, prm, M, h)
    return -1


@rt_njit(inline="always")
def robot_state_terms(kid, q, qd, prm, M, h, D_ups, ups_d):  # pragma: no cover - compiled
    """Mass matrix, bias forces and the friction joints' Jacobian and velocities at one state."""
    if kid == KID_FIVE_BAR:
        return K5.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)
    if kid == KID_THREE_RRR:
        return K3.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)
    if kid == KID_PENDULUM:
        toys.pendulum_dynamics(q, qd, prm, M, h)
    elif kid == KID_TRIDRIVE:
        toys.tridrive_dynamics(q, qd, prm, M, h)
    else:
        return -1
    # the toys' friction joints are their joints
    for i in range(D_ups.shape[0]):
        for j in range(D_ups.shape[1]):
            D_ups[i, j] = 1.0 if i == j else 0.0
        ups_d[i] = qd[i]
    return 0
