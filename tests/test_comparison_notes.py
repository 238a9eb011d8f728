"""Every paper's comparison table explains itself: a row that differs, or that agrees only because
the reproduction was calibrated to the paper, carries a note written by its room (why, in one
sentence, or an explicit "unknown").

:func:`paperlib.comparison.build_comparison` prints "unknown" when a room wrote no note, so the
table never shows an empty cell; these tests check that the room itself wrote one:

* statically, for every room: a calibrated row always has its note;
* on the numbers, for every room whose notebooks' results are in ``results/<slug>/`` (a full
  build) or ``results/smoke/<slug>/`` (``--config config/smoke.yaml``): every row whose verdict
  is not an agreeing one has its note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from paperlib import comparison as C
from paperlib.experiments.kit import registry
from paperlib.provenance import REPO_ROOT

ROOMS = [s for s in registry.slugs() if (REPO_ROOT / "paperlib" / "experiments" / s / "comparison.py").is_file()]


def unexplained(rows: Sequence[Mapping[str, Any]], headlines: Sequence[C.Headline]) -> list[str]:
    """Keys of rows that differ (or are calibrated) while their headline has no note of its own."""
    by_key = {h.key: h for h in headlines}
    out = []
    for r in rows:
        h = by_key[r["key"]]
        if (h.calibrated or r["agreement"] not in C.AGREEING) and not h.note.strip():
            out.append(f"{r['key']} ({r['agreement']})")
    return out


def test_the_check_fails_on_a_differing_row_without_a_note():
    h = [C.Headline("x", "a number", "-", 1.0, "approx", "1", "nb", C.dig("x")),
         C.Headline("y", "another", "-", 1.0, "approx", "1", "nb", C.dig("y"), note="because"),
         C.Headline("z", "calibrated", "-", 1.0, "approx", "1", "nb", C.dig("z"), calibrated=True)]
    rows = C.build_comparison({"nb": {"source": "twin", "x": 5.0, "y": 5.0, "z": 1.0}}, h)
    assert unexplained(rows, h) == ["x (differs)", "z (agrees)"]
    assert rows[0]["note"] == "unknown"  # what the table prints meanwhile


@pytest.mark.parametrize("slug", ROOMS)
def test_every_calibrated_row_has_its_note(slug: str):
    headlines, _ = C.headlines_of(slug)
    missing = [h.key for h in headlines if h.calibrated and not h.note.strip()]
    assert not missing, f"{slug}: calibrated rows without a note: {missing}"


def _built() -> list[tuple[str, Path]]:
    out = []
    for slug in ROOMS:
        for root in (REPO_ROOT / "results", REPO_ROOT / "results" / "smoke"):
            d = root / slug
            if d.is_dir() and any(d.glob("*.json")):
                out.append((slug, d))
    return out


BUILT = _built()


@pytest.mark.parametrize("slug,folder", BUILT, ids=[f"{s}:{p.parent.name}" for s, p in BUILT])
def test_every_differing_row_of_a_built_table_has_its_note(slug: str, folder: Path):
    headlines, _ = C.headlines_of(slug)
    stems = {h.notebook for h in headlines}
    files = [p for p in sorted(folder.glob("*.json")) if p.stem in stems]
    if not files:
        pytest.skip(f"{folder} holds none of {sorted(stems)}")
    rows = C.build_comparison(C.load_results(files), headlines)
    missing = unexplained(rows, headlines)
    assert not missing, f"{slug} ({folder}): rows that differ or are calibrated without a note: {missing}"


def test_the_csv_carries_the_same_notes_as_the_markdown():
    import csv
    import io

    h = [C.Headline("x", "a number", "-", 1.0, "approx", "1", "nb", C.dig("x"), note="twin drives, assumed"),
         C.Headline("y", "agrees", "-", 1.0, "approx", "1", "nb", C.dig("y"), note="not shown: the row agrees")]
    rows = C.build_comparison({"nb": {"source": "twin", "x": 5.0, "y": 1.0}}, h)
    parsed = list(csv.DictReader(io.StringIO(C.to_csv(rows))))
    assert [r["note"] for r in parsed] == ["twin drives, assumed", ""]
    assert "twin drives, assumed" in C.to_markdown(rows)
