"""Stacking ``Y(q, qd, qdd) pi = tau`` over time and solving it with the left pseudo-inverse.

The notes: measure ``q`` (and reconstruct ``qd``, ``qdd``) and ``tau`` at ``N`` instants, stack
``tau = [tau(t_1); ...; tau(t_N)] = [Y(t_1); ...; Y(t_N)] pi = Y_bar pi`` and take
``pi = (Y_bar^T Y_bar)^-1 Y_bar^T tau``. Only the *base* parameters (independent columns) can
be solved for: the full ``Y_bar`` of a planar arm has 10 columns per link, most of them zero or
combinations of others (:meth:`paperlib.robots.serial.SerialArm.base_parameters`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from paperlib.robots.base_parameters import BaseParameters
from paperlib.robots.serial import SerialArm

__all__ = ["stack", "left_pinv", "Fit", "fit_base", "kinematics", "causal_derivatives", "true_base", "torque_rms", "interior", "rel_error"]


def stack(arm: SerialArm, bp: BaseParameters | None, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
          tau: np.ndarray, rows: slice | list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The stacked regressor and torque vector.

    Parameters
    ----------
    arm : SerialArm
    bp : BaseParameters or None
        Keep only the base columns (``None``: the full regressor).
    q, qd, qdd, tau : ndarray, shape (N, n)
        States [rad, rad/s, rad/s^2] and joint torques [N m].
    rows : optional
        Joint rows to keep (default all).

    Returns
    -------
    W : ndarray, shape (N * m, p)
    y : ndarray, shape (N * m,)
    """
    Y = arm.regressor(q, qd, qdd)
    if bp is not None:
        Y = bp.columns(Y)
    T = np.asarray(tau, float)
    if rows is not None:
        Y, T = Y[:, rows, :], T[:, rows]
    return Y.reshape(-1, Y.shape[-1]), T.reshape(-1)


