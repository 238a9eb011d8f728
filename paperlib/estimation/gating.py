"""The one gating predicate of the identification: which samples may update the estimate.

Rule (:data:`GATING_RULE`): with ``gate_all_joints`` (our default) a sample is informative when
*every* joint slides, ``min_j |qd_j| > v_gate`` (the acceleration gate is then unused); without
it, the paper's rule, ``any_j |qd_j| > v_gate or any_j |qdd_j| > a_gate``. The compiled
:func:`gate_signals` hands :func:`paperlib.estimation.ewrls.ewrls_step` the signals its
any-joint test then applies (so the online step and the offline replay gate alike);
:func:`informative` is the same predicate on whole arrays.
"""

from __future__ import annotations

import numpy as np

from paperlib._jit import rt_njit

GATING_RULE = ("every joint slides: min_j |qd_j| > v_gate (gate_all_joints); else the paper's "
               "any_j |qd_j| > v_gate or any_j |qdd_j| > a_gate")


@rt_njit(inline="always")
def gate_signals(qd, qdd, gate_all, v_out, a_out):  # pragma: no cover - compiled
    """Write the gating signals into ``v_out``, ``a_out`` and return how many there are.

    ``gate_all != 0``: one signal, ``min_j |qd_j|`` with zero acceleration; otherwise the
    measured ``qd`` and ``qdd`` themselves.
    """
    n = qd.shape[0]
    if gate_all != 0:
        vmin = abs(qd[0])
        for i in range(1, n):
            vmin = min(vmin, abs(qd[i]))
        v_out[0] = vmin
        a_out[0] = 0.0
        return 1
    for i in range(n):
        v_out[i] = qd[i]
        a_out[i] = qdd[i]
    return n


def gate_arrays(qd: np.ndarray, qdd: np.ndarray, gate_all_joints: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gate_signals` over samples: (N, n) -> (N, 1) or (N, n) gating signals."""
    qd = np.asarray(qd, dtype=float)
    qdd = np.asarray(qdd, dtype=float)
    if gate_all_joints:
        v = np.abs(qd).min(axis=1, keepdims=True)
        return v, np.zeros_like(v)
    return qd, qdd


def informative(qd: np.ndarray, qdd: np.ndarray, v_gate: float, a_gate: float, gate_all_joints: bool) -> np.ndarray:
    """Boolean (N,): the samples the rule of :data:`GATING_RULE` admits."""
    gv, ga = gate_arrays(qd, qdd, gate_all_joints)
    return np.any((np.abs(gv) > v_gate) | (np.abs(ga) > a_gate), axis=1)
