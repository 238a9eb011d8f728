"""The course's logic on the planar twin: estimators recover known parameters, the causal
reconstruction lags and the zero-phase one does not, the sequential procedure is exact on
exact data and passes an early error on, RLS without forgetting equals batch LS, and the
friction fits recover a Stribeck law from its own curve."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.control.excitation import FourierTrajectory, random_fourier
from paperlib.experiments.textbook import friction_models as fm
from paperlib.experiments.textbook import identify as idf
from paperlib.experiments.textbook import recursive as rec
from paperlib.experiments.textbook import sequential as seq
from paperlib.twin.robots.planar_arm import planar_arm, simulate, true_params


@pytest.fixture(scope="module")
def arm2():
    arm = planar_arm(2)
    return arm, arm.base_parameters()


def test_fourier_derivatives_are_consistent():
    tr = random_fourier(2, 4, 0.2, 1.0, seed=3)
    t = np.linspace(0, 5, 50001)
    q, qd, qdd = tr(t)
    assert np.allclose(np.gradient(q, t, axis=0)[5:-5], qd[5:-5], atol=1e-6)
    assert np.allclose(np.gradient(qd, t, axis=0)[5:-5], qdd[5:-5], atol=1e-5)
    assert np.allclose(tr(t[:1] + tr.period)[0], tr(t[:1])[0])  # periodic
    with pytest.raises(ValueError, match="same shape"):
        FourierTrajectory(wf=0.6, q0=[0.0], a=[[1.0, 2.0]], b=[[1.0]])


def test_twin_recording_is_labelled_and_carries_truth(arm2):
    arm, _ = arm2
    ds = simulate(arm, random_fourier(2, 3, 0.1, 1.0, seed=1), duration_s=2.0, sample_rate_hz=200.0, seed=4)
    assert ds.attrs["source"] == "twin"
    truth = json.loads(ds.attrs["truth"])
    assert truth["params"]["m2"] == pytest.approx(3.0)
    assert "qdd" not in ds and "tau_m" in ds


def test_exact_kinematics_recover_the_base_parameters(arm2):
    arm, bp = arm2
    tr = random_fourier(2, 5, 0.1, 1.5, seed=2)
    ds = simulate(arm, tr, duration_s=20.0, sample_rate_hz=200.0, torque_noise_Nm=0.01, counts_per_rev=0, seed=2)
    q, qd, qdd = tr(ds.time.values)
    W, y = idf.stack(arm, bp, q, qd, qdd, ds["tau_m"].values)
    beta = idf.left_pinv(W, y)
    truth = idf.true_base(bp, ds)
    assert np.max(np.abs(beta - truth)) < 2e-3
    # and the reported standard deviations describe the actual error (white noise): within 5 sigma
    fit = idf.fit_base(W, y, bp.names)
    assert np.all(np.abs(fit.estimate - truth) < 5 * fit.std + 1e-12)


def test_full_regressor_is_singular(arm2):
    arm, _ = arm2
    q, qd, qdd = arm.random_states(50, seed=0)
    W = arm.regressor(q, qd, qdd).reshape(-1, arm.n_params)
    with pytest.raises(np.linalg.LinAlgError):
        idf.left_pinv(W, np.zeros(W.shape[0]))


def test_causal_reconstruction_lags_and_zero_phase_does_not():
    from paperlib.signals import zero_phase_derivatives

    fs, f = 500.0, 0.5
    t = np.arange(0, 20, 1 / fs)
    q = np.sin(2 * np.pi * f * t)[:, None]
    _, qd_c, _ = idf.causal_derivatives(q, fs, 5.0)
    _, qd_z, _ = zero_phase_derivatives(q, fs, 5.0)
    mid = slice(int(5 * fs), int(15 * fs))
    true = 2 * np.pi * f * np.cos(2 * np.pi * f * t)
    lags = np.arange(0, 100)
    err_c = [np.sum((qd_c[mid.start + k:mid.stop + k, 0] - true[mid]) ** 2) for k in lags]
    assert lags[int(np.argmin(err_c))] > 30           # Butterworth order 4 at 5 Hz: ~ 0.1 s of delay
    assert np.max(np.abs(qd_z[mid, 0] - true[mid])) < 1e-3 * np.max(np.abs(true))
    with pytest.raises(ValueError, match="cut-off"):
        idf.causal_derivatives(q, fs, 300.0)


def test_sequential_is_exact_on_exact_data_and_passes_an_error_on():
    arm = planar_arm(3)
    bp = arm.base_parameters()
    stages = seq.column_stages(arm, bp)
    assert [bp.names[c] for c in np.nonzero(stages == 2)[0]] == ["mx3", "my3", "ZZ3", "fv3", "fs3"]
    p = true_params(arm)
    beta_true = bp.project(p)
    data = {}
    for j in range(arm.n - 1, -1, -1):
        tr = seq.locked(random_fourier(3, 5, 0.1, 1.5, seed=j), list(range(j)), np.array([0.3, -0.4, 0.0]))
        t = np.arange(0, 20, 0.01)
        q, qd, qdd = tr(t)
        assert np.all(qd[:, :j] == 0.0)
        data[j] = (q, qd, qdd, arm.inverse_dynamics(q, qd, qdd, params=p))
    beta, _ = seq.sequential_fit(arm, bp, stages, data, beta_true)
    assert np.allclose(beta, beta_true, atol=1e-8)
    i = bp.names.index("ZZ3")
    beta_b, res = seq.sequential_fit(arm, bp, stages, data, beta_true, bias={i: 0.01})
    moved = beta_b - beta_true
    assert moved[i] == pytest.approx(0.01)
    assert abs(moved[bp.names.index("ZZ2R")]) > 1e-3   # the error reached the next stage
    # global fit over all joints moving is exact too
    tr = random_fourier(3, 5, 0.1, 1.5, seed=9)
    q, qd, qdd = tr(np.arange(0, 20, 0.01))
    fit = seq.global_fit(arm, bp, q, qd, qdd, arm.inverse_dynamics(q, qd, qdd, params=p))
    assert np.allclose(fit.estimate, beta_true, atol=1e-8)


def test_rls_without_forgetting_equals_batch(arm2):
    arm, bp = arm2
    tr = random_fourier(2, 5, 0.1, 1.5, seed=5)
    t = np.arange(0, 20, 0.01)
    q, qd, qdd = tr(t)
    rng = np.random.default_rng(0)
    tau = arm.inverse_dynamics(q, qd, qdd, params=true_params(arm)) + rng.normal(0, 0.05, q.shape)
    Yb = bp.columns(arm.regressor(q, qd, qdd))
    batch = idf.fit_base(Yb.reshape(-1, bp.n_base), tau.reshape(-1), bp.names)
    _, theta = rec.run_rls(Yb, tau, 0.01, np.inf, record_every=len(t), lam=1e-9)
    assert np.allclose(theta[-1], batch.estimate, rtol=1e-5, atol=1e-6)
    p1 = rec.payload_params(arm, true_params(arm), 1.0, 0.4)
    assert bp.project(p1)[bp.names.index("ZZ2")] - bp.project(true_params(arm))[bp.names.index("ZZ2")] == pytest.approx(1.0 * 0.4**2)  # M l^2 (YY2 does not act in the plane)


def test_stribeck_fit_recovers_its_own_curve():
    row = fm.truth_row(0.8, 1.2, 0.05, 0.3)
    v, tau = fm.steady_data(row, noise_Nm=0.0)
    models = {m.name: m for m in fm.fit_models(v, tau, row)}
    s = models["Stribeck"].params
    assert s["Fc"] == pytest.approx(0.8, rel=1e-3) and s["Fs"] == pytest.approx(1.2, rel=1e-3)
    assert s["vs"] == pytest.approx(0.05, rel=1e-2) and s["Fv"] == pytest.approx(0.3, rel=1e-3)
    cv = models["Coulomb + viscous"]
    assert np.sqrt(np.mean((cv.torque(v) - tau) ** 2)) > 10 * np.sqrt(np.mean((models["Stribeck"].torque(v) - tau) ** 2))
    # LuGre in steady sliding reaches the steady curve
    f = fm.lugre_response(row, np.full(5000, 0.5), 1e-3)
    assert f[-1] == pytest.approx(float(fm.steady_curve(row, np.array([0.5]))[0]), rel=1e-3)
