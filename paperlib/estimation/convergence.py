"""The one convergence criterion of the identification, online and offline.

:data:`paperlib.estimation.config.WINDOW_CRITERION` (numbers in a
:class:`~paperlib.estimation.config.ConvergenceCriterion`) closes the controller's switches (b)
and (c) in the compiled step; :func:`window_converged_time` applies the same rule to an estimate
history offline (what :func:`paperlib.estimation.replay.replay` reports as ``converged_s``), so a
replayed recording and the run that made it speak of the same thing.

Distinct from it, and named differently: a **settling time** (:func:`settled_time`) is the first
time after which an estimate stays within a band of its *final* value; it needs the whole
history, so it exists offline only (the paper-comparison's convergence times are of this kind,
:mod:`paperlib.experiments.temperature`).
"""

from __future__ import annotations

import numpy as np

from paperlib.estimation.config import ConvergenceCriterion
from paperlib.friction import FrictionModel

N_REF_V = 8

#: The settling rule of :func:`settled_time`, with its numbers.
SETTLING_RULE = (
    "settling time: first time after which every pi_pds stays within {tol_pds:.0%} of its final value and every "
    "identified friction curve, evaluated at 8 velocities up to the largest |qd| visited, stays within {tol_f:.0%} "
    "of its final peak"
)


def friction_curves(model: FrictionModel, theta_F: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Identified friction torque (..., n_joints_F, len(v)) at velocities v [rad/s]."""
    theta_F = np.atleast_2d(theta_F)
    v = np.asarray(v, dtype=float)
    cols = model.columns()
    joints = sorted(set(int(j) for j in cols[:, 0]))
    out = np.zeros(theta_F.shape[:1] + (len(joints), len(v)))
    # all history rows at once, column by column in the model's order: the same sums as
    # FrictionModel.torque per row (bit for bit), without a Python call per row
    for c in range(len(cols)):
        unit = np.zeros(len(cols))
        unit[c] = 1.0
        a = joints.index(int(cols[c][0]))
        out[:, a, :] += theta_F[:, c, None] * model.torque(unit, v, joint=int(cols[c][0]) + 1)[None, :]
    return out


def window_converged_time(t: np.ndarray, theta: np.ndarray, model: FrictionModel, n_rel: int,
                          criterion: ConvergenceCriterion) -> float:
    """First check time [s] at which the window criterion holds over an estimate history (NaN if never).

    ``theta`` (N, n_pi) at times ``t`` (N,); the first ``n_rel`` parameters (drive gains,
    inertial) are judged relative to themselves, the rest are the friction coefficients of
    ``model``. Checks at ``window_s, 2 window_s, ...`` on the newest sample at or before each,
    exactly as the compiled step checks at the end of each window.
    """
    t = np.asarray(t, dtype=float)
    if t.size == 0:
        return float("nan")
    v = criterion.v_max * np.arange(1, N_REF_V + 1) / N_REF_V
    snap = theta[0].copy()
    curves = np.zeros((len(set(int(j) for j in model.columns()[:, 0])), N_REF_V))
    tc = criterion.window_s
    while tc <= t[-1] + 1e-12:
        k = int(np.searchsorted(t, tc + 1e-12, side="right")) - 1
        th = theta[max(k, 0)]
        ok = tc >= criterion.t_min_s
        ok &= bool(np.all(np.abs(th[:n_rel] - snap[:n_rel]) <= criterion.tol_pds * np.abs(th[:n_rel])))
        cur = friction_curves(model, th[n_rel:], v)[0]
        peak = np.maximum(np.abs(cur).max(axis=1, keepdims=True), 1e-12)
        ok &= bool(np.all(np.abs(cur - curves) <= criterion.tol_friction * peak))
        if ok:
            return float(tc)
        snap, curves = th.copy(), cur
        tc += criterion.window_s
    return float("nan")


def settled_time(t: np.ndarray, theta: np.ndarray, model: FrictionModel, n_drives: int, v_max: float,
                 tol_pds: float = 0.01, tol_f: float = 0.05) -> float:
    """Settling time of an estimate history (see :data:`SETTLING_RULE`), NaN if never."""
    if len(t) == 0:
        return float("nan")
    final = theta[-1]
    ok_pds = np.all(np.abs(theta[:, :n_drives] - final[:n_drives]) <= tol_pds * np.abs(final[:n_drives]), axis=1)
    v = np.linspace(v_max / 8, v_max, 8)
    curves = friction_curves(model, theta[:, n_drives:], v)
    final_c = curves[-1]
    peak = np.maximum(np.abs(final_c).max(axis=1), 1e-12)
    ok_f = np.all(np.abs(curves - final_c) <= tol_f * peak[None, :, None], axis=(1, 2))
    ok = ok_pds & ok_f
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return float(t[0])
    if bad[-1] == len(t) - 1:
        return float("nan")
    return float(t[bad[-1] + 1])
