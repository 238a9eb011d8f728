"""Every paper's comparison table explains itself: a row that differs, or that agrees only because
the reproduction was calibrated to the paper, carries a note written by its room (why, in one
sentence, or an explicit "unknown").

:func:`paperlib.comparison.build_comparison` prints "unknown" when a room wrote no note, so the
table never shows an empty cell; these tests check that the room itself wrote one:

* statically, for every room: a calibrated row always has its note;
* on the numbers of a build (``make check-results``, after ``make reproduce``):
  ``tests/results/test_built_tables.py``.
"""

from __future__ import annotations

import pytest

from paperlib import comparison as C
from paperlib.experiments.kit import registry
from paperlib.provenance import REPO_ROOT

ROOMS = [s for s in registry.slugs() if (REPO_ROOT / "paperlib" / "experiments" / s / "comparison.py").is_file()]


@pytest.mark.parametrize("slug", ROOMS)
def test_every_calibrated_row_has_its_note(slug: str):
    headlines, _ = C.headlines_of(slug)
    missing = [h.key for h in headlines if h.calibrated and not h.note.strip()]
    assert not missing, f"{slug}: calibrated rows without a note: {missing}"


def test_the_csv_carries_the_same_notes_as_the_markdown():
    import csv
    import io

    h = [C.Headline("x", "a number", "-", 1.0, "approx", "1", "nb", C.dig("x"), note="twin drives, assumed"),
         C.Headline("y", "agrees", "-", 1.0, "approx", "1", "nb", C.dig("y"), note="not shown: the row agrees")]
    rows = C.build_comparison({"nb": {"source": "twin", "x": 5.0, "y": 1.0}}, h)
    parsed = list(csv.DictReader(io.StringIO(C.to_csv(rows))))
    assert [r["note"] for r in parsed] == ["twin drives, assumed", ""]
    assert "twin drives, assumed" in C.to_markdown(rows)
