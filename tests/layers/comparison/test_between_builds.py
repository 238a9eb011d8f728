"""One build's comparison table against another's (:mod:`paperlib.comparison_builds`): each row by its own
rule, the reference build's number in the place of the paper's; bad tables refused."""

from __future__ import annotations

import pytest

from paperlib import comparison as C
from paperlib import comparison_builds as B


def _table(tmp_path, name, values):
    """A small comparison table built by the real table builder (rows of every kind)."""
    heads = [C.Headline("n", "a number", "-", 0.13, "approx", "mm", "01_x", C.dig("n")),
             C.Headline("f", "a factor", "-", 3.0, "factor", "1", "01_x", C.dig("f")),
             C.Headline("p", "a share", "-", 40.0, "percent", "%", "01_x", C.dig("p")),
             C.Headline("u", "a bound", "-", 1.0, "upper_bound", "mm", "01_x", C.dig("u")),
             C.Headline("c", "a finding", "-", True, "choice", "yes/no", "01_x", C.dig("c")),
             C.Headline("b", "beyond", "-", None, "beyond", "mm", "01_x", C.dig("b"))]
    rows = C.build_comparison({"01_x": {"source": "twin", **values}}, heads)
    path = tmp_path / f"{name}.csv"
    path.write_text(C.to_csv(rows))
    return path


TWIN = {"n": 0.1033, "f": 2.0, "p": 44.0, "u": 0.9, "c": True, "b": 5.0}


def test_a_row_at_the_edge_of_its_grade_is_judged_against_the_twin_build(tmp_path):
    """The twin's 0.795 of the paper is 'within a factor 1.5 only', the rig's 0.903 'agrees': 1.136 apart, within 25 %."""
    ref = B.read_table(_table(tmp_path, "twin", TWIN))
    other = B.read_table(_table(tmp_path, "rig", TWIN | {"n": 0.1174}))
    rows = {r["key"]: r for r in B.between_builds(ref, other)}
    assert rows["n"]["between"] == B.WITHIN and rows["n"]["ratio"] == pytest.approx(0.1174 / 0.1033)
    assert not rows["n"]["verdict_kept"]
    assert rows["n"]["agreement_reference"] == "within a factor 1.5 only"
    assert all(r["between"] == B.WITHIN and r["verdict_kept"] for k, r in rows.items() if k != "n")
    assert B.counts(list(rows.values()))[B.WITHIN] == 6


@pytest.mark.parametrize("key,value", [("n", 0.1033 * 1.26), ("n", 0.1033 / 1.26), ("f", 2.0 * 1.3), ("b", 5.0 * 1.3),
                                       ("p", 49.5), ("u", 1.1), ("c", False)])
def test_each_kind_is_held_to_its_own_rule(tmp_path, key, value):
    ref = B.read_table(_table(tmp_path, "twin", TWIN))
    rows = {r["key"]: r for r in B.between_builds(ref, B.read_table(_table(tmp_path, "rig", TWIN | {key: value})))}
    assert rows[key]["between"] == B.OUTSIDE
    assert [k for k, r in rows.items() if r["between"] != B.WITHIN] == [key]


@pytest.mark.parametrize("key,value", [("n", 0.1033 * 1.24), ("p", 48.9), ("u", 0.5)])
def test_inside_each_rule(tmp_path, key, value):
    ref = B.read_table(_table(tmp_path, "twin", TWIN))
    rows = {r["key"]: r for r in B.between_builds(ref, B.read_table(_table(tmp_path, "rig", TWIN | {key: value})))}
    assert rows[key]["between"] == B.WITHIN


def test_a_row_missing_or_not_finite_in_one_build_is_missing(tmp_path):
    ref = B.read_table(_table(tmp_path, "twin", TWIN))
    other_path = _table(tmp_path, "rig", TWIN | {"n": float("nan")})
    rows = {r["key"]: r for r in B.between_builds(ref, B.read_table(other_path))}
    assert rows["n"]["between"] == B.MISSING
    lines = other_path.read_text().splitlines()
    other_path.write_text("\n".join(line for line in lines if not line.startswith("f,")) + "\n")
    rows = {r["key"]: r for r in B.between_builds(ref, B.read_table(other_path))}
    assert rows["f"]["between"] == B.MISSING and rows["f"]["other"] == ""


def test_bad_tables_are_refused(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("key,value\nn,1\n")
    with pytest.raises(ValueError, match="not a comparison table"):
        B.read_table(bad)
    twice = _table(tmp_path, "twin", TWIN)
    twice.write_text(twice.read_text() + twice.read_text().splitlines()[1] + "\n")
    with pytest.raises(ValueError, match="appears twice"):
        B.read_table(twice)
    with pytest.raises(ValueError, match="unknown kind"):
        B.kind_of({"key": "x", "rule": "vibes"})


def test_the_command_writes_the_table_and_says_what_is_outside(tmp_path, capsys):
    ref = _table(tmp_path, "twin", TWIN)
    assert B.main(["--reference", str(ref), "--other", str(ref)]) == 0
    assert "6 of 6 within the rule" in capsys.readouterr().out
    rig = _table(tmp_path, "rig", TWIN | {"c": False})
    md = tmp_path / "out.md"
    assert B.main(["--reference", str(ref), "--other", str(rig), "--md", str(md)]) == 1
    text = md.read_text()
    assert "5 of 6 within the rule, 1 outside" in text and "**outside the rule**" in text
    assert B.main(["--reference", str(tmp_path / "none.csv"), "--other", str(rig)]) == 2
