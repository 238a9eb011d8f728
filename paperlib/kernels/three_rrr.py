# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)
# Source:    paperlib/symbolic/three_rrr.py, paperlib/symbolic/closed_chain.py, paperlib/symbolic/emit.py, paperlib/codegen.py
# sympy 1.14.0; source digest 5b2424eaf51f6da4
# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.
#
# 3-RRR redundantly actuated planar parallel robot (paper 002, eqs. 1-37): the platform
# point p is the independent coordinate; the three RR chains' loop closures are
# differentiated implicitly and solved as three 2x2 blocks inside each kernel.
# Every kernel writes into preallocated arrays and returns a status (0 valid,
# 1 outside the workspace, 2 serial singularity of a chain). Compiled without numba's
# reference counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py).
#   positions                 36 operations after CSE
#   jacobians                102 operations after CSE
#   jacobian_rates           354 operations after CSE
#   mass_matrix              239 operations after CSE
#   coriolis_matrix          542 operations after CSE
#   inverse_dynamics         587 operations after CSE
#   dynamics_terms           694 operations after CSE
"""Generated numba kernels of the 3-RRR planar parallel robot (see header)."""

import math

import numba as nb

PARAM_NAMES = ('xD1', 'yD1', 'xD2', 'yD2', 'xD3', 'yD3', 'lD1', 'lD2', 'lD3', 'lB1', 'lB2', 'lB3', 'rD1', 'rD2', 'rD3', 'rB1', 'rB2', 'rB3', 'mD1', 'mD2', 'mD3', 'mB1', 'mB2', 'mB3', 'ID1', 'ID2', 'ID3', 'IB1', 'IB2', 'IB3', 'Ir1', 'Ir2', 'Ir3', 'm_p', 'sigma1', 'sigma2', 'sigma3')
N_PARAMS = 37
N_CHI = 20
N_DRIVES = 3
SINGULARITY_TOL = 1e-06
STATUS_OK = 0
STATUS_OUTSIDE = 1
STATUS_SINGULAR = 2


