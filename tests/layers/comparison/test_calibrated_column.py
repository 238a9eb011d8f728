"""The calibrated twin's column of a comparison table (:func:`paperlib.comparison.add_calibrated`, issue 28):
the same rows read from a calibrated twin's results, graded by the same rule, its targets labelled."""

from __future__ import annotations

import csv
import io

import pytest

from paperlib import comparison as C

HEADLINES = [
    C.Headline("ratio_j1", "error ratio", "1", 2.0, "factor", "1", "04_nb", C.dig("ratios", 0)),
    C.Headline("share_j1", "a share", "1", 40.0, "percent", "%", "04_nb", C.dig("shares", 0)),
    C.Headline("order", "model order", "-", 3, "choice", "model", "02_nb", C.dig("chosen")),
]
STATED = {"04_nb": {"source": "twin", "ratios": [1.9], "shares": [30.0]}, "02_nb": {"source": "twin", "chosen": 4}}


def _block(ratio: float, share: float) -> dict:
    return {"source": "twin", "calibrated_twin": {
        "label": "twin calibrated to X", "calibrated_to": ["share_j1"],
        "results": {"04_nb": {"source": "twin", "ratios": [ratio], "shares": [share]}}}}


def test_the_column_reads_the_same_paths_grades_by_the_same_rule_and_labels_the_targets():
    results = {**STATED, "07_cal": _block(0.9, 40.02)}
    rows = C.add_calibrated(C.build_comparison(results, HEADLINES), results, HEADLINES)
    by = {r["key"]: r for r in rows}
    # the stated twin's columns are untouched
    assert by["ratio_j1"]["reproduced"] == 1.9 and by["ratio_j1"]["agreement"] == "agrees (within 10 %)"
    assert by["share_j1"]["reproduced"] == 30.0
    # the calibrated twin's number, graded as the stated one would be: 0.9 / 2.0 is beyond a factor 2
    assert by["ratio_j1"]["calibrated"] == 0.9 and by["ratio_j1"]["calibrated_agreement"] == "differs"
    # the calibration's target agrees by construction and says so
    assert by["share_j1"]["calibrated"] == 40.02
    assert by["share_j1"]["calibrated_agreement"] == "calibrated to it (agrees)"
    # a notebook the calibrated twin did not redo has no number there
    assert by["order"]["calibrated"] is None and by["order"]["calibrated_agreement"] == ""


def test_a_target_the_calibration_misses_says_so_in_its_verdict():
    results = {**STATED, "07_cal": _block(2.0, 55.0)}
    by = {r["key"]: r for r in C.add_calibrated(C.build_comparison(results, HEADLINES), results, HEADLINES)}
    assert by["share_j1"]["calibrated_agreement"] == "calibrated to it (roughly)"


def test_without_a_calibrated_twin_the_table_is_as_before():
    rows = C.build_comparison(STATED, HEADLINES)
    assert C.add_calibrated(rows, STATED, HEADLINES) == rows
    text = C.to_csv(rows)
    assert "calibrated" not in text.splitlines()[0]
    assert "calibrated twin" not in C.to_markdown(rows)


def test_csv_and_markdown_carry_the_column():
    results = {**STATED, "07_cal": _block(0.9, 40.02)}
    rows = C.add_calibrated(C.build_comparison(results, HEADLINES), results, HEADLINES)
    got = list(csv.DictReader(io.StringIO(C.to_csv(rows))))
    assert [r["calibrated"] for r in got] == ["0.9", "40.02", ""]
    md = C.to_markdown(rows)
    assert "| calibrated twin | agreement (calibrated twin) |" in md and "twin calibrated to X" in md
    header = next(line for line in md.splitlines() if line.startswith("| quantity"))
    for line in md.splitlines():
        if line.startswith("| error ratio") or line.startswith("| a share"):
            assert line.count(" | ") == header.count(" | "), line


def test_two_calibrated_twins_or_a_block_without_results_are_refused():
    results = {**STATED, "07_a": _block(1.0, 40.0), "07_b": _block(1.0, 40.0)}
    with pytest.raises(ValueError, match="more than one calibrated twin"):
        C.add_calibrated(C.build_comparison(results, HEADLINES), results, HEADLINES)
    bad = {**STATED, "07_cal": {"calibrated_twin": {"label": "x"}}}
    with pytest.raises(ValueError, match="no 'results'"):
        C.add_calibrated(C.build_comparison(bad, HEADLINES), bad, HEADLINES)
