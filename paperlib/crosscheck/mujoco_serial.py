"""A serial arm (e.g. the TX40 of paper 001) in MuJoCo, from the arm's own URDF text.

The serial twins of :mod:`paperlib.twin.robots.serial_log` integrate nothing: their joint torques
are the arm's inverse dynamics (recursive Newton-Euler, :mod:`paperlib.robots.serial.rnea`). The
independent counterpart is MuJoCo's inverse dynamics (``mj_inverse``) of the same arm, loaded by
MuJoCo's own URDF importer from :meth:`paperlib.robots.serial.SerialArm.to_urdf`.

One change is needed to load it: MuJoCo refuses a moving body whose rotational inertia is zero,
and the TX40's last link is a point mass on joint 6's axis (the nominal model's ``M_66`` is 0).
:func:`serial_model` raises every principal inertia below :data:`MIN_INERTIA_KG_M2` to that value
(the URDF's inertia of such a link is written diagonal), which changes the mass matrix by at most
that much.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from paperlib.crosscheck.mujoco_five_bar import _mujoco

__all__ = ["MIN_INERTIA_KG_M2", "serial_model", "inverse_dynamics", "mass_matrix"]

#: Smallest principal inertia of a link loaded into MuJoCo [kg m^2] (see the module docstring).
MIN_INERTIA_KG_M2 = 1e-9

_ZERO_INERTIA = re.compile(r'<inertia ixx="0\.0" ixy="0\.0" ixz="0\.0" iyy="0\.0" iyz="0\.0" izz="0\.0"/>')


def serial_model(arm: Any) -> Any:
    """MuJoCo model (``mujoco.MjModel``) of ``arm`` (:class:`paperlib.robots.serial.SerialArm`), gravity as the arm's."""
    mj = _mujoco()
    f = repr(MIN_INERTIA_KG_M2)
    urdf = _ZERO_INERTIA.sub(f'<inertia ixx="{f}" ixy="0.0" ixz="0.0" iyy="{f}" iyz="0.0" izz="{f}"/>', arm.to_urdf())
    model = mj.MjModel.from_xml_string(urdf)
    if model.nv != arm.n:
        raise ValueError(f"MuJoCo loaded {model.nv} joints from the URDF of {arm.name!r}, which has {arm.n}")
    model.opt.gravity[:] = np.asarray(arm.gravity, dtype=float)
    model.opt.disableflags |= mj.mjtDisableBit.mjDSBL_CONTACT
    return model


def inverse_dynamics(model: Any, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """MuJoCo's joint torques [N m] (N, n) for states (N, n) [rad, rad/s, rad/s^2] (rigid bodies, gravity)."""
    mj = _mujoco()
    data = mj.MjData(model)
    Q, QD, QDD = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, qd, qdd))
    out = np.empty(Q.shape)
    for k in range(Q.shape[0]):
        data.qpos[:], data.qvel[:], data.qacc[:] = Q[k], QD[k], QDD[k]
        mj.mj_inverse(model, data)
        out[k] = data.qfrc_inverse
    return out


def mass_matrix(model: Any, q: np.ndarray) -> np.ndarray:
    """MuJoCo's joint-space mass matrix (n, n) [kg m^2] at q [rad]."""
    mj = _mujoco()
    data = mj.MjData(model)
    data.qpos[:] = q
    mj.mj_forward(model, data)
    M = np.zeros((model.nv, model.nv))
    mj.mj_fullM(model, M, data.qM)
    return M
