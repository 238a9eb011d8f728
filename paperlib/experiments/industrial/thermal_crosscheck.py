"""Cross-check of the thermal campaign analysis on warm-up days of a second thermal model.

:func:`crosscheck` simulates warm-up days of one robot (the campaign's warming fractions, from
rest) with the twin's own two-node network or the three-node chain of
:mod:`paperlib.twin.thermal_three_node`, runs ``paperlib thermal fit``
(:func:`paperlib.estimation.thermal_monitor.fit_recordings`) on them as a user would, and sets its
time constants and cold/hot ratio beside a direct double-exponential fit of the same days' true
friction (the twin's logged friction temperature through the true friction law, at the segment
times). The fit's own diagnostics (``warnings``) are reported with the numbers.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from paperlib.estimation.thermal import fit_double_exponential
from paperlib.estimation.thermal_monitor import analyse_recording, fit_recordings
from paperlib.experiments.industrial.thermal import truth_reference
from paperlib.twin.robots import campaign as C

__all__ = ["crosscheck_days", "crosscheck"]


def crosscheck_days(thermal_model: str, *, cycles: int = 17, robot: int = 1,
                    params: C.CampaignParams | None = None, joints: Sequence[int] | None = None
                    ) -> dict[str, Any]:
    """Healthy warm-up days of one robot (the campaign's warming fractions), as recordings.

    Parameters
    ----------
    thermal_model : {"two_node", "three_node"}
    cycles : int
        Cycles per day (17 x 5 min = 85 min, the issue's days).
    robot : int
    params : CampaignParams, optional
    joints : sequence of int, optional
        Joint labels to keep in the recordings (default all six).

    Returns
    -------
    dict of name -> Dataset
    """
    params = params or C.load_campaign_params()
    days = [d for d in C.campaign_days(params, robots=(robot,), include_fault=False,
                                       thermal_model=thermal_model)]
    rb = C.tx40_rigid_body()
    out = {}
    for spec in days:
        ds = C.day_recording(C.simulate_day(params, spec, rigid_body=rb, cycles=cycles))
        if joints is not None:
            ds = ds.sel(joint=list(joints))
        out[spec.name] = ds
    return out


def _rel(a: float, b: float) -> float:
    return float(a / b - 1.0)


def crosscheck(datasets: dict[str, Any], *, seed: int = 0, maxiter: int = 150,
               start_offset: bool = False) -> dict[str, Any]:
    """``thermal fit`` on the days beside a direct fit of their true friction, per joint.

    Parameters
    ----------
    datasets : dict of name -> Dataset
        Healthy warm-up days of one robot (:func:`crosscheck_days`).
    seed, maxiter : int
        Differential evolution of the thermal model.
    start_offset : bool
        Fit the thermal model's shared start offset (``thermal fit --start-offset``).

    Returns
    -------
    dict
        Per joint label: ``fit`` (the mix double exponential and the thermal model's time
        constants, as ``thermal fit`` writes them), ``truth`` (the mix double exponential of the
        true friction at the same times), relative errors, and the fit's ``warnings``.
    """
    names = sorted(datasets)
    analysed = {n: analyse_recording(datasets[n], n) for n in names}
    model = fit_recordings([(n, datasets[n]) for n in names], analysed=analysed, seed=seed, maxiter=maxiter,
                           start_offset=start_offset)
    out: dict[str, Any] = {}
    for js, m in model["joints"].items():
        j = int(js)
        tt, yt = [], []
        for n in names:
            jf = analysed[n][0][j]
            tt.append(jf.time_s / 60.0)
            yt.append(truth_reference(datasets[n], j, jf.time_s, m["v_ref"]))
        tr = fit_double_exponential(np.concatenate(tt), np.concatenate(yt))
        meas = np.array(m["friction_ref"])[:, 1]
        out[js] = {
            "fit": {"t1_min": m["t1_min"], "t2_min": m["t2_min"], "cold_hot_ratio": m["cold_hot_ratio"],
                    "model_tau1_min": m.get("tau1_min"), "model_tau2_min": m.get("tau2_min")},
            "truth": {"t1_min": tr.t1_min, "t2_min": tr.t2_min, "cold_hot_ratio": tr.cold_hot_ratio},
            "rel_error": {"t1": _rel(m["t1_min"], tr.t1_min), "t2": _rel(m["t2_min"], tr.t2_min),
                          "cold_hot_ratio": _rel(m["cold_hot_ratio"], tr.cold_hot_ratio),
                          "model_tau2_vs_truth_t2": (None if m.get("tau2_min") is None
                                                     else _rel(m["tau2_min"], tr.t2_min))},
            "extraction_rel_error_max": float(np.max(np.abs(meas / np.concatenate(yt) - 1.0))),
            "span_min": float(max(t.max() for t in tt)),
            "warnings": list(m.get("warnings", [])),
        }
    return {"days": names, "joints": out, "model": model}


def _main(argv: Sequence[str] | None = None) -> int:
    """``python -m paperlib.experiments.industrial.thermal_crosscheck [--model three_node] ...``: print the comparison."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.industrial.thermal_crosscheck",
                                 description="thermal fit on warm-up days of a thermal model vs their true friction.")
    ap.add_argument("--model", default="three_node", choices=C.THERMAL_MODELS, help="thermal model of the days")
    ap.add_argument("--cycles", type=int, default=17, help="cycles of 5 min per day (default 17 = 85 min)")
    ap.add_argument("--robot", type=int, default=1, choices=(1, 2))
    ap.add_argument("--joints", type=int, nargs="*", default=None, help="joint labels (default all six)")
    ap.add_argument("--start-offset", action="store_true", help="fit the thermal model's shared start offset")
    args = ap.parse_args(argv)
    r = crosscheck(crosscheck_days(args.model, cycles=args.cycles, robot=args.robot, joints=args.joints),
                   start_offset=args.start_offset)
    for js, j in r["joints"].items():
        d = r["model"]["joints"][js]["diagnostics"]
        print(f"joint {js}: t2 {j['fit']['t2_min']:.1f} min (truth {j['truth']['t2_min']:.1f}), cold/hot "
              f"{j['fit']['cold_hot_ratio']:.3f} (truth {j['truth']['cold_hot_ratio']:.3f}); model tau2 "
              f"{j['fit']['model_tau2_min']:.1f} min, model vs measured t2 {100 * d['model_t2_rel_diff']:+.1f} %, "
              f"cold/hot {100 * d['model_ratio_rel_diff']:+.1f} %; {len(d['messages'])} warning(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
