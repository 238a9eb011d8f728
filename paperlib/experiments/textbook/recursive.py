"""Batch vs recursive least squares, and forgetting.

Batch LS weighs every sample of a record equally: when the arm changes during the record
(a payload is picked up), the batch estimate is a compromise between before and after. The
recursive estimator (:class:`paperlib.estimation.ewrls.EWRLS`, exponentially weighted RLS)
updates after every sample; with a finite half-life it forgets old samples and follows the
change, at the price of a noisier estimate. With an infinite half-life it converges to the
batch estimate of the samples seen so far.
"""

from __future__ import annotations

import numpy as np

from paperlib.estimation.ewrls import EWRLS
from paperlib.robots.serial import SerialArm

__all__ = ["payload_params", "run_rls"]


def payload_params(arm: SerialArm, params: np.ndarray, mass_kg: float, length_m: float, link: int | None = None) -> np.ndarray:
    """Parameters with a point mass ``mass_kg`` at distance ``length_m`` along the x axis of
    ``link`` (0-based, default the last): ``m += M``, ``mx += M l``, ``YY, ZZ += M l^2``."""
    k = (arm.n - 1 if link is None else link) + 1
    names = {n: i for i, n in enumerate(arm.param_names)}
    p = np.array(params, float)
    p[names[f"m{k}"]] += mass_kg
    p[names[f"mx{k}"]] += mass_kg * length_m
    p[names[f"ZZ{k}"]] += mass_kg * length_m**2
    p[names[f"YY{k}"]] += mass_kg * length_m**2
    return p


def run_rls(Yb: np.ndarray, tau: np.ndarray, ts: float, t_half: float, record_every: int, lam: float = 1e-6
            ) -> tuple[np.ndarray, np.ndarray]:
    """Recursive LS over per-joint rows.

    Parameters
    ----------
    Yb : ndarray, shape (N, n, r)
        Base regressor rows.
    tau : ndarray, shape (N, n)
    ts : float
        Sample time [s].
    t_half : float
        Half-life of the exponential weighting [s] (``inf``: no forgetting).
    record_every : int
        Keep the estimate every this many samples.
    lam : float
        Initial regularization (``P_0 = I / lam``) toward zero; no floor.

    Returns
    -------
    t : ndarray, shape (K,)
        [s]
    theta : ndarray, shape (K, r)
    """
    est = EWRLS(Yb.shape[2], lam=lam, t_half=t_half, ts=ts, lambda_floor=0.0)
    h = est.run(np.ascontiguousarray(Yb), np.ascontiguousarray(tau), None, None, record_every=record_every)
    return h.t, h.theta
