# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)
# Source:    paperlib/robots/kinds.py, paperlib/symbolic/five_bar.py, paperlib/symbolic/three_rrr.py, paperlib/symbolic/toys.py, data/robots/five_bar.toml, data/robots/three_rrr.toml, data/robots/toy_pendulum.toml, data/robots/toy_tridrive.toml, paperlib/symbolic/module_text.py, paperlib/codegen.py
# sympy 1.14.0; source digest b964b8621b5ae80b
# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.
#
# The kernel-set dispatch of every robot with compiled kernels, one integer id each (see
# paperlib/robots/kernel_sets.py for the interface and why it branches on an integer).
"""Generated kernel-set dispatch (see header)."""

import numba as nb

from paperlib.kernels import five_bar as K_five_bar
from paperlib.kernels import three_rrr as K_three_rrr
from paperlib.kernels import toy_pendulum as K_toy_pendulum
from paperlib.kernels import toy_tridrive as K_toy_tridrive

KID_FIVE_BAR = 0
KID_THREE_RRR = 1
KID_TOY_PENDULUM = 2
KID_TOY_TRIDRIVE = 3

#: robot -> (kid, n_joints, n_drives, n_ups, n_inertial, n_params, inertial_names)
KERNEL_SETS = {
    'five_bar': (0, 2, 2, 5, 0, 18, ()),
    'three_rrr': (1, 2, 3, 3, 0, 37, ()),
    'toy_pendulum': (2, 1, 1, 1, 1, 2, ('J',)),
    'toy_tridrive': (3, 2, 3, 2, 0, 9, ()),
}


@nb.njit(cache=True, nogil=True, _nrt=False, inline="always")
def robot_terms(kid, q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I):  # pragma: no cover - compiled
    """Right-hand side, drive map, friction Jacobian and inertial columns at one state."""
    if kid == KID_FIVE_BAR:
        return K_five_bar.row_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)
    if kid == KID_THREE_RRR:
        s = K_three_rrr.inverse_dynamics(q, qd, qdd, prm, R, D_ups, ups_d)
        for i in range(R.shape[0]):
            R[i] = -R[i]
        for d in range(D_ups.shape[0]):
            for i in range(D_ups.shape[1]):
                D_m[d, i] = D_ups[d, i]
        return s
    if kid == KID_TOY_PENDULUM:
        return K_toy_pendulum.terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I)
    if kid == KID_TOY_TRIDRIVE:
        return K_toy_tridrive.terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)
    return -1


@nb.njit(cache=True, nogil=True, _nrt=False, inline="always")
def robot_dynamics(kid, q, qd, prm, M, h):  # pragma: no cover - compiled
    """Mass matrix and bias forces (Coriolis, gravity)."""
    if kid == KID_FIVE_BAR:
        return K_five_bar.mass_bias(q, qd, prm, M, h)
    if kid == KID_THREE_RRR:
        return K_three_rrr.mass_bias(q, qd, prm, M, h)
    if kid == KID_TOY_PENDULUM:
        return K_toy_pendulum.dynamics(q, qd, prm, M, h)
    if kid == KID_TOY_TRIDRIVE:
        return K_toy_tridrive.dynamics(q, qd, prm, M, h)
    return -1


@nb.njit(cache=True, nogil=True, _nrt=False, inline="always")
def robot_state_terms(kid, q, qd, prm, M, h, D_ups, ups_d):  # pragma: no cover - compiled
    """Mass matrix, bias forces and the friction joints' Jacobian and velocities at one state."""
    if kid == KID_FIVE_BAR:
        return K_five_bar.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)
    if kid == KID_THREE_RRR:
        return K_three_rrr.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)
    if kid == KID_TOY_PENDULUM:
        return K_toy_pendulum.state_terms(q, qd, prm, M, h, D_ups, ups_d)
    if kid == KID_TOY_TRIDRIVE:
        return K_toy_tridrive.state_terms(q, qd, prm, M, h, D_ups, ups_d)
    return -1
