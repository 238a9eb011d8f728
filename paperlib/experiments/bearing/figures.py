"""Holoviews builders for paper 004's Figs. 3 and 5, the angle periodogram and the pass/fail study.

Every builder takes arrays (SI units; angles are converted to degrees only on the axis) and returns a
holoviews object drawn in the compendium's style (:mod:`paperlib.figures.style`): colour roles (the
paper's values vermillion and dashed, the twin's truth green, identified models blue, measured data
dark grey), legends inside or below the axes, one title per figure, axis limits from the data. The
source of the data (twin / hardware) goes into the title. Nothing a result depends on is computed here.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from paperlib.figures import style

__all__ = ["PAPER", "SERIES", "fig3_time", "fig3_angle", "fig3_components", "fig3_residual", "fig5_time",
           "fig5_velocity", "periodogram", "classifier_histograms"]

#: Numbers paper 004 gives about its figures: Fig. 3a-b, the sensed wave sits about -0.3 N m from zero; Fig. 3c,
#: the components; Fig. 5a, RMS error 27 % -> 11 %; Fig. 5b, largest deviation of the sensor below the load cell
#: roughly -0.7 N m.
PAPER = {"wave_level_Nm": -0.3, "offset_Nm": -0.1189, "ripple_Nm": 0.2, "friction_Nm": (-0.3, 0.1),
         "rms_error_percent": (27.0, 11.0), "max_deviation_Nm": -0.7}

#: Colours of the room's series that play no role of :data:`paperlib.figures.style.ROLES` (Okabe-Ito cycle):
#: the robot's torque sensor before compensation, the two directions of rotation, the two bearing grades.
SERIES = {"sensor": style.CYCLE[0], "turning_pos": style.CYCLE[1], "turning_neg": style.CYCLE[0],
          "good": style.CYCLE[1], "worn": style.CYCLE[0]}

SIZE = (7.0, 3.6)
#: Width / height of the axes of a single-panel figure.
ASPECT = 2.1


def _inside(ncol: int, loc: str = "top_left", markerscale: float = 1.0) -> dict[str, Any]:
    """Legend inside the axes at ``loc`` in ``ncol`` columns (always given: holoviews keeps the last
    ``legend_cols`` of a position for the next plot otherwise); the builders leave room for it with
    :func:`_room`."""
    return dict(legend_position=loc, legend_cols=ncol,
                legend_opts=dict(style.LEGEND_INSIDE["legend_opts"], markerscale=markerscale))


def _room(lo_hi: tuple[float, float], top: float = 0.0, bottom: float = 0.0) -> tuple[float, float]:
    """Axis limits ``lo_hi`` widened by ``top`` / ``bottom`` times their span (room for a legend)."""
    lo, hi = lo_hi
    return lo - bottom * (hi - lo), hi + top * (hi - lo)


def _hv():
    from paperlib.figures.io import configure

    configure()
    import holoviews as hv

    return hv


def _line(role: str, **overrides: Any) -> dict[str, Any]:
    """holoviews Curve options of colour role ``role`` (matplotlib names: color, linestyle, linewidth)."""
    return style.role(role, **overrides)


def _level(hv, x0: float, x1: float, y: float, label: str, role: str = "paper") -> Any:
    """A horizontal line from x0 to x1 at y that appears in the legend (hv.HLine does not)."""
    return hv.Curve(([x0, x1], [y, y]), label=label).opts(**_line(role))


def _zero(hv) -> Any:
    return hv.HLine(0.0).opts(**_line("reference"))


def _decimate(n: int, target: int = 3000) -> slice:
    return slice(None, None, max(1, n // target))


def fig3_time(t: np.ndarray, tau_s: np.ndarray, tau_s_lp: np.ndarray, source: str, cutoff_hz: float) -> Any:
    """Fig. 3a: sensed torque under no load over time, raw and low-passed.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Time [s].
    tau_s, tau_s_lp : ndarray, shape (N,)
        Sensed torque, raw and low-passed [N m].
    source : str
        Where the data come from ("twin", "hardware"), for the title.
    cutoff_hz : float
        Cut-off of the low-pass [Hz], for the legend.
    """
    hv = _hv()
    d = _decimate(t.size)
    raw = hv.Curve((t[d], tau_s[d]), "time_s", "tau_Nm", label="torque sensor (raw)").opts(**_line("raw"))
    lp = hv.Curve((t, tau_s_lp), "time_s", "tau_Nm", label=f"low-passed at {cutoff_hz:g} Hz").opts(**_line("measured"))
    paper = _level(hv, float(t[0]), float(t[-1]), PAPER["wave_level_Nm"], "paper: wave about -0.3 N m from zero")
    return (raw * lp * _zero(hv) * paper).opts(
        xlabel="time [s]", ylabel="sensed torque [N m]", fig_inches=SIZE, aspect=ASPECT, **_inside(2),
        xlim=(float(t[0]), float(t[-1])),
        ylim=_room(style.limits(tau_s[d], include=(0.0, PAPER["wave_level_Nm"])), top=0.3),
        title=f"Fig. 3a: joint torque sensor under no load ({source} data)")


def fig3_angle(q: np.ndarray, tau_lp: np.ndarray, qd: np.ndarray, source: str) -> Any:
    """Fig. 3b: sensed torque (low-passed) over the joint angle, by direction of rotation.

    Parameters
    ----------
    q, qd : ndarray, shape (N,)
        Joint angle [rad] and velocity [rad/s] (the axis shows the angle in degrees).
    tau_lp : ndarray, shape (N,)
        Sensed torque, low-passed [N m].
    source : str
        Where the data come from, for the title.
    """
    hv = _hv()
    q_deg = np.degrees(q)
    out = []
    shown = []
    for mask, label, color in ((qd > 0.05, "turning + (counter-clockwise)", SERIES["turning_pos"]),
                               (qd < -0.05, "turning - (clockwise)", SERIES["turning_neg"])):
        d = _decimate(int(mask.sum()))
        y = tau_lp[mask][d]
        shown.append(y)
        out.append(hv.Scatter((q_deg[mask][d], y), "q_deg", "tau_Nm", label=label).opts(color=color, s=2))
    out.append(_level(hv, float(q_deg.min()), float(q_deg.max()), PAPER["wave_level_Nm"],
                      "paper: wave about -0.3 N m from zero"))
    lo, hi = _room(style.limits(*shown, include=(PAPER["wave_level_Nm"],)), top=0.3)
    return hv.Overlay(out).opts(
        xlabel="joint angle [deg]", ylabel="sensed torque, low-passed [N m]", fig_inches=SIZE, aspect=ASPECT,
        **_inside(2, markerscale=4.0), xlim=style.limits(q_deg, margin=0.01), ylim=(lo, hi),
        title=f"Fig. 3b: sensed torque over the joint angle ({source} data)")


#: Fig. 3c panels: component -> (panel title, axis label, the paper's values in N m).
_COMPONENTS = {
    "inertia": ("inertia torque (paper: about 0)", "tau_i [N m]", (0.0,)),
    "offset": ("torque offset (paper: -0.1189 N m)", "tau_o [N m]", (PAPER["offset_Nm"],)),
    "ripple": ("ripple torque (paper: +/-0.2 N m)", "tau_r [N m]", (PAPER["ripple_Nm"], -PAPER["ripple_Nm"])),
    "friction": ("friction torque (paper: -0.3 to +0.1 N m)", "tau_f [N m]", PAPER["friction_Nm"]),
}


def fig3_components(t: np.ndarray, comps: Mapping[str, np.ndarray], truth: Mapping[str, np.ndarray] | None,
                    source: str, q: np.ndarray | None = None) -> Any:
    """Fig. 3c: each identified intrinsic component in its own panel, over the twin's truth, with the paper's values.

    The paper draws the four components over time in one frame; there the ripple, which oscillates
    with the joint angle, becomes a band that hides the others. Here each has its panel, and the
    ripple is drawn over the joint angle (when ``q`` is given), where it is one curve.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Time [s].
    comps : mapping
        ``inertia``, ``offset``, ``ripple``, ``friction`` -> identified component, shape (N,) [N m].
    truth : mapping or None
        The same keys for the twin's true components [N m]; None for hardware data.
    source : str
        Where the data come from, for the title.
    q : ndarray, shape (N,), optional
        Joint angle [rad]; the ripple panel is drawn over it (in degrees), else over time.
    """
    hv = _hv()
    d = _decimate(t.size)
    panels = []
    for name, (title, ylabel, values) in _COMPONENTS.items():
        if name == "ripple" and q is not None:
            order = np.argsort(q)
            x, xd, xlabel, xlim = np.degrees(q)[order], "q_deg", "joint angle [deg]", None
            xlim = style.limits(x, margin=0.01)
            pick = lambda y, order=order: y[order]  # noqa: E731 -- every sample, sorted by angle
        else:
            x, xd, xlabel, xlim = t[d], "time_s", "time [s]", (float(t[0]), float(t[-1]))
            pick = lambda y: y[d]  # noqa: E731
        first = name == "offset"  # the panel whose flat lines leave room for the legend
        out = []
        if truth is not None:  # underneath, wide and light: where the two agree the blue line runs inside it
            out.append(hv.Curve((x, pick(truth[name])), xd, "tau_Nm", label="twin truth").opts(
                **_line("truth", linewidth=3.0), alpha=0.45))
        out.append(hv.Curve((x, pick(comps[name])), xd, "tau_Nm", label="identified").opts(**_line("model", linewidth=1.0)))
        for i, v in enumerate(values):
            out.append(_level(hv, xlim[0], xlim[1], float(v), "paper's value" if i == 0 else ""))
        shown = [comps[name]] + ([truth[name]] if truth is not None else [])
        lo, hi = style.limits(*shown, include=values)
        opts = dict(title=title, xlabel=xlabel, ylabel=ylabel, xlim=xlim, ylim=(lo, hi), fig_inches=(4.2, 2.6),
                    aspect=1.7, show_legend=first)
        if first:
            opts.update(ylim=(lo, hi + 0.6 * (hi - lo)), legend_position="top_right", legend_cols=3,
                        legend_opts={"framealpha": 0.85, "fontsize": 7})
        panels.append(hv.Overlay(out).opts(**opts))
    return hv.Layout(panels).opts(
        **style.layout_opts(sublabel_format="", fig_inches=(9.0, 6.0)), fontsize={"title": 11},
        title=f"Fig. 3c: intrinsic components ({source} data; identified in the standstill convention)").cols(2)


def fig3_residual(t: np.ndarray, tau_s: np.ndarray, pred: np.ndarray, source: str, fs: float, cutoff_hz: float,
                  lowpass) -> Any:
    """Fig. 3d: sensed torque and its residual after subtracting the identified intrinsic model.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Time [s].
    tau_s, pred : ndarray, shape (N,)
        Sensed torque and the intrinsic model's prediction [N m].
    source : str
        Where the data come from, for the title.
    fs, cutoff_hz : float
        Sample rate and the display low-pass's cut-off [Hz].
    lowpass : callable
        ``lowpass(x, fs, cutoff_hz)``, the display filter.
    """
    hv = _hv()
    a_y = lowpass(tau_s, fs, cutoff_hz)
    b_y = lowpass(tau_s - pred, fs, cutoff_hz)
    a = hv.Curve((t, a_y), "time_s", "tau_Nm", label="sensed (low-passed)").opts(**_line("measured"))
    b = hv.Curve((t, b_y), "time_s", "tau_Nm", label="sensed - intrinsic model (low-passed)").opts(
        **_line("model"))
    return (a * b * _zero(hv)).opts(
        xlabel="time [s]", ylabel="torque [N m]", fig_inches=SIZE, aspect=ASPECT, **_inside(2),
        xlim=(float(t[0]), float(t[-1])), ylim=_room(style.limits(a_y, b_y, include=(0.0,)), top=0.2),
        title=f"Fig. 3d: residual after compensation ({source} data)")


def fig5_time(t: np.ndarray, tau_s: np.ndarray, bearing: np.ndarray, tau_ref: np.ndarray, source: str,
              before: float, after: float) -> Any:
    """Fig. 5a: one trial: torque sensor, compensated bearing torque and the load cell over time.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Time [s].
    tau_s, bearing, tau_ref : ndarray, shape (N,)
        Sensed torque, sensed minus the intrinsic model (the bearing torque) and the load cell [N m].
    source : str
        Where the data come from, for the title.
    before, after : float
        RMS error against the load cell before and after compensation (fractions), for the legend.
    """
    hv = _hv()
    d = _decimate(t.size, 4000)
    a = hv.Curve((t[d], tau_s[d]), "time_s", "tau_Nm", label=f"joint torque sensor (RMS error {100 * before:.0f} %)").opts(
        color=SERIES["sensor"], linewidth=0.8)
    b = hv.Curve((t[d], bearing[d]), "time_s", "tau_Nm", label=f"compensated (RMS error {100 * after:.0f} %)").opts(
        **_line("model", linewidth=0.8))
    c = hv.Curve((t[d], tau_ref[d]), "time_s", "tau_Nm", label="load cell (reference)").opts(
        **_line("measured", linewidth=1.0))
    return (a * b * c).opts(
        xlabel="time [s]", ylabel="bearing torque [N m]", fig_inches=SIZE, aspect=ASPECT, **_inside(2),
        xlim=(float(t[0]), float(t[-1])), ylim=_room(style.limits(tau_s[d], bearing[d], tau_ref[d]), top=0.3),
        title=f"Fig. 5a: wheel-bearing torque, one trial ({source} data; paper: 27 % -> 11 %)")


def fig5_velocity(trials: Sequence[Mapping[str, np.ndarray]], source: str) -> Any:
    """Fig. 5b: torque over joint velocity for every trial (sensor, compensated, load cell), and each one's
    deviation from the load cell with the paper's largest deviation (about -0.7 N m).

    Parameters
    ----------
    trials : sequence of mapping
        One per trial: ``qd`` [rad/s], ``tau_s``, ``bearing``, ``tau_ref`` [N m], each shape (N,).
    source : str
        Where the data come from, for the title.
    """
    hv = _hv()
    styles = {"tau_s": (SERIES["sensor"], "torque sensor"), "bearing": (style.role("model")["color"], "compensated"),
              "tau_ref": (style.role("measured")["color"], "load cell")}
    n = len(trials)
    dec = [_decimate(tr["qd"].size, 1500) for tr in trials]
    qd = np.concatenate([tr["qd"][d] for tr, d in zip(trials, dec)])
    vmax = float(np.abs(qd).max())
    out, dev, ys, rs = [], [], [], []
    for key, (color, label) in styles.items():
        y = np.concatenate([tr[key][d] for tr, d in zip(trials, dec)])
        ys.append(y)
        out.append(hv.Scatter((qd, y), "qd_rad_s", "tau_Nm", label=label).opts(color=color, s=1.5))
        if key != "tau_ref":
            r = np.concatenate([(tr[key] - tr["tau_ref"])[d] for tr, d in zip(trials, dec)])
            rs.append(r)
            dev.append(hv.Scatter((qd, r), "qd_rad_s", "dev_Nm", label=f"{label} - load cell").opts(
                color=color, s=1.5))
    dev.append(_level(hv, -vmax, vmax, PAPER["max_deviation_Nm"], "paper: sensor's largest deviation, about -0.7 N m"))
    dev.append(_zero(hv))
    xlim = (-1.05 * vmax, 1.05 * vmax)
    torque = hv.Overlay(out).opts(xlabel="joint velocity [rad/s]", ylabel="bearing torque [N m]", aspect=1.3,
                                  **_inside(1, "top_left", markerscale=5.0), xlim=xlim,
                                  ylim=_room(style.limits(*ys), top=0.1))
    deviation = hv.Overlay(dev).opts(xlabel="joint velocity [rad/s]", ylabel="deviation from the load cell [N m]",
                                     aspect=1.3, **_inside(1, "top_left", markerscale=5.0), xlim=xlim,
                                     ylim=_room(style.limits(*rs, include=(PAPER["max_deviation_Nm"], 0.0)), top=0.35))
    return (torque + deviation).opts(
        **style.layout_opts(fig_inches=(11, 5)), fontsize={"title": 11},
        title=f"Fig. 5b: bearing torque over the joint velocity (A) and its deviation from the load cell (B), "
              f"{n} trials ({source} data)").cols(2)


def periodogram(orders: np.ndarray, amp: np.ndarray, found: Sequence[Mapping[str, Any]], truth_orders: Sequence[float] | None,
                source: str) -> Any:
    """Amplitude spectrum over the joint angle of the integer-order fit's residual, peaks found, twin truth.

    Parameters
    ----------
    orders, amp : ndarray, shape (K,)
        Order [cycles per joint revolution] and amplitude [N m] of the residual's spectrum.
    found : sequence of mapping
        Peaks found: ``order``, ``amplitude_Nm``, ``kept`` (lowered the blocked-CV error).
    truth_orders : sequence of float or None
        The twin's ripple orders (None or empty for hardware data).
    source : str
        Where the data come from, for the title.
    """
    hv = _hv()
    out = [hv.Curve((orders, amp), "order", "amp_Nm", label="residual spectrum").opts(**_line("measured", linewidth=0.8))]
    model_color = style.role("model")["color"]
    for kept, label, marker, face in ((True, "peak kept (lowers the blocked-CV error)", "o", model_color),
                                      (False, "peak rejected by blocked CV", "^", "none")):
        sel = [f for f in found if bool(f.get("kept")) == kept]
        if sel:
            out.append(hv.Scatter(([f["order"] for f in sel], [f["amplitude_Nm"] for f in sel]), "order", "amp_Nm",
                                  label=label).opts(color=face, edgecolor=model_color, s=40, marker=marker))
    floor = float(np.percentile(amp[amp > 0], 5)) if np.any(amp > 0) else 1e-6
    top = 60.0 * float(amp.max())  # room for the legend above the spectrum (log axis)
    for i, k in enumerate(truth_orders or ()):
        line = hv.Curve(([k, k], [floor, top]), "order", "amp_Nm", label="twin's ripple orders (truth)" if i == 0 else "")
        out.append(line.opts(**_line("truth", linestyle="--", linewidth=0.9)))
    return hv.Overlay(out).opts(xlabel="order [cycles per joint revolution]", ylabel="amplitude [N m]", logy=True,
                                ylim=(floor, top), xlim=(-0.01 * float(orders.max()), float(orders.max())),
                                fig_inches=SIZE, aspect="auto", **_inside(1, "top_right"),
                                title=f"Ripple orders from the angle periodogram of the residual ({source} data)")


def classifier_histograms(pop: Mapping[str, Sequence[float]], thresholds: Mapping[str, float], source: str) -> Any:
    """Held-out population: histogram of each statistic by grade, with its threshold.

    Parameters
    ----------
    pop : mapping
        ``grade`` ("good" / "worn") and, per bearing, the torque RMS [N m] of ``reference`` (load cell),
        ``uncompensated`` and ``compensated`` (torque sensor).
    thresholds : mapping
        The same three keys -> pass/fail threshold tuned on the other population [N m].
    source : str
        Where the data come from, for the title.
    """
    hv = _hv()
    grade = np.asarray(pop["grade"])
    panels = []
    labels = {"reference": "load cell", "uncompensated": "torque sensor, uncompensated",
              "compensated": "torque sensor, compensated"}
    allv = np.concatenate([np.asarray(pop[k]) for k in labels])
    edges = np.linspace(allv.min() - 0.02, allv.max() + 0.02, 40)
    top = 0
    for k in labels:
        v = np.asarray(pop[k])
        top = max(top, *(int(np.histogram(v[grade == g], bins=edges)[0].max(initial=0)) for g in ("good", "worn")))
    for i, (k, what) in enumerate(labels.items()):
        v = np.asarray(pop[k])
        hs = []
        for g in ("good", "worn"):
            cnt, e = np.histogram(v[grade == g], bins=edges)
            hs.append(hv.Histogram((e, cnt), kdims=["torque_rms_Nm"], vdims=["count"], label=f"{g} bearings").opts(
                facecolor=SERIES[g], alpha=0.6, edgecolor="none"))
        thr = hv.Curve(([thresholds[k]] * 2, [0, 1.5 * top]), "torque_rms_Nm", "count",
                       label="threshold" if i == 0 else "").opts(color="#000000", linestyle="--", linewidth=1.2)
        opts = dict(title=what, xlabel="torque RMS [N m]", ylabel="bearings" if i == 0 else "",
                    fig_inches=(3.6, 3.0), ylim=(0, 1.5 * top), xlim=(float(edges[0]), float(edges[-1])),
                    yticks=list(range(0, int(1.5 * top) + 1, max(1, int(np.ceil(1.5 * top / 5))))),
                    show_legend=i == 0)
        if i == 0:
            opts.update(_inside(1, "top_left"))
        panels.append(hv.Overlay(hs + [thr]).opts(**opts))
    return hv.Layout(panels).opts(
        **style.layout_opts(fig_inches=(10.5, 3.4)), fontsize={"title": 11},
        title=f"Pass/fail on the held-out population ({source} data); dashed: threshold tuned on the other population",
    ).cols(3)
