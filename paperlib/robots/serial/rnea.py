"""Compiled Newton-Euler numerics of a serial arm (numba): inertial regressor, inverse and forward dynamics.

Geometry arguments as in :class:`paperlib.robots.serial.SerialArm`: joint placements ``R0``
(n, 3, 3) and ``p0`` (n, 3) [m], unit joint axes ``axes`` (n, 3) in their own frames, world
``gravity`` (3,) [m/s^2]; ``inertial`` (n, 10) the standard parameters of each body
(:mod:`paperlib.robots.serial.spatial`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["inertial_regressor", "regressor_many", "rnea"]


@nb.njit(cache=True)
def _rot_axis(axis, q):  # pragma: no cover - compiled
    c, s = np.cos(q), np.sin(q)
    x, y, z = axis[0], axis[1], axis[2]
    C = 1.0 - c
    R = np.empty((3, 3))
    R[0, 0] = c + x * x * C
    R[0, 1] = x * y * C - z * s
    R[0, 2] = x * z * C + y * s
    R[1, 0] = y * x * C + z * s
    R[1, 1] = c + y * y * C
    R[1, 2] = y * z * C - x * s
    R[2, 0] = z * x * C - y * s
    R[2, 1] = z * y * C + x * s
    R[2, 2] = c + z * z * C
    return R


@nb.njit(cache=True)
def _cross(a, b):  # pragma: no cover - compiled
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@nb.njit(cache=True)
def _forward(q, qd, qdd, R0, p0, axes, gravity):  # pragma: no cover - compiled
    """Joint rotations and, in each joint frame, w, dw/dt and the origin's acceleration minus g."""
    n = q.shape[0]
    R = np.empty((n, 3, 3))
    W = np.empty((n, 3))
    WD = np.empty((n, 3))
    A = np.empty((n, 3))
    w_p = np.zeros(3)
    wd_p = np.zeros(3)
    a_p = -gravity.copy()
    for i in range(n):
        Ri = R0[i] @ _rot_axis(axes[i], q[i])
        R[i] = Ri
        z = axes[i]
        p = p0[i]
        a_lin = a_p + _cross(wd_p, p) + _cross(w_p, _cross(w_p, p))
        RT = Ri.T.copy()
        w_in = RT @ w_p
        W[i] = w_in + z * qd[i]
        WD[i] = RT @ wd_p + _cross(w_in, z * qd[i]) + z * qdd[i]
        A[i] = RT @ a_lin
        w_p = W[i]
        wd_p = WD[i]
        a_p = A[i]
    return R, W, WD, A


@nb.njit(cache=True)
def _body_block(w, wd, a):  # pragma: no cover - compiled
    """6x10 map from the 10 parameters to (force, moment about the origin), in the body frame."""
    B = np.zeros((6, 10))
    # force: m a + wd x h + w x (w x h)
    for r in range(3):
        B[r, 0] = a[r]
    K = np.zeros((3, 3))
    K[0, 1], K[0, 2] = -wd[2], wd[1]
    K[1, 0], K[1, 2] = wd[2], -wd[0]
    K[2, 0], K[2, 1] = -wd[1], wd[0]
    wx, wy, wz = w[0], w[1], w[2]
    # S(w)^2 = w w^T - |w|^2 1
    n2 = wx * wx + wy * wy + wz * wz
    for r in range(3):
        for c in range(3):
            K[r, c] += w[r] * w[c] - (n2 if r == c else 0.0)
            B[r, 1 + c] = K[r, c]
    # moment: h x a = -a x h
    B[3, 2], B[3, 3] = a[2], -a[1]
    B[4, 1], B[4, 3] = -a[2], a[0]
    B[5, 1], B[5, 2] = a[1], -a[0]
    # I wd + w x (I w), I = [[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]], columns XX XY YY XZ YZ ZZ
    L = np.zeros((3, 6))
    L[0, 0], L[0, 1], L[0, 3] = wd[0], wd[1], wd[2]
    L[1, 1], L[1, 2], L[1, 4] = wd[0], wd[1], wd[2]
    L[2, 3], L[2, 4], L[2, 5] = wd[0], wd[1], wd[2]
    Lw = np.zeros((3, 6))
    Lw[0, 0], Lw[0, 1], Lw[0, 3] = wx, wy, wz
    Lw[1, 1], Lw[1, 2], Lw[1, 4] = wx, wy, wz
    Lw[2, 3], Lw[2, 4], Lw[2, 5] = wx, wy, wz
    for c in range(6):
        v = _cross(w, Lw[:, c].copy())
        for r in range(3):
            B[3 + r, 4 + c] = L[r, c] + v[r]
    return B


