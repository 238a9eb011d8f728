"""Automatic choice of the friction configuration (joints and polynomial order) from one recording.

The flagship paper chooses model (3) of its Table 4 by eye from the residual curves of Fig. 5 and
names "automatic model complexity reduction" as future work. Here every candidate is fitted by the
same EWR-RLS (:func:`paperlib.estimation.replay.replay`) and scored by four criteria, each
stated (:data:`CRITERIA`):

``aic``, ``bic``
    On the final estimate's summed-row residuals over the ``n`` samples that updated it
    (:func:`paperlib.estimation.uncertainty.residuals`): ``n ln(SSE/n) + 2k`` and
    ``n ln(SSE/n) + k ln n``, ``k`` estimated parameters (drive gains + friction).
``aic_eff``, ``bic_eff``
    The same with the effective number of independent samples ``n_eff = n / tau``: ``tau`` is
    the integrated autocorrelation time (:func:`paperlib.estimation.uncertainty.autocorrelation_time`)
    of the *richest* candidate's residuals, one value for every candidate so their scores stay
    comparable: ``n_eff ln(SSE/n) + 2k`` and ``n_eff ln(SSE/n) + k ln n_eff``. At 4 kHz
    neighbouring residuals are far from independent, and with the raw ``n`` any misfit however
    small looks significant.
``cv``
    Blocked K-fold cross-validation (contiguous blocks of the informative samples; batch least
    squares on K - 1 blocks, mean squared error on the held-out one; the fold arithmetic of
    :mod:`paperlib.estimation.basis_regression`), choice by the one-standard-error rule: the
    candidate with the fewest parameters whose mean held-out error is within one standard error
    of the lowest.
``prequential``
    Online: the running RMS of the a-priori residual (each sample predicted by the estimate
    before it updates it; the RLS's ``rho_rms_prior``), lowest wins.

``--model auto`` uses :data:`AUTO_CRITERION` (fixed on twin runs of known order before the
flagship run was looked at; see the flagship paper's notebook 06, beyond the paper); the others are
reported beside it. Ties go to fewer parameters.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from paperlib.estimation.basis_regression import _block_grams, _cv_errors
from paperlib.estimation.uncertainty import autocorrelation_time, residuals
from paperlib.friction import TABLE4, FrictionModel

__all__ = ["CRITERIA", "AUTO_CRITERION", "candidate_models", "select_friction_model"]

CRITERIA: dict[str, str] = {
    "aic": "n ln(SSE/n) + 2k on the final estimate's residuals over the n informative samples",
    "bic": "n ln(SSE/n) + k ln(n)",
    "aic_eff": "n_eff ln(SSE/n) + 2k, n_eff = n / tau (tau: the richest candidate's residual autocorrelation time)",
    "bic_eff": "n_eff ln(SSE/n) + k ln(n_eff)",
    "cv": "blocked K-fold cross-validation, fewest parameters within one standard error of the lowest held-out MSE",
    "prequential": "lowest running RMS of the a-priori (one-step-ahead) residual of the recursion (online)",
}
#: The criterion ``--model auto`` decides by.
AUTO_CRITERION = "bic_eff"


def candidate_models() -> dict[str, FrictionModel]:
    """Table 4's models by their number as a string ("1" .. "5")."""
    return {str(k): m for k, m in TABLE4.items()}


def _pick(scores: dict[str, float], n_params: dict[str, int]) -> str:
    ok = [c for c in scores if math.isfinite(scores[c])]
    return min(ok, key=lambda c: (scores[c], n_params[c]))


