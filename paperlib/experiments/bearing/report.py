"""What the notebooks of paper 004 show beside their figures: the run's set-up, the tables of reproduced
against published numbers, and the results files.

The notebooks ``notebooks/bearing/01_intrinsic_identification`` and ``02_bearing_inspection`` call these
so that they hold prose and plots, not plumbing. Torques are in N m, angles in rad, rates as fractions
(tables show percent where the paper does); every function returns plain data or a
:class:`pandas.DataFrame` and computes nothing a result depends on beyond what :mod:`.study`,
:mod:`.inspection` and :mod:`.classifier` give.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from paperlib.estimation.basis_regression import BasisRegression
from paperlib.experiments.bearing import inspection, study
from paperlib.experiments.kit.outputs import Outputs
from paperlib.experiments.kit.sources import RecordingSource
from paperlib.provenance import REPO_ROOT

__all__ = ["open_run", "selection_table", "direction_levels", "truth_ripple_orders", "fig3_table", "periodogram_table", "intrinsic_results",
           "load_model", "trial_table", "trials_table", "classifier_table", "inspection_results"]

#: The paper's Fig. 3c numbers [N m] (Sec. 3.1.1).
PAPER_FIG3 = {"offset": -0.1189, "ripple": 0.2, "friction_min": -0.3, "friction_max": 0.1}


def open_run(notebook: str, wanted: Sequence[str], *, recordings: Mapping[str, str] | None, recordings_dir: str,
             source: str, archive: str | None, results_dir: str, output_dir: str, results_file: str,
             formats: Sequence[str], parameters: Mapping[str, Any]) -> tuple[Outputs, dict[str, str], RecordingSource]:
    """The notebook's outputs, its recordings (made or copied where missing) and the room's recording source.

    Parameters
    ----------
    notebook : str
        The notebook's path from the repository root (recorded in every sidecar).
    wanted : sequence of str
        Roles of the study's plan the notebook reads (``no_load_1``, ``trial_1``, ...); used when
        ``recordings`` is None.
    recordings : mapping or None
        role -> recording file, as the pipeline passes it; None = the files under ``recordings_dir``,
        obtained now where missing.
    recordings_dir, results_dir, output_dir, results_file : str
        Folders and file from the repository root (the notebook's parameters of the same names).
    source, archive : str
        Where recordings come from: ``twin`` or ``archive`` (the release folder ``archive``).
    formats : sequence of str
        Figure formats.
    parameters : mapping
        The notebook's parameters that shape its numbers (recorded in sidecars and results).

    Returns
    -------
    (run, paths, rsrc)
        The :class:`~paperlib.experiments.kit.outputs.Outputs`, role -> recording file, and the
        :class:`~paperlib.experiments.kit.sources.RecordingSource`.
    """
    root = REPO_ROOT
    plan = study.recording_plan(root=root / recordings_dir)
    rsrc = study.recording_source(results_dir, source, archive)
    paths = dict(recordings) if recordings else study.ensure_recordings(
        {k: v for k, v in plan.items() if k in set(wanted)}, rsrc)
    run = Outputs(notebook, recordings=paths, output_dir=root / output_dir, results_file=root / results_file,
                  formats=formats, parameters=dict(parameters))
    return run, paths, rsrc


def selection_table(model: BasisRegression) -> pd.DataFrame:
    """How the fitted model was chosen: the sigmoid sharpness alpha [s/rad], the integer ripple orders, every
    order fitted, the design matrix's rank and the fit's residual RMS [N m]."""
    sel = model.selection_
    rows = [("selection rule", sel["rule"]),
            ("sigmoid sharpness alpha [s/rad]", f"{model.alpha_:g}"),
            ("integer ripple orders", f"1..{sel['n']} (CV minimum at n = {sel['n_at_minimum']})"),
            ("all ripple orders fitted", ", ".join(f"{k:g}" for k in model.orders_)),
            ("numerical rank", f"{model.rank_} of {model.basis_.n_columns} columns"),
            ("fit residual RMS [N m]", f"{model.residual_rms_:.4f}")]
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def direction_levels(tau_lp: np.ndarray, qd: np.ndarray, min_speed: float = 0.05) -> pd.DataFrame:
    """Mean of the low-passed sensed torque [N m] overall and per direction of rotation (|qd| > ``min_speed``
    [rad/s]), beside the paper's "about -0.3 N m from zero"."""
    pos, neg = qd > min_speed, qd < -min_speed
    rows = [("all samples", float(np.mean(tau_lp))), ("turning + (counter-clockwise)", float(np.mean(tau_lp[pos]))),
            ("turning - (clockwise)", float(np.mean(tau_lp[neg])))]
    df = pd.DataFrame(rows, columns=["mean sensed torque", "reproduced [N m]"]).set_index("mean sensed torque")
    df["paper [N m]"] = ["about -0.3", "", ""]
    return df.round(3)


def truth_ripple_orders(ds: xr.Dataset) -> list[float]:
    """The twin's ripple orders [cycles per joint revolution] from a recording's ``truth`` attribute; empty
    for a recording without one (hardware data)."""
    if "truth" not in ds.attrs:
        return []
    return [float(c["order"]) for c in json.loads(ds.attrs["truth"])["intrinsic"]["ripple"]]


def fig3_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """Fig. 3c's components: identified, the paper's and (twin data) the twin's truth [N m].

    ``summary`` is :func:`.study.fig3_summary`'s dict. The offset and the Coulomb levels are identified in the
    standstill convention; the per-direction levels offset + Coulomb are convention-free.
    """
    sm = summary
    tr = sm.get("truth")
    rows = [
        ("inertia, largest magnitude", max(abs(sm["inertia"]["min"]), abs(sm["inertia"]["max"])), "about 0",
         None if tr is None else max(abs(tr["inertia"]["min"]), abs(tr["inertia"]["max"]))),
        ("offset", sm["offset_value"], PAPER_FIG3["offset"], None if tr is None else tr["offset_value"]),
        ("ripple amplitude (+/-)", sm["ripple"]["amplitude"], PAPER_FIG3["ripple"],
         None if tr is None else tr["ripple"]["amplitude"]),
        ("friction, minimum", sm["friction"]["min"], PAPER_FIG3["friction_min"], None if tr is None else tr["friction"]["min"]),
        ("friction, maximum", sm["friction"]["max"], PAPER_FIG3["friction_max"], None if tr is None else tr["friction"]["max"]),
        ("level turning + (offset + Coulomb)", sm["levels"]["level_pos"], None,
         None if tr is None else tr["levels"]["level_pos"]),
        ("level turning - (offset + Coulomb)", sm["levels"]["level_neg"], None,
         None if tr is None else tr["levels"]["level_neg"]),
        ("residual RMS after compensation", sm["residual_rms"], None, None),
        ("sensed torque RMS", sm["tau_s_rms"], None, None),
    ]
    if tr is not None:
        rows.append(("prediction - twin's noise-free intrinsic torque, RMS", sm["prediction_vs_truth_rms"], None, None))
    df = pd.DataFrame(rows, columns=["quantity [N m]", "identified", "paper", "twin truth"]).set_index("quantity [N m]")
    if tr is None:
        df = df.drop(columns="twin truth")
    return df.map(lambda v: "" if v is None else (f"{v:+.4f}" if isinstance(v, float) else v))


def periodogram_table(pv: Mapping[str, Any]) -> pd.DataFrame:
    """What the periodogram's extra ripple orders buy: residual RMS [N m] of the fit and, when the value was
    measured on an unseen no-load run, on that run; without and with the kept peaks."""
    kept = [d for d in pv["with"]["detected"] if d["kept"]]
    rows = {"ripple orders": [", ".join(f"{k:g}" for k in pv[k]["orders"]) for k in ("without", "with")],
            "fit residual RMS [N m]": [f"{pv[k]['residual_rms']:.4f}" for k in ("without", "with")]}
    if "holdout_residual_rms" in pv["with"]:
        rows["unseen no-load run, residual RMS [N m]"] = [f"{pv[k]['holdout_residual_rms']:.4f}" for k in ("without", "with")]
    df = pd.DataFrame(rows, index=["integer orders only", f"with the {len(kept)} kept peak(s)"]).T
    df.attrs["peaks_found"] = len(pv["with"]["detected"])
    return df


def intrinsic_results(model: BasisRegression, summary: Mapping[str, Any], pv: Mapping[str, Any],
                      kinematics: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Notebook 01's results (what ``results/bearing/01_intrinsic_identification.json`` holds) and its notes.

    Parameters
    ----------
    model : BasisRegression
        The fitted intrinsic model.
    summary : mapping
        :func:`.study.fig3_summary` of the fitted run.
    pv : mapping
        :func:`.study.periodogram_value`.
    kinematics : mapping
        How the velocity and acceleration were derived (``info["kinematics"]`` of :func:`.inspection.fit_intrinsic`).

    Returns
    -------
    (results, notes)
        The results dict (the comparison table reads ``paper_compare``) and the notes to record with it.
    """
    sm = summary
    compare = {"offset_Nm": sm["offset_value"], "ripple_amplitude_Nm": sm["ripple"]["amplitude"],
               "friction_min_Nm": sm["friction"]["min"], "friction_max_Nm": sm["friction"]["max"],
               "inertia_max_abs_Nm": max(abs(sm["inertia"]["min"]), abs(sm["inertia"]["max"])),
               "offset_plus_friction_max_Nm": sm["offset_value"] + sm["friction"]["max"],
               "offset_plus_friction_min_Nm": sm["offset_value"] + sm["friction"]["min"]}
    md_model = model.to_dict()
    md_model["selection"] = {k: v for k, v in md_model["selection"].items() if k != "table"}
    results = {"model": md_model, "fig3": summary, "paper_compare": compare,
               "periodogram": {"with": pv["with"], "without": pv["without"]},
               "kinematics": kinematics}
    notes = []
    if "truth" in summary:
        tr = summary["truth"]
        results["twin_truth_compare"] = {"offset_Nm": tr["offset_value"], "ripple_amplitude_Nm": tr["ripple"]["amplitude"],
                                         "friction_min_Nm": tr["friction"]["min"], "friction_max_Nm": tr["friction"]["max"]}
        notes.append("the twin's intrinsic levels (offset -0.12 N m, ripple about +/-0.2 N m, sensed friction about "
                     "-0.3..+0.1 N m) were set to the paper's Fig. 3c by construction: agreement of those rows is not "
                     "evidence")
    return results, notes


def load_model(run: Outputs, model_file: str | None, roles: Sequence[str], used_nl: Sequence[str],
               cutoff_hz: float) -> tuple[BasisRegression, str, list[str]]:
    """Notebook 02's intrinsic model: read from ``model_file`` (``paperlib bearing fit``) or fitted now from
    ``no_load_1``.

    Parameters
    ----------
    run : Outputs
        The notebook's outputs (reads ``no_load_1`` through it when fitting).
    model_file : str or None
        Model JSON from the repository root; None = ``results/bearing/model.json``.
    roles, used_nl : sequence of str
        The trials' roles and the no-load roles the notebook holds (recorded as used).
    cutoff_hz : float
        Cut-off of the zero-phase filter deriving qd, qdd [Hz].

    Returns
    -------
    (model, model_from, used)
        The model, where it came from (a path or "fitted now from no_load_1") and the roles the
        results depend on.
    """
    root = REPO_ROOT
    mf = root / (model_file or "results/bearing/model.json")
    if mf.is_file():
        model = inspection.model_from_json(json.loads(mf.read_text()), str(mf))
        model_from = str(mf.relative_to(root)) if mf.is_relative_to(root) else str(mf)
        return model, model_from, list(roles) + list(used_nl)
    model, _ = inspection.fit_intrinsic([run.load(["no_load_1"])["no_load_1"]], cutoff_hz=cutoff_hz)
    return model, "fitted now from no_load_1", list(roles) + ["no_load_1"]


def trial_table(summary: Mapping[str, Any], role: str) -> pd.DataFrame:
    """One trial's RMS error against the load cell before and after compensation [%], beside the paper's."""
    r = summary["trials"][role]
    return pd.DataFrame({"reproduced [%]": [round(100 * r["rms_error_before"], 1), round(100 * r["rms_error_after"], 1)],
                         "paper [%]": [27.0, 11.0]},
                        index=pd.Index(["before compensation", "after compensation"],
                                       name=f"RMS error vs load cell, {role} (load cell RMS {r['tau_ref_rms']:.3f} N m)"))


def trials_table(summary: Mapping[str, Any], roles: Sequence[str], pv: Mapping[str, Any] | None) -> pd.DataFrame:
    """Every trial: RMS error before and after compensation [%] and the sensor's most negative deviation
    from the load cell [N m]; with ``pv`` (:func:`.study.periodogram_value` over the trials), the mean error
    after compensation without the periodogram's extra ripple orders."""
    rows = {}
    for r in roles:
        t = summary["trials"][r]
        rows[r] = {"RMS error before [%]": 100 * t["rms_error_before"], "RMS error after [%]": 100 * t["rms_error_after"],
                   "largest deviation below the load cell, before [N m]":
                       summary["deviation"][r]["most_negative_deviation_before_Nm"]}
    df = pd.DataFrame(rows).T
    df.loc["paper"] = [27.0, 11.0, -0.7]
    if pv is not None:
        for k, what in (("with", "with"), ("without", "without")):
            df.loc[f"mean, model fitted {what} the periodogram's orders"] = [
                np.nan, 100 * pv[k]["rms_error_after_mean"], np.nan]
    return df.round(3)


def classifier_table(st: Mapping[str, Any]) -> pd.DataFrame:
    """Pass/fail on the held-out population [%]: each statistic with its own tuned threshold, and the robot's
    sensor judged by the one threshold tuned on the load cell. ``st`` is :func:`.classifier.classification_study`."""
    own, ref = st["own_threshold"], st["reference_threshold"]
    names = {"reference": "load cell", "uncompensated": "torque sensor, uncompensated",
             "compensated": "torque sensor, compensated"}
    rows = []
    for k, name in names.items():
        rows.append((f"{name}, own threshold", own[k]["threshold_Nm"], 100 * own[k]["held_out"]["false_reject_rate"],
                     100 * own[k]["held_out"]["false_accept_rate"]))
    for k in ("uncompensated", "compensated"):
        rows.append((f"{names[k]}, load cell's threshold", ref["reference"]["threshold_Nm"],
                     100 * ref[k]["held_out"]["false_reject_rate"], 100 * ref[k]["held_out"]["false_accept_rate"]))
    return pd.DataFrame(rows, columns=["statistic and threshold", "threshold [N m]", "false reject [%]",
                                       "false accept [%]"]).set_index("statistic and threshold").round(3)


def inspection_results(summary: Mapping[str, Any], model_from: str, pv: Mapping[str, Any] | None,
                       st: Mapping[str, Any], results_dir: str) -> tuple[dict[str, Any], list[str]]:
    """Notebook 02's results (what ``results/bearing/02_bearing_inspection.json`` holds) and its notes.

    Parameters
    ----------
    summary : mapping
        :func:`.study.trials_summary`.
    model_from : str
        Where the intrinsic model came from.
    pv : mapping or None
        :func:`.study.periodogram_value` over the trials (None without a no-load run).
    st : mapping
        :func:`.classifier.classification_study`.
    results_dir : str
        The room's results folder from the repository root (its ``inspect_trials.json``, from
        ``paperlib bearing inspect``, is cross-checked when present).
    """
    own, ref = st["own_threshold"], st["reference_threshold"]
    fewer = ref["compensated"]["held_out"]["false_reject_rate"] < ref["uncompensated"]["held_out"]["false_reject_rate"]
    same_own = all(own[k]["held_out"] == own["compensated"]["held_out"] for k in own)
    notes = [f"pass/fail on the held-out population: with one threshold tuned on the load cell, good bearings rejected "
             f"{100 * ref['uncompensated']['held_out']['false_reject_rate']:.0f} % uncompensated vs "
             f"{100 * ref['compensated']['held_out']['false_reject_rate']:.0f} % compensated; with a threshold tuned on "
             f"each statistic itself the rates are {'identical' if same_own else 'close'} with and without compensation "
             f"(the twin's intrinsic torque barely varies between inspections, so a tuned threshold absorbs it)"]
    results = {"trials": summary, "model_from": model_from,
               "periodogram_buys": None if pv is None else {k: {kk: pv[k][kk] for kk in ("orders", "rms_error_after_mean")}
                                                            for k in ("with", "without")},
               "classifier": {k: v for k, v in st.items() if k != "populations"}, "populations": st["populations"],
               "fewer_good_rejected_with_compensation": bool(fewer)}
    cli_file = REPO_ROOT / results_dir / "inspect_trials.json"
    if cli_file.is_file():
        cli = json.loads(cli_file.read_text())["files"]
        results["cli_rms_error_after"] = {k: v["rms_error_after"] for k, v in cli.items()}
    return results, notes
