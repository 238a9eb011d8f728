"""Checks of a build's results: what ``make reproduce`` (``results/<slug>/``, ``figures/<slug>/``),
``make smoke`` (``results/smoke/...``) or any room's build left behind.

Every test module here is marked ``results`` (``pytestmark``) and deselected by ``make test``; ``make check-results`` runs
them after a build. With nothing built to look at, ``test_a_build_is_there.py`` fails (the checks
never pass on an empty tree).
"""

from __future__ import annotations
