"""What one twin cycle costs, phase by phase (``paperlib bench``: the ``twin_cycle_ns_*`` keys).

A 40-s run of the 5R twin is 160,000 control cycles; :func:`paperlib.twin.runner.closed_loop`
does in each (module docstring there) the plant's state at the cycle's start, the IMU stream,
the sensing, the control step (with the estimator), the drives and friction, the RK4 step with
heat, and the logging. To see what the cycle's time goes to, each compiled phase is called on its
own, in a compiled loop of ``n_calls`` calls, on the arrays of a real run (captured by
:func:`paperlib.twin.runner.captured_runs` from a short AC run of the default twin), and the
whole loop is timed over the same run:

================================  =====================================================================
key                               what one call does
================================  =====================================================================
``twin_cycle_ns_loop``            one whole cycle of :func:`~paperlib.twin.runner.closed_loop` (the run)
``twin_cycle_ns_plant_state``     :func:`~paperlib.twin.plant.cycle_begin`: M, h, friction Jacobian and
                                  rates at the cycle's start, the acceleration the held forces give
``twin_cycle_ns_imu``             :func:`~paperlib.twin.imu.imu_stream_step`: the IMU stream to the
                                  cycle's time, the newest packet as the loop sees it
``twin_cycle_ns_control_step``    :func:`~paperlib.control.step.control_step` with the estimator on
``twin_cycle_ns_estimator``       its part of it: the same step minus the step with estimation off
``twin_cycle_ns_drives_friction`` :func:`~paperlib.twin.plant.cycle_forces`: drives, joint temperatures,
                                  LuGre friction, the held forces and their acceleration
``twin_cycle_ns_rk4_heat``        :func:`~paperlib.twin.plant.cycle_finish`: the RK4 step (three more
                                  evaluations of M and h), work and dissipation, gearbox heat
``twin_cycle_ns_rest``            the loop minus the phases above: sensing, logging, the loop itself
================================  =====================================================================

Each phase is timed by the thread's CPU clock, best of ``repeats``; the phases run on copies of
the captured arrays (the state-advancing ones restore their state each call, which adds a few
copies to their time), so they can also be measured on any robot's twin. Times depend on the
host: they are reported, never asserted.
"""

from __future__ import annotations

import copy
import functools
import time
from typing import Any, Callable

import numpy as np

from paperlib._jit import rt_njit
from paperlib.control import controllers as ctl
from paperlib.control.step import I_ESTIMATE, control_step
from paperlib.twin import imu as im
from paperlib.twin.plant import cycle_begin, cycle_finish, cycle_forces

__all__ = ["PHASES", "cycle_costs"]

#: The keys' phase names, in cycle order (``twin_cycle_ns_<phase>``).
PHASES = ("loop", "plant_state", "imu", "control_step", "estimator", "drives_friction", "rk4_heat", "rest")


@rt_njit
def _time_plant_state(n_calls, kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd, work):  # pragma: no cover - compiled
    s = 0
    for _ in range(n_calls):
        s |= cycle_begin(kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd, work)
    return s


@rt_njit
def _time_imu(n_calls, t0, dt, state, keys, imu_p, link_p, qd, qdd, out):  # pragma: no cover - compiled
    for k in range(n_calls):
        im.imu_stream_step(state, keys, imu_p, link_p, t0 + k * dt, qd, qdd, out)


@rt_njit
def _time_control_step(n_calls, t0, dt, meas, n, nd, ca):  # pragma: no cover - compiled
    s = 0
    for k in range(n_calls):
        s += control_step(t0 + k * dt, meas[0, :n], meas[1, :n], meas[2, :n], meas[3, :nd], meas[4, :n],
                          meas[5, :n], meas[6, :n], *ca)
    return s


@rt_njit
def _time_drives_friction(n_calls, tau_tgt, drv, drv_state, D_drive, tau_act, tau_rep, Qm, z, phi, therm_x, T_amb, fric,
                          dt, D_psi, psid, psid0, Tj, F, QF, Qa, M, h, k1v, work):  # pragma: no cover - compiled
    for _ in range(n_calls):
        cycle_forces(tau_tgt, drv, drv_state, D_drive, tau_act, tau_rep, Qm, 1.0, z, phi, therm_x, T_amb, fric, dt,
                     D_psi, psid, psid0, Tj, F, QF, Qa, M, h, k1v, work)


@rt_njit
def _time_rk4_heat(n_calls, kid, q, qd, q0, qd0, Qa, Qm, QF, k1v, prm, dt, M, h, work, dq, energy, therm_x, F, psid0,
                   therm_disc, T_amb):  # pragma: no cover - compiled
    s = 0
    for _ in range(n_calls):
        for i in range(q.shape[0]):  # the same step each call: restore the state it advances
            q[i] = q0[i]
            qd[i] = qd0[i]
        s |= cycle_finish(kid, q, qd, Qa, Qm, QF, k1v, prm, dt, M, h, work, dq, energy, therm_x, F, psid0,
                          therm_disc, T_amb)
    return s


def _best_ns(fn: Callable[..., Any], n_calls: int, repeats: int, *args: Any) -> float:
    """Thread CPU time of one call of ``fn(n_calls, *args)``, best of ``repeats``, per inner call [ns]."""
    fn(2, *args)  # compile / load from the cache
    best = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time_ns()
        fn(n_calls, *args)
        best = min(best, time.thread_time_ns() - t0)
    return best / n_calls


