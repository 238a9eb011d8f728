"""The three-node gearbox thermal model: energy balance, closed-form steady state, campaign days."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.twin import thermal_three_node as T3
from paperlib.twin.robots import campaign as C


def _net(kappa: float) -> np.ndarray:
    d = T3.ThreeNodeDesign(mesh_share=0.2, oil_share=0.3, mesh_time_constant_s=40.0,
                           oil_time_constant_s=300.0, housing_time_constant_s=1500.0, kappa_per_K=kappa)
    return T3.design_three_node(d, rise_per_W=1.5)


@pytest.mark.parametrize("kappa", [0.0, 0.02])
def test_energy_balance_holds_step_by_step(kappa):
    p = _net(kappa)
    W, seconds, dt = 25.0, 1800.0, 0.004
    x, _, lost = T3.simulate_constant_power(seconds, W, p, T_amb=20.0, dt=dt)
    stored = T3.stored_energy(x, p, 20.0)
    # heat put in = heat stored + heat given to the room (explicit Euler conserves it to rounding)
    assert stored + lost == pytest.approx(W * seconds, rel=1e-9)
    assert 0.1 * W * seconds < stored < W * seconds


@pytest.mark.parametrize("kappa", [0.0, 0.02])
def test_steady_state_is_the_closed_form(kappa):
    p = _net(kappa)
    W = 25.0
    x, T_mesh, _ = T3.simulate_constant_power(12 * 3600.0, W, p, T_amb=20.0, dt=0.05)
    ss = T3.steady_state(W, p, 20.0)
    np.testing.assert_allclose(x, ss, rtol=0, atol=1e-6)
    # at kappa = 0 the mesh rise is the series resistance times the power (the design's 1.5 K/W)
    if kappa == 0.0:
        assert ss[0] - 20.0 == pytest.approx(1.5 * W, rel=1e-12)
    else:  # the oil-housing link conducts better once warm: a smaller rise
        assert ss[0] - 20.0 < 1.5 * W
    assert np.all(np.diff(T_mesh) >= -1e-12)  # a warm-up from rest never cools


def test_linear_time_constants_match_the_simulated_decay():
    p = _net(0.0)
    taus = T3.linear_time_constants(p)
    assert taus.shape == (3,) and np.all(np.diff(taus) > 0)
    # after the two fast modes have died out, the approach to steady state decays with the slowest
    x, T_mesh, _ = T3.simulate_constant_power(6 * taus[2], 10.0, p, dt=0.05)
    t = np.arange(1, T_mesh.size + 1) * 0.05
    e = T3.steady_state(10.0, p, 20.0)[0] - T_mesh
    i1, i2 = np.searchsorted(t, [2 * taus[2], 4 * taus[2]])
    assert (t[i2] - t[i1]) / np.log(e[i1] / e[i2]) == pytest.approx(taus[2], rel=1e-3)


def test_design_rejects_bad_shares():
    d = T3.ThreeNodeDesign(0.6, 0.5, 40.0, 300.0, 1500.0, 0.0)
    with pytest.raises(ValueError, match="shares"):
        T3.design_three_node(d, 1.0)


def test_campaign_day_with_the_three_node_model():
    params = C.load_campaign_params()
    spec = C.campaign_days(params, robots=(1,), include_fault=False, thermal_model="three_node")[0]
    assert spec.name == "r1_d1_3n" and spec.thermal_model == "three_node"
    assert C.campaign_days(params)[0].thermal_model is None  # the default campaign is untouched
    day = C.simulate_day(params, spec, cycles=1)
    ds = C.day_recording(day)
    assert ds.attrs["source"] == "twin" and ds.attrs["thermal_model"] == "three_node"
    tr = day.truth
    assert tr["thermal_layout"].startswith("paperlib.twin.thermal_three_node")
    assert np.asarray(tr["thermal_params"]).shape == (6, T3.N_T3_PARAMS)
    T = np.asarray(tr["temperature_inner_degC"])
    assert np.all(T[-1] > T[0] + 1.0)  # every gearbox warms by its own friction
    with pytest.raises(ValueError, match="thermal_model"):
        C.campaign_days(params, thermal_model="four_node")
