"""Rigid-body algebra of the serial arms: rotations, the 10 standard inertial parameters.

The 10 standard inertial parameters of a body are, in this order, ``m, m c_x, m c_y, m c_z,
Ixx, Ixy, Iyy, Ixz, Iyz, Izz`` (:data:`INERTIAL_NAMES`): mass, first moments and the inertia
about the origin of the body frame, all expressed in that frame (SI: kg, kg m, kg m^2).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

INERTIAL_NAMES: tuple[str, ...] = ("m", "mx", "my", "mz", "XX", "XY", "YY", "XZ", "YZ", "ZZ")
#: rotation-matrix entries this close to -1, 0 or 1 are snapped to them (URDFs print pi/2 as
#: 1.57079632679, whose cosine is 5e-12: noise, not geometry)
SNAP_TOL = 1e-9

__all__ = ["INERTIAL_NAMES", "SNAP_TOL", "rpy_matrix", "rotation_about", "snap", "inertial_from_com", "spatial_inertia_matrix"]


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


def rotation_about(axis: Sequence[float], angle: float) -> np.ndarray:
    """Rotation by ``angle`` [rad] about ``axis`` (normalised here), shape (3, 3) (Rodrigues)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    K = _skew(a)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


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
