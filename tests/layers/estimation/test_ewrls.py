"""EWR-RLS (paper eq. 14): recovery, half-life, gating, wind-up bound, warm start, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.estimation.ewrls import (
    EWRLS,
    GATED_OUT,
    REJECTED,
    UPDATED,
    ewrls_step,
    forgetting_factor,
)

TS = 1.0 / 4000.0
N_PI = 10


def _data(rng: np.random.Generator, N: int, pi: np.ndarray, noise: float = 0.01, m: int | None = None):
    shape = (N, N_PI) if m is None else (N, m, N_PI)
    Y = rng.standard_normal(shape)
    R = Y @ pi + noise * rng.standard_normal(shape[:-1])
    return Y, R


def _moving(N: int, d: int = 2) -> tuple[np.ndarray, np.ndarray]:
    return np.full((N, d), 1.0), np.full((N, d), 1.0)


def test_forgetting_factor_matches_paper() -> None:
    assert forgetting_factor(600.0, TS) == 1.0 + TS * math.log(0.5) / 600.0
    assert forgetting_factor(math.inf, TS) == 1.0
    # beta^(T_HL / Ts) = 1/2 to first order in Ts / T_HL
    assert forgetting_factor(2.0, TS) ** (2.0 / TS) == pytest.approx(0.5, rel=1e-4)
    with pytest.raises(ValueError):
        forgetting_factor(0.0, TS)
    with pytest.raises(ValueError):
        forgetting_factor(1.0, -TS)


def test_initial_state_and_defaults() -> None:
    pi0 = np.r_[1.0, 1.0, np.zeros(N_PI - 2)]
    est = EWRLS(N_PI, pi0=pi0)
    assert est.lam == 1e-3 and est.t_half == 600.0 and est.ts == TS
    assert est.lambda_floor == est.lam
    np.testing.assert_array_equal(est.theta, pi0)
    np.testing.assert_array_equal(est.P, np.eye(N_PI) / 1e-3)
    assert est.n_samples == est.n_updates == 0 and math.isnan(est.rho_rms)


def test_recovers_parameters_summed_rows() -> None:
    rng = np.random.default_rng(0)
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, 40_000, pi, noise=0.01)
    est = EWRLS(N_PI, pi0=np.ones(N_PI))
    est.run(Y, R, *_moving(len(R)))
    assert est.n_updates == est.n_samples == len(R)
    # noise 0.01 over 4e4 samples: standard error ~5e-5 per parameter
    np.testing.assert_allclose(est.theta, pi, atol=3e-4)
    assert est.rho_rms == pytest.approx(0.01, rel=0.05)
    assert est.rho_rms_prior >= est.rho_rms


def test_recovers_parameters_per_joint_rows() -> None:
    rng = np.random.default_rng(1)
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, 20_000, pi, noise=0.01, m=2)
    est = EWRLS(N_PI)
    est.run(Y, R, *_moving(len(R)))
    np.testing.assert_allclose(est.theta, pi, atol=3e-4)


def test_update_equals_run_bitwise() -> None:
    rng = np.random.default_rng(2)
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, 600, pi)
    qd = rng.standard_normal((600, 2)) * 0.03
    qdd = rng.standard_normal((600, 2)) * 0.1
    a = EWRLS(N_PI, t_half=0.05)
    b = EWRLS(N_PI, t_half=0.05)
    updated = [a.update(Y[k], R[k], qd[k], qdd[k]) for k in range(600)]
    h = b.run(Y, R, qd, qdd, return_status=True)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.P, b.P)
    np.testing.assert_array_equal(a.accum, b.accum)
    np.testing.assert_array_equal(np.array(updated), h.status == UPDATED)
    assert 0 < a.n_updates < 600


def test_half_life_of_the_error_after_a_step() -> None:
    """After a step in the true parameters the error halves every T_HL (here 2 s)."""
    t_half = 2.0
    rng = np.random.default_rng(3)
    pi_a = rng.standard_normal(N_PI)
    pi_b = pi_a + rng.standard_normal(N_PI)
    n_before, n_after = int(20.0 / TS), int(8.0 / TS)  # 10 half-lives: stationary information
    Y, _ = _data(rng, n_before + n_after, pi_a)
    R = np.concatenate([Y[:n_before] @ pi_a, Y[n_before:] @ pi_b]) + 1e-4 * rng.standard_normal(len(Y))
    est = EWRLS(N_PI, t_half=t_half, ts=TS)
    est.run(Y[:n_before], R[:n_before], *_moving(n_before))
    every = 400
    h = est.run(Y[n_before:], R[n_before:], *_moving(n_after), record_every=every)
    t = (h.index - n_before) * TS
    err = np.linalg.norm(h.theta - pi_b, axis=1)
    sel = (t >= 0.5) & (t <= 7.0)
    slope = np.polyfit(t[sel], np.log2(err[sel]), 1)[0]  # log2(err) falls 1 per half-life
    assert -1.0 / slope == pytest.approx(t_half, rel=0.05)
    e0 = np.linalg.norm(pi_a - pi_b)
    assert err[np.searchsorted(t, t_half)] == pytest.approx(e0 / 2, rel=0.1)


def test_gating_excludes_stiction_samples() -> None:
    """Samples with small |qd| and |qdd| carry a stiction torque the model cannot explain."""
    rng = np.random.default_rng(4)
    N = 40_000
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, N, pi, noise=0.01)
    qd = rng.uniform(0.2, 3.0, (N, 2)) * rng.choice([-1.0, 1.0], (N, 2))
    qdd = rng.uniform(1.0, 20.0, (N, 2))
    stuck = rng.random(N) < 0.3
    qd[stuck] = rng.uniform(-0.01, 0.01, (stuck.sum(), 2))  # below 0.02 rad/s
    qdd[stuck] = rng.uniform(-0.1, 0.1, (stuck.sum(), 2))  # below 0.2 rad/s^2
    # stuck: static friction holds whatever torque the motors apply, nothing accelerates, so
    # R = Q_I + Q_G = 0 while the regressor (motor torques) is not: Y pi != R there
    R[stuck] = 0.01 * rng.standard_normal(stuck.sum())
    gated = EWRLS(N_PI)
    h = gated.run(Y, R, qd, qdd, return_status=True)
    assert gated.n_updates == N - stuck.sum()
    np.testing.assert_array_equal(h.status == GATED_OUT, stuck)
    np.testing.assert_allclose(gated.theta, pi, atol=5e-4)
    ungated = EWRLS(N_PI)
    ungated.run(Y, R, None, None)  # no gating: every sample updates
    assert ungated.n_updates == N
    assert np.abs(ungated.theta - pi).max() > 0.2  # ~30 % shrunk toward 0
    # the gate is |x| > threshold on any joint, velocity or acceleration
    one = EWRLS(N_PI)
    assert not one.update(Y[0], R[0], [0.0, 0.02], [0.0, 0.2])
    assert one.update(Y[0], R[0], [0.0, 0.0201], [0.0, 0.0])
    assert one.update(Y[0], R[0], [0.0, 0.0], [-0.21, 0.0])


def test_gated_samples_do_not_decay_covariance_but_count_in_residual() -> None:
    rng = np.random.default_rng(5)
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, 2000, pi)
    est = EWRLS(N_PI, t_half=0.1)
    est.run(Y[:1000], R[:1000], *_moving(1000))
    P, theta = est.P.copy(), est.theta.copy()
    still = np.zeros((1000, 2))
    est.run(Y[1000:], R[1000:] + 5.0, still, still)
    np.testing.assert_array_equal(est.P, P)
    np.testing.assert_array_equal(est.theta, theta)
    assert est.n_samples == 2000 and est.n_updates == 1000
    assert est.rho_rms > 3.0  # eq. 49 integrates over all samples in time


def test_rho_rms_matches_eq49() -> None:
    rng = np.random.default_rng(6)
    N = 400
    pi = rng.standard_normal(N_PI)
    Y, R = _data(rng, N, pi, noise=0.1)
    qd = rng.standard_normal((N, 1)) * 0.03
    qdd = np.zeros((N, 1))
    est = EWRLS(N_PI, t_half=0.05)
    h = est.run(Y, R, qd, qdd, record_every=1)
    theta_prior = np.vstack([est.pi0, h.theta[:-1]])
    e_post = np.einsum("kn,kn->k", Y, h.theta) - R
    e_prior = np.einsum("kn,kn->k", Y, theta_prior) - R
    k = np.arange(1, N + 1)
    np.testing.assert_allclose(h.rho_rms, np.sqrt(np.cumsum(e_post**2) / k), rtol=1e-10)
    np.testing.assert_allclose(h.rho_rms_prior, np.sqrt(np.cumsum(e_prior**2) / k), rtol=1e-10)
    np.testing.assert_allclose(h.t, k * TS)


def test_windup_bounded_after_one_hour_without_excitation() -> None:
    """One hour (T_HL = 2 s: 1800 half-lives) exciting one fixed direction only."""
    t_half, lam = 2.0, 1e-3
    rng = np.random.default_rng(7)
    u = rng.standard_normal(N_PI)
    u /= np.linalg.norm(u)
    pi_a = rng.standard_normal(N_PI)
    est = EWRLS(N_PI, t_half=t_half, lam=lam)  # default floor: lambda_floor = lam
    chunk = int(60.0 / TS)
    s = rng.standard_normal(chunk)
    Y = s[:, None] * u[None, :]
    qd, qdd = _moving(chunk, 1)
    for _ in range(60):  # 60 x 1 min
        est.run(Y, Y @ pi_a, qd, qdd)
    assert est.n_updates == 60 * chunk
    P = est.P
    assert np.isfinite(P).all() and np.isfinite(est.theta).all()
    np.testing.assert_array_equal(P, P.T)
    eig = np.linalg.eigvalsh(P)
    assert eig.min() > 0.0
    assert eig.max() <= 1.05 / est.lambda_floor
    # the excited direction still tracks with half-life T_HL after a step
    pi_b = pi_a + 2.0 * u
    h = est.run(Y[: int(10.0 / TS)], Y[: int(10.0 / TS)] @ pi_b, qd[: int(10.0 / TS)],
                qdd[: int(10.0 / TS)], record_every=int(t_half / TS))
    err = (h.theta - pi_b) @ u
    np.testing.assert_allclose(err / 2.0, -(0.5 ** np.arange(1, 6)), rtol=0.1, atol=1e-3)
    # unexcited directions are held near the prior pi0 = 0 (up to the cyclic floor's
    # per-coordinate ripple, ~FLOOR_STRIDE * n (1 - beta) = 0.7 % here), not left to drift
    perp = est.theta - (est.theta @ u) * u
    assert np.linalg.norm(perp) < 0.01 * np.linalg.norm(est.theta)


def test_without_floor_covariance_winds_up() -> None:
    est = EWRLS(N_PI, t_half=2.0, lambda_floor=0.0)
    N = int(120.0 / TS)  # 60 half-lives
    Y = np.outer(np.random.default_rng(8).standard_normal(N), np.r_[1.0, np.zeros(N_PI - 1)])
    est.run(Y, Y[:, 0], *_moving(N, 1))
    assert np.diag(est.P)[1:].min() > 1e3 * 2.0**59  # grows as P / beta, unbounded


def test_save_load_warm_start_is_exact(tmp_path) -> None:
    rng = np.random.default_rng(9)
    pi = rng.standard_normal(N_PI)
    N = 3000
    Y, R = _data(rng, 2 * N, pi)
    qd = rng.standard_normal((2 * N, 2)) * 0.05
    qdd = rng.standard_normal((2 * N, 2)) * 0.3
    kw = dict(pi0=np.r_[1.0, 1.0, np.zeros(N_PI - 2)], t_half=0.2, v_gate=0.03, a_gate=0.25)
    ref = EWRLS(N_PI, **kw)
    ref.run(Y, R, qd, qdd)
    first = EWRLS(N_PI, **kw)
    first.run(Y[:N], R[:N], qd[:N], qdd[:N])
    first.save(tmp_path / "est.npz")
    second = EWRLS.load(tmp_path / "est.npz")
    assert second.config() == first.config()
    second.run(Y[N:], R[N:], qd[N:], qdd[N:])
    for name in ("theta", "P", "counters", "accum", "pi0"):
        np.testing.assert_array_equal(getattr(second, name), getattr(ref, name), err_msg=name)
    assert second.rho_rms == ref.rho_rms
    again = EWRLS.from_state(ref.state())
    np.testing.assert_array_equal(again.P, ref.P)
    with pytest.raises(ValueError, match="not an EWR-RLS state"):
        EWRLS.from_state({"theta": ref.theta})


def test_clear_errors_on_bad_input() -> None:
    est = EWRLS(N_PI)
    y = np.ones(N_PI)
    with pytest.raises(ValueError, match="non-finite"):
        est.update(np.r_[np.nan, np.ones(N_PI - 1)], 1.0, [1.0], [0.0])
    with pytest.raises(ValueError, match="non-finite"):
        est.update(y, np.inf, [1.0], [0.0])
    with pytest.raises(ValueError, match="non-finite"):
        est.update(y, 1.0, [np.nan], [0.0])
    with pytest.raises(ValueError, match="columns"):
        est.update(np.ones(N_PI + 1), 1.0, [1.0], [0.0])
    with pytest.raises(ValueError, match="right-hand side"):
        est.update(np.ones((2, N_PI)), 1.0, [1.0], [0.0])
    with pytest.raises(ValueError, match="same shape"):
        est.update(y, 1.0, [1.0, 1.0], [0.0])
    Y = np.ones((5, N_PI))
    R = np.ones(5)
    R[3] = np.nan
    with pytest.raises(ValueError, match=r"R contains 1 non-finite.*index \(3,"):
        est.run(Y, R, *_moving(5))
    with pytest.raises(ValueError, match="shape"):
        est.run(Y, np.ones(4), *_moving(5))
    with pytest.raises(ValueError, match="both"):
        est.run(Y, np.ones(5), np.ones((5, 1)), None)
    with pytest.raises(ValueError):
        est.run(np.ones((5, N_PI, 2, 1)), np.ones(5), None, None)
    with pytest.raises(ValueError, match="pi0"):
        EWRLS(N_PI, pi0=np.ones(3))
    with pytest.raises(ValueError):
        EWRLS(N_PI, lam=0.0)
    assert est.n_samples == 0  # nothing was processed
    np.testing.assert_array_equal(est.P, np.eye(N_PI) / est.lam)


def test_compiled_core_rejects_non_finite_without_touching_state() -> None:
    est = EWRLS(N_PI)
    P, theta = est.P.copy(), est.theta.copy()
    Yk = np.ones((1, N_PI))
    Yk[0, 4] = np.nan
    st = ewrls_step(Yk, np.ones(1), np.ones(1), np.ones(1), est.v_gate, est.a_gate, est.beta, est.floor_c,
                    est.theta, est.P, est.pi0, est._g, est.counters, est.accum)
    assert st == REJECTED and est.n_rejected == 1 and est.n_updates == 0
    np.testing.assert_array_equal(est.P, P)
    np.testing.assert_array_equal(est.theta, theta)
    assert math.isnan(est.rho_rms)  # rejected samples are not scored
    st = ewrls_step(np.ones((1, N_PI)), np.ones(1), np.array([np.nan]), np.ones(1), est.v_gate, est.a_gate,
                    est.beta, est.floor_c, est.theta, est.P, est.pi0, est._g, est.counters, est.accum)
    assert st == REJECTED and est.n_rejected == 2
    np.testing.assert_array_equal(est.P, P)
