"""Holoviews builders for paper 004's Figs. 3 and 5, the angle periodogram and the pass/fail study.

Every builder takes arrays (SI units) and returns a holoviews object; the source of the data
(twin / hardware) goes into the title. Nothing a result depends on is computed here.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["PAPER", "fig3_time", "fig3_angle", "fig3_components", "fig3_residual", "fig5_time", "fig5_velocity",
           "periodogram", "classifier_histograms", "COMPONENT_COLORS"]

#: Numbers paper 004 gives about its figures: Fig. 3a-b, the sensed wave sits about -0.3 N m from zero; Fig. 3c,
#: the components; Fig. 5a, RMS error 27 % -> 11 %; Fig. 5b, largest deviation of the sensor below the load cell
#: roughly -0.7 N m.
PAPER = {"wave_level_Nm": -0.3, "offset_Nm": -0.1189, "ripple_Nm": 0.2, "friction_Nm": (-0.3, 0.1),
         "rms_error_percent": (27.0, 11.0), "max_deviation_Nm": -0.7}

COMPONENT_COLORS = {"inertia": "#7570b3", "offset": "#1b9e77", "ripple": "#d95f02", "friction": "#e7298a"}
SIZE = (7.0, 3.6)


def _hv():
    from paperlib.figures.io import configure

    configure()
    import holoviews as hv

    return hv


def _level(hv, x0: float, x1: float, y: float, label: str, color: str = "#ff7f0e", dash: str = "--") -> Any:
    """A horizontal line from x0 to x1 at y that appears in the legend (hv.HLine does not)."""
    return hv.Curve(([x0, x1], [y, y]), label=label).opts(color=color, linestyle=dash, linewidth=1.2)


def _decimate(n: int, target: int = 3000) -> slice:
    return slice(None, None, max(1, n // target))


def fig3_time(t: np.ndarray, tau_s: np.ndarray, tau_s_lp: np.ndarray, source: str, cutoff_hz: float) -> Any:
    """Fig. 3a: sensed torque under no load over time, raw and low-passed."""
    hv = _hv()
    d = _decimate(t.size)
    raw = hv.Curve((t[d], tau_s[d]), "time_s", "tau_Nm", label="torque sensor (raw)").opts(color="#bbbbbb", linewidth=0.6)
    lp = hv.Curve((t, tau_s_lp), "time_s", "tau_Nm", label=f"low-passed at {cutoff_hz:g} Hz").opts(color="black")
    zero = hv.HLine(0.0).opts(color="grey", linestyle=":", linewidth=0.8)
    paper = _level(hv, float(t[0]), float(t[-1]), PAPER["wave_level_Nm"], "paper: wave about -0.3 N m from zero")
    return (raw * lp * zero * paper).opts(xlabel="time [s]", ylabel="sensed torque [N m]", fig_inches=SIZE, legend_position="right",
                                  title=f"Fig. 3a: joint torque sensor under no load ({source} data)")


def fig3_angle(q: np.ndarray, tau_lp: np.ndarray, qd: np.ndarray, source: str) -> Any:
    """Fig. 3b: sensed torque (low-passed) over the joint angle, by direction of rotation."""
    hv = _hv()
    out = []
    for mask, label, color in ((qd > 0.05, "turning + (counter-clockwise)", "#1f77b4"),
                               (qd < -0.05, "turning - (clockwise)", "#d62728")):
        d = _decimate(int(mask.sum()))
        out.append(hv.Scatter((np.degrees(q[mask])[d], tau_lp[mask][d]), "q_deg", "tau_Nm", label=label).opts(
            color=color, s=2))
    qd_deg = np.degrees(q)
    out.append(_level(hv, float(qd_deg.min()), float(qd_deg.max()), PAPER["wave_level_Nm"],
                      "paper: wave about -0.3 N m from zero"))
    return hv.Overlay(out).opts(xlabel="joint angle [deg]", ylabel="sensed torque, low-passed [N m]", fig_inches=SIZE,
                                legend_position="right",
                                title=f"Fig. 3b: sensed torque over the joint angle ({source} data)")


def fig3_components(t: np.ndarray, comps: Mapping[str, np.ndarray], truth: Mapping[str, np.ndarray] | None,
                    source: str) -> Any:
    """Fig. 3c: identified intrinsic components over time (solid), the twin's truth (dashed)."""
    hv = _hv()
    d = _decimate(t.size)
    out = []
    for name in ("inertia", "offset", "ripple", "friction"):
        out.append(hv.Curve((t[d], comps[name][d]), "time_s", "tau_Nm", label=f"{name} (identified)").opts(
            color=COMPONENT_COLORS[name], linewidth=1.2))
        if truth is not None:
            out.append(hv.Curve((t[d], truth[name][d]), "time_s", "tau_Nm", label=f"{name} (twin truth)").opts(
                color=COMPONENT_COLORS[name], linestyle="--", linewidth=0.9))
    paper = [hv.HLine(v).opts(color=COMPONENT_COLORS[name], linestyle=":", linewidth=1.0)
             for name, v in (("offset", -0.1189), ("ripple", 0.2), ("ripple", -0.2), ("friction", -0.3), ("friction", 0.1))]
    return hv.Overlay(out + paper).opts(
        xlabel="time [s]", ylabel="torque [N m]", fig_inches=(7.5, 4.4), legend_position="right",
        title=f"Fig. 3c: intrinsic components ({source} data; identified in the standstill convention).\n"
              "Dotted: the paper's values (offset -0.119, ripple +/-0.2, friction -0.3 and +0.1 N m)")


