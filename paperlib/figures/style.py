"""The compendium's figure style: colour roles, legends, panel letters and axis limits.

Every figure of every room draws with these choices, so a reader who has learnt one figure can
read the next:

* **colour roles** (:data:`ROLES`), fixed across the compendium: what was measured (or what the
  twin's sensors reported) is dark grey, its raw samples light grey, a fitted or identified model
  blue, the twin's ground truth green, a value taken from the paper vermillion and dashed, a
  reference (zero, a limit) grey and dotted. Other series take the colour-blind-safe
  Okabe-Ito cycle (:data:`CYCLE`), never a role's colour;
* **legends inside or below the axes** (:data:`LEGEND_INSIDE`, :data:`LEGEND_BELOW`), never to
  their right, where a legend takes a third of the width;
* **one title per figure**: panels of a layout are told apart by their letter
  (:func:`layout_opts` places it above the panel's top-left corner, clear of the data and of
  any legend), not by repeating the figure's title;
* **axis limits from the data** (:func:`limits`), with a small margin, not from a fixed range.

:func:`apply` sets the matplotlib rcParams behind these choices; :func:`paperlib.figures.io.configure`
calls it, so every figure saved through :mod:`paperlib.figures.io` gets it.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

__all__ = ["ROLES", "CYCLE", "LEGEND_INSIDE", "LEGEND_BELOW", "role", "limits", "headroom", "layout_opts",
           "panel_letters", "figure_legend_below", "legend_below_hook", "apply", "RC"]

#: Colour role -> matplotlib line/marker options. Keys are the kinds of series a figure of this
#: compendium shows; every figure uses these, so "green" means twin truth everywhere.
ROLES: dict[str, dict[str, Any]] = {
    "measured": {"color": "#333333", "linestyle": "-", "linewidth": 1.2},
    "raw": {"color": "#bdbdbd", "linestyle": "-", "linewidth": 0.6},
    "model": {"color": "#0072b2", "linestyle": "-", "linewidth": 1.6},
    "truth": {"color": "#009e73", "linestyle": "-", "linewidth": 1.4},
    "paper": {"color": "#d55e00", "linestyle": "--", "linewidth": 1.3},
    "reference": {"color": "#8c8c8c", "linestyle": ":", "linewidth": 0.9},
}

#: Colours for series that play no role above (Okabe-Ito, minus the roles' blue, green and vermillion).
CYCLE: tuple[str, ...] = ("#e69f00", "#56b4e9", "#cc79a7", "#f0e442", "#000000", "#999999")

#: holoviews (matplotlib backend) options of a legend inside the axes, where the data leave room.
LEGEND_INSIDE: dict[str, Any] = {"legend_position": "best", "legend_opts": {"framealpha": 0.85, "fontsize": 8}}
#: ... and of a legend below the axes (for plots whose data fill the whole frame).
LEGEND_BELOW: dict[str, Any] = {"legend_position": "bottom", "legend_opts": {"framealpha": 0.0, "fontsize": 8}}

#: matplotlib rcParams of the style (sizes in points).
RC: dict[str, Any] = {
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "axes.titlelocation": "left",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "legend.fontsize": 8.0,
    "legend.framealpha": 0.85,
    "legend.frameon": True,
    "legend.edgecolor": "#cccccc",
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    "figure.titlesize": 11.0,
    "lines.linewidth": 1.3,
}


def role(name: str, **overrides: Any) -> dict[str, Any]:
    """Line options of colour role ``name`` (see :data:`ROLES`), with ``overrides`` applied.

    Raises
    ------
    KeyError
        For a name that is not a role (the message lists the roles).
    """
    try:
        opts = dict(ROLES[name])
    except KeyError:
        raise KeyError(f"unknown colour role {name!r}; the roles are {sorted(ROLES)}") from None
    opts.update(overrides)
    return opts


def limits(*arrays: Iterable[float] | np.ndarray, margin: float = 0.08,
           include: Iterable[float] = ()) -> tuple[float, float]:
    """Axis limits that hold every finite value of ``arrays`` (and ``include``), widened by ``margin``.

    Parameters
    ----------
    *arrays : array_like
        The data drawn on the axis (any shapes; NaN and inf are ignored).
    margin : float
        Fraction of the data's span added on each side.
    include : iterable of float
        Values the range must also hold (a paper's reference level, zero).

    Returns
    -------
    (lo, hi) : tuple of float
        ``lo < hi``; a constant series gets a span of ``2 margin`` around its value (or +-``margin``
        at zero).

    Raises
    ------
    ValueError
        When no finite value is given.
    """
    parts = [np.asarray(a, dtype=float).ravel() for a in arrays]
    parts.append(np.asarray(list(include), dtype=float))
    v = np.concatenate(parts) if parts else np.empty(0)
    v = v[np.isfinite(v)]
    if v.size == 0:
        raise ValueError("limits: no finite value to set the axis range from")
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    if span == 0.0:
        span = abs(lo) if lo != 0.0 else 1.0
    return lo - margin * span, hi + margin * span


def headroom(lim: tuple[float, float], fraction: float = 0.25) -> tuple[float, float]:
    """Axis limits ``lim`` with ``fraction`` of their span added on top: room for a legend inside a wide, flat panel."""
    lo, hi = lim
    return lo, hi + fraction * (hi - lo)


def layout_opts(**overrides: Any) -> dict[str, Any]:
    """holoviews Layout options: panel letters A, B, ... above each panel's top-left corner.

    The letter sits outside the axes (axes fraction x < 0, y > 1), so it never lands on the data
    or on a legend inside the neighbouring panel; the panels carry no repeated title (give the
    figure one title on the Layout).
    """
    opts = {"sublabel_format": "{Alpha}", "sublabel_position": (-0.12, 1.04), "sublabel_size": 11,
            "tight": True}
    opts.update(overrides)
    return opts


def panel_letters(axes: Any, first: int = 0, x: float | None = None, y: float | None = None) -> None:
    """Letter the panels of a matplotlib figure A, B, ... where :func:`layout_opts` puts holoviews' letters.

    Parameters
    ----------
    axes : matplotlib Axes or array of them
        The panels, in reading order.
    first : int
        Index of the first letter (0: "A").
    x, y : float, optional
        The letters' position in axes fraction (default: :func:`layout_opts`'s, outside the panel;
        a panel with wide tick labels needs a more negative ``x``).

    Call it before ``tight_layout`` / ``constrained_layout`` runs, so the layout makes room for
    the letters (afterwards they can land on a figure title).
    """
    x0, y0 = layout_opts()["sublabel_position"]
    x = x0 if x is None else x
    y = y0 if y is None else y
    for k, ax in enumerate(np.ravel(axes)):
        ax.text(x, y, chr(ord("A") + first + k), transform=ax.transAxes, fontsize=11, fontweight="bold",
                ha="left", va="bottom")


def figure_legend_below(fig: Any, handles: list, labels: list, ncol: int, y: float = 0.0) -> Any:
    """One legend for a whole matplotlib figure, centred below its panels, without a frame.

    For figures whose data fill every panel. ``y`` is the legend's top edge in figure
    coordinates (0: the figure's bottom edge; save with ``bbox_inches="tight"``).
    """
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol, frameon=False,
                      fontsize=LEGEND_BELOW["legend_opts"]["fontsize"])


def legend_below_hook(ncol: int) -> Any:
    """A holoviews (matplotlib backend) hook that moves an axes' legend below it, under the x label.

    holoviews' ``legend_position="bottom"`` draws the legend over the x label and, with several
    columns, spreads the entries over the axes' width until their texts overlap; the hook keeps
    :data:`LEGEND_BELOW`'s choice (below, no frame) with matplotlib's own ``ncol`` layout.
    """
    def hook(plot: Any, element: Any) -> None:
        ax = plot.handles["axis"]
        leg = ax.get_legend()
        if leg is None:
            return
        handles, labels = list(leg.legend_handles), [t.get_text() for t in leg.get_texts()]
        leg.remove()
        # anchored at the axes' bottom edge, pushed down a fixed distance in font sizes (clear of the tick
        # labels and the x label whatever the axes' height)
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, borderaxespad=4.0,
                  **LEGEND_BELOW["legend_opts"])
    return hook


def apply() -> None:
    """Set the style's matplotlib rcParams (idempotent; called by :func:`paperlib.figures.io.configure`)."""
    import matplotlib
    from cycler import cycler

    matplotlib.rcParams.update(RC)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(CYCLE))
