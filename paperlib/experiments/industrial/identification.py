"""TX40 identification from its public recording: the logic of notebook 01_tx40_identification.

Steps: import the recording (``paperlib.data``), identify OLS / WLS / SDP
(:mod:`paperlib.estimation.serial_identification`), validate on held-out motion, sweep the
filter cut-off and the velocity gate, and set the friction beside published values for the
TX40 (:data:`LITERATURE`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from paperlib.estimation.serial_identification import IdentificationConfig, identify_recording, predict
from paperlib.experiments.industrial.plotting import SERIES_COLORS, legend_below, panel_letters, pyplot
from paperlib.robots.serial import SerialArm

if TYPE_CHECKING:
    from paperlib.experiments.kit.sources import RecordingSource

__all__ = ["LITERATURE", "ensure_recording", "identify_all", "stability", "literature_rows", "fig_validation",
           "fig_friction", "fig_stability", "prepare", "recording_facts", "rest_gravity_check", "fit_summary",
           "friction_table", "validation_table", "stability_table", "literature_table", "literature_spread",
           "sdp_summary", "results_record", "figure_provenance"]

#: Published TX40 friction (joint side, SI). Numbers copied from the sources named.
LITERATURE: dict[str, dict[str, Any]] = {
    "birdy": {
        "label": "BIRDy TX40 description",
        "source": "BIRDy benchmark (github.com/TUM-ICS/BIRDy), TX40 description function TX40.m by Leboutet, Roux, "
                  "Janot and Cheng: the values it simulates the TX40 with (a friction model of the real robot "
                  "identified by Gautier and Janot's group, not of this recording)",
        "fv": [7.9379, 5.6948, 1.9804, 1.1141, 1.60, 0.6894],
        "fs": [6.9822, 7.8301, 6.1939, 2.4063, 3.4092, 1.8313],
        "coupling": {"fvm6": 0.8, "fsm6": 1.6},
    },
    "figaroh_prior": {
        "label": "FIGAROH TX40 configuration",
        "source": "FIGAROH (github.com/thanhndv212/figaroh-plus) examples/staubli_TX40/config/T40X_config.yaml, "
                  "robot_params (commit 862656e2): the reference values its TX40 example starts from",
        "fv": [8.05, 5.53, 1.97, 1.11, 1.86, 0.65],
        "fs": [7.14, 8.26, 6.34, 2.48, 3.03, 0.282],
        "coupling": {"Iam6": 9.64e-3, "fvm6": 0.616, "fsm6": 1.95},
    },
    "figaroh_result": {
        "label": "FIGAROH result on this recording",
        "source": "FIGAROH examples/staubli_TX40/results/TX40_bp_5.csv (first value column): FIGAROH's own "
                  "identification of the same recording (a cross-check of the method, not an independent reference)",
        "fv": [8.107054, 5.60096, 1.978, 1.10695, 1.857995, 0.643794],
        "fs": [6.966832, 8.123402, 6.307204, 2.484089, 3.025972, 0.243976],
        "coupling": {"Iam6": 0.007679, "fvm6": 0.597492, "fsm6": 2.033376},
    },
}


def ensure_recording(path: str | Path, mirror: str | None = None, source: RecordingSource | None = None) -> Path:
    """The imported TX40 recording at ``path``, obtained if absent.

    Parameters
    ----------
    path : path-like
        The recording (``<results>/recordings/tx40.nc``); when present it is used as it is (the pipeline's
        rule made it: imported, or copied from a release).
    mirror : str, optional
        Folder holding the public files (None: ``PAPERLIB_DATA_MIRROR``, ``../shared/external`` or download).
    source : RecordingSource, optional
        How an absent recording is obtained
        (:func:`paperlib.experiments.industrial.sources.recording_source`; ``path`` must then be its
        ``source.path("tx40")``): ``twin`` imports the public files, ``archive`` copies the release's
        file. Without one the public files are imported to ``path``.

    Raises
    ------
    ValueError
        ``path`` is absent and not where ``source`` puts the recording.
    """
    from paperlib.data.tx40 import import_tx40
    from paperlib.recordings import write_recording

    path = Path(path)
    if path.exists():
        return path
    if source is not None:
        where = source.path(path.stem)
        if where.resolve() != path.resolve():
            raise ValueError(f"recording {path}: absent, and a {source.source} run obtains it as {where} "
                             "(pass that path, or the results folder holding it)")
        source.obtain(path.stem, lambda: import_tx40(mirror=mirror))
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    write_recording(import_tx40(mirror=mirror), path)
    return path


def identify_all(path: str | Path, cfg: IdentificationConfig, methods: Sequence[str] = ("ols", "wls", "sdp"),
                 robot: str = "tx40") -> tuple[dict[str, dict[str, Any]], Any, Any]:
    """Results per method, the prepared data (of the last method) and the base parameters."""
    arm = SerialArm.named(robot)
    bp = arm.base_parameters(n_states=cfg.base_states, seed=0, tol=cfg.base_tol)
    out: dict[str, dict[str, Any]] = {}
    data = None
    for m in methods:
        out[m], data = identify_recording(path, robot, replace(cfg, method=m), bp)
    return out, data, bp


def stability(path: str | Path, cfg: IdentificationConfig, cutoffs_hz: Sequence[float], gates: Sequence[float],
              robot: str = "tx40") -> dict[str, Any]:
    """Friction estimates over a grid of cut-offs (at the default gate) and gates (at the default cut-off).

    Returns
    -------
    dict
        ``cutoff`` and ``gate`` sweeps: ``values`` (the swept setting), ``fv`` and ``fs``
        (settings x joints) and ``spread_percent`` per joint: ``100 (max - min) / |median|``.
    """
    from tqdm.auto import tqdm

    arm = SerialArm.named(robot)
    bp = arm.base_parameters(n_states=cfg.base_states, seed=0, tol=cfg.base_tol)
    settings = [("cutoff", c, replace(cfg, cutoff_hz=float(c))) for c in cutoffs_hz]
    settings += [("gate", g, replace(cfg, v_gate=float(g))) for g in gates]
    rows: dict[str, dict[str, list]] = {"cutoff": {"values": [], "fv": [], "fs": []}, "gate": {"values": [], "fv": [], "fs": []}}
    for kind, v, c in tqdm(settings, desc="stability sweep", leave=False):
        res, _ = identify_recording(path, robot, c, bp)
        rows[kind]["values"].append(float(v))
        rows[kind]["fv"].append(res["fv"])
        rows[kind]["fs"].append(res["fs"])
    for kind in rows:
        for key in ("fv", "fs"):
            a = np.asarray(rows[kind][key], dtype=float)
            rows[kind][f"{key}_spread_percent"] = (100 * np.ptp(a, axis=0) / np.abs(np.median(a, axis=0))).tolist()
    return rows


def literature_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Our friction beside each reference: one row per joint and quantity, with the difference in percent.

    The references count motor 6's direct viscous term in fv5 and fv6 (Gautier et al.'s coupled-wrist
    model, as FIGAROH's TX40 regressor does: its fv5 and fv6 equal our fv5 + fvm6 and fv6 + fvm6 on
    this recording to 1-2 %), so ours is compared as ``fv_total``.
    """
    rows = []
    for key in ("fv", "fs"):
        for j in range(6):
            ours = res["fv_total"][j] if key == "fv" else res[key][j]
            row = {"quantity": key, "joint": j + 1, "ours": ours}
            for ref, lit in LITERATURE.items():
                row[ref] = lit[key][j]
                row[f"{ref}_diff_percent"] = 100 * (ours - lit[key][j]) / lit[key][j]
            rows.append(row)
    for key in ("Iam6", "fvm6", "fsm6"):
        row = {"quantity": key, "joint": "5-6", "ours": res["coupling"].get(key)}
        for ref, lit in LITERATURE.items():
            v = lit["coupling"].get(key)
            row[ref] = v
            row[f"{ref}_diff_percent"] = None if v is None or row["ours"] is None else 100 * (row["ours"] - v) / v
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------ what notebook 01 reports
def prepare(recording: str | Path, results_dir: str | Path, figures_dir: str | Path, mirror: str | None = None,
            source: str = "twin", archive: str | None = None) -> tuple[Path, Path, Path, Any]:
    """The notebook's folders and the recording, obtained if absent (:func:`ensure_recording`).

    Parameters
    ----------
    recording, results_dir, figures_dir : path-like
        Relative to the repository root (or absolute), as the notebook's parameters give them.
    mirror : str, optional
        Folder of the public files (see :func:`ensure_recording`).
    source : {"twin", "archive"}
        How an absent recording is obtained (:func:`paperlib.experiments.industrial.sources.recording_source`).
    archive : str, optional
        The release folder, for ``source = "archive"``.

    Returns
    -------
    (recording, results_dir, figures_dir, dataset)
        Absolute paths (the results folder created) and the recording read (:class:`xarray.Dataset`).
    """
    from paperlib.experiments.industrial.sources import recording_source
    from paperlib.provenance import repo_path
    from paperlib.recordings import read_recording

    rec, res_dir, fig_dir = repo_path(recording), repo_path(results_dir), repo_path(figures_dir)
    res_dir.mkdir(parents=True, exist_ok=True)
    rec = ensure_recording(rec, mirror, recording_source(res_dir, source, archive))
    return rec, res_dir, fig_dir, read_recording(rec)


