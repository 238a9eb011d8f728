"""What the live page draws, from a run's live mirror: the friction curves are the estimator's
friction model at the logged estimates, the drive gains and tracking errors the logged samples, the
deadline statistics those of the loop's own summary, and reading in steps gives what one read gives."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib import recordings as R
from paperlib.estimation.config import EstimatorConfig
from paperlib.friction import table4_model
from paperlib.hardware.loop import deadline_statistics
from paperlib.live.state import LiveState

FS = 4000.0
PERIOD_S = 1.0 / FS
MODEL = table4_model(3)
NAMES = ["pi_pds,1", "pi_pds,2"] + MODEL.param_names()
TRUE_GAINS = [0.93, 1.06]


def _pi(k: int) -> np.ndarray:
    """An estimate that moves with the sample index (drive gains 1 -> the truth, friction growing)."""
    a = 1.0 - np.exp(-k / 400.0)
    gains = 1.0 + a * (np.array(TRUE_GAINS) - 1.0)
    friction = a * np.array([0.4, 0.8, -0.1, 0.02] * 2)
    return np.concatenate([gains, friction])


#: The schedule :func:`_lateness` gives (numbers written into the mirror, not the host's): rows 500-502
#: start more than a period late, one run of them.
GIVEN_LATE_ROWS = range(500, 503)
GIVEN_LATE_RUNS = 1


def _lateness(k: int) -> float:
    """Whole nanoseconds in seconds, as the loop logs them: 3 cycles in a row late by more than a period."""
    return (300_000 if k in GIVEN_LATE_ROWS else 1_000 + 7 * (k % 11)) * 1e-9


def _write(folder, n: int, w=None, start: int = 0):
    if w is None:
        w = R.RecordingWriter(
            folder.parent / "run.nc", [1, 2], robot="five_bar", source="twin", sample_rate_hz=FS, controller="AC",
            seed=1, truth={"pi_pds": TRUE_GAINS}, writer=None,
            config={"estimator": EstimatorConfig(model=3).to_dict()},
            channels=("q", "qd", "qdd", "tau_m", "tau_tgt", "q_sp", "qd_sp", "qdd_sp"),
            origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor",
            extra_channels={"pi_hat": R.Channel("estimate", "1", dims=("param",)),
                            "lateness": R.Channel("start lateness", "s", dims=())},
            coords={"param": NAMES}, preallocate=4000, mirror=R.LiveMirror(folder))
    for k in range(start, start + n):
        t = k / FS
        q = np.array([np.sin(t), 0.5 * np.cos(2 * t)])
        qd = np.array([np.cos(t), -np.sin(2 * t)]) * (1.0 + k / 1000.0)
        w.append(t, q=q, qd=qd, qdd=-q, tau_m=qd, tau_tgt=qd, q_sp=q + 1e-3 * np.array([1.0, -2.0]) * np.sin(9 * t),
                 qd_sp=qd, qdd_sp=-q, pi_hat=_pi(k), lateness=_lateness(k))
    return w


@pytest.fixture
def mirror(tmp_path):
    folder = tmp_path / "mirror"
    folder.mkdir()
    return folder


def test_before_the_run_there_is_nothing_to_draw(mirror):
    state = LiveState(R.LiveReader(mirror), stride=10)
    assert state.update() == 0 and state.time.size == 0
    assert state.friction_curves() == [] and state.drive_gains() == {} and state.tracking_errors() == {}
    summary_of_no_rows = state.deadlines()
    assert summary_of_no_rows["cycles"] == state.total == 0


def test_the_drawn_quantities_are_the_logged_ones(mirror):
    w = _write(mirror, 1203)
    state = LiveState(R.LiveReader(mirror), stride=10)
    state.update()
    rows = np.arange(0, 1203, 10)
    np.testing.assert_array_equal(state.time, rows / FS)
    gains = state.drive_gains()
    assert sorted(gains) == ["pi_pds,1", "pi_pds,2"]
    np.testing.assert_array_equal(gains["pi_pds,2"], [_pi(k)[1] for k in rows])
    assert state.true_drive_gains() == {"pi_pds,1": TRUE_GAINS[0], "pi_pds,2": TRUE_GAINS[1]}
    err = state.tracking_errors()
    t = rows / FS
    np.testing.assert_allclose(err[2], -2e-3 * np.sin(9 * t), rtol=0, atol=1e-15)
    # friction: the estimator's model (3) at the logged estimates; the latest is the last plotted row
    curves = state.friction_curves(n_estimates=4, n_v=21)
    assert sorted({c.joint for c in curves}) == [1, 2] and len(curves) == 8
    last = [c for c in curves if c.joint == 2][-1]
    assert last.t_s == rows[-1] / FS
    v_max = (1.0 + 1200 / 1000.0) * np.max(np.abs(np.sin(2 * t)))  # |qd_2| largest so far (plotted rows)
    assert last.v_rad_s[-1] == pytest.approx(v_max, rel=1e-12)
    np.testing.assert_allclose(last.tau_Nm, MODEL.torque(_pi(1200)[2:], last.v_rad_s, 2), rtol=1e-14)
    # the curves move towards the latest estimate: friction grows with the estimate above
    first = [c for c in curves if c.joint == 1][0]
    assert first.t_s < last.t_s and abs(first.tau_Nm[-1]) < abs(curves[3].tau_Nm[-1])
    w.close()


def test_deadline_statistics_are_the_loops(mirror):
    w = _write(mirror, 1203)
    state = LiveState(R.LiveReader(mirror), stride=10)
    state.update()
    d = state.deadlines()
    rows_written = 1203
    lat_ns = np.array([round(_lateness(k) * 1e9) for k in range(rows_written)])
    expected = deadline_statistics(lat_ns * 1e-3, lat_ns > 250_000)
    # the given schedule's counts, over all rows (not the plotted ones)
    given = {"deadline_misses": len(GIVEN_LATE_ROWS), "stalls": GIVEN_LATE_RUNS, "cycles": rows_written}
    assert {k: d[k] for k in given} == given
    for key, value in expected.items():
        assert d[key] == pytest.approx(value, rel=1e-9), key
    assert d["period_us"] == 250.0
    w.close()


def test_reading_in_steps_gives_what_one_read_gives(mirror):
    w = _write(mirror, 333)
    steps = LiveState(R.LiveReader(mirror), stride=7)
    steps.update()
    _write(mirror, 500, w, start=333)
    steps.update()
    _write(mirror, 171, w, start=833)
    w.close()
    steps.update()
    once = LiveState(R.LiveReader(mirror), stride=7)
    once.update()
    assert steps.finished and once.finished and steps.total == once.total == 1004
    np.testing.assert_array_equal(steps.time, once.time)
    np.testing.assert_array_equal(steps.time, np.arange(0, 1004, 7) / FS)
    np.testing.assert_array_equal(steps.channel("pi_hat"), once.channel("pi_hat"))
    logged_in_steps, logged_once = steps.lateness_s(), once.lateness_s()
    np.testing.assert_array_equal(logged_in_steps, logged_once)
    rows_written = 333 + 500 + 171
    assert logged_in_steps.shape == (rows_written,)
    summary_in_steps, summary_once = (json.loads(json.dumps(s.deadlines())) for s in (steps, once))
    assert summary_in_steps == summary_once
