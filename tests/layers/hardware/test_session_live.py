"""A run's recording is the same with and without the live mirror (``paperlib run --live``), and the
mirror holds, sample for sample, what the recording holds.

Both runs step the twin in the session's loop on a simulated clock (deadlines kept on a clock that
moves 1 us per reading), with the period check of the estimator's sample timing off, so everything
the recording holds is the code's doing; the fields that read the host's own clock (the time of
writing, the rig's per-cycle timestamps and what is derived from them) are named and left out of
the comparison.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.hardware.session import run_session
from paperlib.recordings import LiveReader, read_recording
from paperlib.twin.rig import TwinRig
from simulated_clock import SimulatedClock  # this folder's helper module

#: Attributes that read the host's clock: the time of writing (provenance stamp), the rig's per-cycle
#: timestamps and what is derived from them (commands after their slot), the loop's wall time.
WALL_CLOCK_ATTRS = {"created", "rig_timings", "late_commands"}
#: Fields of the loop_stats attribute that are the host's wall time.
WALL_CLOCK_STATS = {"elapsed_s"}
#: Attributes the loop derives from the simulated clock alone (its own bookkeeping of the schedule it
#: keeps, not the host's speed): the same in both runs.
SIMULATED_CLOCK_ATTRS = ("loop_cycles", "deadline_misses", "lateness_median_us", "lateness_p99_us",
                         "lateness_p999_us", "lateness_max_us")


def _same(a, b) -> bool:
    """Equal attribute values, NaN equal to NaN (a run that has not converged has converged_s = NaN)."""
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(np.all(a == b)) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else a == b


def _run(tmp_path, name: str, mirror=None):
    out = tmp_path / f"{name}.nc"
    res = run_session(TwinRig(seed=5), controller="AC", duration_s=0.5, seed=5, output=out, check_timing=False,
                      clock=SimulatedClock(), live_mirror=mirror)
    assert res.stop_reason == "completed" and res.recording_valid, res.validation_error
    return read_recording(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    mirror = tmp / "mirror"
    mirror.mkdir()
    plain = _run(tmp, "plain")
    live = _run(tmp, "live", mirror)
    return plain, live, mirror


def test_the_recording_is_the_same_with_and_without_the_live_mirror(runs):
    plain, live, _ = runs
    assert plain.sizes["time"] == live.sizes["time"] == 2000
    assert sorted(plain.data_vars) == sorted(live.data_vars)
    for name in plain.variables:
        a, b = plain[name], live[name]
        assert a.dtype == b.dtype and a.dims == b.dims, name
        # bit for bit (NaN where NaN): the same bytes
        assert a.values.tobytes() == b.values.tobytes(), f"{name} differs"
        assert a.attrs == b.attrs, name
    keys = set(plain.attrs) | set(live.attrs)
    differ = {k for k in keys if not _same(plain.attrs.get(k), live.attrs.get(k))}
    assert differ <= WALL_CLOCK_ATTRS | {"loop_stats"}, sorted(differ - WALL_CLOCK_ATTRS)
    stats_plain, stats_live = json.loads(plain.attrs["loop_stats"]), json.loads(live.attrs["loop_stats"])
    assert {k for k in stats_plain if not _same(stats_plain[k], stats_live.get(k))} <= WALL_CLOCK_STATS
    # the simulated clock's bookkeeping, named: the same in both runs
    bookkeeping = {run: [ds.attrs[k] for k in SIMULATED_CLOCK_ATTRS] for run, ds in (("plain", plain), ("live", live))}
    assert bookkeeping["plain"] == bookkeeping["live"], bookkeeping


def test_the_mirror_holds_what_the_recording_holds(runs):
    _, live, mirror = runs
    reader = LiveReader(mirror)
    assert reader.ready()
    total, finished = reader.counts()
    assert finished and total == live.sizes["time"]
    snap = reader.read()
    assert len(snap) == total
    np.testing.assert_array_equal(snap.time, live["time"].values)
    for name, arr in snap.channels.items():
        np.testing.assert_array_equal(arr, live[name].values, err_msg=name)
    assert reader.status()["fault"] is None
    assert reader.attrs["robot"] == live.attrs["robot"] and reader.attrs["controller"] == "AC"
