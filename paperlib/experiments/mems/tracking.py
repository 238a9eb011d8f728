"""Tracking performance of PD, CTC and AC (flagship paper, Figs. 8-11).

* joint errors ``e = q_sp - q`` [rad]: RMS and peak (max |e|) per joint over an evaluation
  window (Figs. 8-9);
* improvement ratios: CTC vs PD = metric(PD) / metric(CTC); AC vs CTC = metric(CTC) / metric(AC)
  (the paper's "2.44x lower" etc.);
* motion segments (rest-to-rest point-to-point motions) from the velocity set-points, to pick
  a window with ~10 trajectories (Fig. 10);
* torque shares under AC (Fig. 11): for each motor, the RMS of each command part (dynamic
  feed-forward, friction feed-forward, feedback) divided by the sum of the three RMS values,
  in percent (so they add up to 100 % per motor).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import xarray as xr

__all__ = ["PAPER_FIG11_SHARES", "evaluation_window", "joint_errors", "compare_controllers", "improvement_ratios",
           "motion_segments", "window_with_motions", "torque_shares"]

CONTROLLERS = ("PD", "CTC", "AC")


def evaluation_window(recs: Mapping[str, xr.Dataset], start_s: float | str = "converged",
                      margin_s: float = 0.0) -> tuple[float, float]:
    """Common evaluation window [t0, t1] [s] for recordings of the same trajectory.

    Parameters
    ----------
    recs : mapping name -> recording
    start_s : float or "converged"
        Window start [s]; ``"converged"``: the latest time any run closed its switches (b)/(c)
        (attribute ``converged_s``; runs without it or with NaN count as 0), so that every
        controller is evaluated as it was defined (the paper: results "concern situations in
        which an adequate estimation ... has been achieved").
    margin_s : float
        Added to the start [s].

    Returns
    -------
    (t0, t1) : tuple of float
        ``t1`` is the earliest end among the recordings.
    """
    t1 = min(float(d["time"].values[-1]) for d in recs.values())
    if start_s == "converged":
        starts = []
        for d in recs.values():
            c = d.attrs.get("converged_s", np.nan)
            starts.append(float(c) if c is not None and np.isfinite(float(c)) else 0.0)
        t0 = max(starts) if starts else 0.0
    else:
        t0 = float(start_s)
    t0 += margin_s
    if not t0 < t1:
        raise ValueError(f"evaluation window is empty: start {t0:.3f} s >= end {t1:.3f} s")
    return t0, t1


def joint_errors(ds: xr.Dataset, window: tuple[float, float] | None = None) -> dict[str, np.ndarray]:
    """RMS and peak joint position errors ``q_sp - q`` [rad] per joint over a window.

    Returns
    -------
    dict
        ``rms`` (n_joint,), ``peak`` (n_joint,) [rad], ``n_samples``.
    """
    sel = ds if window is None else ds.sel(time=slice(window[0], window[1]))
    e = (sel["q_sp"] - sel["q"]).values
    if e.shape[0] == 0:
        raise ValueError("no samples in the evaluation window")
    return {"rms": np.sqrt(np.mean(e**2, axis=0)), "peak": np.max(np.abs(e), axis=0), "n_samples": int(e.shape[0])}


def compare_controllers(recs: Mapping[str, xr.Dataset], window: tuple[float, float]) -> xr.Dataset:
    """RMS and peak errors of each controller's run (Figs. 8-9).

    Parameters
    ----------
    recs : mapping controller -> recording
        Runs on the same (reseeded) trajectory.
    window : (float, float)
        Evaluation window [s].

    Returns
    -------
    xarray.Dataset
        ``rms`` and ``peak`` (controller, joint) [rad].
    """
    names = list(recs)
    joints = recs[names[0]]["joint"].values
    rms = np.array([joint_errors(recs[c], window)["rms"] for c in names])
    peak = np.array([joint_errors(recs[c], window)["peak"] for c in names])
    return xr.Dataset(
        {"rms": (("controller", "joint"), rms, {"units": "rad", "long_name": "RMS joint position error"}),
         "peak": (("controller", "joint"), peak, {"units": "rad", "long_name": "peak joint position error"})},
        coords={"controller": names, "joint": joints},
        attrs={"window_s": [float(window[0]), float(window[1])]},
    )


def improvement_ratios(metrics: xr.Dataset,
                       pairs: Sequence[tuple[str, str]] = (("PD", "CTC"), ("CTC", "AC"))) -> dict[str, list[float]]:
    """How many times lower each error is: ``metric(worse) / metric(better)`` per joint.

    Returns
    -------
    dict
        Keys ``"<better>_vs_<worse>_<rms|peak>"`` -> list per joint (e.g. ``"CTC_vs_PD_rms"``).
    """
    out: dict[str, list[float]] = {}
    for worse, better in pairs:
        for m in ("rms", "peak"):
            num = metrics[m].sel(controller=worse).values
            den = metrics[m].sel(controller=better).values
            with np.errstate(divide="ignore", invalid="ignore"):
                out[f"{better}_vs_{worse}_{m}"] = [float(x) for x in num / den]
    return out


def motion_segments(ds: xr.Dataset, v_tol: float = 1e-9) -> np.ndarray:
    """Start and end times (K, 2) [s] of the point-to-point motions (set-point moving).

    A sample is "moving" when any ``|qd_sp|`` or ``|qdd_sp|`` exceeds ``v_tol``; consecutive
    moving samples form one motion. Motions that follow each other without a rest are split
    where the set-point velocity and acceleration both vanish (they do at each target).
    """
    qd = np.abs(ds["qd_sp"].values).max(axis=1)
    qdd = np.abs(ds["qdd_sp"].values).max(axis=1)
    t = ds["time"].values
    moving = (qd > v_tol) | (qdd > v_tol)
    # split rest-to-rest motions joined without dwell: velocity minimum close to zero
    speed = qd / max(qd.max(), 1e-12)
    local_min = np.zeros_like(moving)
    local_min[1:-1] = (speed[1:-1] <= speed[:-2]) & (speed[1:-1] < speed[2:]) & (speed[1:-1] < 1e-6)
    moving &= ~local_min
    edges = np.diff(moving.astype(np.int8), prepend=0, append=0)
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return np.stack([t[starts], t[np.clip(ends, 0, len(t) - 1)]], axis=1) if starts.size else np.zeros((0, 2))


def window_with_motions(ds: xr.Dataset, n_motions: int = 10, start_s: float = 0.0, pad_s: float = 0.05) -> tuple[float, float]:
    """A window [s] covering ``n_motions`` consecutive motions starting at or after ``start_s`` (Fig. 10)."""
    seg = motion_segments(ds)
    seg = seg[seg[:, 0] >= start_s]
    if seg.shape[0] == 0:
        t = ds["time"].values
        return float(t[0]), float(t[-1])
    k = min(n_motions, seg.shape[0]) - 1
    t_end = float(ds["time"].values[-1])
    return max(float(seg[0, 0]) - pad_s, float(ds["time"].values[0])), min(float(seg[k, 1]) + pad_s, t_end)


#: The paper's Fig. 11 (Sec. 3.4): each torque part's share of the RMS motor torque under AC [%],
#: (motor 1, motor 2). The feedback shares are the text's "an even lower 15 %" (motor 1) and
#: "falls short of 20 %" (motor 2), which are what the feed-forward shares leave (100 - 45 - 40,
#: 100 - 48 - 33).
PAPER_FIG11_SHARES: dict[str, tuple[float, float]] = {"dynamic_ff": (45.0, 48.0), "friction_ff": (40.0, 33.0),
                                                       "feedback": (15.0, 19.0)}


def torque_shares(ds: xr.Dataset, window: tuple[float, float] | None = None) -> xr.DataArray:
    """Relative weight (%) in RMS terms of the torque command parts, per motor (Fig. 11).

    Parameters
    ----------
    ds : xarray.Dataset
        A recording with ``tau_parts`` (time, part, joint) [N m].
    window : (float, float), optional
        Time window [s].

    Returns
    -------
    xarray.DataArray
        (part, joint) [%]; each column adds up to 100. attrs ``rms_Nm`` (part x joint RMS).
    """
    if "tau_parts" not in ds:
        raise ValueError("the recording has no 'tau_parts' (torque command parts); it cannot give Fig. 11")
    sel = ds if window is None else ds.sel(time=slice(window[0], window[1]))
    parts = sel["tau_parts"].transpose("time", "part", "joint").values
    rms = np.sqrt(np.mean(parts**2, axis=0))
    total = rms.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total > 0, 100.0 * rms / total, np.nan)
    part_names = sel["part"].values if "part" in sel.coords else np.array(["dynamic_ff", "friction_ff", "feedback"])
    return xr.DataArray(share, dims=("part", "joint"), coords={"part": part_names, "joint": sel["joint"].values},
                        attrs={"units": "%", "long_name": "share of the RMS torque command",
                               "rms_Nm": rms.tolist()})


def summarise(metrics: xr.Dataset, ratios: Mapping[str, list[float]], shares: xr.DataArray | None) -> dict[str, Any]:
    """JSON-ready numbers of the controller comparison."""
    out: dict[str, Any] = {
        "window_s": metrics.attrs["window_s"],
        "rms_error_rad": {c: [float(x) for x in metrics["rms"].sel(controller=c).values] for c in metrics["controller"].values},
        "peak_error_rad": {c: [float(x) for x in metrics["peak"].sel(controller=c).values] for c in metrics["controller"].values},
        "ratios": {k: list(v) for k, v in ratios.items()},
    }
    if shares is not None:
        out["torque_shares_percent"] = {str(p): [float(x) for x in shares.sel(part=p).values] for p in shares["part"].values}
    return out


def controller_summary(recs: Mapping[str, xr.Dataset], eval_start: float | str = "converged"
                       ) -> tuple[dict[str, Any], xr.Dataset, xr.DataArray, tuple[float, float]]:
    """Notebook 04's numbers of the PD, CTC and AC runs, on the evaluation window.

    Parameters
    ----------
    recs : mapping controller -> recording
        ``PD``, ``CTC`` and ``AC`` runs of the same trajectory.
    eval_start : float or "converged"
        Window start [s] (:func:`evaluation_window`).

    Returns
    -------
    summary : dict
        :func:`summarise`'s numbers, with each run's ``converged_s``.
    metrics : xarray.Dataset
        :func:`compare_controllers`' RMS and peak errors.
    shares : xarray.DataArray
        :func:`torque_shares` of the AC run [%].
    window : tuple of float
        The evaluation window [s].
    """
    window = evaluation_window(recs, eval_start)
    metrics = compare_controllers(recs, window)
    shares = torque_shares(recs["AC"], window)
    summary = summarise(metrics, improvement_ratios(metrics), shares)
    summary["converged_s"] = {c: float(d.attrs.get("converged_s", float("nan"))) for c, d in recs.items()}
    return summary, metrics, shares, window

