"""Study files (validation), reachability and the comparison notes written from a summary."""

from __future__ import annotations

import math
import types
from pathlib import Path

import numpy as np
import pytest
import yaml

from paperlib.comparison import AGREEING, Headline
from paperlib.sensitivity import engine, notes, reach, study
from paperlib.sweeps.assumptions import Assumption

ASS = {"a": Assumption("a", 1.0, 0.0, 2.0, "1", "m", "r"), "b": Assumption("b", 0.5, 0.1, 1.0, "Hz", "m", "r", log=True)}
HEADS = [Headline("y", "toy y", "-", 6.5, "approx", "1", "nb", lambda r: None),
         Headline("k", "toy choice", "-", 3, "choice", "model", "nb", lambda r: None)]
RUNNER = types.SimpleNamespace(__name__="toy.sweep", ASSUMPTIONS=ASS, headlines=lambda: HEADS)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(study, "runner_module", lambda paper: RUNNER)
    monkeypatch.setattr(engine, "runner_module", lambda paper: RUNNER)
    return RUNNER


def _write(tmp_path: Path, **doc) -> Path:
    base = {"name": "s", "paper": "toy", "headlines": ["y"]}
    base.update(doc)
    p = tmp_path / "study.yaml"
    p.write_text(yaml.safe_dump({k: v for k, v in base.items() if v is not None}))
    return p


def test_a_valid_study_counts_its_runs(tmp_path: Path, toy) -> None:
    st = study.load_study(_write(tmp_path, morris={"trajectories": 3}, sobol={"base_n": 8, "top_k": 5}, seeds=[1, 2]))
    assert st.assumptions == ["a", "b"] and st.morris == {"trajectories": 3, "levels": 4, "seed": 1}
    assert st.n_morris_runs == (3 * 3 + 1) * 2 and st.n_sobol_runs == 8 * (2 + 2) * 2  # top_k capped at 2
    assert st.summary_file("R") == "R/toy/sensitivity/s/summary.json"


@pytest.mark.parametrize("doc, match", [
    ({"colour": "red"}, r"unknown key\(s\) \['colour'\]"),
    ({"headlines": None}, "missing 'headlines'"),
    ({"assumptions": ["a", "zz"]}, r"unknown assumption\(s\) \['zz'\]"),
    ({"assumptions": ["a"]}, "at least 2"),
    ({"headlines": ["nope"]}, r"unknown headline\(s\) \['nope'\]"),
    ({"sobol": {"base_n": 12}}, "power of 2"),
    ({"morris": {"levels": 5}}, "even"),
    ({"morris": {"trajectories": 1}}, ">= 2"),
    ({"morris": {"r": 4}}, r"unknown morris key\(s\) \['r'\]"),
    ({"seeds": [1, 1]}, "distinct"),
    ({"name": "a b"}, "letters, digits"),
])
def test_bad_study_files_are_refused_naming_the_problem(tmp_path: Path, toy, doc, match) -> None:
    with pytest.raises(study.StudyConfigError, match=match):
        study.load_study(_write(tmp_path, **doc))


def test_a_runner_without_assumptions_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(study, "runner_module", lambda paper: types.SimpleNamespace(__name__="bare.sweep"))
    with pytest.raises(study.StudyConfigError, match="declares no ASSUMPTIONS"):
        study.load_study(_write(tmp_path))


def test_an_unknown_paper_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(study.StudyConfigError, match="no sweep runner for paper 'nopaper'"):
        study.load_study(_write(tmp_path, paper="nopaper"))
    with pytest.raises(study.StudyConfigError, match="not found"):
        study.load_study(tmp_path / "missing.yaml")


def test_reachability_uses_the_rows_rule_and_gives_the_region() -> None:
    pts = [{"a": 0.2, "b": 0.3}, {"a": 1.8, "b": 0.9}, {"a": 1.9}, {}]
    vals = [1.0, 6.4, 7.0, float("nan")]  # 'approx' 6.5: 6.4 and 7.0 agree, 1.0 does not, NaN has no value
    r = reach.reachability(vals, pts, HEADS[0], ["a", "b"], {"a": 1.0, "b": 0.5})
    assert r["reachable"] and r["n_reaching"] == 2 and r["n_samples"] == 3
    assert r["region"] == {"a": [1.8, 1.9], "b": [0.5, 0.9]}  # the missing b is its stated 0.5
    none = reach.reachability([1.0, 2.0], pts[:2], HEADS[0], ["a", "b"], {"a": 1.0, "b": 0.5})
    assert not none["reachable"] and none["region"] is None
    # a model-choice row: a mean over seeds rounds to the nearest model
    assert reach.agrees("choice", 3, 3.2) and not reach.agrees("choice", 3, 3.6)
    assert reach.agrees("choice", True, 0.75) and not reach.agrees("choice", True, 0.25)
    assert not reach.agrees("approx", 6.5, math.nan)


def _summary() -> dict:
    ranking = [{"name": "a", "index": "ST", "value": 0.712, "conf": 0.204},
               {"name": "b", "index": "ST", "value": 0.31, "conf": 0.1}]
    return {"study": "s", "n_runs": {"morris": 7, "sobol": 8},
            "assumptions": {"a": {"unit": "1"}, "b": {"unit": "Hz"}},
            "rows": [{"key": "y", "paper": 6.5, "twin_stated": 3.0, "range": [1.0, 7.0], "ranking": ranking,
                      "reachable": True, "n_reaching": 3, "n_samples": 15, "region": {"a": [1.5, 2.0], "b": [0.2, 0.9]}},
                     {"key": "k", "paper": 3, "twin_stated": 4.0, "range": [4.0, 5.0], "ranking": ranking[:1],
                      "reachable": False, "n_reaching": 0, "n_samples": 15, "region": None}]}