@nb.njit(cache=True)
def inertial_regressor(q, qd, qdd, R0, p0, axes, gravity, Y):  # pragma: no cover - compiled
    """Joint torque regressor of the inertial parameters for one state (Newton-Euler).

    Parameters
    ----------
    q, qd, qdd : ndarray, shape (n,)
        Joint angles [rad], velocities [rad/s], accelerations [rad/s^2].
    R0 : ndarray, shape (n, 3, 3)
        Joint placements' rotations (parent joint frame <- joint frame at q = 0).
    p0 : ndarray, shape (n, 3)
        Joint placements' translations, in the parent joint frame [m].
    axes : ndarray, shape (n, 3)
        Unit joint axes in their own frames.
    gravity : ndarray, shape (3,)
        Gravity in the world frame [m/s^2].
    Y : ndarray, shape (n, 10 n)
        Output, overwritten [N m per parameter unit].
    """
    n = q.shape[0]
    R, W, WD, A = _forward(q, qd, qdd, R0, p0, axes, gravity)
    Y[:, :] = 0.0
    for k in range(n):
        B = _body_block(W[k], WD[k], A[k])
        F = B[:3].copy()
        N = B[3:].copy()
        j = k
        while True:
            z = axes[j]
            for c in range(10):
                Y[j, 10 * k + c] = z[0] * N[0, c] + z[1] * N[1, c] + z[2] * N[2, c]
            if j == 0:
                break
            # carry the wrench to the parent's frame: F' = R F, N' = R N + p x F'
            Rj = R[j]
            p = p0[j]
            F2 = Rj @ F
            N2 = Rj @ N
            for c in range(10):
                N2[0, c] += p[1] * F2[2, c] - p[2] * F2[1, c]
                N2[1, c] += p[2] * F2[0, c] - p[0] * F2[2, c]
                N2[2, c] += p[0] * F2[1, c] - p[1] * F2[0, c]
            F = F2
            N = N2
            j -= 1


@nb.njit(cache=True)
def regressor_many(Q, QD, QDD, R0, p0, axes, gravity, Y):  # pragma: no cover - compiled
    """:func:`inertial_regressor` for N states: ``Q`` etc. (N, n), ``Y`` (N, n, 10 n)."""
    for s in range(Q.shape[0]):
        inertial_regressor(Q[s], QD[s], QDD[s], R0, p0, axes, gravity, Y[s])


@nb.njit(cache=True)
def rnea(q, qd, qdd, R0, p0, axes, gravity, inertial):  # pragma: no cover - compiled
    """Recursive Newton-Euler inverse dynamics of the rigid bodies: joint torques [N m], (n,).

    ``inertial`` is (n, 10), the standard parameters of each body (see the module docstring).
    """
    n = q.shape[0]
    R, W, WD, A = _forward(q, qd, qdd, R0, p0, axes, gravity)
    tau = np.empty(n)
    F = np.zeros(3)
    N = np.zeros(3)
    for k in range(n - 1, -1, -1):
        pi = inertial[k]
        m = pi[0]
        h = pi[1:4].copy()
        I = np.array([[pi[4], pi[5], pi[7]], [pi[5], pi[6], pi[8]], [pi[7], pi[8], pi[9]]])
        w, wd, a = W[k], WD[k], A[k]
        Fb = m * a + _cross(wd, h) + _cross(w, _cross(w, h))
        Nb = I @ wd + _cross(w, I @ w) + _cross(h, a)
        if k < n - 1:
            Rc = R[k + 1]
            pc = p0[k + 1]
            Fc = Rc @ F
            Nc = Rc @ N + _cross(pc, Fc)
            Fb = Fb + Fc
            Nb = Nb + Nc
        F = Fb
        N = Nb
        tau[k] = axes[k][0] * N[0] + axes[k][1] * N[1] + axes[k][2] * N[2]
    return tau


@nb.njit(cache=True)
def _rnea_many(Q, QD, QDD, R0, p0, axes, gravity, inertial, out):  # pragma: no cover - compiled
    for s in range(Q.shape[0]):
        out[s] = rnea(Q[s], QD[s], QDD[s], R0, p0, axes, gravity, inertial)


@nb.njit(cache=True)
def _forward_dynamics_many(Q, QD, TAU, R0, p0, axes, gravity, inertial, rotor, out):  # pragma: no cover - compiled
    """qdd = M^-1 (tau - h) per state; M column j = RNEA(q, 0, e_j) without gravity (+ rotor inertia)."""
    n = Q.shape[1]
    g0 = np.zeros(3)
    z = np.zeros(n)
    M = np.empty((n, n))
    for s in range(Q.shape[0]):
        h = rnea(Q[s], QD[s], z, R0, p0, axes, gravity, inertial)
        for j in range(n):
            e = np.zeros(n)
            e[j] = 1.0
            M[:, j] = rnea(Q[s], z, e, R0, p0, axes, g0, inertial)
            M[j, j] += rotor[j]
        out[s] = np.linalg.solve(M, TAU[s] - h)
