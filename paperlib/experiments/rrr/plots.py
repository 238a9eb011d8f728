"""Figures of paper 002 on the twin (matplotlib; saved through :func:`paperlib.figures.io.save`).

Every figure says where its data came from (``twin``) in its title, draws the paper's numbers where
the paper prints them, and the twin's truth where it exists.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from paperlib.experiments.rrr.tracking import LABELS, PAPER_LOCATION_MM, PAPER_TABLE5, PAPER_TEXT

COLORS = {"none": "tab:red", "kostic": "tab:blue", "coulomb-viscous": "tab:green", "true-friction": "tab:purple"}


def _fig(*args: Any, **kw: Any):
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kw)


def sampling_layout(robot, points: np.ndarray, ref: Mapping[str, np.ndarray]):
    """Fig. 4 (and Fig. 7): the drive joints, the work region, the 21 positions and the Table 3 path."""
    fig, ax = _fig(figsize=(6.2, 5.6))
    D = robot.base_joints
    ax.plot(*np.vstack([D, D[:1]]).T * 1e3, "k--", lw=0.8, label="drive joints D1-D3 (Table 1)")
    ax.plot(*D.T * 1e3, "ks")
    a = np.linspace(0, 2 * np.pi, 200)
    c, R = robot.work_centre, robot.work_radius
    ax.plot((c[0] + R * np.cos(a)) * 1e3, (c[1] + R * np.sin(a)) * 1e3, color="0.6", lw=1, label="work region W (assumed)")
    ax.plot(points[:10, 0] * 1e3, points[:10, 1] * 1e3, "o", color="tab:green", label="boundary positions 0-9")
    ax.plot(points[10:, 0] * 1e3, points[10:, 1] * 1e3, "o", color="tab:red", label="centre positions 10-20")
    for k, p in enumerate(points):
        ax.annotate(str(k), p * 1e3, textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.plot(ref["p"][:, 0] * 1e3, ref["p"][:, 1] * 1e3, color="0.3", lw=0.6, label="sampling moves (LVCA, 300 mm/s)")
    E1, E2 = robot.path_endpoints()
    ax.annotate("", E2 * 1e3, E1 * 1e3, arrowprops={"arrowstyle": "->", "color": "tab:purple", "lw": 2})
    ax.plot([], [], color="tab:purple", lw=2, label="Table 3 path E1 -> E2 (frame shifted)")
    ax.set_aspect("equal")
    ax.set_xlabel("x [mm] (Table 1 frame)")
    ax.set_ylabel("y [mm]")
    ax.set_title("Fig. 4: sampling positions and path (model: geometry and planned reference)")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def friction_fits(v: np.ndarray, kostic: np.ndarray, cv: np.ndarray, truth: np.ndarray, ranges: np.ndarray,
                  samples: tuple[np.ndarray, np.ndarray] | None = None):
    """Table 2 as curves: identified Kostic and Coulomb+viscous friction vs the twin's truth, per drive."""
    fig, axes = _fig(1, 3, figsize=(11, 3.6), sharey=True)
    for i, ax in enumerate(axes):
        if samples is not None:
            ax.plot(samples[0][:, i], samples[1][:, i], ".", ms=1, color="0.75", label="twin data: tau/k_f - E (per drive, with internal preload)")
        ax.plot(v, truth[:, i], "k-", lw=2.2, label="twin truth (steady LuGre)")
        ax.plot(v, kostic[:, i], "--", color=COLORS["kostic"], label="Kostic fit / k_f")
        ax.plot(v, cv[:, i], ":", color=COLORS["coulomb-viscous"], lw=1.8, label="Coulomb + viscous fit / k_f")
        for s in (-1, 1):
            ax.axvspan(*(sorted(s * ranges[i])), color="tab:blue", alpha=0.06)
        ax.set_title(f"drive {i + 1}")
        ax.set_xlabel("joint rate [rad/s]")
    axes[0].set_ylabel("friction torque [N m]")
    h, lab = axes[0].get_legend_handles_labels()
    fig.suptitle("Table 2 as curves: identified friction vs the twin's truth (twin data; shaded: speeds used).\n"
                 "The paper's Table 2 is in its drives' digital torque unit (not published): not drawn", fontsize=10)
    fig.tight_layout()
    fig.legend(h, lab, fontsize=7, loc="upper center", ncol=4, bbox_to_anchor=(0.5, 0.0))
    return fig


