# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)
# Source:    paperlib/symbolic/toys.py, paperlib/symbolic/emit.py, data/robots/toy_tridrive.toml, paperlib/codegen.py
# sympy 1.14.0; source digest b9a77424a90bc88b
# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.
#
# toy_tridrive: example robot of kind toy_tridrive (not a paper's); kernels of the kernel-set interface.
#   terms                      8 operations after CSE
#   dynamics                   0 operations after CSE
#   state_terms                0 operations after CSE
"""Generated numba kernels of the example robot toy_tridrive (see header)."""

import math

import numba as nb

PARAM_NAMES = ('m1', 'm2', 'm12', 'd00', 'd01', 'd10', 'd11', 'd20', 'd21')


@nb.njit(cache=True, nogil=True, _nrt=False)
def terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d):
    """Known part R of Q_I + Q_G, drive map, friction Jacobian and rates, inertial columns."""
    q0 = q[0]
    q1 = q[1]
    qd0 = qd[0]
    qd1 = qd[1]
    qdd0 = qdd[0]
    qdd1 = qdd[1]
    m1 = prm[0]
    m2 = prm[1]
    m12 = prm[2]
    d00 = prm[3]
    d01 = prm[4]
    d10 = prm[5]
    d11 = prm[6]
    d20 = prm[7]
    d21 = prm[8]
    R[0] = -m1*qdd0 - m12*qdd1
    R[1] = -m12*qdd0 - m2*qdd1
    D_m[0, 0] = d00
    D_m[0, 1] = d01
    D_m[1, 0] = d10
    D_m[1, 1] = d11
    D_m[2, 0] = d20
    D_m[2, 1] = d21
    D_ups[0, 0] = 1.0
    D_ups[0, 1] = 0.0
    D_ups[1, 0] = 0.0
    D_ups[1, 1] = 1.0
    ups_d[0] = qd0
    ups_d[1] = qd1
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def dynamics(q, qd, prm, M, h):
    """Mass matrix M and bias forces h (M qdd + h = Q)."""
    q0 = q[0]
    q1 = q[1]
    qd0 = qd[0]
    qd1 = qd[1]
    m1 = prm[0]
    m2 = prm[1]
    m12 = prm[2]
    d00 = prm[3]
    d01 = prm[4]
    d10 = prm[5]
    d11 = prm[6]
    d20 = prm[7]
    d21 = prm[8]
    M[0, 0] = m1
    M[0, 1] = m12
    M[1, 0] = m12
    M[1, 1] = m2
    h[0] = 0.0
    h[1] = 0.0
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def state_terms(q, qd, prm, M, h, D_ups, ups_d):
    """M, h and the friction joints' Jacobian and rates (the joints themselves)."""
    q0 = q[0]
    q1 = q[1]
    qd0 = qd[0]
    qd1 = qd[1]
    m1 = prm[0]
    m2 = prm[1]
    m12 = prm[2]
    d00 = prm[3]
    d01 = prm[4]
    d10 = prm[5]
    d11 = prm[6]
    d20 = prm[7]
    d21 = prm[8]
    M[0, 0] = m1
    M[0, 1] = m12
    M[1, 0] = m12
    M[1, 1] = m2
    h[0] = 0.0
    h[1] = 0.0
    D_ups[0, 0] = 1.0
    D_ups[0, 1] = 0.0
    D_ups[1, 0] = 0.0
    D_ups[1, 1] = 1.0
    ups_d[0] = qd0
    ups_d[1] = qd1
    return 0
