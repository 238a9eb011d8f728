"""Holoviews builders for the flagship paper's Figs. 4-15 (matplotlib backend for files).

Every builder takes the experiment results (xarray / numpy, SI units) and returns a holoviews
object; unit conversions for display (deg, mrad) happen here only, in names ending in the unit
(``_deg``, ``_mrad``). Nothing is computed here that a number in the results depends on.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.experiments.mems import tracking as tr
from paperlib.figures import style

__all__ = [
    "condition_map_joint", "condition_map_task", "model_order", "friction_velocity", "friction_time",
    "error_bars", "setpoint_panel", "error_panel", "fig10_panels", "torque_shares", "friction_temperature",
    "parameter_history", "PAPER_CONVERGENCE_S",
]

# Series that play no colour role of the compendium's style (paperlib.figures.style) take its
# Okabe-Ito cycle, never a role's colour: blue is a fitted model, green the twin's truth,
# vermillion (dashed) a value from the paper, dark grey what was measured.
_C = style.CYCLE  # orange, sky blue, reddish purple, yellow, black, grey
MODEL_COLORS = {1: _C[4], 2: _C[1], 3: style.ROLES["model"]["color"], 4: _C[0], 5: _C[2]}
CONTROLLER_COLORS = {"PD": _C[0], "CTC": _C[1], "AC": _C[2], "OPEN": _C[5]}
JOINT_STYLES = {1: "solid", 2: "dashed"}
STATE_COLORS = {"cold": _C[1], "warm": _C[0]}
PART_COLORS = {"dynamic_ff": _C[1], "friction_ff": _C[0], "feedback": _C[2]}
PART_LABELS = {"dynamic_ff": "dynamic feed-forward", "friction_ff": "friction feed-forward", "feedback": "feedback"}
SIZE = (5.5, 4.0)


def _hv():
    from paperlib.figures.io import configure

    configure()
    import holoviews as hv

    return hv


def _colorbar_hook(label: str):
    """A holoviews hook adding a matplotlib colorbar beside the axes, as tall as the axes.

    holoviews' own colorbar is misplaced when the axes keep a fixed aspect; an axes divider
    keeps the bar beside the (aspect-shrunk) axes. The map itself gets no grid.
    """
    def hook(plot: Any, element: Any) -> None:
        from mpl_toolkits.axes_grid1 import make_axes_locatable

        ax = plot.handles["axis"]
        ax.grid(False)
        artist = plot.handles.get("artist")
        if artist is not None:
            cax = make_axes_locatable(ax).append_axes("right", size="3%", pad=0.08)
            cb = ax.figure.colorbar(artist, cax=cax)
            cb.set_label(label)
            cax.grid(False)
    return hook


def _no_grid_hook(plot: Any, element: Any) -> None:
    """A holoviews hook removing the style's grid from a map and its colorbars (lines across a colour scale mislead)."""
    for ax in plot.handles["fig"].axes:
        ax.grid(False)


def _closed(v: np.ndarray) -> np.ndarray:
    return np.vstack([v, v[:1]])


# -- Fig. 4 --------------------------------------------------------------------------------------

def condition_map_joint(grid: xr.DataArray, polygon_vertices: np.ndarray, traj: xr.Dataset, title: str = "") -> Any:
    """Fig. 4a: condition index (reds) over the joint space, the polygon (black), trajectories coloured by speed (blues)."""
    hv = _hv()
    q1_deg = np.degrees(grid["q1"].values)
    q2_deg = np.degrees(grid["q2"].values)
    img = hv.Image((q1_deg, q2_deg, grid.values.T), kdims=["q1_deg", "q2_deg"],
                   vdims=[hv.Dimension("sigma", label="condition index sigma [1]")]).opts(
        cmap="Reds", colorbar=True, clim=(0.0, 1.0), alpha=0.85)
    poly = hv.Path([_closed(np.degrees(polygon_vertices))], kdims=["q1_deg", "q2_deg"]).opts(color="black", linewidth=2)
    q = np.degrees(traj["q"].values)
    pts = hv.Points((q[:, 0], q[:, 1], traj["speed"].values), kdims=["q1_deg", "q2_deg"],
                    vdims=[hv.Dimension("speed_rad_s", label="joint speed |qd| [rad/s]")]).opts(
        color="speed_rad_s", cmap="Blues", s=4, colorbar=True, clim=(0.0, float(traj["speed"].max())))
    return (img * poly * pts).opts(
        xlabel="q1 [deg]", ylabel="q2 [deg]", title=title or "Fig. 4a: condition index and trajectories (joint space)",
        fig_inches=(7.5, 5.5), data_aspect=1, hooks=[_no_grid_hook])


