"""Is an identification's result believable, and how far is it from a twin's truth?

``paperlib identify`` runs the EWR-RLS estimator over any recording and always returns numbers;
on nonsense data (torques in the wrong unit, random torques, a mislabelled robot) they are
nonsense too. :func:`estimate_warnings` names what makes a result implausible, by these stated
rules:

* **Drive gains** ``pi_pds`` (actual / nominal torque of each drive) outside
  :data:`DRIVE_GAIN_BAND` = 0.7-1.3. A drive's torque constant, gear efficiency and current
  scaling put its real gain within about 10-20 % of the datasheet's (the flagship's twin, for
  one, assumes 0.93 and 1.06); a gain off by more than 30 % points to a unit or scaling error (torque in % of
  rated, in mN m, on the wrong side of the gearbox), a wrong gear ratio, or torques that do not
  explain the motion.
* **No convergence**: the window criterion (:mod:`paperlib.estimation.convergence`, the one the
  controller closes its switches by) never held, or held only in the last
  :data:`LATE_FRACTION` of the run, where it cannot be told from a chance pause in the drift.
* **Non-finite** estimates or residual.
* **Coulomb level below zero** (order-0 coefficient of an odd friction model): friction that
  pushes the joint along.
* **Few samples used**: fewer than :data:`MIN_USED_FRACTION` of the samples passed the gate.

:func:`truth_errors` compares the estimate with the truth a twin recording carries (its
``truth`` attribute and, where logged, the ``Q_F_true`` channel): the error of each drive gain,
and the RMS difference between the identified friction model and the twin's true friction
Lagrangian components along the recording (a twin's friction law, e.g. a LuGre law on every joint of a closed chain, need not be of the
identified model's form, so that the model cannot match it exactly: this error is the model's as
well as the estimate's).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["DRIVE_GAIN_BAND", "LATE_FRACTION", "MIN_USED_FRACTION", "TRUTH_RATE_HZ", "estimate_warnings",
           "truth_errors", "describe_truth_errors"]

#: Plausible range of a drive gain pi_pds (actual / nominal drive torque) [1].
DRIVE_GAIN_BAND: tuple[float, float] = (0.7, 1.3)
#: Convergence first reached after this fraction of the run counts as "not converged within the run".
LATE_FRACTION: float = 0.8
#: Fewer gated samples than this fraction of the run is flagged.
MIN_USED_FRACTION: float = 0.05
#: Rate [Hz] at which the friction model is compared with the twin's true friction.
TRUTH_RATE_HZ: float = 200.0


def _drive_gains(res: Any) -> tuple[list[str], np.ndarray]:
    theta = np.asarray(res.estimator.theta, dtype=float)
    idx = [k for k, n in enumerate(res.param_names) if n.startswith("pi_pds")]
    return [res.param_names[k] for k in idx], theta[idx]


def estimate_warnings(res: Any, duration_s: float, rho_rms: float | None = None) -> list[str]:
    """Reasons to distrust an identification result (module docstring), one sentence each.

    Parameters
    ----------
    res : paperlib.estimation.replay.ReplayResult
        The replay's result.
    duration_s : float
        Length of the recording [s].
    rho_rms : float, optional
        Final running RMS residual [N m].

    Returns
    -------
    list of str
        Empty when nothing looks wrong.
    """
    out: list[str] = []
    theta = np.asarray(res.estimator.theta, dtype=float)
    bad = [n for n, x in zip(res.param_names, theta) if not np.isfinite(x)]
    if bad:
        out.append(f"non-finite estimate(s): {', '.join(bad)}")
    if rho_rms is not None and not math.isfinite(rho_rms):
        out.append("the residual rho_rms is not finite")
    names, gains = _drive_gains(res)
    lo, hi = DRIVE_GAIN_BAND
    far = [f"{n} = {g:.3g}" for n, g in zip(names, gains) if np.isfinite(g) and not lo <= g <= hi]
    if far:
        out.append(f"drive gain(s) {', '.join(far)} outside the plausible band {lo}-{hi} (a real drive is within "
                   "~10-20 % of its datasheet): check the torque unit and side (tau_m in N m, motor side with the "
                   "robot's gear ratios), the robot named in the file, and that the torques drive this motion")
    conv = float(res.converged_s)
    if math.isnan(conv):
        out.append(f"the estimate did not converge within the {duration_s:.3g}-s run ({res.criterion})")
    elif duration_s > 0 and conv > LATE_FRACTION * duration_s:
        out.append(f"the estimate met the convergence criterion only at {conv:.3g} s of {duration_s:.3g} s (after "
                   f"{LATE_FRACTION:.0%} of the run): too late to tell convergence from a pause in its drift")
    model = res.model
    if getattr(model, "symmetric", False):
        cols = model.columns()
        pi_F = np.asarray(res.pi_F, dtype=float)[-len(cols):]
        neg = [f"pi_F,{int(j) + 1},0 = {pi_F[c]:.3g} N m" for c, (j, k, *_) in enumerate(cols)
               if int(k) == 0 and np.isfinite(pi_F[c]) and pi_F[c] < 0]
        if neg:
            out.append(f"negative Coulomb level(s) {', '.join(neg)}: friction would push the joint along")
    counters = np.asarray(res.estimator.counters)
    if counters.size >= 2 and counters[0] > 0 and counters[1] < MIN_USED_FRACTION * counters[0]:
        out.append(f"only {int(counters[1])} of {int(counters[0])} samples passed the gate "
                   f"(< {MIN_USED_FRACTION:.0%}): the motion hardly excites the model")
    return out


def truth_errors(ds: xr.Dataset, res: Any, robot: Any = None) -> dict[str, Any] | None:
    """Errors of the estimate against a twin recording's truth; None without usable truth.

    Returns
    -------
    dict or None
        ``pi_pds``: per drive ``{"name", "estimate", "true", "error", "relative_error_percent"}``;
        ``friction`` (when the recording has ``Q_F_true``): per joint ``{"joint",
        "rms_error_Nm", "rms_true_Nm", "relative_error_percent"}`` of the model's friction
        Lagrangian components ``-Y_F pi_F`` against ``Q_F_true`` on the samples the gate admits,
        at :data:`TRUTH_RATE_HZ`; ``note``: what the friction error includes.
    """
    if ds.attrs.get("source") != "twin" or "truth" not in ds.attrs:
        return None
    try:
        truth = json.loads(ds.attrs["truth"])
    except (TypeError, ValueError):
        return None
    if not isinstance(truth, dict) or "withheld" in truth:
        return None
    out: dict[str, Any] = {}
    names, gains = _drive_gains(res)
    true_pds = truth.get("pi_pds")
    if isinstance(true_pds, list) and len(true_pds) == len(gains):
        out["pi_pds"] = [{"name": n, "estimate": float(g), "true": float(t), "error": float(g - t),
                          "relative_error_percent": float(100.0 * (g / t - 1.0)) if t else math.nan}
                         for n, g, t in zip(names, gains, true_pds)]
    if "Q_F_true" in ds:
        fr = _friction_error(ds, res, robot)
        if fr is not None:
            out["friction"] = fr
            out["note"] = ("friction: RMS of (model - truth) of the friction Lagrangian components over the samples "
                           "the gate admits; the twin's friction law need not be of the identified model's form, so this "
                           "error is the friction model's as well as the estimate's")
    return out or None


def _friction_error(ds: xr.Dataset, res: Any, robot: Any) -> list[dict[str, Any]] | None:
    from paperlib import robots
    from paperlib.estimation.gating import informative
    from paperlib.estimation.replay import regressor_rows

    robot = robot or robots.load(ds.attrs["robot"])
    fs = float(ds.attrs["sample_rate_hz"])
    step = max(1, int(round(fs / TRUTH_RATE_HZ)))
    d = int(res.extra.get("imu_delay_cycles", 0))
    idx = np.arange(d, ds.sizes["time"], step)
    q, tau = (ds[v].values[idx - d] for v in ("q", "tau_m"))
    qd, qdd = (ds[v].values[idx] for v in ("qd", "qdd"))
    cfg = res.config
    keep = informative(qd, qdd, cfg.gate_velocity, cfg.gate_acceleration, cfg.gate_all_joints)
    if keep.sum() < 10:
        return None
    Y, _ = regressor_rows(robot, res.model, q[keep], qd[keep], qdd[keep], tau[keep])
    cols = [k for k, n in enumerate(res.param_names) if n.startswith("pi_F")]
    theta = np.asarray(res.estimator.theta, dtype=float)
    model_QF = -np.einsum("tjc,c->tj", Y[:, :, cols], theta[cols])
    true_QF = ds["Q_F_true"].values[idx][keep]
    rms = lambda a: float(np.sqrt(np.mean(a ** 2)))  # noqa: E731
    out = []
    for j, label in enumerate(ds["joint"].values):
        e, t = rms(model_QF[:, j] - true_QF[:, j]), rms(true_QF[:, j])
        out.append({"joint": int(label), "rms_error_Nm": e, "rms_true_Nm": t,
                    "relative_error_percent": 100.0 * e / t if t > 0 else math.nan})
    return out


def describe_truth_errors(errors: dict[str, Any]) -> list[str]:
    """Human lines for :func:`truth_errors`' result."""
    lines = []
    for r in errors.get("pi_pds", []):
        lines.append(f"{r['name']}: {r['estimate']:.4f} against the twin's {r['true']:.4f} "
                     f"({r['relative_error_percent']:+.2f} %)")
    for r in errors.get("friction", []):
        lines.append(f"friction, joint {r['joint']}: RMS error {r['rms_error_Nm']:.4f} N m against the twin's true "
                     f"friction of RMS {r['rms_true_Nm']:.4f} N m ({r['relative_error_percent']:.1f} %)")
    return lines
