"""Figures of paper 002 on the twin (matplotlib; saved through :func:`paperlib.figures.io.save`).

Every figure says where its data came from (``twin``) in its one title, draws the paper's numbers where
the paper prints them (colour role ``paper``, vermillion), and the twin's truth where it exists (role
``truth``, green). The compendium's style (:mod:`paperlib.figures.style`) fixes the other colours: the
identified Kostic law is the ``model`` role (blue), data points are ``raw`` (light grey), references
(a planned trajectory, zero) are ``reference`` (grey, dotted). The controllers' colours
(:data:`COLORS`) follow it: Kostic compensation in the model's blue, the twin's true friction in the
truth's green, the two others from the style's cycle. Legends sit inside the axes or below them;
panels of a figure carry a letter (A, B, ...) above their top-left corner, not a repeated title.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from paperlib.figures import style
from paperlib.experiments.rrr.tracking import LABELS, PAPER_LOCATION_MM, PAPER_TABLE5, PAPER_TEXT

#: Colour of each controller's runs (Kostic = the identified model, true friction = the twin's truth).
COLORS = {"none": style.CYCLE[2], "kostic": style.ROLES["model"]["color"], "coulomb-viscous": style.CYCLE[0],
          "true-friction": style.ROLES["truth"]["color"]}
#: Colours of the three drives where one figure shows them side by side (no role: the style's cycle).
DRIVE_COLORS = (style.CYCLE[0], style.CYCLE[1], style.CYCLE[2])
PAPER = style.ROLES["paper"]["color"]


def _fig(*args: Any, **kw: Any):
    """``plt.subplots`` with the compendium's rcParams applied first (so the first figure has them too)."""
    import matplotlib.pyplot as plt

    from paperlib.figures import io as figio

    figio.configure()
    return plt.subplots(*args, **kw)


def sampling_layout(robot, points: np.ndarray, ref: Mapping[str, np.ndarray]):
    """Fig. 4 (and Fig. 7): the drive joints, the work region, the 21 positions and the Table 3 path.

    Parameters
    ----------
    robot : paperlib.robots.three_rrr.ThreeRRR
        The robot model (``base_joints`` (3, 2) [m], ``work_centre`` (2,) [m], ``work_radius`` [m]).
    points : ndarray, shape (21, 2)
        The sampling positions [m]; the first 10 on the boundary of the work region.
    ref : mapping
        The planned sampling moves; ``ref["p"]`` (n, 2) [m].
    """
    fig, ax = _fig(figsize=(6.0, 6.4))
    D = robot.base_joints
    ax.plot(*np.vstack([D, D[:1]]).T * 1e3, color="k", ls="--", lw=0.8, label="drive joints D1-D3 (Table 1)")
    ax.plot(*D.T * 1e3, "ks")
    a = np.linspace(0, 2 * np.pi, 200)
    c, R = robot.work_centre, robot.work_radius
    ax.plot((c[0] + R * np.cos(a)) * 1e3, (c[1] + R * np.sin(a)) * 1e3, color=style.CYCLE[5], lw=1, label="work region W (assumed)")
    ax.plot(ref["p"][:, 0] * 1e3, ref["p"][:, 1] * 1e3, **style.role("reference"), label="sampling moves (LVCA, 300 mm/s)")
    ax.plot(points[:10, 0] * 1e3, points[:10, 1] * 1e3, "o", color=style.CYCLE[0], label="boundary positions 0-9")
    ax.plot(points[10:, 0] * 1e3, points[10:, 1] * 1e3, "o", color=style.CYCLE[1], label="centre positions 10-20")
    for k, p in enumerate(points):
        ax.annotate(str(k), p * 1e3, textcoords="offset points", xytext=(4, 4), fontsize=7)
    E1, E2 = robot.path_endpoints()
    col = style.CYCLE[2]
    ax.annotate("", E2 * 1e3, E1 * 1e3, arrowprops={"arrowstyle": "->", "color": col, "lw": 2})
    ax.plot([], [], color=col, lw=2, label="Table 3 path E1 -> E2 (frame shifted)")
    ax.set_aspect("equal")
    ax.set_xlabel("x [mm] (Table 1 frame)")
    ax.set_ylabel("y [mm]")
    ax.set_title("Fig. 4: sampling positions and path (robot model and planner)")
    h, lab = ax.get_legend_handles_labels()
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=2)
    return fig