def recording_facts(ds: Any) -> dict[str, Any]:
    """What the recording is: source, robot, origin, licence and sample rate [Hz], as plain Python values."""
    out = {k: ds.attrs[k] for k in ("source", "robot", "origin", "licence")}
    out["sample_rate_hz"] = float(ds.attrs["sample_rate_hz"])
    return out


def rest_gravity_check(ds: Any, arm: SerialArm, window_s: float = 0.05, joint: int = 2) -> dict[str, float]:
    """The torque-unit check: measured torque at rest against the nominal model's gravity torque.

    Parameters
    ----------
    ds : xarray.Dataset
        The recording (``q`` [rad], ``tau_m`` [N m, joint side], attribute ``sample_rate_hz``).
    arm : SerialArm
        The nominal model (URDF inertials).
    window_s : float
        Length of the still start averaged [s].
    joint : int
        The joint compared (1-based; joint 2 holds the arm against gravity).

    Returns
    -------
    dict
        ``measured_Nm``, ``model_Nm`` and their ``ratio`` (near 1 when the torques are in N m).
    """
    rest = slice(0, int(window_s * ds.attrs["sample_rate_hz"]))
    q_rest = ds["q"].values[rest]
    tau_rest = ds["tau_m"].values[rest].mean(axis=0)
    g_model = arm.inverse_dynamics(q_rest, 0 * q_rest, 0 * q_rest).mean(axis=0)
    return {"measured_Nm": float(tau_rest[joint - 1]), "model_Nm": float(g_model[joint - 1]),
            "ratio": float(tau_rest[joint - 1] / g_model[joint - 1])}


