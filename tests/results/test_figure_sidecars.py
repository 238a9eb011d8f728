"""Every figure a build saved says where its data came from.

The figures layer (:func:`paperlib.figures.io.save`) draws a footer from the provenance's
``source`` and writes it to the sidecar; these checks read the sidecars a build left behind
(``figures/<room>/`` of a full build, ``results/smoke/figures/<room>/`` of a smoke build), so
they check every room's figures, not the layer alone (``tests/layers/figures/test_figure_labels.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperlib.figures.io import SOURCE_TEXT, source_footer
from paperlib.provenance import REPO_ROOT

from built_results import figure_sidecars

pytestmark = pytest.mark.results

SIDECARS = figure_sidecars()


@pytest.mark.parametrize("path", SIDECARS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_saved_figure_names_its_source(path: Path) -> None:
    side = json.loads(path.read_text())
    assert side.get("source") in SOURCE_TEXT, f"{path.name}: source {side.get('source')!r}"
    footer = source_footer(side)
    assert footer and SOURCE_TEXT[side["source"]] in footer
    for name in (k for k in side["files"] if k.endswith(".png")):
        assert (path.parent / name).is_file(), f"{path.name}: {name} missing"
