"""The closed-loop digital twin: energy, determinism, honesty of its recordings."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.recordings import read_recording, truth
from paperlib.robots.five_bar import FiveBar
from paperlib.twin.robots.five_bar import simulate


@pytest.fixture(scope="module")
def run_ac():
    return simulate(controller="AC", duration_s=8.0, seed=3, imu_calibration="none")


def test_power_balance_of_the_plant(run_ac):
    """Motor work = kinetic energy gained + friction dissipation, at every logged sample."""
    E = run_ac.kinetic_energy.values
    Wm = run_ac.work_motor.values
    Wf = run_ac.work_friction.values
    assert Wm[-1] > 50.0  # the motors did real work (J)
    # friction dissipates; LuGre's bristle spring stores at most Fs^2 / (2 sigma0) ~ 5e-4 J, so the
    # cumulative dissipation may dip by about that much at a velocity reversal, never more
    assert Wf[-1] > 10.0
    assert np.min(Wf - np.maximum.accumulate(Wf)) > -1e-3
    np.testing.assert_allclose(E - E[0], Wm - Wf, atol=1e-6 * Wm[-1])


def test_plant_equation_holds_with_logged_truth(run_ac):
    """Q_I(q, qd, qdd) + iota tau_m + Q_F = 0 with the twin's true signals (eq. 5, Q_G = 0)."""
    robot = FiveBar.default()
    g = lambda v: run_ac[v].values  # noqa: E731
    Q_I = robot.inertial_lagrangian(g("q_true"), g("qd_true"), g("qdd_true"))
    res = Q_I + robot.gear_ratios * g("tau_m_true") + g("Q_F_true")
    assert np.sqrt(np.mean(Q_I**2)) > 1.0
    np.testing.assert_allclose(res, 0.0, atol=1e-9)


def test_same_seed_same_recording_and_other_seed_differs():
    a = simulate(controller="CTC", duration_s=2.0, seed=7, imu_calibration="none")
    b = simulate(controller="CTC", duration_s=2.0, seed=7, imu_calibration="none")
    c = simulate(controller="CTC", duration_s=2.0, seed=8, imu_calibration="none")
    for v in ("q", "qd", "qdd", "tau_m", "tau_tgt", "q_sp", "pi_hat"):
        np.testing.assert_array_equal(a[v].values, b[v].values)
    assert not np.array_equal(a.q_sp.values, c.q_sp.values)
    assert not np.array_equal(a.qd.values, c.qd.values)


def test_recording_is_labelled_twin_and_carries_the_truth(run_ac, tmp_path):
    from paperlib.recordings import write_recording

    path = write_recording(run_ac, tmp_path / "run.nc")
    ds = read_recording(path)
    assert ds.attrs["source"] == "twin"
    tr = truth(ds)
    assert len(tr["pi_pds"]) == 2 and tr["pi_pds"] != [1.0, 1.0]
    assert np.array(tr["friction"]).shape == (5, len(tr["friction_parameter_names"]))
    assert json.loads(ds.attrs["config"])["seed"] == 3


def test_sensors_are_not_the_truth(run_ac):
    """Measured channels carry the sensors' errors; they are close to, not equal to, the truth."""
    for meas, true, tol in (("qd", "qd_true", 0.1), ("q", "q_true", 1e-3)):
        d = run_ac[meas].values - run_ac[true].values
        assert 0 < np.sqrt(np.mean(d**2)) < tol


def test_friction_falls_after_warm_up():
    cold = simulate(controller="CTC", duration_s=2.0, seed=1, imu_calibration="none")
    warm = simulate(controller="CTC", duration_s=2.0, seed=1, imu_calibration="none", warm_up_minutes=120)
    t_cold = cold.temperature.values.mean()
    t_warm = warm.temperature.values.mean()
    assert 21.0 < t_cold < 23.5 and 36.0 < t_warm < 42.0  # paper: 22 C, then 39 C after 120 min
    f_cold = np.abs(cold.tau_F_true.values).mean()
    f_warm = np.abs(warm.tau_F_true.values).mean()
    assert f_warm < 0.9 * f_cold


def test_record_validate_identify_cli(tmp_path, capsys):
    from paperlib.cli import main

    out = tmp_path / "r.nc"
    assert main(["record", "--rig", "twin", "--controller", "CTC", "--duration", "6", "--seed", "2",
                 "--output", str(out)]) == 0
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
    assert main(["identify", str(out), "--model", "3"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res["pi_pds"]) == 2 and len(res["pi_F"]) == 2 and len(res["pi_F"][0]) == 4
    assert res["gear_ratio"] == [10.0, 10.0]
    assert res["samples_used"] > 10_000
    tr = truth(read_recording(out))
    np.testing.assert_allclose(res["pi_pds"], tr["pi_pds"], rtol=0.03)


def test_planning_polygon_is_well_conditioned_and_inside_the_joint_limits():
    from paperlib.twin.robots.five_bar import flagship_polygon

    robot = FiveBar.default()
    poly = flagship_polygon()
    lo, hi = robot.joint_limits
    assert np.all(poly.vertices >= lo) and np.all(poly.vertices <= hi)
    rng = np.random.default_rng(0)
    inside = poly.sample(rng, 400)
    edges = np.concatenate([poly.vertices + s * (np.roll(poly.vertices, -1, 0) - poly.vertices)
                            for s in np.linspace(0, 1, 25)])
    assert np.all(robot.condition_index(np.concatenate([inside, edges])) >= 0.4 - 1e-6)


def test_chunked_run_equals_one_shot_run(monkeypatch):
    """The progress bar runs the compiled loop in chunks; the recording must not change."""
    import paperlib.twin.runner as runner
    import paperlib.twin.robots.five_bar as sim

    one = sim.simulate(controller="AC", duration_s=1.5, seed=5, imu_calibration="none")
    monkeypatch.setattr(runner, "CHUNK_S", 997 / 4000.0)
    chunked = sim.simulate(controller="AC", duration_s=1.5, seed=5, imu_calibration="none", progress=True)
    for v in ("q", "qd", "qdd", "tau_m", "tau_tgt", "pi_hat", "kinetic_energy", "work_friction"):
        np.testing.assert_array_equal(one[v].values, chunked[v].values)
