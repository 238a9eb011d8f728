"""Serial arms with revolute joints: kinematics, inverse dynamics and the identification regressor.

>>> from paperlib.robots.serial import SerialArm
>>> arm = SerialArm.named("tx40")                 # data/robots/tx40.toml
>>> arm = SerialArm.from_urdf("my_robot.urdf")    # revolute joints, fixed joints merged
>>> arm = SerialArm.from_dh([(0, 0, 0, 0), (0, 0.3, 0, 0)])   # modified DH (alpha, a, theta, d)
>>> Y = arm.regressor(q, qd, qdd)                 # (n, p) for one state, (N, n, p) for many
>>> tau = arm.inverse_dynamics(q, qd, qdd)        # nominal parameters, or ``params=``

Conventions (pinocchio's, so its ``computeJointTorqueRegressor`` is an oracle):

- Joint ``i`` has a fixed *placement* (rotation ``R0[i]``, translation ``p0[i]``) from the frame
  of joint ``i - 1`` (the world for the first) to its own frame at ``q_i = 0``, and turns about
  the unit ``axis[i]`` of its own frame. The body moved by joint ``i`` carries the link behind it
  (and every link fixed to it).
- The 10 standard inertial parameters of body ``i`` are, in this order,
  ``m, m c_x, m c_y, m c_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz``: mass, first moments and the inertia
  about the origin of the joint frame, all expressed in that frame (SI: kg, kg m, kg m^2).
  Names ``m1, mx1, my1, mz1, XX1, XY1, YY1, XZ1, YZ1, ZZ1`` (Khalil's notation).
- Gravity is a vector in the world frame (default ``(0, 0, -9.81)`` m/s^2).

The regressor ``Y`` has the ``10 n`` inertial columns first (link by link), then the per-joint
columns of :class:`JointColumns` (joint by joint: viscous ``fv``, Coulomb ``fs``, optionally
the two higher terms of eq. 4 of paper 001 ``fv2`` (qd^2 sign qd) and ``fv3`` (qd^3), actuator
inertia ``Ia``, torque offset ``off``), then three columns per :class:`Coupling` (a motor that
drives several joints, such as the TX40's motor 6 which turns joints 5 and 6: ``Iam6``,
``fvm6``, ``fsm6``). All torques are joint side [N m].

The generic numeric path (a Newton-Euler regressor compiled with numba) works for any arm;
a robot with a generated kernel (``paperlib/kernels/tx40.py``) uses that straight-line code
for the inertial part. Both are checked against pinocchio in ``tests/test_serial_*.py``.
"""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numba as nb
import numpy as np

from paperlib.robots._batch import as_states as _as_states

ROBOTS_DIR = Path(__file__).resolve().parents[2] / "data" / "robots"

INERTIAL_NAMES: tuple[str, ...] = ("m", "mx", "my", "mz", "XX", "XY", "YY", "XZ", "YZ", "ZZ")
#: rotation-matrix entries this close to -1, 0 or 1 are snapped to them (URDFs print pi/2 as
#: 1.57079632679, whose cosine is 5e-12: noise, not geometry)
SNAP_TOL = 1e-9

__all__ = [
    "SerialArm", "JointColumns", "Coupling", "INERTIAL_NAMES", "rpy_matrix", "inertial_from_com",
    "inertial_regressor", "regressor_many", "rnea",
]


