"""Aggregate a sweep: the distribution of every headline number over seeds, beside the paper's value.

For each factor combination and each headline number of the paper's comparison table:
``n`` (seeds with a finite value), ``median``, ``p5`` and ``p95`` (the 5-95 % interval, linear
interpolation between order statistics, :func:`numpy.percentile`), ``min``/``max``, and
``agree_fraction``: the share of seeds whose own value passes the table's agreement rule
(:func:`paperlib.comparison.agreement`; a verdict of :data:`paperlib.comparison.AGREEING`). Yes/no
findings are counted as 1/0, so their median is the majority answer and ``mean`` the share
of "yes".

Outputs (``summary.csv``, ``summary.md``, ``summary.json``) and two figures: intervals (median
and 5-95 % bar, the paper's value beside) and violins (every seed's value).

Command line (the ``sweep_aggregate`` rule)::

    python -m paperlib.sweeps.aggregate config/sweeps/PAPER.yaml [--results-dir results] [--figures-dir figures]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from paperlib.comparison import AGREEING
from paperlib.experiments.kit.jsonio import dumps as _kit_dumps

__all__ = ["GOOD_VERDICTS", "dumps", "distribution", "summarise_runs", "load_runs", "to_csv", "to_markdown",
           "interval_figure", "violin_figure", "figure_title", "main"]

#: Verdicts of the comparison rules that count as agreeing with the paper.
GOOD_VERDICTS = tuple(sorted(AGREEING - {"beyond the paper"}))


#: JSON text, keys sorted, numpy values as Python numbers (floats round-trip exactly), NaN as null:
#: the rooms' one encoder (:func:`paperlib.experiments.kit.jsonio.dumps`).
dumps = _kit_dumps


def _number(v: Any) -> float:
    if v is None:
        return float("nan")
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def distribution(values: Sequence[Any]) -> dict[str, Any]:
    """Median, 5-95 % interval, range, mean and count of the finite values (bools as 1/0).

    Returns
    -------
    dict
        ``n`` (finite values), ``n_missing``, ``median``, ``p5``, ``p95``, ``min``, ``max``,
        ``mean`` (NaN when ``n`` is 0).
    """
    x = np.array([_number(v) for v in values], dtype=float)
    ok = x[np.isfinite(x)]
    if ok.size == 0:
        nan = float("nan")
        return {"n": 0, "n_missing": int(x.size), "median": nan, "p5": nan, "p95": nan, "min": nan, "max": nan,
                "mean": nan}
    p5, med, p95 = np.percentile(ok, [5.0, 50.0, 95.0])
    return {"n": int(ok.size), "n_missing": int(x.size - ok.size), "median": float(med), "p5": float(p5),
            "p95": float(p95), "min": float(ok.min()), "max": float(ok.max()), "mean": float(ok.mean())}


def load_runs(files: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The job results (JSON); a missing or broken file is named in the error."""
    out = []
    for f in files:
        p = Path(f)
        try:
            out.append(json.loads(p.read_text()))
        except FileNotFoundError:
            raise FileNotFoundError(f"sweep result {p} is missing (run the sweep first)") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"sweep result {p} is not valid JSON: {exc}") from None
    return out


