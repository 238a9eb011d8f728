"""Slider views that work without a kernel: holoviews HoloMaps embedded in static HTML.

A HoloMap (or a DynamicMap over a finite set of key values) shown with a widget needs a
running Python kernel to redraw -- unless every frame is computed in advance and shipped
with the page. :func:`save_view` renders such an object with holoviews' bokeh backend into
one self-contained HTML file: every frame is embedded (panel's ``embed``), the bokeh and panel
JavaScript is inlined and panel's stylesheets become ``data:`` URIs, so the file opens offline in any browser, from a static site or
from disk. :func:`embed_view` turns that file into a notebook output (an ``<iframe srcdoc>``),
which JupyterLab shows as it is and a Sphinx/MyST-NB book copies verbatim into its page, so
the slider moves in the built site with no server behind it. :func:`slider_view` does both.

Each view carries a JSON sidecar (like :func:`paperlib.figures.io.save`): what it shows, the
number of frames, the provenance handed in, and the sha256 of the HTML.

The files are about 3 MB each (bokeh + panel inline); they are build outputs, never
committed. Bokeh writes fresh element ids on every run, so the HTML is not byte-identical
from run to run (the static PNG/SVG figures are).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import io
import json
import mimetypes
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping

from paperlib.figures.io import source_footer

__all__ = ["save_view", "embed_view", "slider_view", "inline_panel_css", "VIEW_CLASS"]

#: CSS class of the iframe that holds a view (the browser test looks for it).
VIEW_CLASS = "paperlib-view"


def _frames(obj: Any) -> int:
    """Number of frames a HoloMap-like object holds (1 for a plain element)."""
    data = getattr(obj, "data", None)
    if isinstance(data, dict):
        return len(data)
    return 1


def _as_holomap(obj: Any) -> Any:
    """A DynamicMap with finite ``values`` on every key dimension becomes a HoloMap (all frames)."""
    import holoviews as hv

    if isinstance(obj, hv.DynamicMap):
        for kd in obj.kdims:
            if not kd.values:
                raise ValueError(
                    f"DynamicMap key dimension {kd.name!r} has no finite 'values': a static page can only "
                    "embed a finite set of frames (give the dimension values=[...])")
        import itertools

        keys = list(itertools.product(*[kd.values for kd in obj.kdims]))
        return hv.HoloMap({k if len(k) > 1 else k[0]: obj[k] for k in keys}, kdims=obj.kdims)
    return obj


_PANEL_CSS = re.compile(r"https://cdn\.holoviz\.org/panel/[^/\"']+/dist/([^\"'?\s]+\.(?:css|ico|png|svg))(\?[^\"'\s]*)?")


def inline_panel_css(doc: str) -> str:
    """Replace panel's CDN stylesheet (and icon) links in a saved page by ``data:`` URIs of the installed files.

    Panel writes its component stylesheets as links to its CDN even when the JavaScript is
    inlined; offline (and in a site that must load nothing from outside) they fail. The same
    files ship inside the installed ``panel`` package (``panel/dist/``).

    Raises
    ------
    FileNotFoundError
        When a linked stylesheet is not in the installed package.
    """
    import panel

    dist = Path(panel.__file__).parent / "dist"

    def repl(m: re.Match[str]) -> str:
        f = dist / m.group(1)
        if not f.is_file():
            raise FileNotFoundError(f"panel stylesheet {m.group(0)} not found in the installed package ({f})")
        mime = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
        return f"data:{mime};base64," + base64.b64encode(f.read_bytes()).decode("ascii")

    return _PANEL_CSS.sub(repl, doc)


def _bokeh_defaults(width: int, height: int) -> None:
    """Plot size (and hover) for the element types the course draws, in the bokeh backend only."""
    import holoviews as hv

    o = hv.opts
    hv.opts.defaults(*(getattr(o, k)(width=width, height=height, tools=["hover"], show_grid=True)
                       for k in ("Curve", "Scatter", "Bars", "Points", "Area", "Spread")), backend="bokeh")


def save_view(obj: Any, path: str | os.PathLike[str], *, title: str,
              provenance: Mapping[str, Any] | None = None, max_states: int = 1000,
              width: int = 560, height: int = 300) -> Path:
    """Write a holoviews object with its widgets as one self-contained HTML file.

    Parameters
    ----------
    obj : holoviews object
        A HoloMap / HoloMap-based layout (every frame is embedded), or a DynamicMap whose key
        dimensions all have finite ``values``.
    path : path-like
        Output ``.html`` file (a sidecar ``.json`` is written beside it).
    title : str
        Page title (say what the view shows and where its data come from).
    provenance : mapping, optional
        Stored in the sidecar (e.g. ``{"source": "twin", "notebook": ...}``); when it names a
        ``source``, the page shows the static figures' source line under the view
        (:func:`paperlib.figures.io.source_footer`).
    max_states : int
        Refuse objects with more frames than this (each frame is stored in the page).
    width, height : int
        Default size of each plot [CSS px] (options set on the object itself win).

    Returns
    -------
    Path
        The HTML file.
    """
    import holoviews as hv
    from bokeh.resources import INLINE

    obj = _as_holomap(obj)
    n = _frames(obj)
    if n > max_states:
        raise ValueError(f"view {title!r} has {n} frames, more than max_states={max_states}")
    if "bokeh" not in hv.Store.renderers:
        # the plotting module, not hv.extension: no notebook loader output (it would point the
        # page at a CDN), and the caller's current backend stays current
        current = hv.Store.current_backend
        import holoviews.plotting.bokeh  # noqa: F401

        hv.Store.set_current_backend(current if current in hv.Store.renderers else "bokeh")
    _bokeh_defaults(width, height)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".html", dir=target.parent)
    os.close(fd)
    try:
        import panel as pn

        # widgets under the plot (a book's column is narrow); panel's progress bar kept off stderr
        pane = pn.pane.HoloViews(obj, backend="bokeh", widget_location="bottom")
        footer = source_footer(provenance or {})
        if footer:  # the same source line as the static figures, under the widgets
            pane = pn.Column(pane.layout, pn.pane.HTML(f'<div class="{VIEW_CLASS}-source" style="font-size:11px;color:#555">'
                                                f"{html.escape(footer)}</div>"))
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            pane.save(tmp, embed=True, resources=INLINE, title=title, max_states=max_states)
        Path(tmp).write_text(inline_panel_css(Path(tmp).read_text(encoding="utf-8")), encoding="utf-8")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    side = {"title": title, "frames": n, "file": target.name,
            "sha256": hashlib.sha256(target.read_bytes()).hexdigest(), "provenance": dict(provenance or {})}
    target.with_suffix(".json").write_text(json.dumps(side, indent=2, sort_keys=True, default=str) + "\n")
    return target


def embed_view(path: str | os.PathLike[str], *, height: int = 520, title: str | None = None) -> Any:
    """A notebook output showing a saved view: an ``<iframe srcdoc>`` holding the whole file.

    The iframe has the class :data:`VIEW_CLASS` and ``data-view`` = the file name.

    Parameters
    ----------
    path : path-like
        HTML file written by :func:`save_view`.
    height : int
        Frame height [CSS px].
    title : str, optional
        The iframe's title (accessibility); defaults to the file name.

    Returns
    -------
    IPython.display.HTML
    """
    from IPython.display import HTML

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such view (write it with save_view first)")
    doc = p.read_text(encoding="utf-8")
    t = html.escape(title or p.stem, quote=True)
    return HTML(f'<div class="{VIEW_CLASS}-box"><iframe class="{VIEW_CLASS}" title="{t}" data-view="{html.escape(p.name, quote=True)}" '
                f'style="width:100%;height:{int(height)}px;border:0" srcdoc="{html.escape(doc, quote=True)}"></iframe></div>')


def slider_view(obj: Any, path: str | os.PathLike[str], *, title: str, height: int = 460,
                provenance: Mapping[str, Any] | None = None, plot_width: int = 560, plot_height: int = 300) -> Any:
    """:func:`save_view` then :func:`embed_view`: write the view and return its notebook output
    (``height`` is the frame's, ``plot_width``/``plot_height`` each plot's [CSS px])."""
    p = save_view(obj, path, title=title, provenance=provenance, width=plot_width, height=plot_height)
    return embed_view(p, height=height, title=title)
