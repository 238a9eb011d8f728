"""thermal fit's diagnostics: each fires when its condition holds and not otherwise."""

from __future__ import annotations

import warnings

import numpy as np

from paperlib.estimation.thermal import (ThermalModel, WarmUp, double_exponential, fit_double_exponential,
                                         simulate_gain)
from paperlib.estimation.thermal_monitor import MODEL_ORDER_TOL, fit_diagnostics

T = np.arange(1.0, 86.0, 5.0)  # segment times of an 85-min day [min]
BOUNDS = ((0.2, 15.0), (5.0, 200.0))


def _curve(t2: float, a2: float = 2.0) -> np.ndarray:
    return double_exponential(T, 2.0, t2, 5.0, 1.0, a2)


class _Reconstructs(ThermalModel):
    """A fitted model whose reconstruction of every run is a given curve (tests the rules alone)."""

    def __init__(self, tau1_min: float, tau2_min: float, curve: np.ndarray) -> None:
        super().__init__()
        self.tau1_s_, self.tau2_s_ = 60.0 * tau1_min, 60.0 * tau2_min
        self.curve = curve

    def fitted_warm_up(self, run: WarmUp) -> np.ndarray:
        return self.curve


def _runs(y: np.ndarray, n: int = 2) -> list[WarmUp]:
    return [WarmUp(t_min=T, friction_ref=y, power_first=np.ones(10), k_first=np.zeros(4), label=f"d{i}")
            for i in range(n)]


def test_no_message_when_the_model_reproduces_a_resolved_warm_up():
    y = _curve(25.0)
    d = fit_diagnostics(fit_double_exponential(T, y), _Reconstructs(2.0, 30.0, y), _runs(y), model_bounds=BOUNDS)
    assert d["messages"] == [] and d["model_order_ok"] and d["t2_resolved"] and d["model_tau2_resolved"]
    assert abs(d["model_t2_rel_diff"]) < 1e-6 and len(d["runs"]) == 2


def test_span_rule_fires_on_a_slow_mode_longer_than_the_records():
    y = _curve(150.0, a2=4.0)
    mix = fit_double_exponential(T, y)
    assert mix.t2_min > T.max()
    d = fit_diagnostics(mix, _Reconstructs(2.0, 30.0, y), _runs(y), model_bounds=BOUNDS)
    assert not d["t2_resolved"] and d["model_tau2_resolved"]
    assert [m for m in d["messages"] if "longer than the recordings" in m and "double exponential" in m]
    y = _curve(25.0)
    d = fit_diagnostics(fit_double_exponential(T, y), _Reconstructs(2.0, 120.0, y), _runs(y))
    assert not d["model_tau2_resolved"] and any("thermal model's slow" in m for m in d["messages"])


def test_model_rule_fires_beyond_its_tolerance_only():
    y = _curve(25.0)
    mix = fit_double_exponential(T, y)
    near = _curve(25.0 * (1 + 0.5 * MODEL_ORDER_TOL))
    far = _curve(25.0 * (1 + 2.0 * MODEL_ORDER_TOL))
    d = fit_diagnostics(mix, _Reconstructs(2.0, 30.0, near), _runs(y))
    assert d["model_order_ok"] and d["messages"] == []
    d = fit_diagnostics(mix, _Reconstructs(2.0, 30.0, far), _runs(y))
    assert not d["model_order_ok"] and d["model_t2_rel_diff"] > MODEL_ORDER_TOL
    assert any("do not reproduce" in m for m in d["messages"])


def test_bound_rule():
    y = _curve(25.0)
    d = fit_diagnostics(fit_double_exponential(T, y), _Reconstructs(0.2, 30.0, y), _runs(y), model_bounds=BOUNDS)
    assert d["at_bound"] == ["tau1"] and any("search bound" in m for m in d["messages"])


def test_fit_diagnostics_does_not_warn_by_itself():
    y = _curve(150.0, a2=4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_diagnostics(fit_double_exponential(T, y), _Reconstructs(2.0, 30.0, y), _runs(y))


def test_a_model_fitted_on_its_own_warm_ups_passes_and_reconstructs_them():
    """Runs made by eq. 12 + eq. 14 themselves: the real fit reproduces them, no rule fires."""
    block = 10.0
    runs = []
    for scale in (1.0, 0.7, 0.85):
        p0 = np.full(int(85 * 60 / block), 40.0 * scale)  # cold friction power [W]
        G = simulate_gain(p0, block, -0.004, -0.010, 90.0, 1500.0)
        idx = (T * 60.0 / block).astype(int) - 1
        runs.append(WarmUp(t_min=T, friction_ref=6.0 * (1.0 + G[idx]), power_first=p0, k_first=np.array([6.0, 0, 0, 0]),
                           block_s=block, label=f"s{scale}"))
    m = ThermalModel(maxiter=60).fit(runs)
    np.testing.assert_allclose(m.fitted_warm_up(runs[0]), runs[0].friction_ref, rtol=2e-3)
    mix = fit_double_exponential(np.concatenate([r.t_min for r in runs]), np.concatenate([r.friction_ref for r in runs]))
    d = fit_diagnostics(mix, m, runs, model_bounds=(m.tau1_bounds_min, m.tau2_bounds_min))
    assert d["model_order_ok"] and abs(d["model_t2_rel_diff"]) < 0.02, d