def summarise_runs(runs: Sequence[Mapping[str, Any]], headlines: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per (factor combination, headline): the distribution over seeds and the paper's value.

    Parameters
    ----------
    runs : sequence of result dicts
        Each with ``factors``, ``seed`` and ``values`` (headline key -> value).
    headlines : sequence of Headline
        The paper's comparison rows (key, quantity, joint, paper, kind, unit).

    Returns
    -------
    list of dict
        ``combo``, ``factors``, ``key``, ``quantity``, ``joint``, ``paper`` (text), ``paper_value``,
        ``unit``, ``kind``, the :func:`distribution` fields, ``agree_fraction``, ``median_agreement``
        (the rule applied to the median), ``values`` (per seed, seed order), ``seeds``.
    """
    from paperlib.comparison import _paper_text, agreement
    from paperlib.sweeps.config import combo_id

    by_combo: dict[str, list[Mapping[str, Any]]] = {}
    for r in runs:
        by_combo.setdefault(combo_id(r.get("factors") or {}), []).append(r)
    rows = []
    for combo in sorted(by_combo):
        rs = sorted(by_combo[combo], key=lambda r: int(r["seed"]))
        for h in headlines:
            if not any(h.key in r.get("values", {}) for r in rs):
                continue
            vals = [r.get("values", {}).get(h.key) for r in rs]
            d = distribution(vals)
            verdicts = [agreement(h.kind, h.paper, v)[1] for v in vals if v is not None]
            good = sum(v in GOOD_VERDICTS for v in verdicts)
            med: Any = d["median"]
            if isinstance(h.paper, bool):
                med_value: Any = None if not math.isfinite(med) else bool(med >= 0.5)
            elif h.kind == "choice" and math.isfinite(med):
                med_value = med if med != round(med) else int(round(med))
            else:
                med_value = med if math.isfinite(med) else None
            rows.append({
                "combo": combo, "factors": dict(rs[0].get("factors") or {}), "key": h.key, "quantity": h.quantity,
                "joint": h.joint, "paper": _paper_text(h), "paper_value": h.paper, "unit": h.unit, "kind": h.kind,
                **d, "agree_fraction": good / len(verdicts) if verdicts else float("nan"),
                "median_agreement": agreement(h.kind, h.paper, med_value)[1],
                "values": [None if v is None else (bool(v) if isinstance(v, bool) else float(v)) for v in vals],
                "seeds": [int(r["seed"]) for r in rs],
            })
    return rows


CSV_COLUMNS = ("combo", "key", "quantity", "joint", "paper", "unit", "n", "n_missing", "median", "p5", "p95",
               "min", "max", "mean", "agree_fraction", "median_agreement", "kind")


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """CSV text (full precision)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: (repr(r[k]) if isinstance(r[k], float) else r[k]) for k in CSV_COLUMNS})
    return buf.getvalue()