def test_the_note_names_the_top_assumption_its_index_and_reachability() -> None:
    s = _summary()
    y = notes.headline_note(s["rows"][0], s)
    assert "15 twin runs" in y and "moved most by a (Sobol' ST 0.71 +/- 0.20), then b (Sobol' ST 0.31 +/- 0.10)" in y
    assert "the paper's 6.5 is reached inside the stated ranges in 3 of 15 samples (a 1.5-2; b 0.2-0.9 Hz)" in y
    assert "twin at the stated values 3" in y and "not used to change the twin" in y
    k = notes.headline_note(s["rows"][1], s)
    assert "the paper's 3 is not reached inside the stated ranges (range over the samples 4-5)" in k
    # a headline no assumption moves gets no ranking (Morris mu* all 0 would name an arbitrary one)
    flat = {**s["rows"][1], "range": [0.0, 0.0], "paper": True}
    f = notes.headline_note(flat, s)
    assert "no assumption moves it inside the stated ranges (the same value, 0, in all 15 samples)" in f
    assert "moved most" not in f


def test_add_sensitivity_extends_only_differing_studied_rows() -> None:
    rows = [{"key": "y", "agreement": "differs", "note": "why"}, {"key": "k", "agreement": "same", "note": ""},
            {"key": "other", "agreement": "differs", "note": "x"}]
    out = notes.add_sensitivity(rows, _summary(), AGREEING)
    assert out[0]["note"].startswith("why; sensitivity (study 's'") and out[0]["sensitivity"] in out[0]["note"]
    assert out[1] == rows[1] and out[2] == rows[2]
    assert rows[0]["note"] == "why"  # copies


def test_stage_points_are_fixed_by_the_seeds_and_end_with_the_stated_twin(tmp_path: Path, toy) -> None:
    st = study.load_study(_write(tmp_path, morris={"trajectories": 3}, sobol={"base_n": 4, "top_k": 1}))
    p1, X1, pts1 = engine.stage_points(st, "morris")
    assert len(pts1) == 3 * 3 + 1 and pts1[-1] == {} and X1.shape == (9, 2)
    assert engine.stage_points(st, "morris")[2] == pts1
    assert all(ASS[n].contains(v) for p in pts1 for n, v in p.items())
    _, X2, pts2 = engine.stage_points(st, "sobol", ["b"])
    assert len(pts2) == 4 * 3 and all(set(p) == {"b"} for p in pts2)
    assert np.allclose([math.log(p["b"]) for p in pts2], X2[:, 0])  # log assumption: sampled in log space


def test_the_ranking_never_hides_a_top_assumption_left_out_of_sobol() -> None:
    morris = {"names": ["a", "b", "c"], "mu_star": [1.0, 0.5, 3.0], "mu_star_conf": [0.1, 0.1, 0.2]}
    sobol = {"names": ["a", "b"], "ST": [0.3, 0.8], "ST_conf": [0.1, 0.2]}
    # c moves it most (Morris) but had no Sobol' stage: the Morris ranking is given
    assert [(r[0], r[1]) for r in engine._top(morris, sobol)] == [("c", "mu_star"), ("a", "mu_star"), ("b", "mu_star")]
    morris["mu_star"] = [1.0, 2.0, 0.5]  # b tops Morris and has ST: the Sobol' ranking
    assert [(r[0], r[1]) for r in engine._top(morris, sobol)] == [("b", "ST"), ("a", "ST")]


def test_the_comparison_command_adds_the_notes(tmp_path: Path) -> None:
    """``python -m paperlib.comparison --sensitivity``: a studied row that does not agree gets the note."""
    import json

    from paperlib.comparison import main

    s = _summary()
    s["rows"][0]["key"] = "CTC_vs_PD_rms_j1"
    (tmp_path / "s.json").write_text(json.dumps(s))
    (tmp_path / "02_model_order.json").write_text(json.dumps({"source": "twin", "choice": {"chosen": 3}}))
    rc = main(["--paper", "mems", "--results", str(tmp_path / "02_model_order.json"), "--csv", str(tmp_path / "t.csv"),
               "--md", str(tmp_path / "t.md"), "--sensitivity", str(tmp_path / "s.json")])
    md = (tmp_path / "t.md").read_text()
    assert rc == 0
    row = next(line for line in md.splitlines() if line.startswith("| RMS joint error, CTC vs PD") and "| 1 |" in line)
    assert "moved most by a (Sobol' ST 0.71 +/- 0.20)" in row  # not reproduced here: it does not agree
    knee = next(line for line in md.splitlines() if "knee of the residual curve" in line)
    assert "sensitivity (study" not in knee  # 'k' is not a key of the table; the agreeing knee row is left alone
    assert main(["--paper", "mems", "--results", str(tmp_path / "02_model_order.json"), "--csv", str(tmp_path / "t.csv"),
                 "--md", str(tmp_path / "t.md"), "--sensitivity", str(tmp_path / "missing.json")]) == 2
