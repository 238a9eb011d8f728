"""Every figure the notebooks saved says where its data came from.

The figures layer (:func:`paperlib.figures.io.save`) draws a footer from the provenance's
``source`` and writes it to the sidecar. These tests read the sidecars a build left behind
(``figures/<room>/`` of a full build, ``results/smoke/figures/<room>/`` of a smoke build), so
they check every room's figures, not the layer alone (``tests/layers/figures/test_figure_labels.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperlib.figures.io import SOURCE_TEXT, source_footer
from paperlib.provenance import REPO_ROOT

SIDECARS = sorted(p for root in (REPO_ROOT / "figures", REPO_ROOT / "results" / "smoke" / "figures")
                  for p in root.glob("*/*.json"))


@pytest.mark.parametrize("path", SIDECARS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_saved_figure_names_its_source(path: Path) -> None:
    side = json.loads(path.read_text())
    images = [k for k in side.get("files", {}) if k.endswith(".png")]
    if not images:  # not a figure's sidecar (e.g. a view's)
        return
    assert side.get("source") in SOURCE_TEXT, f"{path.name}: source {side.get('source')!r}"
    footer = source_footer(side)
    assert footer and SOURCE_TEXT[side["source"]] in footer
    for name in images:
        assert (path.parent / name).is_file(), f"{path.name}: {name} missing"

