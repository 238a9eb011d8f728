"""Batch identification of linear-in-parameters joint models: OLS, WLS, essential parameters.

The inverse dynamic identification model (IDIM) stacks ``tau = W beta + e`` over samples and
joints. :class:`LinearLeastSquares` solves it by an orthogonal factorization (never the normal
equations), in one of two ways:

- ``"ols"``: ordinary least squares, one noise variance for every row:
  ``sigma^2 = |r|^2 / (m - p)``;
- ``"wls"``: weighted least squares with one variance per joint (Gautier's weighting, as in
  paper 001's references): the OLS residuals of joint ``j``'s rows give
  ``sigma_j^2 = |r_j|^2 / (m_j - p m_j / m)``, every row of joint ``j`` is divided by ``sigma_j``
  and the problem is solved again.

Standard deviations come from ``cov = sigma^2 (W^T W)^-1`` (weighted: ``(W^T S^-1 W)^-1``), and
the relative standard deviation ``100 std / |beta|`` [%] grades each estimate (Pham & Gautier:
above ~10x the smallest, the parameter is poorly identified). :func:`essential_parameters`
removes, one at a time, the parameter with the largest relative standard deviation while the
residual grows by less than a stated fraction.

Estimators follow the project's shape: configure in the constructor, ``fit`` on data, learned
values in trailing-underscore attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

__all__ = ["LinearLeastSquares", "stack_rows", "essential_parameters", "EssentialResult"]


def stack_rows(W: np.ndarray, tau: np.ndarray, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stack per-sample regressors into rows.

    Parameters
    ----------
    W : ndarray, shape (N, n, p)
        Regressor per sample and joint.
    tau : ndarray, shape (N, n)
        Measured joint torques [N m].
    mask : ndarray of bool, shape (N, n), optional
        Rows to keep (e.g. a velocity gate per joint).

    Returns
    -------
    A : ndarray, shape (m, p)
    b : ndarray, shape (m,)
    joint : ndarray of int, shape (m,)
        Joint index (0-based) of each row.
    """
    W = np.asarray(W, dtype=np.float64)
    tau = np.asarray(tau, dtype=np.float64)
    if W.ndim != 3 or tau.shape != W.shape[:2]:
        raise ValueError(f"W must be (N, n, p) and tau (N, n); got {W.shape} and {tau.shape}")
    joint = np.broadcast_to(np.arange(W.shape[1]), tau.shape)
    if mask is None:
        mask = np.ones(tau.shape, dtype=bool)
    return W[mask], tau[mask], joint[mask]