def fit_summary(results: dict[str, dict[str, Any]], bp: Any) -> dict[str, Any]:
    """Size and conditioning of the WLS fit: base parameters, samples, held-out span, condition number."""
    wls = results["wls"]
    return {"base parameters": bp.n_base, "samples in the fit": wls["samples_used"],
            "samples held out": wls["samples_validation"],
            "held out from [s]": round(wls["holdout_from_s"], 2), "motion ends at [s]": round(wls["motion_span_s"][1], 2),
            "condition number (scaled base regressor)": round(wls["condition_number_scaled"], 1),
            "first regrouping relations": [str(r) for r in bp.relations()[:3]]}


def friction_table(results: dict[str, dict[str, Any]]):
    """Viscous and Coulomb friction per joint and method, with the WLS standard deviation and its relative size.

    Returns
    -------
    pandas.DataFrame
        Index joint 1-6; columns ``fv <method>`` [N m s/rad], ``fv std``, ``fv std %``, ``fs <method>`` [N m],
        ``fs std``, ``fs std %`` (joint side; WLS standard deviations).
    """
    import pandas as pd

    wls = results["wls"]
    cols: dict[str, list[float]] = {}
    for key in ("fv", "fs"):
        for m in results:
            cols[f"{key} {m.upper()}"] = list(results[m][key])
        cols[f"{key} std"] = [wls["std"][f"{key}{j}"] for j in range(1, 7)]
        cols[f"{key} std %"] = [wls["rel_std_percent"][f"{key}{j}"] for j in range(1, 7)]
    return pd.DataFrame(cols, index=pd.Index(range(1, 7), name="joint")).round(3)


def validation_table(res: dict[str, Any]):
    """RMS torque error per joint on the fit part and on the held-out motion [N m], and relative to the measured RMS."""
    import pandas as pd

    return pd.DataFrame({"RMS fit [N m]": res["rms_fit"], "RMS held out [N m]": res["rms_validation"],
                         "held out / RMS measured [%]": 100 * np.asarray(res["rms_validation_relative"])},
                        index=pd.Index(range(1, 7), name="joint")).round(2)


def stability_table(stab: dict[str, Any]):
    """Spread of the friction estimates over each sweep, per joint: ``100 (max - min) / |median|`` [%]."""
    import pandas as pd

    return pd.DataFrame({f"{key} over {kind} [%]": stab[kind][f"{key}_spread_percent"]
                         for kind in ("cutoff", "gate") for key in ("fv", "fs")},
                        index=pd.Index(range(1, 7), name="joint")).round(1)


