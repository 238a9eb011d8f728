"""Notebook 07's plumbing (issue 28): the runs it remakes on the twin calibrated to Fig. 11, what it keeps of
them, and that a calibrated run never stands in for the stated twin's (the numbers themselves: the smoke run
in test_pipeline.py, and test_share_calibration.py for the calibration's rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperlib.experiments.mems import calibrated_twin as ct
from paperlib.experiments.mems import pipeline as P
from paperlib.experiments.mems import sources

RUNS = {"identification": "identification", "PD": "pd", "CTC": "ctc", "AC": "ac"}


def test_the_calibrated_runs_are_the_plans_runs_with_warm_starts_named_by_role():
    cfg = P.load_config(None)
    specs = P.calibrated_specs(cfg, RUNS)
    for role, rec in RUNS.items():
        plan = {k: v for k, v in cfg["recordings"][rec].items() if k not in ("warm_start", "description", "archive_name")}
        assert {k: v for k, v in specs[role].items() if k != "warm_start"} == plan
    assert specs["AC"]["warm_start"] == "identification" and "warm_start" not in specs["identification"]
    made: list[str] = []  # the order the runs are obtained in (nothing simulated: the fake obtain makes nothing)
    sources.obtain_recordings(specs, source="twin", obtain=lambda name, make: made.append(name) or name)
    assert made[0] == "identification" and sorted(made) == sorted(specs)  # made first: the others start from it


def test_a_bad_runs_table_is_refused_naming_the_role():
    cfg = P.load_config(None)
    with pytest.raises(ValueError, match="PD names no recording 'nope'"):
        P.calibrated_specs(cfg, {**RUNS, "PD": "nope"})
    with pytest.raises(ValueError, match="warm-starts from 'identification', which no role names"):
        P.calibrated_specs(cfg, {"AC": "ac"})
    with pytest.raises(sources.SourceError, match="warm_start cycle"):
        sources.obtain_recordings({"a": {"warm_start": "b"}, "b": {"warm_start": "a"}}, source="twin",
                                  obtain=lambda name, make: make())


def test_what_is_kept_of_the_calibrated_runs():
    cfg = P.load_config(None)
    store = P.calibrated_storage(cfg, RUNS)
    assert set(store) == {"identification", "pd", "ctc", "ac"}
    for role in ("pd", "ctc", "ac"):  # what notebook 04 reads of a controller run
        assert set(P.NOTEBOOK_READS["04_controller_comparison"]) <= set(store[role]["keep"])
    assert set(P.WARM_START_READS) <= set(store["identification"]["keep"])  # the others warm-start from it


def test_the_pipeline_gives_notebook_07_its_inputs():
    cfg = P.normalise_config(P.load_config(None))
    params = P.notebook_params(cfg, P.recording_plan(cfg), P.CALIBRATED_NOTEBOOK)
    assert "recordings" not in params and "source" not in params  # no recording of the plan: runs of its own
    assert params["calibration_file"] == P.CALIBRATION_DATA
    assert P.CALIBRATION_DATA in P.notebook_data(P.CALIBRATED_NOTEBOOK)
    assert P.CALIBRATION_DATA not in P.notebook_data("04_controller_comparison")
    assert sorted(P.notebook_result_inputs(cfg, P.CALIBRATED_NOTEBOOK)) == sorted(params["stated_results"].values())
    assert ct.target_keys() == [f"share_{p}_j{j}" for p in ("friction_ff", "feedback", "dynamic_ff") for j in (1, 2)]


def test_a_calibrated_run_never_stands_in_for_the_stated_twins(tmp_path: Path) -> None:
    from paperlib.experiments.mems.notebook import matching_recording
    from paperlib.experiments.mems.synthetic import synthetic_recording
    from paperlib.recordings import write_recording

    ds = synthetic_recording(duration_s=0.5, seed=3)
    ds.attrs["twin_calibration"] = json.dumps({"status": "calibrated"})
    write_recording(ds, tmp_path / "calibrated_x.nc")
    assert matching_recording({"seed": 3, "duration_s": 0.5}, tmp_path) is None
