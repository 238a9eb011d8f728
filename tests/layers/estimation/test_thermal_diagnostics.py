"""thermal fit's diagnostics: each fires when its condition holds and not otherwise."""

from __future__ import annotations

import warnings

import numpy as np

from paperlib.estimation.thermal import ThermalModel, double_exponential, fit_double_exponential
from paperlib.estimation.thermal_monitor import MODEL_ORDER_TOL, fit_diagnostics

T = np.arange(1.0, 86.0, 5.0)  # segment times of an 85-min day [min]


def _model(tau1_min: float, tau2_min: float) -> ThermalModel:
    m = ThermalModel()
    m.tau1_s_, m.tau2_s_ = 60.0 * tau1_min, 60.0 * tau2_min
    return m


def _curve(t2: float, a2: float = 2.0) -> np.ndarray:
    return double_exponential(T, 2.0, t2, 5.0, 1.0, a2)


BOUNDS = ((0.2, 15.0), (5.0, 200.0))


def test_no_message_when_the_model_reproduces_a_resolved_warm_up():
    y = _curve(25.0)
    d = fit_diagnostics(fit_double_exponential(T, y), _model(2.0, 30.0), T, y, model_bounds=BOUNDS)
    assert d["messages"] == [] and d["model_order_ok"] and d["t2_resolved"] and d["model_tau2_resolved"]
    assert abs(d["model_t2_rel_diff"]) < 1e-3


def test_span_rule_fires_on_a_slow_mode_longer_than_the_records():
    y = _curve(150.0, a2=4.0)
    mix = fit_double_exponential(T, y)
    assert mix.t2_min > T.max()
    d = fit_diagnostics(mix, _model(2.0, 30.0), T, y, model_bounds=BOUNDS)
    assert not d["t2_resolved"]
    assert any("longer than the recordings" in m and "double exponential" in m for m in d["messages"])
    d = fit_diagnostics(fit_double_exponential(T, _curve(25.0)), _model(2.0, 120.0), T, _curve(25.0))
    assert not d["model_tau2_resolved"] and any("thermal model's slow" in m for m in d["messages"])


def test_model_order_rule_fires_beyond_its_tolerance_only():
    y = _curve(25.0)
    mix = fit_double_exponential(T, y)
    near = _curve(25.0 * (1 + 0.5 * MODEL_ORDER_TOL))
    far = _curve(25.0 * (1 + 2.0 * MODEL_ORDER_TOL))
    assert fit_diagnostics(mix, _model(2.0, 30.0), T, near)["model_order_ok"]
    d = fit_diagnostics(mix, _model(2.0, 30.0), T, far)
    assert not d["model_order_ok"] and any("does not reproduce" in m for m in d["messages"])


def test_bound_rule():
    y = _curve(25.0)
    d = fit_diagnostics(fit_double_exponential(T, y), _model(0.2, 30.0), T, y, model_bounds=BOUNDS)
    assert d["at_bound"] == ["tau1"] and any("search bound" in m for m in d["messages"])


def test_fit_diagnostics_does_not_warn_by_itself():
    y = _curve(150.0, a2=4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_diagnostics(fit_double_exponential(T, y), _model(2.0, 30.0), T, y)
