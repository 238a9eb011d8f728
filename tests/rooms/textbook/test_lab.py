"""Where the lessons' recordings come from (paperlib.experiments.textbook.lab): the twin now, kept in the
results folder and read back losslessly; or the data release, with every twin run forbidden. And what the
rules pass the lessons (source, archive, results folder) and what a lesson run by hand defaults to."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib import recordings as R
from paperlib.control.excitation import random_fourier
from paperlib.experiments.kit import registry
from paperlib.experiments.kit.parameters import declared
from paperlib.experiments.textbook import identify as idf
from paperlib.experiments.textbook import pipeline as P
from paperlib.experiments.textbook.lab import Lab
from paperlib.recordings import release as REL
from paperlib.twin import guard
from paperlib.twin.robots.planar_arm import planar_arm, simulate, true_params

RECORDING_LESSONS = ["02_least_squares", "04_excitation", "05_acceleration", "06_sequential_vs_global", "08_recursive_ls"]


def _spec():
    arm = planar_arm(2)
    return arm, random_fourier(arm.n, 3, 0.2, 1.0, seed=3), dict(duration_s=2.0, sample_rate_hz=200.0, seed=5)


def test_twin_recording_is_kept_and_read_back_bit_for_bit(tmp_path):
    arm, traj, kw = _spec()
    lab = Lab("02_least_squares", results_dir=tmp_path / "textbook")
    ds = lab.record("fourier", arm, traj, **kw)
    direct = simulate(arm, traj, **kw)
    f = tmp_path / "textbook" / "recordings" / "02_least_squares-fourier.nc"
    assert f.is_file() and lab.path("fourier") == f
    for v in ("q", "tau_m", "time"):
        np.testing.assert_array_equal(ds[v].values, direct[v].values)
    np.testing.assert_array_equal(idf.true_base(arm.base_parameters(), ds), arm.base_parameters().project(true_params(arm)))
    # the same name again: the recording already obtained, the twin not run again
    assert lab.record("fourier", arm, traj, **kw) is ds
    assert [r["file"] for r in lab.used] == [str(f.resolve())]
    assert lab.used[0]["sha256"] == R.sha256_file(f) and lab.used[0]["source"] == "twin"
    assert lab.provenance["source"] == "twin"
    assert lab.provenance["recordings"] == [{"name": "02_least_squares-fourier.nc", "source": "twin", "files": lab.used}]


def test_figure_footer_names_the_lessons_recordings_together_and_pack_finds_each(tmp_path):
    from paperlib.archive.collect import references
    from paperlib.figures.io import source_footer

    arm, traj, kw = _spec()
    lab = Lab("04_excitation", results_dir=tmp_path)
    prov = lab.provenance  # taken before the recordings, as a lesson does
    for a in ("0.5", "1"):
        lab.record(f"amplitude_{a}", arm, traj, **kw)
    assert source_footer(prov) == ("Data: digital twin (simulated, not measured) | recordings: 04_excitation-*.nc (2 files)"
                                   " | notebooks/textbook/04_excitation.ipynb")
    assert sorted(references(prov)) == sorted((r["file"], r["sha256"]) for r in lab.used)
    assert [r["file"] for r in lab.used] == [str((tmp_path / "recordings" / f"04_excitation-amplitude_{a}.nc").resolve())
                                             for a in ("0.5", "1")]


def test_a_new_lab_clears_only_its_lessons_old_recordings(tmp_path):
    arm, traj, kw = _spec()
    Lab("02_least_squares", results_dir=tmp_path).record("old", arm, traj, **kw)
    Lab("04_excitation", results_dir=tmp_path).record("other", arm, traj, **kw)
    Lab("02_least_squares", results_dir=tmp_path)
    assert sorted(p.name for p in (tmp_path / "recordings").glob("*.nc")) == ["04_excitation-other.nc"]


def test_archive_reads_the_release_and_runs_no_twin(tmp_path, monkeypatch):
    arm, traj, kw = _spec()
    made = Lab("05_acceleration", results_dir=tmp_path / "twin").record("fourier", arm, traj, **kw)
    rel = tmp_path / "release"
    dest = rel / REL.release_file("textbook", "05_acceleration-fourier")
    dest.parent.mkdir(parents=True)
    dest.write_bytes((tmp_path / "twin" / "recordings" / "05_acceleration-fourier.nc").read_bytes())
    (rel / REL.REGISTRY_NAME).write_text(R.registry_entry(dest, name="results/textbook/recordings/05_acceleration-fourier",
                                                          description="t", registry=rel / REL.REGISTRY_NAME))
    monkeypatch.setenv(guard.FORBID_ENV, "1")
    with pytest.raises(guard.TwinForbiddenError):
        simulate(arm, traj, **kw)
    lab = Lab("05_acceleration", source="archive", archive=rel, results_dir=tmp_path / "again")
    got = lab.record("fourier", arm, traj, **kw)
    np.testing.assert_array_equal(got["tau_m"].values, made["tau_m"].values)
    assert got.attrs["truth"] == made.attrs["truth"]
    assert lab.used[0]["obtained"] == "release" and lab.used[0]["source"] == "twin"
    with pytest.raises(R.RecordingError, match="no recording results/textbook/recordings/05_acceleration-other.nc"):
        lab.record("other", arm, traj, **kw)


def test_refusals():
    with pytest.raises(ValueError, match="'twin' or 'archive'"):
        Lab("02_least_squares", source="hardware")
    with pytest.raises(ValueError, match="needs the release folder"):
        Lab("02_least_squares", source="archive")
    with pytest.raises(ValueError, match="recording name"):
        Lab("02_least_squares").record("../x", None, None)


def test_the_room_understands_archive():
    assert "archive" in registry.room("textbook").sources


def test_rules_pass_source_archive_and_results_folder_to_the_recording_lessons_only():
    cfg = P.load_config()
    for nb in P.notebooks(cfg):
        twin = P.notebook_params(cfg, nb, results_dir="R/textbook", figures_dir="F/textbook")
        arch = P.notebook_params(cfg, nb, results_dir="R/textbook", figures_dir="F/textbook", source="archive",
                                 archive="/rel")
        if nb in RECORDING_LESSONS:
            assert (twin["source"], twin["archive"], twin["results_dir"]) == ("twin", None, "R/textbook")
            assert (arch["source"], arch["archive"]) == ("archive", "/rel")
            # run by hand: the twin, into the scratch folder
            d = declared(f"{P.NOTEBOOK_DIR}/{nb}.ipynb")
            assert (d["source"], d["archive"], d["results_dir"]) == ("twin", None, "scratch/textbook")
        else:
            assert "source" not in twin and "source" not in arch


def test_no_lesson_calls_the_twin_itself():
    import json

    for nb in P.notebooks(P.load_config()):
        cells = json.loads((P.REPO_ROOT / P.NOTEBOOK_DIR / f"{nb}.ipynb").read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        assert "simulate(" not in code, nb
        assert ("lab.record(" in code) == (nb in RECORDING_LESSONS), nb