def friction_fits(v: np.ndarray, kostic: np.ndarray, cv: np.ndarray, truth: np.ndarray, ranges: np.ndarray,
                  samples: tuple[np.ndarray, np.ndarray] | None = None):
    """Table 2 as curves: identified Kostic and Coulomb+viscous friction vs the twin's truth, per drive.

    Parameters
    ----------
    v : ndarray, shape (n,)
        Joint rates at which the curves are evaluated [rad/s].
    kostic, cv, truth : ndarray, shape (n, 3)
        Friction torque of the Kostic fit, the Coulomb + viscous fit (both divided by k_f) and the twin's
        true steady friction, per drive [N m].
    ranges : ndarray, shape (3, 2)
        Per drive, the smallest and largest rate magnitude the fits used [rad/s] (shaded).
    samples : (ndarray, ndarray), optional
        The data points: rates (m, 3) [rad/s] and ``tau / k_f - E`` (m, 3) [N m].
    """
    fig, axes = _fig(1, 3, figsize=(11, 3.7), sharey=True)
    lim = style.limits(truth, kostic, cv, *(() if samples is None else (samples[1],)))
    for i, ax in enumerate(axes):
        if samples is not None:
            ax.plot(samples[0][:, i], samples[1][:, i], ".", ms=1.5, color=style.ROLES["raw"]["color"],
                    label="twin data: tau/k_f - E (with internal preload)")
        ax.plot(v, truth[:, i], **style.role("truth", linewidth=2.4), label="twin truth (steady LuGre)")
        ax.plot(v, kostic[:, i], **style.role("model", linestyle="--"), label="Kostic fit / k_f")
        ax.plot(v, cv[:, i], color=COLORS["coulomb-viscous"], ls=":", lw=1.8, label="Coulomb + viscous fit / k_f")
        for s in (-1, 1):
            ax.axvspan(*(sorted(s * ranges[i])), color=style.ROLES["reference"]["color"], alpha=0.1, lw=0,
                       label="speeds used by the fits" if s == 1 else None)
        ax.set_title(f"drive {i + 1}")
        ax.set_xlabel("joint rate [rad/s]")
        ax.set_ylim(*lim)
    axes[0].set_ylabel("friction torque [N m]")
    style.panel_letters(axes)
    h, lab = axes[0].get_legend_handles_labels()
    fig.suptitle("Table 2 as curves: identified friction against the twin's truth (twin data)")
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=5)
    return fig


def location_errors(loc: Mapping[str, Mapping[str, Any]]):
    """Fig. 5: location error at the 21 positions, before and after compensation (twin), with the paper's levels.

    Parameters
    ----------
    loc : mapping
        Per controller (``none``, ``kostic``, ``coulomb-viscous``): ``error_mm``, shape (21,) [mm].
    """
    fig, ax = _fig(figsize=(7.5, 4.2))
    k = np.arange(21)
    ax.axvspan(-0.5, 9.5, color=style.ROLES["reference"]["color"], alpha=0.08, lw=0, label="boundary positions 0-9")
    for name in ("none", "kostic", "coulomb-viscous"):
        ax.plot(k, loc[name]["error_mm"], "o-", color=COLORS[name], ms=4, label=f"twin: {LABELS[name]}")
    for j, (what, ls) in enumerate((("largest", "--"), ("mean", ":"))):
        for when in ("before", "after"):
            val = PAPER_LOCATION_MM[when][j]
            ax.axhline(val, **style.role("paper", linestyle=ls))
            ax.text(20.4, val, f"paper: {what} {when} ({val:.2f} mm)", color=PAPER, fontsize=7, ha="right", va="bottom")
    ax.plot([], [], **style.role("paper"), label="paper (its robot): largest (dashed), mean (dotted)")
    ax.set_xticks(k)
    ax.set_xlim(-0.6, 20.6)
    ax.set_ylim(0.0, style.limits(*(loc[n]["error_mm"] for n in ("none", "kostic", "coulomb-viscous")),
                                  include=[PAPER_LOCATION_MM["before"][0]])[1])
    ax.set_xlabel("sampling position (0-9 boundary, 10-20 centre)")
    ax.set_ylabel("location error [mm]")
    ax.set_title("Fig. 5: location error at arrival (twin) and the paper's levels")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.87), fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def error_histogram(loc: Mapping[str, Mapping[str, Any]]):
    """Fig. 6: largest, mean and smallest location error, twin beside paper.

    Parameters
    ----------
    loc : mapping
        Per controller: ``max_mm``, ``mean_mm``, ``min_mm`` [mm].
    """
    fig, ax = _fig(figsize=(7, 3.8))
    groups = ("max_mm", "mean_mm", "min_mm")
    x = np.arange(3)
    w = 0.2
    bars = [("paper before", PAPER_LOCATION_MM["before"], {"color": PAPER}),
            ("paper after (Kostic)", PAPER_LOCATION_MM["after"], {"facecolor": "white", "edgecolor": PAPER, "hatch": "////"}),
            ("twin before", [loc["none"][g] for g in groups], {"color": COLORS["none"]}),
            ("twin after (Kostic)", [loc["kostic"][g] for g in groups], {"color": COLORS["kostic"]})]
    for j, (lab, vals, kw) in enumerate(bars):
        ax.bar(x + (j - 1.5) * w, vals, w, label=lab, **kw)
    ax.set_xticks(x, ["largest", "mean", "smallest"])
    ax.set_ylabel("location error [mm]")
    ax.set_ylim(0.0, style.limits(*(b[1] for b in bars), include=[0.0])[1])
    ax.set_title("Fig. 6: location error summary, paper (its robot) vs twin")
    ax.legend(**{"loc": "upper right", "fontsize": 7})
    fig.tight_layout()
    return fig


