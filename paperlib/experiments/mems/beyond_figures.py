"""Figures of the studies beyond the flagship paper (matplotlib; the source footer is added on saving).

Every builder takes the numbers of :mod:`paperlib.experiments.mems.beyond` (SI, per cent where
named) and returns a :class:`matplotlib.figure.Figure`; nothing here changes a number.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from paperlib.figures import style

__all__ = ["imu_vs_encoder", "sweeps", "model_selection", "calibration", "friction_band"]

# Kinematics sources are no colour role of the compendium's style: they take its Okabe-Ito cycle.
VARIANT_COLORS = {"imu": style.CYCLE[1], "encoder:kalman": style.CYCLE[0], "encoder:observer": style.CYCLE[2]}
TAG = "beyond the paper"


def _plt():
    from paperlib.figures.io import configure

    configure()
    import matplotlib.pyplot as plt

    return plt


def imu_vs_encoder(campaign: Mapping[str, Sequence[Mapping[str, Any]]], labels: Sequence[str]) -> Any:
    """Per-seed friction-curve error, drive-gain error (both joints) and convergence time, per kinematics source."""
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(12.5, 4.0))
    panels = (("friction_curve_error_pct", "friction-curve error [%]"), ("drive_gain_error_pct", "drive-gain error [%]"),
              ("converged_s", "convergence time (window criterion) [s]"))
    rng = np.random.default_rng(0)
    for ax, (key, ylab) in zip(axes, panels):
        ticks = []
        pos = 0
        for lab in labels:
            runs = campaign[lab]
            groups = [[r[key][j] for r in runs] for j in (0, 1)] if key != "converged_s" else [[r[key] for r in runs]]
            for gi, g in enumerate(groups):
                g = np.asarray(g, dtype=float)
                g = g[np.isfinite(g)]
                x = pos + 0.08 * rng.standard_normal(len(g))
                ax.plot(x, g, "o", ms=3.5, alpha=0.6, color=VARIANT_COLORS.get(lab, "0.4"))
                if len(g):
                    ax.hlines(np.median(g), pos - 0.3, pos + 0.3, color=style.ROLES["measured"]["color"], lw=1.8)
                name = lab.replace(":", "\n")  # "encoder\nkalman": the labels of neighbours must not collide
                ticks.append((pos, f"{name}\n" + (f"joint {gi + 1}" if len(groups) > 1 else "")))
                pos += 1
            pos += 0.5
        ax.set_xticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=7)
        ax.set_ylabel(ylab)
        ax.grid(alpha=0.3, axis="y")
        ax.grid(False, axis="x")
    n = len(next(iter(campaign.values())))
    fig.suptitle(f"IMU vs encoder-only kinematics, same EWR-RLS (model 3), {n} twin runs ({TAG}); bar = median")
    style.panel_letters(axes)
    fig.tight_layout()
    return fig


def sweeps(summary: Mapping[str, Mapping[str, Any]], counts: Sequence[int], native_counts: int,
           imu_noise: Sequence[float]) -> Any:
    """Median errors (larger joint) vs encoder resolution, and vs IMU noise, with the other source as a line."""
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(11.0, 7.0))
    for row, what, lab in ((0, "friction_curve", "friction-curve error [%]"), (1, "drive_gain", "drive-gain error [%]")):
        def score(s):
            return max(s[f"{what}_error_pct_j1"][0], s[f"{what}_error_pct_j2"][0])
        pairs = sorted([(native_counts, "encoder:kalman")] + [(int(c), f"encoder:kalman@{int(c)}") for c in counts],
                       reverse=True)
        cs, labs = [c for c, _ in pairs], [lb for _, lb in pairs]
        ys = [score(summary[lb]) for lb in labs]
        ax = axes[row, 0]
        ax.semilogx(cs, ys, "o-", color=VARIANT_COLORS["encoder:kalman"], label="encoder (Kalman), median of seeds")
        ax.axvline(native_counts, **style.role("reference"), label=f"the twin's encoder ({native_counts})")
        ax.axhline(score(summary["imu"]), color=VARIANT_COLORS["imu"], ls="--", label="IMU as recorded")
        ax.set_xlabel("encoder counts per motor revolution (gear 10:1)")
        ax.set_ylabel(lab)
        ax.invert_xaxis()
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        ks = [1.0] + sorted(k for k in imu_noise if k != 1.0)
        ys = [score(summary["imu"])] + [score(summary[f"imu x{k:g}"]) for k in ks[1:]]
        ax = axes[row, 1]
        ax.semilogx(ks, ys, "o-", color=VARIANT_COLORS["imu"], label="IMU, noise x K, median of seeds")
        ax.axhline(score(summary["encoder:kalman"]), color=VARIANT_COLORS["encoder:kalman"], ls="--",
                   label=f"encoder (Kalman), {native_counts} counts")
        ax.set_xlabel("IMU noise RMS / the twin IMU's (K)")
        ax.set_ylabel(lab)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Where the IMU pays off: encoder resolution and IMU noise sweeps ({TAG})")
    style.panel_letters(axes)
    fig.tight_layout()
    return fig


def model_selection(sel: Mapping[str, Any], knee_choice: int | None, paper_choice: int = 3) -> Any:
    """Every candidate's criteria on one run (differences to the best) and its CV error, with the choices marked."""
    plt = _plt()
    cands = list(sel["candidates"])
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.0))
    x = np.arange(len(cands))
    w = 0.2
    colours = (style.CYCLE[0], style.CYCLE[1], style.CYCLE[2], style.CYCLE[5])  # no yellow: too pale on white
    for i, crit in enumerate(("aic", "bic", "aic_eff", "bic_eff")):
        vals = np.array([sel["candidates"][c][crit] for c in cands])
        axes[0].bar(x + (i - 1.5) * w, vals - vals.min(), w, color=colours[i],
                    label=f"{crit} (pick: {sel['picks'][crit]})")
    axes[0].set_yscale("symlog", linthresh=10)
    axes[0].set_xticks(x, [f"({c})\n{sel['candidates'][c]['n_params']} par." for c in cands])
    axes[0].set_ylabel("criterion - lowest")
    axes[0].legend(fontsize=7)
    cv = np.array([sel["candidates"][c]["cv_mse_Nm2"] for c in cands])
    se = np.array([sel["candidates"][c]["cv_se_Nm2"] for c in cands])
    axes[1].errorbar(x, cv, yerr=se, fmt="o", color=style.ROLES["measured"]["color"], capsize=4,
                     label=f"held-out MSE +- 1 SE; one-SE rule picks ({sel['picks']['cv']})")
    axes[1].set_xticks(x, [f"({c})" for c in cands])
    axes[1].set_ylabel("blocked-CV held-out MSE [N^2 m^2]")
    axes[1].legend(fontsize=7, loc="best")
    for ax in axes:
        ax.grid(alpha=0.3, axis="y")
        ax.grid(False, axis="x")
    fig.suptitle(f"Friction model by criterion: auto ({sel['criterion']}) picks ({sel['chosen']}), knee rule "
                 f"({knee_choice}), the paper ({paper_choice}) ({TAG})")
    style.panel_letters(axes)
    fig.tight_layout()
    return fig


