"""IMU readings -> joint angular velocity and acceleration (paper Section 3.2, Eqs. 47-48 scale
factors): :class:`ImuJointCalibration`, :func:`imu_to_joint_rates`. SI units (rad/s, rad/s^2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ImuJointCalibration",
    "imu_to_joint_rates",
]

# --------------------------------------------------------------------------------------
# IMU -> joint rates (paper Section 3.2, Eqs. 47-48)
# --------------------------------------------------------------------------------------


@dataclass
class ImuJointCalibration:
    """Parameters turning link-mounted IMU readings into joint rates.

    Parameters
    ----------
    lever_arm_m : array_like, shape (n,)
        Distance r_j from the grounded revolute joint to the accelerometer [m].
    alpha_g : array_like, shape (n,)
        Gyroscope calibration scale alpha_g,j [-] (Eq. 47; sign included). Default 1.
    alpha_a : array_like, shape (n,)
        Accelerometer calibration scale alpha_a,j [-] (Eq. 48; sign included). Default 1.
    imu_of_joint : sequence of int, shape (n,)
        IMU index mounted on joint j (default: IMU j).
    gyro_axis : int
        Sensor axis of the gyroscope read as the link angular velocity (2 = z).
    accel_axis : int
        Sensor axis of the accelerometer read as the tangential acceleration (1 = y).

    Notes
    -----
    q_dot_j = alpha_g,j * omega_{gyro_axis, j} and
    q_ddot_j = alpha_a,j * a_{accel_axis, j} / r_j, valid for links rotating about a
    grounded joint in the horizontal plane (the flagship's proximal links); links moving in
    3-D need the kinematic model and gravity compensation (paper, end of Section 3.2).
    """

    lever_arm_m: ArrayLike
    alpha_g: ArrayLike | None = None
    alpha_a: ArrayLike | None = None
    imu_of_joint: tuple[int, ...] | None = None
    gyro_axis: int = 2
    accel_axis: int = 1

    def __post_init__(self) -> None:
        r = np.atleast_1d(np.asarray(self.lever_arm_m, dtype=np.float64)).copy()
        if r.ndim != 1 or not np.all(np.isfinite(r)) or np.any(r <= 0):
            raise ValueError(f"lever_arm_m must be positive finite lengths [m], got {r}")
        n = r.size
        self.lever_arm_m = r
        self.alpha_g = self._scale(self.alpha_g, n, "alpha_g")
        self.alpha_a = self._scale(self.alpha_a, n, "alpha_a")
        self.imu_of_joint = tuple(range(n)) if self.imu_of_joint is None else tuple(
            int(i) for i in self.imu_of_joint
        )
        if len(self.imu_of_joint) != n:
            raise ValueError(f"imu_of_joint needs {n} entries, got {self.imu_of_joint}")
        if self.gyro_axis not in (0, 1, 2) or self.accel_axis not in (0, 1, 2):
            raise ValueError("gyro_axis and accel_axis must be 0 (x), 1 (y) or 2 (z)")
        self._idx = self.imu_of_joint
        # Combined gain of the acceleration path: alpha_a / r [1/m].
        self._acc_gain = self.alpha_a / r

    @staticmethod
    def _scale(v: ArrayLike | None, n: int, name: str) -> NDArray[np.float64]:
        if v is None:
            return np.ones(n)
        a = np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)).copy()
        if not np.all(np.isfinite(a)) or np.any(a == 0):
            raise ValueError(f"{name} must be finite and non-zero, got {a}")
        return a

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return int(self.lever_arm_m.size)


def imu_to_joint_rates(
    gyro: NDArray[np.float64],
    accel: NDArray[np.float64],
    cal: ImuJointCalibration,
    qd_out: NDArray[np.float64] | None = None,
    qdd_out: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Joint angular velocity and acceleration from link IMU readings.

    Parameters
    ----------
    gyro : ndarray, shape (n_imu, 3)
        Angular rates [rad/s].
    accel : ndarray, shape (n_imu, 3)
        Accelerations [m/s^2].
    cal : ImuJointCalibration
        Lever arms and calibration scales.
    qd_out, qdd_out : ndarray, shape (n_joints,), optional
        Preallocated outputs (e.g. ``Measurement.qd`` and ``Measurement.qdd``); written
        in place when given.

    Returns
    -------
    qd : ndarray, shape (n_joints,)
        q_dot_j = alpha_g,j * gyro[imu_j, gyro_axis] [rad/s].
    qdd : ndarray, shape (n_joints,)
        q_ddot_j = alpha_a,j * accel[imu_j, accel_axis] / r_j [rad/s^2].
    """
    if qd_out is None:
        qd_out = np.empty(cal.n_joints)
    if qdd_out is None:
        qdd_out = np.empty(cal.n_joints)
    idx = cal._idx
    for j in range(cal.n_joints):
        i = idx[j]
        qd_out[j] = cal.alpha_g[j] * gyro[i, cal.gyro_axis]
        qdd_out[j] = cal._acc_gain[j] * accel[i, cal.accel_axis]
    return qd_out, qdd_out
