"""Paper 002's friction identification: the Kostic law, NLS with k_f, the Coulomb+viscous baseline, on the twin."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import least_squares

from paperlib.estimation.nls import CoulombViscousLS, FrictionData, KosticNLS
from paperlib.experiments.rrr import identification as idf
from paperlib.friction.base import FrictionLaw
from paperlib.friction.kostic import KosticLaw
from paperlib.recordings import RecordingError


@pytest.fixture(scope="module")
def data(recording, robot):
    return idf.friction_data(recording, robot)


@pytest.fixture(scope="module")
def light_data(light_recording, light_robot):
    """The sampling run of the twin with the light rotors it had before the calibration of I_r."""
    return idf.friction_data(light_recording, light_robot)


# -- the law -------------------------------------------------------------------------------------

def test_kostic_law_is_the_papers_exponential_form_and_a_friction_law():
    law = KosticLaw(1.2, 2.5, -0.8, 40.0, 3.0)
    v = np.linspace(-3, 3, 101)
    paper = law.k_v * v + sum(f * (1 - 2 / (1 + np.exp(2 * m * v))) for f, m in ((law.f_1, law.m_1), (law.f_2, law.m_2)))
    np.testing.assert_allclose(law.torque(v), paper, rtol=1e-12, atol=1e-12)
    assert isinstance(law, FrictionLaw)
    assert np.all(law.torque(v) * v >= 0)  # dissipative for these levels
    h = 1e-6
    np.testing.assert_allclose(law.dtorque_dv(v), (law.torque(v + h) - law.torque(v - h)) / (2 * h), rtol=1e-6, atol=1e-6)
    assert np.isfinite(law.torque(np.array([1e6, -1e6]))).all()  # no overflow of exp


def test_sign_and_label_symmetries_leave_the_curve_unchanged():
    """The paper's Table 2 (negative m's) and its canonical form are the same curves."""
    v = np.linspace(-2, 2, 201)
    for j in range(3):
        law = KosticLaw(*(idf.PAPER_TABLE2[k][j] for k in ("k_v", "f_1", "f_2", "m_1", "m_2")))
        can = law.canonical()
        assert can.m_1 >= can.m_2 >= 0
        np.testing.assert_allclose(can.torque(v), law.torque(v), rtol=1e-12, atol=1e-12)
    flipped = KosticLaw(1.0, -2.0, 0.5, -30.0, 4.0)
    np.testing.assert_allclose(flipped.torque(v), KosticLaw(1.0, 0.5, 2.0, 4.0, 30.0).torque(v), atol=1e-12)


def test_twin_friction_is_not_of_the_kostic_form_but_close_to_it(twin):
    """The twin's truth is LuGre/Stribeck + shear-thinning: the best Kostic curve is off, but by < 1 %."""
    v = np.linspace(0.25, 2.6, 300)
    for i in range(3):
        F = twin.steady_friction(v, i)
        best = min((least_squares(lambda x: (KosticLaw.from_params(x).torque(v) - F) / F, [1, 3, -1, m1, m2])
                    for m1, m2 in ((50, 5), (10, 3), (30, 2))), key=lambda s: s.cost)
        err = np.max(np.abs(KosticLaw.from_params(best.x).torque(v) / F - 1))
        assert 1e-4 < err < 0.01, (i, err)
        A = np.stack([np.ones_like(v), v], 1) / F[:, None]  # best Coulomb + viscous line: much worse
        c = np.linalg.lstsq(A, np.ones_like(v), rcond=None)[0]
        assert np.max(np.abs(A @ c - 1)) > 0.05


# -- estimators on exact data ----------------------------------------------------------------------

def _synthetic(seed: int, n: int = 600):
    rng = np.random.default_rng(seed)
    J = rng.normal(0, 5, (n, 3, 2))
    E = rng.normal(0, 3, (n, 3))
    v = rng.uniform(0.1, 2.5, (n, 3)) * rng.choice([-1, 1], (n, 3))
    return J, E, v


def test_nls_recovers_exact_kostic_parameters():
    J, E, v = _synthetic(1)
    laws = [KosticLaw(1.5, 3.0, -1.0, 30.0, 3.0), KosticLaw(2.0, 2.5, -0.7, 20.0, 2.0), KosticLaw(0.9, 3.5, -1.5, 40.0, 4.0)]
    k_f = 1.07
    tau = k_f * E + np.stack([laws[i].torque(v[:, i]) for i in range(3)], 1)
    for residual in ("task", "joint"):
        est = KosticNLS(n_starts=5, seed=2, residual=residual).fit(FrictionData(tau, E, v, J))
        assert est.k_f_ == pytest.approx(k_f, rel=1e-6)
        vv = np.linspace(-2.5, 2.5, 101)
        for i in range(3):
            np.testing.assert_allclose(est.laws_[i].torque(vv), k_f * laws[i].torque(vv) / k_f, rtol=1e-5, atol=1e-6)
        assert est.rms_residual_ < 1e-6
        assert len(est.starts_) == 5