def fig3_residual(t: np.ndarray, tau_s: np.ndarray, pred: np.ndarray, source: str, fs: float, cutoff_hz: float,
                  lowpass) -> Any:
    """Fig. 3d: sensed torque and its residual after subtracting the identified intrinsic model."""
    hv = _hv()
    r = tau_s - pred
    a = hv.Curve((t, lowpass(tau_s, fs, cutoff_hz)), "time_s", "tau_Nm", label="sensed (low-passed)").opts(color="black")
    b = hv.Curve((t, lowpass(r, fs, cutoff_hz)), "time_s", "tau_Nm", label="sensed - intrinsic model (low-passed)").opts(
        color="#2ca02c")
    return (a * b * hv.HLine(0.0).opts(color="grey", linestyle=":")).opts(
        xlabel="time [s]", ylabel="torque [N m]", fig_inches=SIZE, legend_position="right",
        title=f"Fig. 3d: residual after compensation ({source} data)")


def fig5_time(t: np.ndarray, tau_s: np.ndarray, bearing: np.ndarray, tau_ref: np.ndarray, source: str,
              before: float, after: float) -> Any:
    """Fig. 5a: one trial: torque sensor, compensated bearing torque and the load cell over time."""
    hv = _hv()
    d = _decimate(t.size, 4000)
    a = hv.Curve((t[d], tau_s[d]), "time_s", "tau_Nm", label=f"joint torque sensor (RMS error {100 * before:.0f} %)").opts(
        color="#d62728", linewidth=0.8)
    b = hv.Curve((t[d], bearing[d]), "time_s", "tau_Nm", label=f"compensated (RMS error {100 * after:.0f} %)").opts(
        color="#1f77b4", linewidth=0.8)
    c = hv.Curve((t[d], tau_ref[d]), "time_s", "tau_Nm", label="load cell (reference)").opts(color="black", linewidth=1.0)
    return (a * b * c).opts(xlabel="time [s]", ylabel="bearing torque [N m]", fig_inches=SIZE, legend_position="right",
                            title=f"Fig. 5a: wheel-bearing torque, one trial ({source} data; paper: 27 % -> 11 %)")