def condition_map_task(ts: Mapping[str, Any], title: str = "") -> Any:
    """Fig. 4b: the same in the task space (end point p), trajectories coloured by end-point speed [m/s]."""
    hv = _hv()
    g = ts["grid_p"]
    bg = hv.Points((g[:, 0], g[:, 1], ts["grid_sigma"]), kdims=["px_m", "py_m"], vdims=["sigma"]).opts(
        color="sigma", cmap="Reds", s=2, alpha=0.6, colorbar=False, clim=(0.0, 1.0))
    poly = hv.Path([ts["poly_p"]], kdims=["px_m", "py_m"]).opts(color="black", linewidth=2)
    p = ts["p"]
    pts = hv.Points((p[:, 0], p[:, 1], ts["p_speed"]), kdims=["px_m", "py_m"], vdims=["speed_m_s"]).opts(
        color="speed_m_s", cmap="Blues", s=4, colorbar=False, clim=(0.0, float(np.max(ts["p_speed"]))),
        hooks=[_colorbar_hook("end-point speed [m/s]")])
    allp = np.vstack([g, ts["poly_p"], p])
    span = allp.max(axis=0) - allp.min(axis=0)
    return (bg * poly * pts).opts(xlabel="p_x [m]", ylabel="p_y [m]",
                                  title=title or "Fig. 4b: task space (reds: condition index as in 4a)",
                                  fig_inches=(7.5, 4.4), aspect=float(span[0] / span[1]))


# -- Fig. 5 --------------------------------------------------------------------------------------

def model_order(study: xr.Dataset, chosen: int | None = None, title: str = "", zoom_after_fraction: float = 0.1) -> Any:
    """Fig. 5: running RMS residual rho_rms(t) of each Table-4 model.

    The vertical range is that of the curves after ``zoom_after_fraction`` of the run (the
    first seconds, from ``pi = (1, 0)``, run off the plot), so the gaps between models show.
    """
    hv = _hv()
    curves = []
    t = study["t"].values
    for m in study["model"].values:
        m = int(m)
        rho = study["rho_rms"].sel(model=m).values
        ok = (t > 0) & (rho > 0)
        lbl = (f"model ({m}), {int(study['n_params'].sel(model=m))} par." + (" <- chosen by the rule" if chosen == m else "")
               + (" (the paper's choice)" if m == 3 else ""))
        curves.append(hv.Curve((t[ok], rho[ok]), "t_s", "rho_rms_Nm", label=lbl).opts(
            color=MODEL_COLORS.get(m, _C[5]), linewidth=2.6 if chosen == m else 1.4))
    late = study["rho_rms"].values[:, t >= zoom_after_fraction * t[-1]]
    lo, hi = float(np.nanmin(late)), float(np.nanmax(late))
    pad = 0.15 * (hi - lo) if hi > lo else 0.1 * abs(hi) + 1e-12
    return hv.Overlay(curves).opts(xlabel="t [s]", ylabel="rho_rms [N m]", hooks=[style.legend_below_hook(2)],
                                   title=title or "Fig. 5: RMS estimation residual by friction model",
                                   fig_inches=(7.0, 4.6), aspect=2.0, ylim=(lo - pad, hi + pad),
                                   xlim=(0.0, float(t[-1])))


