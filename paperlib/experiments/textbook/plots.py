"""The course's static figures in the compendium's style (:mod:`paperlib.figures.style`).

One function per lesson figure (lesson 07's is :func:`paperlib.experiments.textbook.friction_models.curves_figure`);
the notebooks compute, these draw. Colour roles: what the identified model gives is ``model`` (blue), the twin's
truth ``truth`` (green), a limit or a zero ``reference`` (grey, dotted); series that play no role take the style's
cycle. Legends sit inside or below the axes, a layout has one title and its panels carry letters.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["torque_shares_figure", "error_curve_figure", "qr_gap_figure", "cutoff_figure", "what_if_figure",
           "recursive_figure"]


def _hv():
    import holoviews as hv

    return hv


def _line(opts: dict) -> dict:
    """A role's line options as holoviews Curve options."""
    return {k: v for k, v in opts.items() if k in ("color", "linestyle", "linewidth", "alpha")}


def _plain_log_ticks(axis: str, ticks: Sequence[float]):
    """A hook: on a log ``axis`` ("x" or "y"), label ``ticks`` plainly (2, 3, 5, ...) and no minor tick."""
    def hook(plot, element):
        from matplotlib.ticker import FixedLocator, FixedFormatter, NullFormatter, NullLocator

        ax = plot.handles["axis"]
        a = ax.xaxis if axis == "x" else ax.yaxis
        a.set_major_locator(FixedLocator(list(ticks)))
        a.set_major_formatter(FixedFormatter([f"{t:g}" for t in ticks]))
        a.set_minor_locator(NullLocator())
        a.set_minor_formatter(NullFormatter())
    return hook


def torque_shares_figure(t: np.ndarray, shares: dict[str, np.ndarray], total: np.ndarray, title: str = ""):
    """Lesson 01: a joint's torque along a motion split into its parameters' shares.

    The total (the robot model's torque) takes the ``model`` role; the shares the style's cycle. The legend
    sits below the axes in one row.
    """
    hv = _hv()
    from paperlib.figures import style

    kt, ky = "time [s]", ("tau", "torque share in joint 1 [N m]")
    # the cycle without its yellow (too faint for a thin line on white); past its end, the colours again dashed
    palette = [c for c in style.CYCLE if c != "#f0e442"]
    parts = [hv.Curve((t, s), kt, ky, label=n).opts(color=palette[k % len(palette)], linewidth=1.3,
                                                     linestyle="-" if k < len(palette) else "--")
             for k, (n, s) in enumerate(shares.items())]
    parts.append(hv.Curve((t, total), kt, ky, label="total (model)").opts(**_line(style.role("model", linewidth=2.0))))
    ylim = style.limits(total, *shares.values())
    return hv.Overlay(parts).opts(title=title, fig_inches=(8.5, 3.8), aspect="auto", ylim=ylim,
                                  xlim=(float(t[0]), float(t[-1])), show_grid=True,
                                  hooks=[style.legend_below_hook(len(parts))], **style.LEGEND_BELOW)


def error_curve_figure(x: Sequence[float], err: Sequence[float], xdim: tuple[str, str], ydim: tuple[str, str],
                       title: str = ""):
    """Lessons 02 and 04: one error curve (the identified model against the twin's truth) on log-log axes.

    The curve and its points take the ``model`` role; the axis limits come from the data (log margins).
    """
    hv = _hv()
    from paperlib.figures import style

    x, err = np.asarray(x, float), np.asarray(err, float)
    c = style.ROLES["model"]["color"]
    xl = tuple(10 ** v for v in style.limits(np.log10(x), margin=0.04))
    yl = tuple(10 ** v for v in style.limits(np.log10(err)))
    return (hv.Curve((x, err), xdim, ydim).opts(**_line(style.role("model")))
            * hv.Scatter((x, err), xdim, ydim).opts(color=c, s=25)).opts(
        hv.opts.Curve(logx=True, logy=True), hv.opts.Scatter(logx=True, logy=True)).opts(
        title=title, fig_inches=(7.0, 3.6), aspect="auto", xlim=xl, ylim=yl, show_grid=True, show_legend=False)


def qr_gap_figure(d: np.ndarray, tol: float, title: str = ""):
    """Lesson 03: the pivoted QR diagonal |R_ii|/|R_00| (``model`` role) and the tolerance (``reference``, dotted)."""
    hv = _hv()
    from paperlib.figures import style

    d = np.where(d > 0, d, 1e-18)
    i = np.arange(1, len(d) + 1)
    kx, ky = ("i", "pivoted column i"), ("R", "|R_ii| / |R_00|")
    ref = style.role("reference", linewidth=1.4)
    curve = hv.Curve((i, d), kx, ky, label="|R_ii| / |R_00| (model)").opts(**_line(style.role("model")))
    pts = hv.Scatter((i, d), kx, ky).opts(color=style.ROLES["model"]["color"], s=20)
    tol_line = hv.Curve(([0.5, len(d) + 0.5], [tol, tol]), kx, ky, label=f"tolerance {tol:g}").opts(**_line(ref))
    return (curve * pts * tol_line).opts(hv.opts.Curve(logy=True), hv.opts.Scatter(logy=True)).opts(
        title=title, fig_inches=(7.0, 3.6), aspect="auto", xlim=(0.5, len(d) + 0.5), show_grid=True,
        **{**style.LEGEND_INSIDE, "legend_position": "top_right"})


