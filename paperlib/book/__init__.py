"""The static site: the identification course and every paper's reproduction as one book.

Built with **Sphinx + MyST-NB** (chosen over Jupyter Book 2, whose MyST/Node build fetches its
theme from the network at build time; Sphinx, MyST-NB and the book theme are PyPI packages
that build offline). The notebooks are executed beforehand by the pipeline (papermill); the
book only renders them (``nb_execution_mode = "off"``), so the numbers in the site are the
executed cells'.

- :mod:`paperlib.book.collect` finds the rooms: every ``results/<slug>/`` and
  ``figures/<slug>/`` (executed notebooks, figures with sidecars, comparison tables, results
  JSON with their ``source``), so a paper added later appears without editing this code.
- :mod:`paperlib.book.build` writes the Sphinx source tree (landing page with the twin /
  measured table, one page per paper, the course first) and runs Sphinx into ``results/book/``.
- :mod:`paperlib.book.serve` serves a built site on localhost (the browser test, and
  ``paperlib book serve`` for a reader).
"""

from paperlib.book.collect import Room, discover
from paperlib.book.build import build_site

__all__ = ["Room", "discover", "build_site"]
