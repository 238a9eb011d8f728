"""thermal fit on warm-up days of the second (three-node) thermal model vs their true friction."""

from __future__ import annotations

import warnings

import pytest

from paperlib.experiments.industrial.thermal_crosscheck import crosscheck, crosscheck_days


@pytest.mark.slow  # ~15 s with numba's cache warm, ~40 s cold: four 60-min days simulated and fitted
def test_thermal_fit_on_three_node_days_matches_the_true_friction():
    ds = crosscheck_days("three_node", cycles=12, joints=[1])
    assert all(d.attrs["thermal_model"] == "three_node" and d.attrs["source"] == "twin" for d in ds.values())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = crosscheck(ds, maxiter=60)
    j = r["joints"]["1"]
    # the measured double exponential (what thermal fit prints as t1, t2, cold/hot) vs the truth's
    assert abs(j["rel_error"]["t2"]) < 0.15 and abs(j["rel_error"]["cold_hot_ratio"]) < 0.15
    # each diagnostic message reached the user as a warning, and only those
    d = r["model"]["joints"]["1"]["diagnostics"]
    sent = [str(w.message) for w in caught if str(w.message).startswith("thermal fit, joint 1:")]
    assert sorted(sent) == sorted(f"thermal fit, joint 1: {m}" for m in d["messages"])
    assert d["model_order_ok"] == (abs(d["model_t2_rel_diff"]) <= 0.15 and abs(d["model_ratio_rel_diff"]) <= 0.15)
