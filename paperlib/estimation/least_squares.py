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

Estimators follow the project's protocol (:mod:`paperlib.estimation.protocol`): configure in the
constructor, ``fit`` on data, learned values in trailing-underscore attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from paperlib.estimation.protocol import EstimatorMixin, check_array, from_json_array, from_json_float

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
class LinearLeastSquares(EstimatorMixin):
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
    residual_rms_ : float
        Unweighted RMS residual over all fitted rows [N m].
    params_ : ndarray, shape (p,)
        ``theta_`` (the protocol's name).
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
    residual_rms_: float = field(init=False, repr=False)

    _fitted_attr = "theta_"

    @property
    def params_(self) -> np.ndarray:
        """The estimate (``theta_``), shape (p,)."""
        return self.theta_

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
        A : ndarray, shape (m, p), or (N, n, p) per-sample regressors
        b : ndarray, shape (m,), or (N, n) torques (then stacked by :func:`stack_rows`)
        joint : ndarray of int, shape (m,), optional
            Joint of each row (required for ``"wls"``; default all rows one joint).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Non-finite or misshapen input, fewer rows than parameters, or a rank-deficient regressor.
        """
        if np.ndim(A) == 3 and joint is None:
            A, b, joint = stack_rows(check_array(A, "A", who="LinearLeastSquares.fit"),
                                     check_array(b, "b", ndim=2, who="LinearLeastSquares.fit"))
        A = check_array(A, "A", ndim=2, who="LinearLeastSquares.fit")
        b = check_array(b, "b", shape=(A.shape[0],), who="LinearLeastSquares.fit")
        if joint is not None:
            joint = check_array(joint, "joint", shape=(A.shape[0],), who="LinearLeastSquares.fit")
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
        self.residual_rms_ = float(np.sqrt(np.mean(r ** 2)))
        return self

    def predict(self, A: np.ndarray) -> np.ndarray:
        """``A @ theta_`` for rows (m, p) or per-sample regressors (N, n, p)."""
        self._check_fitted()
        return np.asarray(A) @ self.theta_

    def _to_json(self) -> dict[str, object]:
        return {"method": self.method, "names": None if self.names is None else list(self.names),
                "theta": self.theta_, "std": self.std_, "cov": self.cov_, "rel_std_percent": self.rel_std_,
                "sigma": self.sigma_, "cond": self.cond_, "n_rows": self.n_rows_, "rms": self.rms_,
                "residual_rms": self.residual_rms_, "units": "those of the rows (SI: N m)"}

    @classmethod
    def from_json(cls, d: dict) -> "LinearLeastSquares":
        """A fitted estimator from :meth:`to_json` output (enough to predict and report)."""
        try:
            self = cls(d.get("method", "ols"), d.get("names"))
            self.theta_ = from_json_array(d["theta"])
            self.std_ = from_json_array(d["std"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a LinearLeastSquares description ({type(exc).__name__}: {exc})") from None
        p = self.theta_.size
        self.cov_ = from_json_array(d["cov"]).reshape(p, p) if d.get("cov") is not None else np.full((p, p), np.nan)
        self.rel_std_ = from_json_array(d["rel_std_percent"]) if "rel_std_percent" in d else np.full(p, np.nan)
        self.sigma_ = from_json_array(d.get("sigma"))
        self.cond_ = from_json_float(d.get("cond"))
        self.n_rows_ = int(d.get("n_rows", 0))
        self.rms_ = from_json_array(d.get("rms"))
        self.residual_rms_ = from_json_float(d.get("residual_rms"))
        return self

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
        Stop when ``max(rel_std) / min(rel_std) <= ratio`` (FIGAROH uses 30 for a 6-DOF industrial arm).
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
