"""Offline (batch) least squares: the reference solution of the EWR-RLS problem.

:func:`ewrls_batch` stacks every informative sample's rows, weights them exactly as the
recursive estimator does (``beta^(n-k)``, the decayed prior ``beta^n lambda`` toward
``pi0`` and the cyclic wind-up floor rows; see :mod:`paperlib.estimation.ewrls`) and solves
the weighted, regularized problem with an orthogonal factorization (``numpy.linalg.lstsq``,
SVD based) instead of the normal equations, whose condition number is the square of the
data's. Its solution equals the final EWR-RLS estimate up to rounding, which is what the
tests check; with ``t_half = inf`` and ``lam -> 0`` it is plain offline LS.

:func:`weighted_lstsq` is the general solver underneath (stacked rows, optional
per-row weights, optional ridge term toward ``pi0``), which reports the rank and condition
number of the (weighted) data and refuses, with a clear ``ValueError``, problems with fewer
informative rows than parameters or rank-deficient data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .ewrls import FLOOR_STRIDE, floor_coefficient, forgetting_factor

__all__ = ["BatchResult", "informative_mask", "weighted_lstsq", "ewrls_batch"]


@dataclass
class BatchResult:
    """Solution of a (weighted, regularized) least-squares problem.

    Attributes
    ----------
    theta : ndarray, shape (n,)
        Parameter estimate.
    rank : int
        Numerical rank of the weighted data rows (regularization rows excluded).
    cond : float
        2-norm condition number of the weighted data rows (``inf`` if rank-deficient).
    cond_regularized : float
        Condition number of the full system solved (data + regularization rows).
    singular_values : ndarray, shape (n,)
        Singular values of the weighted data rows, descending.
    n_informative : int
        Samples that passed the gate (all samples for :func:`weighted_lstsq`).
    n_rows : int
        Data rows used (``n_informative * m``).
    rms_residual : float
        Unweighted RMS of ``Y theta - R`` over the data rows used [row units, N m].
    """

    theta: np.ndarray
    rank: int
    cond: float
    cond_regularized: float
    singular_values: np.ndarray
    n_informative: int
    n_rows: int
    rms_residual: float


def informative_mask(qd: np.ndarray, qdd: np.ndarray, v_gate: float, a_gate: float) -> np.ndarray:
    """Samples that pass the EWR-RLS gate: ``any |qd_j| > v_gate or any |qdd_j| > a_gate``.

    Parameters
    ----------
    qd : array_like, shape (N, d) or (N,)
        Measured joint velocities [rad/s].
    qdd : array_like, shape (N, d) or (N,)
        Measured joint accelerations [rad/s^2].
    v_gate, a_gate : float
        Thresholds [rad/s], [rad/s^2].

    Returns
    -------
    ndarray of bool, shape (N,)
    """
    qd = np.asarray(qd, dtype=np.float64)
    qdd = np.asarray(qdd, dtype=np.float64)
    if qd.ndim == 1:
        qd = qd[:, None]
    if qdd.ndim == 1:
        qdd = qdd[:, None]
    if qd.shape != qdd.shape or qd.ndim != 2:
        raise ValueError(f"qd {qd.shape} and qdd {qdd.shape} must both have shape (N, d)")
    return np.any(np.abs(qd) > v_gate, axis=1) | np.any(np.abs(qdd) > a_gate, axis=1)


def _data_diagnostics(Aw: np.ndarray, n: int) -> tuple[np.ndarray, int, float]:
    """Singular values (descending, padded to n), numerical rank and condition number."""
    M = Aw.shape[0]
    if M == 0:
        return np.zeros(n), 0, math.inf
    A = np.linalg.qr(Aw, mode="r") if M > 4 * n else Aw  # same singular values, less work
    sv = np.linalg.svd(A, compute_uv=False)
    sv = np.concatenate([sv, np.zeros(max(0, n - sv.size))])[:n]
    if not sv[0] > 0.0:
        return sv, 0, math.inf
    tol = sv[0] * max(M, n) * np.finfo(np.float64).eps  # numpy's matrix_rank default
    rank = int(np.sum(sv > tol))
    return sv, rank, (float(sv[0] / sv[-1]) if rank == n else math.inf)


def _check_informative(M: int, n: int, rank: int, cond: float, n_informative: int | None,
                       lam: float, require_full_rank: bool, what: str) -> None:
    sample_note = "" if n_informative is None else f" (from {n_informative} informative sample(s))"
    if not (require_full_rank or lam == 0.0):
        return
    if M < n:
        raise ValueError(
            f"{what}: only {M} informative row(s){sample_note}, but {n} parameters need at least "
            f"{n} informative rows (more motion, or lower gate thresholds)"
        )
    if rank < n:
        raise ValueError(
            f"{what}: the {M} informative row(s){sample_note} have rank {rank} < {n} parameters: "
            f"{n - rank} parameter direction(s) are not excited (condition number {cond:.3g}); "
            f"more varied motion is needed"
            + ("" if lam == 0.0 else ", or pass require_full_rank=False to keep pi0 there")
        )


def _solve(Aw: np.ndarray, bw: np.ndarray, lam: float, p0: np.ndarray) -> tuple[np.ndarray, float]:
    """lstsq (SVD) of the weighted rows augmented with ``sqrt(lam) (pi - pi0)`` rows."""
    n = p0.size
    if lam > 0.0:
        sl = math.sqrt(lam)
        Aw = np.vstack([Aw, sl * np.eye(n)])
        bw = np.concatenate([bw, sl * p0])
    theta, _, _, sv = np.linalg.lstsq(Aw, bw, rcond=None)
    cond = float(sv[0] / sv[-1]) if sv.size == n and sv[-1] > 0 else math.inf
    return theta, cond


def weighted_lstsq(
    A: np.ndarray,
    b: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    lam: float = 0.0,
    pi0: np.ndarray | None = None,
    require_full_rank: bool = True,
    n_informative: int | None = None,
    what: str = "least squares",
) -> BatchResult:
    """Solve ``min_pi sum_i w_i (A_i pi - b_i)^2 + lam ||pi - pi0||^2`` by orthogonal factorization.

    Parameters
    ----------
    A : array_like, shape (M, n)
        Stacked data rows.
    b : array_like, shape (M,)
        Right-hand sides.
    weights : array_like, shape (M,), optional
        Non-negative row weights (default 1).
    lam : float, default 0
        Ridge weight toward ``pi0``.
    pi0 : array_like, shape (n,), optional
        Ridge target (default zeros).
    require_full_rank : bool, default True
        Raise if there are fewer rows than parameters or the weighted data rows are
        rank-deficient. With ``lam > 0`` the problem is solvable anyway: pass False to
        accept ``pi0`` in the unexcited directions. With ``lam = 0`` it always raises.
    n_informative : int, optional
        Number of samples behind the rows, for the error messages.
    what : str
        Name of the problem, for the error messages.

    Returns
    -------
    BatchResult

    Raises
    ------
    ValueError
        On non-finite input, wrong shapes, too few rows or rank-deficient data.
    """
    A = np.asarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{what}: rows must have shape (M, n), got {A.shape}")
    M, n = A.shape
    if b.shape != (M,):
        raise ValueError(f"{what}: right-hand side must have shape ({M},), got {b.shape}")
    w = np.ones(M) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (M,):
        raise ValueError(f"{what}: weights must have shape ({M},), got {w.shape}")
    p0 = np.zeros(n) if pi0 is None else np.asarray(pi0, dtype=np.float64).reshape(-1)
    if p0.shape != (n,):
        raise ValueError(f"{what}: pi0 must have shape ({n},), got {p0.shape}")
    for arr, name in ((A, "rows"), (b, "right-hand side"), (w, "weights"), (p0, "pi0")):
        if not np.isfinite(arr).all():
            raise ValueError(f"{what}: {name} contain {int((~np.isfinite(arr)).sum())} non-finite value(s)")
    if (w < 0).any():
        raise ValueError(f"{what}: weights must be >= 0")
    if not (lam >= 0.0 and math.isfinite(lam)):
        raise ValueError(f"{what}: lam must be finite and >= 0, got {lam!r}")
    sw = np.sqrt(w)
    Aw = A * sw[:, None]
    bw = b * sw
    sv, rank, cond = _data_diagnostics(Aw, n)
    _check_informative(M, n, rank, cond, n_informative, lam, require_full_rank, what)
    theta, cond_reg = _solve(Aw, bw, lam, p0)
    res = A @ theta - b
    return BatchResult(
        theta=theta,
        rank=rank,
        cond=cond,
        cond_regularized=cond_reg,
        singular_values=sv,
        n_informative=M if n_informative is None else int(n_informative),
        n_rows=M,
        rms_residual=float(np.sqrt(np.mean(res * res))) if M else math.nan,
    )


def ewrls_batch(
    Y: np.ndarray,
    R: np.ndarray,
    qd: np.ndarray | None = None,
    qdd: np.ndarray | None = None,
    *,
    pi0: np.ndarray | None = None,
    lam: float = 1e-3,
    t_half: float = 600.0,
    ts: float = 1.0 / 4000.0,
    v_gate: float = 0.02,
    a_gate: float = 0.2,
    lambda_floor: float | None = None,
    require_full_rank: bool = True,
) -> BatchResult:
    """Batch solution of the cost that :class:`~paperlib.estimation.ewrls.EWRLS` minimizes.

    Same arguments and defaults as the recursive estimator (fresh start): after gating,
    informative sample ``k = 1..n`` gets weight ``beta^(n-k)``, the prior
    ``beta^n lam ||pi - pi0||^2`` is added, and so are the cyclic wind-up floor rows.
    The solution equals the estimator's final ``theta`` up to rounding.

    Parameters
    ----------
    Y : array_like, shape (N, n) or (N, m, n)
        Summed regressor rows, or per-joint rows (stacked).
    R : array_like, shape (N,) or (N, m)
        Right-hand sides [N m].
    qd, qdd : array_like, shape (N, d) or (N,), optional
        Gating signals [rad/s], [rad/s^2]; both None: every sample is informative.
    pi0 : array_like, shape (n,), optional
        Initial guess / regularization target (default zeros).
    lam : float, default 1e-3
        Regularization ``lambda``.
    t_half : float, default 600
        Half-life ``T_HL`` [s] (``inf``: no forgetting).
    ts : float, default 1/4000
        Sample time [s].
    v_gate, a_gate : float
        Gates [rad/s], [rad/s^2].
    lambda_floor : float, optional
        Wind-up floor (default ``lam``, as the estimator; 0: eq. 14 exactly).
    require_full_rank : bool, default True
        Raise when the informative data rows alone (weighted, without the prior and
        floor rows) are fewer than the parameters or rank-deficient.

    Returns
    -------
    BatchResult
        Rank, condition number and singular values are those of the weighted data rows.

    Raises
    ------
    ValueError
        Too few informative samples, rank-deficient data, bad shapes or non-finite input.
    """
    what = "EWR-RLS batch reference"
    Y = np.asarray(Y, dtype=np.float64)
    R = np.asarray(R, dtype=np.float64)
    if Y.ndim == 2:
        Y = Y[:, None, :]
        if R.ndim == 1:
            R = R[:, None]
    if Y.ndim != 3:
        raise ValueError(f"{what}: regressor must have shape (N, n) or (N, m, n), got {Y.shape}")
    N, m, n = Y.shape
    if R.shape != (N, m):
        raise ValueError(f"{what}: right-hand side must have shape {(N, m) if m > 1 else (N,)}, got {R.shape}")
    if not (np.isfinite(Y).all() and np.isfinite(R).all()):
        raise ValueError(f"{what}: regressor or right-hand side contain non-finite values")
    if lambda_floor is None:
        lambda_floor = lam
    if (qd is None) != (qdd is None):
        raise ValueError(f"{what}: pass both qd and qdd for gating, or neither")
    if qd is None:
        mask = np.ones(N, dtype=bool)
    else:
        if not (np.isfinite(qd).all() and np.isfinite(qdd).all()):
            raise ValueError(f"{what}: gating signals contain non-finite values")
        mask = informative_mask(qd, qdd, v_gate, a_gate)
    if mask.shape != (N,):
        raise ValueError(f"{what}: gating signals have {mask.shape[0]} samples, regressor has {N}")
    beta = forgetting_factor(t_half, ts)
    c = floor_coefficient(n, beta, lambda_floor)
    p0 = np.zeros(n) if pi0 is None else np.asarray(pi0, dtype=np.float64).reshape(-1)
    if p0.shape != (n,):
        raise ValueError(f"{what}: pi0 must have shape ({n},), got {p0.shape}")

    n_u = int(mask.sum())
    A = Y[mask].reshape(n_u * m, n)
    b = R[mask].reshape(n_u * m)
    u = np.arange(n_u)
    # informative sample k (0-based u) has weight beta^(n_u - 1 - u): the newest weighs 1
    w_s = np.exp((n_u - 1 - u) * math.log(beta)) if beta < 1.0 else np.ones(n_u)
    sw = np.repeat(np.sqrt(w_s), m)
    Aw = A * sw[:, None]
    bw = b * sw
    sv, rank, cond = _data_diagnostics(Aw, n)
    _check_informative(n_u * m, n, rank, cond, n_u, lam, require_full_rank, what)
    # the wind-up floor rows: sqrt(c) pi_i = sqrt(c) pi0_i on every FLOOR_STRIDE-th update
    if c > 0.0 and n_u > 0:
        sel = u[u % FLOOR_STRIDE == 0]
        coord = (sel // FLOOR_STRIDE) % n
        sf = np.sqrt(c * w_s[sel])
        E = np.zeros((sel.size, n))
        E[np.arange(sel.size), coord] = sf
        Aw = np.vstack([Aw, E])
        bw = np.concatenate([bw, sf * p0[coord]])
    theta, cond_reg = _solve(Aw, bw, lam * beta**n_u, p0)
    res = A @ theta - b
    return BatchResult(
        theta=theta,
        rank=rank,
        cond=cond,
        cond_regularized=cond_reg,
        singular_values=sv,
        n_informative=n_u,
        n_rows=n_u * m,
        rms_residual=float(np.sqrt(np.mean(res * res))) if res.size else math.nan,
    )
