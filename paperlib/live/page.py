"""The live page: Panel with holoviews (bokeh) figures of a run, redrawn from its live mirror.

One page per browser session (:func:`make_page`). A periodic callback, every ``interval_s``,
copies the rows the writer appended since the last one (:class:`~paperlib.live.state.LiveState`)
and sends the figures' new data through holoviews ``Pipe`` streams (the plots keep their
figures, only their data change). The figures follow the compendium's figure style
(:mod:`paperlib.figures.style`: the fitted model blue, what was measured dark grey, other
series the Okabe-Ito cycle) and units of the flagship's notebooks (errors in mrad, friction in
N m against rad/s):

* friction torque against velocity of each actuated joint at the estimate now (blue) and at
  earlier times of the run (lighter), the curves converging;
* the drive-gain estimates ``pi_pds,j`` against time (and the twin's true gains, green);
* the tracking errors ``q_sp - q`` [mrad] against time;
* the loop's deadline statistics (cycles, misses, lateness percentiles) and a histogram of
  the start lateness (log bins from 0.1 us; a lateness below that counts in the first bin).

The status line names the samples recorded so far (``N samples``) and says ``Running.`` until
the writer finishes; the browser test reads it, and the plots' data, from the page's Bokeh document.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.figures import style
from paperlib.live.state import LiveState
from paperlib.recordings import LiveReader

__all__ = ["make_page", "JOINT_DASH", "PAGE_TITLE"]

PAGE_TITLE = "paperlib: live run"
#: Line dash per joint (as the flagship's figures: joint 1 solid, joint 2 dashed).
JOINT_DASH = {1: "solid", 2: "dashed", 3: "dotted"}
_WIDTH, _HEIGHT = 560, 300


def _joint_color(j: int) -> str:
    return style.CYCLE[(j - 1) % len(style.CYCLE)]


def _ylim(ys: list[Any], margin: float = 0.05) -> tuple[float, float]:
    """The compendium's axis limits from the data drawn (:func:`paperlib.figures.style.limits`); (-1, 1) without data."""
    try:
        return style.limits(*ys, margin=margin)
    except ValueError:
        return (-1.0, 1.0)


def _friction_overlay(data: dict[str, Any]) -> Any:
    import holoviews as hv

    layers = []
    for k, (j, v, tau, now) in enumerate(data["curves"]):  # stable labels: the plot keeps its glyphs
        layers.append(hv.Curve((v, tau), "v_rad_s", "tau_F_Nm", label=f"joint {j}, estimate {k}").opts(
            color=style.ROLES["model"]["color"] if now else style.ROLES["raw"]["color"],
            line_dash=JOINT_DASH.get(j, "solid"), line_width=2.2 if now else 1.0))
    if not layers:
        layers.append(hv.Curve(([], []), "v_rad_s", "tau_F_Nm"))
    ys = [tau for _, _, tau, _ in data["curves"]]
    xs = [v for _, v, _, _ in data["curves"]]
    return hv.Overlay(layers).opts(
        title=data.get("title", "friction: estimate now (blue) and earlier (grey)"), xlabel="v [rad/s]",
        ylabel="tau_F [N m]", xlim=_ylim(xs, margin=0.0), ylim=_ylim(ys), width=_WIDTH, height=_HEIGHT, show_legend=False, framewise=True,
        shared_axes=False)


def _time_overlay(data: dict[str, Any], vdim: str, ylabel: str, title: str) -> Any:
    """Curves against time (``series``: label, joint, t [s], y), coloured and dashed by joint, and constant
    reference values (``truth``: label, joint, value) as the twin's truth (green)."""
    import holoviews as hv

    layers = []
    series = data.get("series", [])
    t_end = max((float(t[-1]) for _, _, t, _ in series if len(t)), default=0.0)
    for name, j, t, y in series:
        layers.append(hv.Curve((t, y), "t_s", vdim, label=name).opts(
            color=_joint_color(j), line_dash=JOINT_DASH.get(j, "solid"), line_width=1.4))
    for name, j, value in data.get("truth", []) if series else []:
        layers.append(hv.Curve(([0.0, t_end], [value, value]), "t_s", vdim, label=name).opts(
            color=style.ROLES["truth"]["color"], line_dash=JOINT_DASH.get(j, "solid"), line_width=1.0))
    if not layers:
        layers.append(hv.Curve(([], []), "t_s", vdim))
    ys = [y for _, _, _, y in series] + [[v] for _, _, v in data.get("truth", [])]
    xs = [t for _, _, t, _ in series]
    return hv.Overlay(layers).opts(title=title, xlabel="t [s]", ylabel=ylabel, xlim=_ylim(xs, margin=0.0),
                                   ylim=style.headroom(_ylim(ys)),
                                   width=_WIDTH, height=_HEIGHT, legend_position="top_left", framewise=True,
                                   shared_axes=False)


def _lateness_hist(data: dict[str, Any]) -> Any:
    import holoviews as hv

    edges, counts = data["edges"], data["counts"]
    return hv.Histogram((edges, counts), kdims=["lateness_us"], vdims=["cycles"]).opts(
        title="start lateness of the control cycles", xlabel="lateness [us]", ylabel="cycles", logx=True, logy=True,
        ylim=(0.3, None), color=style.ROLES["measured"]["color"], width=_WIDTH, height=_HEIGHT, framewise=True)


