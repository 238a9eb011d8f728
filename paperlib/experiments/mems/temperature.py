"""Friction at two temperatures and the speed of convergence (flagship paper, Figs. 12-15).

Two runs of the adaptive controller from the worst-case start ``pi_pds = 1, pi_F = 0``: one
with the gearboxes at room temperature (22 degC) and one after the paper's 120-min warm-up
(~39 degC). For each:

* the friction curves of the final estimate and the measured points (eq. 51) (Fig. 12);
* the parameter histories (Figs. 13-15) and **convergence times** by a stated criterion,
  :func:`settling_time`: the first time after which a signal stays inside a band around its
  final value until the end of the run::

      final = mean of x over the last `final_window_s` seconds
      band  = max(rel_tol * |final|, abs_tol)
      t_conv = first t such that |x(u) - final| <= band for every u >= t

  Defaults (:data:`DEFAULT_TOLERANCES`): drive gains pi_pds: 2 %; friction coefficients:
  10 % of |final| (orders 0 and 1; the higher orders are strongly correlated with each other
  and are reported but not used for the headline); residual rho_rms: 10 %.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import xarray as xr

from paperlib.friction import FrictionModel, table4_model

__all__ = ["DEFAULT_TOLERANCES", "settling_time", "convergence_times", "temperature_summary",
           "criterion_text", "mean_temperatures", "final_friction_curves", "history_groups", "twin_drive_gains",
           "run_results"]

#: Relative bands of the convergence criterion, per group (see module docstring).
DEFAULT_TOLERANCES: dict[str, float] = {"pi_pds": 0.02, "pi_F_low": 0.10, "pi_F_high": 0.10, "rho_rms": 0.10,
                                        "final_window_s": 10.0}


def criterion_text(tol: Mapping[str, float] = DEFAULT_TOLERANCES) -> str:
    """The convergence criterion in words, with its numbers."""
    return ("convergence time = first time after which the signal stays within a band around its final value "
            f"(mean over the last {tol['final_window_s']:g} s) until the end of the run; band = "
            f"{100 * tol['pi_pds']:g} % for pi_pds, {100 * tol['pi_F_low']:g} % for friction coefficients of "
            f"orders 0-1, {100 * tol['pi_F_high']:g} % for orders 2-3, {100 * tol['rho_rms']:g} % for rho_rms")


def settling_time(t: np.ndarray, x: np.ndarray, rel_tol: float, abs_tol: float = 0.0,
                  final_window_s: float = 10.0) -> float:
    """First time [s] after which ``x`` stays within ``max(rel_tol |final|, abs_tol)`` of its final value.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Times [s], increasing.
    x : ndarray, shape (N,)
        Signal.
    rel_tol, abs_tol : float
        Band half-width, relative to ``|final|`` and absolute (same units as x).
    final_window_s : float
        The final value is the mean of x over ``t >= t[-1] - final_window_s``.

    Returns
    -------
    float
        The time, ``t[0]`` if x is always inside the band; NaN if x is not finite at the end.
    """
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    if t.size == 0 or not np.isfinite(x[-1]):
        return float("nan")
    final = float(np.mean(x[t >= t[-1] - final_window_s]))
    band = max(rel_tol * abs(final), abs_tol)
    out = np.abs(x - final) > band
    bad = np.flatnonzero(out)
    if bad.size == 0:
        return float(t[0])
    k = int(bad[-1]) + 1
    return float(t[k]) if k < t.size else float("nan")


def convergence_times(history: xr.Dataset, model: int | FrictionModel = 3,
                      tol: Mapping[str, float] = DEFAULT_TOLERANCES) -> dict[str, Any]:
    """Convergence times [s] of every parameter and of rho_rms, with group maxima.

    Parameters
    ----------
    history : xarray.Dataset
        ``theta`` (t, param) and ``rho_rms`` (t) (from
        :func:`paperlib.experiments.mems.friction_fits.estimate_history`).

    Returns
    -------
    dict
        ``per_parameter`` (name -> s), ``pi_pds`` (max over drives), ``pi_F_low`` (max over
        orders 0-1), ``pi_F_high`` (max over orders 2-3), ``rho_rms``, ``criterion`` (text).
    """
    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    t = history["t"].values
    t_rel = t - t[0]
    names = [str(n) for n in history["param"].values]
    th = history["theta"].values
    per: dict[str, float] = {}
    groups: dict[str, list[float]] = {"pi_pds": [], "pi_F_low": [], "pi_F_high": []}
    cols = fm.columns()
    n_drv = len(names) - len(cols)
    for i, name in enumerate(names):
        if i < n_drv:
            g = "pi_pds"
        else:
            g = "pi_F_low" if cols[i - n_drv][1] <= 1 else "pi_F_high"
        ts = settling_time(t_rel, th[:, i], tol[g], final_window_s=tol["final_window_s"])
        per[name] = ts
        groups[g].append(ts)
    out: dict[str, Any] = {"per_parameter": per, "criterion": criterion_text(tol), "tolerances": dict(tol)}
    for g, v in groups.items():
        out[g] = float(np.max(v)) if v and np.all(np.isfinite(v)) else float("nan")
    out["rho_rms"] = settling_time(t_rel, history["rho_rms"].values, tol["rho_rms"],
                                   final_window_s=tol["final_window_s"])
    return out


def temperature_summary(cold: Mapping[str, Any], warm: Mapping[str, Any], model: int | FrictionModel = 3,
                        v_eval: tuple[float, ...] = (0.5, 1.0, 2.0, 3.0)) -> dict[str, Any]:
    """Compare the final friction estimates of the cold and warm runs.

    Parameters
    ----------
    cold, warm : mapping
        Each with ``pi_F`` (final friction coefficients, model order) and ``temperature_C``
        (mean gearbox temperature per joint [degC], NaN if not measured).
    v_eval : tuple of float
        Velocities [rad/s] at which the friction curves are compared.

    Returns
    -------
    dict
        ``friction_ratio_warm_cold`` (joint -> list over v_eval), ``friction_lower_when_warm``
        (joint -> bool: lower at every v_eval), ``quadratic_coefficients`` (state -> per joint),
        ``quadratic_negative`` (state -> bool, all joints), ``quadratic_smaller_abs_when_warm``
        (joint -> bool), ``temperature_C``.
    """
    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    v = np.asarray(v_eval, dtype=float)
    joints = sorted({int(j) + 1 for j in fm.columns()[:, 0]})
    cols = fm.columns()
    out: dict[str, Any] = {"v_eval_rad_s": list(v_eval), "friction_ratio_warm_cold": {}, "friction_lower_when_warm": {},
                           "quadratic_coefficients": {"cold": {}, "warm": {}}, "quadratic_smaller_abs_when_warm": {},
                           "temperature_C": {"cold": list(cold.get("temperature_C", [])),
                                             "warm": list(warm.get("temperature_C", []))}}
    for j in joints:
        fc = fm.torque(np.asarray(cold["pi_F"]), v, j)
        fw = fm.torque(np.asarray(warm["pi_F"]), v, j)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = fw / fc
        out["friction_ratio_warm_cold"][str(j)] = [float(x) for x in ratio]
        out["friction_lower_when_warm"][str(j)] = bool(np.all(fw < fc))
        if fm.order >= 2:
            k2 = [c for c in range(len(cols)) if cols[c][0] == j - 1 and cols[c][1] == 2][0]
            qc, qw = float(cold["pi_F"][k2]), float(warm["pi_F"][k2])
            out["quadratic_coefficients"]["cold"][str(j)] = qc
            out["quadratic_coefficients"]["warm"][str(j)] = qw
            out["quadratic_smaller_abs_when_warm"][str(j)] = bool(abs(qw) < abs(qc))
    if fm.order >= 2:
        out["quadratic_negative"] = {s: bool(all(x < 0 for x in out["quadratic_coefficients"][s].values()))
                                     for s in ("cold", "warm")}
    return out


def mean_temperatures(recs: Mapping[str, xr.Dataset]) -> dict[str, list[float]]:
    """Mean gearbox temperature [degC] of each joint over each run (NaN when a run logs none).

    Parameters
    ----------
    recs : mapping state -> xarray.Dataset
        Recordings (variable ``temperature``, dims ``time``, ``joint``).

    Returns
    -------
    dict state -> list of float
        One mean per joint.
    """
    return {s: (np.nanmean(recs[s]["temperature"].values, axis=0).tolist() if "temperature" in recs[s]
                else [np.nan, np.nan]) for s in recs}


def final_friction_curves(comps: Mapping[str, xr.Dataset], finals: Mapping[str, np.ndarray],
                          model: int | FrictionModel, joint: int, n: int = 201) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Friction curve of each state's final estimate over the velocities both runs reached (Fig. 12).

    Parameters
    ----------
    comps : mapping state -> xarray.Dataset
        Components with ``qd`` [rad/s] (from ``friction_fits.lagrangian_components``).
    finals : mapping state -> ndarray
        Steady estimates ``[pi_pds (2), pi_F ...]``.
    model : int or FrictionModel
        Table-4 model of the estimates.
    joint : int
        Active joint (1 or 2).
    n : int
        Points of each curve, spread evenly over ``[-v_max, v_max]``.

    Returns
    -------
    dict state -> (v [rad/s], tau_F [N m])
    """
    from paperlib.experiments.mems.friction_fits import model_friction_curve

    vmax = max(float(np.abs(c["qd"].sel(joint=joint)).max()) for c in comps.values())
    v = np.linspace(-vmax, vmax, n)
    return {s: (v, model_friction_curve(model, finals[s][2:], v, joint)) for s in finals}


