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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

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
class PhysicalLeastSquares:
    """Physically consistent estimate by semidefinite programming.

    Parameters
    ----------
    names : sequence of str
        Full parameter names (``SerialArm.param_names``): the first ``10 n`` are inertial.
    n_links : int
    K : ndarray, shape (r, p)
        Base projection (``beta = K pi``, :class:`paperlib.estimation.base_parameters.BaseParameters`).
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

    def fit(self, A_base: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> "PhysicalLeastSquares":
        """Fit on stacked base-regressor rows ``A_base`` (m, r) and torques ``b`` (m,).

        ``weights`` (m,) multiply rows (``1 / sigma_joint`` for WLS).

        Raises
        ------
        RuntimeError
            When the solver does not reach an optimal solution (its status is named).
        """
        import cvxpy as cp

        A = np.asarray(A_base, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
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
        return self
