"""The room's chain on a given robot model and twin: both fits, Table 5, the location errors, the trends.

:func:`identification_results` (Table 2 and Table 4 from a sampling recording) and
:func:`tracking_results` (Table 5, Figs. 5-6 and the paper's trends) are what the notebooks' results
hold; :mod:`paperlib.experiments.rrr.report` calls them with the room's robot and the twin its
recording carries, the sweep runner (:mod:`paperlib.experiments.rrr.sweep`) with a twin whose
assumptions a study changed. Both return JSON-ready results (the keys the comparison table reads)
and the objects the figures need.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.experiments.kit.sources import RecordingSource
from paperlib.experiments.rrr import identification as idf
from paperlib.experiments.rrr import limits, sampling, trends
from paperlib.experiments.rrr import tracking as trk
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin

__all__ = ["identification_results", "tracking_results"]


def identification_results(ds: xr.Dataset, robot: ThreeRRR, twin: ThreeRRRTwin | None,
                           truth_fn: Callable[[np.ndarray, int], np.ndarray] | None, truth: Mapping[str, Any] | None,
                           *, n_starts: int = 8, seed: int = 0, name: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit both models to a sampling recording; Table 4 and its coherence from ``robot``.

    Parameters
    ----------
    ds : xarray.Dataset
        The 21-point sampling recording (``q`` (n, 3) [rad], ``tau_m`` (n, 3) [N m]).
    robot : ThreeRRR
        The a priori model (E of eq. 37, Table 4).
    twin : ThreeRRRTwin or None
        The twin whose static friction the torque limit is compared with (None: no coherence check).
    truth_fn : callable or None
        ``(v (m,) [rad/s], drive) -> (m,) [N m]``: the true steady friction the curves are compared with.
    truth : mapping or None
        The recording's truth (``k_f``), for the k_f error.
    n_starts, seed : int
        Multi-start NLS of the Kostic fit.
    name : str, optional
        Names the recording in error messages.

    Returns
    -------
    results : dict
        ``source``, ``kostic``, ``coulomb_viscous``, ``limits``, ``limits_source``, ``limits_coherence``,
        ``paper_table2``, ``paper_table4``.
    objects : dict
        ``kostic``, ``cv``, ``data``, ``twin``, ``robot``, ``truth_fn``.
    """
    data = idf.friction_data(ds, robot, name=name)
    k = idf.identify(data, "kostic", n_starts=n_starts, seed=seed)
    cv = idf.identify(data, "coulomb-viscous")
    results: dict[str, Any] = {
        "source": ds.attrs.get("source", "unknown"),
        "kostic": idf.summary(k, data, truth or None, truth_fn),
        "coulomb_viscous": idf.summary(cv, data, truth or None, truth_fn),
        "limits": limits.motion_limits(robot),
        "limits_source": "model",
        "paper_table2": idf.PAPER_TABLE2,
        "paper_table4": limits.PAPER_TABLE4,
    }
    if twin is not None:
        fs = twin.control_rate_hz
        results["limits_coherence"] = limits.coherence(
            robot, np.array([j.static_Nm for j in twin.friction]),
            paths={"table3_400mm_s": trk.path_reference(robot, 0.4, fs),
                   "sampling_run": sampling.sampling_reference(robot, fs, a_max=sampling.A_MAX_SAMPLING_M_S2)})
    return results, {"kostic": k, "cv": cv, "data": data, "twin": twin, "robot": robot, "truth_fn": truth_fn}


def tracking_results(ident: Mapping[str, Any], robot: ThreeRRR, twin: ThreeRRRTwin, *,
                     source: RecordingSource | None = None,
                     controllers: Sequence[str] = trk.CONTROLLERS + trk.TWIN_ONLY_CONTROLLERS,
                     location_controllers: Sequence[str] = trk.CONTROLLERS,
                     speeds: Sequence[float] = trk.SPEEDS_M_S,
                     dwell_s: float = sampling.DWELL_S) -> tuple[dict[str, Any], dict[str, Any]]:
    """Table 5 and Figs. 5-6 on ``twin`` with the compensations identified in ``ident``; the paper's trends.

    Parameters
    ----------
    ident : mapping
        :func:`identification_results`' results (``kostic``, ``coulomb_viscous`` summaries).
    robot : ThreeRRR
        The a priori model (references, feed-forward, fk).
    twin : ThreeRRRTwin
        The rig simulated; its true friction is the ``true-friction`` reference.
    source : RecordingSource, optional
        Where every run's recording comes from (None: simulated now, in memory).
    controllers : sequence of str
        Table 5's controllers (:data:`tracking.CONTROLLERS` plus the twin-only ones by default).
    location_controllers : sequence of str
        The controllers of the location runs (Figs. 5-6).
    speeds : sequence of float
        Table 5's path speeds [m/s].
    dwell_s : float
        The stay at each sampling position of the location runs [s].

    Returns
    -------
    results : dict
        ``source``, ``table5`` (the paper's controllers), ``table5_true_friction``, ``location``,
        ``trends``, ``trend_checks``, ``start_transient``, ``paper_table5``, ``paper_location_mm``,
        ``identification_k_f``.
    objects : dict
        ``series``, ``comps``, ``robot``, ``twin``, ``location``.
    """
    speeds = tuple(speeds)
    comps = trk.compensations(ident["kostic"], ident["coulomb_viscous"], twin)
    t5 = trk.table5(robot, twin, comps, tuple(controllers), source=source, speeds=speeds)
    loc = {name: trk.location_errors(robot, twin, comps.get(name), source=source, dwell_s=dwell_s)
           for name in location_controllers}
    rows = t5["rows"]
    checks = trends.trend_checks(rows, speeds)
    summ = trends.summary(checks)
    paper_rows = [r for r in rows if r["controller"] in trk.CONTROLLERS]

    def beats(v: float, m: str) -> bool:
        return trends.below(trends.value(rows, v, "kostic", m), trends.value(rows, v, "coulomb-viscous", m))

    top = max(speeds)
    trends_paper = {
        "mean_error_grows_with_speed": summ["errors grow with speed"]["mean"],
        "peak_error_grows_with_speed": summ["errors grow with speed"]["peak"],
        "compensation_cuts_mean_error": summ["compensation cuts them"]["mean"],
        "compensation_cuts_peak_error": summ["compensation cuts them"]["peak"],
        "kostic_beats_cv_at_400": beats(top, "mean") if abs(top - 0.4) < 1e-9 else None,
        "kostic_beats_cv_peak_at_400": beats(top, "peak") if abs(top - 0.4) < 1e-9 else None,
        "kostic_beats_cv_mean_at": {f"{v * 1e3:.0f}": beats(v, "mean") for v in speeds},
    }
    results = {"source": "twin", "table5": paper_rows,
               "table5_true_friction": [r for r in rows if r["controller"] == "true-friction"],
               "location": loc, "trends": trends_paper, "trend_checks": checks,
               "start_transient": trk.start_transient(t5["series"]),
               "paper_table5": {f"{k * 1e3:.0f}": v for k, v in trk.PAPER_TABLE5.items()},
               "paper_location_mm": trk.PAPER_LOCATION_MM, "identification_k_f": comps["kostic"].k_f}
    return results, {"series": t5["series"], "comps": comps, "robot": robot, "twin": twin, "location": loc}
