"""Compiled loops that apply one generated kernel to many states.

Each loop takes the kernel (a numba dispatcher) as its first argument and returns the
per-state status array; callers turn a non-zero status into a clear error.

The loops are not cached on disk (``cache=False``): their signatures hold the kernel's
dispatcher type, which numba's cache index pickles through a weak reference. An index written
by one process and extended by another, which compiled the loop for a different kernel, then
fails to save with ``ReferenceError: underlying object has vanished`` (seen in a CI rehearsal
with a warm kernel cache). Each loop is small; the kernels themselves stay cached.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np


@nb.njit(cache=False)
def batch_q1(kernel, Q, prm, out):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], prm, out[i])
    return status


@nb.njit(cache=False)
def batch_q2(kernel, Q, prm, out_a, out_b):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], prm, out_a[i], out_b[i])
    return status


@nb.njit(cache=False)
def batch_qqd1(kernel, Q, QD, prm, out):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], QD[i], prm, out[i])
    return status


@nb.njit(cache=False)
def batch_qqd2(kernel, Q, QD, prm, out_a, out_b):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], QD[i], prm, out_a[i], out_b[i])
    return status


@nb.njit(cache=False)
def batch_qqdqdd1(kernel, Q, QD, QDD, prm, out):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], QD[i], QDD[i], prm, out[i])
    return status


@nb.njit(cache=False)
def batch_qqdqdd3(kernel, Q, QD, QDD, prm, out_a, out_b, out_c):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], QD[i], QDD[i], prm, out_a[i], out_b[i], out_c[i])
    return status


@nb.njit(cache=False)
def batch_qqd4(kernel, Q, QD, prm, out_a, out_b, out_c, out_d):  # pragma: no cover - compiled
    status = np.empty(Q.shape[0], dtype=np.int64)
    for i in range(Q.shape[0]):
        status[i] = kernel(Q[i], QD[i], prm, out_a[i], out_b[i], out_c[i], out_d[i])
    return status


def as_states(x: Any, name: str, n: int) -> tuple[np.ndarray, bool]:
    """Validate a state argument; return it as (N, n) float64 and whether it was a single state."""
    arr = np.asarray(x, dtype=np.float64)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n:
        raise ValueError(f"{name} must have shape ({n},) or (N, {n}); got {np.shape(x)}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.argwhere(~np.isfinite(arr))[0, 0])
        raise ValueError(f"{name}[{bad}] is not finite: {arr[bad]}")
    return np.ascontiguousarray(arr), single
