"""Which property of the twin decides Table 5's trends: the whole chain rerun on variants of the twin.

Each variant changes one stated property of ``data/twin/three_rrr_twin.toml`` and reruns everything
that depends on it: the 21-point sampling run, both identifications (Kostic by NLS, Coulomb +
viscous by LS), and the tracking of Table 5 with each compensation and with the variant's own true
friction as feed-forward. Nothing is fitted to the paper's Table 5; the variants are chosen by what
the paper leaves open, and every one is shown, whatever its trends.

Variants (:data:`VARIANTS`):

``twin``
    The twin as stated (a Stribeck peak 1.6x the Coulomb level on every drive).
``no-stribeck``
    Static level = Coulomb level on every drive (no Stribeck dip). This is the shape of the paper's
    own Table 2: all three of its identified curves rise monotonically with speed.
``stiff-loops``
    Drive loops 4x faster (velocity loop 100 Hz, position loop 20 Hz instead of 25 and 5 Hz): the
    paper's speed errors before compensation are 8-16x smaller than the twin's, which points to
    stiffer drives than the twin's defaults.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from paperlib.experiments.kit.sources import RecordingSource
from paperlib.experiments.rrr import identification as idf
from paperlib.experiments.rrr import recorded
from paperlib.experiments.rrr import trends
from paperlib.experiments.rrr import tracking as trk
from paperlib.experiments.rrr.run import sampling_recording
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin


def _no_stribeck(tw: ThreeRRRTwin) -> ThreeRRRTwin:
    return dataclasses.replace(tw, friction=tuple(dataclasses.replace(j, static_Nm=j.coulomb_Nm) for j in tw.friction))


def _stiff_loops(tw: ThreeRRRTwin, factor: float = 4.0) -> ThreeRRRTwin:
    # Kd = J w_v and Kp = J w_v w_p: both bandwidths x factor
    return dataclasses.replace(tw, kd=tw.kd * factor, kp=tw.kp * factor**2)


#: name -> (what changes, how to make it from the stated twin).
VARIANTS: dict[str, tuple[str, Callable[[ThreeRRRTwin], ThreeRRRTwin]]] = {
    "twin": ("the twin as stated (Stribeck peak 1.6x Coulomb; drive loops 25 / 5 Hz)", lambda tw: tw),
    "no-stribeck": ("static = Coulomb level on every drive (the monotone shape of the paper's Table 2 curves)", _no_stribeck),
    "stiff-loops": ("drive loops 4x faster (100 / 20 Hz)", _stiff_loops),
}


def run_variant(name: str, robot: ThreeRRR | None = None, base: ThreeRRRTwin | None = None,
                n_starts: int = 8, seed: int = 0, source: RecordingSource | None = None) -> dict[str, Any]:
    """Sampling run, both fits, Table 5 (with the true-friction reference) and the trend checks of one variant.

    Every run is a recording obtained through ``source`` (:mod:`paperlib.experiments.rrr.recorded`;
    None: simulated now, in memory): ``tracking/<name>/sampling`` and the Table 5 path runs. The
    truth the fits are compared with is the one the variant's sampling recording carries.

    Returns
    -------
    dict
        ``variant``, ``description``, ``curve_errors`` (largest relative error per drive, per model),
        ``k_f_rel_error``, ``table5`` (rows), ``trend_checks``, ``trends`` (:func:`trends.summary`);
        ``series`` (the runs, not JSON) is left out.
    """
    if name not in VARIANTS:
        raise ValueError(f"unknown twin variant {name!r}; choose one of {sorted(VARIANTS)}")
    robot = robot or ThreeRRR.default()
    desc, make = VARIANTS[name]
    ds = recorded.obtain(source, recorded.sampling_name(name),
                         lambda: sampling_recording(robot, make(base or ThreeRRRTwin.default()), variant=name))
    tw = recorded.twin_from_recording(ds)
    data = idf.friction_data(ds, robot, name=f"variant {name}")
    truth_fn = lambda v, i: tw.steady_friction(v, i)  # noqa: E731
    fits = {"kostic": idf.identify(data, "kostic", n_starts=n_starts, seed=seed),
            "coulomb-viscous": idf.identify(data, "coulomb-viscous")}
    summ = {k: idf.summary(f, data, {"k_f": tw.k_f}, truth_fn) for k, f in fits.items()}
    comps = trk.compensations(summ["kostic"], summ["coulomb-viscous"], tw)
    t5 = trk.table5(robot, tw, comps, trk.CONTROLLERS + trk.TWIN_ONLY_CONTROLLERS, source=source, variant=name)
    checks = trends.trend_checks(t5["rows"], trk.SPEEDS_M_S)
    return {"variant": name, "description": desc,
            "curve_errors": {k: s["curve_errors"]["max_rel"] for k, s in summ.items()},
            "k_f_rel_error": {k: s["k_f_rel_error"] for k, s in summ.items()},
            "table5": t5["rows"], "trend_checks": checks, "trends": trends.summary(checks)}


__all__ = ["VARIANTS", "run_variant"]
