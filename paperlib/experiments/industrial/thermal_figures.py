"""Figures of the thermal campaign: Figs. 6, 7, 10, 11, 13 and Table 1 of paper 001 (matplotlib).

Every figure is drawn from :func:`paperlib.experiments.industrial.thermal.analyse_campaign`'s
outputs; titles say ``twin`` (the data are the TX40 twin's), the twin's truth is drawn where it
exists and the paper's numbers where the paper gives them (Table 1).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from paperlib.estimation.plateaus import eq4_torque
from paperlib.estimation.thermal import ThermalModel, fit_double_exponential
from paperlib.recordings import truth as rec_truth
from paperlib.friction.lugre import steady_friction_curve
from paperlib.figures import style
from paperlib.experiments.industrial.plotting import SERIES_COLORS, legend_below, panel_letters, pyplot

__all__ = ["TABLE1_PAPER", "fig06_joint_friction", "fig07_all_joints", "fig10_cold_hot",
           "fig11_prediction", "fig13_anomaly", "table1_figure", "table1_rows", "PAPER_TEXT"]

#: Table 1 of paper 001 (Robot 1), minutes: rows Test 1..4, Mix; columns joints 1..6.
TABLE1_PAPER = {
    "t1": [[2.7225, 0.8660, 0.5744, 3.7650, 0.2517, 0.3447],
           [2.5567, 0.3759, 0.3843, 3.7030, 0.2517, 8.1392],
           [1.6965, 0.2764, 1.7228, 2.9969, 2.0369, 3.4120],
           [2.6349, 0.2411, 1.6935, 2.7938, 0.3501, 2.9116],
           [2.4465, 0.2949, 0.9172, 3.3109, 0.3254, 7.9114]],
    "t2": [[35.2402, 16.6674, 22.7429, 25.8915, 20.2852, 12.4031],
           [38.9724, 18.2785, 24.5982, 25.7891, 20.2852, 27.4701],
           [35.1088, 17.0822, 24.1063, 22.4337, 21.1967, 25.4714],
           [33.0730, 18.1980, 23.3652, 22.8253, 21.9113, 19.5745],
           [35.4424, 17.0107, 23.7187, 24.0566, 20.6529, 32.5835]],
}


#: Numbers paper 001 gives in its text (Section 3): cold friction up to 70 % above hot (Fig. 6), t1 2-3 min and
#: t2 20-30 min (Table 1), steady state after about 15 cycles, about 1.5 h (Fig. 9), gearbox about 15 C cold and
#: 50-60 C hot (Fig. 10), a 32 % friction rise against a 60-70 % thermal change (Fig. 13).
PAPER_TEXT = {"cold_hot_ratio_max": 1.7, "t1_range_min": (2.0, 3.0), "t2_range_min": (20.0, 30.0),
              "steady_cycles": 15, "steady_h": 1.5, "cold_degC": 15.0, "hot_degC": (50.0, 60.0),
              "fault_increase": 0.32, "thermal_change": (0.6, 0.7)}


#: Colours of the days of one robot (Okabe-Ito, :data:`paperlib.figures.style.CYCLE`, not a role's colour).
DAY_COLORS = SERIES_COLORS[:5]
#: Colour of the faulty day (not a role's colour, not a day's).
FAULT_COLOR = SERIES_COLORS[5]


def _days(extras: Mapping[str, Any], robot: int, faulty: bool = False) -> list[str]:
    return sorted(n for n in extras["analysed"] if n.startswith(f"r{robot}_") and n.endswith("_fault") == faulty)


def fig06_joint_friction(extras: Mapping[str, Any], robot: int = 1, joint: int = 3):
    """Fig. 6: friction of one joint at 60 % of its fastest plateau over the cycles, each day.

    Returns
    -------
    matplotlib.figure.Figure
        Friction [N m] over time [min]: per day the identified points and their double exponential,
        the twin's noise-free friction (truth), the paper's "cold up to 1.7 x hot"; legend below.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5.4))
    t1 = extras["table1"][robot]["joints"][str(joint)]
    rows = np.array(t1["friction_ref"])
    idx = np.array(t1["cycle_test"])
    tt = np.linspace(0, rows[:, 0].max(), 400)
    truth_y = []
    for i, test in enumerate(t1["tests"]):
        sel = idx == i
        c = DAY_COLORS[i % len(DAY_COLORS)]
        ax.plot(rows[sel, 0], rows[sel, 1], "o", ms=4, color=c, label=f"{test['file']}: identified (eq. 4 at 60 %)")
        f = fit_double_exponential(rows[sel, 0], rows[sel, 1])
        ax.plot(tt, f(tt), "-", lw=1, color=c,
                label=f"double exp.: t1 {f.t1_min:.1f}, t2 {f.t2_min:.1f} min, cold/hot {f.cold_hot_ratio:.2f}")
        tr = extras["truth_fits"][(robot, test["file"], joint)]
        truth_y += [np.asarray(tr[1], dtype=float), f(tt)]
        ax.plot(tr[0], tr[1], "x", ms=4, color=style.ROLES["truth"]["color"], alpha=0.8)
    ax.plot([], [], "x", color=style.ROLES["truth"]["color"], label="twin truth (noise-free friction), every day")
    hot = float(np.median([fit_double_exponential(rows[idx == i, 0], rows[idx == i, 1]).y_hot
                           for i in range(len(t1["tests"]))]))
    r = PAPER_TEXT["cold_hot_ratio_max"]
    ax.axhline(r * hot, label=f"paper: cold up to {r:g} x hot ({r * hot:.2f} N m on the twin's median hot level)",
               **style.role("paper"))
    ax.axhline(hot, label=f"twin: median hot level {hot:.2f} N m", **style.role("reference"))
    ax.set_ylim(*style.limits(rows[:, 1], *truth_y, include=(r * hot,)))
    ax.set_xlabel("time since the start of the test [min]")
    ax.set_ylabel(f"joint {joint} friction at {t1['v_ref']:.2f} rad/s [N m]")
    ax.set_title(f"Fig. 6 (TX40 twin, robot {robot}): joint {joint} friction at 60 % speed while warming")
    legend_below(fig, [ax], ncol=2, bottom=0.27)
    return fig


