"""The helpers notebooks 03-05 call (moved out of the notebooks): what they return on small synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.experiments.mems import figures as figs
from paperlib.experiments.mems import friction_fits as ff
from paperlib.experiments.mems import temperature as tp
from paperlib.experiments.mems.synthetic import synthetic_recording


@pytest.fixture(scope="module")
def rec():
    return synthetic_recording(2.0, seed=3, controller="CTC", fs_hz=500.0, temperature_C=31.0)


@pytest.fixture(scope="module")
def comp(rec):
    return ff.lagrangian_components(rec, ff.estimate_history(rec, 3), 3, rate_hz=100.0)


def test_twin_truth_curve_bins_the_true_friction_and_is_none_without_truth(comp) -> None:
    v, tau = ff.twin_truth_curve(comp, 1, 21)
    assert len(v) == len(tau) > 0
    assert np.all(np.abs(v) <= float(np.abs(comp["qd"].sel(joint=1)).max()))
    # friction opposes the motion: the binned truth has the opposite sign of the velocity where it moves
    moving = np.abs(v) > 0.2 * np.abs(v).max()
    assert np.all(np.sign(tau[moving]) == -np.sign(v[moving]))
    assert ff.twin_truth_curve(comp.drop_vars("tau_F_true"), 1, 21) is None


def test_fit_results_hold_the_steady_estimate_and_the_spans(rec, comp) -> None:
    hist = ff.estimate_history(rec, 3)
    fit = comp.sel(time=slice(0.5, None))
    out = ff.fit_results(rec, hist, fit, ff.fit_quality(fit), (1.0, 2.0))
    assert list(out["pi_pds_bar"]) == list(ff.steady_state(hist)[:2])
    assert len(out["pi_F_final"]) == len(out["param_names"]) - 2 == 8
    assert out["fig6_start_s"] == pytest.approx(float(fit.time[0])) and out["fig7_window_s"] == (1.0, 2.0)


def test_mean_temperatures_per_joint_and_nan_without_a_temperature_channel(rec) -> None:
    got = tp.mean_temperatures({"cold": rec, "none": rec.drop_vars("temperature")})
    assert got["cold"] == pytest.approx([31.0, 31.0])
    assert np.all(np.isnan(got["none"]))


def test_history_groups_split_eq50_by_order() -> None:
    names = ["pi_pds,1", "pi_pds,2"] + [f"pi_F,{j},{k}" for j in (1, 2) for k in range(4)]
    groups = tp.history_groups(names)
    assert groups["fig13_pi_pds"][0] == ["pi_pds,1", "pi_pds,2"]
    assert groups["fig14b_pi_F_order1"][0] == ["pi_F,1,1", "pi_F,2,1"]
    assert groups["fig15b_pi_F_order3"][0] == ["pi_F,1,3", "pi_F,2,3"]
    assert {g[3] for g in groups.values()} == {"pi_pds", "pi_F_low", "pi_F_high"}
    assert set(figs.PAPER_CONVERGENCE_S) <= {g[3] for g in groups.values()}


def test_final_friction_curves_cover_both_runs_velocities(comp) -> None:
    finals = {"a": np.r_[1.0, 1.0, 0.5, 0.1, 0.0, 0.0, 0.5, 0.1, 0.0, 0.0]}
    curves = tp.final_friction_curves({"a": comp}, finals, 3, 1, n=11)
    v, f = curves["a"]
    assert len(v) == 11 and v[-1] == pytest.approx(float(np.abs(comp["qd"].sel(joint=1)).max()))
    assert np.all(np.sign(f[v > 0]) == np.sign(f[-1]))
