"""A sensitivity study's figures: the tornado chart and, per differing headline, its value over its two
most influential assumptions. Drawn from the summary alone (twin runs), in the compendium's style,
with the provenance footer of :func:`paperlib.figures.io.save`.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["tornado_figure", "scatter_figure", "differing_rows", "write_figures"]


def differing_rows(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Studied rows whose value at the stated assumptions fails the comparison row's rule."""
    return [r for r in summary.get("rows", []) if not r.get("agrees_stated", False)]


def _title(summary: Mapping[str, Any], shows: str) -> str:
    n = sum(summary.get("n_runs", {}).values())
    return (f"{shows}\nsensitivity study '{summary.get('study')}' of paper '{summary.get('paper')}': "
            f"{n} twin runs, assumptions in their stated ranges")


def tornado_figure(summary: Mapping[str, Any]) -> Any:
    """One panel per studied headline: each assumption's Morris mu* over the largest (bars, 95 %
    interval as a whisker) and, for those that went on to Sobol', ST with its 95 % interval (dots)."""
    import matplotlib.pyplot as plt

    from paperlib.figures import style

    rows = list(summary.get("rows", []))
    names = list(summary.get("assumptions", {}))
    n = len(rows)
    ncol = 2 if n > 1 else 1
    nrow = math.ceil(n / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.0, 0.35 * len(names) * nrow + 1.4), squeeze=False,
                             sharey=False, constrained_layout=True)
    for ax, r in zip(axes.flat, rows):
        mo = r["morris"]
        mus = np.array([np.nan if m is None else m for m in mo["mu_star"]], float)
        conf = np.array([np.nan if c is None else c for c in mo["mu_star_conf"]], float)
        top = np.nanmax(mus) if np.isfinite(mus).any() and np.nanmax(mus) > 0 else 1.0
        order = np.argsort(-np.nan_to_num(mus, nan=-1.0))[::-1]  # largest at the top
        y = np.arange(len(order))
        ax.barh(y, mus[order] / top, xerr=conf[order] / top, color=style.ROLES["raw"]["color"],
                error_kw={"elinewidth": 0.8, "capsize": 2}, label="Morris mu* / largest mu* (95 % interval)")
        so = r.get("sobol") or {}
        if so.get("ST") and so["ST"][0] is not None:
            pos = {nm: i for i, nm in enumerate(np.array(mo["names"])[order])}
            ys = [pos[nm] for nm in so["names"]]
            ax.errorbar(so["ST"], ys, xerr=so["ST_conf"], fmt="o", color=style.ROLES["model"]["color"], ms=4,
                        capsize=2, label="Sobol' ST (95 % interval)")
        ax.set_yticks(y, [mo["names"][i] for i in order], fontsize=7)
        ax.set_xlim(0.0, 1.25)
        ax.set_title(f"{r['key']} ({r['unit']})", fontsize=8)
        ax.set_xlabel("share (1)", fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    style.figure_legend_below(fig, handles, labels, ncol=2)
    fig.suptitle(_title(summary, "Which assumption moves which headline (tornado)"), fontsize=9)
    return fig


def _points(summary: Mapping[str, Any], key: str) -> tuple[list[Mapping[str, float]], np.ndarray]:
    s = summary["samples"]
    pts = list(s["morris"]) + list(s["sobol"])
    vals = list(s["values_morris"][key]) + list(s.get("values_sobol", {}).get(key, []))
    return pts, np.array([np.nan if v is None else v for v in vals], float)


def scatter_figure(summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Any:
    """One panel per row: its value at every sample over its two most influential assumptions
    (colour), the samples that reach the paper's value ringed, the stated twin marked."""
    import matplotlib.pyplot as plt

    from paperlib.figures import style

    ass = summary["assumptions"]
    n = max(len(rows), 1)
    ncol = 2 if n > 1 else 1
    nrow = math.ceil(n / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.0, 2.9 * nrow + 0.9), squeeze=False, constrained_layout=True)
    from paperlib.sensitivity.reach import agrees

    for ax, r in zip(axes.flat, rows):
        pts, vals = _points(summary, r["key"])
        top2 = [x["name"] for x in r["ranking"][:2]]
        if len(top2) < 2:
            ax.set_visible(False)
            continue
        xs = np.array([p.get(top2[0], ass[top2[0]]["baseline"]) for p in pts], float)
        ys = np.array([p.get(top2[1], ass[top2[1]]["baseline"]) for p in pts], float)
        ok = np.isfinite(vals)
        sc = ax.scatter(xs[ok], ys[ok], c=vals[ok], s=14, cmap="viridis")
        cb = fig.colorbar(sc, ax=ax)
        cb.set_label(f"{r['key']} ({r['unit']})", fontsize=7)
        if isinstance(r.get("paper"), (int, float)) and not isinstance(r["paper"], bool):
            cb.ax.axhline(float(r["paper"]), color=style.ROLES["paper"]["color"], lw=1.5)
            hit = np.array([agrees(r["kind"], r["paper"], float(v)) for v in vals])
            if hit.any():
                ax.scatter(xs[hit], ys[hit], s=40, facecolors="none", edgecolors=style.ROLES["paper"]["color"],
                           lw=1.0, label="reaches the paper's value (its rule)")
        ax.plot([ass[top2[0]]["baseline"]], [ass[top2[1]]["baseline"]], marker="*", ms=11, ls="none",
                color=style.ROLES["truth"]["color"], label="the twin's stated values")
        for axis, nm in ((ax.xaxis, top2[0]), (ax.yaxis, top2[1])):
            axis.set_label_text(f"{nm} ({ass[nm]['unit']})", fontsize=7)
        if ass[top2[0]].get("log"):
            ax.set_xscale("log")
        if ass[top2[1]].get("log"):
            ax.set_yscale("log")
        ax.set_title(f"{r['key']}: paper {r['paper']}, twin {r['twin_stated']:.3g}" if r.get("twin_stated") is not None
                     else r["key"], fontsize=8)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if handles:
        style.figure_legend_below(fig, handles, labels, ncol=2)
    fig.suptitle(_title(summary, "Differing headlines over their two most influential assumptions "
                                 "(paper's value: line on the colour bar)"), fontsize=9)
    return fig


def write_figures(summary: Mapping[str, Any], study: Any, figures_dir: str = "figures",
                  formats: Sequence[str] = ("png", "svg")) -> list[str]:
    """Write the tornado chart and the differing rows' scatter (``<figures>/<paper>/sensitivity_<name>_*``)."""
    from paperlib.figures.io import save

    prov = {"source": "twin", "study": summary.get("study"), "study_file": summary.get("study_file"),
            "results": study.summary_file(), "git_commit": summary.get("git_commit")}
    out = []
    stem = study.figure_stem("tornado", figures_dir)
    save(tornado_figure(summary), stem, formats, provenance={**prov, "figure": "tornado"})
    out.append(stem)
    rows = differing_rows(summary)
    if rows:
        stem = study.figure_stem("differing", figures_dir)
        save(scatter_figure(summary, rows), stem, formats, provenance={**prov, "figure": "differing"})
        out.append(stem)
    return out
