"""The figure of notebook 07: the paper, the stated twin and the twin calibrated to Fig. 11, side by side.

Matplotlib, like :mod:`paperlib.experiments.mems.beyond_figures` (the source footer is added on
saving); nothing here changes a number.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from paperlib.figures import style

__all__ = ["RATIO_ROWS", "headlines_side_by_side"]

#: The error ratios of Figs. 8-9 (notebook 04's ``ratios``), with the paper's values per joint.
RATIO_ROWS: tuple[tuple[str, str, tuple[float, float]], ...] = (
    ("CTC_vs_PD_rms", "CTC vs PD, RMS", (2.44, 2.04)),
    ("CTC_vs_PD_peak", "CTC vs PD, peak", (3.88, 3.78)),
    ("AC_vs_CTC_rms", "AC vs CTC, RMS", (5.05, 3.68)),
    ("AC_vs_CTC_peak", "AC vs CTC, peak", (1.40, 1.97)),
)
_TWINS = (("stated twin", "o", style.CYCLE[0]), ("calibrated twin", "s", style.CYCLE[2]))


def _plt():
    from paperlib.figures.io import configure

    configure()
    import matplotlib.pyplot as plt

    return plt


def headlines_side_by_side(ratios: Sequence[Mapping[str, Sequence[float]]],
                           identification: Sequence[Mapping[str, Mapping[str, Any]]], label: str) -> Any:
    """Error ratios (Figs. 8-9) and identification errors on the stated and the calibrated twin.

    Parameters
    ----------
    ratios : sequence of 2 mappings
        Notebook 04's ``ratios`` (key -> [joint 1, joint 2], times lower) of the stated twin, then
        of the calibrated twin.
    identification : sequence of 2 mappings
        Notebook 06's ``imu_vs_encoder`` (label -> ``friction_curve_error_pct_jN`` as [median, q25,
        q75] [%]) of each twin.
    label : str
        What the calibrated twin is (its level factors and ripples), for the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.0, 4.6), gridspec_kw={"width_ratios": [1.15, 1.0]})
    names = [f"{name}, joint {j + 1}" for _, name, _ in RATIO_ROWS for j in (0, 1)]
    y = np.arange(len(names))[::-1]
    paper = [p[j] for _, _, p in RATIO_ROWS for j in (0, 1)]
    ax1.plot(paper, y, "D", ms=7, mfc="none", mec=style.ROLES["paper"]["color"], mew=1.6, label="paper")
    for (twin, marker, color), r in zip(_TWINS, ratios):
        vals = [float(r[key][j]) for key, _, _ in RATIO_ROWS for j in (0, 1)]
        ax1.plot(vals, y, marker, ms=5.5, color=color, alpha=0.9, label=twin)
    ax1.set_xscale("log")
    ticks = [1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0]
    ax1.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax1.minorticks_off()
    ax1.set_yticks(y, names, fontsize=8)
    ax1.axvline(1.0, **style.ROLES["reference"])
    ax1.set_xlabel("error of the first controller / error of the second [times lower, log]")
    ax1.set_title("Figs. 8-9: tracking-error ratios (the same runs on each twin)", fontsize=10)
    ax1.grid(alpha=0.3, axis="x")
    ax1.legend(fontsize=8, loc="upper right")

    kinds = (("imu", "IMU"), ("encoder:kalman", "encoder-only\n(Kalman)"))
    groups = [(k, name, j) for k, name in kinds for j in (1, 2)]
    x = np.arange(len(groups))
    width = 0.38
    for i, ((twin, _, color), ident) in enumerate(zip(_TWINS, identification)):
        med = np.array([float(ident[k][f"friction_curve_error_pct_j{j}"][0]) for k, _, j in groups])
        lo = np.array([float(ident[k][f"friction_curve_error_pct_j{j}"][1]) for k, _, j in groups])
        hi = np.array([float(ident[k][f"friction_curve_error_pct_j{j}"][2]) for k, _, j in groups])
        n = ident[groups[0][0]].get("n_seeds", "?")
        ax2.bar(x + (i - 0.5) * width, med, width, color=color, alpha=0.85, label=f"{twin} ({n} seeds)")
        ax2.errorbar(x + (i - 0.5) * width, med, yerr=[med - lo, hi - med], fmt="none", ecolor="0.2", lw=1.0, capsize=3)
    ax2.set_xticks(x, [f"{name}\njoint {j}" for _, name, j in groups], fontsize=8)
    ax2.set_yscale("log")
    ax2.set_ylabel("friction-curve error, median [%] (bars: quartiles)")
    ax2.set_title("identification (EWR-RLS, CTC runs, model 3)", fontsize=10)
    ax2.grid(alpha=0.3, axis="y")
    ax2.legend(fontsize=8)
    fig.suptitle(f"Headline numbers on the stated twin and on the {label}", fontsize=10)
    fig.tight_layout()
    return fig
