"""Matplotlib helpers of the room's figures, in the compendium's style (:mod:`paperlib.figures.style`).

The room draws with matplotlib directly; these helpers give its figures what
:func:`paperlib.figures.style.layout_opts` gives a holoviews layout: the style's rcParams and the
panel letters above each panel's top-left corner.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.figures.style import panel_letters  # noqa: F401  (the room's figures letter their panels with it)

__all__ = ["pyplot", "panel_letters", "legend_below", "SERIES_COLORS"]


def pyplot():
    """``matplotlib.pyplot`` (Agg unless a backend is chosen) with the compendium's style applied.

    :func:`paperlib.figures.io.configure` sets the rcParams (sizes, grid, colour cycle), so a figure
    created after this call is drawn in the style.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from paperlib.figures.io import configure

    configure()
    import matplotlib.pyplot as plt

    return plt


def legend_below(fig: Any, axes: Any, ncol: int, bottom: float, top: float = 0.95) -> None:
    """One legend for the whole figure, centred below the panels (the labels of all panels, once each).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    axes : array_like of matplotlib Axes
        Panels whose labelled artists go into the legend (first occurrence of a label wins).
    ncol : int
        Columns of the legend.
    bottom : float
        Figure fraction kept free under the panels for the legend (``tight_layout``'s rect).
    top : float
        Top of the panels' area (figure fraction): the room above holds the figure's title and
        clears the panel letters from it.
    """
    handles: dict[str, Any] = {}
    for ax in np.ravel(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.tight_layout(rect=(0.0, bottom, 1.0, top))
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, frameon=False,
               bbox_to_anchor=(0.5, 0.0), fontsize=7.5)


#: Colours of six series that play no role (joints, days): the Okabe-Ito colours of
#: :data:`paperlib.figures.style.CYCLE` without its pale yellow, and a purple.
SERIES_COLORS: tuple[str, ...] = ("#e69f00", "#56b4e9", "#cc79a7", "#000000", "#999999", "#7b3294")
