"""The rrr room's sources: twin (every run notebook 02 makes is a recording, analysed from its file)
and archive (the same files read back with the twin forbidden); hardware makes the sampling run on the
rig (tests/rooms/rrr/test_rrr_hardware_source.py), and the notebooks' own runs stay the twin's."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from paperlib.experiments.kit.sources import SourceError
from paperlib.experiments.rrr import ROOM, recorded, report, sensitivity
from paperlib.experiments.rrr import tracking as trk
from paperlib.twin.guard import FORBID_ENV, TwinForbiddenError


def test_room_understands_twin_archive_and_hardware_and_its_notebooks_never_hardware(tmp_path):
    assert {"twin", "archive", "hardware"} <= set(ROOM.sources)
    with pytest.raises(SourceError, match="only the sampling run"):
        report.recording_source(tmp_path, "hardware")
    with pytest.raises(SourceError, match="release folder"):
        report.recording_source(tmp_path, "archive")


def test_recording_names_are_unique_and_cover_every_run():
    names = report.tracking_recordings()
    assert len(names) == len(set(names))
    n_ctrl = len(trk.CONTROLLERS + trk.TWIN_ONLY_CONTROLLERS)
    n_variants = len([v for v in sensitivity.VARIANTS if v != recorded.STATED])
    assert len(names) == len(trk.SPEEDS_M_S) * n_ctrl + len(trk.CONTROLLERS) + n_variants * (1 + len(trk.SPEEDS_M_S) * n_ctrl)


def test_twin_from_recording_is_the_twin_it_was_made_with(recording, twin):
    tw = recorded.twin_from_recording(recording)
    v = np.linspace(-3.0, 3.0, 61)
    assert all(np.array_equal(tw.steady_friction(v, i), twin.steady_friction(v, i)) for i in range(3))
    assert tw.k_f == twin.k_f and np.array_equal(tw.kp, twin.kp) and np.array_equal(tw.kd, twin.kd)
    assert tw.control_rate_hz == twin.control_rate_hz


def _release(tmp_path, made):
    """A minimal release folder of the recordings under ``made`` (what `paperlib archive pack` lays out)."""
    from paperlib.recordings import read_recording, sha256_file

    rel = tmp_path / "release"
    lines = []
    for nc in sorted((made / "recordings").rglob("*.nc")):
        rel_file = f"results/rrr/{nc.relative_to(made).as_posix()}"
        (rel / rel_file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(nc, rel / rel_file)
        ds = read_recording(nc)
        lines += ["[[recording]]", f'name = "{rel_file[:-3]}"', f'file = "{rel_file}"', f'sha256 = "{sha256_file(nc)}"',
                  f'source = "{ds.attrs["source"]}"', f'robot = "{ds.attrs["robot"]}"', 'description = "test"', ""]
    (rel / "registry.toml").write_text("\n".join(lines))
    return rel


def test_path_run_from_file_equals_memory_and_archive_runs_no_twin(tmp_path, robot, twin, monkeypatch):
    made = tmp_path / "twin" / "rrr"
    src = report.recording_source(made)
    a = trk.run_path(robot, twin, 0.4, None, source=src)
    b = trk.run_path(robot, twin, 0.4, None)
    assert src.path(recorded.path_name("twin", 0.4, "none")).is_file()
    for k in ("max_peak_mm_s", "min_peak_mm_s", "mean_abs_mm_s", "max_position_error_mm"):
        assert a[k] == b[k]
    assert np.array_equal(a["speed_error"], b["speed_error"]) and np.array_equal(a["v_true"], b["v_true"])

    rel = _release(tmp_path, made)
    monkeypatch.setenv(FORBID_ENV, "1")
    again = report.recording_source(tmp_path / "archive" / "rrr", "archive", rel)
    c = trk.run_path(robot, twin, 0.4, None, source=again)
    assert c["mean_abs_mm_s"] == a["mean_abs_mm_s"] and np.array_equal(c["speed_error"], a["speed_error"])
    with pytest.raises(TwinForbiddenError):  # a run the release does not hold is never simulated
        trk.run_path(robot, twin, 0.4, None)
