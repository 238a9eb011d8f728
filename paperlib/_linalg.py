"""Small dense linear solves for the per-cycle compiled path (allocation-free, see :mod:`paperlib._jit`)."""

from __future__ import annotations

from paperlib._jit import rt_njit


@rt_njit
def solve_inplace(work, out, n):  # pragma: no cover - compiled
    """Solve ``work x = out`` for the leading n x n block, x written to ``out`` (partial pivoting).

    ``work`` is overwritten by the elimination.
    """
    for k in range(n):
        piv = k
        for i in range(k + 1, n):
            if abs(work[i, k]) > abs(work[piv, k]):
                piv = i
        if piv != k:
            for j in range(n):
                work[k, j], work[piv, j] = work[piv, j], work[k, j]
            out[k], out[piv] = out[piv], out[k]
        for i in range(k + 1, n):
            f = work[i, k] / work[k, k]
            for j in range(k, n):
                work[i, j] -= f * work[k, j]
            out[i] -= f * out[k]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for j in range(i + 1, n):
            s -= work[i, j] * out[j]
        out[i] = s / work[i, i]


@rt_njit(inline="always")
def solve2(M, b0, b1, out):  # pragma: no cover - compiled
    """out = M^-1 [b0, b1] for a 2x2 matrix (Cramer's rule)."""
    det = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    out[0] = (M[1, 1] * b0 - M[0, 1] * b1) / det
    out[1] = (M[0, 0] * b1 - M[1, 0] * b0) / det


@rt_njit(inline="always")
def accel_from(M, Q, h, out, work):  # pragma: no cover - compiled
    """out = M^-1 (Q - h) for a small symmetric positive definite M (n = 1, 2 closed form)."""
    n = M.shape[0]
    if n == 1:
        out[0] = (Q[0] - h[0]) / M[0, 0]
    elif n == 2:
        solve2(M, Q[0] - h[0], Q[1] - h[1], out)
    else:
        for i in range(n):
            out[i] = Q[i] - h[i]
            for j in range(n):
                work[i, j] = M[i, j]
        solve_inplace(work, out, n)