def test_coulomb_viscous_least_squares_recovers_exact_parameters():
    J, E, v = _synthetic(3)
    fc, kv, k_f = np.array([2.0, 1.5, 2.5]), np.array([1.2, 2.0, 0.8]), 0.95
    tau = k_f * E + np.sign(v) * fc + v * kv
    for residual in ("task", "joint"):
        est = CoulombViscousLS(residual=residual).fit(FrictionData(tau, E, v, J))
        assert est.k_f_ == pytest.approx(k_f, rel=1e-10)
        np.testing.assert_allclose(est.coulomb_, fc, rtol=1e-10)
        np.testing.assert_allclose(est.viscous_, kv, rtol=1e-10)
        assert np.all(est.std_ < 1e-8)


def test_friction_data_validates_its_input():
    with pytest.raises(ValueError, match="shape"):
        FrictionData(np.zeros((5, 3)), np.zeros((5, 2)), np.zeros((5, 3)), np.zeros((5, 3, 2)))
    with pytest.raises(ValueError, match="residual"):
        KosticNLS(residual="both")


# -- on the twin's sampling run -------------------------------------------------------------------

def test_recording_without_torque_is_refused_naming_the_channel(recording, robot):
    with pytest.raises(RecordingError, match="tau_m"):
        idf.friction_data(recording.drop_vars("tau_m"), robot, name="no_torque.nc")


def test_nls_recovers_twin_friction_curves_and_kf_from_several_starts(light_data, light_twin):
    """Done-when of issue 13: curves within 5 % over the speed range used, k_f within 2 %, >= 5 starts.

    On the twin with light rotors, where the friction is a sizeable share of the drive torque: the
    method's check. On the calibrated twin it does not hold (the next test).
    """
    data, twin = light_data, light_twin
    est = KosticNLS(n_starts=8, seed=0).fit(data)
    truth = lambda v, i: twin.steady_friction(v, i)  # noqa: E731
    ranges = idf.speed_range(data)
    assert np.all(ranges[:, 0] >= idf.DEFAULT_V_GATE) and np.all(ranges[:, 1] > 2.0)  # the speeds the paths use
    best = idf.curve_errors(est.friction_curves, truth, ranges)
    assert max(best["max_rel"]) < 0.05
    assert abs(est.k_f_ / twin.k_f - 1) < 0.02
    agree = idf.start_agreement(est, ranges, truth)["starts"]
    good = [s for s in agree if s["max_rel_curve_error"] < 0.05 and abs(s["k_f"] / twin.k_f - 1) < 0.02]
    assert len(good) >= 5, agree
    assert est.std_[0] < 0.02 * est.k_f_  # k_f is well determined


def test_calibrated_twin_recovers_k_f_and_the_curves(data, twin):
    """With the rotor inertia calibrated to Table 4's a_max, E (from filtered accelerations) dominates the torque.

    The friction is a few % of the torque while the drives accelerate; with the held torque centred on the
    samples (:func:`paperlib.signals.held_to_centred`) both k_f and the curves are still found within 5 %
    (before the centring the curves were 30-48 % off: the comparison table's curves_recovered row).
    """
    est = KosticNLS(n_starts=3, seed=0).fit(data)
    truth = lambda v, i: twin.steady_friction(v, i)  # noqa: E731
    f = np.stack([truth(data.v[:, i], i) for i in range(3)], 1)
    assert np.sqrt(np.mean(data.E**2)) > 10 * np.sqrt(np.mean(f**2))
    assert abs(est.k_f_ / twin.k_f - 1) < 0.005
    assert max(idf.curve_errors(est.friction_curves, truth, idf.speed_range(data))["max_rel"]) < 0.05


def test_coulomb_viscous_baseline_misses_the_stribeck_region(data, twin):
    """The linear baseline cannot follow the twin's curve over the same speeds (the paper's motivation)."""
    cv = CoulombViscousLS().fit(data)
    errs = idf.curve_errors(cv.friction_curves, lambda v, i: twin.steady_friction(v, i), idf.speed_range(data))
    assert max(errs["max_rel"]) > 0.05
    assert abs(cv.k_f_ / twin.k_f - 1) < 0.05


def test_joint_residual_is_biased_by_the_redundant_drives(data, twin):
    """The paper's per-joint objective absorbs the drives' internal preload; the task residual does not."""
    truth = lambda v, i: twin.steady_friction(v, i)  # noqa: E731
    ranges = idf.speed_range(data)
    task = idf.curve_errors(KosticNLS(n_starts=2, seed=0).fit(data).friction_curves, truth, ranges)
    joint = idf.curve_errors(KosticNLS(n_starts=2, seed=0, residual="joint").fit(data).friction_curves, truth, ranges)
    assert max(joint["max_rel"]) > 2 * max(task["max_rel"])
