"""The recording writer's live mirror: another process reads the rows below the count while the
writer goes on, across chunk boundaries; the finished file is the one written without a mirror."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from paperlib import recordings as R

FS = 1000.0
EXTRA = {"lateness": R.Channel("start lateness", "s", dims=()),
         "status": R.Channel("a count", "1", dims=(), dtype="int64")}


def _writer(path, mirror=None, **kw):
    return R.RecordingWriter(path, [1, 2], robot="five_bar", source="hardware", sample_rate_hz=FS,
                             channels=("q", "tau_m"), torque_side="motor", writer=None, extra_channels=EXTRA,
                             chunk_size=7, mirror=mirror, **kw)


def _sample(k: int) -> dict:
    return dict(q=[0.01 * k, np.sin(k)], tau_m=[0.5, -k / 3.0], lateness=1e-6 * (k % 5), status=k % 3)


#: Another process: map the mirror, print what it sees (count, times, the last q) as JSON.
READ_ELSEWHERE = """
import json, sys
from paperlib.recordings import LiveReader
r = LiveReader(sys.argv[1])
s = r.read()
print(json.dumps({"ready": r.ready(), "total": s.total, "finished": s.finished, "time": s.time.tolist(),
                  "q_last": s.channels["q"][-1].tolist() if len(s) else None}))
"""


def _read_elsewhere(folder) -> dict:
    out = subprocess.run([sys.executable, "-c", READ_ELSEWHERE, str(folder)], capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout)


def test_another_process_reads_the_rows_appended_so_far(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    w = _writer(tmp_path / "w.nc", R.LiveMirror(folder), preallocate=10)
    for k in range(9):  # past the first chunk of 7 rows, into the second
        w.append(k / FS, **_sample(k))
    seen = _read_elsewhere(folder)
    assert seen["ready"] and seen["total"] == 9 and not seen["finished"]
    np.testing.assert_allclose(seen["time"], np.arange(9) / FS, rtol=0, atol=0)
    np.testing.assert_array_equal(seen["q_last"], [0.08, np.sin(8)])
    for k in range(9, 23):  # chunks made by the writer as it goes (beyond what was preallocated)
        w.append(k / FS, **_sample(k))
    seen = _read_elsewhere(folder)
    assert seen["total"] == 23 and len(seen["time"]) == 23
    w.close()
    assert _read_elsewhere(folder)["finished"]


def test_strided_reads_and_a_row_not_yet_written(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    w = _writer(tmp_path / "w.nc", R.LiveMirror(folder), preallocate=30)
    for k in range(20):
        w.append(k / FS, **_sample(k))
    r = R.LiveReader(folder)
    s = r.read(3, stride=4)
    np.testing.assert_array_equal(s.time, np.arange(3, 20, 4) / FS)
    np.testing.assert_array_equal(s.channels["status"], np.arange(3, 20, 4) % 3)
    assert s.channels["status"].dtype == np.int64 and s.channels["q"].shape == (5, 2)
    assert len(r.read(20)) == 0 and r.read(20).total == 20
    # a count ahead of the rows (a reader on a machine that reorders stores): stops at the unwritten row
    count = np.load(folder / "count.npy", mmap_mode="r+")
    count[0] = 22
    count.flush()
    assert len(r.read()) == 20
    count[0] = 20
    count.flush()
    w.close()


def test_the_file_is_the_same_with_and_without_a_mirror(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    paths = []
    for name, mirror in (("plain", None), ("mirrored", R.LiveMirror(folder))):
        with _writer(tmp_path / f"{name}.nc", mirror, preallocate=40) as w:
            for k in range(40):
                w.append(k / FS, **_sample(k))
        paths.append(tmp_path / f"{name}.nc")
    a, b = (R.read_recording(p) for p in paths)
    for name in a.variables:
        assert a[name].values.tobytes() == b[name].values.tobytes() and a[name].attrs == b[name].attrs, name
    assert {k for k in a.attrs if a.attrs[k] != b.attrs.get(k)} <= {"created"}
    status = R.LiveReader(folder).status()
    assert status == {"recording": str(paths[1]), "fault": None}


def test_a_fault_is_told_to_the_reader(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    with pytest.raises(RuntimeError):
        with _writer(tmp_path / "w.nc", R.LiveMirror(folder), preallocate=10) as w:
            for k in range(5):
                w.append(k / FS, **_sample(k))
            raise RuntimeError("drive fault")
    r = R.LiveReader(folder)
    assert r.counts() == (5, True) and "drive fault" in r.status()["fault"]


def test_a_mirror_needs_an_empty_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        R.LiveMirror(tmp_path / "missing")
    (tmp_path / "x").write_text("")
    with pytest.raises(FileExistsError):
        R.LiveMirror(tmp_path)
    assert not R.LiveReader(tmp_path / "missing").ready()
