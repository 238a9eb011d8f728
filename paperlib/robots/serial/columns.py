"""The regressor's per-joint columns after the inertial ones: friction, rotor inertia, offsets, coupled motors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["JointColumns", "Coupling", "joint_columns"]


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