def joint_velocities(series: Mapping, speed: float = 0.4):
    """Fig. 9: drive rates at ``speed`` [m/s], before and after compensation (twin).

    Parameters
    ----------
    series : mapping
        ``(speed, controller)`` -> run with ``t`` (n,) [s], ``qd`` and ``qd_ref`` (n, 3) [rad/s], ``moving`` (n,) bool.
    speed : float
        Path speed of the runs drawn [m/s].
    """
    fig, axes = _fig(1, 2, figsize=(11, 3.8), sharey=True)
    for ax, name in zip(axes, ("none", "kostic")):
        r = series[(speed, name)]
        for i in range(3):
            ax.plot(r["t"], r["qd_ref"][:, i], **style.role("reference", linewidth=1.2))
            ax.plot(r["t"], r["qd"][:, i], color=DRIVE_COLORS[i], lw=1.2, label=f"drive {i + 1}")
        dev = np.abs(r["qd"] - r["qd_ref"])[r["moving"]].max(0)
        ax.text(0.02, 0.97, f"largest deviation from the reference, drive 3:\ntwin {dev[2]:.2f} rad/s, "
                            f"paper {PAPER_TEXT['drive3_jump_rad_s'][name]:.2f} rad/s",
                transform=ax.transAxes, fontsize=7, va="top", bbox={"fc": "white", "ec": "0.7", "alpha": 0.85})
        ax.set_title(f"{LABELS[name]}")
        ax.set_xlabel("time [s]")
    axes[0].plot([], [], **style.role("reference", linewidth=1.2), label="reference")
    axes[0].set_ylabel("joint rate [rad/s]")
    style.panel_letters(axes)
    h, lab = axes[0].get_legend_handles_labels()
    fig.suptitle(f"Fig. 9: drive rates at {speed * 1e3:.0f} mm/s (twin, encoder-derived)")
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=4)
    return fig


def stage_velocity(series: Mapping, drive: int, speed: float = 0.4):
    """Figs. 10-12: one drive's rate in the acceleration, uniform and deceleration stages (twin).

    Parameters
    ----------
    series : mapping
        As for :func:`joint_velocities`.
    drive : int
        Drive index, 0-2.
    speed : float
        Path speed [m/s]; the stage windows use the paper's a_max = 7 m/s^2.
    """
    r0 = series[(speed, "none")]
    moving = np.flatnonzero(r0["moving"])
    t0, t1 = r0["t"][moving[0]], r0["t"][moving[-1]]
    ta = speed / 7.0
    windows = {"acceleration": (t0 - 0.01, t0 + ta + 0.03), "uniform": (t0 + ta, t1 - ta),
               "deceleration": (t1 - ta - 0.03, t1 + 0.05)}
    fig, axes = _fig(1, 3, figsize=(11, 3.5))
    for ax, (stage, (a, b)) in zip(axes, windows.items()):
        sel = (r0["t"] >= a) & (r0["t"] <= b)
        ax.plot(r0["t"][sel], r0["qd_ref"][sel, drive], **style.role("reference", linewidth=1.4), label="reference")
        for name in ("none", "kostic", "coulomb-viscous"):
            r = series[(speed, name)]
            ax.plot(r["t"][sel], r["qd"][sel, drive], color=COLORS[name], lw=1.1, label=LABELS[name])
        ax.set_title(stage)
        ax.set_xlabel("time [s]")
    axes[0].set_ylabel(f"drive {drive + 1} rate [rad/s]")
    style.panel_letters(axes)
    h, lab = axes[0].get_legend_handles_labels()
    fig.suptitle(f"Fig. {10 + drive}: drive {drive + 1} rate by stage at {speed * 1e3:.0f} mm/s (twin)")
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=4)
    return fig


