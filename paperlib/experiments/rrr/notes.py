"""What the rrr notebooks say about their numbers, written from the results (never by hand).

Notebook 01: :func:`sampling_note` (Fig. 4), :func:`table2` (the identified parameters beside the
paper's), :func:`fits_note` (the fitted curves against the twin's truth), :func:`limits_table`
(Table 4). Notebook 02: :func:`location_note` (Figs. 5-6), :func:`table5` and :func:`trends_note`
(Table 5), :func:`rates_note` (Figs. 9-12), :func:`friction_note` (Fig. 13), :func:`speed_note`
(Fig. 14), :func:`baseline_note`; :func:`peak_origin` -- where the peaks come from (start transient, true-friction reference, the
feed-forward levels below the identification's gate); :func:`variants_table` -- the trend checks of
the twin and of its variants (:mod:`paperlib.experiments.rrr.sensitivity`); :func:`differences` --
where the twin's Table 5 differs from the paper's, and why. Each returns Markdown.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from paperlib.experiments.rrr import trends
from paperlib.experiments.rrr import tracking as trk
from paperlib.twin.robots.three_rrr import ThreeRRRTwin


def _join(xs, fmt: str) -> str:
    return ", ".join(format(x, fmt) for x in xs)


def _peaks(rows, controller: str) -> list[float]:
    return [trends.metric(r, "peak") for r in rows if r["controller"] == controller]


def peak_origin(res: Mapping[str, Any], ident: Mapping[str, Any], comps: Mapping[str, trk.Compensation],
                twin: ThreeRRRTwin) -> str:
    """Bullets under ``fig_peak_origin`` from :func:`paperlib.experiments.rrr.report.tracking`'s results."""
    st = res["start_transient"]["controllers"]
    cv = ident["coulomb_viscous"]["params"]
    cv_fc = [cv[f"f_c_{i}"] / cv["k_f"] for i in (1, 2, 3)]
    v_gate = float(ident["kostic"]["data"]["v_gate_rad_s"])
    v_low = np.linspace(1e-4, v_gate, 400)[:, None] * np.ones(3)
    kos = comps["kostic"].friction(v_low).max(axis=0) / comps["kostic"].k_f
    static = [j.static_Nm for j in twin.friction]
    return "\n".join([
        "* Over that window the runs are the same: the true platform velocities of the slowest and the fastest run differ by at most "
        f"{max(c['start_window_difference_mm_s'] for c in st.values()):.2g} mm/s.",
        f"* Kostic's largest speed error falls {_join((1e3 * x for x in st['kostic']['largest_error_after_start_s']), '.0f')} ms after the "
        f"start (stage: {', '.join(st['kostic']['largest_error_stage'])}) at 100-400 mm/s: the drives breaking away from rest, not the path speed.",
        f"* With the twin's true friction as feed-forward the peaks are {_join(_peaks(res['table5_true_friction'], 'true-friction'), '.1f')} mm/s "
        f"(Kostic: {_join(_peaks(res['table5'], 'kostic'), '.1f')}): a perfect static law does no better at the start, so the fitted Kostic "
        "curve is not what sets them.",
        f"* Below the identification's gate ({v_gate:g} rad/s, where the fit has no data) the Kostic feed-forward reaches {_join(kos, '.2f')} N m; "
        f"the twin's breakaway (static) level is {_join(static, '.2f')} N m, and the Coulomb + viscous line's {_join(cv_fc, '.2f')} N m. "
        "A feed-forward that switches on the breakaway level (or more) as the reference leaves rest, while the real contact is still in "
        "presliding, pushes the platform ahead of the reference; the Coulomb + viscous line under-compensates the breakaway and so pushes "
        "less. This is why its peak is the smaller one, while its mean error is the larger one.",
    ])