def literature_table(rows: Sequence[dict[str, Any]]):
    """:func:`literature_rows` as a table: ours beside each reference and the difference in percent."""
    import pandas as pd

    df = pd.DataFrame(list(rows)).set_index(["quantity", "joint"])
    return df.astype(float).round(3)


def literature_spread(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Median and largest absolute difference [%] of our fv, fs (joints 1-5) from BIRDy's and FIGAROH's result."""
    out = {}
    for ref in ("birdy", "figaroh_result"):
        d = np.array([abs(r[f"{ref}_diff_percent"]) for r in rows if r["quantity"] in ("fv", "fs") and r["joint"] != 6])
        out[f"{ref} median [%]"] = round(float(np.median(d)), 1)
        out[f"{ref} max [%]"] = round(float(d.max()), 1)
    return out


def sdp_summary(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The SDP estimate's solver status, smallest pseudo-inertia eigenvalue [kg m^2] and held-out RMS against WLS."""
    sdp, wls = results["sdp"], results["wls"]
    min_eig = np.array(sdp["sdp"]["min_pseudo_inertia_eigenvalue"])
    ratio = np.array(sdp["rms_validation"]) / np.array(wls["rms_validation"])
    return {"solver status": sdp["sdp"]["status"], "smallest pseudo-inertia eigenvalue [kg m^2]": float(min_eig.min()),
            "held-out RMS, SDP [N m]": [round(v, 2) for v in sdp["rms_validation"]],
            "largest |SDP / WLS - 1| of the held-out RMS [%]": round(float(100 * np.max(np.abs(ratio - 1))), 1)}


def results_record(ds: Any, rec: Path, cfg: IdentificationConfig, unit_check: dict[str, float],
                   results: dict[str, dict[str, Any]], stab: dict[str, Any], lit: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The notebook's results JSON (read by the room's comparison table), with its provenance stamp."""
    from dataclasses import asdict

    from paperlib.provenance import stamp

    return {"source": ds.attrs["source"], "recording": rec.name, "recording_origin": ds.attrs["origin"],
            "licence": ds.attrs["licence"], "unit_check_joint2_ratio": unit_check["ratio"], "config": asdict(cfg),
            "methods": results, "stability": stab, "literature": list(lit),
            "literature_sources": {k: v["source"] for k, v in LITERATURE.items()}, **stamp()}


def figure_provenance(ds: Any, rec: Path) -> dict[str, Any]:
    """Provenance of the notebook's figures (recording, its source and origin, the notebook, the stamp)."""
    from paperlib.provenance import stamp

    return {"recording": rec.name, "source": ds.attrs["source"], "origin": ds.attrs["origin"],
            "recordings": [{"file": rec.name, "source": ds.attrs["source"], "origin": ds.attrs["origin"]}],
            "notebook": "notebooks/industrial/01_tx40_identification.ipynb", **stamp()}


# ------------------------------------------------------------------------------ figures (matplotlib)
def fig_validation(arm: SerialArm, data: Any, bp: Any, res: dict[str, Any], source: str = "hardware"):
    """Measured vs predicted joint torque on the held-out motion, one panel per joint.

    Parameters
    ----------
    arm : SerialArm
        The robot model the prediction uses.
    data : PreparedData
        The filtered, decimated recording (:func:`identify_all`'s second output).
    bp : BaseParameters
        The base parameters of ``arm``.
    res : dict
        One method's result (``res["method"]``, ``res["rms_validation"]`` [N m] per joint).
    source : str
        The recording's source, named in the title.

    Returns
    -------
    matplotlib.figure.Figure
        Six panels (joints 1-6, column by column), torque [N m] over time [s].
    """
    from paperlib.figures import style

    plt = pyplot()
    pred = predict(arm, data, bp, res)
    val = data.val
    fig, axes = plt.subplots(3, 2, figsize=(10, 8), sharex=True)
    order = axes.T.ravel()
    for j, ax in enumerate(order):
        ax.plot(data.t[val], data.tau[val, j], label="measured (filtered)", **style.role("measured", linewidth=1.0))
        ax.plot(data.t[val], pred[val, j], label=f"predicted ({res['method'].upper()})", **style.role("model", linewidth=1.0))
        ax.set_ylim(*style.limits(data.tau[val, j], pred[val, j], margin=0.05))
        ax.set_ylabel(f"joint {j + 1} torque [N m]")
        ax.set_title(f"joint {j + 1}: RMS error {res['rms_validation'][j]:.2f} N m", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle(f"Stäubli TX40, held-out motion {data.split_s:.2f}-{data.motion_span_s[1]:.2f} s "
                 f"(source: {source}, FIGAROH recording): measured vs predicted joint torque", fontsize=10)
    legend_below(fig, order[0], ncol=2, bottom=0.04)
    panel_letters(order)
    return fig


#: Bar colours of the friction figure: this work's estimates (WLS in the model role) and the references.
_BAR_OURS = {"ols": "#56b4e9", "wls": "#0072b2", "sdp": "#e69f00"}
_BAR_REFS = {"birdy": ("#5a5a5a", "//"), "figaroh_prior": ("#8c8c8c", ".."), "figaroh_result": ("#bdbdbd", "xx")}


def fig_friction(results: dict[str, dict[str, Any]], source: str = "hardware"):
    """Viscous and Coulomb friction per joint: ours (OLS/WLS/SDP, WLS 3-sigma bars) beside the references.

    Parameters
    ----------
    results : dict
        Per method (``ols``, ``wls``, ``sdp``): ``fv_total`` [N m s/rad], ``fs`` [N m] and ``std``.
    source : str
        The recording's source, named in the title.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (viscous, Coulomb), grouped bars per joint; the legend below.
    """
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    joints = np.arange(1, 7)
    series = [(m, results[m]) for m in results]
    width = 0.8 / (len(series) + len(LITERATURE))
    for ax, key, unit in ((axes[0], "fv", "N m s/rad"), (axes[1], "fs", "N m")):
        k = 0
        for m, res in series:
            std = [res["std"].get(f"{key}{j}", np.nan) for j in joints]
            vals = res["fv_total"] if key == "fv" else res[key]
            ax.bar(joints - 0.4 + (k + 0.5) * width, vals, width, yerr=3 * np.asarray(std), capsize=2,
                   color=_BAR_OURS.get(m, "#000000"), label=f"this work, {m.upper()} (±3 std)")
            k += 1
        for ref, lit in LITERATURE.items():
            color, hatch = _BAR_REFS.get(ref, ("#8c8c8c", ""))
            ax.bar(joints - 0.4 + (k + 0.5) * width, lit[key], width, color="white", edgecolor=color, hatch=hatch,
                   linewidth=0.8, label=lit["label"])
            k += 1
        ax.set_xticks(joints)
        ax.set_xlabel("joint")
        ax.set_ylabel(f"{'viscous' if key == 'fv' else 'Coulomb'} friction, joint side [{unit}]")
        ax.set_title("viscous f_v (joints 5, 6: with motor 6's direct term)" if key == "fv" else "Coulomb f_s",
                     fontsize=9)
        ax.grid(axis="x", visible=False)
    fig.suptitle(f"Stäubli TX40 joint friction (source: {source} recording) beside published values", fontsize=10)
    legend_below(fig, axes[0], ncol=3, bottom=0.1)
    panel_letters(axes)
    return fig


def fig_stability(stab: dict[str, Any]):
    """Friction estimates over the filter cut-off and the velocity gate.

    Parameters
    ----------
    stab : dict
        :func:`stability`'s output: per sweep the swept ``values`` and ``fv``, ``fs`` (settings x joints).

    Returns
    -------
    matplotlib.figure.Figure
        Four panels (viscous / Coulomb over cut-off [Hz] / gate [rad/s]), one line per joint; legend below.
    """
    from paperlib.figures import style

    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5))
    for col, kind, xlabel in ((0, "cutoff", "zero-phase filter cut-off [Hz]"), (1, "gate", "velocity gate [rad/s]")):
        x = np.asarray(stab[kind]["values"])
        for row, key, unit in ((0, "fv", "N m s/rad"), (1, "fs", "N m")):
            a = np.asarray(stab[kind][key], dtype=float)
            ax = axes[row, col]
            for j in range(a.shape[1]):
                ax.plot(x, a[:, j], marker="o", ms=4, color=SERIES_COLORS[j % len(SERIES_COLORS)], label=f"joint {j + 1}")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{'viscous' if key == 'fv' else 'Coulomb'} friction [{unit}]")
            ax.set_ylim(*style.limits(a, include=(0.0,)))
            if kind == "gate":
                ax.set_xscale("log")
    fig.suptitle("Stäubli TX40 (source: hardware): stability of the WLS friction estimates", fontsize=10)
    legend_below(fig, axes[0, 0], ncol=6, bottom=0.05)
    panel_letters(axes)
    return fig