# -- Figs. 6-7 -----------------------------------------------------------------------------------

def friction_velocity(comp: xr.Dataset, joint: int, truth_curve: tuple[np.ndarray, np.ndarray] | None = None,
                      max_points: int = 20000, title: str = "") -> Any:
    """Fig. 6: friction Lagrangian component vs joint rate: measured (eq. 51, blue), model (red), twin truth (black)."""
    hv = _hv()
    c = comp.sel(joint=joint)
    n = c.sizes["time"]
    step = max(1, n // max_points)
    qd = c["qd"].values[::step]
    q_meas, q_model = c["Q_F_meas"].values[::step], c["Q_F_model"].values[::step]
    meas = hv.Scatter((qd, q_meas), "qd_rad_s", "Q_F_Nm", label="measured: drive torque and IMU (eq. 51)").opts(
        color=style.ROLES["raw"]["color"], s=3, alpha=0.5)
    model = hv.Scatter((qd, q_model), "qd_rad_s", "Q_F_Nm", label="model (3), estimate at t (eq. 11)").opts(
        color=style.ROLES["model"]["color"], s=5, alpha=0.6)
    layers = [meas]
    if truth_curve is not None and len(truth_curve[0]):
        layers.append(hv.Curve(truth_curve, "qd_rad_s", "Q_F_Nm", label="the twin's true friction (binned mean)").opts(
            **style.role("truth")))
    layers.append(model)
    # friction opposes the motion: the data fill the upper-left and lower-right quadrants, and the
    # labels are too long for the empty corners: the legend goes below
    return hv.Overlay(layers).opts(xlabel=f"qd{joint} [rad/s]", ylabel=f"Q_F,{joint} [N m]", hooks=[style.legend_below_hook(1)],
                                   title=title or f"Fig. 6{'ab'[joint - 1]}: friction vs velocity, joint {joint}",
                                   fig_inches=(6.0, 4.5), aspect=1.4, xlim=style.limits(qd, margin=0.03),
                                   ylim=style.limits(np.percentile(q_meas, [0.5, 99.5]), q_model, margin=0.05))


def friction_time(comp: xr.Dataset, joint: int, window: tuple[float, float], title: str = "") -> Any:
    """Fig. 7: motor torque Lagrangian component Q_m (measured) and its prediction over a window."""
    hv = _hv()
    c = comp.sel(joint=joint).sel(time=slice(*window))
    t = c["time"].values
    meas = hv.Curve((t, c["Q_m"].values), "t_s", "Q_m_Nm", label="measured: Q_m from the drive torque (eq. 7)").opts(
        **style.role("measured", linewidth=2.4))
    pred = hv.Curve((t, c["Q_m_pred"].values), "t_s", "Q_m_Nm", label="prediction: dynamics + friction model").opts(
        **style.role("model", linewidth=1.0))
    dyn = hv.Curve((t, -c["Q_I"].values), "t_s", "Q_m_Nm", label="frictionless dynamics only").opts(
        color=_C[0], linewidth=0.8)
    return (dyn * meas * pred).opts(xlabel="t [s]", ylabel=f"Q_m,{joint} [N m]", hooks=[style.legend_below_hook(3)],
                                    title=title or f"Fig. 7{'ab'[joint - 1]}: motor torque components, joint {joint}",
                                    fig_inches=(9.0, 3.8), aspect=3.2, xlim=(float(t[0]), float(t[-1])),
                                    ylim=style.limits(c["Q_m"].values, c["Q_m_pred"].values, -c["Q_I"].values,
                                                      margin=0.04))


# -- Figs. 8-11 ----------------------------------------------------------------------------------

def error_bars(metrics: xr.Dataset, kind: str, title: str = "") -> Any:
    """Figs. 8 (peak) and 9 (RMS): joint position errors per controller and joint [mrad]."""
    hv = _hv()
    rows = []
    for j in metrics["joint"].values:
        for ctrl in metrics["controller"].values:
            rows.append((f"joint {int(j)}", str(ctrl), 1e3 * float(metrics[kind].sel(controller=ctrl, joint=j))))
    order = [c for c in ("PD", "CTC", "AC", "OPEN") if c in metrics["controller"].values]
    bars = hv.Bars(rows, kdims=["joint", hv.Dimension("controller", values=order)], vdims=[f"{kind}_error_mrad"])
    fig = "8" if kind == "peak" else "9"
    top = max(r[2] for r in rows)
    name = {"rms": "RMS"}.get(kind, kind)
    return bars.opts(color=hv.dim("controller").categorize(CONTROLLER_COLORS), ylabel=f"{name} error [mrad]",
                     xlabel="", title=title or f"Fig. {fig}: {name} joint position errors", fig_inches=(5.5, 4.0),
                     aspect=1.4, show_legend=False, ylim=(0.0, top * 1.08))


def setpoint_panel(ds: xr.Dataset, var: str, window: tuple[float, float], title: str = "") -> Any:
    """Fig. 10a-c: set-point acceleration / velocity / position of both joints over a window."""
    hv = _hv()
    c = ds.sel(time=slice(*window))
    t = c["time"].values
    label = {"qdd_sp": ("qdd_sp [rad/s^2]", "a"), "qd_sp": ("qd_sp [rad/s]", "b"), "q_sp": ("q_sp [deg]", "c")}[var]
    curves = []
    for j in c["joint"].values:
        y = c[var].sel(joint=j).values
        if var == "q_sp":
            y = np.degrees(y)
        curves.append(hv.Curve((t, y), "t_s", var + ("_deg" if var == "q_sp" else ""), label=f"joint {int(j)}").opts(
            **style.role("measured", linestyle=JOINT_STYLES.get(int(j), "solid"), linewidth=1.2,
                         color=style.ROLES["measured"]["color"] if int(j) == 1 else _C[5])))
    ys = [c_.dimension_values(1) for c_ in curves]
    return hv.Overlay(curves).opts(xlabel="t [s]", ylabel=label[0], **style.LEGEND_INSIDE, legend_cols=2,
                                   title=title or f"Fig. 10{label[1]}: set-points", fig_inches=(9.0, 3.0), aspect=3.5,
                                   xlim=(float(t[0]), float(t[-1])), ylim=style.headroom(style.limits(*ys, margin=0.08)))


def error_panel(ds: xr.Dataset, controller: str, window: tuple[float, float], letter: str, title: str = "") -> Any:
    """Fig. 10d-f: joint errors q_sp - q [mrad] of one controller over a window."""
    hv = _hv()
    c = ds.sel(time=slice(*window))
    t = c["time"].values
    curves = []
    for j in c["joint"].values:
        e = 1e3 * (c["q_sp"].sel(joint=j).values - c["q"].sel(joint=j).values)
        curves.append(hv.Curve((t, e), "t_s", "error_mrad", label=f"joint {int(j)}").opts(
            color=CONTROLLER_COLORS.get(controller, _C[5]), linestyle=JOINT_STYLES.get(int(j), "solid"), linewidth=1.1))
    ys = [c_.dimension_values(1) for c_ in curves]
    return hv.Overlay(curves).opts(xlabel="t [s]", ylabel="q_sp - q [mrad]", **style.LEGEND_INSIDE, legend_cols=2,
                                   title=title or f"Fig. 10{letter}: joint errors, {controller}", fig_inches=(9.0, 3.0),
                                   aspect=3.5, xlim=(float(t[0]), float(t[-1])),
                                   ylim=style.headroom(style.limits(*ys, include=[0.0], margin=0.08)))


def fig10_panels(recs: Mapping[str, xr.Dataset], window: tuple[float, float]) -> dict[str, Any]:
    """Fig. 10's six panels over ``window`` [s]: set-points of the AC run (a-c), errors of PD, CTC, AC (d-f).

    Returns
    -------
    dict
        File stem -> holoviews object (``fig10a_setpoint_acceleration`` ... ``fig10f_errors_ac``).
    """
    return {"fig10a_setpoint_acceleration": setpoint_panel(recs["AC"], "qdd_sp", window),
            "fig10b_setpoint_velocity": setpoint_panel(recs["AC"], "qd_sp", window),
            "fig10c_setpoint_position": setpoint_panel(recs["AC"], "q_sp", window),
            "fig10d_errors_pd": error_panel(recs["PD"], "PD", window, "d"),
            "fig10e_errors_ctc": error_panel(recs["CTC"], "CTC", window, "e"),
            "fig10f_errors_ac": error_panel(recs["AC"], "AC", window, "f")}


#: The paper's Fig. 11 shares [%] per motor: dynamic feed-forward, friction feed-forward, feedback
#: (:data:`paperlib.experiments.mems.tracking.PAPER_FIG11_SHARES`).
PAPER_SHARES = {m + 1: tuple(tr.PAPER_FIG11_SHARES[p][m] for p in ("dynamic_ff", "friction_ff", "feedback"))
                for m in range(2)}


def torque_shares(shares: xr.DataArray, title: str = "", paper: Mapping[int, Sequence[float]] | None = None) -> Any:
    """Fig. 11: share of each torque part (RMS) per motor under AC [%], stacked bars, the paper's shares under them."""
    hv = _hv()
    paper = PAPER_SHARES if paper is None else paper
    rows = []
    for j in shares["joint"].values:
        for p in shares["part"].values:
            rows.append((f"motor {int(j)}", PART_LABELS.get(str(p), str(p)), float(shares.sel(part=p, joint=j))))
    order = [PART_LABELS[k] for k in PART_COLORS]
    bars = hv.Bars(rows, kdims=["motor", hv.Dimension("part", values=order)], vdims=["share_percent"])
    colors = {PART_LABELS[k]: v for k, v in PART_COLORS.items()}
    said = "; ".join("motor {}: {:.0f} / {:.0f} / < {:.0f} %".format(int(j), *paper[int(j)])
                     for j in shares["joint"].values if int(j) in paper)
    return bars.opts(stacked=True, color=hv.dim("part").categorize(colors), ylabel="share of RMS torque [%]",
                     xlabel="", ylim=(0, 100), title=title or "Fig. 11: torque shares under AC (RMS)",
                     fig_inches=(5.5, 5.0), aspect=1.0, show_legend=True,
                     hooks=[_paper_split_hook(paper, said)])


def _paper_split_hook(paper: Mapping[int, Sequence[float]], said: str):
    """A holoviews hook drawing the paper's split of each motor's torque (Fig. 11) over its stacked bar.

    The boundaries dynamic | friction and friction | feedback the paper gives (``paper``: motor ->
    shares [%]) are drawn as the compendium's "paper" role (dashed vermillion) across each bar;
    the legend goes below the axes and names the paper's numbers (``said``).
    """
    def hook(plot: Any, element: Any) -> None:
        from matplotlib import patheffects
        from matplotlib.lines import Line2D

        ax = plot.handles["axis"]
        drawn = False
        for x, lab in zip(ax.get_xticks(), ax.get_xticklabels()):
            words = lab.get_text().split()
            if not words or not words[-1].isdigit() or int(words[-1]) not in paper:
                continue
            dyn, fric = paper[int(words[-1])][:2]
            paper_line = style.role("paper", linewidth=1.8)
            # edged in white: the vermillion dashes stay readable on the orange friction bar
            ax.hlines([dyn, dyn + fric], x - 0.4, x + 0.4, colors=paper_line["color"],
                      linestyles=paper_line["linestyle"], linewidth=paper_line["linewidth"], zorder=5,
                      path_effects=[patheffects.withStroke(linewidth=paper_line["linewidth"] + 2.2, foreground="white")])
            drawn = True
        leg = ax.get_legend()
        handles = list(leg.legend_handles) if leg is not None else []
        labels = [t.get_text() for t in leg.get_texts()] if leg is not None else []
        if drawn:
            handles.append(Line2D([], [], **style.role("paper", linewidth=1.8)))
            labels.append(f"the paper's split ({said})" if said else "the paper's split")
        if leg is not None:
            leg.remove()
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=1,
                  **style.LEGEND_BELOW["legend_opts"])
    return hook