def fig07_all_joints(extras: Mapping[str, Any], robot: int = 1):
    """Fig. 7: friction at 60 % speed of the six joints, every test, and the mix fit (paper's mix in each panel).

    Returns
    -------
    matplotlib.figure.Figure
        Six panels (joints 1-6, lettered A-F), friction [N m] over time [min]; legend below.
    """
    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.6), sharex=True)
    for ax, (js, m) in zip(axes.ravel(), sorted(extras["table1"][robot]["joints"].items(), key=lambda x: int(x[0]))):
        rows = np.array(m["friction_ref"])
        idx = np.array(m["cycle_test"])
        for i, test in enumerate(m["tests"]):
            sel = idx == i
            ax.plot(rows[sel, 0], rows[sel, 1], ".", ms=4, color=DAY_COLORS[i % len(DAY_COLORS)],
                    label=f"{test['file']}: identified")
        tt = np.linspace(0, rows[:, 0].max(), 300)
        mix = fit_double_exponential(rows[:, 0], rows[:, 1])
        ax.plot(tt, mix(tt), label="twin: mix fit (all days)", **style.role("model"))
        j = int(js)
        ax.axvline(60.0 * PAPER_TEXT["steady_h"],
                   label=f"paper: steady after about {PAPER_TEXT['steady_cycles']} cycles ({PAPER_TEXT['steady_h']:g} h)",
                   **style.role("paper"))
        lo, hi = style.limits(rows[:, 1], mix(tt))
        ax.set_ylim(lo, hi + 0.35 * (hi - lo))  # head room for the box of time constants
        ax.text(0.97, 0.95, f"twin mix: t1 {mix.t1_min:.1f}, t2 {mix.t2_min:.1f} min\n"
                            f"paper mix (EFORT): t1 {TABLE1_PAPER['t1'][4][j - 1]:.1f}, t2 {TABLE1_PAPER['t2'][4][j - 1]:.1f} min",
                transform=ax.transAxes, ha="right", va="top", fontsize=7,
                bbox={"fc": "white", "ec": "0.7", "alpha": 0.85})
        ax.set_title(f"joint {js} (at {m['v_ref']:.2f} rad/s)", fontsize=9)
        ax.set_ylabel("friction [N m]", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("time [min]")
    fig.suptitle(f"Fig. 7 (TX40 twin, robot {robot}): friction at 60 % of the fastest plateau, 4 test days")
    legend_below(fig, axes, ncol=3, bottom=0.08)
    panel_letters(axes)
    return fig


def fig10_cold_hot(extras: Mapping[str, Any], datasets: Mapping[str, Any], robot: int = 1, day: str | None = None):
    """Fig. 10: friction versus velocity in the first (cold) and last (hot) cycle, six joints.

    Returns
    -------
    matplotlib.figure.Figure
        Six panels (joints, lettered A-F), friction [N m] over velocity [rad/s]: plateaus and the
        eq. 4 fit of each cycle, the twin's true curve at the cycle's gearbox temperature; legend below.
    """
    plt = pyplot()
    day = day or _days(extras, robot)[0]
    jf_all = extras["analysed"][day][0]
    tr = rec_truth(datasets[day])
    T = np.asarray(tr["temperature_inner_degC"])
    step = float(tr["temperature_inner_step_s"])
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.6))
    for ax, j in zip(axes.ravel(), sorted(jf_all)):
        jf = jf_all[j]
        vmax = np.abs(jf.levels[0][:, 0]).max()
        v = np.linspace(-vmax, vmax, 200)
        temps = []
        for s, lab, col, ls in ((0, "cold (cycle 1)", "#56b4e9", ":"), (-1, "hot (last cycle)", "#e69f00", "--")):
            lv = jf.levels[s]
            ax.plot(lv[:, 0], lv[:, 1], "o", ms=3.5, color=col, label=f"{lab}: plateaus")
            ax.plot(v, eq4_torque(jf.k[s], v), "-", lw=1.2, color=col, label=f"{lab}: eq. 4 fit")
            Tj = float(np.interp(jf.time_s[s], np.arange(T.shape[0]) * step, T[:, j - 1]))
            temps.append(Tj)
            ax.plot(v, steady_friction_curve(v, np.asarray(tr["friction_rows"][j - 1]), Tj),
                    label=f"twin truth, {lab.split(' ')[0]} (at the cycle's gearbox temperature)",
                    **style.role("truth", linestyle=ls))
        ax.set_title(f"joint {j} (gearbox {temps[0]:.0f} C cold, {temps[1]:.0f} C hot)", fontsize=9)
        ax.set_xlabel("velocity [rad/s]", fontsize=8)
        ax.set_ylabel("friction [N m]", fontsize=8)
    fig.suptitle(f"Fig. 10 (TX40 twin, {day}): friction vs velocity, cold and hot (gravity removed by eq. 11 on joints 2, 3)\n"
                 f"paper: gearbox about {PAPER_TEXT['cold_degC']:g} C cold, {PAPER_TEXT['hot_degC'][0]:g}-"
                 f"{PAPER_TEXT['hot_degC'][1]:g} C hot (its friction curves are not given in numbers)", fontsize=10)
    legend_below(fig, axes, ncol=2, bottom=0.1)
    panel_letters(axes)
    return fig


