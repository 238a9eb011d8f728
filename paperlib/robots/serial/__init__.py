"""Serial arms with revolute joints: kinematics, inverse dynamics and the identification regressor.

>>> from paperlib.robots.serial import SerialArm
>>> arm = SerialArm.named("tx40")                 # data/robots/tx40.toml
>>> arm = SerialArm.from_urdf("my_robot.urdf")    # the chain of a published URDF (tip_link= if several)
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
for the inertial part. Both are checked against pinocchio in ``tests/layers/robots/test_serial_regressor.py, tests/layers/estimation/test_serial_identification.py``.

Modules: :mod:`~paperlib.robots.serial.spatial` (rotations, the 10 standard parameters),
:mod:`~paperlib.robots.serial.rnea` (compiled Newton-Euler: regressor, inverse and forward
dynamics), :mod:`~paperlib.robots.serial.columns` (per-joint and coupling columns),
:mod:`~paperlib.robots.serial.urdf` (URDF in and out), :mod:`~paperlib.robots.serial.arm`
(:class:`SerialArm`). Their public names are re-exported here.
"""

from __future__ import annotations

from paperlib.robots.serial.arm import ROBOTS_DIR, SerialArm
from paperlib.robots.serial.columns import Coupling, JointColumns, joint_columns
from paperlib.robots.serial.rnea import inertial_regressor, regressor_many, rnea
from paperlib.robots.serial.spatial import (
    INERTIAL_NAMES,
    SNAP_TOL,
    inertial_from_com,
    rpy_matrix,
    snap,
    spatial_inertia_matrix,
)
from paperlib.robots.serial.urdf import arm_urdf, read_urdf

__all__ = [
    "SerialArm", "JointColumns", "Coupling", "INERTIAL_NAMES", "rpy_matrix", "inertial_from_com",
    "inertial_regressor", "regressor_many", "rnea",
]
