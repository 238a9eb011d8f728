"""Physically consistent identification of serial-arm parameters: a semidefinite program.

Least squares on base parameters can return values no rigid body has (a negative mass, an
inertia that violates the triangle inequality, negative friction). Following Wensing, Kim &
Slotine (2017, "Linear matrix inequalities for physically consistent inertial parameter
identification"), each link's 10 standard parameters are consistent exactly when its 4x4
pseudo-inertia

    J = [[tr(I)/2 1 - I, h], [h^T, m]]     (I about the frame origin, h = m c)

is positive semidefinite. :class:`PhysicalLeastSquares` solves

    min |S (W_b K pi - tau)|^2 + lambda |pi - pi_ref|^2
    s.t. J_i(pi) >= eps 1 (every link),  fv, fs, Ia, Iam, fvm, fsm >= 0,

over the *full* parameter vector ``pi`` (the base parameters are ``beta = K pi``), with cvxpy
and the Clarabel interior-point solver (PyPI ``clarabel``). ``S`` holds the WLS weights (one
per joint) when given. The small ``lambda`` (relative to the data's scale) picks, among the
full vectors with the same base values, the one closest to the nominal model ``pi_ref``: the
data say nothing about those directions. The data enter only through the QR factor of the
weighted base regressor, so the program's size does not grow with the number of samples.

The estimator follows :mod:`paperlib.estimation.protocol`; its ``params_`` are the base
parameters ``beta_`` (what the data determine), with ``std_`` from the unconstrained weighted
least-squares covariance ``s^2 (R^T R)^+`` (exact when no constraint is active at the solution).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from paperlib.estimation.protocol import EstimatorMixin, check_array, from_json_array, from_json_float

__all__ = ["PhysicalLeastSquares", "pseudo_inertia", "min_pseudo_inertia_eigenvalues"]

#: per-joint and coupling parameters that must be >= 0 (by name prefix)
NONNEGATIVE_PREFIXES = ("fv", "fs", "Ia", "Iam", "fvm", "fsm")


def pseudo_inertia(pi10: np.ndarray) -> np.ndarray:
    """The 4x4 pseudo-inertia of one body's 10 standard parameters (see the module docstring)."""
    m, hx, hy, hz, xx, xy, yy, xz, yz, zz = pi10
    I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(I) * np.eye(3) - I
    J[:3, 3] = J[3, :3] = (hx, hy, hz)
    J[3, 3] = m
    return J


def min_pseudo_inertia_eigenvalues(inertial: np.ndarray) -> np.ndarray:
    """Smallest eigenvalue of each link's pseudo-inertia, (n,) [kg m^2]; >= 0 means consistent."""
    inertial = np.asarray(inertial).reshape(-1, 10)
    return np.array([np.linalg.eigvalsh(pseudo_inertia(p)).min() for p in inertial])


def _nonnegative(name: str) -> bool:
    if name.startswith(("fv2", "fv3")):  # polynomial terms of eq. 4 may take either sign
        return False
    return name.startswith(NONNEGATIVE_PREFIXES) and name.rstrip("0123456789") in NONNEGATIVE_PREFIXES


