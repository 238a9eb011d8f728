"""Thermal friction estimation (paper 001): plateaus, eq. 4, eq. 11, double exponential, eq. 12."""

from __future__ import annotations

import math

import warnings

import numpy as np
import pytest

from paperlib.estimation import plateaus as P
from paperlib.estimation import thermal as TH
from paperlib.recordings import from_arrays

FS = 250.0


def _trapezoid_run(v_levels, accel=10.0, plateau=1.0, gravity=(0.0, 0.0), k=(2.0, 1.5, 0.2, -0.05),
                   noise=0.0, seed=0, q_centre=0.3):
    """One joint sweeping plateaus at +-v; torque = eq. 4 + eq. 11's gravity (+ noise)."""
    rng = np.random.default_rng(seed)
    qs, qds = [np.array([q_centre])], [np.array([0.0])]
    for v in v_levels:
        for s in (1.0, -1.0):
            ta = v / accel
            T = 2 * ta + plateau
            t = np.arange(1, int(math.ceil(T * FS)) + 1) / FS
            t = np.minimum(t, T)
            vel = np.where(t < ta, accel * t, np.where(t < ta + plateau, v, accel * np.maximum(T - t, 0)))
            qd = s * vel
            q = qs[-1][-1] + np.cumsum(qd) / FS
            qs.append(q)
            qds.append(qd)
            qs.append(np.full(int(0.3 * FS), q[-1]))
            qds.append(np.zeros(int(0.3 * FS)))
    q = np.concatenate(qs)
    qd = np.concatenate(qds)
    tau = P.eq4_torque(np.array(k), qd) + gravity[1] * np.cos(q) + gravity[0] * np.sin(q)
    tau = tau + noise * rng.standard_normal(q.size)
    return np.arange(q.size) / FS, q, tau


LEVELS = [0.1, 0.4, 0.8, 1.2, 1.6, 2.0]


def test_eq4_columns_are_symmetric_order_3_polynomial():
    v = np.array([-2.0, -0.5, 0.0, 0.3, 1.5])
    cols = P.eq4_columns(v)
    expect = np.stack([np.sign(v), v, v * v * np.sign(v), v ** 3], axis=1)
    np.testing.assert_allclose(cols, expect, atol=1e-15)


def test_plateaus_recover_eq4_without_gravity():
    k = np.array([2.0, 1.5, 0.2, -0.05])
    t, q, tau = _trapezoid_run(LEVELS, k=tuple(k))
    jf = P.plateau_friction(t, q[:, None], tau[:, None], [1], FS)
    r = jf[1]
    assert r.k.shape == (1, 4)
    assert len(r.plateaus[0]) == 2 * len(LEVELS)
    np.testing.assert_allclose(r.k[0], k, rtol=2e-3, atol=2e-3)
    assert r.v_ref == pytest.approx(0.6 * 2.0, rel=1e-3)
    assert r.friction_ref[0] == pytest.approx(P.eq4_torque(k, 1.2), rel=1e-3)


def test_eq11_removes_gravity():
    k = np.array([2.0, 1.5, 0.2, -0.05])
    grav = (4.0, -7.0)  # (Px, Py) [N m]
    t, q, tau = _trapezoid_run(LEVELS, k=tuple(k), gravity=grav, noise=0.05)
    with_g = P.plateau_friction(t, q[:, None], tau[:, None], [2], FS, gravity_joints=[2])[2]
    without = P.plateau_friction(t, q[:, None], tau[:, None], [2], FS, gravity_joints=[])[2]
    np.testing.assert_allclose(with_g.gravity[0], grav, atol=0.05)
    assert abs(with_g.friction_ref[0] - P.eq4_torque(k, 1.2)) < 0.02
    lv = with_g.levels[0]
    np.testing.assert_allclose(lv[:, 1], P.eq4_torque(k, lv[:, 0]), atol=0.03)
    lv = without.levels[0]  # gravity left in biases the plateau levels
    assert np.max(np.abs(lv[:, 1] - P.eq4_torque(k, lv[:, 0]))) > 0.5