@dataclass
class LinearLeastSquares:
    """OLS / WLS estimator with standard deviations.

    Parameters
    ----------
    method : {"ols", "wls"}
        See the module docstring.
    names : sequence of str, optional
        Parameter names (for reports).

    Attributes (after :meth:`fit`)
    ------------------------------
    theta_ : ndarray, shape (p,)
        Estimate.
    cov_ : ndarray, shape (p, p)
        Covariance of the estimate.
    std_ : ndarray, shape (p,)
        Standard deviations.
    rel_std_ : ndarray, shape (p,)
        ``100 std / |theta|`` [%] (``inf`` for an estimate of exactly 0).
    sigma_ : ndarray, shape (n_joints,)
        Noise standard deviation per joint [N m] (equal for OLS).
    cond_ : float
        2-norm condition number of the (weighted) data rows.
    n_rows_ : int
    rms_ : ndarray, shape (n_joints,)
        Unweighted RMS residual per joint on the fitted rows [N m].
    """

    method: str = "ols"
    names: Sequence[str] | None = None
    theta_: np.ndarray = field(init=False, repr=False)
    cov_: np.ndarray = field(init=False, repr=False)
    std_: np.ndarray = field(init=False, repr=False)
    rel_std_: np.ndarray = field(init=False, repr=False)
    sigma_: np.ndarray = field(init=False, repr=False)
    cond_: float = field(init=False, repr=False)
    n_rows_: int = field(init=False, repr=False)
    rms_: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.method not in ("ols", "wls"):
            raise ValueError(f"method must be 'ols' or 'wls', got {self.method!r}")

    @staticmethod
    def _solve(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Least squares by one QR of ``[A b]`` (columns scaled); returns theta, (A^T A)^-1, cond(A)."""
        scale = np.linalg.norm(A, axis=0)
        scale[scale == 0] = 1.0
        p = A.shape[1]
        Raug = np.linalg.qr(np.column_stack([A / scale, b]), mode="r")
        R, c = Raug[:p, :p], Raug[:p, p]
        s = np.linalg.svd(R, compute_uv=False)
        if s[-1] <= 1e-12 * s[0]:
            raise ValueError(f"regressor is rank deficient (condition number {s[0] / max(s[-1], 1e-300):.3g} after "
                             "column scaling): use base parameters or more exciting data")
        y = np.linalg.solve(R, c)
        Rinv = np.linalg.solve(R, np.eye(p))
        inv = (Rinv @ Rinv.T) / np.outer(scale, scale)
        su = np.linalg.svd(R * scale, compute_uv=False)  # R diag(scale) is A's R factor
        return y / scale, inv, float(su[0] / su[-1])

    def fit(self, A: np.ndarray, b: np.ndarray, joint: np.ndarray | None = None) -> "LinearLeastSquares":
        """Fit on stacked rows (see :func:`stack_rows`).

        Parameters
        ----------
        A : ndarray, shape (m, p)
        b : ndarray, shape (m,)
        joint : ndarray of int, shape (m,), optional
            Joint of each row (required for ``"wls"``; default all rows one joint).

        Raises
        ------
        ValueError
            Fewer rows than parameters, or a rank-deficient regressor.
        """
        A = np.asarray(A, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        m, p = A.shape
        if m <= p:
            raise ValueError(f"need more rows than parameters ({p}); got {m}")
        joint = np.zeros(m, dtype=int) if joint is None else np.asarray(joint, dtype=int)
        nj = int(joint.max()) + 1
        theta, inv, cond = self._solve(A, b)
        r = b - A @ theta
        if self.method == "ols":
            s2 = float(r @ r) / (m - p)
            sigma = np.full(nj, np.sqrt(s2))
            cov = s2 * inv
        else:
            sigma = np.empty(nj)
            for j in range(nj):
                rj = r[joint == j]
                mj = rj.size
                dof = mj - p * mj / m
                if mj == 0 or dof <= 0:
                    raise ValueError(f"WLS: joint {j + 1} has {mj} rows, too few for its variance")
                sigma[j] = np.sqrt(float(rj @ rj) / dof)
            if np.any(sigma <= 0):
                raise ValueError("WLS: a joint's residual is exactly zero (noise-free data): use OLS")
            w = 1.0 / sigma[joint]
            theta, cov, cond = self._solve(A * w[:, None], b * w)
            r = b - A @ theta
        self.theta_ = theta
        self.cov_ = cov
        self.std_ = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        with np.errstate(divide="ignore"):
            self.rel_std_ = np.where(theta != 0, 100.0 * self.std_ / np.abs(theta), np.inf)
        self.sigma_ = sigma
        self.cond_ = cond
        self.n_rows_ = m
        self.rms_ = np.array([np.sqrt(np.mean(r[joint == j] ** 2)) if np.any(joint == j) else np.nan for j in range(nj)])
        return self

    def predict(self, A: np.ndarray) -> np.ndarray:
        """``A @ theta_`` for rows (m, p) or per-sample regressors (N, n, p)."""
        return np.asarray(A) @ self.theta_

    def table(self) -> list[dict[str, float | str]]:
        """One dict per parameter: name, value, std, rel_std_percent."""
        names = list(self.names) if self.names is not None else [f"p{i}" for i in range(self.theta_.size)]
        return [{"name": n, "value": float(v), "std": float(s), "rel_std_percent": float(r)}
                for n, v, s, r in zip(names, self.theta_, self.std_, self.rel_std_)]


@dataclass
class EssentialResult:
    """Outcome of :func:`essential_parameters`.

    Attributes
    ----------
    keep : ndarray of int
        Columns kept (indices into the input).
    removed : list of str
        Names removed, in order.
    residual_ratio : list of float
        Residual norm after each removal divided by the full model's.
    fit : LinearLeastSquares
        The fit on the kept columns.
    """

    keep: np.ndarray
    removed: list[str]
    residual_ratio: list[float]
    fit: LinearLeastSquares


def essential_parameters(
    A: np.ndarray, b: np.ndarray, names: Sequence[str], joint: np.ndarray | None = None, *, method: str = "ols",
    ratio: float = 30.0, max_residual_increase: float = 0.01, protect: Sequence[str] = (),
) -> EssentialResult:
    """Essential parameters (Pham & Gautier 1991): drop poorly identified ones while the fit holds.

    Repeatedly remove the parameter with the largest relative standard deviation while the
    largest is more than ``ratio`` times the smallest, unless removing it raises the residual
    norm by more than ``max_residual_increase`` (relative to the full model), in which case stop.

    Parameters
    ----------
    A, b, joint : as for :meth:`LinearLeastSquares.fit`
    names : sequence of str
    method : {"ols", "wls"}
    ratio : float
        Stop when ``max(rel_std) / min(rel_std) <= ratio`` (FIGAROH uses 30 for the TX40).
    max_residual_increase : float
        Largest accepted relative growth of the residual norm.
    protect : sequence of str
        Names never removed (e.g. the friction parameters one wants reported).
    """
    names = list(names)
    keep = np.arange(A.shape[1])
    full = LinearLeastSquares(method, names).fit(A, b, joint)
    r0 = np.linalg.norm(b - A @ full.theta_)
    fit = full
    removed: list[str] = []
    ratios: list[float] = []
    while True:
        rel = fit.rel_std_.copy()
        if rel.max() <= ratio * rel.min():
            break
        cand = [k for k in np.argsort(rel)[::-1] if names[keep[k]] not in protect]
        if not cand:
            break
        k = cand[0]
        trial_keep = np.delete(keep, k)
        trial = LinearLeastSquares(method, [names[i] for i in trial_keep]).fit(A[:, trial_keep], b, joint)
        rr = np.linalg.norm(b - A[:, trial_keep] @ trial.theta_) / r0
        if rr - 1.0 > max_residual_increase:
            break
        removed.append(names[keep[k]])
        ratios.append(float(rr))
        keep, fit = trial_keep, trial
    return EssentialResult(keep, removed, ratios, fit)