def calibration(table: Mapping[str, Any]) -> Any:
    """Coverage of the 95 % intervals over seeds per parameter, plain and autocorrelation-corrected."""
    plt = _plt()
    names = table["param_names"]
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(10.0, 5.0))
    ax.axhspan(90, 99, color="0.9", label="target 90-99 %")
    ax.axhline(95, **style.role("reference"))
    ax.plot(x - 0.1, 100 * np.asarray(table["coverage_std"]), "o", color=style.CYCLE[1], mfc="none",
            label="truth (a) curve fit; std = sqrt(s^2 diag P)")
    ax.plot(x - 0.1, 100 * np.asarray(table["coverage_std_corrected"]), "s", color=style.CYCLE[1],
            label="truth (a); std x sqrt(tau)")
    if "coverage_ideal_std" in table:
        ax.plot(x + 0.1, 100 * np.asarray(table["coverage_ideal_std"]), "o", color=style.CYCLE[0], mfc="none",
                label="truth (b) ideal sensors; std")
        ax.plot(x + 0.1, 100 * np.asarray(table["coverage_ideal_std_corrected"]), "s", color=style.CYCLE[0],
                label="truth (b); std x sqrt(tau)")
    ax.set_xticks(x, names, rotation=40, fontsize=8)
    ax.set_ylabel("seeds whose 95 % interval holds the truth [%]")
    ax.set_ylim(-3, 103)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=3, frameon=False)
    ax.grid(alpha=0.3, axis="y")
    ax.grid(False, axis="x")
    ax.set_title(f"Calibration of the EWR-RLS intervals over {table['n_seeds']} twin runs ({TAG})")
    fig.tight_layout()
    return fig


def friction_band(curves: Mapping[int, Mapping[str, np.ndarray]]) -> Any:
    """Identified friction curve of each joint with its 95 % band, and the twin's truth."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(curves), figsize=(5.5 * len(curves), 4.0))
    axes = np.atleast_1d(axes)
    for ax, (j, c) in zip(axes, sorted(curves.items())):
        model = style.role("model")
        ax.fill_between(c["v"], c["curve"] - c["half"], c["curve"] + c["half"], color=model["color"], alpha=0.2,
                        lw=0, label="95 % band (std x sqrt(tau))")
        ax.plot(c["v"], c["curve"], **model, label="model (3), final estimate")
        if "truth" in c:
            ax.plot(c["v"], c["truth"], **style.role("truth", linestyle="--"), label="the twin's true steady friction")
        ax.set_xlim(float(np.min(c["v"])), float(np.max(c["v"])))
        ax.set_xlabel(f"qd{j} [rad/s]")
        ax.set_ylabel(f"tau_F,{j} [N m]")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Friction curves with confidence bands ({TAG})")
    if len(axes) > 1:
        style.panel_letters(axes)
    fig.tight_layout()
    return fig