@dataclass
class PhysicalLeastSquares(EstimatorMixin):
    """Physically consistent estimate by semidefinite programming.

    Parameters
    ----------
    names : sequence of str
        Full parameter names (``SerialArm.param_names``): the first ``10 n`` are inertial.
    n_links : int
    K : ndarray, shape (r, p)
        Base projection (``beta = K pi``, :class:`paperlib.robots.base_parameters.BaseParameters`).
    pi_ref : ndarray, shape (p,)
        Reference (nominal) full vector for the regularization.
    lam : float
        Regularization weight relative to ``|R|_F^2 / p`` of the data's QR factor.
    eps : float
        Margin on the pseudo-inertias [kg m^2] (strictly positive definite links).
    solver : str
        cvxpy solver name (default ``"CLARABEL"``).

    Attributes (after :meth:`fit`)
    ------------------------------
    pi_ : ndarray, shape (p,)
        Full consistent parameter vector.
    beta_ : ndarray, shape (r,)
        Its base parameters ``K pi_``.
    min_eig_ : ndarray, shape (n_links,)
        Smallest pseudo-inertia eigenvalue per link.
    status_ : str
        Solver status.
    params_ : ndarray, shape (r,)
        ``beta_`` (the protocol's name).
    std_ : ndarray, shape (r,)
        Standard deviations of the base parameters (module docstring) [their units].
    residual_rms_ : float
        Unweighted RMS of ``A_base beta_ - b`` [N m].
    """

    names: Sequence[str]
    n_links: int
    K: np.ndarray
    pi_ref: np.ndarray
    lam: float = 1e-6
    eps: float = 1e-6
    solver: str = "CLARABEL"
    pi_: np.ndarray = field(init=False, repr=False)
    beta_: np.ndarray = field(init=False, repr=False)
    min_eig_: np.ndarray = field(init=False, repr=False)
    status_: str = field(init=False, repr=False)
    std_: np.ndarray = field(init=False, repr=False)
    residual_rms_: float = field(init=False, repr=False)

    _fitted_attr = "beta_"

    @property
    def params_(self) -> np.ndarray:
        """The base parameters ``beta_``, shape (r,)."""
        return self.beta_

    def fit(self, A_base: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> "PhysicalLeastSquares":
        """Fit on stacked base-regressor rows ``A_base`` (m, r) and torques ``b`` (m,).

        ``weights`` (m,) multiply rows (``1 / sigma_joint`` for WLS).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Non-finite or misshapen input.
        RuntimeError
            When the solver does not reach an optimal solution (its status is named).
        """
        import cvxpy as cp

        who = "PhysicalLeastSquares.fit"
        A = check_array(A_base, "A_base", ndim=2, who=who)
        b = check_array(b, "b", shape=(A.shape[0],), who=who)
        K = np.asarray(self.K)
        if A.shape[1] != K.shape[0]:
            raise ValueError(f"{who}: A_base has {A.shape[1]} columns, K has {K.shape[0]} rows")
        if weights is not None:
            weights = check_array(weights, "weights", shape=(A.shape[0],), who=who)
        A_rows, b_rows = A, b
        if weights is not None:
            A = A * weights[:, None]
            b = b * weights
        Q, R = np.linalg.qr(A, mode="reduced")
        c = Q.T @ b
        M = R @ self.K
        p = self.K.shape[1]
        pi = cp.Variable(p)
        scale = np.linalg.norm(R, "fro") ** 2 / p
        obj = cp.sum_squares(M @ pi - c) + self.lam * scale * cp.sum_squares(pi - self.pi_ref)
        cons = []
        for i in range(self.n_links):
            o = 10 * i
            m, hx, hy, hz, xx, xy, yy, xz, yz, zz = (pi[o + k] for k in range(10))
            tr = 0.5 * (xx + yy + zz)
            # P = J - eps 1 must be positive semidefinite
            P = cp.Variable((4, 4), PSD=True)
            e = self.eps
            cons += [
                P[0, 0] == tr - xx - e, P[1, 1] == tr - yy - e, P[2, 2] == tr - zz - e, P[3, 3] == m - e,
                P[0, 1] == -xy, P[0, 2] == -xz, P[1, 2] == -yz, P[0, 3] == hx, P[1, 3] == hy, P[2, 3] == hz,
            ]
        nonneg = [k for k, n in enumerate(self.names) if k >= 10 * self.n_links and _nonnegative(n)]
        if nonneg:
            cons.append(pi[nonneg] >= 0)
        prob = cp.Problem(cp.Minimize(obj), cons)
        try:
            prob.solve(solver=self.solver)
        except cp.error.SolverError as exc:
            raise RuntimeError(f"physically consistent fit: solver {self.solver} failed ({exc})") from None
        self.status_ = str(prob.status)
        if prob.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(f"physically consistent fit: solver status {prob.status!r}")
        self.pi_ = np.asarray(pi.value, dtype=np.float64)
        self.beta_ = self.K @ self.pi_
        self.min_eig_ = min_pseudo_inertia_eigenvalues(self.pi_[: 10 * self.n_links])
        rw = A @ self.beta_ - b
        s2 = float(rw @ rw) / max(A.shape[0] - A.shape[1], 1)
        self.std_ = np.sqrt(np.clip(np.diag(s2 * np.linalg.pinv(R.T @ R)), 0.0, None))
        self.residual_rms_ = float(np.sqrt(np.mean((A_rows @ self.beta_ - b_rows) ** 2)))
        return self

    def predict(self, A_base: np.ndarray) -> np.ndarray:
        """Torques ``A_base @ beta_`` for base-regressor rows (m, r) or per-sample (N, n, r) [N m]."""
        self._check_fitted()
        return np.asarray(A_base, dtype=np.float64) @ self.beta_

    def _to_json(self) -> dict[str, object]:
        return {"names": list(self.names), "n_links": self.n_links, "K": np.asarray(self.K),
                "pi_ref": np.asarray(self.pi_ref), "lam": self.lam, "eps": self.eps, "solver": self.solver,
                "pi": self.pi_, "beta": self.beta_, "std": self.std_, "min_eig": self.min_eig_,
                "status": self.status_, "residual_rms": self.residual_rms_,
                "units": {"residual_rms": "N m", "min_eig": "kg m^2"}}

    @classmethod
    def from_json(cls, d: dict) -> "PhysicalLeastSquares":
        """A fitted estimator from :meth:`to_json` output."""
        try:
            K = from_json_array(d["K"])
            self = cls(list(d["names"]), int(d["n_links"]), K.reshape(len(d["K"]), -1),
                       from_json_array(d["pi_ref"]), lam=float(d["lam"]), eps=float(d["eps"]),
                       solver=str(d["solver"]))
            self.pi_ = from_json_array(d["pi"])
            self.beta_ = from_json_array(d["beta"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a PhysicalLeastSquares description ({type(exc).__name__}: {exc})") from None
        self.std_ = from_json_array(d.get("std"))
        self.min_eig_ = from_json_array(d.get("min_eig"))
        self.status_ = str(d.get("status", ""))
        self.residual_rms_ = from_json_float(d.get("residual_rms"))
        return self
