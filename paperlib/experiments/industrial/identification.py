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
from paperlib.robots.serial import SerialArm

if TYPE_CHECKING:
    from paperlib.experiments.kit.sources import RecordingSource

__all__ = ["LITERATURE", "ensure_recording", "identify_all", "stability", "literature_rows", "fig_validation",
           "fig_friction", "fig_stability"]

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


# ------------------------------------------------------------------------------ figures (matplotlib)
def fig_validation(arm: SerialArm, data: Any, bp: Any, res: dict[str, Any], source: str = "hardware"):
    """Measured vs predicted joint torque on the held-out motion, one panel per joint."""
    import matplotlib.pyplot as plt

    pred = predict(arm, data, bp, res)
    val = data.val
    fig, axes = plt.subplots(3, 2, figsize=(10, 8), sharex=True)
    for j, ax in enumerate(axes.T.ravel()):
        ax.plot(data.t[val], data.tau[val, j], color="0.2", lw=1.0, label="measured (filtered)")
        ax.plot(data.t[val], pred[val, j], color="#d62728", lw=1.0, ls="--", label=f"predicted ({res['method'].upper()})")
        ax.set_ylabel(f"joint {j + 1} torque [N m]")
        ax.set_title(f"joint {j + 1}: RMS error {res['rms_validation'][j]:.2f} N m", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    axes[0, 0].legend(fontsize=8, loc="best")
    fig.suptitle(f"Staubli TX40, held-out motion {data.split_s:.2f}-{data.motion_span_s[1]:.2f} s "
                 f"(source: {source}, FIGAROH recording): measured vs predicted joint torque", fontsize=10)
    fig.tight_layout()
    return fig


def fig_friction(results: dict[str, dict[str, Any]], source: str = "hardware"):
    """Viscous and Coulomb friction per joint: ours (OLS/WLS/SDP, WLS 3-sigma bars) beside the references."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    joints = np.arange(1, 7)
    series = [(m.upper(), results[m]) for m in results]
    width = 0.8 / (len(series) + len(LITERATURE))
    colors = ["#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#7f7f7f"]
    for ax, key, unit in ((axes[0], "fv", "N m s/rad"), (axes[1], "fs", "N m")):
        k = 0
        for label, res in series:
            std = [res["std"].get(f"{key}{j}", np.nan) for j in joints]
            vals = res["fv_total"] if key == "fv" else res[key]
            ax.bar(joints - 0.4 + (k + 0.5) * width, vals, width, yerr=3 * np.asarray(std), capsize=2,
                   color=colors[k % len(colors)], label=f"this work, {label} (+-3 std)")
            k += 1
        for ref, lit in LITERATURE.items():
            ax.bar(joints - 0.4 + (k + 0.5) * width, lit[key], width, color=colors[k % len(colors)], alpha=0.6,
                   label=lit["label"])
            k += 1
        ax.set_xticks(joints)
        ax.set_xlabel("joint")
        ax.set_ylabel(f"{'viscous (motor 6 direct part in joints 5-6)' if key == 'fv' else 'Coulomb'} friction, "
                      f"joint side [{unit}]", fontsize=8)
    h, lab = axes[0].get_legend_handles_labels()
    fig.suptitle("Staubli TX40 joint friction (source: hardware recording) vs published values", fontsize=10)
    fig.tight_layout()
    fig.legend(h, lab, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def fig_stability(stab: dict[str, Any]):
    """Friction estimates over the filter cut-off and the velocity gate."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5))
    for col, kind, xlabel in ((0, "cutoff", "zero-phase filter cut-off [Hz]"), (1, "gate", "velocity gate [rad/s]")):
        x = np.asarray(stab[kind]["values"])
        for row, key, unit in ((0, "fv", "N m s/rad"), (1, "fs", "N m")):
            a = np.asarray(stab[kind][key], dtype=float)
            ax = axes[row, col]
            for j in range(a.shape[1]):
                ax.plot(x, a[:, j], marker="o", label=f"joint {j + 1}")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{'viscous' if key == 'fv' else 'Coulomb'} [{unit}]")
            if kind == "gate":
                ax.set_xscale("log")
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.suptitle("Staubli TX40 (source: hardware): stability of the WLS friction estimates", fontsize=10)
    fig.tight_layout()
    fig.legend(h, lab, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig
