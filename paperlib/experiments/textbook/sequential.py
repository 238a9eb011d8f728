"""Sequential (joint n to 1) vs global identification.

The notes: ``Y`` is block (upper) triangular -- joint ``n``'s torque depends only on the
parameters of link ``n``, joint ``n-1``'s on links ``n-1`` and ``n``, and so on -- so one may
identify joint by joint, from ``n`` down to 1: move joint ``n`` alone, fit
``tau_n = y_nn^T pi_n``; then move joints ``n-1..n``, subtract the part of ``tau_{n-1}``
explained by the ``pi_n`` just found, fit ``pi_{n-1}``; and so on. Every stage inherits the
errors of the stages before it: "the previous procedure may accumulate errors". The global
procedure moves all joints at once and fits every base parameter from every row.

Here each base column is assigned to the *last* joint whose torque row contains it
(:func:`column_stages`); that is the stage that identifies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from paperlib.robots.base_parameters import BaseParameters
from paperlib.experiments.textbook import identify as idf
from paperlib.robots.serial import SerialArm

__all__ = ["column_stages", "locked", "StageResult", "sequential_fit", "global_fit"]


def column_stages(arm: SerialArm, bp: BaseParameters, n_states: int = 200, seed: int = 0) -> np.ndarray:
    """For each base column, the (0-based) last joint whose torque row depends on it, shape (r,)."""
    q, qd, qdd = arm.random_states(n_states, seed)
    Yb = bp.columns(arm.regressor(q, qd, qdd))           # (N, n, r)
    nz = np.max(np.abs(Yb), axis=0) > 1e-12               # (n, r)
    if not nz.any(axis=0).all():
        raise ValueError("a base column is zero in every row")
    return np.array([int(np.max(np.nonzero(nz[:, c])[0])) for c in range(Yb.shape[2])])


def locked(trajectory: Callable, joints: list[int], q_lock: np.ndarray) -> Callable:
    """The trajectory with ``joints`` (0-based) held at ``q_lock[j]`` (zero velocity and acceleration)."""
    def traj(t: np.ndarray):
        q, qd, qdd = (np.array(a) for a in trajectory(t))
        for j in joints:
            q[:, j] = q_lock[j]
            qd[:, j] = 0.0
            qdd[:, j] = 0.0
        return q, qd, qdd
    return traj


@dataclass
class StageResult:
    """One stage of the sequential procedure.

    Attributes
    ----------
    joint : int
        0-based joint whose torque row is fitted.
    columns : ndarray of int
        Base columns identified at this stage.
    estimate : ndarray
        Their estimate when the earlier stages' estimates are subtracted (what the method does).
    estimate_exact_prior : ndarray
        Their estimate when the *true* values of the earlier stages are subtracted instead:
        the difference to ``estimate`` is the error accumulated from earlier stages.
    """

    joint: int
    columns: np.ndarray
    estimate: np.ndarray
    estimate_exact_prior: np.ndarray


def sequential_fit(arm: SerialArm, bp: BaseParameters, stages: np.ndarray,
                   data: dict[int, tuple[np.ndarray, ...]], beta_true: np.ndarray,
                   bias: dict[int, float] | None = None) -> tuple[np.ndarray, list[StageResult]]:
    """Joint n..1 identification.

    Parameters
    ----------
    stages : ndarray of int, shape (r,)
        :func:`column_stages`.
    data : dict joint -> (q, qd, qdd, tau)
        The experiment of each stage (joints before it locked), each array (N, n).
    beta_true : ndarray, shape (r,)
        The twin's true base parameters (used only for the *exact prior* comparison).
    bias : dict base-column index -> value, optional
        Added to that column's estimate right after its stage (a what-if: how an error made at
        one stage travels to the next ones).

    Returns
    -------
    beta : ndarray, shape (r,)
    results : list of StageResult, from joint n down to 1
    """
    beta = np.full(bp.n_base, np.nan)
    out = []
    for j in range(arm.n - 1, -1, -1):
        cols = np.nonzero(stages == j)[0]
        prior = np.nonzero(stages > j)[0]
        q, qd, qdd, tau = data[j]
        Yb = bp.columns(arm.regressor(q, qd, qdd))[:, j, :]   # row j, (N, r)
        rhs = tau[:, j] - Yb[:, prior] @ beta[prior]
        rhs_exact = tau[:, j] - Yb[:, prior] @ beta_true[prior]
        est = idf.fit_base(Yb[:, cols], rhs, tuple(bp.names[c] for c in cols)).estimate
        est_exact = idf.fit_base(Yb[:, cols], rhs_exact, tuple(bp.names[c] for c in cols)).estimate
        for c in cols:
            est[list(cols).index(c)] += (bias or {}).get(int(c), 0.0)
        beta[cols] = est
        out.append(StageResult(joint=j, columns=cols, estimate=est, estimate_exact_prior=est_exact))
    return beta, out


def global_fit(arm: SerialArm, bp: BaseParameters, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
               tau: np.ndarray) -> idf.Fit:
    """All joints moving, every row, every base parameter at once."""
    W, y = idf.stack(arm, bp, q, qd, qdd, tau)
    return idf.fit_base(W, y, bp.names)
