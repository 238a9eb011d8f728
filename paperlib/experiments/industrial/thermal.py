"""Paper 001's warm-up campaign on the TX40 twin: Table 1, Figs. 6, 7, 10, 11 and 13 (logic).

:func:`simulate_campaign` makes the recordings (2 robots x 4 days + the faulty day,
``source = twin``); :func:`analyse_campaign` runs the analysis a user would run on measured
recordings (``paperlib.estimation.thermal_monitor``: angles and drive torques only) and sets the
results beside the twin's truth:

* per robot, day and joint: the double exponential of the friction at 60 % of the fastest
  plateau (t1, t2, cold/hot ratio) and the same fit of the twin's noise-free friction at the same
  times (the truth); the "mix" fit over the four days;
* per robot: the thermal model (eq. 12 + eq. 14) identified on days 1-3 by differential evolution,
  its prediction error on the held-out day 4;
* the anomaly monitor (with and without the thermal model), thresholds chosen on days 1-3:
  alarms on every day, the faulty day's first alarm after the onset, and whether the fault is
  separable from healthy days without the thermal model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.estimation.plateaus import eq4_torque
from paperlib.estimation.thermal import fit_double_exponential
from paperlib.estimation.thermal_monitor import analyse_recording, fit_recordings, monitor_recording
from paperlib.recordings.storage import apply_storage, check_mode, storage_plan
from paperlib.recordings import read_recording, truth as rec_truth, write_recording
from paperlib.twin.robots import campaign as C
from paperlib.friction.lugre import steady_friction

if TYPE_CHECKING:
    from paperlib.experiments.kit.sources import RecordingSource

__all__ = ["TRAIN_DAYS", "HELDOUT_DAY", "STEADY_TOL", "CAMPAIGN_READS", "NOTEBOOK_READS", "campaign_resolutions",
           "storage_settings", "storage", "simulate_campaign", "load_campaign", "campaign_datasets", "provenance_block",
           "truth_reference", "analyse_campaign", "steady_cycles", "START_OFFSET"]

TRAIN_DAYS = (1, 2, 3)
"""Days whose recordings identify each robot's thermal model and alarm thresholds."""
HELDOUT_DAY = 4
"""The healthy day kept out of the identification (the last one)."""
STEADY_TOL = 0.05
"""Steady state: friction within 5 % of its hot level."""
START_OFFSET = True
"""The thermal model fits one start offset shared by a robot's days (``thermal fit --start-offset``):
paper 001's days began with the gearboxes at about 15 C in a room at about 20 C (Sec. 2.4, 3), and
so do the twin's. Eq. 12 started at the room's temperature misses the first hour's relaxation, which
raised false alarms on healthy days."""
DETECTION_WINDOW_MIN = 10.0
"""The fault counts as detected when alarmed within this time of its onset [min]."""
CAMPAIGN_READS: tuple[str, ...] = ("q", "tau_m")
"""Data variables the campaign's analysis reads from a recording, and :func:`load_campaign` requires:
the encoder angles (velocities, plateaus, the regressor) and the drive torques (plateau friction,
:func:`analyse_campaign`; cycle-by-cycle base parameters,
:func:`paperlib.experiments.industrial.thermal_inertial.per_cycle_parameters`)."""
NOTEBOOK_READS: dict[str, tuple[str, ...]] = {"02_thermal_campaign": CAMPAIGN_READS}
"""Notebook -> the data variables it reads from the campaign recordings: with
``recording_storage: analysis`` a campaign recording keeps their union (:func:`storage`)."""
FULL_RECORDINGS_COMMAND = "paperlib reproduce industrial --full-recordings"


def campaign_resolutions(params: C.CampaignParams | None = None) -> dict[str, float]:
    """Steps the campaign twin quantizes to (variable -> step in its units), for lossless storage.

    ``q``: the encoder resolution of the campaign file [rad] (:func:`paperlib.twin.robots.campaign.simulate_day`
    rounds the angles to it); the drive torques are not quantized.
    """
    params = params or C.load_campaign_params()
    return {"q": float(params.encoder_resolution)}


