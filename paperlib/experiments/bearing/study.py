"""The numbers behind the notebooks of paper 004: recordings, Fig. 3 summary, Fig. 5 trials, what the
periodogram buys. Everything returns plain dicts / arrays (SI units)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np
import xarray as xr
from scipy import signal as _signal

from paperlib import recordings as rec
from paperlib.experiments.kit.sources import RecordingSource, SourceError
from paperlib.provenance import REPO_ROOT
from paperlib.experiments.bearing import inspection, runs
from paperlib.estimation.basis_regression import BasisRegression, angle_periodogram
from paperlib.twin.robots.wheel_bearing import population

__all__ = ["DEFAULTS", "recording_plan", "ensure_recordings", "recording_source", "lowpass", "fig3_summary", "truth_components",
           "trials_summary", "periodogram_value", "make_recording"]

#: Defaults of the study (config/bearing.yaml mirrors them).
DEFAULTS: dict[str, Any] = {
    "no_load_seeds": [1, 2],
    "trial_seeds": [11, 12, 13],
    "bearing_population_seed": 7,
    "bearing_index": 0,
    "cutoff_hz": 20.0,
    "display_lowpass_hz": 1.0,
    "n_per_grade": 100,
    "tune_seed": 1000,
    "test_seed": 2000,
}


def recording_plan(cfg: Mapping[str, Any] | None = None, root: str | Path = "results/bearing/recordings") -> dict[str, dict[str, Any]]:
    """role -> {"path", "kind", "seed", ...} of every recording the study uses."""
    c = {**DEFAULTS, **(cfg or {})}
    root = Path(root)
    plan: dict[str, dict[str, Any]] = {}
    for i, s in enumerate(c["no_load_seeds"], 1):
        plan[f"no_load_{i}"] = {"path": str(root / f"no_load_{i}.nc"), "kind": "no-load", "seed": int(s)}
    for i, s in enumerate(c["trial_seeds"], 1):
        plan[f"trial_{i}"] = {"path": str(root / f"trial_{i}.nc"), "kind": "bearing", "seed": int(s),
                              "bearing_seed": int(c["bearing_population_seed"]), "bearing_index": int(c["bearing_index"])}
    return plan


def make_recording(spec: Mapping[str, Any]) -> xr.Dataset:
    """The twin recording of one plan entry."""
    if spec["kind"] == "no-load":
        return runs.no_load_recording(seed=int(spec["seed"]))
    b = population("good", int(spec["bearing_index"]) + 1, int(spec["bearing_seed"]))[int(spec["bearing_index"])]
    return runs.bearing_recording(b, seed=int(spec["seed"]))


def ensure_recordings(plan: Mapping[str, Mapping[str, Any]], source: RecordingSource | None = None) -> dict[str, str]:
    """Obtain every planned recording whose file is missing; role -> path.

    Through ``source`` when the planned file is that source's recording of the role (made by the
    twin, or copied from the release with ``archive``), else made with the twin and written there.
    """
    for role, spec in plan.items():
        p = Path(spec["path"])
        if not p.is_file():
            if source is not None and Path(source.path(role)).resolve() == p.resolve():
                source.obtain(role, lambda spec=spec: make_recording(spec))
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                rec.write_recording(make_recording(spec), p)
    return {role: spec["path"] for role, spec in plan.items()}


def recording_source(results_dir: str | Path, source: str = "twin", archive: str | Path | None = None) -> RecordingSource:
    """The room's :class:`~paperlib.experiments.kit.sources.RecordingSource` (recordings under ``results_dir/recordings``).

    ``results_dir`` and ``archive`` relative to the repository root. ``hardware`` is refused here:
    the rig's recordings (the no-load runs and trials) are made by the pipeline's recording rule
    (:mod:`~paperlib.experiments.bearing.rig_runs`), and what a notebook obtains itself (the pass/fail
    study's populations) is not made on the rig (:func:`~paperlib.experiments.bearing.pipeline.notebook_params`
    passes ``twin`` for it).

    Raises
    ------
    paperlib.experiments.kit.sources.SourceError
        ``hardware``, an unknown source, or ``archive`` without a release folder.
    """
    if source == "hardware":
        raise SourceError("bearing: the recordings a notebook makes itself (the pass/fail populations) are not made on "
                          "the rig; source 'hardware' makes the no-load runs and trials through the recording rule "
                          "(paperlib bearing rig), and the notebooks get 'twin' or 'archive' here")
    root = lambda p: Path(p) if Path(p).is_absolute() else REPO_ROOT / p  # noqa: E731
    return RecordingSource("bearing", root(results_dir), source=source, archive=root(archive) if archive else None)


def lowpass(x: np.ndarray, fs: float, cutoff_hz: float) -> np.ndarray:
    """Zero-phase 2nd-order Butterworth low-pass (the paper filters its torque plots at 1 Hz)."""
    sos = _signal.butter(2, cutoff_hz, fs=fs, output="sos")
    return _signal.sosfiltfilt(sos, np.asarray(x, float))


def truth_components(ds: xr.Dataset) -> dict[str, np.ndarray] | None:
    """The twin's true intrinsic components at the recording's samples (None without twin truth).

    The twin's truth holds its parameters, not the noise-free signals; they are rebuilt here from
    the encoder angle and the recording's derived kinematics, so they carry the same (small)
    kinematics error as the fit's inputs.
    """
    if ds.attrs.get("source") != "twin" or "truth" not in ds.attrs:
        return None
    t = rec.truth(ds)
    if "intrinsic" not in t:
        return None
    from paperlib.friction.stribeck import StribeckLaw
    from paperlib.twin.robots.torque_joint import RippleComponent, TorqueJointTwin

    tw = t["twin"]
    twin = TorqueJointTwin(ripple=tuple(RippleComponent(**c) for c in tw["ripple"]),
                           sensor_friction=StribeckLaw(**tw["sensor_friction"]), sensed_inertia=tw["sensed_inertia"],
                           sensor_offset_Nm=tw["sensor_offset_Nm"])
    s = inspection.joint_signals(ds)
    time = ds["time"].values
    offset = (tw["sensor_offset_Nm"] + t["run"]["sensor_offset_shift_Nm"]
              + t["run"]["sensor_drift_Nm_per_s"] * time)
    return {"offset": offset, "ripple": twin.ripple_torque(s["q"]),
            "friction": twin.sensor_friction.torque(s["qd"]), "inertia": twin.sensed_inertia * s["qdd"]}


def fig3_summary(model: BasisRegression, ds: xr.Dataset) -> dict[str, Any]:
    """Fig. 3c numbers on one no-load recording: range of each component, residual.

    Returns
    -------
    dict
        Per component ``min``, ``max`` [N m] (``ripple`` also ``amplitude`` = half its range),
        ``residual_rms``, ``tau_s_rms`` [N m], and the same for the twin's truth when present.
    """
    s = inspection.joint_signals(ds)
    comps = model.components(s["q"], s["qd"], s["qdd"])
    pred = sum(comps.values())
    out: dict[str, Any] = {name: {"min": float(v.min()), "max": float(v.max())} for name, v in comps.items()}
    out["ripple"]["amplitude"] = 0.5 * float(np.ptp(comps["ripple"]))
    out["inertia"]["rms"] = inspection.rms(comps["inertia"])
    out["offset_value"] = float(model.named_weights_["offset"])
    out["residual_rms"] = inspection.rms(s["tau_s"] - pred)
    out["tau_s_rms"] = inspection.rms(s["tau_s"])
    out["levels"] = model.levels()
    tc = truth_components(ds)
    if tc is not None:
        t = rec.truth(ds)["intrinsic"]
        out["truth"] = {name: {"min": float(v.min()), "max": float(v.max())} for name, v in tc.items()}
        out["truth"]["ripple"]["amplitude"] = 0.5 * float(np.ptp(tc["ripple"]))
        out["truth"]["levels"] = {"level_pos": t["level_pos_Nm"], "level_neg": t["level_neg_Nm"]}
        out["truth"]["offset_value"] = t["sensor_offset_Nm"]
        out["prediction_vs_truth_rms"] = inspection.rms(pred - sum(tc.values()))
    return out


def trials_summary(model: BasisRegression, dss: Mapping[str, xr.Dataset]) -> dict[str, Any]:
    """Fig. 5 numbers: per trial the RMS errors before/after; mean and spread over the trials."""
    per = {role: {k: v for k, v in inspection.inspect(ds, model, name=role).items() if k != "signals"}
           for role, ds in dss.items()}
    before = np.array([r["rms_error_before"] for r in per.values()])
    after = np.array([r["rms_error_after"] for r in per.values()])
    dev = {}
    for role, ds in dss.items():
        s = inspection.joint_signals(ds, require=("tau_s", "tau_ref"), analysis="bearing inspect", name=role)
        d = s["tau_s"] - s["tau_ref"]
        dev[role] = {"max_abs_deviation_before_Nm": float(np.max(np.abs(d))),
                     "most_negative_deviation_before_Nm": float(d.min())}
    return {"trials": per, "deviation": dev, "rms_error_before_mean": float(before.mean()),
            "rms_error_after_mean": float(after.mean()), "rms_error_before_range": [float(before.min()), float(before.max())],
            "rms_error_after_range": [float(after.min()), float(after.max())], "n_trials": len(per)}


def periodogram_value(no_load: xr.Dataset, *, holdout: xr.Dataset | None = None,
                      trials: Mapping[str, xr.Dataset] | None = None, cutoff_hz: float = 20.0) -> dict[str, Any]:
    """What the periodogram over the angle buys: the fit with and without the orders it finds.

    Parameters
    ----------
    no_load : xarray.Dataset
        The no-load recording fitted.
    holdout : xarray.Dataset, optional
        A second no-load recording, not fitted: residual RMS on it.
    trials : mapping role -> xarray.Dataset, optional
        Bearing trials: mean ``rms_error_after`` with each model.

    Returns
    -------
    dict
        For ``with`` and ``without``: orders, fit residual RMS [N m], ``holdout_residual_rms`` [N m],
        ``rms_error_after_mean``; the amplitude spectrum of the integer-order fit's residual.
    """
    out: dict[str, Any] = {}
    for key, detect in (("with", True), ("without", False)):
        m, _ = inspection.fit_intrinsic([no_load], cutoff_hz=cutoff_hz, detect_orders=detect)
        entry: dict[str, Any] = {"orders": list(m.orders_), "residual_rms": m.residual_rms_,
                                 "detected": m.detected_orders_ if detect else []}
        if holdout is not None:
            h = inspection.joint_signals(holdout, cutoff_hz=cutoff_hz)
            entry["holdout_residual_rms"] = inspection.rms(h["tau_s"] - m.predict(h["q"], h["qd"], h["qdd"]))
        if trials:
            entry["rms_error_after_mean"] = float(np.mean(
                [inspection.inspect(ds, m, cutoff_hz=cutoff_hz, name=r)["rms_error_after"] for r, ds in trials.items()]))
        out[key] = entry
        if not detect:
            s = inspection.joint_signals(no_load, cutoff_hz=cutoff_hz)
            resid = s["tau_s"] - m.predict(s["q"], s["qd"], s["qdd"])
            orders, amp = angle_periodogram(s["q"], resid, max_order=400.0)
            out["spectrum"] = {"order": orders, "amplitude_Nm": amp}
    return out
