"""Paper 004's figures follow the compendium's style, and the notebooks' tables say what they claim.

Figures: every legend lies inside its axes (a legend to the right took ~40 % of the width), the paper's
values are drawn in the "paper" role and the twin's truth in the "truth" role (Fig. 3c once drew both in
one component colour), and a layout carries its title once (the pass/fail histograms repeated a
three-line title in every panel). Tables: the numbers come from the inputs, not from the text.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex

from paperlib.experiments.bearing import figures as figs
from paperlib.experiments.bearing import report
from paperlib.figures import io as fio
from paperlib.figures import style


def _render(obj):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = fio.render(obj)
    FigureCanvasAgg(fig).draw()
    return fig


def _legends_inside(fig) -> None:
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        lb, ab = leg.get_window_extent(r), ax.get_window_extent(r)
        assert lb.x0 >= ab.x0 - 1 and lb.x1 <= ab.x1 + 1 and lb.y0 >= ab.y0 - 1 and lb.y1 <= ab.y1 + 1, \
            f"legend {[t.get_text() for t in leg.get_texts()]} outside its axes"


def _line_colours(ax) -> set[str]:
    return {to_hex(line.get_color()) for line in ax.get_lines()}


@pytest.fixture(scope="module")
def run30():
    t = np.linspace(0.0, 30.0, 6000)
    qd = 1.5 * np.sign(np.sin(2 * np.pi * t / 6.0))
    q = np.cumsum(qd) * (t[1] - t[0])
    comps = {"inertia": 0.005 * np.cos(t), "offset": np.full_like(t, -0.15), "ripple": 0.2 * np.sin(3 * q),
             "friction": 0.12 * np.tanh(5 * qd)}
    truth = {k: 1.1 * v for k, v in comps.items()}
    return t, q, qd, comps, truth


def test_fig3c_roles_one_panel_per_component_legend_inside(run30):
    t, q, _, comps, truth = run30
    fig = _render(figs.fig3_components(t, comps, truth, "twin", q=q))
    axes = [ax for ax in fig.axes if ax.get_lines()]
    assert len(axes) == 4
    paper, truth_c, model = (style.role(r)["color"] for r in ("paper", "truth", "model"))
    for ax in axes:
        colours = _line_colours(ax)
        assert {paper, truth_c, model} <= colours, ax.get_title()
    assert "joint angle" in axes[2].get_xlabel()  # the ripple over the angle, where it is one curve
    _legends_inside(fig)


def test_single_panel_figures_keep_their_legends_inside(run30):
    t, q, qd, comps, _ = run30
    tau = comps["offset"] + comps["ripple"] + comps["friction"]
    for obj, has_paper in ((figs.fig3_time(t, tau, tau, "twin", 1.0), True), (figs.fig3_angle(q, tau, qd, "twin"), True),
                           (figs.fig5_time(t, tau, tau - comps["ripple"], tau - comps["ripple"] - comps["offset"], "twin",
                                           0.27, 0.11), False)):
        fig = _render(obj)
        assert len(fig.axes) == 1
        _legends_inside(fig)
        assert (style.role("paper")["color"] in _line_colours(fig.axes[0])) == has_paper


def test_classifier_histograms_title_once_and_distinct_panel_titles():
    rng = np.random.default_rng(0)
    grade = np.array(["good"] * 50 + ["worn"] * 50)
    pop = {"grade": grade, "reference": np.r_[rng.normal(0.9, 0.05, 50), rng.normal(1.2, 0.05, 50)],
           "uncompensated": np.r_[rng.normal(1.1, 0.05, 50), rng.normal(1.4, 0.05, 50)],
           "compensated": np.r_[rng.normal(0.95, 0.05, 50), rng.normal(1.25, 0.05, 50)]}
    fig = _render(figs.classifier_histograms(pop, {"reference": 1.0, "uncompensated": 1.2, "compensated": 1.05}, "twin"))
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert len(set(titles)) == len(titles) == 3 and all("\n" not in s for s in titles)
    assert sum(ax.get_legend() is not None for ax in fig.axes) == 1
    assert fig._suptitle is not None and "held-out population" in fig._suptitle.get_text()
    _legends_inside(fig)


def test_direction_levels_are_the_means_per_direction():
    qd = np.r_[np.full(10, 1.0), np.full(30, -1.0), np.zeros(5)]
    tau = np.r_[np.full(10, 0.1), np.full(30, -0.3), np.full(5, 7.0)]
    df = report.direction_levels(tau, qd)
    assert df["reproduced [N m]"].tolist() == pytest.approx([round(float(tau.mean()), 3), 0.1, -0.3])


def test_fig3_table_sets_the_summary_beside_the_paper():
    sm = {"inertia": {"min": -0.02, "max": 0.01}, "offset_value": -0.16, "ripple": {"amplitude": 0.21},
          "friction": {"min": -0.15, "max": 0.16}, "levels": {"level_pos": -0.05, "level_neg": -0.27},
          "residual_rms": 0.026, "tau_s_rms": 0.22}
    df = report.fig3_table(sm)
    assert "twin truth" not in df.columns  # no truth: hardware data
    assert df.loc["offset", "identified"] == "-0.1600" and df.loc["offset", "paper"] == f"{report.PAPER_FIG3['offset']:+.4f}"
    assert df.loc["inertia, largest magnitude", "identified"] == "+0.0200"
