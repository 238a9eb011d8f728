"""Figures: holoviews builders (:mod:`paperlib.figures.paper`) and reproducible saving (:mod:`paperlib.figures.io`).

Static files use holoviews' matplotlib backend; :func:`paperlib.figures.io.save` writes PNG/SVG
(PDF on request) byte-reproducibly with a provenance sidecar. In JupyterLab the same objects
can be shown with the bokeh backend (``hv.extension("bokeh")``) for interactive inspection.
"""

from paperlib.figures.io import save

__all__ = ["save"]