@nb.njit(cache=True, nogil=True, _nrt=False)
def positions(p, prm, chi):
    """Inverse position kinematics at the platform point p (2,) [m].

    Writes ``chi`` (20,): actuated angles th_1..3, distal angles thb_1..3 [rad], centres of mass of the
    driving links, of the passive links (x, y each) and p [m].
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    th1 = math.atan2(s1, c1)
    thb1 = math.atan2(sb1, cb1)
    th2 = math.atan2(s2, c2)
    thb2 = math.atan2(sb2, cb2)
    th3 = math.atan2(s3, c3)
    thb3 = math.atan2(sb3, cb3)
    chi[0] = th1
    chi[1] = th2
    chi[2] = th3
    chi[3] = thb1
    chi[4] = thb2
    chi[5] = thb3
    chi[6] = c1*rD1 + xD1
    chi[7] = rD1*s1 + yD1
    chi[8] = c2*rD2 + xD2
    chi[9] = rD2*s2 + yD2
    chi[10] = c3*rD3 + xD3
    chi[11] = rD3*s3 + yD3
    chi[12] = c1*lD1 + cb1*rB1 + xD1
    chi[13] = lD1*s1 + rB1*sb1 + yD1
    chi[14] = c2*lD2 + cb2*rB2 + xD2
    chi[15] = lD2*s2 + rB2*sb2 + yD2
    chi[16] = c3*lD3 + cb3*rB3 + xD3
    chi[17] = lD3*s3 + rB3*sb3 + yD3
    chi[18] = px
    chi[19] = py
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def jacobians(p, prm, D_chi):
    """Jacobian ``D_chi`` (20, 2) of chi with respect to p; rows 0-2 are the actuated
    Jacobian J_a [rad/m], rows 3-5 the passive one (together the paper's J, eq. 10).
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x6 = rD1*s1
    x7 = c1*rD1
    x8 = rD2*s2
    x9 = c2*rD2
    x10 = rD3*s3
    x11 = c3*rD3
    x12 = lD1*s1
    x13 = rB1*sb1
    x14 = c1*lD1
    x15 = cb1*rB1
    x16 = lD2*s2
    x17 = rB2*sb2
    x18 = c2*lD2
    x19 = cb2*rB2
    x20 = lD3*s3
    x21 = rB3*sb3
    x22 = c3*lD3
    x23 = cb3*rB3
    Dz11 = cb1*x0
    Dz12 = sb1*x0
    Dz21 = -c1*x1
    Dz22 = -s1*x1
    Dz31 = cb2*x2
    Dz32 = sb2*x2
    Dz41 = -c2*x3
    Dz42 = -s2*x3
    Dz51 = cb3*x4
    Dz52 = sb3*x4
    Dz61 = -c3*x5
    Dz62 = -s3*x5
    D_chi[0, 0] = Dz11
    D_chi[0, 1] = Dz12
    D_chi[1, 0] = Dz31
    D_chi[1, 1] = Dz32
    D_chi[2, 0] = Dz51
    D_chi[2, 1] = Dz52
    D_chi[3, 0] = Dz21
    D_chi[3, 1] = Dz22
    D_chi[4, 0] = Dz41
    D_chi[4, 1] = Dz42
    D_chi[5, 0] = Dz61
    D_chi[5, 1] = Dz62
    D_chi[6, 0] = -Dz11*x6
    D_chi[6, 1] = -Dz12*x6
    D_chi[7, 0] = Dz11*x7
    D_chi[7, 1] = Dz12*x7
    D_chi[8, 0] = -Dz31*x8
    D_chi[8, 1] = -Dz32*x8
    D_chi[9, 0] = Dz31*x9
    D_chi[9, 1] = Dz32*x9
    D_chi[10, 0] = -Dz51*x10
    D_chi[10, 1] = -Dz52*x10
    D_chi[11, 0] = Dz51*x11
    D_chi[11, 1] = Dz52*x11
    D_chi[12, 0] = -Dz11*x12 - Dz21*x13
    D_chi[12, 1] = -Dz12*x12 - Dz22*x13
    D_chi[13, 0] = Dz11*x14 + Dz21*x15
    D_chi[13, 1] = Dz12*x14 + Dz22*x15
    D_chi[14, 0] = -Dz31*x16 - Dz41*x17
    D_chi[14, 1] = -Dz32*x16 - Dz42*x17
    D_chi[15, 0] = Dz31*x18 + Dz41*x19
    D_chi[15, 1] = Dz32*x18 + Dz42*x19
    D_chi[16, 0] = -Dz51*x20 - Dz61*x21
    D_chi[16, 1] = -Dz52*x20 - Dz62*x21
    D_chi[17, 0] = Dz51*x22 + Dz61*x23
    D_chi[17, 1] = Dz52*x22 + Dz62*x23
    D_chi[18, 0] = 1.0
    D_chi[18, 1] = 0.0
    D_chi[19, 0] = 0.0
    D_chi[19, 1] = 1.0
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def jacobian_rates(p, pd, prm, Dd_chi):
    """Time derivative dD_chi/dt (20, 2) along the platform velocity pd (2,) [m/s].
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    pxd = pd[0]
    pyd = pd[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x12 = cb1*cb1
    x15 = sb1*sb1
    x21 = c1*cb1
    x22 = s1*sb1
    x23 = c1*c1
    x26 = s1*s1
    x34 = cb2*cb2
    x37 = sb2*sb2
    x43 = c2*cb2
    x44 = s2*sb2
    x45 = c2*c2
    x48 = s2*s2
    x56 = cb3*cb3
    x59 = sb3*sb3
    x65 = c3*cb3
    x66 = s3*sb3
    x67 = c3*c3
    x70 = s3*s3
    x78 = rB1*sb1
    x81 = rB2*sb2
    x84 = rB3*sb3
    Dz11 = cb1*x0
    Dz12 = sb1*x0
    Dz21 = -c1*x1
    Dz22 = -s1*x1
    Dz31 = cb2*x2
    Dz32 = sb2*x2
    Dz41 = -c2*x3
    Dz42 = -s2*x3
    Dz51 = cb3*x4
    Dz52 = sb3*x4
    Dz61 = -c3*x5
    Dz62 = -s3*x5
    zd1 = Dz11*pxd + Dz12*pyd
    x6 = c1*zd1
    x7 = Dz11*x6
    x8 = lD1*x7
    x9 = s1*zd1
    x10 = Dz11*x9
    x11 = lD1*x10
    x16 = Dz12*x6
    x17 = lD1*x16
    x18 = Dz12*x9
    x19 = lD1*x18
    x24 = lD1*zd1
    x25 = Dz11*x24
    x27 = Dz12*x24
    zd2 = Dz21*pxd + Dz22*pyd
    x13 = lB1*zd2
    x14 = Dz21*x13
    x20 = Dz22*x13
    x79 = cb1*rB1*zd2
    x80 = x78*zd2
    zd3 = Dz31*pxd + Dz32*pyd
    x28 = c2*zd3
    x29 = Dz31*x28
    x30 = lD2*x29
    x31 = s2*zd3
    x32 = Dz31*x31
    x33 = lD2*x32
    x38 = Dz32*x28
    x39 = lD2*x38
    x40 = Dz32*x31
    x41 = lD2*x40
    x46 = lD2*zd3
    x47 = Dz31*x46
    x49 = Dz32*x46
    zd4 = Dz41*pxd + Dz42*pyd
    x35 = lB2*zd4
    x36 = Dz41*x35
    x42 = Dz42*x35
    x82 = cb2*rB2*zd4
    x83 = x81*zd4
    zd5 = Dz51*pxd + Dz52*pyd
    x50 = c3*zd5
    x51 = Dz51*x50
    x52 = lD3*x51
    x53 = s3*zd5
    x54 = Dz51*x53
    x55 = lD3*x54
    x60 = Dz52*x50
    x61 = lD3*x60
    x62 = Dz52*x53
    x63 = lD3*x62
    x68 = lD3*zd5
    x69 = Dz51*x68
    x71 = Dz52*x68
    zd6 = Dz61*pxd + Dz62*pyd
    x57 = lB3*zd6
    x58 = Dz61*x57
    x64 = Dz62*x57
    x85 = cb3*rB3*zd6
    x86 = x84*zd6
    Dzd11 = x0*(cb1*x8 + sb1*x11 + x12*x14 + x14*x15)
    x72 = Dzd11*s1
    Dzd12 = x0*(cb1*x17 + sb1*x19 + x12*x20 + x15*x20)
    x73 = Dzd12*s1
    Dzd21 = -x1*(x14*x21 + x14*x22 + x23*x25 + x25*x26)
    Dzd22 = -x1*(x20*x21 + x20*x22 + x23*x27 + x26*x27)
    Dzd31 = x2*(cb2*x30 + sb2*x33 + x34*x36 + x36*x37)
    x74 = Dzd31*s2
    Dzd32 = x2*(cb2*x39 + sb2*x41 + x34*x42 + x37*x42)
    x75 = Dzd32*s2
    Dzd41 = -x3*(x36*x43 + x36*x44 + x45*x47 + x47*x48)
    Dzd42 = -x3*(x42*x43 + x42*x44 + x45*x49 + x48*x49)
    Dzd51 = x4*(cb3*x52 + sb3*x55 + x56*x58 + x58*x59)
    x76 = Dzd51*s3
    Dzd52 = x4*(cb3*x61 + sb3*x63 + x56*x64 + x59*x64)
    x77 = Dzd52*s3
    Dzd61 = -x5*(x58*x65 + x58*x66 + x67*x69 + x69*x70)
    Dzd62 = -x5*(x64*x65 + x64*x66 + x67*x71 + x70*x71)
    Dd_chi[0, 0] = Dzd11
    Dd_chi[0, 1] = Dzd12
    Dd_chi[1, 0] = Dzd31
    Dd_chi[1, 1] = Dzd32
    Dd_chi[2, 0] = Dzd51
    Dd_chi[2, 1] = Dzd52
    Dd_chi[3, 0] = Dzd21
    Dd_chi[3, 1] = Dzd22
    Dd_chi[4, 0] = Dzd41
    Dd_chi[4, 1] = Dzd42
    Dd_chi[5, 0] = Dzd61
    Dd_chi[5, 1] = Dzd62
    Dd_chi[6, 0] = -rD1*(x7 + x72)
    Dd_chi[6, 1] = -rD1*(x16 + x73)
    Dd_chi[7, 0] = rD1*(Dzd11*c1 - x10)
    Dd_chi[7, 1] = rD1*(Dzd12*c1 - x18)
    Dd_chi[8, 0] = -rD2*(x29 + x74)
    Dd_chi[8, 1] = -rD2*(x38 + x75)
    Dd_chi[9, 0] = rD2*(Dzd31*c2 - x32)
    Dd_chi[9, 1] = rD2*(Dzd32*c2 - x40)
    Dd_chi[10, 0] = -rD3*(x51 + x76)
    Dd_chi[10, 1] = -rD3*(x60 + x77)
    Dd_chi[11, 0] = rD3*(Dzd51*c3 - x54)
    Dd_chi[11, 1] = rD3*(Dzd52*c3 - x62)
    Dd_chi[12, 0] = -Dz21*x79 - Dzd21*x78 - lD1*x72 - x8
    Dd_chi[12, 1] = -Dz22*x79 - Dzd22*x78 - lD1*x73 - x17
    Dd_chi[13, 0] = -Dz21*x80 + Dzd11*c1*lD1 + Dzd21*cb1*rB1 - x11
    Dd_chi[13, 1] = -Dz22*x80 + Dzd12*c1*lD1 + Dzd22*cb1*rB1 - x19
    Dd_chi[14, 0] = -Dz41*x82 - Dzd41*x81 - lD2*x74 - x30
    Dd_chi[14, 1] = -Dz42*x82 - Dzd42*x81 - lD2*x75 - x39
    Dd_chi[15, 0] = -Dz41*x83 + Dzd31*c2*lD2 + Dzd41*cb2*rB2 - x33
    Dd_chi[15, 1] = -Dz42*x83 + Dzd32*c2*lD2 + Dzd42*cb2*rB2 - x41
    Dd_chi[16, 0] = -Dz61*x85 - Dzd61*x84 - lD3*x76 - x52
    Dd_chi[16, 1] = -Dz62*x85 - Dzd62*x84 - lD3*x77 - x61
    Dd_chi[17, 0] = -Dz61*x86 + Dzd51*c3*lD3 + Dzd61*cb3*rB3 - x55
    Dd_chi[17, 1] = -Dz62*x86 + Dzd52*c3*lD3 + Dzd62*cb3*rB3 - x63
    Dd_chi[18, 0] = 0.0
    Dd_chi[18, 1] = 0.0
    Dd_chi[19, 0] = 0.0
    Dd_chi[19, 1] = 0.0
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def mass_matrix(p, prm, M):
    """Platform mass matrix M_s (2, 2) [kg] of eq. 36, D_chi^T M* D_chi.
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x7 = ID1 + Ir1
    x9 = ID2 + Ir2
    x11 = ID3 + Ir3
    x12 = c1*c1
    x13 = mD1*rD1*rD1
    x15 = s1*s1
    x16 = c2*c2
    x17 = mD2*rD2*rD2
    x19 = s2*s2
    x20 = c3*c3
    x21 = mD3*rD3*rD3
    x23 = s3*s3
    Dz11 = cb1*x0
    x6 = Dz11*Dz11
    x14 = x13*x6
    x24 = Dz11*lD1
    Dz12 = sb1*x0
    x36 = Dz11*Dz12
    x39 = x13*x36
    x42 = Dz12*lD1
    x54 = Dz12*Dz12
    x57 = x13*x54
    Dz21 = -c1*x1
    x25 = Dz21*rB1
    x26 = c1*x24 + cb1*x25
    x27 = s1*x24 + sb1*x25
    Dz22 = -s1*x1
    x43 = Dz22*rB1
    x44 = c1*x42 + cb1*x43
    x45 = s1*x42 + sb1*x43
    Dz31 = cb2*x2
    x8 = Dz31*Dz31
    x18 = x17*x8
    x28 = Dz31*lD2
    Dz32 = sb2*x2
    x37 = Dz31*Dz32
    x40 = x17*x37
    x46 = Dz32*lD2
    x55 = Dz32*Dz32
    x58 = x17*x55
    Dz41 = -c2*x3
    x29 = Dz41*rB2
    x30 = c2*x28 + cb2*x29
    x31 = s2*x28 + sb2*x29
    Dz42 = -s2*x3
    x47 = Dz42*rB2
    x48 = c2*x46 + cb2*x47
    x49 = s2*x46 + sb2*x47
    Dz51 = cb3*x4
    x10 = Dz51*Dz51
    x22 = x10*x21
    x32 = Dz51*lD3
    Dz52 = sb3*x4
    x38 = Dz51*Dz52
    x41 = x21*x38
    x50 = Dz52*lD3
    x56 = Dz52*Dz52
    x59 = x21*x56
    Dz61 = -c3*x5
    x33 = Dz61*rB3
    x34 = c3*x32 + cb3*x33
    x35 = s3*x32 + sb3*x33
    Dz62 = -s3*x5
    x51 = Dz62*rB3
    x52 = c3*x50 + cb3*x51
    x53 = s3*x50 + sb3*x51
    M[0, 0] = Dz21*Dz21*IB1 + Dz41*Dz41*IB2 + Dz61*Dz61*IB3 + mB1*x26*x26 + mB1*x27*x27 + mB2*x30*x30 + mB2*x31*x31 + mB3*x34*x34 + mB3*x35*x35 + m_p + x10*x11 + x12*x14 + x14*x15 + x16*x18 + x18*x19 + x20*x22 + x22*x23 + x6*x7 + x8*x9
    M[0, 1] = Dz21*Dz22*IB1 + Dz41*Dz42*IB2 + Dz61*Dz62*IB3 + mB1*x26*x44 + mB1*x27*x45 + mB2*x30*x48 + mB2*x31*x49 + mB3*x34*x52 + mB3*x35*x53 + x11*x38 + x12*x39 + x15*x39 + x16*x40 + x19*x40 + x20*x41 + x23*x41 + x36*x7 + x37*x9
    M[1, 1] = Dz22*Dz22*IB1 + Dz42*Dz42*IB2 + Dz62*Dz62*IB3 + mB1*x44*x44 + mB1*x45*x45 + mB2*x48*x48 + mB2*x49*x49 + mB3*x52*x52 + mB3*x53*x53 + m_p + x11*x56 + x12*x57 + x15*x57 + x16*x58 + x19*x58 + x20*x59 + x23*x59 + x54*x7 + x55*x9
    M[1, 0] = M[0, 1]
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def coriolis_matrix(p, pd, prm, C):
    """Matrix C_s (2, 2) [kg/s] of eq. 36, D_chi^T M* dD_chi/dt.
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    pxd = pd[0]
    pyd = pd[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x11 = cb1*cb1
    x14 = sb1*sb1
    x21 = c1*cb1
    x22 = s1*sb1
    x23 = c1*c1
    x25 = s1*s1
    x32 = cb2*cb2
    x35 = sb2*sb2
    x42 = c2*cb2
    x43 = s2*sb2
    x44 = c2*c2
    x46 = s2*s2
    x53 = cb3*cb3
    x56 = sb3*sb3
    x63 = c3*cb3
    x64 = s3*sb3
    x65 = c3*c3
    x67 = s3*s3
    x72 = ID1 + Ir1
    x74 = ID2 + Ir2
    x76 = ID3 + Ir3
    x81 = mD1*rD1*rD1
    x87 = mD2*rD2*rD2
    x93 = mD3*rD3*rD3
    x105 = rB1*sb1
    x106 = cb1*rB1
    x111 = rB2*sb2
    x112 = cb2*rB2
    x117 = rB3*sb3
    x118 = cb3*rB3
    Dz11 = cb1*x0
    x6 = Dz11*lD1
    x7 = c1*x6
    x9 = s1*x6
    x73 = Dz11*x72
    x82 = Dz11*x81
    x83 = s1*x82
    x98 = c1*x82
    Dz12 = sb1*x0
    x156 = Dz12*x72
    x159 = Dz12*x81
    x160 = s1*x159
    x165 = c1*x159
    x168 = Dz12*lD1
    Dz21 = -c1*x1
    x69 = Dz21*IB1
    x107 = Dz21*x106
    x109 = Dz21*x105
    x110 = mB1*(x109 + x9)
    x124 = mB1*(x107 + x7)
    Dz22 = -s1*x1
    x141 = Dz22*x106
    x147 = Dz22*x105
    x153 = Dz22*IB1
    x169 = mB1*(s1*x168 + x147)
    x174 = mB1*(c1*x168 + x141)
    Dz31 = cb2*x2
    x27 = Dz31*lD2
    x28 = c2*x27
    x30 = s2*x27
    x75 = Dz31*x74
    x88 = Dz31*x87
    x89 = s2*x88
    x101 = c2*x88
    Dz32 = sb2*x2
    x157 = Dz32*x74
    x161 = Dz32*x87
    x162 = s2*x161
    x166 = c2*x161
    x170 = Dz32*lD2
    Dz41 = -c2*x3
    x70 = Dz41*IB2
    x113 = Dz41*x112
    x115 = Dz41*x111
    x116 = mB2*(x115 + x30)
    x126 = mB2*(x113 + x28)
    Dz42 = -s2*x3
    x143 = Dz42*x112
    x149 = Dz42*x111
    x154 = Dz42*IB2
    x171 = mB2*(s2*x170 + x149)
    x175 = mB2*(c2*x170 + x143)
    Dz51 = cb3*x4
    x48 = Dz51*lD3
    x49 = c3*x48
    x51 = s3*x48
    x77 = Dz51*x76
    x94 = Dz51*x93
    x95 = s3*x94
    x104 = c3*x94
    Dz52 = sb3*x4
    x158 = Dz52*x76
    x163 = Dz52*x93
    x164 = s3*x163
    x167 = c3*x163
    x172 = Dz52*lD3
    Dz61 = -c3*x5
    x71 = Dz61*IB3
    x119 = Dz61*x118
    x121 = Dz61*x117
    x122 = mB3*(x121 + x51)
    x128 = mB3*(x119 + x49)
    Dz62 = -s3*x5
    x145 = Dz62*x118
    x151 = Dz62*x117
    x155 = Dz62*IB3
    x173 = mB3*(s3*x172 + x151)
    x176 = mB3*(c3*x172 + x145)
    zd1 = Dz11*pxd + Dz12*pyd
    x8 = x7*zd1
    x10 = x9*zd1
    x15 = Dz12*zd1
    x16 = c1*x15
    x17 = lD1*x16
    x18 = s1*x15
    x19 = lD1*x18
    x24 = x6*zd1
    x26 = lD1*x15
    x79 = Dz11*zd1
    zd2 = Dz21*pxd + Dz22*pyd
    x12 = lB1*zd2
    x13 = Dz21*x12
    x20 = Dz22*x12
    zd3 = Dz31*pxd + Dz32*pyd
    x29 = x28*zd3
    x31 = x30*zd3
    x36 = Dz32*zd3
    x37 = c2*x36
    x38 = lD2*x37
    x39 = s2*x36
    x40 = lD2*x39
    x45 = x27*zd3
    x47 = lD2*x36
    x85 = Dz31*zd3
    zd4 = Dz41*pxd + Dz42*pyd
    x33 = lB2*zd4
    x34 = Dz41*x33
    x41 = Dz42*x33
    zd5 = Dz51*pxd + Dz52*pyd
    x50 = x49*zd5
    x52 = x51*zd5
    x57 = Dz52*zd5
    x58 = c3*x57
    x59 = lD3*x58
    x60 = s3*x57
    x61 = lD3*x60
    x66 = x48*zd5
    x68 = lD3*x57
    x91 = Dz51*zd5
    zd6 = Dz61*pxd + Dz62*pyd
    x54 = lB3*zd6
    x55 = Dz61*x54
    x62 = Dz62*x54
    Dzd11 = x0*(cb1*x8 + sb1*x10 + x11*x13 + x13*x14)
    x78 = Dzd11*s1
    x80 = c1*x79 + x78
    x96 = Dzd11*c1
    x97 = s1*x79 - x96
    Dzd12 = x0*(cb1*x17 + sb1*x19 + x11*x20 + x14*x20)
    x129 = Dzd12*s1
    x130 = x129 + x16
    x135 = Dzd12*c1
    x136 = -x135 + x18
    Dzd21 = -x1*(x13*x21 + x13*x22 + x23*x24 + x24*x25)
    x108 = Dzd21*x105 + lD1*x78 + x107*zd2 + x8
    x123 = -Dzd21*x106 - lD1*x96 + x10 + x109*zd2
    Dzd22 = -x1*(x20*x21 + x20*x22 + x23*x26 + x25*x26)
    x142 = Dzd22*x105 + lD1*x129 + x141*zd2 + x17
    x148 = -Dzd22*x106 - lD1*x135 + x147*zd2 + x19
    Dzd31 = x2*(cb2*x29 + sb2*x31 + x32*x34 + x34*x35)
    x84 = Dzd31*s2
    x86 = c2*x85 + x84
    x99 = Dzd31*c2
    x100 = s2*x85 - x99
    Dzd32 = x2*(cb2*x38 + sb2*x40 + x32*x41 + x35*x41)
    x131 = Dzd32*s2
    x132 = x131 + x37
    x137 = Dzd32*c2
    x138 = -x137 + x39
    Dzd41 = -x3*(x34*x42 + x34*x43 + x44*x45 + x45*x46)
    x114 = Dzd41*x111 + lD2*x84 + x113*zd4 + x29
    x125 = -Dzd41*x112 - lD2*x99 + x115*zd4 + x31
    Dzd42 = -x3*(x41*x42 + x41*x43 + x44*x47 + x46*x47)
    x144 = Dzd42*x111 + lD2*x131 + x143*zd4 + x38
    x150 = -Dzd42*x112 - lD2*x137 + x149*zd4 + x40
    Dzd51 = x4*(cb3*x50 + sb3*x52 + x53*x55 + x55*x56)
    x90 = Dzd51*s3
    x92 = c3*x91 + x90
    x102 = Dzd51*c3
    x103 = s3*x91 - x102
    Dzd52 = x4*(cb3*x59 + sb3*x61 + x53*x62 + x56*x62)
    x133 = Dzd52*s3
    x134 = x133 + x58
    x139 = Dzd52*c3
    x140 = -x139 + x60
    Dzd61 = -x5*(x55*x63 + x55*x64 + x65*x66 + x66*x67)
    x120 = Dzd61*x117 + lD3*x90 + x119*zd6 + x50
    x127 = -Dzd61*x118 - lD3*x102 + x121*zd6 + x52
    Dzd62 = -x5*(x62*x63 + x62*x64 + x65*x68 + x67*x68)
    x146 = Dzd62*x117 + lD3*x133 + x145*zd6 + x59
    x152 = -Dzd62*x118 - lD3*x139 + x151*zd6 + x61
    C[0, 0] = Dzd11*x73 + Dzd21*x69 + Dzd31*x75 + Dzd41*x70 + Dzd51*x77 + Dzd61*x71 - x100*x101 - x103*x104 + x108*x110 + x114*x116 + x120*x122 - x123*x124 - x125*x126 - x127*x128 + x80*x83 + x86*x89 + x92*x95 - x97*x98
    C[0, 1] = Dzd12*x73 + Dzd22*x69 + Dzd32*x75 + Dzd42*x70 + Dzd52*x77 + Dzd62*x71 - x101*x138 - x104*x140 + x110*x142 + x116*x144 + x122*x146 - x124*x148 - x126*x150 - x128*x152 + x130*x83 + x132*x89 + x134*x95 - x136*x98
    C[1, 0] = Dzd11*x156 + Dzd21*x153 + Dzd31*x157 + Dzd41*x154 + Dzd51*x158 + Dzd61*x155 - x100*x166 - x103*x167 + x108*x169 + x114*x171 + x120*x173 - x123*x174 - x125*x175 - x127*x176 + x160*x80 + x162*x86 + x164*x92 - x165*x97
    C[1, 1] = Dzd12*x156 + Dzd22*x153 + Dzd32*x157 + Dzd42*x154 + Dzd52*x158 + Dzd62*x155 + x130*x160 + x132*x162 + x134*x164 - x136*x165 - x138*x166 - x140*x167 + x142*x169 + x144*x171 + x146*x173 - x148*x174 - x150*x175 - x152*x176
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def inverse_dynamics(p, pd, pdd, prm, F, J_a, qd_a):
    """Platform force F = M_s pdd + C_s pd (2,) [N], the actuated Jacobian J_a (3, 2)
    [rad/m] and the drive rates qd_a = J_a pd (3,) [rad/s]; the minimum-norm drive
    torques of eq. 37 are (J_a^T)^+ F.
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    pxd = pd[0]
    pyd = pd[1]
    pxdd = pdd[0]
    pydd = pdd[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x9 = c1*lD1
    x12 = lD1*s1
    x15 = cb1*cb1
    x18 = sb1*sb1
    x24 = c1*cb1
    x25 = s1*sb1
    x26 = c1*c1
    x29 = s1*s1
    x31 = c2*lD2
    x34 = lD2*s2
    x37 = cb2*cb2
    x40 = sb2*sb2
    x46 = c2*cb2
    x47 = s2*sb2
    x48 = c2*c2
    x51 = s2*s2
    x53 = c3*lD3
    x56 = lD3*s3
    x59 = cb3*cb3
    x62 = sb3*sb3
    x68 = c3*cb3
    x69 = s3*sb3
    x70 = c3*c3
    x73 = s3*s3
    x87 = mD1*rD1*rD1
    x93 = mD2*rD2*rD2
    x99 = mD3*rD3*rD3
    x117 = rB1*sb1
    x122 = cb1*rB1
    x126 = rB2*sb2
    x131 = cb2*rB2
    x135 = rB3*sb3
    x140 = cb3*rB3
    Dz11 = cb1*x0
    x10 = Dz11*x9
    x13 = Dz11*x12
    x78 = Dz11*pxdd
    x88 = Dz11*x87
    Dz12 = sb1*x0
    x6 = Dz11*pxd + Dz12*pyd
    x19 = Dz12*x9
    x21 = Dz12*x12
    x79 = Dz12*pydd
    x153 = Dz12*x87
    Dz21 = -c1*x1
    x118 = Dz21*x117
    x119 = x118 + x13
    x123 = Dz21*x122
    x144 = x10 + x123
    Dz22 = -s1*x1
    x120 = Dz22*x117
    x121 = x120 + x21
    x124 = Dz22*x122
    x145 = x124 + x19
    Dz31 = cb2*x2
    x32 = Dz31*x31
    x35 = Dz31*x34
    x81 = Dz31*pxdd
    x94 = Dz31*x93
    Dz32 = sb2*x2
    x7 = Dz31*pxd + Dz32*pyd
    x41 = Dz32*x31
    x43 = Dz32*x34
    x82 = Dz32*pydd
    x154 = Dz32*x93
    Dz41 = -c2*x3
    x127 = Dz41*x126
    x128 = x127 + x35
    x132 = Dz41*x131
    x147 = x132 + x32
    Dz42 = -s2*x3
    x129 = Dz42*x126
    x130 = x129 + x43
    x133 = Dz42*x131
    x148 = x133 + x41
    Dz51 = cb3*x4
    x54 = Dz51*x53
    x57 = Dz51*x56
    x84 = Dz51*pxdd
    x100 = Dz51*x99
    Dz52 = sb3*x4
    x8 = Dz51*pxd + Dz52*pyd
    x63 = Dz52*x53
    x65 = Dz52*x56
    x85 = Dz52*pydd
    x155 = Dz52*x99
    Dz61 = -c3*x5
    x136 = Dz61*x135
    x137 = x136 + x57
    x141 = Dz61*x140
    x150 = x141 + x54
    Dz62 = -s3*x5
    x138 = Dz62*x135
    x139 = x138 + x65
    x142 = Dz62*x140
    x151 = x142 + x63
    zd1 = x6
    x11 = x10*zd1
    x14 = x13*zd1
    x20 = x19*zd1
    x22 = x21*zd1
    x27 = lD1*zd1
    x28 = Dz11*x27
    x30 = Dz12*x27
    x90 = c1*zd1
    x106 = s1*zd1
    zd2 = Dz21*pxd + Dz22*pyd
    x16 = lB1*zd2
    x17 = Dz21*x16
    x23 = Dz22*x16
    zd3 = x7
    x33 = x32*zd3
    x36 = x35*zd3
    x42 = x41*zd3
    x44 = x43*zd3
    x49 = lD2*zd3
    x50 = Dz31*x49
    x52 = Dz32*x49
    x96 = c2*zd3
    x110 = s2*zd3
    zd4 = Dz41*pxd + Dz42*pyd
    x38 = lB2*zd4
    x39 = Dz41*x38
    x45 = Dz42*x38
    zd5 = x8
    x55 = x54*zd5
    x58 = x57*zd5
    x64 = x63*zd5
    x66 = x65*zd5
    x71 = lD3*zd5
    x72 = Dz51*x71
    x74 = Dz52*x71
    x102 = c3*zd5
    x114 = s3*zd5
    zd6 = Dz61*pxd + Dz62*pyd
    x60 = lB3*zd6
    x61 = Dz61*x60
    x67 = Dz62*x60
    Dzd11 = x0*(cb1*x11 + sb1*x14 + x15*x17 + x17*x18)
    x89 = Dzd11*s1
    x105 = Dzd11*c1
    Dzd12 = x0*(cb1*x20 + sb1*x22 + x15*x23 + x18*x23)
    x80 = (ID1 + Ir1)*(Dzd11*pxd + Dzd12*pyd + x78 + x79)
    x91 = Dzd12*s1
    x92 = s1*(pxd*(Dz11*x90 + x89) + pyd*(Dz12*x90 + x91) + s1*x78 + s1*x79)
    x107 = Dzd12*c1
    x108 = c1*(c1*x78 + c1*x79 - pxd*(Dz11*x106 - x105) - pyd*(Dz12*x106 - x107))
    Dzd21 = -x1*(x17*x24 + x17*x25 + x26*x28 + x28*x29)
    Dzd22 = -x1*(x23*x24 + x23*x25 + x26*x30 + x29*x30)
    x75 = IB1*(Dz21*pxdd + Dz22*pydd + Dzd21*pxd + Dzd22*pyd)
    x125 = mB1*(pxd*(Dzd21*x117 + lD1*x89 + x11 + x123*zd2) + pxdd*x119 + pyd*(Dzd22*x117 + lD1*x91 + x124*zd2 + x20) + pydd*x121)
    x146 = mB1*(pxd*(-Dzd21*x122 - lD1*x105 + x118*zd2 + x14) - pxdd*x144 + pyd*(-Dzd22*x122 - lD1*x107 + x120*zd2 + x22) - pydd*x145)
    Dzd31 = x2*(cb2*x33 + sb2*x36 + x37*x39 + x39*x40)
    x95 = Dzd31*s2
    x109 = Dzd31*c2
    Dzd32 = x2*(cb2*x42 + sb2*x44 + x37*x45 + x40*x45)
    x83 = (ID2 + Ir2)*(Dzd31*pxd + Dzd32*pyd + x81 + x82)
    x97 = Dzd32*s2
    x98 = s2*(pxd*(Dz31*x96 + x95) + pyd*(Dz32*x96 + x97) + s2*x81 + s2*x82)
    x111 = Dzd32*c2
    x112 = c2*(c2*x81 + c2*x82 - pxd*(Dz31*x110 - x109) - pyd*(Dz32*x110 - x111))
    Dzd41 = -x3*(x39*x46 + x39*x47 + x48*x50 + x50*x51)
    Dzd42 = -x3*(x45*x46 + x45*x47 + x48*x52 + x51*x52)
    x76 = IB2*(Dz41*pxdd + Dz42*pydd + Dzd41*pxd + Dzd42*pyd)
    x134 = mB2*(pxd*(Dzd41*x126 + lD2*x95 + x132*zd4 + x33) + pxdd*x128 + pyd*(Dzd42*x126 + lD2*x97 + x133*zd4 + x42) + pydd*x130)
    x149 = mB2*(pxd*(-Dzd41*x131 - lD2*x109 + x127*zd4 + x36) - pxdd*x147 + pyd*(-Dzd42*x131 - lD2*x111 + x129*zd4 + x44) - pydd*x148)
    Dzd51 = x4*(cb3*x55 + sb3*x58 + x59*x61 + x61*x62)
    x101 = Dzd51*s3
    x113 = Dzd51*c3
    Dzd52 = x4*(cb3*x64 + sb3*x66 + x59*x67 + x62*x67)
    x86 = (ID3 + Ir3)*(Dzd51*pxd + Dzd52*pyd + x84 + x85)
    x103 = Dzd52*s3
    x104 = s3*(pxd*(Dz51*x102 + x101) + pyd*(Dz52*x102 + x103) + s3*x84 + s3*x85)
    x115 = Dzd52*c3
    x116 = c3*(c3*x84 + c3*x85 - pxd*(Dz51*x114 - x113) - pyd*(Dz52*x114 - x115))
    Dzd61 = -x5*(x61*x68 + x61*x69 + x70*x72 + x72*x73)
    Dzd62 = -x5*(x67*x68 + x67*x69 + x70*x74 + x73*x74)
    x77 = IB3*(Dz61*pxdd + Dz62*pydd + Dzd61*pxd + Dzd62*pyd)
    x143 = mB3*(pxd*(Dzd61*x135 + lD3*x101 + x141*zd6 + x55) + pxdd*x137 + pyd*(Dzd62*x135 + lD3*x103 + x142*zd6 + x64) + pydd*x139)
    x152 = mB3*(pxd*(-Dzd61*x140 - lD3*x113 + x136*zd6 + x58) - pxdd*x150 + pyd*(-Dzd62*x140 - lD3*x115 + x138*zd6 + x66) - pydd*x151)
    F[0] = Dz11*x80 + Dz21*x75 + Dz31*x83 + Dz41*x76 + Dz51*x86 + Dz61*x77 + m_p*pxdd + x100*x104 + x100*x116 + x108*x88 + x112*x94 + x119*x125 + x128*x134 + x137*x143 - x144*x146 - x147*x149 - x150*x152 + x88*x92 + x94*x98
    F[1] = Dz12*x80 + Dz22*x75 + Dz32*x83 + Dz42*x76 + Dz52*x86 + Dz62*x77 + m_p*pydd + x104*x155 + x108*x153 + x112*x154 + x116*x155 + x121*x125 + x130*x134 + x139*x143 - x145*x146 - x148*x149 - x151*x152 + x153*x92 + x154*x98
    J_a[0, 0] = Dz11
    J_a[0, 1] = Dz12
    J_a[1, 0] = Dz31
    J_a[1, 1] = Dz32
    J_a[2, 0] = Dz51
    J_a[2, 1] = Dz52
    qd_a[0] = x6
    qd_a[1] = x7
    qd_a[2] = x8
    return 0


@nb.njit(cache=True, nogil=True, _nrt=False)
def dynamics_terms(p, pd, prm, M, Cpd, J_a, qd_a):
    """Forward-dynamics terms: M_s (2, 2) [kg], Cpd = C_s pd (2,) [N], J_a (3, 2) [rad/m],
    qd_a = J_a pd (3,) [rad/s]; M_s pdd = J_a^T (tau - tau_F) - C_s pd.
    Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), 2 at a serial singularity (a chain stretched or folded)."""
    px = p[0]
    py = p[1]
    pxd = pd[0]
    pyd = pd[1]
    xD1 = prm[0]
    yD1 = prm[1]
    xD2 = prm[2]
    yD2 = prm[3]
    xD3 = prm[4]
    yD3 = prm[5]
    lD1 = prm[6]
    lD2 = prm[7]
    lD3 = prm[8]
    lB1 = prm[9]
    lB2 = prm[10]
    lB3 = prm[11]
    rD1 = prm[12]
    rD2 = prm[13]
    rD3 = prm[14]
    rB1 = prm[15]
    rB2 = prm[16]
    rB3 = prm[17]
    mD1 = prm[18]
    mD2 = prm[19]
    mD3 = prm[20]
    mB1 = prm[21]
    mB2 = prm[22]
    mB3 = prm[23]
    ID1 = prm[24]
    ID2 = prm[25]
    ID3 = prm[26]
    IB1 = prm[27]
    IB2 = prm[28]
    IB3 = prm[29]
    Ir1 = prm[30]
    Ir2 = prm[31]
    Ir3 = prm[32]
    m_p = prm[33]
    sigma1 = prm[34]
    sigma2 = prm[35]
    sigma3 = prm[36]
    dx1 = px - xD1
    dy1 = py - yD1
    dd1 = dx1*dx1 + dy1*dy1
    if dd1 <= 0.0:
        return 1
    rr1 = math.sqrt(dd1)
    aa1 = (lD1*lD1 - lB1*lB1 + dd1)/(2.0*rr1)
    hh1 = lD1*lD1 - aa1*aa1
    if hh1 < 0.0:
        return 1  # chain 1 cannot reach p: outside the workspace
    hi1 = math.sqrt(hh1)
    bx1 = xD1 + (aa1*dx1 - sigma1*hi1*dy1)/rr1
    by1 = yD1 + (aa1*dy1 + sigma1*hi1*dx1)/rr1
    c1 = (bx1 - xD1)/lD1
    s1 = (by1 - yD1)/lD1
    cb1 = (px - bx1)/lB1
    sb1 = (py - by1)/lB1
    det1 = lD1*lB1*(sb1*c1 - s1*cb1)  # det of block 1: lD lB sin(thb - th)
    if abs(det1) < 1e-06*lD1*lB1:
        return 2  # chain 1 stretched or folded: serial singularity
    idet1 = 1.0/det1
    dx2 = px - xD2
    dy2 = py - yD2
    dd2 = dx2*dx2 + dy2*dy2
    if dd2 <= 0.0:
        return 1
    rr2 = math.sqrt(dd2)
    aa2 = (lD2*lD2 - lB2*lB2 + dd2)/(2.0*rr2)
    hh2 = lD2*lD2 - aa2*aa2
    if hh2 < 0.0:
        return 1  # chain 2 cannot reach p: outside the workspace
    hi2 = math.sqrt(hh2)
    bx2 = xD2 + (aa2*dx2 - sigma2*hi2*dy2)/rr2
    by2 = yD2 + (aa2*dy2 + sigma2*hi2*dx2)/rr2
    c2 = (bx2 - xD2)/lD2
    s2 = (by2 - yD2)/lD2
    cb2 = (px - bx2)/lB2
    sb2 = (py - by2)/lB2
    det2 = lD2*lB2*(sb2*c2 - s2*cb2)  # det of block 2: lD lB sin(thb - th)
    if abs(det2) < 1e-06*lD2*lB2:
        return 2  # chain 2 stretched or folded: serial singularity
    idet2 = 1.0/det2
    dx3 = px - xD3
    dy3 = py - yD3
    dd3 = dx3*dx3 + dy3*dy3
    if dd3 <= 0.0:
        return 1
    rr3 = math.sqrt(dd3)
    aa3 = (lD3*lD3 - lB3*lB3 + dd3)/(2.0*rr3)
    hh3 = lD3*lD3 - aa3*aa3
    if hh3 < 0.0:
        return 1  # chain 3 cannot reach p: outside the workspace
    hi3 = math.sqrt(hh3)
    bx3 = xD3 + (aa3*dx3 - sigma3*hi3*dy3)/rr3
    by3 = yD3 + (aa3*dy3 + sigma3*hi3*dx3)/rr3
    c3 = (bx3 - xD3)/lD3
    s3 = (by3 - yD3)/lD3
    cb3 = (px - bx3)/lB3
    sb3 = (py - by3)/lB3
    det3 = lD3*lB3*(sb3*c3 - s3*cb3)  # det of block 3: lD lB sin(thb - th)
    if abs(det3) < 1e-06*lD3*lB3:
        return 2  # chain 3 stretched or folded: serial singularity
    idet3 = 1.0/det3
    x0 = idet1*lB1
    x1 = idet1*lD1
    x2 = idet2*lB2
    x3 = idet2*lD2
    x4 = idet3*lB3
    x5 = idet3*lD3
    x14 = cb1*cb1
    x17 = sb1*sb1
    x24 = c1*cb1
    x25 = s1*sb1
    x26 = c1*c1
    x28 = s1*s1
    x35 = cb2*cb2
    x38 = sb2*sb2
    x45 = c2*cb2
    x46 = s2*sb2
    x47 = c2*c2
    x49 = s2*s2
    x56 = cb3*cb3
    x59 = sb3*sb3
    x66 = c3*cb3
    x67 = s3*sb3
    x68 = c3*c3
    x70 = s3*s3
    x73 = ID1 + Ir1
    x75 = ID2 + Ir2
    x77 = ID3 + Ir3
    x78 = mD1*rD1*rD1
    x80 = mD2*rD2*rD2
    x82 = mD3*rD3*rD3
    Dz11 = cb1*x0
    x9 = Dz11*lD1
    x10 = c1*x9
    x12 = s1*x9
    x72 = Dz11*Dz11
    x79 = x72*x78
    x102 = Dz11*x73
    x105 = Dz11*x78
    x141 = s1*x105
    x152 = c1*x105
    Dz12 = sb1*x0
    x6 = Dz11*pxd + Dz12*pyd
    x18 = Dz12*lD1
    x19 = c1*x18
    x21 = s1*x18
    x106 = Dz12*x105
    x132 = Dz12*Dz12
    x135 = x132*x78
    x195 = Dz12*x73
    x198 = Dz12*x78
    x199 = s1*x198
    x204 = c1*x198
    Dz21 = -c1*x1
    x84 = Dz21*rB1
    x85 = cb1*x84
    x86 = x10 + x85
    x87 = sb1*x84
    x88 = x12 + x87
    x99 = Dz21*IB1
    x114 = mB1*x86
    x117 = mB1*x88
    Dz22 = -s1*x1
    x111 = Dz22*rB1
    x112 = cb1*x111
    x113 = x112 + x19
    x115 = sb1*x111
    x116 = x115 + x21
    x192 = Dz22*IB1
    x207 = mB1*x116
    x210 = mB1*x113
    Dz31 = cb2*x2
    x30 = Dz31*lD2
    x31 = c2*x30
    x33 = s2*x30
    x74 = Dz31*Dz31
    x81 = x74*x80
    x103 = Dz31*x75
    x107 = Dz31*x80
    x145 = s2*x107
    x155 = c2*x107
    Dz32 = sb2*x2
    x7 = Dz31*pxd + Dz32*pyd
    x39 = Dz32*lD2
    x40 = c2*x39
    x42 = s2*x39
    x108 = Dz32*x107
    x133 = Dz32*Dz32
    x136 = x133*x80
    x196 = Dz32*x75
    x200 = Dz32*x80
    x201 = s2*x200
    x205 = c2*x200
    Dz41 = -c2*x3
    x89 = Dz41*rB2
    x90 = cb2*x89
    x91 = x31 + x90
    x92 = sb2*x89
    x93 = x33 + x92
    x100 = Dz41*IB2
    x121 = mB2*x91
    x124 = mB2*x93
    Dz42 = -s2*x3
    x118 = Dz42*rB2
    x119 = cb2*x118
    x120 = x119 + x40
    x122 = sb2*x118
    x123 = x122 + x42
    x193 = Dz42*IB2
    x208 = mB2*x123
    x211 = mB2*x120
    Dz51 = cb3*x4
    x51 = Dz51*lD3
    x52 = c3*x51
    x54 = s3*x51
    x76 = Dz51*Dz51
    x83 = x76*x82
    x104 = Dz51*x77
    x109 = Dz51*x82
    x149 = s3*x109
    x158 = c3*x109
    Dz52 = sb3*x4
    x8 = Dz51*pxd + Dz52*pyd
    x60 = Dz52*lD3
    x61 = c3*x60
    x63 = s3*x60
    x110 = Dz52*x109
    x134 = Dz52*Dz52
    x137 = x134*x82
    x197 = Dz52*x77
    x202 = Dz52*x82
    x203 = s3*x202
    x206 = c3*x202
    Dz61 = -c3*x5
    x94 = Dz61*rB3
    x95 = cb3*x94
    x96 = x52 + x95
    x97 = sb3*x94
    x98 = x54 + x97
    x101 = Dz61*IB3
    x128 = mB3*x96
    x131 = mB3*x98
    Dz62 = -s3*x5
    x125 = Dz62*rB3
    x126 = cb3*x125
    x127 = x126 + x61
    x129 = sb3*x125
    x130 = x129 + x63
    x194 = Dz62*IB3
    x209 = mB3*x130
    x212 = mB3*x127
    zd1 = x6
    x11 = x10*zd1
    x13 = x12*zd1
    x20 = x19*zd1
    x22 = x21*zd1
    x27 = x9*zd1
    x29 = x18*zd1
    x139 = Dz11*zd1
    x169 = Dz12*zd1
    zd2 = Dz21*pxd + Dz22*pyd
    x15 = lB1*zd2
    x16 = Dz21*x15
    x23 = Dz22*x15
    zd3 = x7
    x32 = x31*zd3
    x34 = x33*zd3
    x41 = x40*zd3
    x43 = x42*zd3
    x48 = x30*zd3
    x50 = x39*zd3
    x143 = Dz31*zd3
    x172 = Dz32*zd3
    zd4 = Dz41*pxd + Dz42*pyd
    x36 = lB2*zd4
    x37 = Dz41*x36
    x44 = Dz42*x36
    zd5 = x8
    x53 = x52*zd5
    x55 = x54*zd5
    x62 = x61*zd5
    x64 = x63*zd5
    x69 = x51*zd5
    x71 = x60*zd5
    x147 = Dz51*zd5
    x175 = Dz52*zd5
    zd6 = Dz61*pxd + Dz62*pyd
    x57 = lB3*zd6
    x58 = Dz61*x57
    x65 = Dz62*x57
    Dzd11 = x0*(cb1*x11 + sb1*x13 + x14*x16 + x16*x17)
    x138 = Dzd11*s1
    x140 = c1*x139 + x138
    x150 = Dzd11*c1
    x151 = s1*x139 - x150
    Dzd12 = x0*(cb1*x20 + sb1*x22 + x14*x23 + x17*x23)
    x168 = Dzd12*s1
    x170 = c1*x169 + x168
    x177 = Dzd12*c1
    x178 = s1*x169 - x177
    Dzd21 = -x1*(x16*x24 + x16*x25 + x26*x27 + x27*x28)
    x159 = Dzd21*rB1
    x160 = lD1*x138 + sb1*x159 + x11 + x85*zd2
    x165 = -cb1*x159 - lD1*x150 + x13 + x87*zd2
    Dzd22 = -x1*(x23*x24 + x23*x25 + x26*x29 + x28*x29)
    x183 = Dzd22*rB1
    x184 = lD1*x168 + sb1*x183 + x112*zd2 + x20
    x189 = -cb1*x183 - lD1*x177 + x115*zd2 + x22
    Dzd31 = x2*(cb2*x32 + sb2*x34 + x35*x37 + x37*x38)
    x142 = Dzd31*s2
    x144 = c2*x143 + x142
    x153 = Dzd31*c2
    x154 = s2*x143 - x153
    Dzd32 = x2*(cb2*x41 + sb2*x43 + x35*x44 + x38*x44)
    x171 = Dzd32*s2
    x173 = c2*x172 + x171
    x179 = Dzd32*c2
    x180 = s2*x172 - x179
    Dzd41 = -x3*(x37*x45 + x37*x46 + x47*x48 + x48*x49)
    x161 = Dzd41*rB2
    x162 = lD2*x142 + sb2*x161 + x32 + x90*zd4
    x166 = -cb2*x161 - lD2*x153 + x34 + x92*zd4
    Dzd42 = -x3*(x44*x45 + x44*x46 + x47*x50 + x49*x50)
    x185 = Dzd42*rB2
    x186 = lD2*x171 + sb2*x185 + x119*zd4 + x41
    x190 = -cb2*x185 - lD2*x179 + x122*zd4 + x43
    Dzd51 = x4*(cb3*x53 + sb3*x55 + x56*x58 + x58*x59)
    x146 = Dzd51*s3
    x148 = c3*x147 + x146
    x156 = Dzd51*c3
    x157 = s3*x147 - x156
    Dzd52 = x4*(cb3*x62 + sb3*x64 + x56*x65 + x59*x65)
    x174 = Dzd52*s3
    x176 = c3*x175 + x174
    x181 = Dzd52*c3
    x182 = s3*x175 - x181
    Dzd61 = -x5*(x58*x66 + x58*x67 + x68*x69 + x69*x70)
    x163 = Dzd61*rB3
    x164 = lD3*x146 + sb3*x163 + x53 + x95*zd6
    x167 = -cb3*x163 - lD3*x156 + x55 + x97*zd6
    Dzd62 = -x5*(x65*x66 + x65*x67 + x68*x71 + x70*x71)
    x187 = Dzd62*rB3
    x188 = lD3*x174 + sb3*x187 + x126*zd6 + x62
    x191 = -cb3*x187 - lD3*x181 + x129*zd6 + x64
    M[0, 0] = Dz21*Dz21*IB1 + Dz41*Dz41*IB2 + Dz61*Dz61*IB3 + mB1*x86*x86 + mB1*x88*x88 + mB2*x91*x91 + mB2*x93*x93 + mB3*x96*x96 + mB3*x98*x98 + m_p + x26*x79 + x28*x79 + x47*x81 + x49*x81 + x68*x83 + x70*x83 + x72*x73 + x74*x75 + x76*x77
    M[0, 1] = Dz12*x102 + Dz22*x99 + Dz32*x103 + Dz42*x100 + Dz52*x104 + Dz62*x101 + x106*x26 + x106*x28 + x108*x47 + x108*x49 + x110*x68 + x110*x70 + x113*x114 + x116*x117 + x120*x121 + x123*x124 + x127*x128 + x130*x131
    M[1, 1] = Dz22*Dz22*IB1 + Dz42*Dz42*IB2 + Dz62*Dz62*IB3 + mB1*x113*x113 + mB1*x116*x116 + mB2*x120*x120 + mB2*x123*x123 + mB3*x127*x127 + mB3*x130*x130 + m_p + x132*x73 + x133*x75 + x134*x77 + x135*x26 + x135*x28 + x136*x47 + x136*x49 + x137*x68 + x137*x70
    M[1, 0] = M[0, 1]
    Cpd[0] = pxd*(Dzd11*x102 + Dzd21*x99 + Dzd31*x103 + Dzd41*x100 + Dzd51*x104 + Dzd61*x101 - x114*x165 + x117*x160 - x121*x166 + x124*x162 - x128*x167 + x131*x164 + x140*x141 + x144*x145 + x148*x149 - x151*x152 - x154*x155 - x157*x158) + pyd*(Dzd12*x102 + Dzd22*x99 + Dzd32*x103 + Dzd42*x100 + Dzd52*x104 + Dzd62*x101 - x114*x189 + x117*x184 - x121*x190 + x124*x186 - x128*x191 + x131*x188 + x141*x170 + x145*x173 + x149*x176 - x152*x178 - x155*x180 - x158*x182)
    Cpd[1] = pxd*(Dzd11*x195 + Dzd21*x192 + Dzd31*x196 + Dzd41*x193 + Dzd51*x197 + Dzd61*x194 + x140*x199 + x144*x201 + x148*x203 - x151*x204 - x154*x205 - x157*x206 + x160*x207 + x162*x208 + x164*x209 - x165*x210 - x166*x211 - x167*x212) + pyd*(Dzd12*x195 + Dzd22*x192 + Dzd32*x196 + Dzd42*x193 + Dzd52*x197 + Dzd62*x194 + x170*x199 + x173*x201 + x176*x203 - x178*x204 - x180*x205 - x182*x206 + x184*x207 + x186*x208 + x188*x209 - x189*x210 - x190*x211 - x191*x212)
    J_a[0, 0] = Dz11
    J_a[0, 1] = Dz12
    J_a[1, 0] = Dz31
    J_a[1, 1] = Dz32
    J_a[2, 0] = Dz51
    J_a[2, 1] = Dz52
    qd_a[0] = x6
    qd_a[1] = x7
    qd_a[2] = x8
    return 0
