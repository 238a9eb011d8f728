"""Per-seed runner of the flagship paper's sweeps (``paperlib sweep``): one twin campaign, its headline numbers.

One call of :func:`run_seed` makes the recordings the pipeline makes (identification; PD, CTC
and AC warm-started from it; the cold and warm AC runs), with every recording's seed moved by
``seed_stride * seed`` (sweep seed 0 is the pipeline's own run), and computes the numbers the
notebooks compute, by calling the same functions with the same settings (the pipeline's
configuration, ``config/mems.yaml`` with an optional run configuration's ``mems:`` section
merged over it):

* ``02_model_order``: :func:`paperlib.experiments.mems.model_order.model_order_study`,
  ``final_residuals``, ``choose_model`` (the knee rule);
* ``04_controller_comparison``: :mod:`paperlib.experiments.mems.tracking` (evaluation window,
  errors, improvement ratios, torque shares, ``summarise``);
* ``05_temperature_convergence``: :func:`paperlib.experiments.mems.friction_fits.estimate_history`,
  :func:`paperlib.experiments.mems.temperature.convergence_times` and ``temperature_summary``.

The headline values are then read out of those results dicts by the comparison table's own
rows (:data:`paperlib.experiments.mems.comparison.HEADLINES`), so "the CTC/PD RMS ratio of joint 1"
means exactly the same number in the table and in the sweep.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

import numpy as np

from paperlib.experiments.mems.assumptions import ASSUMPTIONS, varied_twin

__all__ = ["FACTORS", "SPEC_FACTORS", "ASSUMPTIONS", "campaign_specs", "headline_results", "run_seed", "headlines", "code_inputs"]

#: Factors a sweep may vary, applied to every recording spec (keys of the run specs).
SPEC_FACTORS: dict[str, str] = {
    "half_life_s": "EWR-RLS weighting half-life T_HL [s] of every run",
    "lambda_reg": "EWR-RLS regularization lambda of every run",
    "ambient_temperature_C": "room temperature [degC] of every run",
}
#: Every factor: the run specs' and the twin's unpublished assumptions (:mod:`paperlib.experiments.mems.assumptions`,
#: applied to a copy of the twin before the campaign's runs).
FACTORS: dict[str, str] = {**SPEC_FACTORS, **{k: f"{a.meaning} [{a.unit}]" for k, a in ASSUMPTIONS.items()}}

#: Notebooks whose numbers the runner recomputes (results-file stems, as in the comparison table).
NOTEBOOKS = ("02_model_order", "04_controller_comparison", "05_temperature_convergence")


def campaign_specs(cfg: Mapping[str, Any], seed: int, factors: Mapping[str, Any] | None = None,
                   seed_stride: int = 1000, durations_s: Mapping[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """The recording specs of one sweep seed (the pipeline's, reseeded, factors applied).

    Parameters
    ----------
    cfg : mapping
        Pipeline configuration (:func:`paperlib.experiments.mems.pipeline.load_config`).
    seed : int
        Sweep seed (>= 0); every recording's seed becomes ``spec seed + seed_stride * seed``,
        so runs that share a trajectory in the pipeline (PD/CTC/AC; cold/warm) still do.
    factors : mapping, optional
        :data:`SPEC_FACTORS` -> value.
    durations_s : mapping, optional
        Recording name -> run length [s] overriding the configuration's.

    Returns
    -------
    dict name -> spec
    """
    factors = dict(factors or {})
    unknown = sorted(set(factors) - set(SPEC_FACTORS))
    if unknown:
        raise ValueError(f"mems sweep: unknown factor(s) {unknown}; known: {sorted(SPEC_FACTORS)}")
    if int(seed) < 0:
        raise ValueError(f"mems sweep: seed must be >= 0, not {seed}")
    durations_s = dict(durations_s or {})
    bad = sorted(set(durations_s) - set(cfg["recordings"]))
    if bad:
        raise ValueError(f"mems sweep: durations_s names unknown recording(s) {bad}; known: {sorted(cfg['recordings'])}")
    specs: dict[str, dict[str, Any]] = {}
    for name, spec in cfg["recordings"].items():
        s = {k: copy.deepcopy(v) for k, v in spec.items() if k not in ("archive_name", "description")}
        s["seed"] = int(s.get("seed", 1)) + int(seed_stride) * int(seed)
        s.update({k: float(v) for k, v in factors.items()})
        if name in durations_s:
            s["duration_s"] = float(durations_s[name])
        specs[name] = s
    return specs


def headline_results(cfg: Mapping[str, Any], recs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The notebooks' results dicts (the parts the headline numbers read) from the recordings.

    Parameters
    ----------
    cfg : mapping
        Pipeline configuration (notebook settings under ``notebooks``).
    recs : mapping name -> recording
        The campaign's recordings, by the configuration's recording names.

    Returns
    -------
    dict notebook stem -> results dict (with ``source``)
    """
    from paperlib.experiments.mems import friction_fits as ff
    from paperlib.experiments.mems import model_order as mo
    from paperlib.experiments.mems import temperature as tp
    from paperlib.experiments.mems import tracking as tr

    nbs = cfg["notebooks"]
    out: dict[str, dict[str, Any]] = {}

    s = nbs["02_model_order"]
    ds = recs[s["recording"]]
    study = mo.model_order_study(ds, record_every_s=float(s.get("record_every_s", 0.05)))
    rule = mo.KneeRule(within_best=float(s.get("within_best", 0.05)), next_worse=float(s.get("next_worse", 0.10)))
    final_rho, n_params = mo.final_residuals(study)
    out["02_model_order"] = {"choice": mo.choose_model(final_rho, n_params, rule), "final_rho_Nm": final_rho,
                             "source": str(ds.attrs.get("source"))}

    s = nbs["04_controller_comparison"]
    cr = {c: recs[name] for c, name in s["recordings"].items()}
    window = tr.evaluation_window(cr, s.get("eval_start", "converged"))
    metrics = tr.compare_controllers(cr, window)
    summary = tr.summarise(metrics, tr.improvement_ratios(metrics), tr.torque_shares(cr["AC"], window))
    summary["source"] = "+".join(sorted({str(d.attrs.get("source")) for d in cr.values()}))
    out["04_controller_comparison"] = summary

    s = nbs["05_temperature_convergence"]
    model = int(s.get("model", 3))
    tr_ = {state: recs[name] for state, name in s["recordings"].items()}
    hists = {st: ff.estimate_history(tr_[st], model) for st in tr_}
    conv = {st: tp.convergence_times(hists[st], model, s["tolerances"]) for st in hists}
    finals = {st: ff.steady_state(hists[st], tail_fraction=0.1) for st in hists}
    temps = {st: (np.nanmean(tr_[st]["temperature"].values, axis=0).tolist() if "temperature" in tr_[st]
                  else [np.nan, np.nan]) for st in tr_}
    n_drv = tr_["cold"].sizes["joint"]
    temp = tp.temperature_summary({"pi_F": finals["cold"][n_drv:], "temperature_C": temps["cold"]},
                                  {"pi_F": finals["warm"][n_drv:], "temperature_C": temps["warm"]}, model,
                                  tuple(s.get("v_eval", (0.5, 1.0, 2.0, 3.0))))
    for st in conv:
        conv[st].pop("per_parameter", None)
    out["05_temperature_convergence"] = {"convergence": conv, "temperature": temp,
                                         "source": "+".join(sorted({str(d.attrs.get("source")) for d in tr_.values()}))}
    return out


def run_seed(seed: int, factors: Mapping[str, Any] | None = None, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One sweep job: make the campaign of ``seed`` on the twin and return its headline numbers.

    Parameters
    ----------
    seed : int
        Sweep seed.
    factors : mapping, optional
        :data:`FACTORS` -> value: those of :data:`SPEC_FACTORS` go to every run spec, those of
        :data:`ASSUMPTIONS` change the twin (:func:`~paperlib.experiments.mems.assumptions.varied_twin`).
    settings : mapping, optional
        ``config`` (run configuration whose ``mems:`` section is merged over ``config/mems.yaml``),
        ``seed_stride`` (default 1000), ``durations_s`` (recording -> [s]), ``recordings_dir``
        (write the recordings there, ``<name>.nc``; set by the sweep's ``keep_recordings``).

    Returns
    -------
    dict
        ``values`` (headline key -> number, bool or None), ``results`` (the notebooks' results
        dicts, reduced to what the headlines read and a little context), ``specs`` (the runs
        made), ``source`` ("twin").
    """
    from paperlib.experiments.mems import comparison, pipeline, sources

    settings = dict(settings or {})
    cfg = pipeline.load_config(settings.get("config"))
    factors = dict(factors or {})
    spec_factors = {k: v for k, v in factors.items() if k not in ASSUMPTIONS}
    specs = campaign_specs(cfg, seed, spec_factors, int(settings.get("seed_stride", 1000)), settings.get("durations_s"))
    recs = sources.obtain_recordings(specs, source="twin", twin=varied_twin(factors))
    if settings.get("recordings_dir"):
        from pathlib import Path

        from paperlib.recordings import write_recording

        d = Path(settings["recordings_dir"])
        d.mkdir(parents=True, exist_ok=True)
        for name, ds in recs.items():
            write_recording(ds, d / f"{name}.nc")
    results = headline_results(cfg, recs)
    values = {h.key: h.get(results[h.notebook]) for h in comparison.HEADLINES if h.notebook in results}
    labels = sorted({str(ds.attrs.get("source")) for ds in recs.values()})
    return {"values": values, "results": results, "specs": specs, "source": "+".join(labels),
            "converged_s": {n: float(ds.attrs.get("converged_s", np.nan)) for n, ds in recs.items()}}


def headlines() -> list[Any]:
    """The comparison table's rows this runner gives a value for (the notebooks it recomputes)."""
    from paperlib.experiments.mems import comparison

    return [h for h in comparison.HEADLINES if h.notebook in NOTEBOOKS]


def code_inputs(settings: Mapping[str, Any] | None = None) -> list[str]:
    """Files whose change reruns a sweep's jobs: the twin's and the analysis' code, the configuration.

    The code is what a job runs: the static import closure of this module (the analysis functions
    it calls) and of the recording pipeline (the twin), not the notebooks' closure, which holds the
    figure modules: a change of a figure's style must not rerun a hundred simulations.
    """
    from paperlib.experiments.kit.code_inputs import code_inputs as closure
    from paperlib.experiments.mems import pipeline

    files = ["config/mems.yaml"]
    if settings and settings.get("config"):
        files.append(str(settings["config"]))
    return sorted(set(files + closure([__name__]) + pipeline.recording_code_inputs()))
