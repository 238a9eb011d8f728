# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)
# Source:    paperlib/symbolic/five_bar.py, paperlib/symbolic/closed_chain.py, paperlib/symbolic/emit.py, paperlib/codegen.py
# sympy 1.14.0; source digest a0b5c10b189b5102
# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.
#
# 5R planar parallel robot (flagship paper, eqs. 24-46): implicit differentiation of the
# loop closure, solved as 2x2 systems inside each kernel; trigonometric functions once.
# Every kernel writes into preallocated arrays and returns a status (0 valid,
# 1 outside the workspace, 2 parallel singularity). Compiled without numba's reference
# counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py for why).
#   fk                        35 operations after CSE
#   jacobians                 71 operations after CSE
#   jacobian_rates           181 operations after CSE
#   mass_matrix              131 operations after CSE
#   coriolis_matrix          262 operations after CSE
#   inertial_lagrangian      284 operations after CSE
#   dynamics_terms           354 operations after CSE
#   mass_bias                335 operations after CSE
#   row_terms                303 operations after CSE
"""Generated numba kernels of the 5R planar parallel robot (see header)."""

import math

import numba as nb

PARAM_NAMES = ('l_f', 'l_p1', 'l_p2', 'l_d1', 'l_d2', 'r_d1x', 'r_d1y', 'r_d2x', 'r_d2y', 'I_p1', 'I_p2', 'I_d1', 'I_d2', 'm_d1', 'm_d2', 'm_p', 'iota1', 'iota2')
N_PARAMS = 18
N_CHI = 10
N_PSI = 5
SINGULARITY_TOL = 1e-06
STATUS_OK = 0
STATUS_OUTSIDE = 1
STATUS_SINGULAR = 2


