"""The compendium's figure style: colour roles, limits from the data, panel letters clear of the panels."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgb

from paperlib.figures import style


def test_roles_have_distinct_colours_and_the_cycle_uses_none_of_them() -> None:
    role_colours = [to_rgb(o["color"]) for o in style.ROLES.values()]
    assert len(set(role_colours)) == len(role_colours)
    assert not set(role_colours) & {to_rgb(c) for c in style.CYCLE}


def test_role_returns_a_copy_with_overrides_and_names_the_roles_on_a_typo() -> None:
    o = style.role("paper", linewidth=3.0)
    assert o["linewidth"] == 3.0 and o["linestyle"] == "--"
    assert style.ROLES["paper"]["linewidth"] != 3.0
    with pytest.raises(KeyError, match="truth"):
        style.role("twin_truth")


def test_limits_hold_the_finite_data_and_the_included_levels() -> None:
    lo, hi = style.limits(np.array([-1.2, 0.3, np.nan, 1.1]), margin=0.1)
    span = 1.1 - (-1.2)
    assert lo == pytest.approx(-1.2 - 0.1 * span) and hi == pytest.approx(1.1 + 0.1 * span)
    lo2, hi2 = style.limits([0.2, 0.4], include=[-0.3])
    assert lo2 < -0.3 < 0.2 < 0.4 < hi2
    a, b = style.limits([2.0, 2.0])
    assert a < 2.0 < b
    with pytest.raises(ValueError, match="finite"):
        style.limits([np.nan, np.inf])


def test_panel_letters_sit_outside_the_panel() -> None:
    x, y = style.layout_opts()["sublabel_position"]
    assert x < 0.0 and y > 1.0


def test_configure_applies_the_style() -> None:
    from paperlib.figures.io import configure

    configure()
    for k, v in style.RC.items():
        assert matplotlib.rcParams[k] == v, k
    assert [to_rgb(c) for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]] == \
        [to_rgb(c) for c in style.CYCLE]


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _agg_figure(ncols: int = 2):
    from paperlib.figures.io import configure

    configure()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 3.0))
    axes = fig.subplots(1, ncols)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a long legend entry")
        ax.plot([0, 1], [1, 0], label="another entry")
    return fig, axes


def test_panel_letters_are_drawn_clear_of_every_panel() -> None:
    fig, axes = _agg_figure()
    style.panel_letters(axes)
    fig.tight_layout()
    r = _renderer(fig)
    letters = [t for ax in axes for t in ax.texts]
    assert [t.get_text() for t in letters] == ["A", "B"]
    for t in letters:
        box = t.get_window_extent(r)
        for ax in axes:
            assert not box.overlaps(ax.get_window_extent(r)), t.get_text()


def test_figure_legend_below_sits_under_the_panels() -> None:
    fig, axes = _agg_figure()
    h, lab = axes[0].get_legend_handles_labels()
    leg = style.figure_legend_below(fig, h, lab, ncol=2)
    fig.tight_layout()
    r = _renderer(fig)
    assert leg.get_window_extent(r).y1 <= min(ax.get_window_extent(r).y0 for ax in axes) + 1e-6


def test_legend_below_hook_moves_the_legend_under_the_x_label() -> None:
    import holoviews as hv

    from paperlib.figures.io import configure

    configure()
    plot = (hv.Curve([0, 1], label="up") * hv.Curve([1, 0], label="down")).opts(
        xlabel="time [s]", hooks=[style.legend_below_hook(2)])
    fig = hv.render(plot, backend="matplotlib")
    ax = fig.axes[0]
    r = _renderer(fig)
    leg = ax.get_legend()
    assert leg is not None and leg._ncols == 2
    assert leg.get_window_extent(r).y1 <= ax.xaxis.label.get_window_extent(r).y0 + 1e-6


def test_headroom_adds_to_the_top_only() -> None:
    assert style.headroom((-1.0, 3.0), 0.25) == (-1.0, 4.0)