def location_errors(loc: Mapping[str, Mapping[str, Any]]):
    """Fig. 5: location error at the 21 positions, before and after compensation (twin)."""
    fig, ax = _fig(figsize=(7.5, 3.8))
    k = np.arange(21)
    for name in ("none", "kostic", "coulomb-viscous"):
        ax.plot(k, loc[name]["error_mm"], "o-", color=COLORS[name], ms=4, label=f"twin: {LABELS[name]}")
    ax.axhline(PAPER_LOCATION_MM["before"][0], color=COLORS["none"], ls=":", lw=1, label="paper: largest error before (7.09 mm)")
    ax.axhline(PAPER_LOCATION_MM["after"][0], color=COLORS["kostic"], ls=":", lw=1, label="paper: largest error after (1.88 mm)")
    ax.axhline(PAPER_LOCATION_MM["before"][1], color=COLORS["none"], ls="-.", lw=0.8, label="paper: mean error before (3.88 mm)")
    ax.axhline(PAPER_LOCATION_MM["after"][1], color=COLORS["kostic"], ls="-.", lw=0.8, label="paper: mean error after (0.55 mm)")
    ax.axvspan(-0.5, 9.5, color="tab:green", alpha=0.06)
    ax.set_xticks(k)
    ax.set_xlabel("sampling position (0-9 boundary, 10-20 centre)")
    ax.set_ylabel("location error [mm]")
    ax.set_title("Fig. 5: location error at arrival (twin); shaded: boundary positions")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def error_histogram(loc: Mapping[str, Mapping[str, Any]]):
    """Fig. 6: largest, mean and smallest location error, twin beside paper."""
    fig, ax = _fig(figsize=(7, 3.6))
    groups = ("max_mm", "mean_mm", "min_mm")
    x = np.arange(3)
    w = 0.2
    bars = [("paper before", PAPER_LOCATION_MM["before"], "mistyrose"), ("paper after", PAPER_LOCATION_MM["after"], "lightsteelblue"),
            ("twin before", [loc["none"][g] for g in groups], COLORS["none"]),
            ("twin after (Kostic)", [loc["kostic"][g] for g in groups], COLORS["kostic"])]
    for j, (lab, vals, col) in enumerate(bars):
        ax.bar(x + (j - 1.5) * w, vals, w, color=col, label=lab)
    ax.set_xticks(x, ["largest", "mean", "smallest"])
    ax.set_ylabel("location error [mm]")
    ax.set_title("Fig. 6: location error summary, paper (its robot) vs twin")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def joint_velocities(series: Mapping, speed: float = 0.4):
    """Fig. 9: drive rates at 400 mm/s, before and after compensation (twin)."""
    fig, axes = _fig(1, 2, figsize=(11, 3.6), sharey=True)
    for ax, name in zip(axes, ("none", "kostic")):
        r = series[(speed, name)]
        for i in range(3):
            ax.plot(r["t"], r["qd_ref"][:, i], color="0.6", lw=0.8)
            ax.plot(r["t"], r["qd"][:, i], lw=1.2, label=f"drive {i + 1}")
        dev = np.abs(r["qd"] - r["qd_ref"])[r["moving"]].max(0)
        ax.text(0.02, 0.97, f"largest deviation from the reference, drive 3:\ntwin {dev[2]:.2f} rad/s, "
                            f"paper {PAPER_TEXT['drive3_jump_rad_s'][name]:.2f} rad/s",
                transform=ax.transAxes, fontsize=7, va="top", bbox={"fc": "white", "ec": "0.7", "alpha": 0.85})
        ax.set_title(f"{LABELS[name]}")
        ax.set_xlabel("time [s]")
    axes[0].plot([], [], color="0.6", lw=0.8, label="reference")
    axes[0].set_ylabel("joint rate [rad/s]")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Fig. 9: drive rates at {speed * 1e3:.0f} mm/s (twin, encoder-derived)")
    fig.tight_layout()
    return fig