def _summaries(res: Mapping[str, Any], variants: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    return {"twin": {"trends": trends.summary(res["trend_checks"]), "trend_checks": res["trend_checks"], "table5": res["table5"]}} | dict(variants)


def variants_table(res: Mapping[str, Any], variants: Mapping[str, Mapping[str, Any]]) -> str:
    """Trend checks (yes / no) of the twin and each variant, and each variant's fits and 400 mm/s errors."""
    cols = _summaries(res, variants)
    first = cols["twin"]["trends"]
    lines = ["| paper's trend | metric | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    for claim, by_metric in first.items():
        for m in by_metric:
            lines.append(f"| {claim} | {m} | " + " | ".join("yes" if c["trends"][claim][m] else "**no**" for c in cols.values()) + " |")
    lines += ["", "| variant | what changes | Kostic curve error (worst drive) | C+V curve error | Kostic / C+V mean error at "
              "400 mm/s [mm/s] | peak [mm/s] |", "|---|---|---|---|---|---|"]
    for n, s in variants.items():
        r = {c: next(x for x in s["table5"] if abs(x["speed"] - 0.4) < 1e-9 and x["controller"] == c) for c in ("kostic", "coulomb-viscous")}
        lines.append(f"| {n} | {s['description']} | {100 * max(s['curve_errors']['kostic']):.1f} % | "
                     f"{100 * max(s['curve_errors']['coulomb-viscous']):.1f} % | "
                     f"{r['kostic']['mean_abs_mm_s']:.2f} / {r['coulomb-viscous']['mean_abs_mm_s']:.2f} | "
                     f"{trends.metric(r['kostic'], 'peak'):.1f} / {trends.metric(r['coulomb-viscous'], 'peak'):.1f} |")
    return "\n".join(lines)


def differences(res: Mapping[str, Any], variants: Mapping[str, Mapping[str, Any]], twin: ThreeRRRTwin) -> str:
    """Where the twin's Table 5 and Figs. 5-6 differ from the paper's, and why (bullets)."""
    cols = _summaries(res, variants)
    grow_after = {n: all(c["holds"] for c in s["trend_checks"] if c["claim"] == "errors grow with speed"
                         and c["metric"] == "peak" and c["controller"] != "none") for n, s in cols.items()}
    mean_grows = [n for n, s in cols.items() if s["trends"]["errors grow with speed"]["mean"]]
    k_wins = {n: s["trends"]["Kostic beats Coulomb + viscous at high speed"] for n, s in cols.items()}
    stribeck = [j.static_Nm / j.coulomb_Nm for j in twin.friction]
    w_v = float(twin.kd[0] / twin.description["controller"]["joint_inertia_kg_m2"])
    pb = _peaks(res["table5"], "none")
    paper_before = [abs(x) for v in trk.PAPER_TABLE5.values() for x in v["before"][:2]]
    at = res["start_transient"]["controllers"]["kostic"]["largest_error_after_start_s"]
    out = [
        "* **Peaks after compensation and speed** (Table 5's peak columns; the mean columns grow with speed in "
        + (", ".join(mean_grows) or "no variant") + "). After compensation the largest speed error is the drives breaking away from "
        f"rest, {_join((1e3 * x for x in at), '.0f')} ms into the motion (figure above). Every path starts with the same acceleration, so "
        "that moment is the same at every speed, and even the twin's true friction fed forward leaves it. Peaks after compensation grow "
        "with speed in: " + ", ".join(f"{n} {'yes' if g else 'no'}" for n, g in grow_after.items())
        + ". On the paper's robot they grow, so there the start was not the largest error; the paper does not publish its drives' "
        "loops, its friction's breakaway, or how it measured the speed, which set it.",
        "* **Kostic vs Coulomb + viscous at high speed** (mean / peak): " + "; ".join(
            f"{n}: {'yes' if k['mean'] else 'no'} / {'yes' if k['peak'] else 'no'}" for n, k in k_wins.items())
        + f". The twin's breakaway is {min(stribeck):.2f}-{max(stribeck):.2f}x its Coulomb level; the `no-stribeck` variant has the "
        "monotone shape of the paper's own Table 2 curves.",
        f"* **Peaks before compensation** ({min(pb):.0f}-{max(pb):.0f} mm/s; the paper's {min(paper_before):.1f}-{max(paper_before):.1f}) "
        f"are the drives' velocity loops lagging the acceleration: a_max / w_v = {trk.A_MAX_M_S2 / w_v * 1e3:.0f} mm/s in the path for "
        f"the twin's w_v = 2 pi x {w_v / (2 * np.pi):.0f} Hz, more where the platform's inertia is largest.",
    ]
    if "stiff-loops" in variants:
        ps = _peaks(variants["stiff-loops"]["table5"], "none")
        out[-1] += f" With 4x faster loops (`stiff-loops`) they are {min(ps):.0f}-{max(ps):.0f} mm/s."
    out += [
        "* **Levels** (mm, mm/s) are the twin's own: drives, gains and friction are assumed (`data/twin/three_rrr_twin.toml`).",
        "* **Location error** is taken at the instant the reference arrives at each position (the paper does not say when it measured); "
        "at rest, after the 2-s dwell, friction feed-forward of a zero reference velocity cannot change a stick-slip offset.",
    ]
    return "\n".join(out)


# --- notebook 01 -------------------------------------------------------------------------------------

def sampling_note(ref: Mapping[str, Any], meta: Mapping[str, Any]) -> str:
    """One sentence under Fig. 4: positions visited, duration, and the samples that enter the fits.

    Parameters
    ----------
    ref : mapping
        The planned sampling run (``points`` (21, 2) [m], ``t`` (n,) [s]).
    meta : mapping
        ``FrictionData.meta`` (``n_used``, ``n_total``, ``v_gate_rad_s`` [rad/s]).
    """
    return (f"The run visits {len(ref['points'])} positions (paper: 21, 10 on the boundary and 11 near the centre) in "
            f"{ref['t'][-1]:.1f} s; {meta['n_used']} of its {meta['n_total']} samples have every drive sliding faster than "
            f"{meta['v_gate_rad_s']} rad/s and enter the fits.")


def table2(paper: Mapping[str, Any], kostic: Any, k_f_truth: float) -> str:
    """Table 2 in Markdown: the paper's Kostic parameters beside the twin's fit (canonical form, m_1 >= m_2 >= 0).

    Parameters
    ----------
    paper : mapping
        The paper's Table 2 (``k_v``, ``f_1``, ``f_2``, ``m_1``, ``m_2``: three values each; ``k_f``).
    kostic : paperlib.experiments.rrr.identification estimator
        The fitted Kostic estimator (``laws_``, ``std_``, ``k_f_``, ``k_f_std_``).
    k_f_truth : float
        The twin's true torque ratio k_f.
    """
    from paperlib.friction.kostic import KosticLaw

    names = ("k_v", "f_1", "f_2", "m_1", "m_2")
    rows = ["| parameter | paper drive 1 | paper drive 2 | paper drive 3 | twin fit drive 1 | twin fit drive 2 | twin fit drive 3 |",
            "|---|---|---|---|---|---|---|"]
    paper_laws = [KosticLaw(*(paper[n][i] for n in names)).canonical() for i in range(3)]
    for j, n in enumerate(names):
        rows.append(f"| {n} | " + " | ".join(f"{law.params[j]:.3f}" for law in paper_laws) + " | "
                    + " | ".join(f"{law.params[j]:.3f} ± {kostic.std_[1 + 5 * i + j]:.2g}" for i, law in enumerate(kostic.laws_)) + " |")
    rows.append(f"| k_f | {paper['k_f']} | | | {kostic.k_f_:.4f} ± {kostic.k_f_std_:.2g} (truth {k_f_truth:.4f}) | | |")
    return "\n".join(rows)


def fits_note(res: Mapping[str, Any], k_f: float, k_f_truth: float) -> str:
    """The fitted curves against the twin's truth, k_f and the agreement of the starts (one paragraph).

    Parameters
    ----------
    res : mapping
        Results of :func:`paperlib.experiments.rrr.report.identification`.
    k_f, k_f_truth : float
        Identified and true torque ratio.
    """
    ke, ce = res["kostic"], res["coulomb_viscous"]
    ranges = np.array(ke["speed_range_rad_s"])
    near = ke["start_agreement"]["starts"]
    good = sum(s["max_rel_curve_error"] < 0.05 and abs(s["k_f"] / k_f_truth - 1) < 0.02 for s in near)
    return (f"Over the speeds used ({ranges[:, 0].min():.2f}-{ranges[:, 1].max():.2f} rad/s) the Kostic curves are within "
            f"{100 * max(ke['curve_errors']['max_rel']):.1f} % of the twin's true friction (largest error of the three drives), "
            f"the Coulomb + viscous lines within {100 * max(ce['curve_errors']['max_rel']):.1f} %. $k_f$ = {k_f:.4f} "
            f"({100 * ke['k_f_rel_error']:+.2f} % from the truth {k_f_truth:.4f}). {good} of {len(near)} starts end within 5 % "
            f"(curves) and 2 % ($k_f$).")


def limits_table(res: Mapping[str, Any]) -> str:
    """Table 4 in Markdown (the paper's V_max and a_max beside the model's) and where V_max is attained."""
    L, P = res["limits"], res["paper_table4"]
    return (f"| | V_max [m/s] | a_max [m/s^2] |\n|---|---|---|\n| paper (theory) | {P['V_max_m_s']} | {P['a_max_m_s2']} |\n"
            f"| model, work region W | {L['V_max_m_s']:.3f} | {L['a_max_m_s2']:.1f} |\n\n"
            f"V_max is attained at ({L['V_max_at_m'][0]:.3f}, {L['V_max_at_m'][1]:.3f}) m, on the edge of W; at its centre "
            f"the bound is {L['V_max_at_centre_m_s']:.3f} m/s. a_max uses the assumed motor limit "
            f"({L['joint_torque_max_Nm']:.0f} N m at the joint) and the reflected rotor inertia I_r = {L.get('I_r_kg_m2', float('nan')):.3g} kg m^2 "
            f"({L.get('I_r_status', 'assumed')}: set so that a_max equals Table 4's, rule in data/robots/three_rrr.toml).")


# --- notebook 02 -------------------------------------------------------------------------------------

def location_note(loc: Mapping[str, Mapping[str, Any]]) -> str:
    """Figs. 5-6 in numbers: largest and mean location error before and after, boundary vs centre [mm]."""
    b, a = loc["none"], loc["kostic"]
    lo, hi = trk.PAPER_TEXT["centre_after_mm"]
    return (f"Largest location error {b['max_mm']:.2f} mm before and {a['max_mm']:.2f} mm after Kostic compensation "
            f"(paper 7.09 and 1.88 mm); mean {b['mean_mm']:.2f} -> {a['mean_mm']:.2f} mm (paper 3.88 -> 0.55). "
            f"Boundary positions average {b['boundary_mean_mm']:.2f} mm before against {b['centre_mean_mm']:.2f} mm near the centre; "
            f"after compensation the centre positions lie within {min(a['error_mm'][10:]):.2f}-{max(a['error_mm'][10:]):.2f} mm "
            f"(paper: {lo:+.2f} to {hi:+.2f} mm, signed).")


def table5(res: Mapping[str, Any]) -> str:
    """Table 5 in Markdown: the twin's speed errors per speed and controller beside the paper's [mm/s]."""
    lines = ["| speed [mm/s] | controller | largest [mm/s] | smallest [mm/s] | mean abs [mm/s] | paper largest / smallest / mean |",
             "|---|---|---|---|---|---|"]
    for r in res["table5"]:
        pv = trk.PAPER_TABLE5[r["speed"]]
        paper = {"none": pv["before"], "kostic": pv["after"]}.get(r["controller"])
        ptxt = " / ".join(f"{x:.2f}" for x in paper) if paper else "(not published)"
        lines.append(f"| {r['speed'] * 1e3:.0f} | {trk.LABELS[r['controller']]} | {r['max_peak_mm_s']:.2f} | "
                     f"{r['min_peak_mm_s']:.2f} | {r['mean_abs_mm_s']:.2f} | {ptxt} |")
    return "\n".join(lines)


def trends_note(res: Mapping[str, Any]) -> str:
    """The paper's three Table 5 trends, as the twin's results answer them (one sentence)."""
    t = res["trends"]
    return (f"Mean error grows with speed: {t['mean_error_grows_with_speed']}; compensation cuts it at every speed: "
            f"{t['compensation_cuts_mean_error']}; Kostic beats Coulomb + viscous at 400 mm/s: {t['kostic_beats_cv_at_400']} (mean), "
            f"{t['kostic_beats_cv_peak_at_400']} (largest magnitude).")


def rates_note(series: Mapping, speed: float = 0.4) -> str:
    """Figs. 9-12 in numbers: each drive's largest rate deviation from the reference, before -> after [rad/s]."""
    r0, r1 = series[(speed, "none")], series[(speed, "kostic")]
    m = r0["moving"]
    dev0 = np.abs(r0["qd"] - r0["qd_ref"])[m].max(0)
    dev1 = np.abs(r1["qd"] - r1["qd_ref"])[m].max(0)
    jump = trk.PAPER_TEXT["drive3_jump_rad_s"]
    return (f"Largest drive-rate deviation from the reference at {speed * 1e3:.0f} mm/s: "
            + ", ".join(f"drive {i + 1} {dev0[i]:.2f} -> {dev1[i]:.2f} rad/s" for i in range(3))
            + f" (before -> after; the paper reports {jump['none']:.2f} -> {jump['kostic']:.2f} rad/s for its drive 3).")


def friction_note(run: Mapping[str, Any], along: Mapping[str, np.ndarray], v_min: float = 0.25) -> str:
    """Fig. 13 in numbers: the identified friction's span while sliding faster than ``v_min`` [rad/s], and its
    distance from the twin's truth [N m]."""
    sl = run["moving"][:, None] & (np.abs(run["qd"]) > v_min)
    mm = along["model_Nm"][sl]
    lo, hi = trk.PAPER_TEXT["friction_max_range"]
    return (f"During the motion the identified friction spans {np.abs(mm).min():.2f}-{np.abs(mm).max():.2f} N m over the three "
            f"drives while the drives slide faster than {v_min:g} rad/s (paper: largest friction {lo:g}-{hi:g} 'N' at the uniform "
            f"stage, in its drives' unit, shaded); there it stays within "
            f"{np.abs(along['model_Nm'] - along['true_Nm'])[sl].max():.2f} N m of the twin's truth.")


def speed_note(res: Mapping[str, Any]) -> str:
    """Fig. 14 in numbers: the mean speed error before / Kostic / Coulomb + viscous at every speed [mm/s]."""
    rows = {(r["speed"], r["controller"]): r for r in res["table5"]}
    return "Mean speed error, before / Kostic / Coulomb + viscous: " + "; ".join(
        f"{v * 1e3:.0f} mm/s: {rows[(v, 'none')]['mean_abs_mm_s']:.2f} / {rows[(v, 'kostic')]['mean_abs_mm_s']:.2f} / "
        f"{rows[(v, 'coulomb-viscous')]['mean_abs_mm_s']:.2f}" for v in trk.SPEEDS_M_S) + " mm/s."


def baseline_note(ident: Mapping[str, Any]) -> str:
    """Why the Coulomb + viscous baseline falls short on the twin: its curve error against the Kostic law's."""
    ce_k = ident["kostic"]["curve_errors"]["max_rel"]
    ce_cv = ident["coulomb_viscous"]["curve_errors"]["max_rel"]
    return ("* **Kostic vs Coulomb + viscous**: the twin's friction has a Stribeck region inside the paths' speeds (a design "
            f"choice of the twin, stated in its file); the baseline lines miss it by {100 * min(ce_cv):.0f}-{100 * max(ce_cv):.0f} % "
            f"(largest error per drive over the speeds used), the Kostic curves by {100 * min(ce_k):.1f}-{100 * max(ce_k):.1f} %.")


__all__ = ["peak_origin", "variants_table", "differences", "sampling_note", "table2", "fits_note", "limits_table",
           "location_note", "table5", "trends_note", "rates_note", "friction_note", "speed_note", "baseline_note"]
