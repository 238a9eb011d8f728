# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)
# Source:    paperlib/symbolic/toys.py, paperlib/symbolic/emit.py, data/robots/toy_pendulum.toml, paperlib/codegen.py
# sympy 1.14.0; source digest f9d76c9e19473852
# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.
#
# toy_pendulum: example robot of kind toy_pendulum (not a paper's); kernels of the kernel-set interface.
#   terms                      4 operations after CSE
#   dynamics                   3 operations after CSE
#   state_terms                3 operations after CSE
"""Generated numba kernels of the example robot toy_pendulum (see header)."""

import math

import numba as nb

PARAM_NAMES = ('J', 'm_l')


@nb.njit(cache=True, nogil=True, _nrt=False)
def terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I):
    """Known part R of Q_I + Q_G, drive map, friction Jacobian and rates, inertial columns."""
    q0 = q[0]
    qd0 = qd[0]
    qdd0 = qdd[0]
    J = prm[0]
    m_l = prm[1]
    R[0] = -9.81*m_l*math.sin(q0)
    D_m[0, 0] = 1.0
    D_ups[0, 0] = 1.0
    ups_d[0] = qd0
    Y_I[0, 0] = qdd0
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def dynamics(q, qd, prm, M, h):
    """Mass matrix M and bias forces h (M qdd + h = Q)."""
    q0 = q[0]
    qd0 = qd[0]
    J = prm[0]
    m_l = prm[1]
    M[0, 0] = J
    h[0] = 9.81*m_l*math.sin(q0)
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def state_terms(q, qd, prm, M, h, D_ups, ups_d):
    """M, h and the friction joints' Jacobian and rates (the joints themselves)."""
    q0 = q[0]
    qd0 = qd[0]
    J = prm[0]
    m_l = prm[1]
    M[0, 0] = J
    h[0] = 9.81*m_l*math.sin(q0)
    D_ups[0, 0] = 1.0
    ups_d[0] = qd0
    return 0
