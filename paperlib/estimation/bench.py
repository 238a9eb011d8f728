"""Estimator speed benchmarks for ``paperlib bench`` (see :mod:`paperlib.bench`).

``estimator_samples_per_s``: the EWR-RLS core alone (:func:`ewrls_run_kernel`) on 1e6
samples of 10-parameter summed rows, gating on (two joints), wind-up floor on (the
defaults), inside one compiled loop, after a warm-up call that compiles (or loads the
cache). Time is the CPU time of the calling thread (``time.thread_time``), so other load
on the machine does not count against the estimator; best of a few repeats.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .ewrls import EWRLS, ewrls_run_kernel

N_SAMPLES = 1_000_000
N_PARAMS = 10
REPEATS = 5


def estimator_samples_per_s(n_samples: int = N_SAMPLES, n_params: int = N_PARAMS, repeats: int = REPEATS) -> float:
    """Samples per second of the compiled EWR-RLS loop (best of ``repeats``).

    Parameters
    ----------
    n_samples : int
        Samples per timed run.
    n_params : int
        Parameters (columns of the summed row).
    repeats : int
        Timed runs; the fastest counts.

    Returns
    -------
    float
        Samples per second [1/s].
    """
    rng = np.random.default_rng(12345)
    Y = rng.standard_normal((n_samples, 1, n_params))
    pi = rng.standard_normal(n_params)
    R = Y @ pi + 0.01 * rng.standard_normal((n_samples, 1))
    QD = rng.standard_normal((n_samples, 2))
    QDD = rng.standard_normal((n_samples, 2))
    est = EWRLS(n_params, pi0=np.zeros(n_params))
    none_i = np.zeros(0, dtype=np.int64)
    none_t = np.zeros((0, n_params))
    none_r = np.zeros((0, 2))
    none_s = np.zeros(0, dtype=np.int8)

    def once(k: int) -> float:
        est.reset()
        t0 = time.thread_time()
        ewrls_run_kernel(Y[:k], R[:k], QD[:k], QDD[:k], est.v_gate, est.a_gate, est.beta, est.floor_c,
                         est.theta, est.P, est.pi0, est._g, est.counters, est.accum,
                         0, none_i, none_t, none_r, none_s)
        return time.thread_time() - t0

    once(100)  # compile / load the cache
    best = min(once(n_samples) for _ in range(repeats))
    if not np.all(np.isfinite(est.theta)) or est.n_updates == 0:
        raise RuntimeError("estimator benchmark produced no valid estimate")
    return n_samples / best


def benchmarks() -> dict[str, Callable[[], float]]:
    """Benchmark registry entries of the estimation package."""
    return {"estimator_samples_per_s": estimator_samples_per_s}