def stage_velocity(series: Mapping, drive: int, speed: float = 0.4):
    """Figs. 10-12: one drive's rate in the acceleration, uniform and deceleration stages (twin)."""
    r0 = series[(speed, "none")]
    moving = np.flatnonzero(r0["moving"])
    t0, t1 = r0["t"][moving[0]], r0["t"][moving[-1]]
    ta = speed / 7.0
    windows = {"acceleration": (t0 - 0.01, t0 + ta + 0.03), "uniform": (t0 + ta, t1 - ta),
               "deceleration": (t1 - ta - 0.03, t1 + 0.05)}
    fig, axes = _fig(1, 3, figsize=(11, 3.4))
    for ax, (stage, (a, b)) in zip(axes, windows.items()):
        sel = (r0["t"] >= a) & (r0["t"] <= b)
        ax.plot(r0["t"][sel], r0["qd_ref"][sel, drive], color="0.5", lw=1, label="reference")
        for name in ("none", "kostic", "coulomb-viscous"):
            r = series[(speed, name)]
            ax.plot(r["t"][sel], r["qd"][sel, drive], color=COLORS[name], lw=1, label=LABELS[name])
        ax.set_title(stage)
        ax.set_xlabel("time [s]")
    axes[0].set_ylabel(f"drive {drive + 1} rate [rad/s]")
    axes[0].legend(fontsize=6)
    fig.suptitle(f"Fig. {10 + drive}: drive {drive + 1} rate by stage at {speed * 1e3:.0f} mm/s (twin)")
    fig.tight_layout()
    return fig