def storage_settings(run_config: Mapping[str, Any] | None = None, override: str | None = None
                     ) -> tuple[str, list[str]]:
    """The campaign's ``recording_storage`` and ``float32_channels``, checked.

    From ``config/industrial.yaml``'s ``thermal_campaign`` section, a run configuration's
    ``industrial: thermal_campaign:`` over it, and ``override`` (``--config recording_storage=...``,
    which ``paperlib reproduce --full-recordings`` sets) last.

    Raises
    ------
    ValueError
        A ``recording_storage`` other than ``analysis`` or ``full``.
    """
    from paperlib.experiments.kit.registry import load_room_config

    cfg = load_room_config("industrial", run_config or {}).get("thermal_campaign") or {}
    mode = override if override is not None else cfg.get("recording_storage", "analysis")
    where = "industrial thermal campaign (config/industrial.yaml, a run configuration or --config)"
    return check_mode(mode, where), [str(v) for v in cfg.get("float32_channels") or []]


def reproduce_check(run_config: Mapping[str, Any], args: Any) -> None:
    """``paperlib reproduce``'s check of the room's configuration (``--config``, ``--full-recordings``).

    Raises
    ------
    ValueError
        A bad ``config/industrial.yaml`` or run configuration section (the message names the key).
    """
    storage_settings(dict(run_config), "full" if getattr(args, "full_recordings", False) else None)


def storage(mode: str = "analysis", float32: Sequence[str] = (), params: C.CampaignParams | None = None
            ) -> dict[str, Any]:
    """How the pipeline stores a campaign recording (:func:`paperlib.recordings.storage.storage_plan`).

    Parameters
    ----------
    mode : {"analysis", "full"}
        ``analysis``: the variables of :data:`NOTEBOOK_READS`, the encoder angles as exact integer
        counts (:func:`campaign_resolutions`), those of ``float32`` in single precision; ``full``:
        everything the twin logs, float64.
    float32 : sequence of str
        Variables to store in single precision (none by default: ``tau_m`` in float32 moves
        results of the notebook in their last digits, ``docs/thermal.md``).
    params : CampaignParams, optional
        Default: ``data/twin/tx40_thermal_campaign.toml``.

    Raises
    ------
    ValueError
        ``mode`` is not ``analysis`` or ``full``.
    """
    return storage_plan(check_mode(mode, "industrial thermal campaign"), NOTEBOOK_READS, float32=float32,
                        resolution=campaign_resolutions(params), full_command=FULL_RECORDINGS_COMMAND)


def simulate_campaign(params: C.CampaignParams | None = None, *, cycles: int | None = None,
                      out_dir: str | Path | None = None, days: Sequence[C.DaySpec] | None = None,
                      keep: bool = True, progress: bool = False, store: Mapping[str, Any] | None = None
                      ) -> dict[str, xr.Dataset]:
    """Simulate the campaign; write each day to ``out_dir/<name>.nc`` if given.

    Parameters
    ----------
    params : CampaignParams, optional
        Default: ``data/twin/tx40_thermal_campaign.toml``.
    cycles : int, optional
        Cycles per day (default 24).
    out_dir : path, optional
    days : sequence of DaySpec, optional
        Default: :func:`paperlib.twin.robots.campaign.campaign_days`.
    keep : bool
        Return the datasets (False: only write them).
    progress : bool
        tqdm bar over days.
    store : mapping, optional
        What to keep of each day (:func:`storage`); default everything, float64.

    Returns
    -------
    dict of name -> Dataset
        As stored.
    """
    params = params or C.load_campaign_params()
    days = list(days or C.campaign_days(params))
    rb = C.tx40_rigid_body()
    it = days
    if progress:
        from tqdm import tqdm
        it = tqdm(days, desc="campaign", unit="day")
    out = {}
    for spec in it:
        ds = apply_storage(C.day_recording(C.simulate_day(params, spec, rigid_body=rb, cycles=cycles)), store)
        if out_dir is not None:
            write_recording(ds, Path(out_dir) / f"{spec.name}.nc")
        if keep:
            out[spec.name] = ds
    return out


def load_campaign(paths: Sequence[str | Path]) -> dict[str, xr.Dataset]:
    """Read campaign recordings (name = file stem)."""
    return {Path(p).stem: read_recording(p, require=CAMPAIGN_READS, analysis="thermal campaign")
            for p in paths}


def campaign_datasets(recordings_dir: str | Path, *, cycles: int | None = None, progress: bool = False,
                      source: RecordingSource | None = None, store: Mapping[str, Any] | None = None
                      ) -> tuple[dict[str, xr.Dataset], list[Path], str]:
    """Every day of the campaign: the pipeline's recordings in ``recordings_dir`` where present, the rest
    obtained through ``source`` (or, without one, simulated now in memory, not written).

    Parameters
    ----------
    recordings_dir : path-like
        Where ``rules/industrial_thermal.smk`` writes ``<day>.nc`` (relative paths from the repository root);
        its files are only read.
    cycles : int, optional
        Cycles per simulated day (None: the campaign file's). Recordings read are used as they are.
    progress : bool
        tqdm bar over the simulated days.
    source : RecordingSource, optional
        How a missing day is obtained (:func:`paperlib.experiments.industrial.sources.recording_source`):
        ``twin``: simulated, stored (``store``) as ``<source.recordings_dir>/<day>.nc`` and read back;
        ``archive``: copied from the release and read, nothing simulated.
    store : mapping, optional
        What a day simulated through ``source`` keeps (:func:`storage`); default the room's
        configuration (``config/industrial.yaml``: :func:`storage_settings`), as the pipeline stores it.

    Returns
    -------
    datasets : dict day name -> Dataset
    files : list of Path
        The recordings read (those obtained through ``source`` included).
    origin : str
        One line saying what was read and what was simulated or copied.
    """
    from paperlib.provenance import repo_path

    folder = repo_path(recordings_dir)
    params = C.load_campaign_params()
    days = list(C.campaign_days(params))
    files = [folder / f"{d.name}.nc" for d in days if (folder / f"{d.name}.nc").is_file()]
    datasets = load_campaign(files)
    todo = [d for d in days if d.name not in datasets]
    how = ""
    if todo and source is None:
        datasets.update(simulate_campaign(params, cycles=cycles, days=todo, progress=progress))
        how = "simulated now"
    elif todo:
        plan = store if store is not None else storage(*storage_settings(), params)
        it = todo
        if progress and source.source != "archive":
            from tqdm import tqdm
            it = tqdm(todo, desc="campaign", unit="day")
        for spec in it:
            def make(spec=spec):
                return simulate_campaign(params, cycles=cycles, days=[spec], store=plan)[spec.name]
            source.obtain(spec.name, make)
            files.append(source.path(spec.name))
            datasets.update(load_campaign([source.path(spec.name)]))
        how = ("copied from the release" if source.source == "archive" else "simulated now") + \
            f" into {source.recordings_dir}"
    origin = (f"{len(days) - len(todo)} of {len(days)} days read from {folder}"
              + (f", {len(todo)} {how} ({', '.join(d.name for d in todo)})" if todo else ""))
    return datasets, files, origin


def truth_reference(ds: xr.Dataset, joint: int, t_s: np.ndarray, v_ref: float) -> np.ndarray:
    """The twin's noise-free friction [N m] of ``joint`` at speed ``v_ref`` at times ``t_s`` [s]."""
    tr = rec_truth(ds)
    T = np.asarray(tr["temperature_inner_degC"])[:, joint - 1]
    Tt = np.interp(t_s, np.arange(T.size) * float(tr["temperature_inner_step_s"]), T)
    row = np.asarray(tr["friction_rows"][joint - 1])
    y = np.array([steady_friction(float(v_ref), row, float(x)) for x in Tt])
    f = tr.get("fault")
    if f and int(f["joint"]) == joint:
        y = np.where(t_s >= 60.0 * float(f["onset_min"]), y * float(f["factor"]), y)
    return y


def steady_cycles(fit, period_min: float, tol: float = STEADY_TOL) -> float:
    """Cycles after which a double exponential stays within ``tol`` of its hot level."""
    a = np.array([fit.a1, fit.a2])
    tt = np.array([fit.t1_min, fit.t2_min])
    if fit.y_hot <= 0:
        return float("nan")
    t = np.linspace(0, 600, 60001)
    excess = (a[:, None] * np.exp(-t[None] / tt[:, None])).sum(axis=0) / fit.y_hot
    over = np.flatnonzero(np.abs(excess) > tol)
    t_ss = t[over[-1] + 1] if over.size and over[-1] + 1 < t.size else (0.0 if not over.size else float("inf"))
    return float(t_ss / period_min)