def fig11_prediction(extras: Mapping[str, Any], datasets: Mapping[str, Any], robot: int = 1, joint: int = 1,
                     day: str | None = None):
    """Fig. 11: friction predicted by the thermal model (Algorithm 1) on the held-out day.

    Returns
    -------
    matplotlib.figure.Figure
        A: friction [N m] identified and predicted with and without the thermal model over time [min];
        B: Algorithm 1's temperature estimate (gauge alpha) beside the twin's truth and the paper's levels.
    """
    plt = pyplot()
    day = day or _days(extras, robot)[-1]
    mon = extras["monitors"][day]
    pj = mon["thermal"]["joints"][str(joint)]
    pn = mon["no_thermal"]["joints"][str(joint)]
    m = extras["models"][robot]["joints"][str(joint)]
    model = ThermalModel.from_dict(m)
    jf, qd, fs = extras["analysed"][day]
    labels = [int(x) for x in extras["datasets"][day]["joint"].values]
    T_est, _ = model.temperature(qd[:, labels.index(joint)], 1.0 / fs)
    tr = rec_truth(datasets[day])
    T = np.asarray(tr["temperature_inner_degC"])[:, joint - 1]
    t_T = np.arange(T.size) * float(tr["temperature_inner_step_s"]) / 60.0
    fig, (a, b) = plt.subplots(2, 1, figsize=(7.5, 7.6), sharex=True)
    a.plot(pj["time_min"], pj["friction_ref"], "o", ms=4, color=style.ROLES["measured"]["color"],
           label="identified from the plateaus")
    a.plot(pj["time_min"], pj["predicted"], label="predicted: thermal model (Algorithm 1)", **style.role("model"))
    a.plot(pn["time_min"], pn["predicted"], color="#e69f00", ls="--", lw=1.3,
           label="predicted: no thermal model (nominal)")
    a.set_ylim(*style.limits(pj["friction_ref"], pj["predicted"], pn["predicted"]))
    a.set_ylabel(f"joint {joint} friction at {m['v_ref']:.2f} rad/s [N m]")
    a.legend(loc="best")
    n = T_est.size
    ts = np.arange(0, n, max(int(fs), 1))
    b.plot(ts / fs / 60.0, T_est[ts], label=f"Algorithm 1 estimate (gauge alpha = {m['alpha']:g} /K)",
           **style.role("model", linewidth=1.2))
    b.plot(t_T, T, label="twin truth: inner gearbox node", **style.role("truth", linewidth=1.0))
    b.axhline(PAPER_TEXT["cold_degC"], label=f"paper: about {PAPER_TEXT['cold_degC']:g} C cold", **style.role("paper"))
    b.axhspan(*PAPER_TEXT["hot_degC"], color=style.ROLES["paper"]["color"], alpha=0.12,
              label=f"paper: {PAPER_TEXT['hot_degC'][0]:g}-{PAPER_TEXT['hot_degC'][1]:g} C hot")
    b.set_ylim(*style.limits(T_est[ts], T, include=(PAPER_TEXT["cold_degC"], PAPER_TEXT["hot_degC"][1])))
    b.set_xlabel("time [min]")
    b.set_ylabel("temperature [degC]")
    b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)  # the data fill the panel
    fig.suptitle(f"Fig. 11 (TX40 twin, held-out {day}, joint {joint}): friction predicted from velocity alone")
    fig.tight_layout(rect=(0.0, 0.0, 1.0, 0.96))
    panel_letters([a, b], x=-0.1)
    return fig


