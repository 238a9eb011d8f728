"""Measured versus modelled friction (flagship paper, Figs. 6-7, eqs. 7, 11, 13, 51).

From a recording and the history of the estimate (Table 4 model, usually (3)):

* measured friction Lagrangian components (eq. 51), with the steady-state drive gains
  ``pi_pds_bar``::

      Q_F,meas = Y_pds(q, tau_m) pi_pds_bar - Q_I(q, qd, qdd)

* the model's (eq. 11), with the estimate at each instant (hence the dispersion the paper
  mentions)::

      Q_F,model = -Y_F(q, qd) pi_F_hat(t)

* the motor torque Lagrangian components and their prediction (Fig. 7)::

      Q_m = -Y_pds pi_pds_bar ,   Q_m,pred = -Q_I + Y_F pi_F_hat(t)   (from eq. 5 with Q_G = 0)

* for twin recordings, the twin's truth: ``Q_F_true`` (all joints' friction) and ``tau_F_true``
  (the active joint's own friction), labelled as such in every figure.

Like the paper ("a downsampling to 200 Hz for logging purposes") the points are decimated to
``rate_hz`` (default 200 Hz) before plotting; the estimator itself always runs at the
recording's rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from paperlib.friction import FrictionModel, table4_model

__all__ = ["estimate_history", "steady_state", "lagrangian_components", "fit_quality",
           "model_friction_curve", "binned_curve", "twin_truth_curve", "fit_results"]


def estimate_history(ds: xr.Dataset, model: int | FrictionModel = 3, *, prefer_recorded: bool = True,
                     record_every_s: float = 0.01, robot: Any = None) -> xr.Dataset:
    """History of the estimate ``pi_hat(t)`` and of ``rho_rms(t)`` for a recording.

    The recording's own online estimate (variable ``pi_hat``) is used when it exists, has the
    parameters of ``model`` and ``prefer_recorded`` is true (that is the estimate the controller
    actually used); otherwise the recording is replayed through the estimator from
    ``pi_pds = 1, pi_F = 0`` (:func:`paperlib.estimation.replay.replay`). The residual
    ``rho_rms(t)`` (eq. 49) always comes from the replay (the online loop does not log it).

    Returns
    -------
    xarray.Dataset
        ``theta`` (t, param) and ``rho_rms`` (t) [N m] on coordinate ``t`` [s]; attrs
        ``estimate_from`` ("online" or "replay"), ``model``.
    """
    from paperlib.estimation.replay import replay

    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    n_drv = ds.sizes["joint"]
    names = [f"pi_pds,{j}" for j in ds["joint"].values] + fm.param_names()
    res = replay(ds, fm, record_every_s=record_every_s, robot=robot)
    h = res.history
    t = h.t + res.t0
    theta = h.theta
    origin = "replay"
    if prefer_recorded and "pi_hat" in ds and "param" in ds.coords and list(ds["param"].values) == names:
        theta = _sample_at(ds["time"].values, ds["pi_hat"].values, t)
        origin = "online"
    return xr.Dataset(
        {"theta": (("t", "param"), theta, {"units": "1", "long_name": "estimate (SI units of each parameter)"}),
         "rho_rms": (("t",), h.rho_rms, {"units": "N m", "long_name": "running RMS residual (eq. 49)"})},
        coords={"t": ("t", t, {"units": "s"}), "param": names},
        attrs={"estimate_from": origin, "model": fm.name, "n_drives": n_drv},
    )


def _imu_delay(ds: xr.Dataset) -> int:
    """IMU delay [samples] the recording's estimator used (0 if unknown)."""
    try:
        from paperlib.estimation.replay import recording_imu_delay
    except ImportError:
        return 0
    return int(recording_imu_delay(ds))


