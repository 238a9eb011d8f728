"""The 5R planar parallel robot of the flagship paper: public API over the generated kernels.

>>> from paperlib.robots.five_bar import FiveBar
>>> robot = FiveBar.default()              # reads data/robots/five_bar.toml
>>> p, phi = robot.fk([2.0, 1.1])          # end point [m], distal angles [rad]
>>> q = robot.ik(p)                        # the paper's assembly/working-mode choice

Every method takes one state of shape (2,) or many of shape (N, 2) (SI units, radians)
and returns arrays with the same leading shape. A state outside the workspace or at the
parallel singularity raises :class:`ValueError` naming the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from paperlib._jit import rt_njit
from paperlib._toml import read_toml
from paperlib.robots._batch import as_states

from paperlib.kernels import five_bar as K
from paperlib.robots import _batch

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "data" / "robots" / "five_bar.toml"


@rt_njit
def _jacobians_batch(Q, prm, D_chi, D_psi, status):  # pragma: no cover - compiled
    """:func:`K.jacobians` at every state of ``Q`` (M, 2); cached on disk, unlike :mod:`._batch`'s generic loops.

    The planning polygon evaluates the condition index over a whole grid in every process (each
    sweep job, each notebook): a generic loop compiled anew each time cost ~0.4 s there.
    """
    for i in range(Q.shape[0]):
        status[i] = K.jacobians(Q[i], prm, D_chi[i], D_psi[i])


_REASONS = {
    K.STATUS_OUTSIDE: "outside the workspace (the distal links cannot close the loop)",
    K.STATUS_SINGULAR: "at the parallel singularity (distal links aligned)",
}


def _as_states(x: Any, name: str, n: int = 2) -> tuple[np.ndarray, bool]:
    """:func:`paperlib.robots._batch.as_states` for the 5R's two joints."""
    return as_states(x, name, n)


