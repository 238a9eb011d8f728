"""Friction layer (paper 004's basis, Stribeck law) and the basis regression on synthetic data."""

import numpy as np
import pytest

from paperlib.estimation.basis_regression import BasisRegression, angle_periodogram, find_ripple_orders
from paperlib.friction import LinearFrictionLaw
from paperlib.friction.basis import HarmonicRipple, JointTorqueBasis, SigmoidCoulomb, Viscous
from paperlib.friction.stribeck import StribeckLaw, stribeck_torque


def test_laws_follow_the_protocol():
    assert isinstance(SigmoidCoulomb(10.0), LinearFrictionLaw)
    assert isinstance(Viscous(0.1), LinearFrictionLaw)


@pytest.mark.parametrize("law", [SigmoidCoulomb(50.0, 0.2, 0.3), Viscous(0.7),
                                 StribeckLaw(0.1, 0.2, 0.15, 0.3, 0.05, 2.0, 0.03, 1e-2),
                                 StribeckLaw(0.1, 0.2, 0.15, 0.3, 0.07, 1.3, 0.0, 5e-3)])
def test_dtorque_dv_matches_finite_differences(law):
    v = np.array([-2.0, -0.3, -0.04, -0.003, 0.002, 0.05, 0.4, 1.7])
    h = 1e-7
    fd = (law.torque(v + h) - law.torque(v - h)) / (2 * h)
    np.testing.assert_allclose(law.dtorque_dv(v), fd, rtol=1e-5, atol=1e-6)


def test_dissipative_and_compiled_stribeck_agree():
    law = StribeckLaw(0.05, 0.15, 0.08, 0.2, 0.08, 2.0, 0.03, 2e-3)
    v = np.linspace(-3, 3, 601)
    assert np.all(law.torque(v) * v >= 0)
    p = law.as_array()
    np.testing.assert_allclose([stribeck_torque(x, p) for x in v], law.torque(v), rtol=0, atol=1e-13)
    # the breakaway level is reached at low speed, the Coulomb level at high speed, per direction
    assert law.level(np.array([1e-6]))[0] == pytest.approx(0.08)
    assert law.level(np.array([-5.0]))[0] == pytest.approx(0.15)


def test_sigmoid_columns_have_the_stated_null_direction():
    b = JointTorqueBasis(30.0, (1.0, 2.0, 200.5))
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, 500))
    Phi = b.columns(q, qd, qdd)
    np.testing.assert_allclose(Phi @ b.null_direction(), 0.0, atol=1e-14)
    assert np.linalg.matrix_rank(Phi) == b.n_columns - 1
    assert b.names[-1] == "offset" and b.names[4] == "cos_1" and "sin_200.5" in b.names


def test_ripple_amplitudes():
    r = HarmonicRipple((1.0, 3.5), cos=(0.3, 0.0), sin=(0.4, -0.2))
    np.testing.assert_allclose(r.amplitudes(), [0.5, 0.2])
    q = np.linspace(0, 20, 4001)
    assert np.max(np.abs(r.torque(q))) <= 0.7 + 1e-12


def test_periodogram_finds_a_non_integer_order():
    rng = np.random.default_rng(3)
    q = np.cumsum(rng.uniform(0.0, 2e-3, 40000))  # ~40 rad, uneven speed
    r = 0.05 * np.cos(37.4 * q + 0.3) + 0.01 * rng.normal(size=q.size)
    orders, amp = angle_periodogram(q, r, max_order=100)
    k = orders[np.argmax(amp)]
    assert abs(k - 37.4) < 0.1
    assert amp.max() == pytest.approx(0.05, rel=0.1)
    peaks = find_ripple_orders(q, r, min_order=5, max_order=100)
    assert peaks and abs(peaks[0]["order"] - 37.4) < 0.05


def _synthetic(seed, orders_true=(1.0, 2.0, 3.0, 4.0), noise=0.01, n=20000):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 1000.0
    qd = 1.8 * np.sin(2 * np.pi * t / 4.0) + 0.7 + 0.3 * np.sin(2 * np.pi * t / 1.3)  # ~2 revolutions
    qdd = np.gradient(qd, t)
    q = np.cumsum(qd) / 1000.0
    b = JointTorqueBasis(200.0, orders_true)
    w = np.zeros(b.n_columns)
    w[0], w[1], w[2], w[3] = 0.08, 0.2, 0.04, 0.003
    w[4:4 + 2 * len(orders_true)] = rng.uniform(-0.08, 0.08, 2 * len(orders_true))
    w[-1] = -0.12
    tau = b.columns(q, qd, qdd) @ w + noise * rng.normal(size=n)
    return q, qd, qdd, tau, b, w


def test_regression_recovers_weights_levels_and_order_count():
    q, qd, qdd, tau, b, w = _synthetic(1)
    m = BasisRegression(detect_orders=False, max_order=8).fit(q, qd, qdd, tau)
    assert m.orders_ == (1.0, 2.0, 3.0, 4.0)             # n chosen by blocked CV + 1-SE rule
    assert m.rank_ == m.basis_.n_columns - 1               # the sigmoid redundancy is revealed
    lv = m.levels()
    assert lv["level_pos"] == pytest.approx(-0.12 + 0.08, abs=3e-3)
    assert lv["level_neg"] == pytest.approx(-0.12 - 0.2, abs=3e-3)
    got = m.named_weights_
    for name in ("viscous", "inertia", "cos_1", "sin_4"):
        assert got[name] == pytest.approx(w[b.names.index(name)], abs=4 * m.std_[b.names.index(name)] + 1e-4)
    assert m.residual_rms_ == pytest.approx(0.01, rel=0.05)
    # standstill convention
    assert got["coulomb_pos"] == pytest.approx(got["coulomb_neg"])
    # the JSON round trip predicts the same torque
    m2 = BasisRegression.from_dict(m.to_dict())
    np.testing.assert_allclose(m2.predict(q, qd, qdd), m.predict(q, qd, qdd))


def test_bic_selection_also_finds_the_orders():
    q, qd, qdd, tau, *_ = _synthetic(2, orders_true=(1.0, 2.0))
    m = BasisRegression(detect_orders=False, max_order=6, selection="bic", alpha_grid=(20.0, 200.0, 2000.0)).fit(
        q, qd, qdd, tau)
    assert m.orders_ == (1.0, 2.0)


def test_periodogram_orders_are_added_only_when_they_help():
    q, qd, qdd, tau, *_ = _synthetic(4, orders_true=(1.0, 2.0, 150.25))
    m = BasisRegression(max_order=6).fit(q, qd, qdd, tau)
    assert any(abs(k - 150.25) < 0.05 for k in m.orders_)
    kept = [d for d in m.detected_orders_ if d["kept"]]
    assert len(kept) == 1
    assert m.residual_rms_ == pytest.approx(0.01, rel=0.05)