# -- Figs. 12-15 ---------------------------------------------------------------------------------

def friction_temperature(comps: Mapping[str, xr.Dataset], curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
                         joint: int, temperatures: Mapping[str, float], max_points: int = 15000, title: str = "") -> Any:
    """Fig. 12: friction vs velocity at room temperature and after the warm-up: points (eq. 51) and model curves.

    Each state has its colour (:data:`STATE_COLORS`): light points for the eq.-51 friction, a
    thick line of the same colour (edged in black, so it reads as the fit) for the final model.
    """
    hv = _hv()
    layers, xs, ys = [], [], []
    for state, comp in comps.items():
        c = comp.sel(joint=joint)
        step = max(1, c.sizes["time"] // max_points)
        T = temperatures.get(state, float("nan"))
        lbl = f"{state} ({T:.0f} C)" if np.isfinite(T) else state
        x, y = c["qd"].values[::step], c["Q_F_meas"].values[::step]
        xs.append(x)
        ys.append(np.percentile(y, [0.5, 99.5]))
        layers.append(hv.Scatter((x, y), "qd_rad_s", "Q_F_Nm", label=f"eq. 51, {lbl}").opts(
            color=STATE_COLORS.get(state, _C[5]), s=2, alpha=0.3))
    for state, (v, f) in curves.items():
        layers.append(hv.Curve((v, f), "qd_rad_s", "Q_F_Nm").opts(color="black", linewidth=3.4))
        layers.append(hv.Curve((v, f), "qd_rad_s", "Q_F_Nm", label=f"model (3), {state}").opts(
            color=STATE_COLORS.get(state, _C[5]), linewidth=2.0))
        ys.append(f)
    return hv.Overlay(layers).opts(xlabel=f"qd{joint} [rad/s]", ylabel=f"Q_F,{joint} [N m]",
                                   **{**style.LEGEND_INSIDE, "legend_position": "bottom_left",
                                      # the points are 2-pt dots: drawn 4 times larger in the legend, so they show
                                      "legend_opts": {**style.LEGEND_INSIDE["legend_opts"], "markerscale": 4.0}},
                                   title=title or f"Fig. 12{'ab'[joint - 1]}: friction at two temperatures, joint {joint}",
                                   fig_inches=(6.0, 4.5), aspect=1.4, xlim=style.limits(*xs, margin=0.03),
                                   ylim=style.limits(*ys, margin=0.05))


#: The paper's convergence times [s] (Sec. 3.3, Figs. 13-15): drive gains "in less than 5 s",
#: friction orders 0-1 "after around 15 s" (read off the figures, no rule stated).
PAPER_CONVERGENCE_S = {"pi_pds": 5.0, "pi_F_low": 15.0}


def parameter_history(histories: Mapping[str, xr.Dataset], params: Sequence[str], ylabel: str, title: str,
                      conv_times: Mapping[str, float] | None = None, zoom_after_s: float = 1.0,
                      truth: Mapping[str, float] | None = None, paper_time_s: float | None = None,
                      crowded_fraction: float = 0.05) -> Any:
    """Figs. 13-15: estimate histories of selected parameters, cold (blue) and warm (red), joint 1 solid, 2 dashed.

    The vertical range is that of the estimates after ``zoom_after_s`` seconds (the first
    samples from ``pi = (1, 0)`` swing widely); the transient runs off the top/bottom. The cold
    run is drawn wider, under the warm one, so neither hides the other; ``truth`` (parameter ->
    the twin's true value) is drawn in the "truth" role (green), the convergence times as
    labelled dotted lines, and ``paper_time_s`` (the paper's convergence time [s], if it gives one
    and the run lasts that long) in the "paper" role (dashed vermillion). The legend goes below
    the axes.

    When every marked time (convergence times, the paper's) lies in the first ``crowded_fraction``
    of the run, a full-length time axis would squeeze them onto the y axis (the drive gains of a
    150-s run converge in under a second): the axis then ends at twice the latest marked time,
    and the title says which part of the run it shows.
    """
    hv = _hv()
    layers = []
    t_end = max(float(h["t"].values[-1] - h["t"].values[0]) for h in histories.values())
    marks = [float(tc) for tc in (conv_times or {}).values() if tc is not None and np.isfinite(tc)]
    if paper_time_s is not None and np.isfinite(paper_time_s) and paper_time_s <= t_end:
        marks.append(float(paper_time_s))
    t_show = t_end
    if marks and 0.0 < max(marks) < crowded_fraction * t_end:
        t_show = 2.0 * max(marks)
        title = f"{title} (first {t_show:g} s of the {t_end:.0f}-s run)" if title else title
    lo, hi = np.inf, -np.inf
    for h in histories.values():
        t = h["t"].values - h["t"].values[0]
        late = (t >= min(zoom_after_s, 0.2 * t_show)) & (t <= t_show)
        for name in params:
            if name in h["param"].values:
                x = h["theta"].sel(param=name).values[late]
                lo, hi = min(lo, float(np.min(x))), max(hi, float(np.max(x)))
    for state, h in histories.items():
        t = h["t"].values - h["t"].values[0]
        for name in params:
            if name not in h["param"].values:
                continue
            j = int(name.split(",")[1])
            wide = state == "cold"
            layers.append(hv.Curve((t, h["theta"].sel(param=name).values), "t_s", "estimate", label=f"{name} ({state})").opts(
                color=STATE_COLORS.get(state, _C[5]), linestyle=JOINT_STYLES.get(j, "solid"),
                linewidth=2.6 if wide else 1.1, alpha=0.55 if wide else 1.0))
    for name, value in (truth or {}).items():
        if name in params and np.isfinite(value):
            lo, hi = min(lo, value), max(hi, value)
            layers.append(hv.Curve(([0.0, t_end], [value, value]), "t_s", "estimate", label=f"{name}: twin's truth").opts(
                **style.role("truth", linewidth=1.0, linestyle=JOINT_STYLES.get(int(name.split(",")[1]), "solid"))))
    pad = 0.1 * (hi - lo) if np.isfinite(hi - lo) and hi > lo else 1.0
    if conv_times:
        for state, tc in conv_times.items():
            if tc is not None and np.isfinite(tc):
                layers.append(hv.Curve(([tc, tc], [lo - pad, hi + pad]), "t_s", "estimate",
                                       label=f"converged ({state}): {tc:.2f} s").opts(
                    color=STATE_COLORS.get(state, _C[5]), linestyle="dotted", linewidth=1.4))
    if paper_time_s is not None and np.isfinite(paper_time_s) and paper_time_s <= t_end:  # not past the run's end
        layers.append(hv.Curve(([paper_time_s, paper_time_s], [lo - pad, hi + pad]), "t_s", "estimate",
                               label=f"the paper's convergence time ({paper_time_s:g} s)").opts(**style.role("paper")))
    n_items = sum(1 for layer in layers if layer.label)
    return hv.Overlay(layers).opts(xlabel="t [s]", ylabel=ylabel, hooks=[style.legend_below_hook(min(4, n_items))],
                                   title=title, fig_inches=(9.0, 4.2), aspect=3.0, ylim=(lo - pad, hi + pad),
                                   xlim=(0.0, t_show))
