"""The share calibration's solver, and the stated twin against its rule (a staleness check)."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.experiments.mems import share_calibration as sc
from paperlib.experiments.mems import tracking as tr


def test_solver_finds_the_root_of_a_coupled_smooth_map() -> None:
    x_true = np.array([1.21, 0.97, 0.42, 0.77])
    A = np.array([[30.0, 2.0, -8.0, 0.5], [1.5, 28.0, 0.4, -9.0], [-3.0, 0.2, 25.0, 1.0], [0.1, -2.5, 1.2, 22.0]])

    def evaluate(x: np.ndarray) -> np.ndarray:  # mildly nonlinear, like the shares
        d = x - x_true
        return A @ d + 4.0 * d**2

    calls: list[str] = []
    x, r = sc.solve(evaluate=evaluate, log=calls.append)
    np.testing.assert_allclose(x, x_true, atol=5e-3)
    assert np.max(np.abs(r)) <= sc.TOLERANCE_PP
    assert len(calls) >= 2


def test_solver_says_when_it_cannot_meet_the_rule() -> None:
    with pytest.raises(RuntimeError, match="did not converge"):
        sc.solve(evaluate=lambda x: np.full(4, 3.0) + 0.0 * x, max_iter=2, log=lambda s: None)


def test_residual_orders_friction_then_feedback() -> None:
    shares = np.array([tr.PAPER_FIG11_SHARES[p] for p in tr.PAPER_FIG11_SHARES])
    shares[1, 0] += 2.0  # friction FF, motor 1
    shares[2, 1] -= 1.0  # feedback, motor 2
    np.testing.assert_allclose(sc.residual(shares), [2.0, 0.0, 0.0, -1.0])


def test_the_stored_solution_still_meets_its_rule_and_the_stated_twin_does_not_adopt_it() -> None:
    """Fails when the twin, controller or pipeline runs changed without solving the rule again."""
    from paperlib.twin import drives as dr

    assert "calibration" not in dr.load_twin_params().raw  # the stated twin keeps its designed friction
    shares = sc.shares_of(sc.calibrated_twin())
    np.testing.assert_allclose(shares.sum(axis=0), 100.0, rtol=1e-9)
    worst = float(np.max(np.abs(sc.residual(shares))))
    assert worst <= sc.TOLERANCE_PP, (
        f"the stored calibration misses its rule by {worst:.2f} pp: run "
        "python -m paperlib.experiments.mems.share_calibration --write")


def test_a_written_solution_reads_back(tmp_path) -> None:
    x, r = np.array([1.1, 0.9, 0.3, 0.6]), np.zeros(4)
    path = sc.write_solution(x, r, tmp_path / "cal.toml")
    level, ripple = sc.load_solution(path)
    np.testing.assert_allclose(np.r_[level, ripple], x)
    tp = sc.twin_with(level, ripple)
    assert tp.raw["calibration"]["status"] == "calibrated"