def friction_along_path(t: np.ndarray, model: np.ndarray, true: np.ndarray, speed: float = 0.4,
                        moving: np.ndarray | None = None):
    """Fig. 13: friction of the three drives along the 400 mm/s path (identified Kostic and twin truth).

    ``moving`` (bool, per sample) keeps the samples where the reference moves: at rest both steady laws
    are evaluated at the encoder-derived speed's noise around zero and flip sign from sample to sample,
    which says nothing about friction (the twin holds still there by its bristle, presliding, state).
    """
    if moving is not None:
        keep = np.asarray(moving, bool)[:, None]
        model, true = np.where(keep, model, np.nan), np.where(keep, true, np.nan)
    fig, ax = _fig(figsize=(10, 3.8))
    for i in range(3):
        ax.plot(t, true[:, i], color=f"C{i}", lw=2.2, alpha=0.45, label=f"drive {i + 1}: twin truth")
        ax.plot(t, model[:, i], color=f"C{i}", lw=1, ls="--", label=f"drive {i + 1}: Kostic model")
    lo, hi = PAPER_TEXT["friction_max_range"]
    ax.axhspan(lo, hi, color="tab:orange", alpha=0.12,
               label=f"paper: largest friction {lo:g}-{hi:g} at the uniform stage (its unit 'N', not N m)")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("friction torque [N m]")
    ax.set_title(f"Fig. 13: drive friction along the path at {speed * 1e3:.0f} mm/s, after compensation (twin; while moving)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def speed_errors(series: Mapping, speeds: tuple[float, ...]):
    """Fig. 14: path speed and its error at each speed, before, Kostic and Coulomb+viscous (twin)."""
    fig, axes = _fig(2, len(speeds), figsize=(13, 5.4), sharex="col")
    for j, v in enumerate(speeds):
        for name in ("none", "coulomb-viscous", "kostic"):
            r = series[(v, name)]
            axes[0, j].plot(r["t"], r["v_act"] * 1e3, color=COLORS[name], lw=1, label=LABELS[name])
            axes[1, j].plot(r["t"], r["speed_error"] * 1e3, color=COLORS[name], lw=1)
        axes[0, j].plot(r["t"], r["v_ref"] * 1e3, color="k", lw=0.8, ls="--", label="LVCA reference")
        pb, pa = PAPER_TABLE5[v]["before"], PAPER_TABLE5[v]["after"]
        for val, col in ((pb[0], COLORS["none"]), (pb[1], COLORS["none"]), (pa[0], COLORS["kostic"]), (pa[1], COLORS["kostic"])):
            axes[1, j].axhline(val, color=col, ls=":", lw=0.8)
        axes[0, j].set_title(f"{v * 1e3:.0f} mm/s")
        axes[1, j].set_xlabel("time [s]")
    axes[0, 0].set_ylabel("path speed [mm/s]")
    axes[1, 0].set_ylabel("speed error v - v' [mm/s]")
    axes[1, -1].plot([], [], color=COLORS["none"], ls=":", lw=0.8, label="paper, Table 5: peaks before")
    axes[1, -1].plot([], [], color=COLORS["kostic"], ls=":", lw=0.8, label="paper, Table 5: peaks after")
    h0, l0 = axes[0, 0].get_legend_handles_labels()
    h1, l1 = axes[1, -1].get_legend_handles_labels()
    fig.legend(h0 + h1, l0 + l1, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle("Fig. 14: path speed and speed error (twin); dotted: the paper's Table 5 peaks (red before, blue after)")
    fig.tight_layout()
    return fig


def peak_origin(series: Mapping, speeds: tuple[float, ...], start: Mapping[str, Any]):
    """Where Table 5's peaks come from (twin): the start of every run, and the peaks stage by stage.

    Top row: speed error over the first 0.12 s of motion at every speed, one panel per compensation
    (and the twin's true friction as feed-forward); shaded, the window in which every speed's reference is
    the same (``v_min / a_max``). Bottom: each stage's largest speed-error magnitude per speed.
    """
    from paperlib.experiments.rrr.tracking import STAGES

    names = [c for c in ("none", "kostic", "coulomb-viscous", "true-friction") if (speeds[0], c) in series]
    fig, axes = _fig(2, len(names), figsize=(3.4 * len(names), 6.2))
    shades = {v: 0.35 + 0.65 * i / max(1, len(speeds) - 1) for i, v in enumerate(speeds)}
    win = start["common_window_s"]
    for j, c in enumerate(names):
        ax = axes[0, j]
        for v in speeds:
            r = series[(v, c)]
            i0 = int(np.flatnonzero(r["moving"])[0])
            sl = slice(i0, i0 + int(round(0.12 / (r["t"][1] - r["t"][0]))))
            ax.plot((r["t"][sl] - r["t"][i0]) * 1e3, r["speed_error"][sl] * 1e3, color=COLORS.get(c, "tab:purple"),
                    alpha=shades[v], lw=1.1, label=f"{v * 1e3:.0f} mm/s")
        ax.axvspan(0, win * 1e3, color="0.85", zorder=0, label="same reference at every speed")
        ax.set_title(LABELS[c], fontsize=9)
        ax.set_xlabel("time since the start of motion [ms]")
        ax.grid(alpha=0.3)
        ax = axes[1, j]
        x = np.arange(len(speeds))
        for k, s in enumerate(STAGES):
            vals = [series[(v, c)]["stage_peak_mm_s"][s] for v in speeds]
            ax.bar(x + (k - 1) * 0.27, vals, width=0.27, label=s, color=("0.25", "0.55", "0.8")[k])
        ax.set_xticks(x, [f"{v * 1e3:.0f}" for v in speeds])
        ax.set_ylim(0, 1.35 * max(series[(v, c)]["stage_peak_mm_s"][s] for v in speeds for s in STAGES))
        ax.set_xlabel("path speed [mm/s]")
        ax.grid(alpha=0.3, axis="y")
    axes[0, 0].set_ylabel("speed error v - v' [mm/s]")
    axes[1, 0].set_ylabel("largest |speed error| in the stage [mm/s]")
    axes[0, -1].legend(fontsize=7)
    axes[1, -1].legend(fontsize=7, title="LVCA stage", title_fontsize=7, ncol=3, loc="upper center")
    fig.suptitle("Where Table 5's peaks come from (twin): every run starts from rest with the same acceleration "
                 "(shaded: the same reference at every speed); below, each LVCA stage's largest error", fontsize=10)
    fig.tight_layout()
    return fig