def _day_of(name: str) -> tuple[int, int, bool]:
    r, d = name.split("_")[:2]
    return int(r[1:]), int(d[1:]), name.endswith("_fault")


def analyse_campaign(datasets: Mapping[str, xr.Dataset], *, progress: bool = False, seed: int = 0
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Analyse the campaign recordings like measured data, then compare with the twin's truth.

    Parameters
    ----------
    datasets : mapping of name -> Dataset
        Names ``r<robot>_d<day>[_fault]`` (as :func:`simulate_campaign` writes them).
    progress : bool
    seed : int
        Differential-evolution seed.

    Returns
    -------
    results : dict
        JSON-ready numbers (``source = twin``).
    extras : dict
        Arrays for the figures: ``analysed``, ``models``, ``monitors``, ``table1``, ``truth_fits``.
    """
    names = sorted(datasets)
    it = names
    if progress:
        from tqdm import tqdm
        it = tqdm(names, desc="analyse", unit="day")
    analysed = {n: analyse_recording(datasets[n], n) for n in it}
    light = {n: datasets[n].drop_vars([v for v in ("q", "tau_m") if v in datasets[n]]) for n in names}
    robots = sorted({_day_of(n)[0] for n in names})
    period_min = float(rec_truth(datasets[names[0]])["cycle_period_s"]) / 60.0
    results: dict[str, Any] = {"source": "twin", "robot": "tx40", "train_days": list(TRAIN_DAYS),
                               "heldout_day": HELDOUT_DAY, "robots": {}}
    extras: dict[str, Any] = {"analysed": analysed, "models": {}, "monitors": {}, "table1": {},
                              "truth_fits": {}, "datasets": light}
    t2_err, t2_err_mix, held_rms, held_max = [], [], [], []
    healthy_alarms = {"thermal": 0, "no_thermal": 0}
    healthy_alarm_days = {"thermal": [], "no_thermal": []}
    for r in robots:
        healthy = sorted(n for n in names if _day_of(n)[0] == r and not _day_of(n)[2])
        train = [n for n in healthy if _day_of(n)[1] in TRAIN_DAYS]
        # Table 1: per test and mix, all healthy days
        t1m = fit_recordings([(n, light[n]) for n in healthy], analysed=analysed, thermal=False)
        model = fit_recordings([(n, light[n]) for n in train], analysed=analysed, seed=seed, start_offset=START_OFFSET)
        extras["table1"][r] = t1m
        extras["models"][r] = model
        rob: dict[str, Any] = {"joints": {}}
        for js, m in t1m["joints"].items():
            j = int(js)
            tests = []
            tt_all, yt_all = [], []
            for n, test in zip(healthy, m["tests"]):
                jf = analysed[n][0][j]
                y_true = truth_reference(datasets[n], j, jf.time_s, m["v_ref"])
                tf = fit_double_exponential(jf.time_s / 60.0, y_true)
                extras["truth_fits"][(r, n, j)] = (jf.time_s / 60.0, y_true, tf)
                tt_all.append(jf.time_s / 60.0)
                yt_all.append(y_true)
                e = test["t2_min"] / tf.t2_min - 1.0
                t2_err.append(abs(e))
                tests.append({"day": _day_of(n)[1], "t1_min": test["t1_min"], "t2_min": test["t2_min"],
                              "cold_hot_ratio": test["cold_hot_ratio"], "w_rms_W": test["w_rms"],
                              "truth_t1_min": tf.t1_min, "truth_t2_min": tf.t2_min,
                              "truth_cold_hot_ratio": tf.cold_hot_ratio, "t2_rel_error": e,
                              "steady_cycles": steady_cycles(fit_double_exponential(jf.time_s / 60.0, eq4_torque(jf.k, m["v_ref"])), period_min)})
            mix_truth = fit_double_exponential(np.concatenate(tt_all), np.concatenate(yt_all))
            e_mix = m["t2_min"] / mix_truth.t2_min - 1.0
            t2_err_mix.append(abs(e_mix))
            th = model["joints"][js]
            rob["joints"][js] = {
                "tests": tests, "mix": {"t1_min": m["t1_min"], "t2_min": m["t2_min"],
                                        "cold_hot_ratio": m["cold_hot_ratio"],
                                        "truth_t1_min": mix_truth.t1_min, "truth_t2_min": mix_truth.t2_min,
                                        "truth_cold_hot_ratio": mix_truth.cold_hot_ratio,
                                        "t2_rel_error": e_mix},
                "v_ref": m["v_ref"], "gravity_removed": m["gravity_removed"],
                "thermal_model": {k: th[k] for k in ("c1", "c2", "tau1_min", "tau2_min", "alpha",
                                                     "alpha_c1", "alpha_c2", "start_delta", "start_offset_K", "tau0", "rms")},
                "threshold_thermal": th["threshold_thermal"], "threshold_no_thermal": th["threshold_no_thermal"],
            }
        # held-out day and monitoring
        for n in sorted(n for n in names if _day_of(n)[0] == r):
            _, d, faulty = _day_of(n)
            mon_t = monitor_recording(model, light[n], n, thermal=True, analysed=analysed[n])
            mon_n = monitor_recording(model, light[n], n, thermal=False, analysed=analysed[n])
            extras["monitors"][n] = {"thermal": mon_t, "no_thermal": mon_n}
            if d == HELDOUT_DAY and not faulty:
                for js, pj in mon_t["joints"].items():
                    y, p = np.array(pj["friction_ref"]), np.array(pj["predicted"])
                    rms = float(100 * np.sqrt(np.mean((y - p) ** 2)) / np.mean(y))
                    held_rms.append(rms)
                    held_max.append(float(100 * np.max(np.abs(y / p - 1))))
                    rob["joints"][js]["heldout_rms_percent"] = rms
                    rob["joints"][js]["heldout_max_percent"] = held_max[-1]
                    pn = np.array(mon_n["joints"][js]["predicted"])
                    rob["joints"][js]["heldout_rms_percent_no_thermal"] = float(
                        100 * np.sqrt(np.mean((y - pn) ** 2)) / np.mean(y))
            if not faulty:
                for kind, mon in (("thermal", mon_t), ("no_thermal", mon_n)):
                    healthy_alarms[kind] += len(mon["alarms"])
                    if mon["alarms"]:
                        healthy_alarm_days[kind].append(n)
        results["robots"][str(r)] = rob
    # the faulty day
    fault_names = [n for n in names if _day_of(n)[2]]
    anomaly: dict[str, Any] = {"healthy_alarms": healthy_alarms, "healthy_alarm_days": healthy_alarm_days}
    if fault_names:
        fn = fault_names[0]
        f = rec_truth(datasets[fn])["fault"]
        onset, fj = float(f["onset_min"]), str(f["joint"])
        anomaly.update({"day": fn, "joint": int(fj), "factor": float(f["factor"]), "onset_min": onset})
        r = _day_of(fn)[0]
        for kind in ("thermal", "no_thermal"):
            mon = extras["monitors"][fn][kind]
            after = [a for a in mon["alarms"] if a["joint"] == int(fj) and a["time_min"] >= onset]
            before = [a for a in mon["alarms"] if a["time_min"] < onset or a["joint"] != int(fj)]
            first = after[0]["time_min"] if after else None
            # separability: fault-joint ratios after the onset vs every healthy day of the robot
            rat = np.array(mon["joints"][fj]["ratio"])
            tm = np.array(mon["joints"][fj]["time_min"])
            healthy_max = max(float(np.max(extras["monitors"][n][kind]["joints"][fj]["ratio"]))
                              for n in names if _day_of(n)[0] == r and not _day_of(n)[2])
            anomaly[kind] = {
                "first_alarm_after_onset_min": first,
                "delay_min": None if first is None else first - onset,
                "false_alarms_on_faulty_day": len(before),
                "threshold": mon["joints"][fj]["threshold"],
                "fault_ratio_min_after_onset": float(rat[tm >= onset].min()),
                "fault_ratio_median_after_onset": float(np.median(rat[tm >= onset])),
                "healthy_ratio_max": healthy_max,
                "separable": bool(rat[tm >= onset].min() > healthy_max),
            }
    results["anomaly"] = anomaly
    # headline numbers
    ratios = [t["cold_hot_ratio"] for rb in results["robots"].values() for jj in rb["joints"].values() for t in jj["tests"]]
    t1s = [t["t1_min"] for rb in results["robots"].values() for jj in rb["joints"].values() for t in jj["tests"]]
    t2s = [t["t2_min"] for rb in results["robots"].values() for jj in rb["joints"].values() for t in jj["tests"]]
    steady = [t["steady_cycles"] for rb in results["robots"].values() for jj in rb["joints"].values() for t in jj["tests"]]
    # the gearboxes' temperatures (the twin's inner node, its truth): at the start of each healthy day (cold)
    # and at its end (hot), per joint the median over the days; the paper's thermal model gives about 15 C
    # cold and about 50 or 60 C hot depending on the joint (Sec. 3)
    healthy_days = [n for n in names if not _day_of(n)[2]]
    T_in = [np.asarray(rec_truth(datasets[n])["temperature_inner_degC"], dtype=float) for n in healthy_days]
    cold_j = np.median([T[0] for T in T_in], axis=0)
    hot_j = np.median([T[-1] for T in T_in], axis=0)
    results["gearbox_temperature_degC"] = {"cold_per_joint": cold_j.tolist(), "hot_per_joint": hot_j.tolist(),
                                           "days": healthy_days, "node": "inner (gear mesh) node of the twin's network"}
    results["summary"] = {
        "gearbox_cold_degC_median": float(np.median(cold_j)),
        "gearbox_hot_degC_min": float(np.min(hot_j)), "gearbox_hot_degC_max": float(np.max(hot_j)),
        "cold_hot_ratio_min": float(np.min(ratios)), "cold_hot_ratio_max": float(np.max(ratios)),
        "t1_min_median": float(np.median(t1s)), "t1_min_range": [float(np.min(t1s)), float(np.max(t1s))],
        "t2_min_median": float(np.median(t2s)), "t2_min_range": [float(np.min(t2s)), float(np.max(t2s))],
        "t2_rel_error_max": float(np.max(t2_err)), "t2_rel_error_median": float(np.median(t2_err)),
        "t2_mix_rel_error_max": float(np.max(t2_err_mix)),
        "heldout_rms_percent_max": float(np.max(held_rms)) if held_rms else None,
        "heldout_rms_percent_median": float(np.median(held_rms)) if held_rms else None,
        "heldout_max_percent": float(np.max(held_max)) if held_max else None,
        "steady_cycles_median": float(np.median(steady)), "steady_cycles_range": [float(np.min(steady)), float(np.max(steady))],
        "steady_tol": STEADY_TOL,
        "fault_delay_thermal_min": anomaly.get("thermal", {}).get("delay_min"),
        "fault_delay_no_thermal_min": anomaly.get("no_thermal", {}).get("delay_min"),
        "fault_separable_no_thermal": anomaly.get("no_thermal", {}).get("separable"),
        "fault_detected_thermal": bool(
            anomaly.get("thermal", {}).get("delay_min") is not None
            and anomaly["thermal"]["delay_min"] <= DETECTION_WINDOW_MIN
            and healthy_alarms["thermal"] == 0 and anomaly["thermal"]["false_alarms_on_faulty_day"] == 0),
        "detection_window_min": DETECTION_WINDOW_MIN,
        "healthy_alarms_thermal": healthy_alarms["thermal"],
        "heldout_day_alarm_days_thermal": [n for n in healthy_alarm_days["thermal"] if _day_of(n)[1] == HELDOUT_DAY],
        "heldout_day_alarm_days_no_thermal": [n for n in healthy_alarm_days["no_thermal"] if _day_of(n)[1] == HELDOUT_DAY],
        "healthy_alarms_no_thermal": healthy_alarms["no_thermal"],
    }
    return results, extras


def provenance_block(datasets: Mapping[str, xr.Dataset], files: Sequence[str | Path] = (), *,
                     notebook: str = "", parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Sidecar / results provenance: the recordings (source, seed, sha256 of files), the commit."""
    from paperlib import __version__, provenance
    from paperlib.recordings import sha256_file

    by_stem = {Path(f).stem: Path(f) for f in files}
    recs = []
    for n in sorted(datasets):
        ds = datasets[n]
        d = {"name": n, "source": str(ds.attrs.get("source")), "seed": ds.attrs.get("seed"),
             "robot": str(ds.attrs.get("robot"))}
        if n in by_stem:
            d["file"] = str(by_stem[n])
            d["sha256"] = sha256_file(by_stem[n])
        recs.append(d)
    sources = sorted({r["source"] for r in recs})
    return {"notebook": notebook, "git_commit": provenance.git_commit(), "paperlib_version": __version__,
            "source": "+".join(sources) if sources else "model", "recordings": recs,
            "parameters": dict(parameters or {})}


def _main(argv: Sequence[str] | None = None) -> int:
    """``python -m paperlib.experiments.industrial.thermal record --day r1_d1 --output F.nc``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.industrial.thermal",
                                 description="Make one day of the TX40 thermal campaign (source = twin).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="simulate one campaign day and write its recording")
    r.add_argument("--day", required=True, help="day name: r<robot>_d<day>[_fault], e.g. r1_d1, r2_d5_fault")
    r.add_argument("--output", required=True, help="recording file to write (.nc)")
    r.add_argument("--params", default=None, help="campaign TOML (default data/twin/tx40_thermal_campaign.toml)")
    r.add_argument("--cycles", type=int, default=None, help="cycles per day (default: the TOML's)")
    r.add_argument("--storage", default="full", metavar="MODE",
                   help="what to keep: analysis (what the notebooks read, angles as integer counts) or full "
                        "(everything, float64; default)")
    r.add_argument("--float32", nargs="*", default=[], metavar="VAR",
                   help="with --storage analysis: variables to store in single precision")
    r.add_argument("--rig-config", default=None, metavar="RIG",
                   help="record the day through this rig file's rig (config/rigs/tx40_thermal.toml) instead of "
                        "simulating it; needs --emulate-rig (emulated devices around the twin, as root)")
    r.add_argument("--emulate-rig", action="store_true",
                   help="with --rig-config: the rig's devices emulated around the campaign twin, in lock step "
                        "(recording labelled source = twin, rig = emulated-hardware)")
    r.add_argument("--duration", type=float, default=None, metavar="S",
                   help="with --rig-config: only the first S seconds of the day")
    r.add_argument("--paced", action="store_true",
                   help="with --rig-config: keep real time between cycles (a day takes its 2 hours; deadline "
                        "statistics measured). Default: the lock-step cycles run back to back")
    args = ap.parse_args(argv)
    params = C.load_campaign_params(args.params)
    days = {d.name: d for d in C.campaign_days(params)}
    if args.day not in days:
        ap.error(f"unknown day {args.day!r}; known: {', '.join(sorted(days))}")
    try:
        store = storage(args.storage, args.float32, params)
    except ValueError as exc:
        ap.error(str(exc))
    if args.rig_config is not None:
        if not args.emulate_rig:
            ap.error("--rig-config: only the emulated rig (--emulate-rig) is supported: the campaign arm's drives "
                     "are not on an open EtherCAT segment")
        from paperlib.experiments.industrial.rig_days import record_day_on_rig

        out = record_day_on_rig(args.rig_config, args.day, args.output, cycles=args.cycles, duration_s=args.duration,
                                store=store, free_run=not args.paced)
        print(f"recording {args.day}: through the emulated rig {args.rig_config}, {out['cycles']} cycles at "
              f"{out['cycle_hz']:g} Hz, loop {out['loop_wall_s']:.1f} s of wall time"
              f"{' (free-running lock step)' if not args.paced else ''} -> {args.output}")
        return 0
    ds = simulate_campaign(params, cycles=args.cycles, days=[days[args.day]], store=store)[args.day]
    write_recording(ds, args.output)
    size = Path(args.output).stat().st_size / 1e6
    print(f"recording {args.day}: twin, {float(ds['time'].values[-1]) / 60:.0f} min, seed {ds.attrs.get('seed')} "
          f"-> {args.output} ({size:.1f} MB, {'reduced: ' + ds.attrs['reduced'] if 'reduced' in ds.attrs else 'whole'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
