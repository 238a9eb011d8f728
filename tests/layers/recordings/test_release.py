"""Recordings out of a data release: registered, sha256-checked, into any results folder; and the
room kit's RecordingSource, which makes (twin) or copies (archive) every recording a room reads."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib import recordings as R
from paperlib.experiments.kit.sources import RecordingSource, SourceError
from paperlib.recordings import release as REL
from paperlib.twin import guard


def _recording(seed: int = 0):
    q = np.random.default_rng(seed).normal(size=(200, 2))
    return R.from_arrays(q, sample_rate_hz=100.0, robot="x", source="twin", writer="test 1",
                         channels={"tau_m": np.ones((200, 2))}, torque_side="motor",
                         truth={"note": "random angles, no model"}, seed=seed)


def _release(tmp_path, names=("run_a",), slug="toy"):
    """A release folder as `paperlib archive pack` lays it out: files under results/<slug>/recordings, a registry."""
    rel = tmp_path / "release"
    reg = rel / REL.REGISTRY_NAME
    entries = []
    for i, name in enumerate(names):
        f = rel / REL.release_file(slug, name)
        f.parent.mkdir(parents=True, exist_ok=True)
        R.write_recording(_recording(i), f)
        entries.append(R.registry_entry(f, name=REL.release_file(slug, name)[:-3], description="test", registry=reg))
    reg.write_text("\n".join(entries))
    return rel


def test_copy_from_release_is_byte_identical_and_maps_any_results_root(tmp_path):
    rel = _release(tmp_path)
    out = tmp_path / "elsewhere" / "results" / "smoke" / "toy" / "recordings" / "run_a.nc"
    assert REL.output_in_release(out, tmp_path / "elsewhere" / "results" / "smoke") == "results/toy/recordings/run_a.nc"
    assert REL.main(["--release", str(rel), "--results-root", str(tmp_path / "elsewhere/results/smoke"), str(out)]) == 0
    assert out.read_bytes() == (rel / "results/toy/recordings/run_a.nc").read_bytes()


def test_release_refusals_name_the_file(tmp_path):
    rel = _release(tmp_path)
    with pytest.raises(R.RecordingError, match="no recording results/toy/recordings/nope.nc.*run_a.nc"):
        REL.copy_from_release(rel, "results/toy/recordings/nope.nc", tmp_path / "x.nc")
    f = rel / "results/toy/recordings/run_a.nc"
    data = bytearray(f.read_bytes())
    data[-10] ^= 0xFF
    f.write_bytes(bytes(data))
    with pytest.raises(R.RecordingError, match="sha256"):
        REL.copy_from_release(rel, "results/toy/recordings/run_a.nc", tmp_path / "x.nc")
    assert not (tmp_path / "x.nc").exists()
    with pytest.raises(R.RecordingError, match="not a data release"):
        REL.release_entries(tmp_path)
    with pytest.raises(R.RecordingError, match="not inside the results folder"):
        REL.output_in_release(tmp_path / "a.nc", tmp_path / "results")


def test_recording_source_twin_writes_what_archive_reads_back(tmp_path):
    built = RecordingSource("toy", tmp_path / "results" / "toy")
    a = built.obtain("run_a", _recording)
    assert built.path("run_a").is_file()
    rel = tmp_path / "release"
    dest = rel / REL.release_file("toy", "run_a")
    dest.parent.mkdir(parents=True)
    dest.write_bytes(built.path("run_a").read_bytes())
    (rel / REL.REGISTRY_NAME).write_text(R.registry_entry(dest, name="results/toy/recordings/run_a", description="t",
                                                          registry=rel / REL.REGISTRY_NAME))

    def no_twin():
        raise AssertionError("archive must not call make()")

    again = RecordingSource("toy", tmp_path / "new" / "toy", source="archive", archive=rel)
    b = again.obtain("run_a", no_twin)
    np.testing.assert_array_equal(a.q.values, b.q.values)
    assert again.path("run_a").read_bytes() == built.path("run_a").read_bytes()
    with pytest.raises(SourceError, match="needs the release folder"):
        RecordingSource("toy", tmp_path, source="archive")
    with pytest.raises(SourceError, match="not one of"):
        RecordingSource("toy", tmp_path, source="simulator")


def test_twin_guard_refuses_every_twin_entry(monkeypatch):
    from paperlib.twin.robots import planar_arm, wheel_bearing

    monkeypatch.setenv(guard.FORBID_ENV, "1")
    with pytest.raises(guard.TwinForbiddenError, match="wheel_bearing.population"):
        wheel_bearing.population("good", 2, seed=1)
    arm = planar_arm.planar_arm(2)
    with pytest.raises(guard.TwinForbiddenError, match="planar_arm.simulate"):
        planar_arm.simulate(arm, None)
    monkeypatch.setenv(guard.FORBID_ENV, "0")
    assert not guard.forbidden()
    assert len(wheel_bearing.population("good", 2, seed=1)) == 2
