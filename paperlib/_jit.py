"""The numba decorator of the per-cycle path: compiled without reference counting.

Numba reference-counts arrays: around every call of a compiled function it increments and
afterwards decrements the count of each array argument (an out-of-line, atomic ``NRT_incref``
/ ``NRT_decref`` call each). The per-cycle functions here take many small arrays (the control
step 34, the plant and IMU functions 5-14), so this bookkeeping cost more than the arithmetic:
measured on the control step alone (PD, no estimation), 393 ns per call with reference counting
and 102 ns without; the twin's closed loop ran ~1.5x faster once its whole path was compiled
without it.

:func:`rt_njit` is ``numba.njit(cache=True, nogil=True, _nrt=False)``. ``_nrt=False`` is
numba's (private, long-standing) switch that compiles a function without the runtime: it may
read and write the arrays it is given and take views of them, but may not allocate an array
(``np.empty`` ...) or return one. Every function decorated with it follows that rule; the
callers allocate (Python, or a compiled function with the runtime). The pinned numba version is
tested with it (the whole suite runs on these functions).

Small helpers that the per-cycle path calls with many array arguments (the kernel-set
dispatch, the plant's phases, the small solves, the step's guards and row assembly) are
decorated ``rt_njit(inline="always")``: numba then inlines them into their callers' IR, so a
call passes no array structs (each array is 5 + 2 ndim machine words) and LLVM sees the whole
cycle. Measured on the 5R twin (``paperlib bench``, quiet 2-core VM, interleaved runs against
the commit before the generic layers): the generic layers had cost 17 % of the twin's real-time
factor and ~15 % of the Python-called step; with the inlining the twin is back at the old
speed and the step within 5 %. Results are bit-identical (inlining changes no operation).
The control step itself is not inlined (numba refuses a star-args call of an inlined function).
"""

from __future__ import annotations

from typing import Any, Callable

import numba as nb

from paperlib import _numba_cache

_numba_cache.install_compile_lock()  # a cold cache is filled once, not once per process

__all__ = ["rt_njit"]


def rt_njit(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(cache=True, nogil=True, _nrt=False, **options)``, bare or with options.

    Examples
    --------
    >>> @rt_njit
    ... def axpy(a, x, y):  # writes into y, allocates nothing
    ...     for i in range(x.shape[0]):
    ...         y[i] += a * x[i]
    """
    opts = {"cache": True, "nogil": True, "_nrt": False}
    opts.update(options)
    if fn is None:
        return nb.njit(**opts)
    return nb.njit(**opts)(fn)