def cutoff_figure(cutoffs: Sequence[float], errors: dict[str, Sequence[float]], title: str = ""):
    """Lesson 05: largest relative error vs filter cut-off, one line per reconstruction (the style's cycle).

    The log x axis is labelled at the cut-offs themselves (2, 3, 5, 10, ... Hz), without minor ticks.
    """
    hv = _hv()
    from paperlib.figures import style

    kx, ky = ("fc", "filter cut-off [Hz]"), ("e", "largest relative error")
    dashes = ("--", "-")
    markers = ("s", "o")
    parts = []
    for k, (label, e) in enumerate(errors.items()):
        col = style.CYCLE[k % len(style.CYCLE)]
        parts += [hv.Curve((cutoffs, e), kx, ky, label=label).opts(color=col, linestyle=dashes[k % 2], linewidth=1.6),
                  hv.Scatter((cutoffs, e), kx, ky, label=label).opts(color=col, marker=markers[k % 2], s=28)]
    allv = np.log10(np.concatenate([np.asarray(e, float) for e in errors.values()]))
    yl = tuple(10 ** v for v in style.headroom(style.limits(allv), 0.15))
    xl = tuple(10 ** v for v in style.limits(np.log10(cutoffs), margin=0.04))
    return hv.Overlay(parts).opts(hv.opts.Curve(logx=True, logy=True), hv.opts.Scatter(logx=True, logy=True)).opts(
        title=title, fig_inches=(8.0, 3.8), aspect="auto", xlim=xl, ylim=yl, show_grid=True,
        hooks=[_plain_log_ticks("x", cutoffs)], **{**style.LEGEND_INSIDE, "legend_position": "top_right"})


def what_if_figure(names: Sequence[str], rel: np.ndarray, val_seq: np.ndarray, val_glob: np.ndarray, title: str = ""):
    """Lesson 06: (A) relative error of each sequential estimate, (B) validation torque RMS per joint.

    The sequential procedure takes the cycle's first colour in both panels, global the second; panel B's
    legend sits inside; one title, panel letters from :func:`paperlib.figures.style.layout_opts`.
    """
    hv = _hv()
    from paperlib.figures import style

    ok = np.isfinite(rel)
    seq_c, glob_c = style.CYCLE[0], style.CYCLE[1]
    bars = hv.Bars([(n, float(v)) for n, v, k in zip(names, rel, ok) if k], "base parameter",
                   ("rel", "relative error of the sequential estimate"))
    ylim_a = style.limits(rel[ok], include=[0.0])
    a = bars.opts(color=seq_c, edgecolor="none", xrotation=60, ylim=ylim_a, fig_inches=(5.0, 3.8), aspect="auto",
                  show_grid=True)
    js = np.arange(1, len(val_seq) + 1)
    kx, ky = ("joint", "joint"), ("rms", "validation torque RMS error [N m]")
    parts = []
    for v, lab, col, mk in ((val_seq, "sequential", seq_c, "s"), (val_glob, "global", glob_c, "o")):
        parts += [hv.Curve((js, v), kx, ky, label=lab).opts(color=col, linewidth=1.6),
                  hv.Scatter((js, v), kx, ky, label=lab).opts(color=col, marker=mk, s=36)]
    allv = np.log10(np.concatenate([val_seq, val_glob]))
    yl = tuple(10 ** v for v in style.headroom(style.limits(allv, margin=0.15), 0.3))  # room for the legend
    b = hv.Overlay(parts).opts(hv.opts.Curve(logy=True), hv.opts.Scatter(logy=True)).opts(
        xticks=[(int(j), str(int(j))) for j in js], xlim=(0.8, len(js) + 0.2), ylim=yl, fig_inches=(5.0, 3.8),
        aspect="auto", show_grid=True, **style.LEGEND_INSIDE)
    return hv.Layout([a, b]).opts(**style.layout_opts(fig_inches=(10.5, 4.2)), fontsize={"title": 11},
                                  title=title).cols(2)


def recursive_figure(t_est: np.ndarray, est: np.ndarray, t_truth: Sequence[float], truth: Sequence[float],
                     t_span: tuple[float, float], batch: float, startup_s: float, title: str = ""):
    """Lesson 08: the recursive estimate (``model``), the twin's truth (``truth``) and batch LS (cycle, dashed).

    The y range comes from the data after ``startup_s`` seconds of the record (the estimator's start-up
    transient, from a zero prior, would squash the rest; it runs off the top and bottom of the axes).
    """
    hv = _hv()
    from paperlib.figures import style

    kx, ky = "time [s]", ("ZZ2", "ZZ2 [kg m^2]")
    late = t_est >= t_span[0] + startup_s
    ylim = style.headroom(style.limits(est[late], truth, [batch]), 0.3)
    parts = [hv.Curve((t_truth, truth), kx, ky, label="twin truth").opts(**_line(style.role("truth", linewidth=2.4))),
             hv.Curve((t_est, est), kx, ky, label="recursive estimate").opts(**_line(style.role("model"))),
             hv.Curve((list(t_span), [batch, batch]), kx, ky, label="batch LS, whole record").opts(
                 color=style.CYCLE[0], linestyle="--", linewidth=1.6)]
    return hv.Overlay(parts).opts(title=title, fig_inches=(9.0, 3.8), aspect="auto", xlim=t_span, ylim=ylim,
                                  show_grid=True, **{**style.LEGEND_INSIDE, "legend_position": "top_right",
                                                     "legend_cols": 3})