def _deadline_text(d: dict[str, Any]) -> str:
    if not d["cycles"]:
        return "**deadlines**: no cycle yet"
    return (f"**deadlines** ({d['period_us']:g} us period): {d['cycles']} cycles, {d['deadline_misses']} started "
            f"more than one period late in {d['stalls']} stalls; lateness median {d['lateness_median_us']:.1f} us, "
            f"p99 {d['lateness_p99_us']:.1f} us, p99.9 {d['lateness_p999_us']:.1f} us, "
            f"max {d['lateness_max_us']:.1f} us")


def _status_text(state: LiveState, updates: int) -> str:
    if not state.reader.ready():
        return "waiting for the run to start (the controller step compiles first)"
    fs = state.sample_rate_hz
    t = state.total / fs if fs > 0 else float("nan")
    attrs = state.reader.attrs
    head = (f"robot {attrs.get('robot', '?')}, controller {attrs.get('controller', '?')}, source "
            f"{attrs.get('source', '?')}: {state.total} samples ({t:.2f} s at {fs:g} Hz), {state.time.size} "
            f"plotted, update {updates}")
    if state.finished:
        st = state.reader.status() or {}
        end = f"; stopped by a fault: {st['fault']}" if st.get("fault") else ""
        return f"{head}. The run has ended{end}; recording: {st.get('recording')}"
    return head + ". Running."


def _histogram(lat_us: np.ndarray, n_bins: int = 40) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = 0.1, max(10.0, float(lat_us.max()) * 1.01 if lat_us.size else 10.0)
    edges = np.logspace(np.log10(lo), np.log10(hi), n_bins + 1)
    counts, _ = np.histogram(np.clip(lat_us, lo, None), bins=edges)
    return edges, counts.astype(float)


def make_page(folder: str, *, interval_s: float = 1.0, stride: int = 40, n_estimates: int = 5) -> Any:
    """The page of one browser session on the run whose live mirror is ``folder``.

    Parameters
    ----------
    folder : str
        The run's :class:`~paperlib.recordings.LiveMirror` folder.
    interval_s : float
        Time between two redraws [s].
    stride : int
        Plot every ``stride``-th sample.
    n_estimates : int
        Friction curves per joint (now and earlier).

    Returns
    -------
    panel.Column
        The page (a periodic callback is attached to it when it is served).
    """
    import holoviews as hv
    import panel as pn

    hv.extension("bokeh", logo=False)
    state = LiveState(LiveReader(folder), stride=stride)

    def figure_data() -> dict[str, Any]:
        """What each figure shows now (the same layers, with the same labels, at every redraw)."""
        t = state.time
        curves = state.friction_curves(n_estimates=n_estimates)
        t_now = max((c.t_s for c in curves), default=None)
        edges, counts = _histogram(state.lateness_s() * 1e6)
        return {
            "friction": {"curves": [(c.joint, c.v_rad_s, c.tau_Nm, c.t_s == t_now) for c in curves],
                         "title": (f"friction estimate at t = {t_now:.1f} s (blue) and earlier (grey)"
                                   if curves else "friction: no estimate logged")},
            "gains": {"series": [(name, int(name.split(",")[-1]), t, y) for name, y in state.drive_gains().items()],
                      "truth": [(f"{name}: twin's truth", int(name.split(",")[-1]), v)
                                for name, v in state.true_drive_gains().items()]},
            "errors": {"series": [(f"joint {j}", j, t, 1e3 * e) for j, e in state.tracking_errors().items()]},
            "lateness": {"edges": edges, "counts": np.maximum(counts, 0.5)},  # log axis: empty bins at 0.5
        }

    builders = {
        "friction": _friction_overlay,
        "gains": lambda data: _time_overlay(data, "pi_pds", "estimate [1]",
                                            "drive-gain estimates pi_pds,j (green: truth)"),
        "errors": lambda data: _time_overlay(data, "error_mrad", "q_sp - q [mrad]", "tracking errors"),
        "lateness": _lateness_hist,
    }
    # framewise: each redraw rescales the axes to the data it sends
    framewise = (hv.opts.Curve(framewise=True), hv.opts.Overlay(framewise=True), hv.opts.Histogram(framewise=True))
    pipes: dict[str, Any] = {}
    figures = pn.Column(pn.pane.Markdown("The figures appear with the run's first samples."))
    status = pn.pane.Markdown(_status_text(state, 0), css_classes=["live-status"], sizing_mode="stretch_width")
    deadlines = pn.pane.Markdown(_deadline_text(state.deadlines()), css_classes=["live-deadlines"],
                                 sizing_mode="stretch_width")
    updates = [0]

    def build(data: dict[str, Any]) -> None:
        """Make the figures once the run's first samples are there, so their layers never change in number."""
        panes = []
        for key, make in builders.items():
            pipes[key] = hv.streams.Pipe(data=data[key])
            panes.append(pn.pane.HoloViews(hv.DynamicMap(make, streams=[pipes[key]]).opts(*framewise)))
        figures.objects = [pn.Row(panes[0], panes[1]), pn.Row(panes[2], panes[3])]

    def redraw() -> None:
        new = state.update()
        updates[0] += 1
        status.object = _status_text(state, updates[0])
        if not new:
            return
        data = figure_data()
        if not pipes:
            build(data)
        else:
            for key, pipe in pipes.items():
                pipe.send(data[key])
        deadlines.object = _deadline_text(state.deadlines())

    page = pn.Column(
        pn.pane.Markdown(f"## {PAGE_TITLE}\nRead from the recording writer's live mirror `{folder}`, redrawn every "
                         f"{interval_s:g} s (every {stride}th sample plotted)."),
        status, deadlines, figures,
    )
    redraw()
    pn.state.add_periodic_callback(redraw, period=int(interval_s * 1000))
    return page
