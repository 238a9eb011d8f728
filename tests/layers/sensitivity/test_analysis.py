"""Morris and Sobol' through paperlib.sensitivity.analysis recover known indices of analytic functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.sensitivity import analysis as an
from paperlib.sweeps.assumptions import Assumption


def _ass(name: str, low: float, high: float, log: bool = False) -> Assumption:
    base = math.sqrt(low * high) if log else 0.5 * (low + high)
    return Assumption(name, base, low, high, "1", "test", "test", log=log)


def _values(X: np.ndarray, names: list[str], ass: dict) -> np.ndarray:
    return np.array([[p[n] for n in names] for p in an.to_values(X, names, ass)])


def test_morris_mu_star_of_a_linear_model_is_its_slope_times_the_range() -> None:
    names = ["a", "b", "c"]
    ass = {"a": _ass("a", 0.0, 2.0), "b": _ass("b", -1.0, 1.0), "c": _ass("c", 10.0, 11.0)}
    slopes = np.array([3.0, -0.5, 0.0])
    prob = an.problem(names, ass)
    X = an.morris_sample(prob, trajectories=10, levels=4, seed=3)
    Y = _values(X, names, ass) @ slopes
    res = an.morris_indices(prob, X, Y, levels=4, seed=3)
    ranges = np.array([2.0, 2.0, 1.0])
    assert res["mu_star"] == pytest.approx(list(np.abs(slopes) * ranges), abs=1e-9)
    assert res["mu"] == pytest.approx(list(slopes * ranges), abs=1e-9)
    assert res["sigma"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)  # linear: every effect the same
    assert res["n_trajectories"] == 10
    assert an.rank_assumptions({"y": res}, 2) == ["a", "b"]


def test_morris_drops_a_trajectory_with_a_missing_value() -> None:
    names = ["a", "b"]
    ass = {"a": _ass("a", 0.0, 1.0), "b": _ass("b", 0.0, 1.0)}
    prob = an.problem(names, ass)
    X = an.morris_sample(prob, trajectories=5, levels=4, seed=1)
    Y = X @ np.array([1.0, 2.0])
    Y[4] = np.nan  # in trajectory 2 (rows 3..5)
    res = an.morris_indices(prob, X, Y, levels=4)
    assert res["n_trajectories"] == 4
    assert res["mu_star"] == pytest.approx([1.0, 2.0], abs=1e-9)


def test_sobol_recovers_the_ishigami_indices() -> None:
    names = ["x1", "x2", "x3"]
    ass = {n: _ass(n, -math.pi, math.pi) for n in names}
    prob = an.problem(names, ass)
    X = an.sobol_sample(prob, 2048, seed=5)
    V = _values(X, names, ass)
    a, b = 7.0, 0.1
    Y = np.sin(V[:, 0]) + a * np.sin(V[:, 1]) ** 2 + b * V[:, 2] ** 4 * np.sin(V[:, 0])
    res = an.sobol_indices(prob, Y, seed=5, resamples=200)
    # analytic values (Ishigami & Homma 1990; e.g. Saltelli et al. 2008, Global Sensitivity Analysis)
    var = a ** 2 / 8 + b * math.pi ** 4 / 5 + b ** 2 * math.pi ** 8 / 18 + 0.5
    v1 = 0.5 * (1 + b * math.pi ** 4 / 5) ** 2
    v2 = a ** 2 / 8
    v13 = b ** 2 * math.pi ** 8 / 18 - b ** 2 * math.pi ** 8 / 50
    s1 = [v1 / var, v2 / var, 0.0]
    st = [(v1 + v13) / var, v2 / var, v13 / var]
    assert res["S1"] == pytest.approx(s1, abs=0.05)
    assert res["ST"] == pytest.approx(st, abs=0.05)
    assert all(0 < c < 0.1 for c in res["ST_conf"])


def test_sobol_of_a_linear_model_gives_its_variance_shares_on_a_log_range() -> None:
    """y = log(a) + 2 log(b), a and b log-uniform over a decade: shares 1/5 and 4/5."""
    names = ["a", "b"]
    ass = {"a": _ass("a", 1.0, 10.0, log=True), "b": _ass("b", 0.1, 1.0, log=True)}
    prob = an.problem(names, ass)
    X = an.sobol_sample(prob, 1024, seed=7)
    V = _values(X, names, ass)
    assert (V.min(axis=0) >= [1.0, 0.1]).all() and (V.max(axis=0) <= [10.0, 1.0]).all()
    Y = np.log(V[:, 0]) + 2 * np.log(V[:, 1])
    res = an.sobol_indices(prob, Y, seed=7, resamples=200)
    assert res["S1"] == pytest.approx([0.2, 0.8], abs=0.04)
    assert res["ST"] == pytest.approx([0.2, 0.8], abs=0.04)


def test_sobol_says_why_it_computes_nothing() -> None:
    names = ["a", "b"]
    ass = {n: _ass(n, 0.0, 1.0) for n in names}
    prob = an.problem(names, ass)
    X = an.sobol_sample(prob, 8, seed=1)
    flat = an.sobol_indices(prob, np.ones(len(X)))
    assert flat["ST"] == [None, None] and "same" in flat["reason"]
    Y = X[:, 0].copy()
    Y[3] = np.nan
    assert "1 of" in an.sobol_indices(prob, Y)["reason"]


def test_every_headlines_top_assumption_goes_on_to_sobol_first() -> None:
    names = ["a", "b", "c", "d"]
    m = {"y1": {"names": names, "mu_star": [10.0, 9.0, 8.0, 0.0]},  # a tops y1; b and c close behind
         "y2": {"names": names, "mu_star": [0.0, 0.0, 0.1, 1.0]}}   # d tops y2 alone
    assert an.rank_assumptions(m, 2) == ["a", "d"]
    assert an.rank_assumptions(m, 3) == ["a", "d", "b"]
    assert an.rank_assumptions({"y": {"names": names, "mu_star": [None] * 4}}, 2) == ["a", "b"]
    # the leaders a study must say it leaves out of Sobol' when top_k is smaller than their number
    assert an.leaders(m) == ["a", "d"]
    assert an.leaders({"y": {"names": names, "mu_star": [None] * 4}}) == []
