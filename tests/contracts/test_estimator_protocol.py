"""One conformance test of every estimator against :mod:`paperlib.estimation.protocol`.

Each case builds its estimator with the defaults (plus the arguments that have none), makes a
small synthetic data set from known parameters, and states the tolerance within which the fit
must recover them. The conformance checks are the same for every estimator.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

from paperlib.estimation import protocol
from paperlib.estimation.protocol import ESTIMATORS, Estimator, NotFittedError, estimator_classes


@dataclass
class Case:
    """How to build, feed and judge one estimator.

    ``make`` returns ``(estimator, fit_args, predict_args, truth)``; ``recovers(est, truth)``
    asserts the known parameters come back (its tolerance stated there); ``poison(fit_args)``
    returns the fit arguments with one NaN planted; ``misshape(fit_args)`` with a wrong shape;
    ``n_out(predict_args)`` is the expected leading shape of ``predict``.
    """

    make: Callable[[], tuple[Any, tuple, tuple, dict]]
    recovers: Callable[[Any, dict], None]
    poison: Callable[[tuple], tuple]
    misshape: Callable[[tuple], tuple]
    out_shape: Callable[[tuple], tuple]


def _nan_at_first(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.reshape(-1)[a.size // 2] = np.nan
    return a


# ------------------------------------------------------------------------------------------------
# linear least squares: OLS on random rows
# ------------------------------------------------------------------------------------------------
def _lls():
    from paperlib.estimation.least_squares import LinearLeastSquares

    rng = np.random.default_rng(0)
    A = rng.normal(size=(400, 4))
    theta = np.array([1.5, -0.7, 0.2, 3.0])
    b = A @ theta + 0.01 * rng.normal(size=400)
    return LinearLeastSquares(), (A, b), (A[:50],), {"theta": theta}


def _lls_recovers(est, truth):
    # tolerance: 5 standard deviations (noise 0.01 N m)
    assert np.all(np.abs(est.params_ - truth["theta"]) < 5 * est.std_)
    assert est.residual_rms_ == pytest.approx(0.01, rel=0.15)


# ------------------------------------------------------------------------------------------------
# physically consistent least squares: one rigid body + viscous/Coulomb friction, K = identity
# ------------------------------------------------------------------------------------------------
def _body_pi():
    m, c = 2.0, np.array([0.1, 0.05, -0.02])
    Ic = np.diag([0.02, 0.03, 0.04])
    I = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
    return np.array([m, *(m * c), I[0, 0], I[0, 1], I[1, 1], I[0, 2], I[1, 2], I[2, 2]])


def _physical():
    from paperlib.estimation.physical import PhysicalLeastSquares

    names = ["m1", "mx1", "my1", "mz1", "xx1", "xy1", "yy1", "xz1", "yz1", "zz1", "fv1", "fs1"]
    pi = np.r_[_body_pi(), 0.5, 0.3]
    rng = np.random.default_rng(1)
    A = rng.normal(size=(300, 12))
    b = A @ pi
    est = PhysicalLeastSquares(names, 1, np.eye(12), 1.1 * pi)
    return est, (A, b), (A[:20],), {"beta": pi}


def _physical_recovers(est, truth):
    # tolerance: 1e-4 of the vector's norm (noise-free data; the pull toward pi_ref is ~lam = 1e-6)
    assert np.linalg.norm(est.params_ - truth["beta"]) < 1e-4 * np.linalg.norm(truth["beta"])
    assert np.all(est.min_eig_ > 0)
    assert est.residual_rms_ < 1e-4


# ------------------------------------------------------------------------------------------------
# basis regression (paper 004): sigmoid Coulomb, viscous, inertia, 4 ripple orders, offset
# ------------------------------------------------------------------------------------------------
def _basis():
    from paperlib.estimation.basis_regression import BasisRegression
    from paperlib.friction.basis import JointTorqueBasis

    rng = np.random.default_rng(1)
    n = 20000
    t = np.arange(n) / 1000.0
    qd = 1.8 * np.sin(2 * np.pi * t / 4.0) + 0.7 + 0.3 * np.sin(2 * np.pi * t / 1.3)
    qdd = np.gradient(qd, t)
    q = np.cumsum(qd) / 1000.0
    basis = JointTorqueBasis(200.0, (1.0, 2.0, 3.0, 4.0))
    w = np.zeros(basis.n_columns)
    w[0], w[1], w[2], w[3] = 0.08, 0.2, 0.04, 0.003
    w[4:12] = rng.uniform(-0.08, 0.08, 8)
    w[-1] = -0.12
    tau = basis.columns(q, qd, qdd) @ w + 0.01 * rng.normal(size=n)
    truth = {"names": basis.names, "w": w, "level_pos": -0.12 + 0.08, "level_neg": -0.12 - 0.2}
    return BasisRegression(), (q, qd, qdd, tau), (q[:100], qd[:100], qdd[:100]), truth


def _basis_recovers(est, truth):
    # tolerance: levels within 3e-3 N m; viscous, inertia, ripple within 4 std (+1e-4)
    assert est.orders_ == (1.0, 2.0, 3.0, 4.0)
    lv = est.levels()
    assert lv["level_pos"] == pytest.approx(truth["level_pos"], abs=3e-3)
    assert lv["level_neg"] == pytest.approx(truth["level_neg"], abs=3e-3)
    for name in ("viscous", "inertia", "cos_1", "sin_4"):
        k = truth["names"].index(name)
        assert est.params_[k] == pytest.approx(truth["w"][k], abs=4 * est.std_[k] + 1e-4)
    assert est.residual_rms_ == pytest.approx(0.01, rel=0.05)


# ------------------------------------------------------------------------------------------------
# friction of three drives with a torque ratio (paper 002): Kostic NLS and its Coulomb baseline
# ------------------------------------------------------------------------------------------------
def _drives(seed, n=600):
    rng = np.random.default_rng(seed)
    J = rng.normal(0, 5, (n, 3, 2))
    E = rng.normal(0, 3, (n, 3))
    v = rng.uniform(0.1, 2.5, (n, 3)) * rng.choice([-1, 1], (n, 3))
    return J, E, v


def _kostic():
    from paperlib.estimation.nls import FrictionData, KosticNLS
    from paperlib.friction.kostic import KosticLaw

    J, E, v = _drives(1)
    laws = [KosticLaw(1.5, 3.0, -1.0, 30.0, 3.0), KosticLaw(2.0, 2.5, -0.7, 20.0, 2.0),
            KosticLaw(0.9, 3.5, -1.5, 40.0, 4.0)]
    k_f = 1.07
    tau = k_f * E + np.stack([laws[i].torque(v[:, i]) for i in range(3)], 1)
    data = FrictionData(tau, E, v, J)
    return KosticNLS(), (data,), (data,), {"k_f": k_f, "laws": laws}


def _kostic_recovers(est, truth):
    # tolerance: k_f to 1e-6 relative, each drive's friction curve to 1e-5 relative (noise-free)
    assert est.k_f_ == pytest.approx(truth["k_f"], rel=1e-6)
    vv = np.linspace(-2.5, 2.5, 101)
    for i in range(3):
        np.testing.assert_allclose(est.laws_[i].torque(vv), truth["laws"][i].torque(vv), rtol=1e-5, atol=1e-6)
    assert est.residual_rms_ < 1e-6


def _coulomb():
    from paperlib.estimation.nls import CoulombViscousLS, FrictionData

    J, E, v = _drives(3)
    fc, kv, k_f = np.array([2.0, 1.5, 2.5]), np.array([1.2, 2.0, 0.8]), 0.95
    tau = k_f * E + np.sign(v) * fc + v * kv
    data = FrictionData(tau, E, v, J)
    return CoulombViscousLS(), (data,), (data,), {"k_f": k_f, "fc": fc, "kv": kv}


def _coulomb_recovers(est, truth):
    # tolerance: 1e-10 relative (noise-free, linear)
    assert est.k_f_ == pytest.approx(truth["k_f"], rel=1e-10)
    np.testing.assert_allclose(est.coulomb_, truth["fc"], rtol=1e-10)
    np.testing.assert_allclose(est.viscous_, truth["kv"], rtol=1e-10)


def _poison_friction(args):
    d = args[0]
    return ({"tau": _nan_at_first(d.tau), "E": d.E, "v": d.v, "J": d.J},)


def _misshape_friction(args):
    d = args[0]
    return ({"tau": d.tau[:, :2], "E": d.E, "v": d.v, "J": d.J},)


# ------------------------------------------------------------------------------------------------
# thermal (paper 001): the double exponential and the second-order thermal model
# ------------------------------------------------------------------------------------------------
def _double_exp():
    from paperlib.estimation.thermal import DoubleExponential, double_exponential

    t = np.arange(0.5, 120, 5.0)
    y = double_exponential(t, 2.5, 25.0, 5.0, 1.5, 2.0)
    return DoubleExponential(), (t, y), (t,), {"t1": 2.5, "t2": 25.0, "ratio": 8.5 / 5.0}


def _double_exp_recovers(est, truth):
    # tolerance: t2 and the cold/hot ratio to 1e-3, t1 to 1e-2 relative
    assert est.params_[1] == pytest.approx(truth["t2"], rel=1e-3)
    assert est.params_[0] == pytest.approx(truth["t1"], rel=1e-2)
    assert est.cold_hot_ratio_ == pytest.approx(truth["ratio"], rel=1e-3)


def _warmups(scales, g1=-0.15, g2=-0.25, tau1=150.0, tau2=1500.0):
    from paperlib.estimation import thermal as TH

    runs = []
    for s in scales:
        block = np.tile(np.r_[np.full(270, s), np.zeros(30)], 24)  # 24 cycles of 5 min, 1 s blocks
        G = TH.simulate_gain(block, 1.0, g1, g2, tau1, tau2)
        t_min = (np.arange(24) * 300 + 60) / 60.0
        y = 3.0 * (1 + G[(t_min * 60).astype(int) - 1])
        runs.append(TH.WarmUp(t_min=t_min, friction_ref=y, power_first=block * y[0] / 3.0,
                              k_first=np.array([y[0], 0.0, 0.0, 0.0])))
    return runs


def _thermal():
    from paperlib.estimation.thermal import ThermalModel

    runs = _warmups([1.0, 0.6, 0.8])
    p_ref = float(np.mean([r.power_first.mean() for r in runs]))
    qd = np.tile(np.r_[np.full(270, 1.0), np.zeros(30)], 4)
    return ThermalModel(), (runs,), (qd, 1.0, np.array([1.0, 6.0, 11.0])), {"tau2": 1500.0, "tau0": 3.0,
                                                                             "g_sum": -0.4, "p_ref": p_ref}


def _thermal_recovers(est, truth):
    # tolerance: tau2 and the steady change (g1 + g2) at the mean power to 5 %, tau0 to 1 %
    # (tau1 is poorly fixed by 5-minute segments; the paper's data do not fix it better)
    assert est.tau2_s_ == pytest.approx(truth["tau2"], rel=0.05)
    assert est.tau0_ == pytest.approx(truth["tau0"], rel=0.01)
    assert (est.g1_ + est.g2_) * truth["p_ref"] == pytest.approx(truth["g_sum"] * truth["p_ref"], rel=0.05)


def _poison_runs(args):
    from dataclasses import replace

    runs = list(args[0])
    runs[0] = replace(runs[0], friction_ref=_nan_at_first(runs[0].friction_ref))
    return (runs,)


def _misshape_runs(args):
    from dataclasses import replace

    runs = list(args[0])
    runs[1] = replace(runs[1], friction_ref=runs[1].friction_ref[:-2])
    return (runs,)


# ------------------------------------------------------------------------------------------------
# EWR-RLS: summed rows of a known linear model, no gating
# ------------------------------------------------------------------------------------------------
def _ewrls():
    from paperlib.estimation.ewrls import EWRLS

    rng = np.random.default_rng(2)
    theta = np.array([0.8, -1.2, 2.5])
    Y = rng.normal(size=(4000, 3))
    R = Y @ theta
    return EWRLS(3), (Y, R), (Y[:30],), {"theta": theta}


def _ewrls_recovers(est, truth):
    # tolerance: 1e-6 relative (noise-free; the prior lambda = 1e-3 against ~4000 unit rows)
    np.testing.assert_allclose(est.params_, truth["theta"], rtol=1e-6)
    # eq. 49's running residual keeps the first samples, taken before the estimate settled
    assert est.residual_rms_ < 1e-3


def _poison_first(args):
    return (_nan_at_first(args[0]), *args[1:])


def _misshape_second(args):
    return (args[0], np.asarray(args[1])[:-1], *args[2:])


def _rows(pargs):
    return (len(pargs[0]),)


CASES: dict[str, Case] = {
    "linear_least_squares": Case(_lls, _lls_recovers, _poison_first, _misshape_second, _rows),
    "physical_least_squares": Case(_physical, _physical_recovers, _poison_first, _misshape_second, _rows),
    "basis_regression": Case(_basis, _basis_recovers, _poison_first, _misshape_second, _rows),
    "kostic_nls": Case(_kostic, _kostic_recovers, _poison_friction, _misshape_friction,
                       lambda p: (p[0].n, 3)),
    "coulomb_viscous_ls": Case(_coulomb, _coulomb_recovers, _poison_friction, _misshape_friction,
                               lambda p: (p[0].n, 3)),
    "double_exponential": Case(_double_exp, _double_exp_recovers, _poison_first, _misshape_second, _rows),
    "thermal_model": Case(_thermal, _thermal_recovers, _poison_runs, _misshape_runs, lambda p: (len(p[2]),)),
    "ewrls": Case(_ewrls, _ewrls_recovers, _poison_first, _misshape_second, _rows),
}


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and not isinstance(b, np.ndarray):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b, equal_nan=True)
    return a == b or (a != a and b != b)


def test_every_registered_estimator_has_a_case():
    assert set(CASES) == set(ESTIMATORS)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_conforms_to_the_protocol(name):
    case = CASES[name]
    est, fit_args, predict_args, truth = case.make()
    cls = estimator_classes()[name]
    assert type(est) is cls

    # not fitted: predict and to_json refuse, naming the cause
    with pytest.raises(NotFittedError, match="not fitted"):
        est.predict(*predict_args)
    with pytest.raises(NotFittedError, match="not fitted"):
        est.to_json()

    # bad input is refused before anything is learned
    with pytest.raises(ValueError, match="non-finite"):
        est.fit(*case.poison(fit_args))
    with pytest.raises(ValueError, match="shape|length|lack|columns"):
        est.fit(*case.misshape(fit_args))
    assert not est.is_fitted()

    # fit returns self, adds only trailing-underscore (or private) attributes, keeps the config
    config = copy.deepcopy(est.get_params())
    before = dict(vars(est))
    assert est.fit(*fit_args) is est
    added = set(vars(est)) - set(before)
    assert all(a.endswith("_") or a.startswith("_") for a in added), sorted(added)
    assert _equal(est.get_params(), config)
    for k, v in before.items():
        if not (k.endswith("_") or k.startswith("_")) and k in config:
            assert _equal(getattr(est, k), v), k
    assert isinstance(est, Estimator)

    # the protocol's learned attributes: an estimate, a std beside each, a residual
    params, std = np.asarray(est.params_), np.asarray(est.std_)
    assert params.ndim == 1 and params.shape == std.shape
    assert np.all(np.isfinite(params))
    assert np.all(np.isnan(std) | (std >= 0))
    assert np.isfinite(est.residual_rms_) and est.residual_rms_ >= 0

    # it recovers the parameters the data were made with (tolerance stated per case)
    case.recovers(est, truth)

    # predict has the stated shape
    y = np.asarray(est.predict(*predict_args))
    assert y.shape == case.out_shape(predict_args)
    assert np.all(np.isfinite(y))

    # JSON round trip (no NaN tokens), and the rebuilt estimator predicts the same
    text = json.dumps(est.to_json(), allow_nan=False)
    back = cls.from_json(json.loads(text))
    assert type(back) is cls and back.is_fitted()
    np.testing.assert_allclose(np.asarray(back.predict(*predict_args)), y, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(np.asarray(back.params_), params)
    np.testing.assert_allclose(np.asarray(back.std_), std, rtol=1e-12, equal_nan=True)


def test_ewrls_json_warm_start_continues_exactly():
    est, (Y, R), _, _ = _ewrls()
    whole = type(est)(3).fit(Y, R)
    est.fit(Y[:1500], R[:1500])
    warm = type(est).from_json(json.loads(json.dumps(est.to_json(), allow_nan=False)))
    warm.partial_fit(Y[1500:], R[1500:])
    np.testing.assert_array_equal(warm.theta, whole.theta)
    np.testing.assert_array_equal(warm.P, whole.P)


def test_basis_regression_reads_a_recording_and_names_a_missing_channel():
    from paperlib.recordings import RecordingError, from_arrays

    est, (q, qd, qdd, tau), _, _ = _basis()
    ds = from_arrays(q, sample_rate_hz=1000.0, robot="torque_joint", source="twin",
                     channels={"qd": qd, "qdd": qdd, "tau_s": tau}, origins={"qd": "model", "qdd": "model"},
                     truth={"withheld": "a synthetic basis-regression test"})
    a = est.fit(ds).params_
    b = type(est)().fit(q, qd, qdd, tau).params_
    np.testing.assert_array_equal(a, b)
    with pytest.raises(RecordingError, match="tau_s"):
        type(est)().fit(ds.drop_vars("tau_s"))


def test_json_safe_writes_nan_and_inf_as_null():
    d = protocol.json_safe({"a": np.array([1.0, np.nan, np.inf]), "b": (np.float32(2.0), np.int64(3)), "c": True})
    assert json.loads(json.dumps(d, allow_nan=False)) == {"a": [1.0, None, None], "b": [2.0, 3], "c": True}
    np.testing.assert_array_equal(protocol.from_json_array(d["a"]), [1.0, np.nan, np.nan])
