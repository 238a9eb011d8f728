"""Friction models that are linear in their parameters, and their regressor (eqs. 8-12).

Sign convention (documented once, used everywhere): for a relative joint velocity
``v`` the friction torque *resisting* the motion is

    symmetric (eq. 10):  tau_F = sign(v) [1, |v|, |v|^2, ..., |v|^w] pi_F,j
    asymmetric:          tau_F = H(v) [1, |v|, ..., |v|^w] pi_F,j+  -  H(-v) [1, |v|, ..., |v|^w] pi_F,j-

so positive coefficients dissipate energy. With the relative coordinates
``upsilon_j`` (for the 5R the internal angles psi_j) and ``upsilon_dot = D_upsilon qd``,
the friction Lagrangian components are ``Q_F = -sum_j D_upsilon_j^T tau_F,j = -Y_F pi_F``
(eq. 11), so the column of ``Y_F`` for joint j and power k is
``D_upsilon_j^T s_k(v_j)`` with the shape function ``s_k`` above.

The full regressor row of eq. 13 (drive gains | inertial | friction, ``R = Q_I + Q_G``) is
assembled by :func:`paperlib.estimation.regressor.assemble_row` from these columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperlib._jit import rt_njit

SIDE_SYMMETRIC = 0
SIDE_POSITIVE = 1
SIDE_NEGATIVE = -1


@dataclass(frozen=True)
class FrictionModel:
    """Which relative joints carry friction, with which polynomial order and symmetry.

    Parameters
    ----------
    joints : tuple of int
        1-based labels of the relative joints (for the 5R, psi_1..psi_5; 1 and 2 are actuated).
    order : int
        Polynomial order w (1..4): ``w + 1`` coefficients per joint and side.
    symmetric : bool
        Odd model of eq. 10 (True) or separate coefficients for each direction.
    name : str
        Label used in tables and plots.
    """

    joints: tuple[int, ...]
    order: int
    symmetric: bool = True
    name: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.order <= 4:
            raise ValueError(f"friction polynomial order must be 1..4, got {self.order}")
        if not self.joints or len(set(self.joints)) != len(self.joints) or min(self.joints) < 1:
            raise ValueError(f"friction joints must be distinct 1-based labels, got {self.joints}")

    @property
    def n_params(self) -> int:
        """Number of friction coefficients."""
        return len(self.joints) * (self.order + 1) * (1 if self.symmetric else 2)

    def columns(self) -> np.ndarray:
        """Column spec (n_params, 3) int64: (0-based joint index, power k, side)."""
        sides = (SIDE_SYMMETRIC,) if self.symmetric else (SIDE_POSITIVE, SIDE_NEGATIVE)
        rows = [(j - 1, k, s) for j in self.joints for s in sides for k in range(self.order + 1)]
        return np.array(rows, dtype=np.int64)

    def require_joints(self, n_joints: int, robot: str) -> None:
        """Raise ValueError unless every joint the model uses is one of ``robot``'s ``n_joints`` friction joints.

        Parameters
        ----------
        n_joints : int
            The robot's number of friction (relative) joints, ``n_ups`` of its kernel set.
        robot : str
            The robot's name, for the message.
        """
        if self.joints and max(self.joints) > n_joints:
            raise ValueError(f"friction model {self.name or self} uses joint {max(self.joints)}, "
                             f"but {robot!r} has {n_joints} friction joints")

    def param_names(self) -> list[str]:
        """``pi_F,j,k`` names in column order (``+``/``-`` suffix for asymmetric models)."""
        tag = {SIDE_SYMMETRIC: "", SIDE_POSITIVE: "+", SIDE_NEGATIVE: "-"}
        return [f"pi_F,{j + 1},{k}{tag[s]}" for j, k, s in self.columns()]

    def param_units(self) -> list[str]:
        """UDUNITS units of each coefficient (joint space, rotary joints)."""
        return ["N m" if k == 0 else f"N m s{k} rad-{k}" if k > 1 else "N m s rad-1" for _, k, _ in self.columns()]

    def torque(self, pi_F: np.ndarray, v: np.ndarray, joint: int) -> np.ndarray:
        """Friction torque tau_F [N m] of one joint at velocities v [rad/s] (resisting, eq. 10)."""
        v = np.asarray(v, dtype=float)
        cols = self.columns()
        out = np.zeros_like(v)
        for c, (j, k, s) in enumerate(cols):
            if j == joint - 1:
                out += pi_F[c] * _shape_np(v, k, s)
        return out


def _shape_np(v: np.ndarray, k: int, side: int) -> np.ndarray:
    a = np.abs(v) ** k
    if side == SIDE_SYMMETRIC:
        return np.sign(v) * a
    if side == SIDE_POSITIVE:
        return np.where(v > 0, a, 0.0)
    return np.where(v < 0, -a, 0.0)


#: The model configurations of the flagship paper's Table 4 for the 5R (joints 1, 2 actuated).
TABLE4: dict[int, FrictionModel] = {
    1: FrictionModel(joints=(1, 2, 3, 4, 5), order=4, name="model (1): all joints, order 4"),
    2: FrictionModel(joints=(1, 2), order=4, name="model (2): active joints, order 4"),
    3: FrictionModel(joints=(1, 2), order=3, name="model (3): active joints, order 3"),
    4: FrictionModel(joints=(1, 2), order=2, name="model (4): active joints, order 2"),
    5: FrictionModel(joints=(1, 2), order=1, name="model (5): active joints, order 1"),
}


def table4_model(number: int) -> FrictionModel:
    """Model (1)..(5) of Table 4."""
    try:
        return TABLE4[int(number)]
    except KeyError:
        raise ValueError(f"Table 4 has models 1..5, not {number!r}") from None


@rt_njit
def shape_function(v: float, k: int, side: int) -> float:  # pragma: no cover - compiled
    """Shape function s_k(v) of the friction models (see module docstring)."""
    a = abs(v) ** k if k > 0 else 1.0
    if side == 0:
        if v > 0.0:
            return a
        if v < 0.0:
            return -a
        return 0.0
    if side > 0:
        return a if v > 0.0 else 0.0
    return -a if v < 0.0 else 0.0


@rt_njit
def joint_friction(theta, cols, offset, joint, v):  # pragma: no cover - compiled
    """Identified friction torque of one relative joint (0-based) at velocity v [N m, resisting].

    ``theta[offset + c]`` is the coefficient of column ``c`` of ``cols``.
    """
    f = 0.0
    for c in range(cols.shape[0]):
        if cols[c, 0] == joint:
            f += theta[offset + c] * shape_function(v, cols[c, 1], cols[c, 2])
    return f


@rt_njit(inline="always")
def friction_regressor(D_ups, ups_d, cols, Y, offset):  # pragma: no cover - compiled
    """Write Y_F columns into ``Y[:, offset:offset + n_cols]``.

    Parameters
    ----------
    D_ups : ndarray, shape (n_v, n)
        Jacobians of the relative joint coordinates.
    ups_d : ndarray, shape (n_v,)
        Relative joint velocities [rad/s].
    cols : ndarray, shape (n_cols, 3), int64
        Column spec from :meth:`FrictionModel.columns`.
    Y : ndarray, shape (n, >= offset + n_cols)
        Regressor being filled.
    offset : int
        First friction column.
    """
    n = D_ups.shape[1]
    for c in range(cols.shape[0]):
        j = cols[c, 0]
        f = shape_function(ups_d[j], cols[c, 1], cols[c, 2])
        for i in range(n):
            Y[i, offset + c] = D_ups[j, i] * f


@rt_njit
def sum_rows(Y, R, y_sum):  # pragma: no cover - compiled
    """Summed row of eq. 13's text: y_sum = sum_i Y[i, :], returns R_sum = sum_i R[i]."""
    r = 0.0
    for c in range(Y.shape[1]):
        y_sum[c] = 0.0
    for i in range(Y.shape[0]):
        r += R[i]
        for c in range(Y.shape[1]):
            y_sum[c] += Y[i, c]
    return r