def _g(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return "nan" if not math.isfinite(x) else f"{x:.3g}"
    return str(x)


def _is_yes_no(r: Mapping[str, Any]) -> bool:
    return isinstance(r["paper_value"], bool)


def to_markdown(rows: Sequence[Mapping[str, Any]], title: str, lines_before: Sequence[str] = ()) -> str:
    """Markdown: per combination, each headline's median [5 %, 95 %] beside the paper's value."""
    out = [f"# {title}", ""] + list(lines_before) + [""]
    for combo in sorted({r["combo"] for r in rows}):
        rs = [r for r in rows if r["combo"] == combo]
        if combo != "base":
            out += [f"## Factors: {combo.replace('__', ', ')}", ""]
        out += ["| quantity | joint | paper | median | 5-95 % interval | seeds | seeds agreeing | median's agreement |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rs:
            if _is_yes_no(r):
                med = f"yes in {100 * r['mean']:.0f} %" if math.isfinite(r["mean"]) else ""
                interval = ""
            else:
                unit = "" if r["unit"] in ("1", "model") else f" {r['unit']}"
                med = f"{_g(r['median'])}{unit}"
                interval = f"[{_g(r['p5'])}, {_g(r['p95'])}]"
            agree = f"{100 * r['agree_fraction']:.0f} %" if math.isfinite(r["agree_fraction"]) else ""
            miss = f" ({r['n_missing']} without a value)" if r["n_missing"] else ""
            out.append(f"| {r['quantity']} | {r['joint']} | {r['paper']} | {med} | {interval} | {r['n']}{miss} | "
                       f"{agree} | {r['median_agreement']} |")
        out.append("")
    return "\n".join(out) + "\n"


# -- figures -------------------------------------------------------------------------------------
# Drawn in the compendium's style (paperlib.figures.style): the runs' values in the "measured" role
# (further factor combinations in the style's cycle), the paper's value in the "paper" role (hollow,
# so a median under it stays visible), one title, panel letters, one legend below the panels.

def _groups(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Panels: rows of one unit together (yes/no findings left out: they are shares, in the table)."""
    units: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        if _is_yes_no(r) or r["n"] == 0:
            continue
        units.setdefault(r["unit"], []).append(r)
    names = {"1": "improvement factor [times lower]", "%": "share of the RMS torque command [%]",
             "s": "convergence time [s]", "model": "Table 4 model at the knee"}
    return [(names.get(u, u), rs) for u, rs in units.items()]


#: Width [characters] at which a headline's tick label wraps onto a second line.
LABEL_WIDTH = 44


def _label(r: Mapping[str, Any], axis_name: str = "") -> str:
    """Tick label of a headline: the comparison table's quantity and joint, wrapped to two lines at most.

    A parenthesis of the quantity that the panel's axis label already says (``axis_name``, e.g.
    "(times lower)") is left out.
    """
    import re
    import textwrap

    text = str(r.get("quantity") or r["key"].replace("_", " "))
    for par in re.findall(r"\s*\(([^()]*)\)", text):
        if par and par in axis_name:
            text = text.replace(f" ({par})", "").replace(f"({par})", "")
    joint = str(r.get("joint") or "-")
    if joint not in ("-", ""):
        text += f", joint {joint}"
    lines = textwrap.wrap(text, LABEL_WIDTH, break_on_hyphens=False)
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), LABEL_WIDTH, placeholder=" ...")]
    return "\n".join(lines)


def _combo_colour(ci: int) -> str:
    """Colour of factor combination ``ci``: the "measured" role for the first, the style's cycle after it."""
    from paperlib.figures import style

    return style.role("measured")["color"] if ci == 0 else style.CYCLE[(ci - 1) % len(style.CYCLE)]


_BOUND_MARKERS = {"upper_bound": "<", "lower_bound": ">"}
_PAPER_LABELS = {"D": "paper's value", "<": "paper's upper bound (<)", ">": "paper's lower bound (>)"}


def _paper_marker(ax: Any, y: float, r: Mapping[str, Any]) -> None:
    """The paper's value of row ``r`` at height ``y``: a hollow diamond, or a triangle for a bound."""
    from paperlib.figures import style

    p = r["paper_value"]
    if isinstance(p, bool) or p is None:
        return
    marker = _BOUND_MARKERS.get(r["kind"], "D")
    ax.plot([float(p)], [y], marker=marker, color=style.role("paper")["color"], linestyle="none", markersize=7,
            markerfacecolor="none", markeredgewidth=1.6, label=_PAPER_LABELS[marker], zorder=5)


def _x_axis(ax: Any, rs: Sequence[Mapping[str, Any]], name: str, fields: Sequence[str] | None = None) -> None:
    """x label, limits from every drawn value and the paper's, integer ticks for whole-number data.

    ``fields``: the row fields drawn (e.g. ``("p5", "median", "p95")``); None: every seed's value.
    """
    from matplotlib.ticker import MaxNLocator

    from paperlib.figures import style

    seeds = [np.asarray([v for v in r["values"] if v is not None], dtype=float) for r in rs]
    vals = seeds if fields is None else [np.asarray([r[f] for f in fields], dtype=float) for r in rs]
    paper = [float(r["paper_value"]) for r in rs if r["paper_value"] is not None and not isinstance(r["paper_value"], bool)]
    lim = style.limits(*vals, include=paper, margin=0.06)
    # whole numbers in every seed (a model's number): whole ticks, even where a median falls between two
    whole = all(np.all(np.mod(v[np.isfinite(v)], 1.0) == 0.0) for v in seeds) and all(p == round(p) for p in paper)
    if whole:  # a choice among numbered models: no fractional ticks, at least one step each side
        lim = (min(lim[0], math.floor(min([float(np.nanmin(np.concatenate(vals))), *paper])) - 0.5),
               max(lim[1], math.ceil(max([float(np.nanmax(np.concatenate(vals))), *paper])) + 0.5))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(*lim)
    ax.set_xlabel(name)
    ax.grid(axis="x", alpha=0.3)
    ax.grid(axis="y", visible=False)


def _letters_and_legend(fig: Any, axes: Sequence[Any], extra: Sequence[tuple[Any, str]] = ()) -> None:
    """Panel letters above each panel at the figure's left edge (clear of the long tick labels), and one
    legend for the figure below its panels (every label once, in order of appearance)."""
    from matplotlib.transforms import blended_transform_factory

    from paperlib.figures import style

    if len(axes) > 1:
        for k, ax in enumerate(axes):
            ax.text(0.005, 1.03, chr(ord("A") + k), transform=blended_transform_factory(fig.transFigure, ax.transAxes),
                    fontsize=style.layout_opts()["sublabel_size"], fontweight="bold", ha="left", va="bottom")
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    for h, lab in extra:
        seen.setdefault(lab, h)
    fig.tight_layout()
    style.figure_legend_below(fig, list(seen.values()), list(seen), ncol=min(len(seen), 4))


def _figure(groups: Sequence[tuple[str, list]], row_height: float) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    heights = [max(1.4, row_height * len({r["key"] for r in rs}) + 0.8) for _, rs in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8.0, sum(heights) + 0.6), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    return fig, axes[:, 0]


def interval_figure(rows: Sequence[Mapping[str, Any]], title: str) -> Any:
    """Median (dot) and 5-95 % interval (bar) of each headline number, the paper's value beside.

    One panel per unit (letters A, B, ...), one horizontal bar per headline and factor combination;
    ``title`` is the figure's one title. Returns the matplotlib Figure.
    """
    groups = _groups(rows)
    combos = sorted({r["combo"] for r in rows})
    fig, axes = _figure(groups, 0.42)
    for ax, (name, rs) in zip(axes, groups):
        keys = list(dict.fromkeys(r["key"] for r in rs))
        for ci, combo in enumerate(combos):
            off = (ci - (len(combos) - 1) / 2) * 0.22
            colour = _combo_colour(ci)
            for k_i, key in enumerate(keys):
                r = next((x for x in rs if x["key"] == key and x["combo"] == combo), None)
                if r is None:
                    continue
                y = k_i + off
                ax.plot([r["p5"], r["p95"]], [y, y], color=colour, linewidth=2.5, solid_capstyle="butt",
                        label=f"5-95 % interval over {r['n']} seeds" + ("" if combo == "base" else f", {combo}"))
                ax.plot([r["median"]], [y], "o", color=colour, markerfacecolor="white", markeredgewidth=1.4,
                        markersize=5.5, label="median" if ci == 0 else None, zorder=4)
                if ci == 0:
                    _paper_marker(ax, k_i, r)
        ax.set_yticks(range(len(keys)), [_label(next(x for x in rs if x["key"] == k), name) for k in keys],
                      fontsize=8)
        ax.set_ylim(len(keys) - 0.5, -0.5)
        _x_axis(ax, rs, name, ("p5", "median", "p95"))
    fig.suptitle(title)
    _letters_and_legend(fig, axes)
    return fig


def violin_figure(rows: Sequence[Mapping[str, Any]], title: str) -> Any:
    """Every seed's value of each headline number (violins; first factor combination), the paper's beside.

    One panel per unit (letters A, B, ...); ``title`` is the figure's one title (the combination is
    added when it is not ``base``). Returns the matplotlib Figure.
    """
    from matplotlib.lines import Line2D

    from paperlib.figures import style

    combo = sorted({r["combo"] for r in rows})[0]
    groups = [(n, [r for r in rs if r["combo"] == combo]) for n, rs in _groups(rows)]
    fig, axes = _figure(groups, 0.48)
    seed_colour, body_colour = style.role("measured")["color"], style.role("raw")["color"]
    for ax, (name, rs) in zip(axes, groups):
        data = [np.array([v for v in r["values"] if v is not None and math.isfinite(v)], dtype=float) for r in rs]
        pos = list(range(len(rs)))
        keep = [i for i, d in enumerate(data) if d.size and np.ptp(d) > 0]
        if keep:
            parts = ax.violinplot([data[i] for i in keep], positions=[pos[i] for i in keep], orientation="horizontal",
                                  showmedians=True, showextrema=False, widths=0.8)
            for body in parts["bodies"]:
                body.set_facecolor(body_colour)
                body.set_edgecolor("none")
                body.set_alpha(0.7)
            parts["cmedians"].set_color(seed_colour)
            parts["cmedians"].set_linewidth(2.4)
            parts["cmedians"].set_zorder(4)  # over the seeds' ticks, which crowd around it
        for i, d in enumerate(data):  # every seed as a tick (a violin of one value would draw nothing)
            if d.size:
                ax.plot(d, np.full(d.size, i) + 0.0, "|", color=seed_colour, alpha=0.3, markersize=5,
                        label="one seed" if i == 0 else None)
        for i, r in enumerate(rs):
            _paper_marker(ax, i, r)
        ax.set_yticks(pos, [_label(r, name) for r in rs], fontsize=8)
        ax.set_ylim(len(rs) - 0.5, -0.5)
        _x_axis(ax, rs, name)
    fig.suptitle(title + ("" if combo == "base" else f" ({combo})"))
    extra = [(Line2D([], [], color=seed_colour, linewidth=2.4), "median over seeds (violin: their density)")]
    _letters_and_legend(fig, axes, extra)
    return fig


def figure_title(sw: Any, source: str, shows: str) -> str:
    """A sweep figure's title: what it shows (the sweep file's description), over how many seeds, from what data.

    Parameters
    ----------
    sw : Sweep
        The sweep (:func:`paperlib.sweeps.config.load_sweep`).
    source : str
        Where the runs' data came from (``twin``, ``hardware``; several joined by ``+``).
    shows : str
        What the figure draws of each headline number ("median and 5-95 % interval").
    """
    what = sw.description or f"seed-to-seed spread of paper '{sw.paper}''s headline numbers"
    n_combos = len(sw.combos)
    runs = f"{len(sw.seeds)} seeds" + (f" x {n_combos} factor combinations" if n_combos > 1 else "")
    data = {"twin": "digital twin", "hardware": "robot"}.get(source, source)
    return (f"{what[0].upper()}{what[1:]}\n"
            f"{shows}; sweep '{sw.name}' ({sw.path.name}): {runs}, data: {data}")


# -- command line --------------------------------------------------------------------------------

def _headlines(paper: str) -> list[Any]:
    import importlib

    from paperlib.sweeps import RUNNERS

    mod = importlib.import_module(RUNNERS[paper])
    return list(mod.headlines())


def aggregate(sweep_file: str | Path, results_dir: str = "results", figures_dir: str = "figures",
              formats: Sequence[str] = ("png", "svg")) -> dict[str, Any]:
    """Read a sweep's results and write its table and figures; returns the summary dict."""
    from paperlib import provenance
    from paperlib.figures.io import save
    from paperlib.sweeps.config import load_sweep

    sw = load_sweep(sweep_file)
    files = sw.run_files(results_dir)
    runs = load_runs(files)
    rows = summarise_runs(runs, _headlines(sw.paper))
    sources = sorted({str(r.get("source", "?")) for r in runs})
    n_seeds = len(sw.seeds)
    src = "+".join(sources)
    title = (f"Sweep '{sw.name}' of paper '{sw.paper}': {n_seeds} seeds x {len(sw.combos)} factor combination(s), "
             f"source {src}")
    intro = [f"Source of every run: `{src}` (digital twin: simulated, with its own assumed friction and drives).",
             f"Seeds: {sw.seeds[0]}..{sw.seeds[-1]} ({n_seeds}); sweep file `{sw.path}`; runner settings "
             f"`{json.dumps(sw.settings, sort_keys=True)}`.",
             "Median and 5-95 % interval over seeds (numpy.percentile, linear); 'seeds agreeing': the share of seeds "
             "whose own value passes the comparison table's rule; yes/no findings: the share of seeds answering yes."]
    summary = {"sweep": sw.name, "paper": sw.paper, "sweep_file": str(sw.path), "seeds": sw.seeds,
               "combos": sw.combos, "settings": sw.settings, "source": src, "n_runs": len(runs),
               "git_commit": provenance.git_commit(), "rows": rows}
    out = sw.summary_files(results_dir)
    Path(out["csv"]).parent.mkdir(parents=True, exist_ok=True)
    Path(out["csv"]).write_text(to_csv(rows))
    Path(out["md"]).write_text(to_markdown(rows, title, intro))
    Path(out["json"]).write_text(dumps(summary) + "\n")
    prov = {"sweep": sw.name, "sweep_file": str(sw.path), "source": src, "n_runs": len(runs),
            "results": out["json"], "git_commit": summary["git_commit"]}
    stems = sw.figure_stems(figures_dir)
    save(interval_figure(rows, figure_title(sw, src, "median and 5-95 % interval")), stems[0], formats,
         provenance={**prov, "figure": "intervals"})
    save(violin_figure(rows, figure_title(sw, src, "every seed's value")), stems[1], formats,
         provenance={**prov, "figure": "violins"})
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.sweeps.aggregate",
                                 description="table and figures of a sweep's headline-number distributions")
    ap.add_argument("sweep", help="sweep file (YAML)")
    ap.add_argument("--results-dir", default="results", help="results root (default results)")
    ap.add_argument("--figures-dir", default="figures", help="figures root (default figures)")
    a = ap.parse_args(argv)
    s = aggregate(a.sweep, a.results_dir, a.figures_dir)
    print(f"sweep {s['sweep']}: {s['n_runs']} runs, {len(s['rows'])} rows -> "
          f"{a.results_dir}/{s['paper']}/sweeps/{s['sweep']}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
