"""Table 2: Kostic friction and k_f by multi-start NLS from the 21-point sampling run; the baseline.

From a recording (``q`` of the three drives, reported joint-side torque ``tau_m``):

1. ``q`` is filtered and differentiated without phase lag (:func:`paperlib.signals.zero_phase_derivatives`);
   the platform point is ``fk(q)``, its velocity and acceleration the same filter's derivatives.
2. ``E = (J_a^T)^+ (M_s p_dd + C_s p_dot)`` from the a priori model (eq. 37). The drive torque,
   held over each cycle, is re-timed to the derivatives' instants (:func:`paperlib.signals.held_to_centred`).
3. Samples where every drive has slid (``|qd_i| > v_gate``) for at least ``settle_s`` enter the fit:
   the stuck samples of the dwell and the first tens of milliseconds after a start or a reversal
   (presliding, the bristles of a real contact re-deflecting) carry no friction the law represents.
4. :class:`~paperlib.estimation.nls.KosticNLS` (16 parameters) and
   :class:`~paperlib.estimation.nls.CoulombViscousLS` (7 parameters).

Curves are compared, not raw parameters (:func:`curve_errors`): the fitted friction over ``k_f``
against the twin's true steady-state friction, over the speed range the data used.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import xarray as xr

from paperlib.estimation.nls import CoulombViscousLS, FrictionData, KosticNLS
from paperlib.recordings import require_channels
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.signals import filter_description, held_to_centred, zero_phase_derivatives

#: The paper's Table 2 (its units are not stated: k_f converts the drive's digital torque).
PAPER_TABLE2: dict[str, Any] = {
    "k_v": [1.632, 2.351, 0.803],
    "f_1": [2.146, -0.702, -1.687],
    "f_2": [-0.534, -0.143, 0.884],
    "m_1": [0.542, -15.610, -0.769],
    "m_2": [-17.065, 5.368, 10.086],
    "k_f": 403.712,
}

DEFAULT_CUTOFF_HZ = 80.0
DEFAULT_V_GATE = 0.25
DEFAULT_SETTLE_S = 0.0


def sliding_mask(qd: np.ndarray, v_gate: float, settle_samples: int) -> np.ndarray:
    """True where every drive has had ``|qd| > v_gate`` for the last ``settle_samples + 1`` samples."""
    ok = np.all(np.abs(qd) > v_gate, axis=1).astype(np.int64)
    if settle_samples <= 0:
        return ok.astype(bool)
    c = np.concatenate([[0], np.cumsum(ok)])
    n = settle_samples + 1
    run = np.zeros(ok.size, dtype=np.int64)
    run[n - 1:] = c[n:] - c[:-n]
    return run == n


def friction_data(ds: xr.Dataset, robot: ThreeRRR, *, cutoff_hz: float = DEFAULT_CUTOFF_HZ,
                  v_gate: float = DEFAULT_V_GATE, settle_s: float = DEFAULT_SETTLE_S,
                  name: str | None = None) -> FrictionData:
    """Gated identification samples of a 3-RRR recording (see the module docstring).

    Raises
    ------
    RecordingError
        If the recording lacks ``q`` or ``tau_m``.
    ValueError
        If it is not a three-drive recording, or fewer than 50 samples pass the gate.
    """
    where = name or ds.attrs.get("source_file", "recording")
    require_channels(ds, ("q", "tau_m"), name=where, analysis="3-RRR friction identification")
    q = np.asarray(ds["q"].values, dtype=float)
    tau = np.asarray(ds["tau_m"].values, dtype=float)
    if q.ndim != 2 or q.shape[1] != 3:
        raise ValueError(f"{where}: a 3-RRR recording has three drive joints; q has shape {q.shape}")
    fs = float(ds.attrs["sample_rate_hz"])
    q_f, qd, qdd = zero_phase_derivatives(q, fs, cutoff_hz)
    p = robot.fk(q)
    p_f, pd, pdd = zero_phase_derivatives(p, fs, cutoff_hz)
    tau = held_to_centred(tau)  # the torque over the same interval as the centred acceleration
    keep = sliding_mask(qd, v_gate, int(round(settle_s * fs)))
    keep[0] = False  # no torque before the first sample to centre it with
    if keep.sum() < 50:
        raise ValueError(f"{where}: only {int(keep.sum())} samples with every drive sliding (|qd| > {v_gate} rad/s)")
    F, J, _ = robot.inverse_dynamics(p_f[keep], pd[keep], pdd[keep])
    E = min_norm(J, F)
    meta = {"filter": filter_description(cutoff_hz, 4), "torque": "held over each cycle, centred on the samples",
            "v_gate_rad_s": v_gate, "settle_s": settle_s, "n_total": int(q.shape[0]),
            "n_used": int(keep.sum()), "source": ds.attrs.get("source", "unknown")}
    return FrictionData(tau=tau[keep], E=E, v=qd[keep], J=J, meta=meta)


def min_norm(J: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Minimum-norm torques (N, 3) with J^T tau = F (eq. 37) for many samples: J (J^T J)^-1 F."""
    A = np.einsum("nia,nib->nab", J, J)
    return np.einsum("nia,na->ni", J, np.linalg.solve(A, F[..., None])[..., 0])


