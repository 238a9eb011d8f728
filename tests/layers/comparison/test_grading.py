"""The graded agreement of :mod:`paperlib.comparison` (issue 27, item 3): the grades at their edges,
which grades agree, the rule stated in each row and in the table's header, and the old rule kept
only to flag re-graded rows."""

from __future__ import annotations

import csv
import io

import pytest

from paperlib import comparison as C


@pytest.mark.parametrize("ratio,expected", [
    (1.0, "within 10 %"), (1.1, "within 10 %"), (1 / 1.1, "within 10 %"),
    (1.1 * 1.0001, "within 25 %"), (0.9, "within 25 %"),  # 0.9 < 1/1.1 = 0.909: the grades are symmetric in the ratio
    (1.25, "within 25 %"), (0.8, "within 25 %"),
    (1.25 * 1.0001, "within a factor 1.5"), (0.8 / 1.0001, "within a factor 1.5"),
    (1.5, "within a factor 1.5"), (1 / 1.5, "within a factor 1.5"),
    (1.5 * 1.0001, "within a factor 2"), (2.0, "within a factor 2"), (0.5, "within a factor 2"),
    (2.0 * 1.0001, "differs"), (0.5 / 1.0001, "differs"),
    (-1.0, "differs"), (0.0, "differs"), (None, "differs"), (float("nan"), "differs"), (float("inf"), "differs"),
])
def test_grades_at_their_edges(ratio, expected):
    assert C.grade(ratio) == expected


def test_the_grades_are_nested_and_tightest_first():
    fs = [f for _, f in C.GRADES]
    assert fs == sorted(fs) and fs[0] > 1.0 and len(set(fs)) == len(fs)
    assert set(C.NEEDS.values()) <= {g for g, _ in C.GRADES}


@pytest.mark.parametrize("value,verdict", [
    (1.05, "agrees (within 10 %)"), (1.2, "agrees (within 25 %)"), (0.8, "agrees (within 25 %)"),
    (0.7, "within a factor 1.5 only"), (1.4, "within a factor 1.5 only"),
    (0.55, "within a factor 2 only"), (1.9, "within a factor 2 only"),
    (0.45, "differs"), (2.2, "differs"), (-1.0, "differs"),
])
def test_approx_verdicts(value, verdict):
    ratio, v = C.agreement("approx", 1.0, value)
    assert ratio == pytest.approx(value) and v == verdict
    assert (v in C.AGREEING) == v.startswith("agrees")


def test_about_minus_0_3_reproduced_as_minus_0_157_no_longer_agrees():
    ratio, verdict = C.agreement("approx", -0.3, -0.157)
    assert ratio == pytest.approx(0.5233, abs=1e-4)
    assert verdict == "within a factor 2 only" and verdict not in C.AGREEING
    assert C.old_agreement("approx", -0.3, -0.157)[1] == "agrees"  # what the table said before issue 27
    assert C.regraded("approx", -0.3, -0.157).startswith("re-graded: was 'agrees'")


def test_no_verdict_is_loosened():
    """Every value the new rules call agreeing was agreeing under the old ones (a dense sweep of ratios)."""
    for kind in ("approx", "factor"):
        for i in range(1, 4001):
            v = i / 1000.0  # ratios 0.001 .. 4
            new = C.agreement(kind, 1.0, v)[1]
            old = C.old_agreement(kind, 1.0, v)[1]
            assert not (new in C.AGREEING and old not in C.AGREEING), (kind, v, old, new)


def test_factor_rule_keeps_its_band_and_says_the_grade():
    assert C.agreement("factor", 2.0, 2.0)[1] == "agrees (within 10 %)"
    assert C.agreement("factor", 2.0, 1.6)[1] == "agrees (within 25 %)"  # ratio 0.8, the old band's edge
    assert C.agreement("factor", 2.0, 1.58)[1] == "same direction"
    assert C.agreement("factor", 2.0, 0.9)[1] == "differs"


def test_each_row_states_the_grade_reached_and_needed():
    h = [C.Headline("a", "about", "-", -0.3, "approx", "N m", "nb", C.dig("a"), note="twin friction assumed"),
         C.Headline("b", "factor", "-", 2.0, "factor", "1", "nb", C.dig("b")),
         C.Headline("c", "share", "-", 40.0, "percent", "%", "nb", C.dig("c")),
         C.Headline("d", "far", "-", 1.0, "approx", "1", "nb", C.dig("d"), note="why"),
         C.Headline("e", "choice", "-", True, "choice", "", "nb", C.dig("e"))]
    rows = C.build_comparison({"nb": {"source": "twin", "a": -0.157, "b": 2.1, "c": 43.0, "d": 5.0, "e": True}}, h)
    by = {r["key"]: r for r in rows}
    assert by["a"]["rule"] == "approx: within a factor 2 reached, needs within 25 %"
    assert by["a"]["grade"] == "within a factor 2" and by["a"]["needs"] == "within 25 %"
    assert by["a"]["old_agreement"] == "agrees" and by["a"]["note"].startswith("re-graded: was 'agrees'")
    assert by["a"]["note"].endswith("twin friction assumed")
    assert by["b"]["rule"] == "factor: within 10 % reached, needs within 25 %" and by["b"]["note"] == ""
    assert by["c"]["rule"].startswith("percent: 3 points off") and by["c"]["agreement"] == "agrees"
    assert by["d"]["rule"] == "approx: beyond a factor 2, needs within 25 %" and by["d"]["note"] == "why"
    assert by["e"]["rule"] == "choice" and by["e"]["grade"] == "" and by["e"]["old_agreement"] == "same"
    # CSV: the old columns first, in their order; the new ones appended
    header = next(csv.reader(io.StringIO(C.to_csv(rows))))
    assert header[:11] == ["key", "quantity", "joint", "paper", "reproduced", "unit", "source", "ratio", "agreement",
                           "rule", "note"]
    assert header[11:] == ["grade", "needs", "old_agreement"]
    md = C.to_markdown(rows)
    assert "| agreement | rule | note |" in md
    assert "| within a factor 2 only | approx: within a factor 2 reached, needs within 25 % | re-graded" in md
    head = md.split("| quantity |")[0]  # the grading is stated before the table
    for g, f in C.GRADES:
        assert g in head and f"{f:g}" in head
    assert "agrees (within 25 %)" in head and "within a factor 2 only" in head


def test_a_regraded_row_without_a_note_is_caught():
    h = [C.Headline("x", "about 1", "-", 1.0, "approx", "1", "nb", C.dig("x")),
         C.Headline("u", "about 1", "-", 1.0, "approx", "1", "nb", C.dig("u"), note="unknown"),
         C.Headline("y", "about 1", "-", 1.0, "approx", "1", "nb", C.dig("y"), note="the twin's drives are assumed"),
         C.Headline("z", "about 1", "-", 1.0, "approx", "1", "nb", C.dig("z"))]
    rows = C.build_comparison({"nb": {"source": "twin", "x": 0.7, "u": 1.7, "y": 0.6, "z": 1.02}}, h)
    assert C.unexplained(rows, h) == ["x (re-graded: agrees -> within a factor 1.5 only)",
                                      "u (re-graded: agrees -> within a factor 2 only)"]
