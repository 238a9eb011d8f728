"""Standard deviations of the EWR-RLS estimates, and the truth they should cover on a twin.

Definition (:data:`STD_RULE`). After a run, the estimator's ``P`` is the inverse of the weighted,
regularized information matrix ``Phi = sum beta^(n-k) y_k^T y_k + prior`` (eq. 14 and
:mod:`paperlib.estimation.ewrls`). If the summed-row residuals ``e_k = R_k - y_k pi`` were white
with variance ``sigma^2``, least squares would give ``Cov(pi_hat) = sigma^2 Phi^-1``. We estimate
``sigma^2`` from the final estimate's residuals over the samples that updated it::

    s^2 = sum_informative (R_k - y_k pi_hat)^2 / (n_inf - n_pi)
    std = sqrt(s^2 diag(P))

Two known approximations: (1) forgetting: with ``beta < 1`` the exact sandwich is
``sigma^2 P (sum beta^(2(n-k)) y^T y) P``; at the paper's 600-s half-life a 60-s run has
``beta^n > 0.93`` and the difference is a few per cent; (2) the residuals of a 4-kHz recording
are not white: neighbouring samples share the same friction misfit and sensor error. The second
matters: :func:`autocorrelation_time` measures the residual's integrated autocorrelation time
``tau`` (in samples), and ``std_corrected = std sqrt(tau)`` is the same formula with the
effective number of independent samples ``n_inf / tau``. Both are reported. Neither holds errors
that stay constant over a run (a sensor's calibration error, a torque offset): those are biases.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["STD_RULE", "CORRECTED_RULE", "autocorrelation_time", "residuals", "parameter_std",
           "polynomial_truth", "coverage", "friction_band", "gauss_newton_std"]

STD_RULE = ("std = sqrt(s^2 diag(P)): P the EWR-RLS covariance at the end of the run, s^2 = sum of squared "
            "summed-row residuals of the final estimate over the samples that updated it / (n_inf - n_pi)")
CORRECTED_RULE = ("std_corrected = std sqrt(tau): tau the integrated autocorrelation time of those residuals "
                  "(samples; batch means over 50 contiguous blocks), i.e. n_inf / tau independent samples")


def gauss_newton_std(Jac: np.ndarray, r: np.ndarray, n_extra: int = 0) -> tuple[np.ndarray, float]:
    """Standard deviations from the Gauss-Newton covariance ``s^2 (J^T J)^+`` of a least-squares fit.

    Parameters
    ----------
    Jac : ndarray, shape (m, p)
        Jacobian of the residual at the solution.
    r : ndarray, shape (m,)
        Residual at the solution.
    n_extra : int
        Further parameters fitted besides the p (profiled out), for the degrees of freedom.

    Returns
    -------
    std : ndarray, shape (p,)
        NaN for a parameter the data do not move (a column of ``Jac`` ~0), not the zero a
        pseudo-inverse would give it.
    s2 : float
        ``|r|^2 / max(m - p - n_extra, 1)``.
    """
    m, p = Jac.shape
    s2 = float(r @ r) / max(m - p - n_extra, 1)
    cov = np.linalg.pinv(Jac.T @ Jac) * s2
    std = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    col = np.linalg.norm(Jac, axis=0)
    std[col < 1e-9 * max(col.max(), 1e-300)] = np.nan
    return std, s2


def autocorrelation_time(e: np.ndarray, n_blocks: int = 50) -> float:
    """Integrated autocorrelation time ``tau`` [samples] of a sequence, by batch means.

    ``tau = B var(block means) / var(e)`` over ``n_blocks`` contiguous blocks of ``B = len(e) // n_blocks``
    samples (the variance of a mean of B samples is ``tau var(e) / B`` when ``B >> tau``); at least 1.
    Batch means hold correlation at every lag up to ~B, where a sum of sample autocorrelations must be
    cut off somewhere (on the twin's residuals the autocorrelation turns negative at lag 2 and positive
    again from lag 4 to ~100).
    """
    e = np.asarray(e, dtype=float)
    n = len(e)
    B = n // int(n_blocks)
    v = float(e.var())
    if B < 2 or v == 0.0:
        return 1.0
    m = e[: B * int(n_blocks)].reshape(int(n_blocks), B).mean(axis=1)
    return float(max(1.0, B * m.var(ddof=1) / v))


def residuals(res: Any) -> np.ndarray:
    """Summed-row residuals ``R - y pi_hat`` [N m] of the final estimate on the informative samples.

    ``res`` is a :class:`~paperlib.estimation.replay.ReplayResult` made with ``keep_rows=True``.
    """
    if "rows" not in res.extra:
        raise ValueError("residuals need the rows: replay(..., keep_rows=True)")
    Y, R, mask = res.extra["rows"]
    return R[mask] - Y[mask] @ res.estimator.theta


def parameter_std(res: Any) -> dict[str, Any]:
    """Standard deviations of every estimate (module docstring).

    Returns
    -------
    dict
        ``std`` and ``std_corrected`` (n_pi,) in the parameters' units, ``sigma_Nm`` (residual
        RMS s), ``tau_samples``, ``n_informative``, ``rule``, ``corrected_rule``.
    """
    e = residuals(res)
    n = len(e)
    k = res.estimator.n_params
    if n <= k:
        raise ValueError(f"{n} informative samples cannot give a residual variance for {k} parameters")
    s2 = float(e @ e) / (n - k)
    std = np.sqrt(s2 * np.clip(np.diag(res.estimator.P), 0.0, None))
    tau = autocorrelation_time(e)
    return {"std": std, "std_corrected": std * math.sqrt(tau), "sigma_Nm": math.sqrt(s2), "tau_samples": tau,
            "n_informative": n, "rule": STD_RULE, "corrected_rule": CORRECTED_RULE}



def polynomial_truth(model: Any, v: np.ndarray, tau_true: np.ndarray, joint: int) -> np.ndarray:
    """The polynomial coefficients a model's joint ``joint`` (1-based) should converge to: the least-squares fit
    of the true friction torques ``tau_true`` [N m] at the velocities ``v`` [rad/s] actually visited.

    Returns the coefficients in the model's column order for that joint (orders 0..w).
    """
    cols = [(c, int(k), int(s)) for c, (j, k, s) in enumerate(model.columns()) if int(j) == joint - 1]
    B = np.column_stack([model.torque(np.eye(model.n_params)[c], v, joint) for c, _, _ in cols])
    coef, *_ = np.linalg.lstsq(B, tau_true, rcond=None)
    return coef


def coverage(estimates: np.ndarray, std: np.ndarray, truth: np.ndarray, z: float = 1.959964) -> np.ndarray:
    """Fraction of runs (axis 0) whose interval ``estimate +- z std`` holds the truth, per parameter."""
    estimates, std, truth = (np.asarray(a, dtype=float) for a in (estimates, std, truth))
    return np.mean(np.abs(estimates - truth) <= z * std, axis=0)


def friction_band(res: Any, joint: int, v: np.ndarray, corrected: bool = True, z: float = 1.959964
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Identified friction curve of ``joint`` (1-based) at ``v`` [rad/s] and its 95 % half-width [N m].

    The half-width is ``z sqrt(b(v)^T C b(v))`` with ``C = s^2 P`` (times ``tau`` if ``corrected``)
    restricted to the joint's coefficients, ``b(v)`` the model's shape functions (:data:`STD_RULE`).
    """
    u = parameter_std(res)
    v = np.asarray(v, dtype=float)
    nd = res.n_drives
    cols = [c for c, (j, _, _) in enumerate(res.model.columns()) if int(j) == joint - 1]
    eye = np.eye(res.model.n_params)
    B = np.column_stack([res.model.torque(eye[c], v, joint) for c in cols])
    idx = [nd + c for c in cols]
    C = (u["sigma_Nm"] ** 2) * res.estimator.P[np.ix_(idx, idx)] * (u["tau_samples"] if corrected else 1.0)
    half = z * np.sqrt(np.clip(np.einsum("ij,jk,ik->i", B, C, B), 0.0, None))
    return B @ res.pi_F[cols], half