def speed_range(data: FrictionData, lo_quantile: float = 0.0, hi_quantile: float = 0.99) -> np.ndarray:
    """Per drive ``[v_lo, v_hi]`` (3, 2) [rad/s] of |qd| in the data (the speed range used)."""
    a = np.abs(data.v)
    return np.stack([np.quantile(a, lo_quantile, axis=0), np.quantile(a, hi_quantile, axis=0)], axis=1)


def curve_errors(curves_fn, truth_fn, ranges: np.ndarray, n: int = 200) -> dict[str, Any]:
    """Largest relative error of fitted vs true friction per drive over +/- its speed range.

    ``curves_fn(v) -> (m, 3)`` and ``truth_fn(v, i) -> (m,)`` [N m]; ``ranges`` (3, 2) [rad/s].
    Returns ``max_rel`` (3,) and ``rms_rel`` (3,) over both directions.
    """
    max_rel, rms_rel = [], []
    for i in range(3):
        v = np.linspace(ranges[i, 0], ranges[i, 1], n)
        v = np.concatenate([-v[::-1], v])
        fit = curves_fn(v)[:, i]
        tru = truth_fn(v, i)
        rel = np.abs(fit - tru) / np.abs(tru)
        max_rel.append(float(rel.max()))
        rms_rel.append(float(np.sqrt(np.mean(rel**2))))
    return {"max_rel": max_rel, "rms_rel": rms_rel, "ranges_rad_s": ranges.tolist()}


def identify(data: FrictionData, model: str = "kostic", *, n_starts: int = 8, seed: int = 0,
             residual: str = "task") -> KosticNLS | CoulombViscousLS:
    """Fit one model ("kostic" or "coulomb-viscous") to the data."""
    if model == "kostic":
        return KosticNLS(n_starts=n_starts, seed=seed, residual=residual).fit(data)
    if model == "coulomb-viscous":
        return CoulombViscousLS(residual=residual).fit(data)
    raise ValueError(f"unknown friction model {model!r}; choose 'kostic' or 'coulomb-viscous'")


def start_agreement(est: KosticNLS, ranges: np.ndarray, truth_fn=None, rel_cost: float = 1e-3) -> dict[str, Any]:
    """How the starts ended: costs, k_f of each, and (with the truth) each start's worst curve error."""
    out = []
    for s in est.starts_:
        x = np.asarray(s["x"])
        row = {"start": s["start"], "cost": s["cost"], "k_f": float(x[0]),
               "near_best": bool(s["cost"] <= est.cost_ * (1 + rel_cost))}
        if truth_fn is not None:
            row["max_rel_curve_error"] = max(curve_errors(lambda v, x=x: est.friction_curves(v, x), truth_fn, ranges)["max_rel"])
        out.append(row)
    return {"starts": out, "n_near_best": int(sum(r["near_best"] for r in out))}


def summary(est: KosticNLS | CoulombViscousLS, data: FrictionData, truth: Mapping[str, Any] | None = None,
            truth_fn=None) -> dict[str, Any]:
    """JSON-ready result: parameters, std, residual, k_f vs truth, curve errors vs truth."""
    out = est.to_dict()
    out["data"] = data.meta
    ranges = speed_range(data)
    out["speed_range_rad_s"] = ranges.tolist()
    if truth is not None and "k_f" in truth:
        out["k_f_true"] = float(truth["k_f"])
        out["k_f_rel_error"] = float(est.k_f_ / truth["k_f"] - 1.0)
    if truth_fn is not None:
        out["curve_errors"] = curve_errors(est.friction_curves, truth_fn, ranges)
        if isinstance(est, KosticNLS):
            out["start_agreement"] = start_agreement(est, ranges, truth_fn)
    return out