def select_friction_model(ds: Any, candidates: dict[str, FrictionModel] | None = None, *, config: Any = None,
                          n_folds: int = 5, imu_delay_cycles: int | None = None, robot: Any = None,
                          criterion: str = AUTO_CRITERION, replays: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score every candidate friction model on one recording and choose one (module docstring).

    Parameters
    ----------
    ds : xarray.Dataset
        A recording with ``q``, ``qd``, ``qdd``, ``tau_m`` (e.g. IMU or encoder kinematics).
    candidates : mapping label -> FrictionModel, optional
        Default: Table 4's models "1".."5".
    config : EstimatorConfig, optional
        Estimator settings (the model field is replaced per candidate).
    n_folds : int
        Blocks of the cross-validation.
    imu_delay_cycles : int, optional
        As in :func:`~paperlib.estimation.replay.replay`.
    criterion : str
        The deciding criterion (one of :data:`CRITERIA`).
    replays : dict, optional
        Filled with label -> ReplayResult (for callers that want the fits).

    Returns
    -------
    dict
        ``chosen`` (label), ``criterion``, ``picks`` (criterion -> label), ``candidates`` (label ->
        scores: ``n_params``, ``n_informative``, ``sse_Nm2``, ``rms_Nm``, each criterion, ``cv_mse_Nm2``,
        ``cv_se_Nm2``, ``rho_rms_prior_Nm``, ``description``), ``tau_samples``, ``n_eff``, ``rules``.
    """
    from paperlib.estimation.config import EstimatorConfig
    from paperlib.estimation.replay import replay_models

    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, got {criterion!r}")
    cands = dict(candidates or candidate_models())
    if not cands:
        raise ValueError("no candidate models")
    cfg = config or EstimatorConfig()
    fits: dict[str, Any] = dict(zip(cands, replay_models(ds, list(cands.values()), config=cfg, keep_rows=True,
                                                         imu_delay_cycles=imu_delay_cycles, robot=robot)))
    if replays is not None:
        replays.update(fits)
    n_par = {c: int(fits[c].estimator.n_params) for c in cands}
    richest = max(cands, key=lambda c: (n_par[c], c))
    tau = autocorrelation_time(residuals(fits[richest]))
    rows: dict[str, dict[str, Any]] = {}
    for c, res in fits.items():
        e = residuals(res)
        n, k = len(e), n_par[c]
        sse = float(e @ e)
        n_eff = n / tau
        ll = math.log(sse / n) if sse > 0 else -math.inf
        Y, R, mask = res.extra["rows"]
        gr = _block_grams(Y[mask], R[mask], int(n_folds))
        cv = _cv_errors(gr, np.arange(Y.shape[1]), 1e-12)
        rows[c] = {"description": cands[c].name or str(cands[c]), "n_params": k, "n_informative": n, "sse_Nm2": sse,
                   "rms_Nm": math.sqrt(sse / n), "aic": n * ll + 2 * k, "bic": n * ll + k * math.log(n),
                   "aic_eff": n_eff * ll + 2 * k, "bic_eff": n_eff * ll + k * math.log(n_eff),
                   "cv_mse_Nm2": float(cv.mean()), "cv_se_Nm2": float(cv.std(ddof=1) / math.sqrt(len(cv))),
                   "rho_rms_prior_Nm": float(res.estimator.rho_rms_prior)}
    picks = {name: _pick({c: rows[c][name] for c in rows}, n_par) for name in ("aic", "bic", "aic_eff", "bic_eff")}
    best = min(rows, key=lambda c: rows[c]["cv_mse_Nm2"])
    band = rows[best]["cv_mse_Nm2"] + rows[best]["cv_se_Nm2"]
    picks["cv"] = min((c for c in rows if rows[c]["cv_mse_Nm2"] <= band), key=lambda c: (n_par[c], rows[c]["cv_mse_Nm2"]))
    picks["prequential"] = _pick({c: rows[c]["rho_rms_prior_Nm"] for c in rows}, n_par)
    return {"chosen": picks[criterion], "criterion": criterion, "picks": picks, "candidates": rows,
            "tau_samples": tau, "n_eff": rows[richest]["n_informative"] / tau, "tau_from": richest,
            "n_folds": int(n_folds), "rules": dict(CRITERIA)}