def _sample_at(t_src: np.ndarray, values: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Zero-order hold: the last value at or before each t (values (N, ...))."""
    idx = np.clip(np.searchsorted(t_src, t + 1e-9, side="right") - 1, 0, len(t_src) - 1)
    return values[idx]


def steady_state(history: xr.Dataset, tail_fraction: float = 0.25) -> np.ndarray:
    """Steady-state estimate: the mean of ``theta`` over the last ``tail_fraction`` of the history."""
    th = history["theta"].values
    k0 = int(np.floor((1.0 - tail_fraction) * th.shape[0]))
    return th[min(k0, th.shape[0] - 1):].mean(axis=0)


def lagrangian_components(ds: xr.Dataset, history: xr.Dataset, model: int | FrictionModel = 3, *,
                          rate_hz: float = 200.0, pi_pds_bar: np.ndarray | None = None,
                          robot: Any = None) -> xr.Dataset:
    """Measured and modelled friction and motor-torque Lagrangian components (Figs. 6-7).

    Parameters
    ----------
    ds : xarray.Dataset
        The recording.
    history : xarray.Dataset
        From :func:`estimate_history` (same model).
    model : int or FrictionModel
    rate_hz : float
        Output rate [Hz] (decimation of the recording; 200 Hz as in the paper).
    pi_pds_bar : ndarray, optional
        Steady-state drive gains; default :func:`steady_state` of the history.

    Returns
    -------
    xarray.Dataset on (time, joint), all [N m] except ``qd`` [rad/s]:
        ``qd``, ``Q_I``, ``Q_F_meas`` (eq. 51), ``Q_F_model`` (eq. 11), ``Q_m`` (eq. 7),
        ``Q_m_pred`` (-Q_I + Y_F pi_F_hat), and for twin recordings ``Q_F_true``, ``tau_F_true``.
        attrs: ``pi_pds_bar``, ``imu_delay_cycles`` (the IMU channels are paired with the encoder
        angle and drive torque that many samples earlier, as in the estimator).
    """
    from paperlib import robots
    from paperlib.estimation.replay import regressor_rows

    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    robot = robot or robots.load(ds.attrs["robot"])
    fs = float(ds.attrs["sample_rate_hz"])
    step = max(1, int(round(fs / rate_hz)))
    d = _imu_delay(ds)
    # pair each IMU sample (qd, qdd) with the encoder angle and drive torque of the same age, as the
    # estimator does (paperlib.estimation.replay); rows are labelled with the IMU sample's time
    idx = np.arange(d, ds.sizes["time"], step)
    sub = ds.isel(time=idx)
    q, tau = (ds[v].values[idx - d] for v in ("q", "tau_m"))
    qd, qdd = (sub[v].values for v in ("qd", "qdd"))
    Y, R = regressor_rows(robot, fm, q, qd, qdd, tau)
    n = q.shape[1]
    if pi_pds_bar is None:
        pi_pds_bar = steady_state(history)[:n]
    pi_pds_bar = np.asarray(pi_pds_bar, dtype=float)
    t = sub["time"].values
    theta_t = _sample_at(history["t"].values, history["theta"].values, t)
    Y_pds, Y_F = Y[:, :, :n], Y[:, :, n:]
    pi_F_t = theta_t[:, n:]
    YpP = np.einsum("tjd,d->tj", Y_pds, pi_pds_bar)
    YFp = np.einsum("tjc,tc->tj", Y_F, pi_F_t)
    dims = ("time", "joint")
    out = xr.Dataset(
        {
            "qd": (dims, qd, {"units": "rad/s", "long_name": "joint rate (gyroscope)"}),
            "Q_I": (dims, R, {"units": "N m", "long_name": "inertial Lagrangian components (a priori model)"}),
            "Q_F_meas": (dims, YpP - R, {"units": "N m", "long_name": "friction Lagrangian components, measured (eq. 51)"}),
            "Q_F_model": (dims, -YFp, {"units": "N m", "long_name": "friction Lagrangian components, model (eq. 11)"}),
            "Q_m": (dims, -YpP, {"units": "N m", "long_name": "motor torque Lagrangian components (eq. 7)"}),
            "Q_m_pred": (dims, -R + YFp, {"units": "N m",
                                         "long_name": "predicted motor Lagrangian components (dynamics + friction model)"}),
        },
        coords={"time": ("time", t, {"units": "s"}), "joint": sub["joint"].values},
        attrs={"pi_pds_bar": [float(x) for x in pi_pds_bar], "rate_hz": fs / step, "imu_delay_cycles": d,
               "recording_source": ds.attrs.get("source", "?")},
    )
    for v in ("Q_F_true", "tau_F_true"):
        if v in sub:
            out[v] = (dims, sub[v].values, {"units": "N m", "long_name": sub[v].attrs.get("long_name", v) + " [twin truth]"})
    return out


def fit_quality(comp: xr.Dataset, v_split: float = 2.0) -> dict[str, Any]:
    """RMS differences between measured and modelled components, per joint [N m].

    Returns ``rms_QF_error`` (all velocities), ``rms_QF_error_slow`` (|qd| < v_split rad/s),
    ``rms_QF_error_fast`` (above), ``rms_QF_meas`` (size of the measured friction),
    ``r2_Qm`` (coefficient of determination of Q_m_pred against Q_m); lists per joint.
    """
    out: dict[str, Any] = {"v_split_rad_s": v_split}
    e = (comp["Q_F_meas"] - comp["Q_F_model"]).values
    qd = np.abs(comp["qd"].values)
    slow = qd < v_split
    rms = lambda a: float(np.sqrt(np.mean(a**2))) if a.size else float("nan")  # noqa: E731
    out["rms_QF_error"] = [rms(e[:, j]) for j in range(e.shape[1])]
    out["rms_QF_error_slow"] = [rms(e[slow[:, j], j]) for j in range(e.shape[1])]
    out["rms_QF_error_fast"] = [rms(e[~slow[:, j], j]) for j in range(e.shape[1])]
    out["rms_QF_meas"] = [rms(comp["Q_F_meas"].values[:, j]) for j in range(e.shape[1])]
    Qm, Qp = comp["Q_m"].values, comp["Q_m_pred"].values
    out["r2_Qm"] = [float(1.0 - np.sum((Qm[:, j] - Qp[:, j]) ** 2) / np.sum((Qm[:, j] - Qm[:, j].mean()) ** 2))
                    for j in range(Qm.shape[1])]
    if "Q_F_true" in comp:
        et = (comp["Q_F_true"] - comp["Q_F_model"]).values
        out["rms_QF_model_vs_truth"] = [rms(et[:, j]) for j in range(et.shape[1])]
        em = (comp["Q_F_true"] - comp["Q_F_meas"]).values
        out["rms_QF_meas_vs_truth"] = [rms(em[:, j]) for j in range(em.shape[1])]
    return out


def model_friction_curve(model: int | FrictionModel, pi_F: np.ndarray, v: np.ndarray, joint: int) -> np.ndarray:
    """Friction Lagrangian component of active joint ``joint`` due to its own friction [N m], at qd_joint = v.

    For the 5R, ``psi_1 = q_1`` and ``psi_2 = pi - q_2``, so for odd (symmetric) models the
    component of an active joint's own friction is ``-tau_F,j(qd_j)`` for both joints. Passive
    joints' friction (model 1) is not included (it depends on both joint rates).
    """
    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    if not fm.symmetric:
        raise ValueError("model_friction_curve supports symmetric (odd) models only")
    return -fm.torque(np.asarray(pi_F, dtype=float), np.asarray(v, dtype=float), joint)


def binned_curve(x: np.ndarray, y: np.ndarray, edges: np.ndarray, min_count: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Mean of y in bins of x (bin centres, means; bins with fewer than ``min_count`` points dropped)."""
    idx = np.digitize(x, edges) - 1
    centres, means = [], []
    for b in range(len(edges) - 1):
        sel = idx == b
        if sel.sum() >= min_count:
            centres.append(0.5 * (edges[b] + edges[b + 1]))
            means.append(float(np.mean(y[sel])))
    return np.asarray(centres), np.asarray(means)


def twin_truth_curve(fit: xr.Dataset, joint: int, n_bins: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The twin's true friction of one joint as a binned mean over its velocity (Fig. 6's truth line).

    Parameters
    ----------
    fit : xarray.Dataset
        Components of :func:`lagrangian_components` (variables ``qd`` [rad/s] and, for a twin
        recording, ``tau_F_true`` [N m]; dims ``time``, ``joint``).
    joint : int
        Active joint (1 or 2).
    n_bins : int
        Number of bin edges, spread evenly over ``[-max|qd|, max|qd|]``.

    Returns
    -------
    (v, tau) : tuple of ndarray, or None
        Bin centres [rad/s] and mean true friction [N m] (see :func:`binned_curve`); None when
        the recording carries no truth (the robot's, or an archive without it).
    """
    if "tau_F_true" not in fit:
        return None
    v = fit["qd"].sel(joint=joint).values
    edges = np.linspace(-np.abs(v).max(), np.abs(v).max(), n_bins)
    return binned_curve(v, fit["tau_F_true"].sel(joint=joint).values, edges)


def fit_results(ds: xr.Dataset, history: xr.Dataset, fit: xr.Dataset, quality: dict[str, Any],
                window: tuple[float, float]) -> dict[str, Any]:
    """The numbers notebook 03 writes: steady estimate, fit quality, the spans of Figs. 6 and 7.

    Parameters
    ----------
    ds : xarray.Dataset
        The recording (its ``source`` and, for the twin, its truth are read from the attrs).
    history : xarray.Dataset
        :func:`estimate_history` of the recording.
    fit : xarray.Dataset
        The components shown in Fig. 6 (after the estimate converged).
    quality : dict
        :func:`fit_quality` of ``fit``.
    window : (float, float)
        Fig. 7's time span [s].

    Returns
    -------
    dict
        ``pi_pds_bar`` [1] and ``pi_F_final`` (model units) from :func:`steady_state`, the
        parameter names, ``fit_quality``, ``fig7_window_s``, ``fig6_start_s`` [s],
        ``estimate_from`` and, for twin recordings, ``twin_true_pi_pds``.
    """
    from paperlib import recordings as rec

    final = steady_state(history)
    results = {"estimate_from": history.attrs["estimate_from"], "pi_pds_bar": final[:2], "pi_F_final": final[2:],
               "param_names": [str(p) for p in history["param"].values], "fit_quality": quality,
               "fig7_window_s": window, "fig6_start_s": float(fit.time[0])}
    if ds.attrs.get("source") == "twin" and "truth" in ds.attrs:
        results["twin_true_pi_pds"] = rec.truth(ds).get("pi_pds")
    return results
