"""Figures: reproducible saving (:mod:`paperlib.figures.io`) and slider views (:mod:`paperlib.figures.views`); the
rooms keep their figure builders (``paperlib/experiments/<slug>/``, declared in each room's ``ROOM.figures``).

Static files use holoviews' matplotlib backend; :func:`paperlib.figures.io.save` writes PNG/SVG
(PDF on request) byte-reproducibly with a provenance sidecar. In JupyterLab the same objects
can be shown with the bokeh backend (``hv.extension("bokeh")``) for interactive inspection.
"""

from paperlib.figures.io import save

__all__ = ["save"]