def fig13_anomaly(extras: Mapping[str, Any], results: Mapping[str, Any]):
    """Fig. 13: friction ratio identified/predicted on the faulty day, with and without thermal model.

    Returns
    -------
    matplotlib.figure.Figure
        A (with the thermal model) and B (without it): the ratio [-] over time [min] of the healthy
        days and the faulty day, the alarm threshold, the fault's onset and the paper's numbers.
    """
    plt = pyplot()
    an = results["anomaly"]
    day, j = an["day"], str(an["joint"])
    robot = int(day.split("_")[0][1:])
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.0), sharey=True)
    ys = []
    for ax, kind, title in ((axes[0], "thermal", "with the thermal model"), (axes[1], "no_thermal", "without it")):
        for n in _days(extras, robot):
            pj = extras["monitors"][n][kind]["joints"][j]
            ys.append(np.asarray(pj["ratio"], dtype=float))
            ax.plot(pj["time_min"], pj["ratio"], **style.role("raw", linewidth=0.8))
        ax.plot([], [], label=f"healthy days of robot {robot}", **style.role("raw", linewidth=0.8))
        pj = extras["monitors"][day][kind]["joints"][j]
        ys.append(np.asarray(pj["ratio"], dtype=float))
        ax.plot(pj["time_min"], pj["ratio"], "o-", color=FAULT_COLOR, ms=3.5, lw=1, label=f"{day} (fault)")
        ys.append(np.array([pj["threshold"]]))
        which = "with" if kind == "thermal" else "without"
        ax.axhline(pj["threshold"], label=f"alarm threshold {pj['threshold']:.3f}, {which} the thermal model "
                   "(from healthy days 1-3)", **style.role("model", linestyle="--", linewidth=1.2))
        ax.axvline(an["onset_min"], color="k", ls=":", lw=1,
                   label=f"fault onset {an['onset_min']:.0f} min (x{an['factor']:.2f})")
        ax.axhline(1.0 + PAPER_TEXT["fault_increase"],
                   label=f"paper: fault = +{100 * PAPER_TEXT['fault_increase']:.0f} % (ratio {1 + PAPER_TEXT['fault_increase']:.2f})",
                   **style.role("paper", linestyle="-."))
        if kind == "no_thermal":
            lo, hi = PAPER_TEXT["thermal_change"]
            ax.axhspan(1.0 + lo, 1.0 + hi, color=style.ROLES["paper"]["color"], alpha=0.12,
                       label=f"paper: thermal change {100 * lo:.0f}-{100 * hi:.0f} %")
        al = [a for a in extras["monitors"][day][kind]["alarms"] if str(a["joint"]) == j]
        if al:
            ax.plot([a["time_min"] for a in al], [a["ratio"] for a in al], "v", color="k", ms=6, label="alarms")
        d = an[kind]["delay_min"]
        ax.set_title(f"{title}: first alarm " + ("none" if d is None else f"{d:.1f} min after onset"), fontsize=9)
        ax.set_xlabel("time [min]")
    lo, hi = PAPER_TEXT["thermal_change"]
    axes[0].set_ylim(*style.limits(*ys, include=(1.0 + hi,)))
    axes[0].set_ylabel(f"joint {j} friction: identified / predicted [-]")
    fig.suptitle("Fig. 13 (TX40 twin): friction-anomaly detection, a 32 % friction step on joint 1")
    legend_below(fig, axes, ncol=3, bottom=0.16)
    panel_letters(axes)
    return fig


