"""Derived kinematics: joint velocities and accelerations from encoder angles, offline.

Many recordings hold only encoder angles ``q`` (a real industrial log, a torque-sensor joint);
identification needs ``qd`` and ``qdd``. This module derives them one way, documented and
tested, for every analysis that reads a file without them:

1. low-pass the angle with a Butterworth filter of order ``order`` and cut-off ``cutoff_hz``,
   run forward and backward (:func:`scipy.signal.sosfiltfilt`): zero phase, so the derivatives
   are not delayed; the magnitude response is that of the filter squared (-6 dB at the cut-off);
2. differentiate the filtered angle twice by second-order central differences
   (:func:`numpy.gradient`, one-sided at the ends).

This is the non-causal reconstruction of the identification literature (paper 001, Sec. 3;
paper 003): usable offline only. An online estimator needs a causal filter and pays for it
with a delay.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from scipy import signal as _signal

__all__ = ["zero_phase_derivatives", "ensure_kinematics", "filter_description"]


def filter_description(cutoff_hz: float, order: int) -> str:
    """The words stored in a derived channel's ``filter`` attribute."""
    return (f"Butterworth low-pass, order {order}, cut-off {cutoff_hz:g} Hz, applied forward and backward "
            "(zero phase, scipy.signal.sosfiltfilt), then second-order central differences (numpy.gradient)")


def zero_phase_derivatives(q: np.ndarray, fs: float, cutoff_hz: float, order: int = 4
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Filtered angle, velocity and acceleration from sampled angles, without phase lag.

    Parameters
    ----------
    q : ndarray, shape (n_time,) or (n_time, n_joint)
        Joint angles [rad], uniformly sampled.
    fs : float
        Sample rate [Hz].
    cutoff_hz : float
        Cut-off of the low-pass [Hz], ``0 < cutoff_hz < fs / 2``.
    order : int
        Order of the Butterworth filter (the zero-phase result has twice its roll-off).

    Returns
    -------
    q_f : ndarray, same shape as ``q``
        Filtered angles [rad].
    qd : ndarray, same shape as ``q``
        Angular velocities [rad/s].
    qdd : ndarray, same shape as ``q``
        Angular accelerations [rad/s^2].

    Raises
    ------
    ValueError
        On a non-finite angle, a cut-off outside ``(0, fs/2)``, or too few samples for the
        filter's padding.
    """
    q = np.asarray(q, dtype=np.float64)
    if not np.isfinite(q).all():
        k = int(np.argmax(~np.isfinite(q).reshape(q.shape[0], -1).any(axis=1)))
        raise ValueError(f"derived kinematics: non-finite angle at time index {k}; cut or repair the record first")
    fs = float(fs)
    if not (np.isfinite(fs) and fs > 0):
        raise ValueError(f"derived kinematics: sample rate must be positive, got {fs!r} Hz")
    if not 0.0 < cutoff_hz < 0.5 * fs:
        raise ValueError(f"derived kinematics: cut-off {cutoff_hz!r} Hz must lie in (0, {0.5 * fs:g}) Hz "
                         f"(below the Nyquist frequency of {fs:g} Hz sampling)")
    if int(order) < 1:
        raise ValueError(f"derived kinematics: filter order must be >= 1, got {order!r}")
    sos = _signal.butter(int(order), cutoff_hz, btype="low", fs=fs, output="sos")
    pad = 3 * (2 * len(sos) + 1)
    if q.shape[0] <= pad:
        raise ValueError(f"derived kinematics: {q.shape[0]} samples are too few for an order-{order} "
                         f"zero-phase filter (needs more than {pad})")
    q_f = _signal.sosfiltfilt(sos, q, axis=0)
    dt = 1.0 / fs
    qd = np.gradient(q_f, dt, axis=0)
    qdd = np.gradient(qd, dt, axis=0)
    return q_f, qd, qdd


def held_to_centred(x: np.ndarray) -> np.ndarray:
    """A zero-order-hold signal re-timed to the sample instants of zero-phase derivatives.

    A drive torque logged at sample k is the torque held over ``[t_k, t_k+1)`` (the twins' and the
    emulated rigs' convention, and the rooms' alignment of a real drive's reported torque). The
    acceleration :func:`zero_phase_derivatives` gives at ``t_k`` is centred on ``t_k``, i.e. on
    ``[t_k - dt/2, t_k + dt/2)``, over which the held torque averages ``(x[k-1] + x[k]) / 2``. Paired
    without this, a torque that changes every cycle is half a sample late against the acceleration;
    with a heavy inertia that is more than the friction being identified (the 3-RRR's calibrated
    rotors, docs/rrr.md).

    Parameters
    ----------
    x : ndarray, shape (n_time, ...)
        The held signal (e.g. drive torques [N m]).

    Returns
    -------
    ndarray, same shape
        ``(x[k-1] + x[k]) / 2``; the first sample, which has no predecessor, is ``x[0]``.
    """
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    out[1:] = 0.5 * (x[1:] + x[:-1])
    return out


def ensure_kinematics(ds: xr.Dataset, cutoff_hz: float, order: int = 4, force: bool = False) -> xr.Dataset:
    """A recording with ``qd`` and ``qdd``: the file's own, or derived from ``q`` when absent.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording (schema 2 or 1) with ``q`` [rad] on (time, joint).
    cutoff_hz : float
        Cut-off of the zero-phase low-pass [Hz] (see :func:`zero_phase_derivatives`).
    order : int
        Butterworth order.
    force : bool
        Derive both even when the file has them (e.g. to compare with gyroscope data).

    Returns
    -------
    xarray.Dataset
        A shallow copy of ``ds``; derived channels carry ``origin = "encoder-derived"``,
        ``filter`` (in words), ``cutoff_hz`` and ``filter_order``. Channels the file already
        had are kept unless ``force``.
    """
    have = {"qd", "qdd"} <= set(ds.data_vars)
    if have and not force:
        return ds
    fs = float(ds.attrs["sample_rate_hz"])
    _, qd, qdd = zero_phase_derivatives(ds["q"].values, fs, cutoff_hz, order)
    meta = {"origin": "encoder-derived", "filter": filter_description(cutoff_hz, order),
            "cutoff_hz": float(cutoff_hz), "filter_order": int(order)}
    out = ds.copy(deep=False)
    dims = ds["q"].dims
    if force or "qd" not in ds.data_vars:
        out["qd"] = xr.DataArray(qd, dims=dims, attrs={"units": "rad/s", "long_name": "joint angular velocity "
                                                       "derived from the encoder", **meta})
    if force or "qdd" not in ds.data_vars:
        out["qdd"] = xr.DataArray(qdd, dims=dims, attrs={"units": "rad/s^2", "long_name": "joint angular "
                                                         "acceleration derived from the encoder", **meta})
    return out