def friction_along_path(t: np.ndarray, model: np.ndarray, true: np.ndarray, speed: float = 0.4,
                        moving: np.ndarray | None = None):
    """Fig. 13: friction of the three drives along the 400 mm/s path (identified Kostic and twin truth).

    ``moving`` (bool, per sample) keeps the samples where the reference moves: at rest both steady laws
    are evaluated at the encoder-derived speed's noise around zero and flip sign from sample to sample,
    which says nothing about friction (the twin holds still there by its bristle, presliding, state).

    Parameters
    ----------
    t : ndarray, shape (n,)
        Time [s].
    model, true : ndarray, shape (n, 3)
        Identified Kostic friction and the twin's true friction per drive [N m].
    speed : float
        Path speed [m/s] (for the title).
    moving : ndarray of bool, shape (n,), optional
        Samples to draw.
    """
    if moving is not None:
        keep = np.asarray(moving, bool)[:, None]
        model, true = np.where(keep, model, np.nan), np.where(keep, true, np.nan)
    fig, ax = _fig(figsize=(8, 4.2))
    lo, hi = PAPER_TEXT["friction_max_range"]
    ax.axhspan(lo, hi, color=PAPER, alpha=0.1, lw=0,
               label=f"paper: largest friction {lo:g}-{hi:g} at the uniform stage (its unit 'N', not N m)")
    shown = np.flatnonzero(np.isfinite(true).all(axis=1))
    j = int(shown[int(0.45 * len(shown))]) if len(shown) else 0
    for i in range(3):
        ax.plot(t, true[:, i], **style.role("truth", linewidth=2.6, alpha=0.55), label="twin truth" if i == 0 else None)
        ax.plot(t, model[:, i], **style.role("model", linestyle="--", linewidth=1.1), label="Kostic model" if i == 0 else None)
        # each drive named on its curve, above it unless a neighbouring curve lies just above
        above = not any(0.0 < true[j, k] - true[j, i] < 1.5 for k in range(3) if k != i)
        ax.annotate(f"drive {i + 1}", (t[j], true[j, i]), textcoords="offset points", xytext=(0, 6 if above else -7),
                    ha="center", va="bottom" if above else "top", fontsize=8)
    ax.set_xlim(*style.limits(t[np.isfinite(true).any(axis=1)], margin=0.03))
    ax.set_ylim(*style.limits(model, true, include=[lo, hi]))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("friction torque [N m]")
    ax.set_title(f"Fig. 13: drive friction along the path at {speed * 1e3:.0f} mm/s, after compensation (twin)")
    h, lab = ax.get_legend_handles_labels()
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=2)
    return fig


def speed_errors(series: Mapping, speeds: tuple[float, ...]):
    """Fig. 14: path speed and its error at each speed, before, Kostic and Coulomb+viscous (twin).

    Parameters
    ----------
    series : mapping
        ``(speed, controller)`` -> run with ``t`` [s], ``v_act``, ``v_ref``, ``speed_error`` (n,) [m/s].
    speeds : tuple of float
        Path speeds, one column each [m/s].
    """
    fig, axes = _fig(2, len(speeds), figsize=(12, 5.6), sharex="col")
    for j, v in enumerate(speeds):
        for name in ("none", "coulomb-viscous", "kostic"):
            r = series[(v, name)]
            axes[0, j].plot(r["t"], r["v_act"] * 1e3, color=COLORS[name], lw=1, label=LABELS[name])
            axes[1, j].plot(r["t"], r["speed_error"] * 1e3, color=COLORS[name], lw=1)
        axes[0, j].plot(r["t"], r["v_ref"] * 1e3, **style.role("reference", linewidth=1.2), label="LVCA reference")
        pb, pa = PAPER_TABLE5[v]["before"], PAPER_TABLE5[v]["after"]
        for val in pb[:2]:
            axes[1, j].axhline(val, **style.role("paper", linewidth=0.9))
        for val in pa[:2]:
            axes[1, j].axhline(val, **style.role("paper", linestyle=":", linewidth=0.9))
        axes[0, j].set_title(f"{v * 1e3:.0f} mm/s")
        axes[1, j].set_xlabel("time [s]")
    axes[0, 0].set_ylabel("path speed [mm/s]")
    axes[1, 0].set_ylabel("speed error v - v' [mm/s]")
    style.panel_letters(axes)
    h, lab = axes[0, 0].get_legend_handles_labels()
    import matplotlib.lines as mlines

    h += [mlines.Line2D([], [], **style.role("paper", linewidth=0.9)),
          mlines.Line2D([], [], **style.role("paper", linestyle=":", linewidth=0.9))]
    lab += ["paper, Table 5: peaks before", "paper, Table 5: peaks after"]
    fig.suptitle("Fig. 14: path speed and speed error at four speeds (twin), with the paper's Table 5 peaks")
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=3)
    return fig


