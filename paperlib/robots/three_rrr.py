"""The 3-RRR redundantly actuated planar parallel robot of paper 002: public API over its kernels.

>>> from paperlib.robots.three_rrr import ThreeRRR
>>> robot = ThreeRRR.default()                  # reads data/robots/three_rrr.toml
>>> th = robot.ik([0.23, 0.20])                 # drive angles (3,) [rad] at the platform point [m]
>>> p = robot.fk(th)                            # back to the point (eqs. 5-7)
>>> tau = robot.min_norm_torques(p, [0.1, 0], [1.0, 0])   # eq. 37, (3,) [N m]

The platform point ``p`` (the paper's ``O``) is the state: every method takes one point of
shape (2,) or many of shape (N, 2) [m] (velocities [m/s], accelerations [m/s^2]) and returns
arrays with the same leading shape. A point outside the workspace or at a chain's serial
singularity raises :class:`ValueError` naming the point.

Frames: Table 1 gives the drive joints ``D_i`` in the *base frame* used here. Table 3's path
points do not fit that frame (see ``[frame]`` in the TOML); :meth:`ThreeRRR.from_table3_mm`
maps them by the documented translation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paperlib._toml import read_toml
from paperlib._jit import rt_njit
from paperlib.kernels import three_rrr as K
from paperlib.robots import _batch
from paperlib.robots.five_bar import _as_states

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "data" / "robots" / "three_rrr.toml"

_REASONS = {
    K.STATUS_OUTSIDE: "outside the workspace (a chain cannot reach it)",
    K.STATUS_SINGULAR: "at a serial singularity (a chain stretched or folded)",
}

RPM = 2.0 * np.pi / 60.0


@rt_njit
def min_norm_distribution(J_a, F, tau):  # pragma: no cover - compiled
    """Minimum-norm drive torques ``tau = J_a (J_a^T J_a)^{-1} F`` (eq. 37), written into ``tau`` (3,).

    ``J_a`` (3, 2) [rad/m], ``F`` (2,) [N]. Among all ``tau`` with ``J_a^T tau = F`` this has the
    smallest Euclidean norm. Returns 0, or 1 when ``J_a^T J_a`` is singular.
    """
    a00 = 0.0
    a01 = 0.0
    a11 = 0.0
    for i in range(3):
        a00 += J_a[i, 0] * J_a[i, 0]
        a01 += J_a[i, 0] * J_a[i, 1]
        a11 += J_a[i, 1] * J_a[i, 1]
    det = a00 * a11 - a01 * a01
    if det <= 1e-300:
        return 1
    y0 = (a11 * F[0] - a01 * F[1]) / det
    y1 = (a00 * F[1] - a01 * F[0]) / det
    for i in range(3):
        tau[i] = J_a[i, 0] * y0 + J_a[i, 1] * y1
    return 0


@dataclass(frozen=True)
class ThreeRRR:
    """3-RRR robot with its known (a priori) model.

    Attributes
    ----------
    params : ndarray, shape (37,)
        Kernel parameter vector, layout ``paperlib.kernels.three_rrr.PARAM_NAMES`` (SI).
    description : dict
        The parsed TOML description (with sources and reasons).
    """

    params: np.ndarray
    description: dict = field(repr=False)
    n_drives: int = 3
    n_joints: int = 2   # the platform point p

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def default(cls) -> "ThreeRRR":
        """The robot of the paper, from ``data/robots/three_rrr.toml``."""
        return cls.from_toml(DEFAULT_TOML)

    @classmethod
    def from_toml(cls, path: str | Path) -> "ThreeRRR":
        """Read a robot description (see ``data/robots/three_rrr.toml`` for the keys)."""
        path = Path(path)
        d = read_toml(path)
        try:
            g, i, w = d["geometry"], d["inertia"], d["working_mode"]
            values: dict[str, float] = {}
            for k in range(3):
                n = k + 1
                values[f"xD{n}"], values[f"yD{n}"] = (float(x) for x in g["D_m"][k])
                values[f"lD{n}"] = g["L_D_m"][k]
                values[f"lB{n}"] = g["L_B_m"][k]
                values[f"rD{n}"] = i["r_D_m"][k]
                values[f"rB{n}"] = i["r_B_m"][k]
                values[f"mD{n}"] = i["m_D_kg"][k]
                values[f"mB{n}"] = i["m_B_kg"][k]
                values[f"ID{n}"] = i["I_D_kg_m2"][k]
                values[f"IB{n}"] = i["I_B_kg_m2"][k]
                values[f"Ir{n}"] = i["I_r_kg_m2"][k]
                values[f"sigma{n}"] = w["sigma"][k]
            values["m_p"] = i["m_p_kg"]
            d["drives"]["gear_ratio"], d["frame"]["table3_offset_m"], d["work_region"]["radius_m"]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: missing or malformed robot parameter: {exc!r}") from exc
        params = np.array([float(values[n]) for n in K.PARAM_NAMES])
        if not np.all(np.isfinite(params)):
            raise ValueError(f"{path}: non-finite robot parameter")
        positive = [n for n in K.PARAM_NAMES if n[0] in "lmIr" or n == "m_p"]
        bad = [n for n in positive if values[n] <= 0]
        if bad:
            raise ValueError(f"{path}: parameters must be positive: {bad}")
        if any(abs(values[f"sigma{n}"]) != 1.0 for n in (1, 2, 3)):
            raise ValueError(f"{path}: working_mode.sigma entries must be +1 or -1")
        return cls(params=params, description=d)

    def with_params(self, **changes: float) -> "ThreeRRR":
        """A copy with some kernel parameters changed (names from ``PARAM_NAMES``)."""
        params = self.params.copy()
        for k, v in changes.items():
            params[K.PARAM_NAMES.index(k)] = float(v)
        return ThreeRRR(params=params, description=self.description)

    def scaled_inertia(self, factor: float) -> "ThreeRRR":
        """A copy with every mass and inertia multiplied by ``factor`` (geometry unchanged)."""
        names = [n for n in K.PARAM_NAMES if n[0] in "mI"]
        return self.with_params(**{n: self.param(n) * factor for n in names})

    def param(self, name: str) -> float:
        """One kernel parameter by name (SI)."""
        return float(self.params[K.PARAM_NAMES.index(name)])

    @property
    def kernels(self):
        """The kernel set the generic plant and controller call (:mod:`paperlib.robots.kernel_sets`)."""
        from paperlib.robots.kernel_sets import kernel_set

        return kernel_set(self.name)

    @property
    def name(self) -> str:
        """Robot name (the description's ``robot.name``; a recording's ``robot`` attribute)."""
        return str(self.description["robot"]["name"])

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the kernel parameters ``params`` (the generated kernels' ``PARAM_NAMES``)."""
        return tuple(K.PARAM_NAMES)

    # -- descriptive values ---------------------------------------------------------------------
    @property
    def base_joints(self) -> np.ndarray:
        """Drive joints D_1..3 (3, 2) [m] (Table 1)."""
        return np.array([[self.param(f"xD{n}"), self.param(f"yD{n}")] for n in (1, 2, 3)])

    @property
    def link_lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """(L_D, L_B), each (3,) [m]."""
        return (np.array([self.param(f"lD{n}") for n in (1, 2, 3)]),
                np.array([self.param(f"lB{n}") for n in (1, 2, 3)]))

    @property
    def gear_ratio(self) -> float:
        """Reduction ratio n (paper: 100)."""
        return float(self.description["drives"]["gear_ratio"])

    @property
    def joint_speed_max(self) -> float:
        """omega_max / n [rad/s] at the joint (paper: 3500 r/min through 100:1)."""
        return float(self.description["drives"]["motor_speed_max_rpm"]) * RPM / self.gear_ratio

    @property
    def joint_torque_max(self) -> float:
        """n ||tau||_max [N m] at the joint (the motor limit is assumed)."""
        return float(self.description["drives"]["motor_torque_max_Nm"]) * self.gear_ratio

    @property
    def work_centre(self) -> np.ndarray:
        """Centre of the work region W (2,) [m] (the centroid of D_1..3)."""
        return np.asarray(self.description["work_region"]["centre_m"], dtype=float)

    @property
    def work_radius(self) -> float:
        """Radius of the work region W [m] (assumed)."""
        return float(self.description["work_region"]["radius_m"])

    def from_table3_mm(self, xy_mm: Any) -> np.ndarray:
        """Table 3 coordinates [mm] -> base-frame point [m] (the documented translation)."""
        return np.asarray(xy_mm, dtype=float) / 1000.0 - np.asarray(self.description["frame"]["table3_offset_m"])

    def path_endpoints(self) -> tuple[np.ndarray, np.ndarray]:
        """Table 3's E1 and E2 in the base frame [m]."""
        pth = self.description["path"]
        return self.from_table3_mm(pth["E1_mm"]), self.from_table3_mm(pth["E2_mm"])

    # -- internal -------------------------------------------------------------------------------
    def _check(self, status: np.ndarray, P: np.ndarray, what: str) -> None:
        bad = np.flatnonzero(status)
        if bad.size:
            k = int(bad[0])
            reason = _REASONS.get(int(status[k]), f"status {status[k]}")
            more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
            raise ValueError(f"{what}: p[{k}] = {P[k].tolist()} m is {reason}{more}")

    # -- kinematics -----------------------------------------------------------------------------
    def positions(self, p: Any) -> np.ndarray:
        """chi (..., 20): th_1..3, thb_1..3 [rad], link centres of mass and p [m]."""
        P, single = _as_states(p, "p")
        chi = np.empty((P.shape[0], K.N_CHI))
        self._check(_batch.batch_q1(K.positions, P, self.params, chi), P, "positions")
        return chi[0] if single else chi

    def ik(self, p: Any) -> np.ndarray:
        """Inverse kinematics: drive angles th_1..3 (..., 3) [rad] at platform point p [m]."""
        return self.positions(p)[..., 0:3]

    def passive_angles(self, p: Any) -> np.ndarray:
        """Passive (distal) link angles thb_1..3 (..., 3) [rad]."""
        return self.positions(p)[..., 3:6]

    def fk(self, th: Any) -> np.ndarray:
        """Forward kinematics (eqs. 3-7): platform point (..., 2) [m] from drive angles th (..., 3).

        The elbows ``B_i`` follow from ``th``; ``p`` solves the two linear equations obtained by
        subtracting the circle equations ``|p - B_i| = L_Bi`` (eq. 4; exact when the three
        angles are consistent, the least-squares point of eq. 7 otherwise).
        """
        T, single = _as_states(th, "th", n=3)
        lD, lB = self.link_lengths
        B = self.base_joints[None] + lD[None, :, None] * np.stack([np.cos(T), np.sin(T)], axis=-1)
        C = np.einsum("nik,nik->ni", B, B) - lB[None] ** 2  # eq. 6
        A = 2.0 * np.stack([B[:, 1] - B[:, 0], B[:, 2] - B[:, 0]], axis=1)  # (N, 2, 2)
        rhs = np.stack([C[:, 1] - C[:, 0], C[:, 2] - C[:, 0]], axis=1)
        det = np.linalg.det(A)
        if np.any(np.abs(det) < 1e-12):
            k = int(np.argmin(np.abs(det)))
            raise ValueError(f"fk: th[{k}] = {T[k].tolist()} rad puts the three elbows on one line")
        P = np.linalg.solve(A, rhs[..., None])[..., 0]
        return P[0] if single else P

    def jacobians(self, p: Any) -> np.ndarray:
        """D_chi (..., 20, 2): rows 0-2 the actuated Jacobian J_a [rad/m], rows 3-5 the passive one."""
        P, single = _as_states(p, "p")
        D = np.empty((P.shape[0], K.N_CHI, 2))
        self._check(_batch.batch_q1(K.jacobians, P, self.params, D), P, "jacobians")
        return D[0] if single else D

    def actuated_jacobian(self, p: Any) -> np.ndarray:
        """J_a (..., 3, 2) [rad/m]: th_dot = J_a p_dot."""
        return self.jacobians(p)[..., 0:3, :]

    def jacobian_rates(self, p: Any, pd: Any) -> np.ndarray:
        """dD_chi/dt (..., 20, 2) along the platform velocity pd [m/s]."""
        P, single = _as_states(p, "p")
        PD, _ = _as_states(pd, "pd")
        D = np.empty((P.shape[0], K.N_CHI, 2))
        self._check(_batch.batch_qqd1(K.jacobian_rates, P, PD, self.params, D), P, "jacobian_rates")
        return D[0] if single else D

    def singular_values(self, p: Any) -> dict[str, np.ndarray]:
        """Singular values (..., 2) of J_a [rad/m] and of M_s^-1 J_a^T [1/(kg m)] (Table 4's formulas)."""
        J = self.actuated_jacobian(p)
        M = self.mass_matrix(p)
        A = np.linalg.solve(M, np.swapaxes(J, -1, -2))
        return {"J_a": np.linalg.svd(J, compute_uv=False), "Minv_JT": np.linalg.svd(A, compute_uv=False)}

    # -- dynamics -------------------------------------------------------------------------------
    def mass_matrix(self, p: Any) -> np.ndarray:
        """M_s(p) (..., 2, 2) [kg] (eq. 36)."""
        P, single = _as_states(p, "p")
        M = np.empty((P.shape[0], 2, 2))
        self._check(_batch.batch_q1(K.mass_matrix, P, self.params, M), P, "mass_matrix")
        return M[0] if single else M

    def coriolis_matrix(self, p: Any, pd: Any) -> np.ndarray:
        """C_s(p, pd) (..., 2, 2) [kg/s] (eq. 36)."""
        P, single = _as_states(p, "p")
        PD, _ = _as_states(pd, "pd")
        C = np.empty((P.shape[0], 2, 2))
        self._check(_batch.batch_qqd1(K.coriolis_matrix, P, PD, self.params, C), P, "coriolis_matrix")
        return C[0] if single else C

    def inverse_dynamics(self, p: Any, pd: Any, pdd: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(F, J_a, qd_a): platform force M_s pdd + C_s pd (..., 2) [N], J_a (..., 3, 2), drive rates (..., 3)."""
        P, single = _as_states(p, "p")
        PD, _ = _as_states(pd, "pd")
        PDD, _ = _as_states(pdd, "pdd")
        if not (P.shape == PD.shape == PDD.shape):
            raise ValueError(f"p, pd, pdd shapes differ: {P.shape}, {PD.shape}, {PDD.shape}")
        n = P.shape[0]
        F, J, qd = np.empty((n, 2)), np.empty((n, 3, 2)), np.empty((n, 3))
        self._check(_batch.batch_qqdqdd3(K.inverse_dynamics, P, PD, PDD, self.params, F, J, qd), P,
                    "inverse_dynamics")
        return (F[0], J[0], qd[0]) if single else (F, J, qd)

    def min_norm_torques(self, p: Any, pd: Any, pdd: Any) -> np.ndarray:
        """Drive torques (..., 3) [N m] of eq. 37: tau = (J_a^T)^+ (M_s pdd + C_s pd), the least-norm split."""
        F, J, _ = self.inverse_dynamics(p, pd, pdd)
        F2, J2 = np.atleast_2d(F), J.reshape(-1, 3, 2)
        tau = np.empty((F2.shape[0], 3))
        for k in range(F2.shape[0]):
            if min_norm_distribution(J2[k], F2[k], tau[k]):
                raise ValueError(f"min_norm_torques: J_a^T J_a singular at state {k}")
        return tau[0] if np.ndim(F) == 1 else tau

    def kinetic_energy(self, p: Any, pd: Any) -> np.ndarray | float:
        """T = 1/2 pd^T M_s pd [J]."""
        M = self.mass_matrix(p)
        pd = np.asarray(pd, dtype=float)
        T = 0.5 * np.einsum("...i,...ij,...j->...", pd, M, pd)
        return float(T) if np.ndim(T) == 0 else T