def table1_rows(extras: Mapping[str, Any], robot: int = 1) -> list[dict[str, Any]]:
    """Table 1 of the twin: t1, t2 per joint per test and mix (+ truth and the paper's)."""
    out = []
    t1m = extras["table1"][robot]["joints"]
    for js in sorted(t1m, key=int):
        m = t1m[js]
        j = int(js)
        for i, test in enumerate(m["tests"] + [{"file": "mix", "t1_min": m["t1_min"], "t2_min": m["t2_min"],
                                                 "cold_hot_ratio": m["cold_hot_ratio"]}]):
            row = {"joint": j, "test": test["file"], "t1_min": test["t1_min"], "t2_min": test["t2_min"],
                   "cold_hot_ratio": test["cold_hot_ratio"]}
            if i < len(TABLE1_PAPER["t1"]):
                row["paper_t1_min"] = TABLE1_PAPER["t1"][i if test["file"] != "mix" else 4][j - 1]
                row["paper_t2_min"] = TABLE1_PAPER["t2"][i if test["file"] != "mix" else 4][j - 1]
            out.append(row)
    return out


def table1_figure(extras: Mapping[str, Any], robot: int = 1):
    """Table 1 drawn: t1 and t2 per joint, the twin's tests and mix beside the paper's.

    Returns
    -------
    matplotlib.figure.Figure
        A: t1 [min] (log scale), B: t2 [min], per joint; the twin's values dark grey, the paper's
        vermillion, the paper's text ranges as bands; legend below.
    """
    plt = pyplot()
    rows = table1_rows(extras, robot)
    meas, pap = style.ROLES["measured"]["color"], style.ROLES["paper"]["color"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6))
    for ax, key in zip(axes, ("t1", "t2")):
        vals = []
        for j in range(1, 7):
            tw = [r[f"{key}_min"] for r in rows if r["joint"] == j and r["test"] != "mix"]
            mx = [r[f"{key}_min"] for r in rows if r["joint"] == j and r["test"] == "mix"]
            pp = [TABLE1_PAPER[key][i][j - 1] for i in range(4)]
            vals += tw + mx + pp + [TABLE1_PAPER[key][4][j - 1]]
            ax.plot(np.full(len(tw), j - 0.12), tw, "o", color=meas, ms=4, label="twin, tests (days 1-4)")
            ax.plot([j - 0.12], mx, "D", color=meas, ms=7, mfc="none", label="twin, mix")
            ax.plot(np.full(4, j + 0.12), pp, "s", color=pap, ms=4, label="paper (EFORT robot 1), tests")
            ax.plot([j + 0.12], [TABLE1_PAPER[key][4][j - 1]], "D", color=pap, ms=7, mfc="none", label="paper, mix")
        lo, hi = PAPER_TEXT[f"{key}_range_min"]
        ax.axhspan(lo, hi, color=pap, alpha=0.12, label=f"paper's text: t1 {PAPER_TEXT['t1_range_min'][0]:g}-"
                   f"{PAPER_TEXT['t1_range_min'][1]:g} min, t2 {PAPER_TEXT['t2_range_min'][0]:g}-"
                   f"{PAPER_TEXT['t2_range_min'][1]:g} min")
        ax.set_xticks(range(1, 7))
        ax.set_xlabel("joint")
        ax.set_ylabel(f"{key} [min]")
        if key == "t1":
            ax.set_yscale("log")
            v = np.log10(np.asarray(vals, dtype=float))
            a, b = style.limits(v, include=np.log10([lo, hi]))
            ax.set_ylim(10 ** a, 10 ** b)
        else:
            ax.set_ylim(*style.limits(vals, include=(lo, hi)))
    fig.suptitle(f"Table 1 (TX40 twin robot {robot} vs the paper's EFORT robot 1): double-exponential time constants")
    legend_below(fig, axes, ncol=3, bottom=0.14)
    panel_letters(axes)
    return fig
