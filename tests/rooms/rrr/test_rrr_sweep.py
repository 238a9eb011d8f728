"""The rrr room's sweep runner: its assumptions are applied as stated, refused outside their ranges, and one
call returns every headline key, the cheap setting giving the default's values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.experiments.rrr import comparison, sweep
from paperlib.experiments.rrr.limits import motion_limits


def test_assumptions_are_declared_with_reasons_and_baselines_equal_the_files(robot, twin):
    assert 6 <= len(sweep.ASSUMPTIONS) <= 8 and set(sweep.FACTORS) == set(sweep.ASSUMPTIONS)
    for a in sweep.ASSUMPTIONS.values():
        assert a.reason and a.meaning and a.low < a.baseline < a.high or a.low == a.baseline
    ct = twin.description["controller"]
    base = sweep.ASSUMPTIONS
    assert base["velocity_bandwidth_hz"].baseline == ct["velocity_bandwidth_hz"]
    assert base["position_bandwidth_hz"].baseline == ct["position_bandwidth_hz"]
    assert base["velocity_filter_s"].baseline == ct["velocity_filter_s"]
    assert base["drive_gain"].baseline == twin.drive_gain
    assert base["I_r_kg_m2"].baseline == robot.param("Ir1")
    r0, t0 = sweep.apply_factors({})
    np.testing.assert_allclose(t0.kd, twin.kd, rtol=1e-12)
    np.testing.assert_allclose(t0.kp, twin.kp, rtol=1e-12)
    assert np.array_equal(r0.params, robot.params) and t0.friction == twin.friction


def test_factors_change_the_twin_as_stated(robot, twin):
    r, t = sweep.apply_factors({"velocity_bandwidth_hz": 50.0, "coulomb_scale": 2.0, "stribeck_excess_scale": 0.0,
                                "viscous_scale": 0.5, "drive_gain": 1.0, "velocity_filter_s": 0.002})
    J = float(twin.description["controller"]["joint_inertia_kg_m2"])
    np.testing.assert_allclose(t.kd, J * 2 * math.pi * 50.0)
    np.testing.assert_allclose(t.kp, J * 2 * math.pi * 50.0 * 2 * math.pi * 5.0)
    for new, old in zip(t.friction, twin.friction):
        assert new.coulomb_Nm == pytest.approx(2 * old.coulomb_Nm) and new.static_Nm == pytest.approx(new.coulomb_Nm)
        assert new.viscous_Nm_s_per_rad == pytest.approx(0.5 * old.viscous_Nm_s_per_rad)
    assert t.k_f == pytest.approx(1.0) and t.velocity_filter_s == 0.002
    assert np.array_equal(r.params, robot.params)
    # the rotor inertia moves the robot model (a_max falls) and the gains follow it
    r2, t2 = sweep.apply_factors({"I_r_kg_m2": 8.0})
    assert r2.param("Ir3") == 8.0 and motion_limits(r2)["a_max_m_s2"] < 0.6 * motion_limits(robot)["a_max_m_s2"]
    np.testing.assert_allclose(t2.kd / twin.kd, (8.0 + J - robot.param("Ir1")) / J)


@pytest.mark.parametrize("factors", [{"velocity_bandwidth_hz": 500.0}, {"coulomb_scale": 0.1}, {"I_r_kg_m2": 0.10},
                                     {"drive_gain": float("nan")}, {"stribeck_excess_scale": -1.0}, {"no_such": 1.0}])
def test_a_factor_outside_its_range_or_unknown_is_refused(factors):
    with pytest.raises(ValueError):
        sweep.apply_factors(factors)
    with pytest.raises(ValueError):
        sweep.run_seed(0, factors, sweep.FAST)


def test_unknown_setting_and_negative_seed_are_refused():
    with pytest.raises(ValueError, match="setting"):
        sweep.run_seed(0, {}, {"n_start": 3})
    with pytest.raises(ValueError, match="seed"):
        sweep.run_seed(-1, {}, sweep.FAST)


@pytest.fixture(scope="module")
def fast_run():
    return sweep.run_seed(0, {}, sweep.FAST)


def test_run_seed_returns_every_headline_key(fast_run):
    keys = {h.key for h in sweep.headlines()}
    assert keys == {h.key for h in comparison.HEADLINES}
    assert set(fast_run["values"]) == keys
    missing = [k for k, v in fast_run["values"].items() if v is None]
    assert not missing, missing
    assert fast_run["source"] == "twin" and fast_run["factors_applied"]["I_r_kg_m2"] == sweep.ASSUMPTIONS["I_r_kg_m2"].baseline


def test_fast_setting_gives_the_default_values_on_the_stated_twin(fast_run):
    """FAST (6 NLS starts instead of 8) must not move a headline by more than 1 % nor flip a yes/no."""
    full = sweep.run_seed(0, {}, {})["values"]
    for k, v in full.items():
        w = fast_run["values"][k]
        if isinstance(v, bool):
            assert w == v, k
        else:
            assert w == pytest.approx(v, rel=0.01), k


def test_a_changed_assumption_changes_the_headlines(fast_run):
    """Stiffer velocity loops cut the peaks before compensation (the drives' lag) on the twin."""
    stiff = sweep.run_seed(0, {"velocity_bandwidth_hz": 100.0, "position_bandwidth_hz": 10.0}, sweep.FAST)["values"]
    assert abs(stiff["t5_400_before_max"]) < 0.7 * abs(fast_run["values"]["t5_400_before_max"])
