"""Every row of a built comparison table that differs from the paper, or agrees only because the
reproduction was calibrated to it, carries a note its room wrote (the static half of this check,
for every room's headlines, is ``tests/contracts/test_comparison_notes.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperlib import comparison as C
from paperlib.provenance import REPO_ROOT

from built_results import built_rooms

pytestmark = pytest.mark.results


unexplained = C.unexplained


def test_the_check_fails_on_a_differing_row_without_a_note():
    h = [C.Headline("x", "a number", "-", 1.0, "approx", "1", "nb", C.dig("x")),
         C.Headline("y", "another", "-", 1.0, "approx", "1", "nb", C.dig("y"), note="because"),
         C.Headline("z", "calibrated", "-", 1.0, "approx", "1", "nb", C.dig("z"), calibrated=True)]
    rows = C.build_comparison({"nb": {"source": "twin", "x": 5.0, "y": 5.0, "z": 1.0}}, h)
    assert unexplained(rows, h) == ["x (differs)", "z (agrees (within 10 %))"]
    assert rows[0]["note"] == "unknown"  # what the table prints meanwhile


BUILT = built_rooms()


@pytest.mark.parametrize("slug,folder", BUILT, ids=[f"{s}:{p.relative_to(REPO_ROOT)}" for s, p in BUILT])
def test_every_differing_row_of_a_built_table_has_its_note(slug: str, folder: Path):
    headlines, _ = C.headlines_of(slug)
    stems = {h.notebook for h in headlines}
    files = [p for p in sorted(folder.glob("*.json")) if p.stem in stems]
    rows = C.build_comparison(C.load_results(files), headlines)
    missing = unexplained(rows, headlines)
    assert not missing, f"{slug} ({folder}): rows that differ or are calibrated without a note: {missing}"