def left_pinv(W: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``(W^T W)^-1 W^T y`` as the notes write it (normal equations, Cholesky).

    Raises
    ------
    numpy.linalg.LinAlgError
        When ``W^T W`` is singular (a column that is not a base parameter, or no excitation).
    """
    G = W.T @ W
    L = np.linalg.cholesky(G)
    return np.linalg.solve(L.T, np.linalg.solve(L, W.T @ y))


@dataclass
class Fit:
    """An LS estimate with its diagnostics.

    Attributes
    ----------
    names : tuple of str
    estimate : ndarray, shape (p,)
    std : ndarray, shape (p,)
        Standard deviations from the residual variance, ``sigma^2 (W^T W)^-1`` (white noise).
    cond : float
        2-norm condition number of ``W`` in SI units (what the noise sees).
    cond_unit : float
        The same with unit-norm columns (independent of units and of the motion's scale).
    rms_residual : float
        [N m]
    n_rows : int
    """

    names: tuple[str, ...]
    estimate: np.ndarray
    std: np.ndarray
    cond: float
    cond_unit: float
    rms_residual: float
    n_rows: int

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {n: {"estimate": float(e), "std": float(s)} for n, e, s in zip(self.names, self.estimate, self.std)}


def fit_base(W: np.ndarray, y: np.ndarray, names: tuple[str, ...]) -> Fit:
    """Least squares on stacked rows (SVD-based ``lstsq``; equals :func:`left_pinv` when well posed)."""
    theta, *_ = np.linalg.lstsq(W, y, rcond=None)
    r = y - W @ theta
    dof = max(W.shape[0] - W.shape[1], 1)
    sigma2 = float(r @ r) / dof
    cov = sigma2 * np.linalg.pinv(W.T @ W)
    Wn = W / np.maximum(np.linalg.norm(W, axis=0), 1e-300)
    return Fit(names=tuple(names), estimate=theta, std=np.sqrt(np.clip(np.diag(cov), 0, None)),
               cond=float(np.linalg.cond(W)), cond_unit=float(np.linalg.cond(Wn)), rms_residual=float(np.sqrt(np.mean(r**2))), n_rows=W.shape[0])


def true_base(bp: BaseParameters, ds: xr.Dataset) -> np.ndarray:
    """The base parameter values of a twin recording's true parameters (``K @ pi``)."""
    import json

    t = ds.attrs["truth"]
    truth = json.loads(t) if isinstance(t, str) else t
    p = np.array([truth["params"][n] for n in bp.full_names])
    return bp.project(p)


def causal_derivatives(q: np.ndarray, fs: float, cutoff_hz: float, order: int = 4
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a real-time estimator can do: a *causal* Butterworth low-pass, run forward only
    (:func:`scipy.signal.sosfilt`, initial state at rest at the first sample), then backward
    differences. Same filter and cut-off as :func:`paperlib.signals.zero_phase_derivatives`
    but the output lags the signal (group delay of the filter plus half a sample per difference).

    Returns
    -------
    q_f, qd, qdd : ndarray, same shape as ``q``
    """
    from scipy import signal

    q = np.asarray(q, float)
    if not 0.0 < cutoff_hz < 0.5 * fs:
        raise ValueError(f"cut-off {cutoff_hz!r} Hz must lie in (0, {0.5 * fs:g}) Hz")
    sos = signal.butter(order, cutoff_hz, fs=fs, output="sos")
    zi = signal.sosfilt_zi(sos)
    zi = zi[:, :, None] * q[0][None, None, :] if q.ndim == 2 else zi * q[0]
    q_f, _ = signal.sosfilt(sos, q, axis=0, zi=zi)
    dt = 1.0 / fs
    qd = np.empty_like(q_f)
    qd[1:] = np.diff(q_f, axis=0) / dt
    qd[0] = qd[1]
    qdd = np.empty_like(qd)
    qdd[1:] = np.diff(qd, axis=0) / dt
    qdd[0] = qdd[1]
    return q_f, qd, qdd


def kinematics(ds: xr.Dataset, method: str, cutoff_hz: float, order: int = 4
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``q, qd, qdd`` reconstructed from a recording's encoder angles.

    Parameters
    ----------
    method : {"zero_phase", "causal"}
        Forward-backward filtering (offline, :func:`paperlib.signals.zero_phase_derivatives`)
        or forward only (:func:`causal_derivatives`).
    """
    from paperlib.signals import zero_phase_derivatives

    q = ds["q"].values
    fs = float(ds.attrs["sample_rate_hz"])
    if method == "zero_phase":
        return zero_phase_derivatives(q, fs, cutoff_hz, order)
    if method == "causal":
        return causal_derivatives(q, fs, cutoff_hz, order)
    raise ValueError(f"method must be 'zero_phase' or 'causal', got {method!r}")


def torque_rms(arm: SerialArm, bp: BaseParameters, beta: np.ndarray, q: np.ndarray, qd: np.ndarray,
               qdd: np.ndarray, tau_true: np.ndarray) -> np.ndarray:
    """Per-joint RMS of ``Y_b beta - tau_true`` [N m], shape (n,)."""
    pred = bp.columns(arm.regressor(q, qd, qdd)) @ beta
    return np.sqrt(np.mean((pred - tau_true) ** 2, axis=0))


def interior(n_samples: int, fs: float, edge_s: float) -> slice:
    """Samples at least ``edge_s`` seconds from either end of a record.

    Filters (zero-phase ones included) start and stop with transients: the first and last
    ``edge_s`` of reconstructed ``qd``/``qdd`` are wrong even when the middle is right.
    """
    k = int(round(edge_s * fs))
    if 2 * k >= n_samples:
        raise ValueError(f"edge_s={edge_s} s leaves nothing of {n_samples} samples at {fs:g} Hz")
    return slice(k, n_samples - k)


def rel_error(estimate: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``(estimate - truth) / |truth|``; NaN where the truth is zero (a relative error means nothing there)."""
    truth = np.asarray(truth, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(truth != 0.0, (np.asarray(estimate, float) - truth) / np.abs(truth), np.nan)
