"""What notebook 02_thermal_campaign reports: the campaign loaded, its numbers as tables, its results file.

The notebook calls these and draws (:mod:`paperlib.experiments.industrial.thermal_figures`); the
analysis itself is :func:`paperlib.experiments.industrial.thermal.analyse_campaign`. Times are in
minutes where the paper gives them so (Table 1, figures), torques in N m, velocities in rad/s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["load_campaign", "summary_table", "table1_table", "joint_cold_hot", "eq4_cold_hot", "prediction_summary",
           "anomaly_table", "per_cycle_study", "results_record"]


def load_campaign(recordings_dir: str | Path, results_file: str | Path, source: str = "twin",
                  archive: str | None = None, cycles: int | None = None) -> tuple[dict[str, Any], list[Path], str]:
    """The campaign's days: read from ``recordings_dir`` where present, otherwise obtained through ``source``.

    Parameters
    ----------
    recordings_dir : path-like
        The pipeline's recordings (read only).
    results_file : path-like
        The notebook's results JSON; an absent day is stored in the ``recordings/`` folder beside it.
    source : {"twin", "archive"}
        Simulate an absent day, or copy it from the release ``archive``.
    archive : str, optional
        The release folder, for ``source = "archive"``.
    cycles : int, optional
        Cycles per day (None: the campaign file's).

    Returns
    -------
    (datasets, files, origin)
        Day name -> :class:`xarray.Dataset`, the files read, and where they came from
        (:func:`paperlib.experiments.industrial.thermal.campaign_datasets`).
    """
    from paperlib import provenance
    from paperlib.experiments.industrial import thermal
    from paperlib.experiments.industrial.sources import recording_source

    src = recording_source(provenance.repo_path(results_file).parent, source, archive)
    return thermal.campaign_datasets(recordings_dir, cycles=cycles, progress=True, source=src)


def summary_table(summary: Mapping[str, Any]):
    """The campaign's headline numbers beside what the paper's text says (:data:`~.thermal_figures.PAPER_TEXT`).

    Returns
    -------
    pandas.DataFrame
        One row per quantity: ``twin`` (range and median over both robots, all joints and days)
        and ``paper``.
    """
    import pandas as pd

    from paperlib.experiments.industrial.thermal_figures import PAPER_TEXT as P

    S = summary

    def rng(key, fmt):
        lo, hi = S[key]
        return f"{lo:{fmt}}-{hi:{fmt}}"

    rows = [
        ("t1 [min]", f"{rng('t1_min_range', '.2f')} (median {S['t1_min_median']:.2f})",
         f"{P['t1_range_min'][0]:g}-{P['t1_range_min'][1]:g}"),
        ("t2 [min]", f"{rng('t2_min_range', '.1f')} (median {S['t2_min_median']:.1f})",
         f"{P['t2_range_min'][0]:g}-{P['t2_range_min'][1]:g}"),
        ("t2 fitted vs the twin's noise-free friction [%]",
         f"max {100 * S['t2_rel_error_max']:.1f} (median {100 * S['t2_rel_error_median']:.1f}); mix max "
         f"{100 * S['t2_mix_rel_error_max']:.1f}", "-"),
        ("cold / hot friction [-]", f"{S['cold_hot_ratio_min']:.2f}-{S['cold_hot_ratio_max']:.2f}",
         f"up to {P['cold_hot_ratio_max']:g}"),
        (f"cycles until within {100 * S['steady_tol']:.0f} % of hot", f"{rng('steady_cycles_range', '.0f')} "
         f"(median {S['steady_cycles_median']:.0f})", f"about {P['steady_cycles']} ({P['steady_h']:g} h)"),
        ("held-out friction prediction, RMS [%]", f"max {S['heldout_rms_percent_max']:.2f} (median "
         f"{S['heldout_rms_percent_median']:.2f}); worst cycle {S['heldout_max_percent']:.2f}", "-"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "twin", "paper"]).set_index("quantity")


def table1_table(extras: Mapping[str, Any], robot: int = 1):
    """Table 1 of the twin beside the paper's (:func:`~.thermal_figures.table1_rows`) as a table [min]."""
    import pandas as pd

    from paperlib.experiments.industrial.thermal_figures import table1_rows

    df = pd.DataFrame(table1_rows(extras, robot=robot)).set_index(["joint", "test"])
    return df.round(2)


def joint_cold_hot(results: Mapping[str, Any], robot: int = 1, joint: int = 3) -> dict[str, Any]:
    """Cold/hot friction ratio of one joint, identified and of the twin's noise-free friction, over the days."""
    tests = results["robots"][str(robot)]["joints"][str(joint)]["tests"]
    ident = [t["cold_hot_ratio"] for t in tests]
    truth = [t["truth_cold_hot_ratio"] for t in tests]
    return {"identified": (round(min(ident), 2), round(max(ident), 2)),
            "twin truth": (round(min(truth), 2), round(max(truth), 2))}


def eq4_cold_hot(extras: Mapping[str, Any], day: str = "r1_d1"):
    """Eq. 4's friction at the reference speed in the first and the last cycle of a day, per joint [N m]."""
    import pandas as pd

    jf = extras["analysed"][day][0]
    return pd.DataFrame({"first cycle [N m]": [jf[j].friction_ref[0] for j in sorted(jf)],
                         "last cycle [N m]": [jf[j].friction_ref[-1] for j in sorted(jf)]},
                        index=pd.Index(sorted(jf), name="joint")).round(3)


def prediction_summary(results: Mapping[str, Any], robot: int = 1, joint: int = 1) -> dict[str, Any]:
    """Held-out friction prediction error of one joint [% RMS] with and without the thermal model, and alpha [1/K]."""
    r = results["robots"][str(robot)]["joints"][str(joint)]
    return {"with the thermal model [% RMS]": round(r["heldout_rms_percent"], 2),
            "constant friction [% RMS]": round(r["heldout_rms_percent_no_thermal"], 1),
            "alpha (gauge) [1/K]": r["thermal_model"]["alpha"]}


def anomaly_table(results: Mapping[str, Any], n_healthy_days: int):
    """The monitor on the faulty day, with and without the thermal model.

    Returns
    -------
    pandas.DataFrame
        Rows ``thermal``, ``no_thermal``: threshold, delay of the first alarm after the onset [min]
        (None: no alarm), the faulty day's smallest ratio after the onset, the healthy days' largest
        ratio, whether the two are separable, and the alarms on the ``n_healthy_days`` healthy days.
    """
    import pandas as pd

    A = results["anomaly"]
    rows = {}
    for kind in ("thermal", "no_thermal"):
        a = A[kind]
        rows[kind] = {"threshold": round(a["threshold"], 3), "first alarm after onset [min]": a["delay_min"],
                      "fault ratio after onset, min": round(a["fault_ratio_min_after_onset"], 3),
                      "healthy ratio, max": round(a["healthy_ratio_max"], 3), "separable": a["separable"],
                      f"alarms on {n_healthy_days} healthy days": A["healthy_alarms"][kind]}
    return pd.DataFrame(rows).T


def per_cycle_study(datasets: Mapping[str, Any], pick: tuple[str, ...] = ("ZZ1R", "mx2R", "my3R", "fv1", "fs1"),
                    decimate: int = 10) -> tuple[dict[str, Any], Any, dict[str, float], dict[str, dict[str, float]]]:
    """Base parameters identified cycle by cycle on every day (Figs. 9 and 12), and their drift on robot 1.

    Parameters
    ----------
    datasets : mapping
        The campaign's days.
    pick : tuple of str
        The base parameters summarised.
    decimate : int
        Keep every ``decimate``-th sample of each cycle.

    Returns
    -------
    (curves, bp, nominal, inertial)
        Per day (cycle times [min], base parameters per cycle) (:func:`~.thermal_inertial.per_cycle_parameters`);
        the base parameters; their URDF values; per picked parameter the mean of the first cycle and
        of the last five over robot 1's days, the URDF value and the days' spread of the last five.
    """
    from paperlib.experiments.industrial import thermal_inertial as I

    arm = I.cycle_arm()
    bp = I.base_of(arm)
    curves = {n: I.per_cycle_parameters(datasets[n], arm, bp, decimate=decimate) for n in sorted(datasets)}
    nominal = dict(zip(bp.names, bp.project(arm.nominal_params())))
    inertial = {}
    for p_ in pick:
        i = list(bp.names).index(p_)
        b = np.array([curves[n][1][:, i] for n in sorted(curves) if n.startswith("r1_")])
        inertial[p_] = {"first_cycle_mean": float(b[:, 0].mean()), "last_cycles_mean": float(b[:, -5:].mean()),
                        "nominal": float(nominal[p_]), "day_spread_last": float(b[:, -5:].mean(axis=1).std())}
    return curves, bp, nominal, inertial


def results_record(results: Mapping[str, Any], prov: Mapping[str, Any], extras: Mapping[str, Any]) -> dict[str, Any]:
    """The notebook's results JSON (read by the room's comparison table): the analysis, provenance, Table 1, notes."""
    from paperlib.experiments.industrial.thermal_figures import table1_rows

    return {**results, "provenance": prov, "table1": table1_rows(extras, robot=1),
            "notes": ["The twin is calibrated to the paper's ranges (time constants, cold/hot ratios, temperatures) by construction: "
                      "its numbers test the method, not the paper's robots.",
                      "alpha of eq. 14 is a gauge (friction predictions depend only on alpha c1, alpha c2)."]}
