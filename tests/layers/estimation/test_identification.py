"""Online identification and control on the twin (issue: EWR-RLS and PD / CTC / AC)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.estimation.replay import replay
from paperlib.twin.robots.five_bar import simulate, true_friction_curve


def friction_errors(ds, theta_F, order=3):
    """Max |estimated - true| friction over the sliding velocities visited, per joint, / true peak.

    Sliding range: from 0.3 rad/s (twice the twin's Stribeck velocity: below it the odd
    polynomial of eq. 10 cannot follow the Stribeck rise, the paper's "stiction regime") to the
    99th percentile of the measured |qd|.
    """
    tr = json.loads(ds.attrs["truth"])
    T = np.array(tr["gearbox_inner_temperature_start_degC"])
    sp = np.abs(ds.qd.values)
    v = np.linspace(0.3, np.percentile(sp[sp > 0.05], 99), 30)
    out = []
    k = order + 1
    for j in range(2):
        est = np.polyval(np.asarray(theta_F[k * j:k * (j + 1)])[::-1], v)
        true = true_friction_curve(tr, j + 1, v, T[j])
        out.append(np.abs(est - true).max() / np.abs(true).max())
    return np.array(out)


@pytest.fixture(scope="module")
def ctc_run():
    return simulate(controller="CTC", duration_s=40.0, seed=2)


def test_ctc_estimates_converge_to_the_truth(ctc_run):
    tr = json.loads(ctc_run.attrs["truth"])
    theta = ctc_run.pi_hat.values[-1]
    np.testing.assert_allclose(theta[:2], tr["pi_pds"], rtol=0.01)
    assert np.all(friction_errors(ctc_run, theta[2:]) < 0.05)


@pytest.mark.parametrize("controller,seed", [("PD", 5), ("AC", 7)])
def test_estimates_converge_under_every_controller(controller, seed):
    ds = simulate(controller=controller, duration_s=40.0, seed=seed)
    tr = json.loads(ds.attrs["truth"])
    theta = ds.pi_hat.values[-1]
    np.testing.assert_allclose(theta[:2], tr["pi_pds"], rtol=0.01)
    assert np.all(friction_errors(ds, theta[2:]) < 0.05)


def test_paper_gating_admits_stuck_samples_and_biases_friction(ctc_run):
    """The paper's any-joint rule (0.02 rad/s or 0.2 rad/s^2) lets stuck/presliding samples in."""
    ours = replay(ctc_run, 3)
    paper = replay(ctc_run, 3, gate_velocity=0.02, gate_acceleration=0.2, gate_all_joints=False)
    e_ours = friction_errors(ctc_run, ours.pi_F)
    e_paper = friction_errors(ctc_run, paper.pi_F)
    assert np.all(e_ours < 0.05) and e_paper.max() > e_ours.max()


def settling_time(t, x, final, band):
    """First time after which |x / final - 1| <= band for good (all columns)."""
    off = np.abs(x / final - 1).max(axis=1) > band
    return t[np.flatnonzero(off)[-1] + 1] if off.any() else t[0]


def test_convergence_within_seconds_from_worst_case_start(ctc_run):
    """From pi_pds = 1, pi_F = 0: drive gains settle within 2 % of their final value in < 5 s and
    the friction curve (at 1.5 rad/s) within 5 % in < 20 s (paper: < 5 s and ~15 s)."""
    t = ctc_run.time.values
    pi = ctc_run.pi_hat.values
    assert np.all(pi[0, :2] == 1.0) and np.all(pi[0, 2:] == 0.0)
    assert settling_time(t, pi[:, :2], pi[-1, :2], 0.02) < 5.0
    f = np.stack([np.polyval(pi[:, 2 + 4 * j:6 + 4 * j].T[::-1], 1.5) for j in range(2)], axis=1)
    assert settling_time(t, f, f[-1], 0.05) < 20.0  # measured 16 s on this run (paper: ~15 s)
    assert 0 < ctc_run.attrs["converged_s"] < 15.0


def test_estimate_follows_a_friction_step_with_the_half_life():
    """After the true friction jumps by 30 %, the estimate's remaining error halves every T_HL."""
    t_hl = 4.0
    t_step = 12.0
    ds = simulate(controller="CTC", duration_s=40.0, seed=4, half_life_s=t_hl, friction_step=(t_step, 1.3))
    t = ds.time.values
    pi = ds.pi_hat.values
    f = np.polyval(pi[:, 2:6].T[::-1], 1.5)  # identified friction of joint 1 at 1.5 rad/s [N m]
    before = f[(t > t_step - 4) & (t < t_step)].mean()
    after = f[t > t_step + 6 * t_hl].mean()
    assert after / before == pytest.approx(1.3, rel=0.05)
    # gap to the new level, smoothed over 1 s, decays exponentially with the half-life (counted in
    # informative samples; nearly every sample of these motions is informative)
    win = int(1.0 / (t[1] - t[0]))
    gap = np.convolve(np.abs(f - after), np.ones(win) / win, mode="same")
    sel = (t > t_step + t_hl) & (t < t_step + 4 * t_hl)
    slope = np.polyfit(t[sel] - t_step, np.log(gap[sel]), 1)[0]
    measured_half_life = np.log(0.5) / slope
    assert measured_half_life == pytest.approx(t_hl, rel=0.4)


def test_replay_matches_online_estimate(ctc_run):
    res = replay(ctc_run, 3)
    online = ctc_run.pi_hat.values[-1]
    np.testing.assert_allclose(res.estimator.theta[:2], online[:2], rtol=2e-3)
    assert res.extra["imu_delay_cycles"] == json.loads(ctc_run.attrs["config"])["controller_config"]["imu_delay_cycles"]


def _errors(ds, t_from):
    m = ds.time.values >= t_from
    e = ds.q_sp.values[m] - ds.q_true.values[m]
    return np.sqrt((e**2).mean(0)), np.abs(e).max(0)


def test_ctc_beats_pd_and_ac_beats_ctc():
    """Same reseeded trajectory; errors after the estimator has converged (the paper compares
    the controllers with an adequate estimate in place)."""
    runs = {c: simulate(controller=c, duration_s=30.0, seed=6) for c in ("PD", "CTC", "AC")}
    t_from = max(r.attrs["converged_s"] for r in runs.values()) + 2.0
    assert t_from < 15.0
    rms = {c: _errors(r, t_from)[0] for c, r in runs.items()}
    peak = {c: _errors(r, t_from)[1] for c, r in runs.items()}
    assert np.all(rms["CTC"] < rms["PD"]) and np.all(peak["CTC"] < peak["PD"])
    assert np.all(rms["AC"] < rms["CTC"]) and np.all(peak["AC"] < peak["CTC"])


def test_identify_rejects_bad_input(tmp_path, capsys):
    from paperlib.cli import main
    from paperlib.recordings import write_recording

    ds = simulate(controller="CTC", duration_s=1.0, seed=1, imu_calibration="none")
    bad = ds.copy(deep=True)
    bad["qd"].values[100, 0] = np.nan
    p = tmp_path / "nan.nc"
    try:
        write_recording(bad, p)
    except ValueError as exc:  # the writer refuses it already: the error names the variable
        assert "qd" in str(exc)
    else:
        assert main(["identify", str(p)]) == 1
    # too few informative samples: a robot at rest
    still = ds.copy(deep=True)
    for v in ("qd", "qdd"):
        still[v].values[:] = 0.0
    p2 = write_recording(still, tmp_path / "still.nc")
    capsys.readouterr()
    assert main(["identify", str(p2)]) == 1
    assert "too few informative samples" in capsys.readouterr().err
    # wrong units
    deg = ds.copy(deep=True)
    deg["q"].attrs["units"] = "deg"
    p3 = tmp_path / "deg.nc"
    deg.to_netcdf(p3, engine="h5netcdf")
    assert main(["identify", str(p3)]) == 1
    assert "q" in capsys.readouterr().err