def history_groups(names: list[str]) -> dict[str, tuple[list[str], str, str, str]]:
    """Which parameters each of Figs. 13-15 shows: figure stem -> (parameters, y label, title, convergence group).

    Parameters
    ----------
    names : list of str
        Parameter names of the estimate (``pi_pds,j`` and ``pi_F,j,k``, eq. 50).

    Returns
    -------
    dict
        Fig. 13 (drive gains), 14a/b (friction orders 0 and 1) and 15a/b (orders 2 and 3); the
        group names a key of :func:`convergence_times`.
    """
    def pick(order: int) -> list[str]:
        return [n for n in names if n.startswith("pi_F,") and n.split(",")[2] == str(order)]

    return {"fig13_pi_pds": ([n for n in names if n.startswith("pi_pds")], "pi_pds [1]", "Fig. 13: drive gains",
                             "pi_pds"),
            "fig14a_pi_F_order0": (pick(0), "pi_F,j,0 [N m]", "Fig. 14a: friction, order 0", "pi_F_low"),
            "fig14b_pi_F_order1": (pick(1), "pi_F,j,1 [N m s/rad]", "Fig. 14b: friction, order 1", "pi_F_low"),
            "fig15a_pi_F_order2": (pick(2), "pi_F,j,2 [N m s^2/rad^2]", "Fig. 15a: friction, order 2", "pi_F_high"),
            "fig15b_pi_F_order3": (pick(3), "pi_F,j,3 [N m s^3/rad^3]", "Fig. 15b: friction, order 3", "pi_F_high")}


