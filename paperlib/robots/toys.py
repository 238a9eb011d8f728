"""Two toy robots that exercise the generic layers where the 5R does not.

* :class:`Pendulum`: one revolute joint under gravity, driven directly (no gearbox) and measured
  by a joint torque sensor (the shape of paper 004's joint). Its inertia about the axis is an
  *unknown* inertial parameter (an inertial column block of the regressor); its gravity torque
  is known and enters the right-hand side.
* :class:`TriDrive`: two degrees of freedom moved by three drives (redundant actuation, the
  shape of the 3-RRR's drive map): a constant 3x2 drive map, so the controller distributes the
  torque by the minimum-norm solution.

Both are horizontal-free toys with hand-written compiled kernels (the kernel-set interface of
:mod:`paperlib.robots.kernel_sets`); they are for tests, not papers. SI units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from paperlib._jit import rt_njit

G = 9.81
#: Pendulum parameters: inertia about the axis [kg m^2], mass times centre-of-mass distance [kg m].
PENDULUM_PARAM_NAMES = ("J", "m_l")
#: TriDrive parameters: masses of the two axes [kg], coupling inertia [kg], then the 3x2 drive map.
TRIDRIVE_PARAM_NAMES = ("m1", "m2", "m12", "d00", "d01", "d10", "d11", "d20", "d21")


@rt_njit
def pendulum_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I):  # pragma: no cover - compiled
    """Known gravity in ``R`` (the inertia is identified: ``Y_I = qdd``), unit drive map."""
    # Q_I + Q_G (known part) = -m l g sin(q); unknown inertial part -J qdd -> column +qdd
    R[0] = -prm[1] * G * math.sin(q[0])
    D_m[0, 0] = 1.0
    D_ups[0, 0] = 1.0
    ups_d[0] = qd[0]
    Y_I[0, 0] = qdd[0]
    return 0


@rt_njit
def pendulum_dynamics(q, qd, prm, M, h):  # pragma: no cover - compiled
    """M = J, h = m l g sin(q) (bias: gravity), for the plant."""
    M[0, 0] = prm[0]
    h[0] = prm[1] * G * math.sin(q[0])
    return 0


@rt_njit
def tridrive_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I):  # pragma: no cover - compiled
    """Constant mass matrix [[m1, m12], [m12, m2]], no gravity; drive map from the parameters."""
    R[0] = -(prm[0] * qdd[0] + prm[2] * qdd[1])
    R[1] = -(prm[2] * qdd[0] + prm[1] * qdd[1])
    for d in range(3):
        for i in range(2):
            D_m[d, i] = prm[3 + 2 * d + i]
    for i in range(2):
        for j in range(2):
            D_ups[i, j] = 1.0 if i == j else 0.0
        ups_d[i] = qd[i]
    return 0


@rt_njit
def tridrive_dynamics(q, qd, prm, M, h):  # pragma: no cover - compiled
    M[0, 0] = prm[0]
    M[0, 1] = prm[2]
    M[1, 0] = prm[2]
    M[1, 1] = prm[1]
    h[0] = 0.0
    h[1] = 0.0
    return 0


def _description(n: int, n_drv: int, kp, kd, tau_max) -> dict:
    return {"control": {"kp_Nm_per_rad": list(kp), "kd_Nm_s_per_rad": list(kd)},
            "drives": {"max_torque_Nm": list(tau_max)}}


@dataclass(frozen=True)
class Pendulum:
    """One joint under gravity with a joint torque sensor (the drive's torque is measured there)."""

    params: np.ndarray = field(default_factory=lambda: np.array([0.05, 0.4]))
    description: dict = field(default_factory=lambda: _description(1, 1, [8.0], [0.6], [20.0]), repr=False)
    n_joints: int = 1
    name: str = "toy_pendulum"

    @property
    def kernels(self):
        from paperlib.robots.kernel_sets import PENDULUM

        return PENDULUM


@dataclass(frozen=True)
class TriDrive:
    """Two degrees of freedom, three drives (redundant): drive map rows (1, 0), (0, 1), (0.5, 0.5)."""

    params: np.ndarray = field(default_factory=lambda: np.array([0.8, 0.5, 0.1, 1.0, 0.0, 0.0, 1.0, 0.5, 0.5]))
    description: dict = field(default_factory=lambda: _description(2, 3, [40.0, 40.0], [3.0, 3.0], [30.0] * 3),
                              repr=False)
    n_joints: int = 2
    name: str = "toy_tridrive"

    @property
    def kernels(self):
        from paperlib.robots.kernel_sets import TRIDRIVE

        return TRIDRIVE
