"""Thermal friction model of recordings, and friction-anomaly monitoring (paper 001, Fig. 13).

:func:`fit_recordings` turns warm-up recordings (any robot: ``q`` and the drive torque, nothing
else) into a model dictionary, per joint: the friction at the reference speed per cycle, eq. 4 per
cycle, the double exponential per test and over all tests ("mix"), the second-order thermal model
(eq. 12 + alpha of eq. 14), and the alarm thresholds chosen on these (healthy) runs, with and
without the thermal model. :func:`monitor_recording` compares a new recording's per-cycle friction
with the model's prediction and lists the alarms. Both are what ``paperlib thermal fit`` and
``paperlib thermal monitor`` write.

Every run is assumed to start from rest at the same temperature (paper 001: tests in the morning,
after at least 8 h of rest, room at about 20 C).
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.estimation.plateaus import (REFERENCE_FRACTION, JointFriction, derive_kinematics,
                                          eq4_torque, recording_friction)
from paperlib.estimation.thermal import (DEFAULT_ALPHA_PER_K, ThermalModel, WarmUp, alarms,
                                         block_power, choose_threshold, fit_double_exponential,
                                         friction_ratio)

__all__ = ["analyse_recording", "fit_recordings", "fit_diagnostics", "monitor_recording", "MODEL_SCHEMA",
           "MODEL_ORDER_TOL"]

MODEL_SCHEMA = "paperlib.thermal-model/1"


def analyse_recording(ds: xr.Dataset, name: str = "<dataset>", cutoff_hz: float = 10.0, **kwargs: Any
                      ) -> tuple[dict[int, JointFriction], np.ndarray, float]:
    """Per-segment friction, derived velocities and sample rate of one recording."""
    fs = float(ds.attrs["sample_rate_hz"])
    qd, qdd = derive_kinematics(ds["q"].values, fs, cutoff_hz)
    jf = recording_friction(ds, name, cutoff_hz=cutoff_hz, qd=qd, qdd=qdd, **kwargs)
    return jf, qd, fs


def _warm_up(r: JointFriction, qd: np.ndarray, fs: float, v_ref: float, label: str) -> WarmUp:
    y = eq4_torque(r.k, v_ref)
    return WarmUp(t_min=r.time_s / 60.0, friction_ref=y, power_first=block_power(qd, fs, r.k[0]),
                  k_first=r.k[0], label=label)


def fit_recordings(recordings: Sequence[tuple[str, xr.Dataset]], *, alpha: float = DEFAULT_ALPHA_PER_K,
                   n_sigma: float = 4.0, seed: int = 0, analysed: Mapping[str, tuple] | None = None,
                   progress: bool = False, thermal: bool = True, maxiter: int = 150,
                   start_offset: bool = False) -> dict[str, Any]:
    """Identify the thermal friction model of each joint from healthy warm-up recordings.

    Parameters
    ----------
    recordings : sequence of (name, Dataset)
        Warm-up runs of one robot, each from rest.
    alpha : float
        Gauge of eq. 14 [1/K] (see :mod:`paperlib.estimation.thermal`).
    n_sigma : float
        Threshold margin (:func:`~paperlib.estimation.thermal.choose_threshold`).
    seed : int
        Differential-evolution seed.
    analysed : mapping, optional
        Name -> result of :func:`analyse_recording`, to skip re-analysing.
    progress : bool
        Show a tqdm bar over joints.
    maxiter : int
        Differential-evolution generations.
    thermal : bool
        Identify the thermal model and thresholds (False: friction per cycle and double
        exponentials only).
    start_offset : bool
        Fit one start offset shared by the runs (:class:`~paperlib.estimation.thermal.ThermalModel`):
        for runs that start after the same rest away from the room's temperature.

    Returns
    -------
    dict
        JSON-ready: ``schema``, ``files``, ``robot``, ``joints`` {label: {...}}; each joint has
        ``span_min`` (last segment time [min]) and ``t2_resolved``, and with ``thermal`` its
        ``diagnostics`` (:func:`fit_diagnostics`), every failed rule of which is also issued as a
        ``UserWarning`` "thermal fit, joint <j>: ...".
    """
    if not recordings:
        raise ValueError("thermal fit: no recording")
    res = {}
    for name, ds in recordings:
        res[name] = (analysed or {}).get(name) or analyse_recording(ds, name)
    labels = sorted(set.intersection(*[set(r[0]) for r in res.values()]))
    if not labels:
        raise ValueError("thermal fit: no joint has friction plateaus in every recording "
                         f"({', '.join(n for n, _ in recordings)})")
    joints: dict[str, Any] = {}
    it = labels
    if progress:
        from tqdm import tqdm
        it = tqdm(labels, desc="thermal fit", unit="joint")
    for j in it:
        first = res[recordings[0][0]][0][j]
        v_ref = REFERENCE_FRACTION * max(abs(p.velocity) for n in res for g in res[n][0][j].plateaus for p in g)
        runs, tests, rows, kk, idx = [], [], [], [], []
        for t_i, (name, _) in enumerate(recordings):
            jf, qd, fs = res[name]
            r = jf[j]
            col = [int(x) for x in recordings[t_i][1]["joint"].values].index(j)
            w = _warm_up(r, qd[:, col], fs, v_ref, name)
            runs.append(w)
            fit = fit_double_exponential(w.t_min, w.friction_ref) if w.t_min.size >= 5 else None
            tests.append({"file": name, **({} if fit is None else
                                           {"t1_min": fit.t1_min, "t2_min": fit.t2_min,
                                            "cold_hot_ratio": fit.cold_hot_ratio, "y_hot": fit.y_hot,
                                            "rms": fit.rms}), "w_rms": w.w_rms})
            rows += [[float(t), float(y)] for t, y in zip(w.t_min, w.friction_ref)]
            kk += [[float(x) for x in k] for k in r.k]
            idx += [t_i] * w.t_min.size
        mix = fit_double_exponential(np.array(rows)[:, 0], np.array(rows)[:, 1])
        span = float(np.max(np.array(rows)[:, 0]))
        if mix.t2_min > span and not thermal:  # with the thermal model: among fit_diagnostics' messages
            warnings.warn(f"thermal fit, joint {j}: {_span_message('the double exponential', mix.t2_min, span)}",
                          stacklevel=2)
        entry = {"t1_min": mix.t1_min, "t2_min": mix.t2_min, "cold_hot_ratio": mix.cold_hot_ratio,
                 "span_min": span, "t2_resolved": bool(mix.t2_min <= span),
                 "friction_ref": rows, "k": kk, "cycle_test": idx, "v_ref": v_ref,
                 "gravity_removed": bool(first.gravity_removed), "tests": tests}
        joints[str(j)] = entry
        if not thermal:
            continue
        model = ThermalModel(alpha=alpha, seed=seed, maxiter=maxiter, start_offset=start_offset).fit(runs)
        nominal = float(np.mean([y for _, y in rows]))
        r_th, r_no = [], []
        for t_i, (name, _) in enumerate(recordings):
            jf, qd, fs = res[name]
            col = [int(x) for x in recordings[t_i][1]["joint"].values].index(j)
            w = runs[t_i]
            r_th.append(friction_ratio(w.friction_ref, model.predict_reference(qd[:, col], fs, w.t_min)))
            r_no.append(friction_ratio(w.friction_ref, nominal))
        diag = fit_diagnostics(mix, model, runs, model_bounds=(model.tau1_bounds_min, model.tau2_bounds_min))
        for msg in diag["messages"]:
            warnings.warn(f"thermal fit, joint {j}: {msg}", stacklevel=2)
        entry.update({
            "diagnostics": diag,
            **model.to_dict(),
            "friction_nominal": nominal,
            "threshold_thermal": choose_threshold(r_th, n_sigma),
            "threshold_no_thermal": choose_threshold(r_no, n_sigma),
            "healthy_ratio_thermal": [float(np.min(np.concatenate(r_th))), float(np.max(np.concatenate(r_th)))],
            "healthy_ratio_no_thermal": [float(np.min(np.concatenate(r_no))), float(np.max(np.concatenate(r_no)))],
        })
    robot = {str(ds.attrs.get("robot", "")) for _, ds in recordings}
    source = {str(ds.attrs.get("source", "")) for _, ds in recordings}
    return {"schema": MODEL_SCHEMA, "files": [n for n, _ in recordings], "robot": sorted(robot),
            "source": "twin" if source == {"twin"} else ("hardware" if source == {"hardware"} else "mixed"),
            "reference_fraction": REFERENCE_FRACTION, "n_sigma": n_sigma, "joints": joints}


MODEL_ORDER_TOL = 0.15
"""Largest relative difference, on any run, between the double exponential's slow time constant (or
cold/hot ratio) of the measured friction and that of the thermal model's reconstruction of it, before
the fit warns that the model does not reproduce the warm-up (issue 28's agreement band)."""


def _span_message(what: str, t2: float, span: float) -> str:
    return (f"{what}'s slow time constant {t2:.1f} min is longer than the recordings ({span:.1f} min): "
            "it is not resolved by the data, the hot level (and the cold/hot ratio) is an extrapolation; "
            "record longer warm-ups")


def fit_diagnostics(mix: Any, model: ThermalModel, runs: Sequence[WarmUp], *,
                    model_bounds: tuple[tuple[float, float], tuple[float, float]] | None = None,
                    tol: float = MODEL_ORDER_TOL) -> dict[str, Any]:
    """Checks of one joint's thermal fit against what its recordings can resolve.

    Three rules, each with its message when it fails:

    * *span*: a slow time constant (of the measured double exponential or of the thermal model)
      longer than the last segment time is not resolved: the data do not reach the hot level;
    * *bounds*: a thermal-model time constant within 1 % of its search bound was stopped by the
      bound, not by the data;
    * *model*: run by run, the thermal model's reconstruction of the friction
      (:meth:`ThermalModel.fitted_warm_up`: the run's own cold level, the model's warm-up) and the
      measured friction are fitted by the same double exponential; a slow time constant or a
      cold/hot ratio more than ``tol`` apart on any run means eq. 12 + eq. 14 (two modes, friction
      linear in the temperature) do not reproduce the observed warm-up (more thermal modes, a
      temperature-dependent network, a friction law not linear in the temperature, days too
      short to separate the modes). The thermal model's ``tau2`` is the time constant of the heat
      network with the friction power held; the double exponential's ``t2`` is that of the
      friction warm-up, with the power falling as the joint warms: the two differ on a correct
      model, which is why the model is compared through its reconstruction.

    Parameters
    ----------
    mix : DoubleExpFit
        Double exponential of the measured friction over all runs.
    model : ThermalModel
        Fitted on ``runs``.
    runs : sequence of WarmUp
        The runs of the fit (runs with fewer than 5 segments are skipped by the model rule).
    model_bounds : tuple of (min, max) pairs, optional
        The model's search ranges of tau1 and tau2 [min].
    tol : float
        Relative tolerance of the model rule.

    Returns
    -------
    dict
        ``span_min``; ``runs``: per run ``{label, t2_min, t2_model_min, cold_hot_ratio,
        cold_hot_ratio_model}``; ``model_t2_rel_diff``, ``model_ratio_rel_diff`` (the largest in
        absolute value over runs, signed); ``t2_resolved``, ``model_tau2_resolved``, ``at_bound``
        (names), ``model_order_ok``, ``messages`` (list of str).
    """
    span = float(max(np.max(r.t_min) for r in runs))
    per, dt2, dratio = [], 0.0, 0.0
    for r in runs:
        if r.t_min.size < 5:
            continue
        meas = fit_double_exponential(r.t_min, r.friction_ref)
        rec = fit_double_exponential(r.t_min, model.fitted_warm_up(r))
        per.append({"label": r.label, "t2_min": meas.t2_min, "t2_model_min": rec.t2_min,
                    "cold_hot_ratio": meas.cold_hot_ratio, "cold_hot_ratio_model": rec.cold_hot_ratio})
        a, b = rec.t2_min / meas.t2_min - 1.0, rec.cold_hot_ratio / meas.cold_hot_ratio - 1.0
        dt2 = a if abs(a) > abs(dt2) else dt2
        dratio = b if abs(b) > abs(dratio) else dratio
    tau1, tau2 = model.tau1_s_ / 60.0, model.tau2_s_ / 60.0
    msgs: list[str] = []
    if mix.t2_min > span:
        msgs.append(_span_message("the double exponential", mix.t2_min, span))
    if tau2 > span:
        msgs.append(_span_message("the thermal model", tau2, span))
    at_bound = []
    for name, val, b in zip(("tau1", "tau2"), (tau1, tau2), model_bounds or ()):
        if val <= 1.01 * b[0] or val >= b[1] / 1.01:
            at_bound.append(name)
            msgs.append(f"the thermal model's {name} ({val:.2f} min) sits on its search bound "
                        f"[{b[0]:g}, {b[1]:g}] min: set by the bound, not by the data")
    order_ok = abs(dt2) <= tol and abs(dratio) <= tol
    if not order_ok:
        msgs.append(f"the thermal model's warm-up differs from the measured one by up to {100 * dt2:+.0f} % in "
                    f"t2 and {100 * dratio:+.0f} % in the cold/hot ratio (run by run, tolerance "
                    f"{100 * tol:.0f} %): eq. 12 + eq. 14 do not reproduce this joint's warm-up; its predictions "
                    "(and alarms) carry that error, the double exponential's numbers do not")
    return {"span_min": span, "runs": per, "model_t2_rel_diff": float(dt2), "model_ratio_rel_diff": float(dratio),
            "t2_resolved": bool(mix.t2_min <= span), "model_tau2_resolved": bool(tau2 <= span),
            "at_bound": at_bound, "model_order_ok": bool(order_ok), "messages": msgs}


def monitor_recording(model: Mapping[str, Any], ds: xr.Dataset, name: str = "<dataset>", *,
                      thermal: bool = True, analysed: tuple | None = None) -> dict[str, Any]:
    """Alarms where a recording's friction exceeds the model's prediction by the threshold.

    Parameters
    ----------
    model : mapping
        Output of :func:`fit_recordings`.
    ds : xarray.Dataset
        A run from rest with friction segments.
    thermal : bool
        Predict with the thermal model (True) or with the constant nominal friction.
    analysed : tuple, optional
        Result of :func:`analyse_recording` for ``ds``.

    Returns
    -------
    dict
        ``alarms`` (list of {joint, time_min, ratio}), ``first_alarm_min`` (None when none),
        ``thermal``, and per joint the times, identified and predicted friction and ratios.
    """
    if model.get("schema") != MODEL_SCHEMA:
        raise ValueError(f"thermal monitor: model has schema {model.get('schema')!r}, expected {MODEL_SCHEMA!r}")
    jf, qd, fs = analysed or analyse_recording(ds, name)
    labels = [int(x) for x in ds["joint"].values]
    out_alarms: list[dict[str, float]] = []
    per: dict[str, Any] = {}
    for js, m in model["joints"].items():
        j = int(js)
        if j not in jf:
            continue
        r = jf[j]
        t = r.time_s / 60.0
        y = eq4_torque(r.k, float(m["v_ref"]))
        if thermal:
            pred = ThermalModel.from_dict(m).predict_reference(qd[:, labels.index(j)], fs, t)
            thr = float(m["threshold_thermal"])
        else:
            pred = np.full(t.shape, float(m["friction_nominal"]))
            thr = float(m["threshold_no_thermal"])
        ratio = friction_ratio(y, pred)
        out_alarms += alarms(t, ratio, thr, j)
        per[js] = {"time_min": t.tolist(), "friction_ref": y.tolist(), "predicted": pred.tolist(),
                   "ratio": ratio.tolist(), "threshold": thr}
    out_alarms.sort(key=lambda a: a["time_min"])
    return {"file": name, "thermal": bool(thermal), "source": str(ds.attrs.get("source", "")),
            "alarms": out_alarms,
            "first_alarm_min": out_alarms[0]["time_min"] if out_alarms else None, "joints": per}
