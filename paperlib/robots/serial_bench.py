"""Benchmarks of the serial-arm regressor (``paperlib bench``).

Keys (all for the TX40, one state = 6 joints x 60 inertial columns):

- ``serial_regressor_ns``: the generated straight-line kernel (``paperlib/kernels/tx40.py``),
  per state inside a compiled loop;
- ``serial_regressor_ns_python``: the same kernel, one call from Python (preallocated output);
- ``serial_generic_regressor_ns``: the generic compiled Newton-Euler regressor (any URDF), per
  state inside a compiled loop;
- ``pinocchio_regressor_ns``: pinocchio's C++ ``computeJointTorqueRegressor`` for the same
  state, one call through its Python binding (the only way to call it from here: the number
  includes the binding's overhead, so it is an upper bound on the C++ time);
- ``pinocchio_call_overhead_ns``: a trivial pinocchio binding call (``pin.neutral``) measured the
  same way, to read ``pinocchio_regressor_ns`` minus it as an estimate of the C++ time alone.

The targets compare ``serial_regressor_ns`` with ``pinocchio_regressor_ns -
pinocchio_call_overhead_ns`` and ``serial_regressor_ns_python`` with ``pinocchio_regressor_ns``.
"""

from __future__ import annotations

import time
from typing import Callable

import numba as nb
import numpy as np

from paperlib.kernels import tx40 as K
from paperlib.robots import serial as S


def _best(fn: Callable[[], object], repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@nb.njit(cache=True)
def _kernel_loop(Q, QD, QDD, Y):  # pragma: no cover - compiled
    acc = 0.0
    for i in range(Q.shape[0]):
        K.inertial_regressor(Q[i], QD[i], QDD[i], Y)
        acc += Y[1, 13]
    return acc


@nb.njit(cache=True)
def _generic_loop(Q, QD, QDD, R0, p0, axes, g, Y):  # pragma: no cover - compiled
    acc = 0.0
    for i in range(Q.shape[0]):
        S.inertial_regressor(Q[i], QD[i], QDD[i], R0, p0, axes, g, Y)
        acc += Y[1, 13]
    return acc


def _states(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, S.SerialArm]:
    arm = S.SerialArm.named("tx40")
    q, qd, qdd = arm.random_states(n, seed=0, v_max=3.0, a_max=20.0)
    return q, qd, qdd, arm


def bench_serial_regressor_ns(n: int = 200_000) -> float:
    q, qd, qdd, _ = _states(n)
    Y = np.empty((6, 60))
    _kernel_loop(q[:10], qd[:10], qdd[:10], Y)
    return _best(lambda: _kernel_loop(q, qd, qdd, Y), 5) / n * 1e9


def bench_serial_regressor_ns_python(n: int = 100_000) -> float:
    inertial_regressor = K.inertial_regressor
    q, qd, qdd, _ = _states(1)
    q, qd, qdd = (np.ascontiguousarray(a[0]) for a in (q, qd, qdd))
    Y = np.empty((6, 60))
    inertial_regressor(q, qd, qdd, Y)

    def calls():
        for _ in range(n):
            inertial_regressor(q, qd, qdd, Y)

    return _best(calls, 3) / n * 1e9


def bench_serial_generic_regressor_ns(n: int = 100_000) -> float:
    q, qd, qdd, arm = _states(n)
    Y = np.empty((6, 60))
    args = (arm.R0, arm.p0, arm.axes, arm.gravity, Y)
    _generic_loop(q[:10], qd[:10], qdd[:10], *args)
    return _best(lambda: _generic_loop(q, qd, qdd, *args), 3) / n * 1e9


def _pin_model():
    import pinocchio as pin

    arm = S.SerialArm.named("tx40")
    model = pin.buildModelFromXML(arm.to_urdf())
    return pin, model, model.createData()


def bench_pinocchio_regressor_ns(n: int = 100_000) -> float:
    pin, model, data = _pin_model()
    q, qd, qdd, _ = _states(1)
    q, qd, qdd = (np.ascontiguousarray(a[0]) for a in (q, qd, qdd))
    f = pin.computeJointTorqueRegressor
    f(model, data, q, qd, qdd)

    def calls():
        for _ in range(n):
            f(model, data, q, qd, qdd)

    return _best(calls, 3) / n * 1e9


def bench_pinocchio_call_overhead_ns(n: int = 100_000) -> float:
    pin, model, _ = _pin_model()
    f = pin.neutral
    f(model)

    def calls():
        for _ in range(n):
            f(model)

    return _best(calls, 3) / n * 1e9


def benchmarks() -> dict[str, Callable[[], float]]:
    out: dict[str, Callable[[], float]] = {
        "serial_regressor_ns": bench_serial_regressor_ns,
        "serial_regressor_ns_python": bench_serial_regressor_ns_python,
        "serial_generic_regressor_ns": bench_serial_generic_regressor_ns,
    }
    try:
        import pinocchio  # noqa: F401  (a dev dependency: the oracle)
    except ModuleNotFoundError:
        return out
    out["pinocchio_regressor_ns"] = bench_pinocchio_regressor_ns
    out["pinocchio_call_overhead_ns"] = bench_pinocchio_call_overhead_ns
    return out