@nb.njit(cache=True, nogil=True, _nrt=False)
def fk(q, prm, chi, psi):
    """Forward position kinematics.

    Writes ``chi`` (10,) of eq. 42 [rad, rad, rad, rad, m x 6] and the internal angles ``psi`` (5,) [rad].
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det

    phi1 = math.atan2(sf1, cf1)
    phi2 = math.atan2(sf2, cf2)
    x0 = ((1.0/2.0))*l_f
    x1 = c1*l_p1 - x0
    x2 = l_p1*s1
    x3 = -phi2
    chi[0] = q1
    chi[1] = q2
    chi[2] = phi1
    chi[3] = phi2
    chi[4] = cf1*r_d1x - r_d1y*sf1 + x1
    chi[5] = cf1*r_d1y + r_d1x*sf1 + x2
    chi[6] = c2*l_p2 + cf2*r_d2x - r_d2y*sf2 + x0
    chi[7] = cf2*r_d2y + l_p2*s2 + r_d2x*sf2
    chi[8] = cf1*l_d1 + x1
    chi[9] = l_d1*sf1 + x2
    psi[0] = q1
    psi[1] = math.pi - q2
    psi[2] = q2 + x3 + math.pi
    psi[3] = -phi1 - x3
    psi[4] = phi1 - q1 + math.pi
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def jacobians(q, prm, D_chi, D_psi):
    """Jacobians ``D_chi`` (10, 2) (rows 2-3: D_phi, rows 8-9: D_p) and ``D_psi`` (5, 2) of the internal angles, so that chi_dot = D_chi qd.
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x2 = l_p1*s1
    x3 = cf1*r_d1y + r_d1x*sf1
    x4 = c1*l_p1
    x5 = cf1*r_d1x - r_d1y*sf1
    x6 = cf2*r_d2y + r_d2x*sf2
    x7 = cf2*r_d2x - r_d2y*sf2
    x8 = l_d1*sf1
    x9 = cf1*l_d1
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x10 = -Dz21
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    D_chi[0, 0] = 1.0
    D_chi[0, 1] = 0.0
    D_chi[1, 0] = 0.0
    D_chi[1, 1] = 1.0
    D_chi[2, 0] = Dz11
    D_chi[2, 1] = Dz12
    D_chi[3, 0] = Dz21
    D_chi[3, 1] = Dz22
    D_chi[4, 0] = -Dz11*x3 - x2
    D_chi[4, 1] = -Dz12*x3
    D_chi[5, 0] = Dz11*x5 + x4
    D_chi[5, 1] = Dz12*x5
    D_chi[6, 0] = -Dz21*x6
    D_chi[6, 1] = -Dz22*x6 - l_p2*s2
    D_chi[7, 0] = Dz21*x7
    D_chi[7, 1] = Dz22*x7 + c2*l_p2
    D_chi[8, 0] = -Dz11*x8 - x2
    D_chi[8, 1] = -Dz12*x8
    D_chi[9, 0] = Dz11*x9 + x4
    D_chi[9, 1] = Dz12*x9
    D_psi[0, 0] = 1.0
    D_psi[0, 1] = 0.0
    D_psi[1, 0] = 0.0
    D_psi[1, 1] = -1.0
    D_psi[2, 0] = x10
    D_psi[2, 1] = 1.0 - Dz22
    D_psi[3, 0] = -Dz11 - x10
    D_psi[3, 1] = -Dz12 + Dz22
    D_psi[4, 0] = Dz11 - 1.0
    D_psi[4, 1] = Dz12
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def jacobian_rates(q, qd, prm, Dd_chi, Dd_psi):
    """Time derivatives dD_chi/dt (10, 2) and dD_psi/dt (5, 2) [1/s] along qd [rad/s] (eq. 43).
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x2 = l_p1*qd1
    x3 = c1*x2
    x4 = s1*x2
    x9 = cf2*cf2
    x10 = sf2*sf2
    x11 = l_p2*qd2
    x12 = c2*x11
    x13 = s2*x11
    x18 = cf1*cf1*l_d1
    x19 = l_d1*sf1*sf1
    x20 = cf1*r_d1y + r_d1x*sf1
    x21 = cf1*r_d1x - r_d1y*sf1
    x24 = cf2*r_d2y + r_d2x*sf2
    x25 = cf2*r_d2x - r_d2y*sf2
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    zd1 = Dz11*qd1 + Dz12*qd2
    x5 = Dz11*zd1
    x6 = l_d1*x5
    x7 = cf1*x6
    x8 = sf1*x6
    x15 = Dz12*zd1
    x16 = cf1*x15
    x17 = sf1*x15
    x22 = x21*zd1
    x23 = x20*zd1
    zd2 = Dz21*qd1 + Dz22*qd2
    x14 = Dz22*l_d2*zd2
    x26 = x25*zd2
    x27 = x24*zd2
    Dzd11 = x0*(Dz21*l_d2*x10*zd2 + Dz21*l_d2*x9*zd2 - cf2*x3 - cf2*x7 - sf2*x4 - sf2*x8)
    Dzd12 = x0*(-cf2*l_d1*x16 + cf2*x12 - l_d1*sf2*x17 + sf2*x13 + x10*x14 + x14*x9)
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x3 - sf1*x4 - x18*x5 - x19*x5)
    x28 = -Dzd21
    Dzd22 = x1*(cf1*cf2*x14 + cf1*x12 + sf1*sf2*x14 + sf1*x13 - x15*x18 - x15*x19)
    x29 = -Dzd22
    Dd_chi[0, 0] = 0.0
    Dd_chi[0, 1] = 0.0
    Dd_chi[1, 0] = 0.0
    Dd_chi[1, 1] = 0.0
    Dd_chi[2, 0] = Dzd11
    Dd_chi[2, 1] = Dzd12
    Dd_chi[3, 0] = Dzd21
    Dd_chi[3, 1] = Dzd22
    Dd_chi[4, 0] = -Dz11*x22 - Dzd11*x20 - x3
    Dd_chi[4, 1] = -Dz12*x22 - Dzd12*x20
    Dd_chi[5, 0] = -Dz11*x23 + Dzd11*x21 - x4
    Dd_chi[5, 1] = -Dz12*x23 + Dzd12*x21
    Dd_chi[6, 0] = -Dz21*x26 - Dzd21*x24
    Dd_chi[6, 1] = -Dz22*x26 - Dzd22*x24 - x12
    Dd_chi[7, 0] = -Dz21*x27 + Dzd21*x25
    Dd_chi[7, 1] = -Dz22*x27 + Dzd22*x25 - x13
    Dd_chi[8, 0] = -Dzd11*l_d1*sf1 - x3 - x7
    Dd_chi[8, 1] = -l_d1*(Dzd12*sf1 + x16)
    Dd_chi[9, 0] = Dzd11*cf1*l_d1 - x4 - x8
    Dd_chi[9, 1] = l_d1*(Dzd12*cf1 - x17)
    Dd_psi[0, 0] = 0.0
    Dd_psi[0, 1] = 0.0
    Dd_psi[1, 0] = 0.0
    Dd_psi[1, 1] = 0.0
    Dd_psi[2, 0] = x28
    Dd_psi[2, 1] = x29
    Dd_psi[3, 0] = -Dzd11 - x28
    Dd_psi[3, 1] = -Dzd12 - x29
    Dd_psi[4, 0] = Dzd11
    Dd_psi[4, 1] = Dzd12
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def mass_matrix(q, prm, M):
    """Mass matrix M (2, 2) [kg m^2] of eq. 45.
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x3 = c1*l_p1
    x6 = l_p1*s1
    x8 = cf2*r_d2y + r_d2x*sf2
    x10 = cf2*r_d2x - r_d2y*sf2
    x11 = cf1*r_d1y + r_d1x*sf1
    x13 = cf1*r_d1x - r_d1y*sf1
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x4 = Dz11*l_d1
    x5 = cf1*x4 + x3
    x7 = sf1*x4 + x6
    x12 = Dz11*x11 + x6
    x14 = Dz11*x13 + x3
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x15 = Dz12*l_d1*m_p
    x16 = Dz12*m_d1
    x20 = Dz12*Dz12
    x21 = l_d1*l_d1*m_p*x20
    x22 = m_d1*x20
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x2 = Dz21*Dz21
    x9 = m_d2*x2
    x18 = Dz21*m_d2
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x17 = Dz22*x8 + l_p2*s2
    x19 = Dz22*x10 + c2*l_p2
    M[0, 0] = Dz11*Dz11*I_d1 + I_d2*x2 + I_p1 + m_d1*x12*x12 + m_d1*x14*x14 + m_p*x5*x5 + m_p*x7*x7 + x10*x10*x9 + x8*x8*x9
    M[0, 1] = Dz11*Dz12*I_d1 + Dz21*Dz22*I_d2 + cf1*x15*x5 + sf1*x15*x7 + x10*x18*x19 + x11*x12*x16 + x13*x14*x16 + x17*x18*x8
    M[1, 1] = Dz22*Dz22*I_d2 + I_d1*x20 + I_p2 + cf1*cf1*x21 + m_d2*x17*x17 + m_d2*x19*x19 + sf1*sf1*x21 + x11*x11*x22 + x13*x13*x22
    M[1, 0] = M[0, 1]
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def coriolis_matrix(q, qd, prm, C):
    """Matrix C (2, 2) [kg m^2/s] of eq. 46, C = D_chi^T M* dD_chi/dt.
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x2 = c1*l_p1
    x3 = qd1*x2
    x4 = l_p1*s1
    x5 = qd1*x4
    x6 = cf1*l_d1
    x9 = l_d1*sf1
    x12 = cf2*cf2
    x13 = sf2*sf2
    x14 = c2*l_p2
    x15 = qd2*x14
    x16 = l_p2*s2
    x17 = qd2*x16
    x20 = cf1*cf1*l_d1
    x22 = l_d1*sf1*sf1
    x29 = cf2*r_d2y + r_d2x*sf2
    x30 = cf2*r_d2x - r_d2y*sf2
    x37 = cf1*r_d1y + r_d1x*sf1
    x38 = cf1*r_d1x - r_d1y*sf1
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x7 = Dz11*x6
    x10 = Dz11*x9
    x23 = Dz11*I_d1
    x26 = m_p*(x10 + x4)
    x28 = m_p*(x2 + x7)
    x39 = Dz11*x38
    x41 = Dz11*x37
    x42 = m_d1*(x4 + x41)
    x44 = m_d1*(x2 + x39)
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x53 = Dz12*I_d1
    x55 = Dz12*m_p
    x56 = Dz12*m_d1
    x57 = x37*x56
    x60 = x38*x56
    x61 = l_d1*l_d1*x55
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x24 = Dz21*I_d2
    x33 = Dz21*m_d2
    x34 = x29*x33
    x36 = x30*x33
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x47 = Dz22*x30
    x51 = Dz22*x29
    x54 = Dz22*I_d2
    x58 = m_d2*(x16 + x51)
    x59 = m_d2*(x14 + x47)
    zd1 = Dz11*qd1 + Dz12*qd2
    x8 = x7*zd1
    x11 = x10*zd1
    x19 = Dz12*zd1
    x21 = Dz11*zd1
    zd2 = Dz21*qd1 + Dz22*qd2
    x18 = Dz22*l_d2*zd2
    x31 = Dz21*zd2
    Dzd11 = x0*(Dz21*l_d2*x12*zd2 + Dz21*l_d2*x13*zd2 - cf2*x3 - cf2*x8 - sf2*x11 - sf2*x5)
    x25 = Dzd11*x9 + x3 + x8
    x27 = -Dzd11*x6 + x11 + x5
    x40 = Dzd11*x37 + x3 + x39*zd1
    x43 = -Dzd11*x38 + x41*zd1 + x5
    Dzd12 = x0*(cf2*x15 - cf2*x19*x6 + sf2*x17 - sf2*x19*x9 + x12*x18 + x13*x18)
    x45 = Dzd12*sf1 + cf1*x19
    x46 = -Dzd12*cf1 + sf1*x19
    x49 = Dzd12*x37 + x19*x38
    x50 = Dzd12*x38 - x19*x37
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x3 - sf1*x5 - x20*x21 - x21*x22)
    x32 = Dzd21*x29 + x30*x31
    x35 = Dzd21*x30 - x29*x31
    Dzd22 = x1*(cf1*cf2*x18 + cf1*x15 + sf1*sf2*x18 + sf1*x17 - x19*x20 - x19*x22)
    x48 = Dzd22*x29 + x15 + x47*zd2
    x52 = -Dzd22*x30 + x17 + x51*zd2
    C[0, 0] = Dzd11*x23 + Dzd21*x24 + x25*x26 - x27*x28 + x32*x34 + x35*x36 + x40*x42 - x43*x44
    C[0, 1] = Dzd12*x23 + Dzd22*x24 + l_d1*x26*x45 - l_d1*x28*x46 + x34*x48 - x36*x52 + x42*x49 + x44*x50
    C[1, 0] = Dzd11*x53 + Dzd21*x54 + x25*x55*x9 - x27*x55*x6 + x32*x58 + x35*x59 + x40*x57 - x43*x60
    C[1, 1] = Dzd12*x53 + Dzd22*x54 - cf1*x46*x61 + sf1*x45*x61 + x48*x58 + x49*x57 + x50*x60 - x52*x59
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def inertial_lagrangian(q, qd, qdd, prm, Q_I):
    """Inertial Lagrangian components Q_I (2,) [N m] = -(M qdd + C qd), computed as -D_chi^T M* (D_chi qdd + dD_chi/dt qd).
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    qdd1 = qdd[0]
    qdd2 = qdd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x2 = c1*l_p1
    x3 = qd1*x2
    x4 = l_p1*s1
    x5 = qd1*x4
    x6 = cf1*l_d1
    x9 = l_d1*sf1
    x12 = cf2*cf2
    x13 = sf2*sf2
    x14 = c2*l_p2
    x15 = qd2*x14
    x16 = l_p2*s2
    x17 = qd2*x16
    x21 = cf1*cf1*l_d1
    x23 = l_d1*sf1*sf1
    x29 = l_d1*qd2
    x33 = cf2*r_d2y + r_d2x*sf2
    x36 = cf2*r_d2x - r_d2y*sf2
    x40 = cf1*r_d1y + r_d1x*sf1
    x43 = cf1*r_d1x - r_d1y*sf1
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x7 = Dz11*x6
    x10 = Dz11*x9
    x28 = x10 + x4
    x31 = x2 + x7
    x41 = Dz11*x40
    x42 = x4 + x41
    x44 = Dz11*x43
    x48 = x2 + x44
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x24 = Dz12*qdd2
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x26 = Dz21*qdd1
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x34 = Dz22*x33
    x35 = x16 + x34
    x38 = Dz22*x36
    x46 = x14 + x38
    zd1 = Dz11*qd1 + Dz12*qd2
    x8 = x7*zd1
    x11 = x10*zd1
    x19 = Dz12*zd1
    x20 = sf1*x19
    x22 = Dz11*zd1
    zd2 = Dz21*qd1 + Dz22*qd2
    x18 = Dz22*l_d2*zd2
    x37 = Dz21*zd2
    Dzd11 = x0*(Dz21*l_d2*x12*zd2 + Dz21*l_d2*x13*zd2 - cf2*x3 - cf2*x8 - sf2*x11 - sf2*x5)
    Dzd12 = x0*(cf2*x15 - cf2*x19*x6 - l_d1*sf2*x20 + sf2*x17 + x12*x18 + x13*x18)
    x25 = I_d1*(Dz11*qdd1 + Dzd11*qd1 + Dzd12*qd2 + x24)
    x30 = m_p*(qd1*(Dzd11*x9 + x3 + x8) + qdd1*x28 + x24*x9 + x29*(Dzd12*sf1 + cf1*x19))
    x32 = m_p*(-qd1*(-Dzd11*x6 + x11 + x5) + qdd1*x31 + x24*x6 - x29*(-Dzd12*cf1 + x20))
    x45 = m_d1*(qd1*(Dzd11*x40 + x3 + x44*zd1) + qd2*(Dzd12*x40 + x19*x43) + qdd1*x42 + x24*x40)
    x49 = m_d1*(qd1*(Dzd11*x43 - x41*zd1 - x5) + qd2*(Dzd12*x43 - x19*x40) + qdd1*x48 + x24*x43)
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x3 - sf1*x5 - x21*x22 - x22*x23)
    Dzd22 = x1*(cf1*cf2*x18 + cf1*x15 + sf1*sf2*x18 + sf1*x17 - x19*x21 - x19*x23)
    x27 = I_d2*(Dz22*qdd2 + Dzd21*qd1 + Dzd22*qd2 + x26)
    x39 = m_d2*(qd1*(Dzd21*x33 + x36*x37) + qd2*(Dzd22*x33 + x15 + x38*zd2) + qdd2*x35 + x26*x33)
    x47 = m_d2*(qd1*(Dzd21*x36 - x33*x37) + qd2*(Dzd22*x36 - x17 - x34*zd2) + qdd2*x46 + x26*x36)
    Q_I[0] = -Dz11*x25 - Dz21*x27 - Dz21*x33*x39 - Dz21*x36*x47 - I_p1*qdd1 - x28*x30 - x31*x32 - x42*x45 - x48*x49
    Q_I[1] = -Dz12*x25 - Dz12*x30*x9 - Dz12*x32*x6 - Dz12*x40*x45 - Dz12*x43*x49 - Dz22*x27 - I_p2*qdd2 - x35*x39 - x46*x47
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def dynamics_terms(q, qd, prm, M, Cqd, D_psi, psid):
    """Forward-dynamics terms: M (2, 2) [kg m^2], Cqd = C qd (2,) [N m], D_psi (5, 2), psi_dot (5,) [rad/s]; M qdd = Q_m + Q_F - C qd.
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x4 = c1*l_p1
    x5 = qd1*x4
    x6 = l_p1*s1
    x7 = qd1*x6
    x13 = cf2*cf2
    x14 = sf2*sf2
    x15 = c2*l_p2
    x16 = qd2*x15
    x17 = l_p2*s2
    x18 = qd2*x17
    x23 = cf1*cf1
    x25 = sf1*sf1
    x30 = cf2*r_d2y + r_d2x*sf2
    x32 = cf2*r_d2x - r_d2y*sf2
    x33 = cf1*r_d1y + r_d1x*sf1
    x36 = cf1*r_d1x - r_d1y*sf1
    x60 = l_d1*l_d1*m_p
    x83 = l_d1*m_p
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x8 = Dz11*l_d1
    x9 = cf1*x8
    x11 = sf1*x8
    x28 = x4 + x9
    x29 = x11 + x6
    x34 = Dz11*x33
    x35 = x34 + x6
    x37 = Dz11*x36
    x38 = x37 + x4
    x39 = Dz11*I_d1
    x41 = m_p*x28
    x42 = l_d1*x41
    x44 = m_p*x29
    x45 = l_d1*x44
    x47 = m_d1*x35
    x53 = m_d1*x38
    x88 = Dz11 - 1.0
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x2 = Dz12*qd2
    x43 = Dz12*cf1
    x46 = Dz12*sf1
    x48 = Dz12*x33
    x54 = Dz12*x36
    x59 = Dz12*Dz12
    x61 = x59*x60
    x62 = m_d1*x59
    x79 = Dz12*I_d1
    x81 = m_d1*x48
    x82 = m_d1*x54
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x3 = Dz21*qd1
    x27 = Dz21*Dz21
    x31 = m_d2*x27
    x40 = Dz21*I_d2
    x52 = Dz21*x30
    x58 = Dz21*x32
    x66 = m_d2*x52
    x70 = m_d2*x58
    x84 = -Dz21
    x86 = Dz11 + x84
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x49 = Dz22*x30
    x50 = x17 + x49
    x51 = m_d2*x50
    x55 = Dz22*x32
    x56 = x15 + x55
    x57 = m_d2*x56
    x80 = Dz22*I_d2
    x85 = Dz22 - 1.0
    x87 = Dz12 - Dz22
    zd1 = Dz11*qd1 + x2
    x10 = x9*zd1
    x12 = x11*zd1
    x20 = Dz12*zd1
    x21 = cf1*x20
    x22 = sf1*x20
    x24 = x8*zd1
    x26 = l_d1*x20
    zd2 = Dz22*qd2 + x3
    x19 = Dz22*l_d2*zd2
    x74 = Dz21*zd2
    Dzd11 = x0*(Dz21*l_d2*x13*zd2 + Dz21*l_d2*x14*zd2 - cf2*x10 - cf2*x5 - sf2*x12 - sf2*x7)
    x71 = Dzd11*l_d1
    x72 = sf1*x71 + x10 + x5
    x73 = -cf1*x71 + x12 + x7
    x77 = Dzd11*x33 + x37*zd1 + x5
    x78 = -Dzd11*x36 + x34*zd1 + x7
    Dzd12 = x0*(-cf2*l_d1*x21 + cf2*x16 - l_d1*sf2*x22 + sf2*x18 + x13*x19 + x14*x19)
    x63 = Dzd12*sf1 + x21
    x64 = -Dzd12*cf1 + x22
    x67 = Dzd12*x33 + x20*x36
    x68 = Dzd12*x36 - x20*x33
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x5 - sf1*x7 - x23*x24 - x24*x25)
    x75 = Dzd21*x30 + x32*x74
    x76 = Dzd21*x32 - x30*x74
    Dzd22 = x1*(cf1*cf2*x19 + cf1*x16 + sf1*sf2*x19 + sf1*x18 - x23*x26 - x25*x26)
    x65 = Dzd22*x30 + x16 + x55*zd2
    x69 = -Dzd22*x32 + x18 + x49*zd2
    M[0, 0] = Dz11*Dz11*I_d1 + I_d2*x27 + I_p1 + m_d1*x35*x35 + m_d1*x38*x38 + m_p*x28*x28 + m_p*x29*x29 + x30*x30*x31 + x31*x32*x32
    M[0, 1] = Dz12*x39 + Dz22*x40 + x42*x43 + x45*x46 + x47*x48 + x51*x52 + x53*x54 + x57*x58
    M[1, 1] = Dz22*Dz22*I_d2 + I_d1*x59 + I_p2 + m_d2*x50*x50 + m_d2*x56*x56 + x23*x61 + x25*x61 + x33*x33*x62 + x36*x36*x62
    M[1, 0] = M[0, 1]
    Cqd[0] = qd1*(Dzd11*x39 + Dzd21*x40 - x41*x73 + x44*x72 + x47*x77 - x53*x78 + x66*x75 + x70*x76) + qd2*(Dzd12*x39 + Dzd22*x40 - x42*x64 + x45*x63 + x47*x67 + x53*x68 + x65*x66 - x69*x70)
    Cqd[1] = qd1*(Dzd11*x79 + Dzd21*x80 - x43*x73*x83 + x46*x72*x83 + x51*x75 + x57*x76 + x77*x81 - x78*x82) + qd2*(Dzd12*x79 + Dzd22*x80 - x43*x60*x64 + x46*x60*x63 + x51*x65 - x57*x69 + x67*x81 + x68*x82)
    D_psi[0, 0] = 1.0
    D_psi[0, 1] = 0.0
    D_psi[1, 0] = 0.0
    D_psi[1, 1] = -1.0
    D_psi[2, 0] = x84
    D_psi[2, 1] = -x85
    D_psi[3, 0] = -x86
    D_psi[3, 1] = -x87
    D_psi[4, 0] = x88
    D_psi[4, 1] = Dz12
    psid[0] = qd1
    psid[1] = -qd2
    psid[2] = -qd2*x85 - x3
    psid[3] = -qd1*x86 - qd2*x87
    psid[4] = qd1*x88 + x2
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def mass_bias(q, qd, prm, M, Cqd):
    """M (2, 2) [kg m^2] and Cqd = C qd (2,) [N m] only: the inner stages of the plant's RK4 step.
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x2 = c1*l_p1
    x3 = qd1*x2
    x4 = l_p1*s1
    x5 = qd1*x4
    x11 = cf2*cf2
    x12 = sf2*sf2
    x13 = c2*l_p2
    x14 = qd2*x13
    x15 = l_p2*s2
    x16 = qd2*x15
    x21 = cf1*cf1
    x23 = sf1*sf1
    x28 = cf2*r_d2y + r_d2x*sf2
    x30 = cf2*r_d2x - r_d2y*sf2
    x31 = cf1*r_d1y + r_d1x*sf1
    x34 = cf1*r_d1x - r_d1y*sf1
    x58 = l_d1*l_d1*m_p
    x81 = l_d1*m_p
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x6 = Dz11*l_d1
    x7 = cf1*x6
    x9 = sf1*x6
    x26 = x2 + x7
    x27 = x4 + x9
    x32 = Dz11*x31
    x33 = x32 + x4
    x35 = Dz11*x34
    x36 = x2 + x35
    x37 = Dz11*I_d1
    x39 = m_p*x26
    x40 = l_d1*x39
    x42 = m_p*x27
    x43 = l_d1*x42
    x45 = m_d1*x33
    x51 = m_d1*x36
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x41 = Dz12*cf1
    x44 = Dz12*sf1
    x46 = Dz12*x31
    x52 = Dz12*x34
    x57 = Dz12*Dz12
    x59 = x57*x58
    x60 = m_d1*x57
    x77 = Dz12*I_d1
    x79 = m_d1*x46
    x80 = m_d1*x52
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x25 = Dz21*Dz21
    x29 = m_d2*x25
    x38 = Dz21*I_d2
    x50 = Dz21*x28
    x56 = Dz21*x30
    x64 = m_d2*x50
    x68 = m_d2*x56
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x47 = Dz22*x28
    x48 = x15 + x47
    x49 = m_d2*x48
    x53 = Dz22*x30
    x54 = x13 + x53
    x55 = m_d2*x54
    x78 = Dz22*I_d2
    zd1 = Dz11*qd1 + Dz12*qd2
    x8 = x7*zd1
    x10 = x9*zd1
    x18 = Dz12*zd1
    x19 = cf1*x18
    x20 = sf1*x18
    x22 = x6*zd1
    x24 = l_d1*x18
    zd2 = Dz21*qd1 + Dz22*qd2
    x17 = Dz22*l_d2*zd2
    x72 = Dz21*zd2
    Dzd11 = x0*(Dz21*l_d2*x11*zd2 + Dz21*l_d2*x12*zd2 - cf2*x3 - cf2*x8 - sf2*x10 - sf2*x5)
    x69 = Dzd11*l_d1
    x70 = sf1*x69 + x3 + x8
    x71 = -cf1*x69 + x10 + x5
    x75 = Dzd11*x31 + x3 + x35*zd1
    x76 = -Dzd11*x34 + x32*zd1 + x5
    Dzd12 = x0*(-cf2*l_d1*x19 + cf2*x14 - l_d1*sf2*x20 + sf2*x16 + x11*x17 + x12*x17)
    x61 = Dzd12*sf1 + x19
    x62 = -Dzd12*cf1 + x20
    x65 = Dzd12*x31 + x18*x34
    x66 = Dzd12*x34 - x18*x31
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x3 - sf1*x5 - x21*x22 - x22*x23)
    x73 = Dzd21*x28 + x30*x72
    x74 = Dzd21*x30 - x28*x72
    Dzd22 = x1*(cf1*cf2*x17 + cf1*x14 + sf1*sf2*x17 + sf1*x16 - x21*x24 - x23*x24)
    x63 = Dzd22*x28 + x14 + x53*zd2
    x67 = -Dzd22*x30 + x16 + x47*zd2
    M[0, 0] = Dz11*Dz11*I_d1 + I_d2*x25 + I_p1 + m_d1*x33*x33 + m_d1*x36*x36 + m_p*x26*x26 + m_p*x27*x27 + x28*x28*x29 + x29*x30*x30
    M[0, 1] = Dz12*x37 + Dz22*x38 + x40*x41 + x43*x44 + x45*x46 + x49*x50 + x51*x52 + x55*x56
    M[1, 1] = Dz22*Dz22*I_d2 + I_d1*x57 + I_p2 + m_d2*x48*x48 + m_d2*x54*x54 + x21*x59 + x23*x59 + x31*x31*x60 + x34*x34*x60
    M[1, 0] = M[0, 1]
    Cqd[0] = qd1*(Dzd11*x37 + Dzd21*x38 - x39*x71 + x42*x70 + x45*x75 - x51*x76 + x64*x73 + x68*x74) + qd2*(Dzd12*x37 + Dzd22*x38 - x40*x62 + x43*x61 + x45*x65 + x51*x66 + x63*x64 - x67*x68)
    Cqd[1] = qd1*(Dzd11*x77 + Dzd21*x78 - x41*x71*x81 + x44*x70*x81 + x49*x73 + x55*x74 + x75*x79 - x76*x80) + qd2*(Dzd12*x77 + Dzd22*x78 - x41*x58*x62 + x44*x58*x61 + x49*x63 - x55*x67 + x65*x79 + x66*x80)
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def row_terms(q, qd, qdd, prm, Q_I, D_m, D_psi, psid):
    """Everything one regressor row needs: Q_I (2,) [N m], D_m (2, 2), D_psi (5, 2) and psi_dot (5,) [rad/s] (the friction regressor of any joint subset and order is assembled from these).
    Returns 0 when valid, 1 outside the workspace (the loop cannot close), 2 at the parallel singularity (distal links aligned)."""
    q1 = q[0]
    q2 = q[1]
    qd1 = qd[0]
    qd2 = qd[1]
    qdd1 = qdd[0]
    qdd2 = qdd[1]
    l_f = prm[0]
    l_p1 = prm[1]
    l_p2 = prm[2]
    l_d1 = prm[3]
    l_d2 = prm[4]
    r_d1x = prm[5]
    r_d1y = prm[6]
    r_d2x = prm[7]
    r_d2y = prm[8]
    I_p1 = prm[9]
    I_p2 = prm[10]
    I_d1 = prm[11]
    I_d2 = prm[12]
    m_d1 = prm[13]
    m_d2 = prm[14]
    m_p = prm[15]
    iota1 = prm[16]
    iota2 = prm[17]
    c1 = math.cos(q1)
    s1 = math.sin(q1)
    c2 = math.cos(q2)
    s2 = math.sin(q2)
    e1x = l_p1*c1 - 0.5*l_f
    e1y = l_p1*s1
    e2x = l_p2*c2 + 0.5*l_f
    e2y = l_p2*s2
    dx = e2x - e1x
    dy = e2y - e1y
    dd = dx*dx + dy*dy
    if dd <= 0.0:
        return 1
    ln = math.sqrt(dd)
    a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
    hh = l_d1*l_d1 - a*a
    if hh < 0.0:
        return 1  # the distal links cannot close the loop: outside the workspace
    h_int = math.sqrt(hh)
    sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
    p1 = e1x + (a*dx - sgn*h_int*dy)/ln
    p2 = e1y + (a*dy + sgn*h_int*dx)/ln
    cf1 = (p1 - e1x)/l_d1
    sf1 = (p2 - e1y)/l_d1
    cf2 = (p1 - e2x)/l_d2
    sf2 = (p2 - e2y)/l_d2
    det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
    if abs(det) < 1e-06*l_d1*l_d2:
        return 2  # parallel singularity: distal links aligned
    idet = 1.0/det
    x0 = idet*l_d2
    x1 = idet*l_d1
    x4 = c1*l_p1
    x5 = qd1*x4
    x6 = l_p1*s1
    x7 = qd1*x6
    x8 = cf1*l_d1
    x11 = l_d1*sf1
    x14 = cf2*cf2
    x15 = sf2*sf2
    x16 = c2*l_p2
    x17 = qd2*x16
    x18 = l_p2*s2
    x19 = qd2*x18
    x23 = cf1*cf1*l_d1
    x25 = l_d1*sf1*sf1
    x31 = l_d1*qd2
    x35 = cf2*r_d2y + r_d2x*sf2
    x38 = cf2*r_d2x - r_d2y*sf2
    x42 = cf1*r_d1y + r_d1x*sf1
    x45 = cf1*r_d1x - r_d1y*sf1
    Dz11 = l_p1*x0*(c1*sf2 - cf2*s1)
    x9 = Dz11*x8
    x12 = Dz11*x11
    x30 = x12 + x6
    x33 = x4 + x9
    x43 = Dz11*x42
    x44 = x43 + x6
    x46 = Dz11*x45
    x50 = x4 + x46
    x56 = Dz11 - 1.0
    Dz12 = l_p2*x0*(-c2*sf2 + cf2*s2)
    x2 = Dz12*qd2
    x26 = Dz12*qdd2
    Dz21 = l_p1*x1*(c1*sf1 - cf1*s1)
    x3 = Dz21*qd1
    x28 = Dz21*qdd1
    x52 = -Dz21
    x54 = Dz11 + x52
    Dz22 = l_p2*x1*(-c2*sf1 + cf1*s2)
    x36 = Dz22*x35
    x37 = x18 + x36
    x40 = Dz22*x38
    x48 = x16 + x40
    x53 = Dz22 - 1.0
    x55 = Dz12 - Dz22
    zd1 = Dz11*qd1 + x2
    x10 = x9*zd1
    x13 = x12*zd1
    x21 = Dz12*zd1
    x22 = sf1*x21
    x24 = Dz11*zd1
    zd2 = Dz22*qd2 + x3
    x20 = Dz22*l_d2*zd2
    x39 = Dz21*zd2
    Dzd11 = x0*(Dz21*l_d2*x14*zd2 + Dz21*l_d2*x15*zd2 - cf2*x10 - cf2*x5 - sf2*x13 - sf2*x7)
    Dzd12 = x0*(cf2*x17 - cf2*x21*x8 - l_d1*sf2*x22 + sf2*x19 + x14*x20 + x15*x20)
    x27 = I_d1*(Dz11*qdd1 + Dzd11*qd1 + Dzd12*qd2 + x26)
    x32 = m_p*(qd1*(Dzd11*x11 + x10 + x5) + qdd1*x30 + x11*x26 + x31*(Dzd12*sf1 + cf1*x21))
    x34 = m_p*(-qd1*(-Dzd11*x8 + x13 + x7) + qdd1*x33 + x26*x8 - x31*(-Dzd12*cf1 + x22))
    x47 = m_d1*(qd1*(Dzd11*x42 + x46*zd1 + x5) + qd2*(Dzd12*x42 + x21*x45) + qdd1*x44 + x26*x42)
    x51 = m_d1*(qd1*(Dzd11*x45 - x43*zd1 - x7) + qd2*(Dzd12*x45 - x21*x42) + qdd1*x50 + x26*x45)
    Dzd21 = x1*(Dz21*cf1*cf2*l_d2*zd2 + Dz21*l_d2*sf1*sf2*zd2 - cf1*x5 - sf1*x7 - x23*x24 - x24*x25)
    Dzd22 = x1*(cf1*cf2*x20 + cf1*x17 + sf1*sf2*x20 + sf1*x19 - x21*x23 - x21*x25)
    x29 = I_d2*(Dz22*qdd2 + Dzd21*qd1 + Dzd22*qd2 + x28)
    x41 = m_d2*(qd1*(Dzd21*x35 + x38*x39) + qd2*(Dzd22*x35 + x17 + x40*zd2) + qdd2*x37 + x28*x35)
    x49 = m_d2*(qd1*(Dzd21*x38 - x35*x39) + qd2*(Dzd22*x38 - x19 - x36*zd2) + qdd2*x48 + x28*x38)
    Q_I[0] = -Dz11*x27 - Dz21*x29 - Dz21*x35*x41 - Dz21*x38*x49 - I_p1*qdd1 - x30*x32 - x33*x34 - x44*x47 - x50*x51
    Q_I[1] = -Dz12*x11*x32 - Dz12*x27 - Dz12*x34*x8 - Dz12*x42*x47 - Dz12*x45*x51 - Dz22*x29 - I_p2*qdd2 - x37*x41 - x48*x49
    D_m[0, 0] = iota1
    D_m[0, 1] = 0.0
    D_m[1, 0] = 0.0
    D_m[1, 1] = iota2
    D_psi[0, 0] = 1.0
    D_psi[0, 1] = 0.0
    D_psi[1, 0] = 0.0
    D_psi[1, 1] = -1.0
    D_psi[2, 0] = x52
    D_psi[2, 1] = -x53
    D_psi[3, 0] = -x54
    D_psi[3, 1] = -x55
    D_psi[4, 0] = x56
    D_psi[4, 1] = Dz12
    psid[0] = qd1
    psid[1] = -qd2
    psid[2] = -qd2*x53 - x3
    psid[3] = -qd1*x54 - qd2*x55
    psid[4] = qd1*x56 + x2
    return 0
