"""Benchmarks of the generated 5R kernels, the flagship's (``paperlib bench``; registered by the mems room).

Keys: ``mc_ns_loop`` (M and C per sample in a compiled loop), ``row_ns_loop``
(Q_I plus a full regressor row of Table 4's model 3, per sample in a compiled loop),
``row_ns_python`` (the same, one call from Python with preallocated arrays).
"""

from __future__ import annotations

import time
from typing import Callable

import numba as nb
import numpy as np

from paperlib.estimation.regressor import assemble_row
from paperlib.friction import table4_model
from paperlib.kernels import five_bar as K


@nb.njit(cache=True)
def _mc_loop(Q, QD, prm, M, C):  # pragma: no cover - compiled
    acc = 0.0
    for i in range(Q.shape[0]):
        K.mass_matrix(Q[i], prm, M)
        K.coriolis_matrix(Q[i], QD[i], prm, C)
        acc += M[0, 0] + C[0, 1]
    return acc


@nb.njit(cache=True, nogil=True)
def row_once(q, qd, qdd, tau_m, prm, cols, Q_I, D_m, D_psi, psid, Y, R):  # pragma: no cover - compiled
    """Q_I and the full regressor row (Y, R) of one sample; returns the kernel status."""
    status = K.row_terms(q, qd, qdd, prm, Q_I, D_m, D_psi, psid)
    if status == 0:
        assemble_row(Q_I, D_m, tau_m, Y[:, :0], D_psi, psid, cols, Y, R)
    return status


@nb.njit(cache=True)
def _row_loop(Q, QD, QDD, TAU, prm, cols, Q_I, D_m, D_psi, psid, Y, R):  # pragma: no cover - compiled
    acc = 0.0
    for i in range(Q.shape[0]):
        row_once(Q[i], QD[i], QDD[i], TAU[i], prm, cols, Q_I, D_m, D_psi, psid, Y, R)
        acc += Y[0, 3] + R[1]
    return acc


def _states(n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    Q = np.radians([120.0, 60.0]) + rng.uniform(-0.3, 0.3, (n, 2))
    return Q, rng.uniform(-3.7, 3.7, (n, 2)), rng.uniform(-30, 30, (n, 2)), rng.uniform(-2, 2, (n, 2))


def _best(fn: Callable[[], object], repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_mc_ns_loop(n: int = 1_000_000) -> float:
    from paperlib.robots.five_bar import FiveBar

    prm = FiveBar.default().params
    Q, QD, _, _ = _states(n)
    M, C = np.empty((2, 2)), np.empty((2, 2))
    _mc_loop(Q[:10], QD[:10], prm, M, C)
    return _best(lambda: _mc_loop(Q, QD, prm, M, C), 5) / n * 1e9


def _row_buffers(n_params: int):
    return np.empty(2), np.empty((2, 2)), np.empty((K.N_PSI, 2)), np.empty(K.N_PSI), np.empty((2, n_params)), np.empty(2)


def bench_row_ns_loop(n: int = 1_000_000, model: int = 3) -> float:
    from paperlib.robots.five_bar import FiveBar

    prm = FiveBar.default().params
    fm = table4_model(model)
    cols = fm.columns()
    bufs = _row_buffers(2 + fm.n_params)
    Q, QD, QDD, TAU = _states(n)
    _row_loop(Q[:10], QD[:10], QDD[:10], TAU[:10], prm, cols, *bufs)
    return _best(lambda: _row_loop(Q, QD, QDD, TAU, prm, cols, *bufs), 5) / n * 1e9


def bench_row_ns_python(n: int = 200_000, model: int = 3) -> float:
    from paperlib.robots.five_bar import FiveBar

    prm = FiveBar.default().params
    fm = table4_model(model)
    cols = fm.columns()
    bufs = _row_buffers(2 + fm.n_params)
    q, qd, qdd, tau = (np.ascontiguousarray(a[0]) for a in _states(1))
    row_once(q, qd, qdd, tau, prm, cols, *bufs)

    def calls():
        for _ in range(n):
            row_once(q, qd, qdd, tau, prm, cols, *bufs)

    return _best(calls, 3) / n * 1e9


def benchmarks() -> dict[str, Callable[[], float]]:
    return {
        "mc_ns_loop": bench_mc_ns_loop,
        "row_ns_loop": bench_row_ns_loop,
        "row_ns_python": bench_row_ns_python,
    }