def peak_origin(series: Mapping, speeds: tuple[float, ...], start: Mapping[str, Any]):
    """Where Table 5's peaks come from (twin): the start of every run, and the peaks stage by stage.

    Top row: speed error over the first 0.12 s of motion at every speed, one panel per compensation
    (and the twin's true friction as feed-forward); shaded, the window in which every speed's reference is
    the same (``v_min / a_max``). Bottom: each stage's largest speed-error magnitude per speed.
    """
    from paperlib.experiments.rrr.tracking import STAGES

    import matplotlib.lines as mlines
    import matplotlib.patches as mpatches

    names = [c for c in ("none", "kostic", "coulomb-viscous", "true-friction") if (speeds[0], c) in series]
    fig, axes = _fig(2, len(names), figsize=(3.2 * len(names), 6.2))
    shades = {v: 0.35 + 0.65 * i / max(1, len(speeds) - 1) for i, v in enumerate(speeds)}
    win = start["common_window_s"]
    stage_colors = (style.ROLES["measured"]["color"], style.CYCLE[5], style.ROLES["raw"]["color"])
    for j, c in enumerate(names):
        ax = axes[0, j]
        for v in speeds:
            r = series[(v, c)]
            i0 = int(np.flatnonzero(r["moving"])[0])
            sl = slice(i0, i0 + int(round(0.12 / (r["t"][1] - r["t"][0]))))
            ax.plot((r["t"][sl] - r["t"][i0]) * 1e3, r["speed_error"][sl] * 1e3, color=COLORS[c],
                    alpha=shades[v], lw=1.1)
        ax.axvspan(0, win * 1e3, color=style.ROLES["reference"]["color"], alpha=0.25, lw=0, zorder=0)
        ax.set_title(LABELS[c].replace(" as feed-forward (reference)", "\nas feed-forward (reference)"), fontsize=9)
        ax.set_xlabel("time since the start of motion [ms]")
        ax = axes[1, j]
        x = np.arange(len(speeds))
        for k, s in enumerate(STAGES):
            vals = [series[(v, c)]["stage_peak_mm_s"][s] for v in speeds]
            ax.bar(x + (k - 1) * 0.27, vals, width=0.27, color=stage_colors[k])
        ax.set_xticks(x, [f"{v * 1e3:.0f}" for v in speeds])
        ax.set_ylim(0, style.limits([series[(v, c)]["stage_peak_mm_s"][s] for v in speeds for s in STAGES],
                                    include=[0.0])[1])
        ax.set_xlabel("path speed [mm/s]")
        ax.grid(False, axis="x")
    axes[0, 0].set_ylabel("speed error v - v' [mm/s]")
    axes[1, 0].set_ylabel("largest |speed error|\nin the stage [mm/s]")
    style.panel_letters(axes)
    h = [mlines.Line2D([], [], color="k", alpha=shades[v], lw=1.1) for v in speeds]
    lab = [f"{v * 1e3:.0f} mm/s" for v in speeds]
    h.append(mpatches.Patch(color=style.ROLES["reference"]["color"], alpha=0.25))
    lab.append("same reference at every speed")
    h += [mpatches.Patch(color=col) for col in stage_colors]
    lab += [f"largest error in the {s} stage" for s in STAGES]
    fig.suptitle("Where Table 5's peaks come from (twin): the start of every run (top) and each LVCA stage's largest error (bottom)")
    fig.tight_layout()
    style.figure_legend_below(fig, h, lab, ncol=4)
    return fig
