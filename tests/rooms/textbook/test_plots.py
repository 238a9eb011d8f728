"""The course's figures (paperlib.experiments.textbook.plots) draw with the compendium's style: role colours,
no legend to the right of the axes, plain tick labels on lesson 05's log axis, lesson 08's y range after the
start-up transient, one title and two lettered panels for lesson 06."""

from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np
import pytest

from paperlib.experiments.textbook import plots
from paperlib.figures import io as figio
from paperlib.figures import style


@pytest.fixture(scope="module", autouse=True)
def _configured():
    figio.configure()


def _render(obj):
    import holoviews as hv

    return hv.render(obj, backend="matplotlib")


def _colours(ax):
    return {mcolors.to_hex(line.get_color()) for line in ax.get_lines()}


def _legend_inside_or_below(fig, ax):
    fig.canvas.draw()
    leg = ax.get_legend()
    assert leg is not None
    lb, ab = leg.get_window_extent(), ax.get_window_extent()
    assert lb.x1 <= ab.x1 + 1.0, "legend to the right of the axes"


def test_torque_shares_total_in_model_role_shares_in_cycle():
    t = np.linspace(0, 10, 200)
    shares = {"m2": np.sin(t), "mx1": np.cos(t)}
    fig = _render(plots.torque_shares_figure(t, shares, 30 + np.sin(t), title="x"))
    ax = fig.axes[0]
    cols = _colours(ax)
    assert style.ROLES["model"]["color"] in cols
    assert {style.CYCLE[0], style.CYCLE[1]} <= cols
    _legend_inside_or_below(fig, ax)


def test_qr_gap_tolerance_is_the_reference_role():
    d = np.r_[np.linspace(1, 0.3, 10), 1e-16, np.zeros(5)]
    fig = _render(plots.qr_gap_figure(d, 1e-6, title="x"))
    ax = fig.axes[0]
    ref = [ln for ln in ax.get_lines() if mcolors.to_hex(ln.get_color()) == style.ROLES["reference"]["color"]]
    assert ref and ref[0].get_linestyle() == ":"


def test_cutoff_axis_has_plain_tick_labels():
    c = [2.0, 3.0, 5.0, 10.0, 20.0, 40.0]
    fig = _render(plots.cutoff_figure(c, {"causal": [3, 2, 1.5, 0.9, 0.5, 0.8], "zero phase": [2e-3, 1e-3, 2e-3, 3e-3, 2e-2, 0.3]}))
    ax = fig.axes[0]
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["2", "3", "5", "10", "20", "40"]
    assert not any(t.get_text() for t in ax.get_xticklabels(minor=True))
    _legend_inside_or_below(fig, ax)


def test_recursive_y_range_leaves_out_the_start_up():
    t = np.linspace(1, 59, 500)
    est = np.where(t < 30, 0.15, 0.31) + np.where(t < 2.0, 2.0, 0.0)
    fig = _render(plots.recursive_figure(t, est, [1, 30, 30, 59], [0.15, 0.15, 0.31, 0.31], (1.0, 59.0), 0.29, 2.0))
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert hi < 1.0 and lo > 0.0
    cols = _colours(ax)
    assert style.ROLES["truth"]["color"] in cols and style.ROLES["model"]["color"] in cols
    _legend_inside_or_below(fig, ax)


def test_what_if_two_panels_legend_inside():
    names = ["a", "b", "c"]
    fig = _render(plots.what_if_figure(names, np.array([0.1, -0.05, np.nan]), np.array([2e-2, 1.8e-2, 2.1e-2]),
                                       np.array([2e-3, 1e-3, 4e-4]), title="one title"))
    axes = [a for a in fig.axes if a.get_visible() and a.has_data()]
    assert len(axes) == 2
    _legend_inside_or_below(fig, axes[1])