def fig5_velocity(trials: Sequence[Mapping[str, np.ndarray]], source: str) -> Any:
    """Fig. 5b: torque over joint velocity for every trial (sensor, compensated, load cell), and each one's
    deviation from the load cell with the paper's largest deviation (about -0.7 N m)."""
    hv = _hv()
    styles = {"tau_s": ("#d62728", "torque sensor"), "bearing": ("#1f77b4", "compensated"), "tau_ref": ("black", "load cell")}
    n = len(trials)
    dec = [_decimate(tr["qd"].size, 1500) for tr in trials]
    qd = np.concatenate([tr["qd"][d] for tr, d in zip(trials, dec)])
    vmax = float(np.abs(qd).max())
    out, dev = [], []
    for key, (color, label) in styles.items():
        y = np.concatenate([tr[key][d] for tr, d in zip(trials, dec)])
        out.append(hv.Scatter((qd, y), "qd_rad_s", "tau_Nm", label=f"{label} ({n} trials)").opts(color=color, s=1.5))
        if key != "tau_ref":
            r = np.concatenate([(tr[key] - tr["tau_ref"])[d] for tr, d in zip(trials, dec)])
            dev.append(hv.Scatter((qd, r), "qd_rad_s", "dev_Nm", label=f"{label} - load cell ({n} trials)").opts(
                color=color, s=1.5))
    dev.append(_level(hv, -vmax, vmax, PAPER["max_deviation_Nm"], "paper: largest deviation of the sensor, about -0.7 N m"))
    dev.append(hv.HLine(0.0).opts(color="grey", linestyle=":", linewidth=0.8))
    torque = hv.Overlay(out).opts(xlabel="joint velocity [rad/s]", ylabel="bearing torque [N m]", aspect=1.3,
                                  legend_position="top_left",
                                  title=f"Fig. 5b: torque over velocity, {n} trials ({source} data)")
    deviation = hv.Overlay(dev).opts(xlabel="joint velocity [rad/s]", ylabel="deviation from the load cell [N m]",
                                     aspect=1.3, legend_position="right",
                                     title=f"Deviation from the load cell ({source} data)")
    return (torque + deviation).opts(sublabel_format="", fig_inches=(13, 5)).cols(2)


def periodogram(orders: np.ndarray, amp: np.ndarray, found: Sequence[Mapping[str, Any]], truth_orders: Sequence[float] | None,
                source: str) -> Any:
    """Amplitude spectrum over the joint angle of the integer-order fit's residual, peaks found, twin truth."""
    hv = _hv()
    out = [hv.Curve((orders, amp), "order", "amp_Nm", label="residual spectrum").opts(color="black", linewidth=0.8)]
    for kept, label, marker in ((True, "peak found, kept (lowers blocked-CV error)", "o"),
                                (False, "peak found, rejected by blocked CV", "^")):
        sel = [f for f in found if bool(f.get("kept")) == kept]
        if sel:
            out.append(hv.Scatter(([f["order"] for f in sel], [f["amplitude_Nm"] for f in sel]), "order", "amp_Nm",
                                  label=label).opts(color="#d62728", s=40, marker=marker))
    floor = float(np.percentile(amp[amp > 0], 5)) if np.any(amp > 0) else 1e-6
    for i, k in enumerate(truth_orders or ()):
        line = hv.Curve(([k, k], [floor, 2.0 * float(amp.max())]), "order", "amp_Nm",
                        label="twin's ripple orders (truth)" if i == 0 else "")
        out.append(line.opts(color="#1f77b4", linestyle="--", linewidth=0.8))
    return hv.Overlay(out).opts(xlabel="order [cycles per joint revolution]", ylabel="amplitude [N m]", logy=True,
                                ylim=(floor, 2.0 * float(amp.max())),
                                fig_inches=SIZE, legend_position="right",
                                title=f"Ripple orders from the angle periodogram ({source} data; dashed: twin's orders)")


def classifier_histograms(pop: Mapping[str, Sequence[float]], thresholds: Mapping[str, float], source: str) -> Any:
    """Held-out population: histogram of each statistic by grade, with its threshold."""
    hv = _hv()
    grade = np.asarray(pop["grade"])
    panels = []
    labels = {"reference": "load cell", "uncompensated": "torque sensor, uncompensated",
              "compensated": "torque sensor, compensated"}
    allv = np.concatenate([np.asarray(pop[k]) for k in labels])
    edges = np.linspace(allv.min() - 0.02, allv.max() + 0.02, 40)
    for k, title in labels.items():
        v = np.asarray(pop[k])
        hs = []
        for g, color in (("good", "#2ca02c"), ("worn", "#d62728")):
            cnt, e = np.histogram(v[grade == g], bins=edges)
            hs.append(hv.Histogram((e, cnt), kdims=["torque_rms_Nm"], vdims=["count"], label=g).opts(
                facecolor=color, alpha=0.5))
        thr = hv.VLine(thresholds[k]).opts(color="black", linestyle="--")
        panels.append(hv.Overlay(hs + [thr]).opts(
            title=f"{title}\nheld-out population ({source}); dashed: threshold\ntuned on the other population",
            xlabel="torque RMS [N m]", ylabel="bearings", fig_inches=(4.2, 3.4), legend_position="right"))
    return hv.Layout(panels).cols(3)