def test_other_joints_moving_are_not_plateaus():
    t, q, tau = _trapezoid_run(LEVELS)
    q2 = 0.5 * np.sin(2 * np.pi * 0.2 * t)  # joint 2 moves all the time
    jf = P.plateau_friction(t, np.stack([q, q2], 1), np.stack([tau, tau], 1), [1, 2], FS)
    assert jf == {}
    jf = P.plateau_friction(t, np.stack([q, q2], 1), np.stack([tau, tau], 1), [1, 2], FS,
                            detect={"others_still": False})
    assert 1 in jf and 2 not in jf  # a sine is never a plateau


def test_unknown_robot_warns_and_applies_eq11():
    t, q, tau = _trapezoid_run(LEVELS, gravity=(1.0, 2.0))
    ds = from_arrays(q[:, None], sample_rate_hz=FS, robot="no_such_arm", source="hardware",
                     channels={"tau_m": tau[:, None]}, torque_side="joint", writer="test")
    with pytest.warns(UserWarning, match="no model of robot"):
        jf = P.recording_friction(ds, "x.nc")
    assert jf[1].gravity_removed
    np.testing.assert_allclose(jf[1].gravity[0], (1.0, 2.0), atol=0.02)


def test_gravity_joints_come_from_the_robot_model():
    from paperlib.robots.serial import SerialArm

    assert SerialArm.named("tx40").gravity_joints == (2, 3)  # [plateaus] of data/robots/tx40.toml
    assert P.robot_gravity_joints("tx40") == (2, 3)
    assert P.robot_gravity_joints("no_such_arm") is None
    # a TX40 recording of joints 1 and 2: eq. 11 on joint 2 only, and no warning
    t, q, tau = _trapezoid_run(LEVELS, gravity=(1.0, 2.0))
    ds = from_arrays(np.stack([q, np.full_like(q, 0.1)], 1), sample_rate_hz=FS, robot="tx40", source="hardware",
                     channels={"tau_m": np.stack([tau, tau], 1)}, torque_side="joint", writer="test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jf = P.recording_friction(ds, "x.nc")
    assert not jf[1].gravity_removed


def test_double_exponential_recovers_known_curve():
    t = np.arange(0.5, 120, 5.0)
    y = TH.double_exponential(t, 2.5, 25.0, 5.0, 1.5, 2.0)
    f = TH.fit_double_exponential(t, y)
    assert f.t2_min == pytest.approx(25.0, rel=1e-3)
    assert f.t1_min == pytest.approx(2.5, rel=1e-2)
    assert f.cold_hot_ratio == pytest.approx(8.5 / 5.0, rel=1e-3)


def test_simulate_gain_is_exact_zoh_of_eq12():
    # constant power, no feedback (tiny gains): G(t) -> step response of eq. 13
    tau1, tau2, g1, g2 = 120.0, 1500.0, -1e-6, -2e-6
    p = np.full(3600, 1000.0)
    G = TH.simulate_gain(p, 1.0, g1, g2, tau1, tau2)
    t = np.arange(1, 3601)
    expect = 1000.0 * (g1 * (1 - np.exp(-t / tau1)) + g2 * (1 - np.exp(-t / tau2)))
    np.testing.assert_allclose(G, expect, rtol=5e-3)  # feedback (1 + G) is ~0.3 % here


def test_algorithm1_energy_balance_and_gauge():
    rng = np.random.default_rng(1)
    qd = 1.5 * np.sin(np.arange(100000) * 2 * np.pi / 2500) + 0.1 * rng.standard_normal(100000)
    k0 = np.array([1.0, 0.8, 0.0, 0.0])
    T, f = TH.algorithm1(qd, 0.004, k0, -0.01, 0.05, 0.005, 60.0, 1200.0, T0=20.0)
    assert np.all(f * qd >= 0)  # friction dissipates
    assert T[-1] > 25.0
    # the temperature is eq. 12 driven by the friction power (an independent filter of |f qd|)
    import scipy.signal
    w = np.abs(f * qd)
    rise = np.zeros_like(w)
    for c, tau in ((0.05, 60.0), (0.005, 1200.0)):
        e = math.exp(-0.004 / tau)
        rise += scipy.signal.lfilter([c * tau * (1 - e)], [1.0, -e], w)
    np.testing.assert_allclose(T - 20.0, rise, rtol=1e-9, atol=1e-9)
    # friction follows eq. 15 with the previous step's temperature
    f0 = P.eq4_torque(k0, qd)
    np.testing.assert_allclose(f[1:], (1 - 0.01 * (T[:-1] - 20.0)) * f0[1:], rtol=1e-12)
    # gauge: alpha x s, c / s gives the same friction
    T2, f2 = TH.algorithm1(qd, 0.004, k0, -0.02, 0.025, 0.0025, 60.0, 1200.0, T0=20.0)
    np.testing.assert_allclose(f2, f, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(T2 - 20.0, (T - 20.0) / 2, rtol=1e-9, atol=1e-12)


def _synthetic_runs(scales, g1=-0.15, g2=-0.25, tau1=150.0, tau2=1500.0, noise=0.0, seed=0, delta=0.0):
    """Warm-up runs made by the thermal model itself: power P0 scale x (1 + G), G from the start offset delta."""
    rng = np.random.default_rng(seed)
    runs = []
    for s in scales:
        block = np.tile(np.r_[np.full(270, s), np.zeros(30)], 24)  # 24 cycles of 5 min
        p_ref = 1.0
        G = TH.simulate_gain_from(block, 1.0, g1 / p_ref, g2 / p_ref, tau1, tau2, delta)
        t_min = (np.arange(24) * 300 + 60) / 60.0
        y = 3.0 * (1 + G[(t_min * 60).astype(int) - 1])
        y = y + noise * rng.standard_normal(y.size)
        k_first = np.array([y[0] / 3.0 * 3.0, 0.0, 0.0, 0.0])
        runs.append(TH.WarmUp(t_min=t_min, friction_ref=y, power_first=block * y[0] / 3.0,
                              k_first=k_first))
    return runs


def test_start_response_starts_flat_and_relaxes():
    tau1, tau2 = 150.0, 1500.0
    assert TH.start_response(0.0, tau1, tau2) == pytest.approx(1.0, abs=1e-15)
    h = 1e-3
    assert (TH.start_response(h, tau1, tau2) - 1.0) / h == pytest.approx(0.0, abs=1e-6)  # flat at first
    # it solves the two-mode relaxation h'' + (1/tau1 + 1/tau2) h' + h / (tau1 tau2) = 0 (finite differences)
    t, d = 900.0, 1.0
    hm, h0, hp = (TH.start_response(x, tau1, tau2) for x in (t - d, t, t + d))
    assert (hp - 2 * h0 + hm) / d ** 2 + (1 / tau1 + 1 / tau2) * (hp - hm) / (2 * d) + h0 / (tau1 * tau2) == \
        pytest.approx(0.0, abs=1e-10)
    assert 0.0 < TH.start_response(5 * tau2, tau1, tau2) < 0.01


def test_simulate_gain_from_zero_offset_is_simulate_gain():
    p = np.tile(np.r_[np.full(270, 1.0), np.zeros(30)], 4)
    np.testing.assert_array_equal(TH.simulate_gain_from(p, 1.0, -0.15, -0.25, 150.0, 1500.0, 0.0),
                                  TH.simulate_gain(p, 1.0, -0.15, -0.25, 150.0, 1500.0))
    # no power: the offset alone relaxes as start_response
    G = TH.simulate_gain_from(np.zeros(3000), 1.0, -0.15, -0.25, 150.0, 1500.0, 0.05)
    np.testing.assert_allclose(G, [0.05 * TH.start_response(k + 1.0, 150.0, 1500.0) for k in range(3000)], rtol=1e-12)


def test_thermal_model_recovers_a_start_offset_shared_by_the_runs():
    # runs that start 5 K below T0 in the gauge (alpha = -0.01: friction 5 % above its T0 level)
    runs = _synthetic_runs([1.0, 0.6, 0.8], delta=0.05)
    held = _synthetic_runs([0.7], delta=0.05)[0]
    fits = {so: TH.ThermalModel(maxiter=80, popsize=12, seed=1, start_offset=so).fit(runs) for so in (True, False)}
    m = fits[True]
    assert m.delta_ == pytest.approx(0.05, abs=0.005)
    assert m.to_dict()["start_offset_K"] == pytest.approx(-5.0, abs=0.5)
    assert m.tau2_s_ == pytest.approx(1500.0, rel=0.05)
    assert m.tau0_ == pytest.approx(3.0, rel=0.01)
    errors = {}
    for so, f in fits.items():  # predicted from the cold (T0) level's power, as the monitor does
        power0 = held.power_first * f.tau0_ / held.friction_ref[0]
        pred = f.tau0_ * (1 + f.gain(power0, 1.0)[(held.t_min * 60).astype(int) - 1])
        errors[so] = float(np.max(np.abs(pred / held.friction_ref - 1)))
    assert errors[True] < 0.01
    assert errors[True] < errors[False] / 2  # the model without the offset misses the run's start
    assert fits[False].delta_ == 0.0 and fits[True].rms_ < fits[False].rms_
    m2 = TH.ThermalModel.from_json(m.to_json())
    assert m2.delta_ == m.delta_ and m2.start_offset


def test_thermal_model_recovers_its_own_parameters():
    runs = _synthetic_runs([1.0, 0.6, 0.8], noise=0.0)
    m = TH.ThermalModel(maxiter=60, popsize=10, seed=1).fit(runs)
    p_ref = np.mean([r.power_first.mean() for r in runs])
    assert m.tau2_s_ == pytest.approx(1500.0, rel=0.05)
    assert m.tau0_ == pytest.approx(3.0, rel=0.01)
    # steady change at the mean power is what the data fix
    assert (m.g1_ + m.g2_) * p_ref == pytest.approx((-0.15 - 0.25) * p_ref, rel=0.05)
    held = _synthetic_runs([0.7])[0]
    pred = m.tau0_ * (1 + m.gain(held.power_first / held.friction_ref[0] * 3.0, 1.0)[
        (held.t_min * 60).astype(int) - 1])
    assert np.max(np.abs(pred / held.friction_ref - 1)) < 0.01


def test_model_dict_round_trip():
    runs = _synthetic_runs([1.0, 0.6])
    m = TH.ThermalModel(maxiter=10, popsize=6).fit(runs)
    m2 = TH.ThermalModel.from_dict(m.to_dict())
    for a in ("tau1_s_", "tau2_s_", "g1_", "g2_", "tau0_"):
        assert getattr(m2, a) == pytest.approx(getattr(m, a), rel=1e-12)


def test_threshold_and_alarms():
    healthy = [np.array([0.99, 1.01, 1.0]), np.array([0.98, 1.02])]
    thr = TH.choose_threshold(healthy, n_sigma=2.0)
    r = np.concatenate(healthy)
    assert thr == pytest.approx(r.max() + 2 * r.std())
    a = TH.alarms(np.array([10.0, 20.0, 30.0]), np.array([1.0, 1.3, 1.1]), thr, joint=1)
    assert [x["time_min"] for x in a] == [20.0, 30.0]
    assert a[0]["joint"] == 1 and a[0]["ratio"] == pytest.approx(1.3)
