"""Batch weighted regularized LS: the offline reference for EWR-RLS (eq. 14)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperlib.estimation.batch import ewrls_batch, informative_mask, weighted_lstsq
from paperlib.estimation.ewrls import EWRLS

N_PI = 10


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("m", [None, 2])
@pytest.mark.parametrize("lambda_floor", [None, 0.0])
def test_ewrls_final_estimate_equals_batch(m: int | None, lambda_floor: float | None) -> None:
    rng = np.random.default_rng(10)
    N = 20_000
    shape = (N, N_PI) if m is None else (N, m, N_PI)
    Y = rng.standard_normal(shape) * rng.uniform(0.1, 10.0, N_PI)  # unequal column scales
    pi = rng.standard_normal(N_PI)
    R = Y @ pi + 0.2 * rng.standard_normal(shape[:-1])
    qd = rng.standard_normal((N, 2)) * 0.05
    qdd = rng.standard_normal((N, 2)) * 0.3
    kw = dict(pi0=np.r_[1.0, 1.0, np.zeros(N_PI - 2)], t_half=1.0, lambda_floor=lambda_floor)
    est = EWRLS(N_PI, **kw)
    est.run(Y, R, qd, qdd)
    ref = ewrls_batch(Y, R, qd, qdd, **kw)
    assert ref.n_informative == est.n_updates < N
    assert ref.rank == N_PI and 1.0 < ref.cond < 1e3
    assert _rel(est.theta, ref.theta) < 1e-8


def test_equality_holds_where_the_prior_and_floor_dominate() -> None:
    """Few samples, strong regularization and a fast half-life: every term of the cost matters."""
    rng = np.random.default_rng(11)
    N = 300
    Y = rng.standard_normal((N, N_PI))
    R = Y @ rng.standard_normal(N_PI) + 0.5 * rng.standard_normal(N)
    pi0 = np.linspace(-1.0, 1.0, N_PI)
    for lambda_floor in (0.0, 3.0, 50.0):
        kw = dict(pi0=pi0, lam=3.0, t_half=0.005, lambda_floor=lambda_floor)
        est = EWRLS(N_PI, **kw)
        est.run(Y, R, None, None)
        ref = ewrls_batch(Y, R, **kw)
        assert _rel(est.theta, ref.theta) < 1e-8
    # and the terms do matter: the floor changes the answer
    no_floor = ewrls_batch(Y, R, pi0=pi0, lam=3.0, t_half=0.005, lambda_floor=0.0)
    assert _rel(no_floor.theta, ref.theta) > 1e-2


def test_plain_least_squares_limit() -> None:
    rng = np.random.default_rng(12)
    A = rng.standard_normal((500, 4))
    b = A @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.standard_normal(500)
    ref = np.linalg.lstsq(A, b, rcond=None)[0]
    res = weighted_lstsq(A, b)
    np.testing.assert_allclose(res.theta, ref, rtol=1e-12)
    batch = ewrls_batch(A, b, t_half=math.inf, lam=1e-12, lambda_floor=0.0)
    np.testing.assert_allclose(batch.theta, ref, rtol=1e-9)
    assert res.rms_residual == pytest.approx(0.1, rel=0.1)


def test_weights_equal_repeated_rows() -> None:
    rng = np.random.default_rng(13)
    A = rng.standard_normal((50, 3))
    b = rng.standard_normal(50)
    w = rng.integers(1, 4, 50)
    rep = weighted_lstsq(np.repeat(A, w, axis=0), np.repeat(b, w))
    wtd = weighted_lstsq(A, b, weights=w.astype(float))
    np.testing.assert_allclose(wtd.theta, rep.theta, rtol=1e-12)


def test_reports_condition_number_and_rank() -> None:
    U, _ = np.linalg.qr(np.random.default_rng(14).standard_normal((40, 3)))
    A = U * np.array([100.0, 10.0, 0.5])
    res = weighted_lstsq(A, A @ np.ones(3))
    assert res.rank == 3
    np.testing.assert_allclose(res.singular_values, [100.0, 10.0, 0.5], rtol=1e-12)
    assert res.cond == pytest.approx(200.0, rel=1e-12)
    np.testing.assert_allclose(res.theta, np.ones(3), rtol=1e-12)


def test_too_few_informative_samples_raises_with_counts() -> None:
    rng = np.random.default_rng(15)
    N = 1000
    Y = rng.standard_normal((N, N_PI))
    R = Y @ np.ones(N_PI)
    qd = np.zeros((N, 2))
    qdd = np.zeros((N, 2))
    qd[:7, 0] = 0.5  # only 7 samples move
    with pytest.raises(ValueError, match=r"only 7 informative row\(s\) \(from 7 informative sample\(s\)\), but 10 parameters need at least 10"):
        ewrls_batch(Y, R, qd, qdd)
    with pytest.raises(ValueError, match="only 3 informative row"):
        weighted_lstsq(Y[:3], R[:3])


def test_rank_deficient_raises_and_can_fall_back_to_the_prior() -> None:
    rng = np.random.default_rng(16)
    N = 2000
    Y = rng.standard_normal((N, N_PI))
    Y[:, 7] = 2.0 * Y[:, 3]  # two columns never separable
    R = Y @ np.ones(N_PI)
    with pytest.raises(ValueError, match=r"rank 9 < 10 parameters: 1 parameter direction"):
        ewrls_batch(Y, R)
    with pytest.raises(ValueError, match="rank 9"):
        weighted_lstsq(Y, R)
    res = ewrls_batch(Y, R, t_half=math.inf, require_full_rank=False)
    assert res.rank == 9 and math.isinf(res.cond)
    # the data fix 2 pi_7 + pi_3 = 3; the prior (pi0 = 0) picks the minimum-norm split
    assert 2 * res.theta[7] + res.theta[3] == pytest.approx(3.0, rel=1e-6)
    assert res.theta[7] == pytest.approx(2 * res.theta[3], rel=1e-4)
    with pytest.raises(ValueError, match="rank 9"):
        weighted_lstsq(Y, R, lam=0.0, require_full_rank=False)  # no prior: unsolvable


def test_bad_input() -> None:
    Y = np.ones((20, 3))
    R = np.ones(20)
    R[5] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        ewrls_batch(Y, R)
    with pytest.raises(ValueError, match="non-finite"):
        weighted_lstsq(Y, R)
    with pytest.raises(ValueError, match="shape"):
        ewrls_batch(Y, np.ones(19))
    with pytest.raises(ValueError, match="shape"):
        weighted_lstsq(Y, np.ones(20), weights=np.ones(3))
    with pytest.raises(ValueError, match="both"):
        ewrls_batch(Y, np.ones(20), np.ones(20), None)


def test_informative_mask() -> None:
    qd = np.array([[0.0, 0.03], [0.0, 0.0], [0.01, -0.01]])
    qdd = np.array([[0.0, 0.0], [0.0, -0.5], [0.1, 0.0]])
    np.testing.assert_array_equal(informative_mask(qd, qdd, 0.02, 0.2), [True, True, False])
