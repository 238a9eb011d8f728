"""Intrinsic-dynamics compensation and the bearing inspection of paper 004 (Secs. 3-4, Figs. 3, 5).

* :func:`fit_intrinsic`: the no-load regression (eqs. 3-16) on one or more recordings with ``q``
  and ``tau_s``; velocities and accelerations from the file or derived from ``q``.
* :func:`inspect`: ``bearing torque = tau_s - predicted intrinsic`` and its RMS error against the
  load cell before and after compensation, relative to the RMS of the load cell (Sec. 4.1).

Both work on any schema-2 recording and any robot name: only the joint's own signals are used.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np
import xarray as xr

from paperlib import recordings as rec
from paperlib import signals
from paperlib.estimation.basis_regression import BasisRegression

__all__ = ["DEFAULT_CUTOFF_HZ", "joint_signals", "fit_intrinsic", "inspect", "rms"]

#: Cut-off [Hz] of the zero-phase filter deriving qd, qdd from q when a file lacks them.
DEFAULT_CUTOFF_HZ = 20.0


def rms(x: np.ndarray) -> float:
    """Root mean square."""
    x = np.asarray(x, dtype=float)
    return float(np.sqrt(np.mean(x * x)))


def _pick_joint(ds: xr.Dataset, joint: int | None, name: str) -> int:
    labels = [int(j) for j in ds["joint"].values]
    if joint is None:
        if len(labels) != 1:
            raise rec.RecordingError(f"{name}: {len(labels)} joints {labels}; choose one with --joint")
        return labels[0]
    if joint not in labels:
        raise rec.RecordingError(f"{name}: joint {joint} not in the file (joints {labels})")
    return joint


def joint_signals(ds: xr.Dataset, *, joint: int | None = None, cutoff_hz: float = DEFAULT_CUTOFF_HZ,
                  require: Iterable[str] = ("tau_s",), name: str = "<dataset>",
                  analysis: str = "bearing fit") -> dict[str, Any]:
    """One joint's ``q``, ``qd``, ``qdd`` and torque channels as 1-D arrays.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording (schema 2 or 1).
    joint : int, optional
        Joint label; needed when the file has several.
    cutoff_hz : float
        Cut-off of the derived kinematics [Hz] when ``qd``/``qdd`` are absent.
    require : iterable of str
        Channels needed besides ``q``.
    name, analysis : str
        For error messages.

    Returns
    -------
    dict
        ``q``, ``qd``, ``qdd`` and each required channel (ndarray (N,)), ``kinematics``
        (``"file"`` or the filter description), ``joint``, ``sample_rate_hz``.
    """
    rec.require_channels(ds, ("q", *require), name=name, analysis=analysis)
    j = _pick_joint(ds, joint, name)
    had = {"qd", "qdd"} <= set(ds.data_vars)
    ds2 = signals.ensure_kinematics(ds, cutoff_hz=cutoff_hz)
    sel = ds2.sel(joint=j)
    out: dict[str, Any] = {c: np.asarray(sel[c].values, dtype=float) for c in ("q", "qd", "qdd", *require)}
    out["kinematics"] = "from the file" if had else signals.filter_description(cutoff_hz, 4)
    out["joint"] = j
    out["sample_rate_hz"] = float(ds.attrs["sample_rate_hz"])
    return out


def fit_intrinsic(datasets: Iterable[xr.Dataset], *, names: Iterable[str] | None = None, joint: int | None = None,
                  cutoff_hz: float = DEFAULT_CUTOFF_HZ, **regression: Any) -> tuple[BasisRegression, dict[str, Any]]:
    """Fit the intrinsic model on no-load recordings (samples of all files pooled).

    Parameters
    ----------
    datasets : iterable of xarray.Dataset
        No-load recordings with ``q`` and ``tau_s``.
    names : iterable of str, optional
        Their file names (messages, provenance).
    joint : int, optional
        Joint label.
    cutoff_hz : float
        Derived-kinematics cut-off [Hz].
    **regression
        Passed to :class:`~paperlib.estimation.basis_regression.BasisRegression`.

    Returns
    -------
    model : BasisRegression
    info : dict
        Files, sources, kinematics used.
    """
    datasets = list(datasets)
    names = list(names) if names is not None else [f"<dataset {i}>" for i in range(len(datasets))]
    parts = [joint_signals(ds, joint=joint, cutoff_hz=cutoff_hz, name=n, analysis="bearing fit")
             for ds, n in zip(datasets, names)]
    cat = {k: np.concatenate([p[k] for p in parts]) for k in ("q", "qd", "qdd", "tau_s")}
    model = BasisRegression(**regression).fit(cat["q"], cat["qd"], cat["qdd"], cat["tau_s"])
    info = {"files": names, "sources": [str(ds.attrs.get("source")) for ds in datasets],
            "robots": [str(ds.attrs.get("robot")) for ds in datasets],
            "kinematics": sorted({p["kinematics"] for p in parts}), "cutoff_hz": cutoff_hz}
    return model, info


def inspect(ds: xr.Dataset, model: BasisRegression, *, threshold_Nm: float | None = None, joint: int | None = None,
            cutoff_hz: float = DEFAULT_CUTOFF_HZ, name: str = "<dataset>",
            keep_signals: bool = False) -> dict[str, Any]:
    """Inspect one bearing trial: compensation and comparison with the load cell.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording with ``q``, ``tau_s`` and ``tau_ref``.
    model : BasisRegression
        The fitted intrinsic model.
    threshold_Nm : float, optional
        Pass/fail limit on ``bearing_torque_rms`` [N m]; ``None`` gives ``verdict = "unclassified"``.
    joint, cutoff_hz, name
        As for :func:`joint_signals`.
    keep_signals : bool
        Also return the arrays (for figures).

    Returns
    -------
    dict
        ``rms_error_before``, ``rms_error_after`` (RMS of ``tau_s - tau_ref`` without / with the
        intrinsic model subtracted, relative to RMS of ``tau_ref``), ``bearing_torque_rms`` [N m]
        (compensated), ``bearing_torque_rms_uncompensated``, ``tau_ref_rms``, ``verdict``.
    """
    s = joint_signals(ds, joint=joint, cutoff_hz=cutoff_hz, require=("tau_s", "tau_ref"), name=name,
                      analysis="bearing inspect")
    pred = model.predict(s["q"], s["qd"], s["qdd"])
    bearing = s["tau_s"] - pred
    ref_rms = rms(s["tau_ref"])
    if ref_rms == 0:
        raise rec.RecordingError(f"{name}: channel 'tau_ref' is zero throughout: no reference torque to compare with")
    out: dict[str, Any] = {
        "file": name,
        "source": str(ds.attrs.get("source")),
        "robot": str(ds.attrs.get("robot")),
        "joint": s["joint"],
        "rms_error_before": rms(s["tau_s"] - s["tau_ref"]) / ref_rms,
        "rms_error_after": rms(bearing - s["tau_ref"]) / ref_rms,
        "bearing_torque_rms": rms(bearing),
        "bearing_torque_rms_uncompensated": rms(s["tau_s"]),
        "tau_ref_rms": ref_rms,
        "threshold_Nm": threshold_Nm,
        "verdict": ("unclassified" if threshold_Nm is None
                    else "pass" if rms(bearing) <= threshold_Nm else "fail"),
        "kinematics": s["kinematics"],
    }
    if keep_signals:
        out["signals"] = {**{k: s[k] for k in ("q", "qd", "qdd", "tau_s", "tau_ref")}, "intrinsic": pred,
                          "bearing": bearing}
    return out


def model_from_json(d: Mapping[str, Any], name: str = "<model>") -> BasisRegression:
    """The model of a ``paperlib bearing fit`` JSON (clear error when it is not one)."""
    try:
        return BasisRegression.from_dict(d)
    except (ValueError, AttributeError) as exc:
        raise ValueError(f"{name}: {exc}") from None