@dataclass(frozen=True)
class FiveBar:
    """5R robot with its known (a priori) model.

    Attributes
    ----------
    params : ndarray, shape (18,)
        Kernel parameter vector, layout ``paperlib.kernels.five_bar.PARAM_NAMES`` (SI).
    description : dict
        The parsed TOML description (with sources and reasons).
    """

    params: np.ndarray
    description: dict = field(repr=False)
    n_joints: int = 2
    n_drives: int = 2

    @property
    def sample_rate_hz(self) -> float:
        """Control rate of the rig [Hz] (the description's ``control.sample_rate_hz``; the paper: 4 kHz)."""
        return float(self.description["control"]["sample_rate_hz"])

    @property
    def kernels(self):
        """The kernel set the generic controller and plant call (:mod:`paperlib.robots.kernel_sets`)."""
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

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def default(cls) -> "FiveBar":
        """The robot of the paper, from ``data/robots/five_bar.toml``."""
        return cls.from_toml(DEFAULT_TOML)

    @classmethod
    def from_toml(cls, path: str | Path) -> "FiveBar":
        """Read a robot description (see ``data/robots/five_bar.toml`` for the keys)."""
        path = Path(path)
        d = read_toml(path)
        try:
            g, i, dr = d["geometry"], d["inertia"], d["drives"]
            values = {
                "l_f": g["l_f_m"], "l_p1": g["l_p1_m"], "l_p2": g["l_p2_m"],
                "l_d1": g["l_d1_m"], "l_d2": g["l_d2_m"],
                "r_d1x": g["r_d1_m"][0], "r_d1y": g["r_d1_m"][1],
                "r_d2x": g["r_d2_m"][0], "r_d2y": g["r_d2_m"][1],
                "I_p1": i["I_p1_kg_m2"], "I_p2": i["I_p2_kg_m2"],
                "I_d1": i["I_d1_kg_m2"], "I_d2": i["I_d2_kg_m2"],
                "m_d1": i["m_d1_kg"], "m_d2": i["m_d2_kg"], "m_p": i["m_p_kg"],
                "iota1": dr["gear_ratio"][0], "iota2": dr["gear_ratio"][1],
            }
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"{path}: missing or malformed robot parameter: {exc!r}") from exc
        params = np.array([float(values[n]) for n in K.PARAM_NAMES])
        if not np.all(np.isfinite(params)):
            raise ValueError(f"{path}: non-finite robot parameter")
        positive = [n for n in K.PARAM_NAMES if not n.startswith("r_")]
        bad = [n for n in positive if values[n] <= 0]
        if bad:
            raise ValueError(f"{path}: parameters must be positive: {bad}")
        return cls(params=params, description=d)

    def with_params(self, **changes: float) -> "FiveBar":
        """A copy with some kernel parameters changed (names from ``PARAM_NAMES``)."""
        params = self.params.copy()
        for k, v in changes.items():
            params[K.PARAM_NAMES.index(k)] = float(v)
        return FiveBar(params=params, description=self.description)

    def param(self, name: str) -> float:
        """One kernel parameter by name (SI)."""
        return float(self.params[K.PARAM_NAMES.index(name)])

    # -- descriptive values ---------------------------------------------------------------------
    @property
    def gear_ratios(self) -> np.ndarray:
        """Reduction ratios iota (2,): motor angle per joint angle."""
        return np.array([self.param("iota1"), self.param("iota2")])

    @property
    def base_joints(self) -> np.ndarray:
        """Grounded joint positions s1, s2 (2, 2) [m]."""
        lf = self.param("l_f")
        return np.array([[-lf / 2, 0.0], [lf / 2, 0.0]])

    @property
    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        """(q_min, q_max) [rad] from the description."""
        lim = self.description["limits"]
        return np.deg2rad(lim["q_min_deg"]), np.deg2rad(lim["q_max_deg"])

    # -- internal -------------------------------------------------------------------------------
    def _check(self, status: np.ndarray, Q: np.ndarray, what: str) -> None:
        bad = np.flatnonzero(status)
        if bad.size:
            k = int(bad[0])
            reason = _REASONS.get(int(status[k]), f"status {status[k]}")
            more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
            raise ValueError(
                f"{what}: q[{k}] = {Q[k].tolist()} rad is {reason}{more}"
            )

    # -- kinematics -----------------------------------------------------------------------------
    def chi_psi(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """chi (eq. 42) (..., 10) [rad x4, m x6] and internal angles psi (..., 5) [rad]."""
        Q, single = _as_states(q, "q")
        chi = np.empty((Q.shape[0], K.N_CHI))
        psi = np.empty((Q.shape[0], K.N_PSI))
        self._check(_batch.batch_q2(K.fk, Q, self.params, chi, psi), Q, "fk")
        return (chi[0], psi[0]) if single else (chi, psi)

    def fk(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """Forward kinematics: end point p (..., 2) [m] and distal angles phi (..., 2) [rad]."""
        chi, _ = self.chi_psi(q)
        return chi[..., 8:10], chi[..., 2:4]

    def psi(self, q: Any) -> np.ndarray:
        """The five internal (relative) joint angles psi_1..psi_5 (..., 5) [rad]."""
        return self.chi_psi(q)[1]

    def ik(self, p: Any) -> np.ndarray:
        """Inverse kinematics (eqs. 28-31): actuated angles q (..., 2) [rad] reaching p [m].

        Picks the paper's working mode: the solution with the lowest ``e_1x`` and the
        highest ``e_2x`` (elbows outward). Raises ValueError when p is unreachable or
        when that solution is not on the forward-kinematics branch (larger ``p_y``).
        """
        P, single = _as_states(p, "p")
        q = np.empty_like(P)
        lp = (self.param("l_p1"), self.param("l_p2"))
        ld = (self.param("l_d1"), self.param("l_d2"))
        for j, (s, pick_low_x) in enumerate(zip(self.base_joints, (True, False))):
            d = P - s
            dist2 = np.einsum("ij,ij->i", d, d)
            dist = np.sqrt(dist2)
            with np.errstate(invalid="ignore", divide="ignore"):
                a = (lp[j] ** 2 - ld[j] ** 2 + dist2) / (2 * dist)
                h2 = lp[j] ** 2 - a**2
            bad = ~(h2 >= 0) | (dist == 0)
            if np.any(bad):
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"ik: p[{k}] = {P[k].tolist()} m is outside the workspace (link {j + 1} cannot reach it)")
            h = np.sqrt(h2)
            mid = s + (a / dist)[:, None] * d
            perp = np.stack([-d[:, 1], d[:, 0]], axis=1) / dist[:, None]
            ea = mid + h[:, None] * perp
            eb = mid - h[:, None] * perp
            take_a = (ea[:, 0] < eb[:, 0]) if pick_low_x else (ea[:, 0] > eb[:, 0])
            e = np.where(take_a[:, None], ea, eb)
            q[:, j] = np.arctan2(e[:, 1] - s[1], e[:, 0] - s[0])
        p_back, _ = self.fk(q)
        off = np.linalg.norm(p_back - P, axis=1)
        if np.any(off > 1e-9):
            k = int(np.argmax(off))
            raise ValueError(
                f"ik: p[{k}] = {P[k].tolist()} m is reached by the paper's working mode only on the "
                "other assembly branch (smaller p_y)"
            )
        return q[0] if single else q

    def jacobians(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """D_chi (..., 10, 2) (rows 2-3 are D_phi, rows 8-9 D_p) and D_psi (..., 5, 2)."""
        Q, single = _as_states(q, "q")
        Dc = np.empty((Q.shape[0], K.N_CHI, 2))
        Dp = np.empty((Q.shape[0], K.N_PSI, 2))
        status = np.empty(Q.shape[0], dtype=np.int64)
        _jacobians_batch(Q, self.params, Dc, Dp, status)
        self._check(status, Q, "jacobians")
        return (Dc[0], Dp[0]) if single else (Dc, Dp)

    def jacobian_rates(self, q: Any, qd: Any) -> tuple[np.ndarray, np.ndarray]:
        """dD_chi/dt (..., 10, 2) and dD_psi/dt (..., 5, 2) [1/s] at joint rates qd [rad/s]."""
        Q, single = _as_states(q, "q")
        QD, _ = _as_states(qd, "qd")
        Dc = np.empty((Q.shape[0], K.N_CHI, 2))
        Dp = np.empty((Q.shape[0], K.N_PSI, 2))
        self._check(_batch.batch_qqd2(K.jacobian_rates, Q, QD, self.params, Dc, Dp), Q, "jacobian_rates")
        return (Dc[0], Dp[0]) if single else (Dc, Dp)

    def condition_index(self, q: Any, invalid: Literal["raise", "nan"] = "raise") -> np.ndarray | float:
        """sigma = sqrt(mu_min / mu_max) of D_p^T D_p (Fig. 4), in [0, 1].

        ``invalid="nan"``: a state outside the workspace or at a singularity gives NaN instead of
        the ``ValueError`` naming it (one batch for a whole planning grid; the valid states' values
        are the same either way).
        """
        if invalid not in ("raise", "nan"):
            raise ValueError(f"invalid must be 'raise' or 'nan', not {invalid!r}")
        if invalid == "raise":
            D_chi, _ = self.jacobians(q)
            sv = np.linalg.svd(np.asarray(D_chi)[..., 8:10, :], compute_uv=False)
            sigma = sv[..., -1] / sv[..., 0]
            return float(sigma) if np.ndim(sigma) == 0 else sigma
        Q, single = _as_states(q, "q")
        Dc = np.empty((Q.shape[0], K.N_CHI, 2))
        Dp = np.empty((Q.shape[0], K.N_PSI, 2))
        status = np.empty(Q.shape[0], dtype=np.int64)
        _jacobians_batch(Q, self.params, Dc, Dp, status)
        ok = status == 0
        out = np.full(Q.shape[0], np.nan)
        if ok.any():
            sv = np.linalg.svd(Dc[ok][:, 8:10, :], compute_uv=False)
            out[ok] = sv[:, -1] / sv[:, 0]
        return float(out[0]) if single else out

    # -- dynamics -------------------------------------------------------------------------------
    def mass_matrix(self, q: Any) -> np.ndarray:
        """M(q) (..., 2, 2) [kg m^2] (eq. 45)."""
        Q, single = _as_states(q, "q")
        M = np.empty((Q.shape[0], 2, 2))
        self._check(_batch.batch_q1(K.mass_matrix, Q, self.params, M), Q, "mass_matrix")
        return M[0] if single else M

    def coriolis_matrix(self, q: Any, qd: Any) -> np.ndarray:
        """C(q, qd) (..., 2, 2) [kg m^2/s] (eq. 46)."""
        Q, single = _as_states(q, "q")
        QD, _ = _as_states(qd, "qd")
        C = np.empty((Q.shape[0], 2, 2))
        self._check(_batch.batch_qqd1(K.coriolis_matrix, Q, QD, self.params, C), Q, "coriolis_matrix")
        return C[0] if single else C

    def inertial_lagrangian(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Q_I = -(M qdd + C qd) (..., 2) [N m] (eq. 3)."""
        Q, single = _as_states(q, "q")
        QD, _ = _as_states(qd, "qd")
        QDD, _ = _as_states(qdd, "qdd")
        if not (Q.shape == QD.shape == QDD.shape):
            raise ValueError(f"q, qd, qdd shapes differ: {Q.shape}, {QD.shape}, {QDD.shape}")
        out = np.empty((Q.shape[0], 2))
        self._check(_batch.batch_qqdqdd1(K.inertial_lagrangian, Q, QD, QDD, self.params, out), Q, "inertial_lagrangian")
        return out[0] if single else out

    def kinetic_energy(self, q: Any, qd: Any) -> np.ndarray | float:
        """T = 1/2 qd^T M qd [J]."""
        M = self.mass_matrix(q)
        qd = np.asarray(qd, dtype=float)
        T = 0.5 * np.einsum("...i,...ij,...j->...", qd, M, qd)
        return float(T) if np.ndim(T) == 0 else T