def _loop_ns(arrays: Any, repeats: int) -> float:
    """Whole :func:`closed_loop` per cycle [ns] over the captured run (fresh copies each repeat)."""
    from paperlib.twin.runner import closed_loop

    N = arrays["q_sp"].shape[0]
    best = float("inf")
    for _ in range(repeats):
        args = tuple(copy.deepcopy(arrays.values)[k] for k in arrays.ORDER)
        t0 = time.thread_time_ns()
        status, _ = closed_loop(0, N, *args)
        best = min(best, time.thread_time_ns() - t0)
        if status != 0:
            raise RuntimeError(f"the captured run did not replay (loop status {status})")
    return best / N


def cycle_costs(*, duration_s: float = 10.0, n_calls: int = 100_000, repeats: int = 5,
                robot: str | None = None) -> dict[str, float]:
    """Per-cycle cost of each phase of the twin's closed loop [ns] (module docstring).

    Parameters
    ----------
    duration_s : float
        Length of the AC run whose arrays the phases run on, and over which the loop is timed [s].
    n_calls : int
        Calls per timed compiled loop of one phase.
    repeats : int
        Timed repeats; the best is kept.
    robot : str, optional
        Twin of this robot (:func:`paperlib.twin.robots.twin_module`); default the default twin.

    Returns
    -------
    dict
        Phase name (:data:`PHASES`) -> ns per cycle.
    """
    from paperlib.twin.robots import twin_module
    from paperlib.twin.runner import captured_runs

    simulate = twin_module(robot).simulate if robot else twin_module().simulate
    simulate(controller="AC", duration_s=0.05, seed=1, imu_calibration="none")  # compile
    with captured_runs() as runs:
        simulate(controller="AC", duration_s=duration_s, seed=1, imu_calibration="none")
    la = runs[-1]
    out = {"loop": _loop_ns(la, max(1, repeats // 2))}
    a = copy.deepcopy(la.values)  # after one loop replay: a state in motion with its controller primed
    from paperlib.twin.runner import closed_loop

    args = tuple(a[k] for k in la.ORDER)
    k_mid = a["q_sp"].shape[0] // 2
    closed_loop(0, k_mid, *args)
    dt = a["dt"]
    n = a["q"].shape[0]
    nd = a["tau_rep"].shape[0]
    out["plant_state"] = _best_ns(_time_plant_state, n_calls, repeats, a["kid"], a["q"], a["qd"], a["Qa"], a["prm"],
                                  a["M"], a["h"], a["D_psi"], a["psid"], a["qdd"], a["work"])
    out["imu"] = _best_ns(_time_imu, n_calls, repeats, k_mid * dt, dt, a["imu_state"].copy(), a["imu_keys"],
                          a["imu_p"], a["link_p"], a["qd"], a["qdd"], a["imu_out"].copy())
    ca_on = tuple(np.array(x, copy=True) for x in a["ctl_arrays"])
    out["control_step"] = _best_ns(_time_control_step, n_calls, repeats, k_mid * dt, dt, a["meas"].copy(), n, nd,
                                   ca_on)
    ca_off = tuple(np.array(x, copy=True) for x in a["ctl_arrays"])
    ca_off[ctl.INDEX["iflags"]][I_ESTIMATE] = 0
    without = _best_ns(_time_control_step, n_calls, repeats, k_mid * dt, dt, a["meas"].copy(), n, nd, ca_off)
    out["estimator"] = out["control_step"] - without
    b = copy.deepcopy(a)
    out["drives_friction"] = _best_ns(
        _time_drives_friction, n_calls, repeats, b["ctl_arrays"][ctl.A_TAU_TGT], b["drv"], b["drv_state"],
        b["D_drive"], b["tau_act"], b["tau_rep"], b["Qm"], b["z"], b["phi"], b["therm_x"], b["T_amb"], b["fric"], dt,
        b["D_psi"], b["psid"], b["psid0"], b["Tj"], b["F"], b["QF"], b["Qa"], b["M"], b["h"], b["k1v"], b["work"])
    c = copy.deepcopy(a)
    out["rk4_heat"] = _best_ns(
        _time_rk4_heat, n_calls, repeats, c["kid"], c["q"], c["qd"], a["q"].copy(), a["qd"].copy(), c["Qa"], c["Qm"],
        c["QF"], c["k1v"], c["prm"], dt, c["M"], c["h"], c["work"], c["dq"], c["energy"], c["therm_x"], c["F"],
        c["psid0"], c["therm_disc"], c["T_amb"])
    out["rest"] = out["loop"] - sum(out[k] for k in ("plant_state", "imu", "control_step", "drives_friction",
                                                       "rk4_heat"))
    return {k: float(out[k]) for k in PHASES}


@functools.cache
def _measured() -> dict[str, float]:
    return cycle_costs()


def benchmarks() -> dict[str, Callable[[], float]]:
    """``twin_cycle_ns_<phase>`` for every phase of :data:`PHASES` (measured once per process)."""
    return {f"twin_cycle_ns_{p}": functools.partial(lambda p: _measured()[p], p) for p in PHASES}
