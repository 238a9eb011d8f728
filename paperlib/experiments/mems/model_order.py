"""Model-order selection (flagship paper, Table 4, Fig. 5, eq. 49).

Each Table-4 friction model is fitted by the EWR-RLS estimator to the same open-loop run
(no friction feed-forward, so the data do not depend on the model being tested), and its
running RMS residual ``rho_rms(t)`` (eq. 49) is recorded. The paper picks model (3) "by
eye" from Fig. 5; here the choice is made by a stated rule, :class:`KneeRule`:

    Among the models whose final residual is within ``within_best`` (relative) of the best
    one, choose the one with the fewest parameters. The choice is a *confirmed knee* when
    the next simpler model (next fewer parameters) has a final residual larger than the
    chosen one's by more than ``next_worse`` (relative).

Defaults: ``within_best = 5 %``, ``next_worse = 10 %``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.friction import TABLE4, table4_model

__all__ = ["KneeRule", "model_order_study", "choose_model", "final_residuals"]


@dataclass(frozen=True)
class KneeRule:
    """The model-choice criterion (module docstring).

    Attributes
    ----------
    within_best : float
        A model qualifies if ``rho_final <= (1 + within_best) * min(rho_final)`` (relative, e.g. 0.05).
    next_worse : float
        The knee is confirmed if the next simpler model's ``rho_final`` exceeds the chosen
        one's by more than this fraction (e.g. 0.10).
    """

    within_best: float = 0.05
    next_worse: float = 0.10

    def statement(self) -> str:
        """The rule in words, with its numbers (for results and captions)."""
        return (f"choose the model with the fewest parameters whose final rho_rms is within "
                f"{100 * self.within_best:.0f} % of the best; it is a confirmed knee when the next simpler "
                f"model's final rho_rms is worse by more than {100 * self.next_worse:.0f} %")


def choose_model(final_rho: Mapping[int, float], n_params: Mapping[int, int],
                 rule: KneeRule = KneeRule()) -> dict[str, Any]:
    """Apply :class:`KneeRule` to final residuals.

    Parameters
    ----------
    final_rho : mapping model -> float
        Final ``rho_rms`` of each model [N m].
    n_params : mapping model -> int
        Number of estimated parameters of each model (ties broken by the larger model number,
        i.e. the paper's ordering from complex to simple).
    rule : KneeRule

    Returns
    -------
    dict
        ``chosen`` (model number), ``knee_confirmed`` (bool), ``best`` (model with the lowest
        residual), ``next_simpler`` (model or None), ``gap_to_next_simpler`` (relative),
        ``excess_over_best`` (relative), ``qualifying`` (models within the band), ``rule`` (text).
    """
    models = [m for m in final_rho if np.isfinite(final_rho[m])]
    if not models:
        raise ValueError("no model has a finite final residual")
    rho = {m: float(final_rho[m]) for m in models}
    best = min(models, key=lambda m: rho[m])
    band = (1.0 + rule.within_best) * rho[best]
    qualifying = [m for m in models if rho[m] <= band]
    simplest_first = sorted(models, key=lambda m: (n_params[m], -m))
    chosen = next(m for m in simplest_first if m in qualifying)
    k = simplest_first.index(chosen)
    next_simpler = simplest_first[k - 1] if k > 0 else None
    gap = (rho[next_simpler] / rho[chosen] - 1.0) if next_simpler is not None and rho[chosen] > 0 else float("nan")
    return {
        "chosen": int(chosen),
        "knee_confirmed": bool(next_simpler is not None and gap > rule.next_worse),
        "best": int(best),
        "next_simpler": None if next_simpler is None else int(next_simpler),
        "gap_to_next_simpler": float(gap),
        "excess_over_best": float(rho[chosen] / rho[best] - 1.0) if rho[best] > 0 else 0.0,
        "qualifying": sorted(int(m) for m in qualifying),
        "rule": rule.statement(),
        "rule_parameters": asdict(rule),
    }


def model_order_study(ds: xr.Dataset, models: Sequence[int] = tuple(TABLE4), *, record_every_s: float = 0.05,
                      half_life_s: float = 600.0, lambda_reg: float = 1e-3, robot: Any = None) -> xr.Dataset:
    """Replay one recording through the estimator with each Table-4 model (Fig. 5).

    Parameters
    ----------
    ds : xarray.Dataset
        An open-loop identification run (``paperlib.recording/2``).
    models : sequence of int
        Table 4 model numbers.
    record_every_s : float
        Spacing of the residual history [s].
    half_life_s, lambda_reg : float
        Estimator settings (paper: 600 s, 0.001).

    Returns
    -------
    xarray.Dataset
        ``rho_rms`` (model, t) [N m] (eq. 49, a-posteriori estimate), ``rho_rms_prior``
        (model, t) [N m] (a-priori estimate), ``n_params`` (model), ``final_rho`` (model) [N m],
        ``n_updates`` (model); attrs ``recording_source``.
    """
    from paperlib.estimation.replay import replay_models

    fits = replay_models(ds, [int(m) for m in models], record_every_s=record_every_s, half_life_s=half_life_s,
                         lambda_reg=lambda_reg, robot=robot)
    rows: dict[int, Any] = dict(zip(models, fits))
    n_t = min(len(r.history.t) for r in rows.values())
    t = rows[models[0]].history.t[:n_t]
    rho = np.array([rows[m].history.rho_rms[:n_t] for m in models])
    rho_prior = np.array([rows[m].history.rho_rms_prior[:n_t] for m in models])
    out = xr.Dataset(
        {
            "rho_rms": (("model", "t"), rho, {"units": "N m", "long_name": "running RMS residual (eq. 49)"}),
            "rho_rms_prior": (("model", "t"), rho_prior,
                              {"units": "N m", "long_name": "running RMS residual, a-priori estimate"}),
            "n_params": (("model",), np.array([len(rows[m].param_names) for m in models]),
                         {"units": "1", "long_name": "estimated parameters (pi_pds and pi_F)"}),
            "final_rho": (("model",), np.array([rows[m].estimator.rho_rms for m in models]),
                          {"units": "N m", "long_name": "rho_rms at the end of the run"}),
            "n_updates": (("model",), np.array([rows[m].estimator.n_updates for m in models]),
                          {"units": "1", "long_name": "samples that passed the stiction gate"}),
        },
        coords={"model": list(models), "t": ("t", t, {"units": "s"})},
        attrs={"recording_source": ds.attrs.get("source", "?"),
               "model_names": [table4_model(m).name for m in models]},
    )
    return out


def final_residuals(study: xr.Dataset) -> tuple[dict[int, float], dict[int, int]]:
    """(final rho per model, n_params per model) from :func:`model_order_study`."""
    models = [int(m) for m in study["model"].values]
    return ({m: float(study["final_rho"].sel(model=m)) for m in models},
            {m: int(study["n_params"].sel(model=m)) for m in models})