def twin_drive_gains(ds: xr.Dataset) -> dict[str, float]:
    """The twin's true drive gains as ``{"pi_pds,j": value}`` (empty for a recording that is not the twin's)."""
    from paperlib import recordings as rec

    true_pds = ds.attrs.get("source") == "twin" and rec.truth(ds).get("pi_pds") or []
    return {f"pi_pds,{j + 1}": float(v) for j, v in enumerate(true_pds)}


def run_results(recs: Mapping[str, xr.Dataset], hists: Mapping[str, xr.Dataset], conv: Mapping[str, Any],
                finals: Mapping[str, np.ndarray], summary: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers notebook 05 writes: convergence times, the temperature summary, final estimates.

    Parameters
    ----------
    recs, hists : mapping state -> xarray.Dataset
        The recordings and their estimate histories.
    conv : mapping state -> dict
        :func:`convergence_times` per state.
    finals : mapping state -> ndarray
        Steady estimates per state.
    summary : mapping
        :func:`temperature_summary`.
    """
    names = [str(p) for p in next(iter(hists.values()))["param"].values]
    return {"convergence": conv, "temperature": summary,
            "final_estimates": {s: dict(zip(names, finals[s].tolist())) for s in finals},
            "online_converged_s": {s: float(recs[s].attrs.get("converged_s", float("nan"))) for s in recs},
            "estimate_from": {s: hists[s].attrs["estimate_from"] for s in hists}}
