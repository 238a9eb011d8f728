"""The bearing room's sources: the populations' inspections are recordings (made and read back with
the twin, read from a release with the twin forbidden); a notebook's own recordings are never made on the rig
(tests/rooms/bearing/test_bearing_hardware_source.py: the rig's)."""

from __future__ import annotations

import shutil

import pytest

from paperlib.experiments.bearing import ROOM, classifier, inspection, pipeline, runs, study
from paperlib.experiments.kit.sources import SourceError
from paperlib.twin.guard import FORBID_ENV, TwinForbiddenError


@pytest.fixture(scope="module")
def model():
    m, _ = inspection.fit_intrinsic([runs.no_load_recording(seed=1)])
    return m


def test_room_understands_twin_archive_and_hardware_but_notebooks_never_run_the_rig(tmp_path):
    assert {"twin", "archive", "hardware"} <= set(ROOM.sources)
    with pytest.raises(SourceError, match="not made on the rig"):
        study.recording_source(tmp_path, "hardware")


def test_notebook_02_declares_its_population_recordings():
    cfg = pipeline.load_config({"bearing": {"n_per_grade": 3}})
    recs = pipeline.notebook_recordings("02_bearing_inspection", cfg, "results/bearing")
    assert len(recs) == len(set(recs)) == 2 * 2 * 3
    assert recs[0] == f"results/bearing/recordings/populations/{cfg['tune_seed']}/bearing_0000.nc"
    assert pipeline.notebook_recordings("01_intrinsic_identification", cfg, "results/bearing") == []
    p = pipeline.notebook_params("02_bearing_inspection", cfg, "results/bearing", "figures/bearing",
                                 source="archive", archive="/tmp/rel")
    assert (p["source"], p["archive"], p["results_dir"]) == ("archive", "/tmp/rel", "results/bearing")


def _release(tmp_path, made):
    from paperlib.recordings import read_recording, sha256_file

    rel = tmp_path / "release"
    lines = []
    for nc in sorted((made / "recordings").rglob("*.nc")):
        rel_file = f"results/bearing/{nc.relative_to(made).as_posix()}"
        (rel / rel_file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(nc, rel / rel_file)
        ds = read_recording(nc)
        lines += ["[[recording]]", f'name = "{rel_file[:-3]}"', f'file = "{rel_file}"', f'sha256 = "{sha256_file(nc)}"',
                  f'source = "{ds.attrs["source"]}"', f'robot = "{ds.attrs["robot"]}"', 'description = "test"', ""]
    (rel / "registry.toml").write_text("\n".join(lines))
    return rel


def test_population_from_files_equals_memory_and_archive_draws_nothing(tmp_path, model, monkeypatch):
    made = tmp_path / "twin" / "bearing"
    a = classifier.inspect_population(model, n_per_grade=2, seed=5, source=study.recording_source(made))
    b = classifier.inspect_population(model, n_per_grade=2, seed=5)
    assert a == b and a["grade"] == ["good", "good", "worn", "worn"]
    assert len(list((made / "recordings" / "populations" / "5").glob("bearing_*.nc"))) == 4

    rel = _release(tmp_path, made)
    monkeypatch.setenv(FORBID_ENV, "1")
    c = classifier.inspect_population(model, n_per_grade=2, seed=5,
                                      source=study.recording_source(tmp_path / "archive" / "bearing", "archive", rel))
    assert c == a
    with pytest.raises(TwinForbiddenError):
        classifier.inspect_population(model, n_per_grade=2, seed=5)