# ----------------------------------------------------------------------------- geometry helpers
def rpy_matrix(rpy: Sequence[float]) -> np.ndarray:
    """Rotation matrix of URDF roll-pitch-yaw angles: ``Rz(yaw) Ry(pitch) Rx(roll)``.

    Parameters
    ----------
    rpy : sequence of 3 float
        Roll, pitch, yaw [rad].

    Returns
    -------
    ndarray, shape (3, 3)
    """
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp_, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp_], [0, 1, 0], [-sp_, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def snap(a: np.ndarray, tol: float = SNAP_TOL) -> np.ndarray:
    """Entries within ``tol`` of -1, 0 or 1 replaced by them (see :data:`SNAP_TOL`)."""
    a = np.array(a, dtype=np.float64)
    for v in (-1.0, 0.0, 1.0):
        a[np.abs(a - v) < tol] = v
    return a


def _skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def inertial_from_com(mass: float, com: Sequence[float], inertia_com: np.ndarray) -> np.ndarray:
    """The 10 standard parameters from mass, centre of mass and inertia about the centre of mass.

    Parameters
    ----------
    mass : float
        [kg].
    com : sequence of 3 float
        Centre of mass in the body frame [m].
    inertia_com : ndarray, shape (3, 3)
        Inertia about the centre of mass, in the body frame's axes [kg m^2].

    Returns
    -------
    ndarray, shape (10,)
        ``m, m c_x, m c_y, m c_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz`` with the inertia about the
        body frame's origin (parallel axis theorem).
    """
    c = np.asarray(com, dtype=np.float64)
    io = np.asarray(inertia_com, dtype=np.float64) + mass * (c @ c * np.eye(3) - np.outer(c, c))
    return np.array([mass, *(mass * c), io[0, 0], io[0, 1], io[1, 1], io[0, 2], io[1, 2], io[2, 2]])


def _inertia_matrix(pi: np.ndarray) -> np.ndarray:
    return np.array([[pi[4], pi[5], pi[7]], [pi[5], pi[6], pi[8]], [pi[7], pi[8], pi[9]]])


def _transform_inertial(pi: np.ndarray, R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Parameters of a body given in frame B, re-expressed in frame A (``x_A = R x_B + p``)."""
    m = pi[0]
    h_b = pi[1:4]
    io_b = _inertia_matrix(pi)
    c_b = h_b / m if m > 0 else np.zeros(3)
    ic_b = io_b - m * (c_b @ c_b * np.eye(3) - np.outer(c_b, c_b))
    return inertial_from_com(m, R @ c_b + p, R @ ic_b @ R.T)


def spatial_inertia_matrix(pi: np.ndarray) -> np.ndarray:
    """The 4x4 pseudo-inertia ``[[Sigma, h], [h^T, m]]`` with ``Sigma = tr(I)/2 1 - I``.

    It is positive (semi)definite exactly when the body is physically consistent (Wensing et
    al., 2017): mass, centre of mass and inertia of some density. Parameters as in
    :func:`inertial_from_com` (inertia about the frame origin).
    """
    io = _inertia_matrix(pi)
    sigma = 0.5 * np.trace(io) * np.eye(3) - io
    J = np.empty((4, 4))
    J[:3, :3] = sigma
    J[:3, 3] = pi[1:4]
    J[3, :3] = pi[1:4]
    J[3, 3] = pi[0]
    return J


# ----------------------------------------------------------------------------- compiled numerics
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


# ----------------------------------------------------------------------------- column layout
@dataclass(frozen=True)
class JointColumns:
    """Which per-joint columns follow the inertial ones (all joint side).

    Attributes
    ----------
    viscous : bool
        ``fv_j``: column ``qd_j`` [N m s/rad].
    coulomb : bool
        ``fs_j``: column ``sign(qd_j)`` [N m].
    polynomial : bool
        ``fv2_j`` (``qd_j^2 sign(qd_j)``) and ``fv3_j`` (``qd_j^3``): the higher terms of eq. 4
        of paper 001 (``k3``, ``k4``).
    actuator_inertia : bool
        ``Ia_j``: column ``qdd_j`` (rotor inertia referred to the joint, N^2 I_m) [kg m^2].
    offset : bool
        ``off_j``: column 1 [N m] (drive torque offset).
    """

    viscous: bool = True
    coulomb: bool = True
    polynomial: bool = False
    actuator_inertia: bool = True
    offset: bool = True

    def kinds(self) -> tuple[str, ...]:
        out = []
        if self.viscous:
            out.append("fv")
        if self.coulomb:
            out.append("fs")
        if self.polynomial:
            out += ["fv2", "fv3"]
        if self.actuator_inertia:
            out.append("Ia")
        if self.offset:
            out.append("off")
        return tuple(out)


@dataclass(frozen=True)
class Coupling:
    """A motor driving several joints (joint-side form).

    The motor's speed, referred to the joint side, is ``v_m = sum_k c_k qd_k``; its rotor
    inertia ``Iam``, viscous ``fvm`` and Coulomb ``fsm`` friction act on every coupled joint
    ``k`` as ``c_k (Iam dv_m/dt + fvm v_m + fsm sign(v_m))``. For the TX40's wrist motor 6
    (``q_m6 = N6 (q5 + q6)``): ``joints = (4, 5)``, ``coefficients = (1, 1)`` and the
    parameters are the motor's, multiplied by ``N6^2`` (inertia, viscous) and ``N6`` (Coulomb).

    Attributes
    ----------
    name : str
        Suffix of the parameter names (``"6"`` gives ``Iam6, fvm6, fsm6``).
    joints : tuple of int
        Coupled joints (0-based).
    coefficients : tuple of float
        ``c_k`` per coupled joint.
    """

    name: str
    joints: tuple[int, ...]
    coefficients: tuple[float, ...]


def joint_columns(QD: np.ndarray, QDD: np.ndarray, columns: JointColumns, couplings: Sequence[Coupling]) -> np.ndarray:
    """The per-joint and coupling columns for N states: (N, n, n * len(kinds) + 3 * len(couplings))."""
    N, n = QD.shape
    kinds = columns.kinds()
    out = np.zeros((N, n, n * len(kinds) + 3 * len(couplings)))
    sg = np.sign(QD)
    for j in range(n):
        for k, kind in enumerate(kinds):
            col = j * len(kinds) + k
            if kind == "fv":
                out[:, j, col] = QD[:, j]
            elif kind == "fs":
                out[:, j, col] = sg[:, j]
            elif kind == "fv2":
                out[:, j, col] = QD[:, j] ** 2 * sg[:, j]
            elif kind == "fv3":
                out[:, j, col] = QD[:, j] ** 3
            elif kind == "Ia":
                out[:, j, col] = QDD[:, j]
            elif kind == "off":
                out[:, j, col] = 1.0
    base = n * len(kinds)
    for c, cp in enumerate(couplings):
        cf = np.asarray(cp.coefficients)
        v = QD[:, list(cp.joints)] @ cf
        a = QDD[:, list(cp.joints)] @ cf
        for jk, ck in zip(cp.joints, cf):
            out[:, jk, base + 3 * c] = ck * a
            out[:, jk, base + 3 * c + 1] = ck * v
            out[:, jk, base + 3 * c + 2] = ck * np.sign(v)
    return out


# ----------------------------------------------------------------------------- the arm
@dataclass(frozen=True)
class SerialArm:
    """A serial arm of revolute joints (see the module docstring for the conventions).

    Attributes
    ----------
    name : str
        Robot name (a recording's ``robot`` attribute; ``tx40`` has a generated kernel).
    joint_names : tuple of str
    R0 : ndarray, shape (n, 3, 3)
        Joint placement rotations (parent joint frame <- joint frame at q = 0).
    p0 : ndarray, shape (n, 3)
        Joint placement translations in the parent joint frame [m].
    axes : ndarray, shape (n, 3)
        Unit joint axes in their own frames.
    inertial : ndarray, shape (n, 10)
        Nominal standard parameters of each body (SI).
    gravity : ndarray, shape (3,)
        World gravity [m/s^2].
    columns : JointColumns
        Per-joint columns after the inertial ones.
    couplings : tuple of Coupling
    lower, upper : ndarray, shape (n,)
        Joint position limits [rad] (``-inf``/``inf`` if unknown).
    velocity_limit, effort_limit : ndarray, shape (n,)
        [rad/s], [N m] (``inf`` if unknown).
    drive : dict
        Optional drive description (gear ratios, coupling matrix) from the robot file.
    kernel : str or None
        Name of a generated kernel module in ``paperlib.kernels`` for the inertial regressor
        (``None``: the generic compiled Newton-Euler path).
    """

    name: str
    joint_names: tuple[str, ...]
    R0: np.ndarray
    p0: np.ndarray
    axes: np.ndarray
    inertial: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    columns: JointColumns = field(default_factory=JointColumns)
    couplings: tuple[Coupling, ...] = ()
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    velocity_limit: np.ndarray | None = None
    effort_limit: np.ndarray | None = None
    drive: dict = field(default_factory=dict, repr=False)
    kernel: str | None = None

    def __post_init__(self) -> None:
        n = len(self.joint_names)
        object.__setattr__(self, "R0", np.ascontiguousarray(np.asarray(self.R0, dtype=np.float64).reshape(n, 3, 3)))
        object.__setattr__(self, "p0", np.ascontiguousarray(np.asarray(self.p0, dtype=np.float64).reshape(n, 3)))
        ax = np.asarray(self.axes, dtype=np.float64).reshape(n, 3)
        norms = np.linalg.norm(ax, axis=1)
        if np.any(norms < 1e-12):
            raise ValueError(f"{self.name}: joint axis of zero length at joint {int(np.argmin(norms)) + 1}")
        object.__setattr__(self, "axes", np.ascontiguousarray(ax / norms[:, None]))
        object.__setattr__(self, "inertial", np.ascontiguousarray(np.asarray(self.inertial, dtype=np.float64).reshape(n, 10)))
        object.__setattr__(self, "gravity", np.ascontiguousarray(np.asarray(self.gravity, dtype=np.float64).reshape(3)))
        for attr, default in (("lower", -np.inf), ("upper", np.inf), ("velocity_limit", np.inf), ("effort_limit", np.inf)):
            v = getattr(self, attr)
            object.__setattr__(self, attr, np.full(n, default) if v is None else np.asarray(v, dtype=np.float64).reshape(n))
        for cp in self.couplings:
            if len(cp.joints) != len(cp.coefficients) or any(not 0 <= j < n for j in cp.joints):
                raise ValueError(f"{self.name}: coupling {cp.name!r} names joints {cp.joints} outside 0..{n - 1}")

    # -------------------------------------------------------------- construction
    @property
    def n(self) -> int:
        """Number of joints."""
        return len(self.joint_names)

    @classmethod
    def from_dh(
        cls, table: Sequence[Sequence[float]], *, inertial: np.ndarray | None = None, name: str = "dh_arm",
        gravity: Sequence[float] = (0.0, 0.0, -9.81), **kwargs: Any,
    ) -> "SerialArm":
        """Arm from a modified Denavit-Hartenberg table (Craig / Khalil-Kleinfinger).

        Parameters
        ----------
        table : sequence of (alpha, a, theta_offset, d)
            One row per revolute joint: ``alpha_{i-1}`` [rad], ``a_{i-1}`` [m], the joint angle
            offset ``theta_i`` [rad] (the angle at ``q_i = 0``) and ``d_i`` [m]. Frame ``i``
            is ``Rx(alpha) Tx(a) Rz(theta) Tz(d)`` from frame ``i - 1``, and joint ``i`` turns
            about its z axis.
        inertial : ndarray, shape (n, 10), optional
            Standard parameters of each body in its DH frame (zeros if omitted).
        name : str
        gravity : sequence of 3 float
            World (frame 0) gravity [m/s^2].
        **kwargs
            Further :class:`SerialArm` fields (``columns``, ``couplings``, limits...).
        """
        rows = np.asarray(table, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != 4:
            raise ValueError(f"DH table must have rows (alpha, a, theta, d); got shape {rows.shape}")
        n = rows.shape[0]
        R0, p0 = [], []
        for alpha, a, theta, d in rows:
            Rx = rpy_matrix((alpha, 0.0, 0.0))
            Rz = rpy_matrix((0.0, 0.0, theta))
            R0.append(snap(Rx @ Rz))
            p0.append(np.array([a, 0.0, 0.0]) + Rx @ np.array([0.0, 0.0, d]))
        return cls(
            name=name, joint_names=tuple(f"joint_{i + 1}" for i in range(n)), R0=np.array(R0), p0=snap(np.array(p0), 1e-15),
            axes=np.tile([0.0, 0.0, 1.0], (n, 1)), inertial=np.zeros((n, 10)) if inertial is None else inertial,
            gravity=np.asarray(gravity, dtype=np.float64), **kwargs,
        )

    @classmethod
    def from_urdf(cls, path: str | Path, *, name: str | None = None, **kwargs: Any) -> "SerialArm":
        """Arm from a URDF file: one chain of revolute joints; fixed joints merged.

        Links behind a fixed joint are merged into their parent body (inertia transformed) and
        the fixed transform folds into the next joint's placement, as pinocchio's
        ``buildModelFromUrdf`` does. The root link's own inertia is the base's and is dropped.

        Parameters
        ----------
        path : str or Path
            URDF file (or its XML text if it starts with ``<``).
        name : str, optional
            Robot name (default: the URDF's ``robot name``).
        **kwargs
            Further :class:`SerialArm` fields.

        Raises
        ------
        ValueError
            Naming the file and the problem: not XML, a joint type other than revolute/fixed,
            a branching tree, a missing link.
        """
        text = str(path)
        label = "<urdf text>" if text.lstrip().startswith("<") else text
        try:
            root = ET.fromstring(text) if label == "<urdf text>" else ET.parse(text).getroot()
        except (ET.ParseError, OSError) as exc:
            raise ValueError(f"{label}: cannot read URDF ({exc})") from None
        if root.tag != "robot":
            raise ValueError(f"{label}: root element is <{root.tag}>, not <robot>")

        def vec(el: ET.Element | None, attr: str, default: str = "0 0 0") -> np.ndarray:
            s = default if el is None else el.get(attr, default)
            try:
                v = np.array([float(t) for t in s.split()])
            except ValueError:
                raise ValueError(f"{label}: bad numbers {s!r} in <{el.tag if el is not None else '?'} {attr}>") from None
            if v.shape != (3,):
                raise ValueError(f"{label}: {attr}={s!r} must hold 3 numbers")
            return v

        links: dict[str, np.ndarray] = {}
        for link in root.findall("link"):
            inert = link.find("inertial")
            if inert is None:
                links[link.get("name")] = np.zeros(10)
                continue
            org = inert.find("origin")
            m = float(inert.find("mass").get("value"))
            I = inert.find("inertia")
            g = {k: float(I.get(k, 0.0)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
            Ic = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
            Rc = rpy_matrix(vec(org, "rpy"))
            links[link.get("name")] = inertial_from_com(m, vec(org, "xyz"), Rc @ Ic @ Rc.T)
        joints = root.findall("joint")
        children: dict[str, list[ET.Element]] = {}
        child_links = set()
        for j in joints:
            jtype = j.get("type")
            if jtype not in ("revolute", "fixed"):
                raise ValueError(f"{label}: joint {j.get('name')!r} is {jtype!r}; only revolute and fixed joints are supported")
            parent = j.find("parent").get("link")
            child = j.find("child").get("link")
            for ln in (parent, child):
                if ln not in links:
                    raise ValueError(f"{label}: joint {j.get('name')!r} names link {ln!r}, which is not defined")
            children.setdefault(parent, []).append(j)
            child_links.add(child)
        roots = [ln for ln in links if ln not in child_links]
        if len(roots) != 1:
            raise ValueError(f"{label}: expected one root link, found {roots}")
        names, R0, p0, axes, inert, lo, hi, vel, eff = [], [], [], [], [], [], [], [], []
        # walk the chain; T_acc = transform from the current body frame to the frame where the
        # next joint's origin is given (accumulates fixed joints)
        link = roots[0]
        R_acc, p_acc = np.eye(3), np.zeros(3)
        body = -1  # index of the moving body that the current link belongs to
        while True:
            kids = children.get(link, [])
            if len(kids) > 1:
                raise ValueError(f"{label}: link {link!r} has {len(kids)} child joints; only serial chains are supported")
            if not kids:
                break
            j = kids[0]
            org = j.find("origin")
            Rj = rpy_matrix(vec(org, "rpy"))
            pj = vec(org, "xyz")
            R_new = R_acc @ Rj
            p_new = R_acc @ pj + p_acc
            child = j.find("child").get("link")
            if j.get("type") == "fixed":
                R_acc, p_acc = R_new, p_new
                if body >= 0:
                    inert[body] = inert[body] + _transform_inertial(links[child], R_new, p_new)
            else:
                names.append(j.get("name"))
                R0.append(snap(R_new))
                p0.append(p_new)
                axes.append(vec(j.find("axis"), "xyz", "1 0 0"))
                inert.append(links[child].copy())
                lim = j.find("limit")
                lo.append(float(lim.get("lower", "-inf")) if lim is not None else -np.inf)
                hi.append(float(lim.get("upper", "inf")) if lim is not None else np.inf)
                vel.append(float(lim.get("velocity", "inf")) if lim is not None else np.inf)
                eff.append(float(lim.get("effort", "inf")) if lim is not None else np.inf)
                R_acc, p_acc = np.eye(3), np.zeros(3)
                body += 1
            link = child
        if not names:
            raise ValueError(f"{label}: no revolute joint")
        kwargs.setdefault("lower", np.array(lo))
        kwargs.setdefault("upper", np.array(hi))
        kwargs.setdefault("velocity_limit", np.array(vel))
        kwargs.setdefault("effort_limit", np.array(eff))
        return cls(name=name or root.get("name", "urdf_arm"), joint_names=tuple(names), R0=np.array(R0), p0=np.array(p0),
                   axes=np.array(axes), inertial=np.array(inert), **kwargs)

    @classmethod
    def from_toml(cls, path: str | Path, **kwargs: Any) -> "SerialArm":
        """Arm from a robot file in ``data/robots/`` (see ``tx40.toml`` for the layout)."""
        path = Path(path)
        try:
            desc = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"{path}: cannot read robot file ({exc})") from None
        try:
            robot = desc["robot"]
            names, R0, p0, axes, inert, lo, hi, vel, eff = [], [], [], [], [], [], [], [], []
            for j in desc["joint"]:
                names.append(j["name"])
                R0.append(snap(rpy_matrix(j.get("rpy", [0, 0, 0]))))
                p0.append(j.get("xyz_m", [0, 0, 0]))
                axes.append(j.get("axis", [0, 0, 1]))
                b = j["inertial"]
                Rc = rpy_matrix(b.get("rpy", [0, 0, 0]))
                ixx, ixy, ixz, iyy, iyz, izz = b["inertia_kg_m2"]
                Ic = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
                inert.append(inertial_from_com(b["mass_kg"], b["com_m"], Rc @ Ic @ Rc.T))
                lo.append(j.get("lower_rad", -np.inf))
                hi.append(j.get("upper_rad", np.inf))
                vel.append(j.get("velocity_rad_s", np.inf))
                eff.append(j.get("effort_n_m", np.inf))
            couplings = tuple(Coupling(c["name"], tuple(int(k) - 1 for k in c["joints"]), tuple(float(x) for x in c["coefficients"]))
                              for c in desc.get("coupling", []))
            cols = JointColumns(**desc.get("columns", {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: malformed robot file ({type(exc).__name__}: {exc})") from None
        kw = dict(name=robot["name"], joint_names=tuple(names), R0=np.array(R0), p0=np.array(p0), axes=np.array(axes),
                  inertial=np.array(inert), gravity=np.asarray(robot.get("gravity_m_s2", [0, 0, -9.81])), columns=cols,
                  couplings=couplings, lower=np.array(lo), upper=np.array(hi), velocity_limit=np.array(vel),
                  effort_limit=np.array(eff), drive=desc.get("drive", {}), kernel=robot.get("kernel"))
        kw.update(kwargs)
        return cls(**kw)

    @classmethod
    def named(cls, name: str, **kwargs: Any) -> "SerialArm":
        """Arm from ``data/robots/<name>.toml``, or from a URDF / TOML path."""
        p = Path(name)
        if p.suffix == ".urdf":
            if not p.exists():
                raise ValueError(f"{p}: no such URDF file")
            return cls.from_urdf(p, **kwargs)
        if p.suffix == ".toml" and p.exists():
            return cls.from_toml(p, **kwargs)
        f = ROBOTS_DIR / f"{name}.toml"
        if not f.exists():
            known = sorted(x.stem for x in ROBOTS_DIR.glob("*.toml") if "[[joint]]" in x.read_text())
            raise ValueError(f"no serial robot named {name!r} (known: {known}; or give a .urdf path)")
        return cls.from_toml(f, **kwargs)

    def with_columns(self, columns: JointColumns | None = None, couplings: Sequence[Coupling] | None = None) -> "SerialArm":
        """A copy with other per-joint columns and/or couplings."""
        return replace(self, columns=self.columns if columns is None else columns,
                       couplings=self.couplings if couplings is None else tuple(couplings))

    def to_urdf(self) -> str:
        """URDF text of the arm (for other tools, e.g. pinocchio as a test oracle)."""
        def rpy(R: np.ndarray) -> tuple[float, float, float]:
            pitch = -np.arcsin(np.clip(R[2, 0], -1, 1))
            if abs(np.cos(pitch)) > 1e-9:
                roll = np.arctan2(R[2, 1], R[2, 2])
                yaw = np.arctan2(R[1, 0], R[0, 0])
            else:
                roll, yaw = np.arctan2(-R[1, 2], R[1, 1]), 0.0
            return roll, pitch, yaw

        def f(v: Sequence[float]) -> str:
            return " ".join(repr(float(x)) for x in v)

        out = [f'<robot name="{self.name}">', '  <link name="base"/>']
        parent = "base"
        for i in range(self.n):
            pi = self.inertial[i]
            m = pi[0]
            c = pi[1:4] / m if m > 0 else np.zeros(3)
            Ic = _inertia_matrix(pi) - m * (c @ c * np.eye(3) - np.outer(c, c))
            out.append(f'  <joint name="{self.joint_names[i]}" type="revolute">')
            out.append(f'    <origin xyz="{f(self.p0[i])}" rpy="{f(rpy(self.R0[i]))}"/>')
            out.append(f'    <parent link="{parent}"/><child link="body_{i + 1}"/>')
            out.append(f'    <axis xyz="{f(self.axes[i])}"/>')
            out.append('    <limit lower="-10" upper="10" effort="1000" velocity="100"/>')
            out.append("  </joint>")
            ic = {k: repr(float(Ic[a, b])) for k, (a, b) in
                  {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2), "izz": (2, 2)}.items()}
            out.append(f'  <link name="body_{i + 1}"><inertial><origin xyz="{f(c)}" rpy="0 0 0"/><mass value="{float(m)!r}"/>')
            out.append("    <inertia " + " ".join(f'{k}="{v}"' for k, v in ic.items()) + "/></inertial></link>")
            parent = f"body_{i + 1}"
        out.append("</robot>")
        return "\n".join(out) + "\n"

    # -------------------------------------------------------------- parameter layout
    @property
    def inertial_names(self) -> tuple[str, ...]:
        """``m1, mx1, ..., ZZ1, m2, ...`` (10 n names)."""
        return tuple(f"{p}{i + 1}" for i in range(self.n) for p in INERTIAL_NAMES)

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the regressor's columns, in order."""
        kinds = self.columns.kinds()
        joint = [f"{k}{j + 1}" for j in range(self.n) for k in kinds]
        coup = [f"{k}{c.name}" for c in self.couplings for k in ("Iam", "fvm", "fsm")]
        return self.inertial_names + tuple(joint) + tuple(coup)

    @property
    def n_params(self) -> int:
        return len(self.param_names)

    def nominal_params(self, **values: float) -> np.ndarray:
        """Parameter vector: the nominal inertials, zeros elsewhere, then ``name=value`` overrides."""
        p = np.zeros(self.n_params)
        p[: 10 * self.n] = self.inertial.ravel()
        idx = {k: i for i, k in enumerate(self.param_names)}
        for k, v in values.items():
            if k not in idx:
                raise ValueError(f"{self.name}: no parameter named {k!r}")
            p[idx[k]] = v
        return p

    # -------------------------------------------------------------- dynamics
    def _kernel_module(self) -> Any:
        if self.kernel is None:
            return None
        import importlib

        try:
            mod = importlib.import_module(f"paperlib.kernels.{self.kernel}")
        except ModuleNotFoundError as exc:  # not generated (yet): the generic path
            if exc.name != f"paperlib.kernels.{self.kernel}":
                raise
            return None
        # the generated code holds its geometry as constants: use it only for that geometry
        if not (np.array_equal(mod.R0, self.R0) and np.array_equal(mod.P0, self.p0) and np.array_equal(mod.AXES, self.axes)
                and np.array_equal(mod.GRAVITY, self.gravity)):
            return None
        return mod

    def inertial_regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Regressor of the 10 n inertial parameters: (n, 10 n) or (N, n, 10 n) [N m per unit]."""
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        if not Q.shape == QD.shape == QDD.shape:
            raise ValueError(f"q, qd, qdd must have the same shape; got {Q.shape}, {QD.shape}, {QDD.shape}")
        Y = np.empty((Q.shape[0], self.n, 10 * self.n))
        mod = self._kernel_module()
        if mod is not None:
            mod.regressor_many(Q, QD, QDD, Y)
        else:
            regressor_many(Q, QD, QDD, self.R0, self.p0, self.axes, self.gravity, Y)
        return Y[0] if single else Y

    def regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Full joint torque regressor ``Y``: ``tau = Y @ params``.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (n,) or (N, n)
            Joint angles [rad], velocities [rad/s], accelerations [rad/s^2].

        Returns
        -------
        ndarray, shape (n, p) or (N, n, p)
            Columns as :attr:`param_names` (inertial first, then per-joint, then couplings).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        Yi = self.inertial_regressor(Q, QD, QDD)
        Y = np.concatenate([Yi, joint_columns(QD, QDD, self.columns, self.couplings)], axis=2)
        return Y[0] if single else Y

    def inverse_dynamics(self, q: Any, qd: Any, qdd: Any, params: np.ndarray | None = None) -> np.ndarray:
        """Joint torques [N m], (n,) or (N, n).

        With ``params=None`` the nominal rigid-body model (no friction) by recursive
        Newton-Euler; otherwise ``Y(q, qd, qdd) @ params`` with a full parameter vector
        (:attr:`param_names`).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        QDD, _ = _as_states(qdd, "qdd", self.n)
        if params is None:
            out = np.empty(Q.shape)
            _rnea_many(Q, QD, QDD, self.R0, self.p0, self.axes, self.gravity, self.inertial, out)
        else:
            params = np.asarray(params, dtype=np.float64)
            if params.shape != (self.n_params,):
                raise ValueError(f"params must have shape ({self.n_params},) (see param_names); got {params.shape}")
            out = self.regressor(Q, QD, QDD) @ params
        return out[0] if single else out

    def mass_matrix(self, q: Any, inertial: np.ndarray | None = None) -> np.ndarray:
        """Joint-space mass matrix of the rigid bodies [kg m^2], (n, n) (column j = RNEA with qdd = e_j, no gravity)."""
        Q, single = _as_states(q, "q", self.n)
        inert = self.inertial if inertial is None else np.ascontiguousarray(inertial, dtype=np.float64).reshape(self.n, 10)
        g0 = np.zeros(3)
        z = np.zeros(self.n)
        M = np.empty((Q.shape[0], self.n, self.n))
        for s in range(Q.shape[0]):
            for j in range(self.n):
                e = np.zeros(self.n)
                e[j] = 1.0
                M[s, :, j] = rnea(Q[s], z, e, self.R0, self.p0, self.axes, g0, inert)
        return M[0] if single else M

    def forward_dynamics(self, q: Any, qd: Any, tau: Any, inertial: np.ndarray | None = None,
                         rotor_inertia: Any = None) -> np.ndarray:
        """Joint accelerations [rad/s^2] of the rigid bodies under joint torques ``tau`` [N m].

        ``qdd = M(q)^-1 (tau - h(q, qd))`` (compiled; M from n Newton-Euler passes), for one state
        (n,) or many (N, n). ``rotor_inertia`` (n,) [kg m^2] adds ``Ia_j`` to ``M_jj`` (joint-side
        rotor inertia); friction is the caller's (subtract it from ``tau``).
        """
        Q, single = _as_states(q, "q", self.n)
        QD, _ = _as_states(qd, "qd", self.n)
        TAU, _ = _as_states(tau, "tau", self.n)
        inert = self.inertial if inertial is None else np.ascontiguousarray(inertial, dtype=np.float64).reshape(self.n, 10)
        rotor = np.zeros(self.n) if rotor_inertia is None else np.asarray(rotor_inertia, dtype=np.float64).reshape(self.n)
        out = np.empty(Q.shape)
        _forward_dynamics_many(Q, QD, TAU, self.R0, self.p0, self.axes, self.gravity, inert, rotor, out)
        return out[0] if single else out

    def forward_kinematics(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """World rotations (.., n, 3, 3) and origins (.., n, 3) [m] of the joint frames."""
        Q, single = _as_states(q, "q", self.n)
        Rw = np.empty((Q.shape[0], self.n, 3, 3))
        pw = np.empty((Q.shape[0], self.n, 3))
        for s in range(Q.shape[0]):
            R, p = np.eye(3), np.zeros(3)
            for i in range(self.n):
                p = p + R @ self.p0[i]
                R = R @ self.R0[i] @ _rot_axis(self.axes[i], Q[s, i])
                Rw[s, i], pw[s, i] = R, p
        return (Rw[0], pw[0]) if single else (Rw, pw)

    def random_states(self, n_states: int, seed: int = 0, v_max: float = 2.0, a_max: float = 10.0) -> tuple[np.ndarray, ...]:
        """Random (q, qd, qdd), each (n_states, n): q within the limits (or +-pi), for tests and QR."""
        rng = np.random.default_rng(seed)
        lo = np.where(np.isfinite(self.lower), self.lower, -np.pi)
        hi = np.where(np.isfinite(self.upper), self.upper, np.pi)
        vm = np.minimum(np.where(np.isfinite(self.velocity_limit), self.velocity_limit, v_max), v_max)
        return (rng.uniform(lo, hi, (n_states, self.n)), rng.uniform(-vm, vm, (n_states, self.n)),
                rng.uniform(-a_max, a_max, (n_states, self.n)))

    def base_parameters(self, n_states: int = 200, seed: int = 0, tol: float = 1e-6) -> "Any":
        """Base parameters by QR with column pivoting on random states (see
        :func:`paperlib.estimation.base_parameters.base_parameters`)."""
        from paperlib.estimation.base_parameters import base_parameters

        q, qd, qdd = self.random_states(n_states, seed)
        Y = self.regressor(q, qd, qdd).reshape(-1, self.n_params)
        return base_parameters(Y, self.param_names, tol=tol)
