"""IMU scale calibration against the encoders (paper eqs. 47-48).

Each joint j carries a MEMS IMU; only the gyroscope z channel (angular velocity of the
link) and the accelerometer y channel (tangential acceleration) are used. Two scale factors
per joint absorb the sensor sensitivities and the mounting (lever arm, misalignment):

* eq. 47: ``alpha_g,j = (g^T g)^-1 g^T qd_e`` -- least-squares scale from the raw gyro
  signal ``g`` to the joint velocity ``qd_e`` obtained by differentiating the encoder angle;
* eq. 48: ``alpha_a,j = (a^T a)^-1 a^T (alpha_g,j gd)`` -- least-squares scale from the raw
  accelerometer signal ``a`` to the angular acceleration obtained by differentiating the
  (scaled) gyro signal, ``gd = d g / dt``.

Afterwards ``qd = alpha_g * g`` [rad/s] and ``qdd = alpha_a * a`` [rad/s^2]. The units of
the alphas are (rad/s)/(gyro unit) and (rad/s^2)/(accelerometer unit): with the gyro in
nominal rad/s and the accelerometer in m/s^2, ``alpha_g ~ 1`` and ``alpha_a ~ 1/r`` with
``r`` the accelerometer's distance from the joint axis [m].

Signal processing (offline, so non-causal is fine)
-------------------------------------------------
* Derivatives are central differences ``(x[k+1] - x[k-1]) / (2 Ts)`` (second-order
  one-sided at the two ends, which are trimmed anyway). Their gain error w.r.t. the ideal
  derivative is ``1 - sin(w Ts)/(w Ts) ~ (w Ts)^2/6``: 2e-4 at 20 Hz and 4 kHz.
* Optionally (``cutoff_hz``) a light zero-phase low-pass: a 2nd-order Butterworth run
  forward and backward (``scipy.signal.sosfiltfilt``; 4th-order magnitude, no phase lag).
  It is applied to *both* sides of each regression, regressor and target alike: a linear
  filter commutes with the scale factor, so the scale is unbiased, while the noise that
  differentiation amplifies (and the errors-in-variables attenuation from regressor noise)
  is cut. Default: no filter.
* Samples with too little motion are masked out, *on the regressor* (``|g| > min_rate``
  for eq. 47, ``|a| > min_acc`` for eq. 48, in the raw units). Selecting on the regressor
  leaves the least-squares scale unbiased; selecting on the target would not. A few
  samples at each end are trimmed (edge effects of differences and filters).

Diagnostics per joint: samples used, RMS fit residual (target units), uncentered R^2
(the model has no intercept) and the relative standard error of alpha under a white
residual assumption (optimistic when the residual is correlated, e.g. after filtering).
"""

from __future__ import annotations

import math
from typing import Any, Callable
from dataclasses import dataclass

import numpy as np

from paperlib._jit import rt_njit
from scipy import signal

__all__ = [
    "ScaleFit",
    "ImuCalibration",
    "central_difference",
    "zero_phase_lowpass",
    "fit_scale",
    "calibrate_gyro",
    "calibrate_accel",
    "calibrate_imu",
    "conversion_rows",
]


@dataclass
class ScaleFit:
    """Per-joint scale factors ``target ~ alpha * regressor`` with fit diagnostics.

    Attributes
    ----------
    alpha : ndarray, shape (n,)
        Scale factors [target unit / regressor unit].
    n_used : ndarray of int, shape (n,)
        Samples that passed the motion mask.
    rms_residual : ndarray, shape (n,)
        RMS of ``target - alpha * regressor`` over the used samples [target unit].
    r2 : ndarray, shape (n,)
        Uncentered coefficient of determination ``1 - SSR / sum(target^2)``.
    rel_std_error : ndarray, shape (n,)
        Standard error of alpha divided by alpha (white-residual assumption).
    """

    alpha: np.ndarray
    n_used: np.ndarray
    rms_residual: np.ndarray
    r2: np.ndarray
    rel_std_error: np.ndarray


@dataclass
class ImuCalibration:
    """Result of :func:`calibrate_imu`.

    Attributes
    ----------
    alpha_g : ndarray, shape (n,)
        Gyro scales, eq. 47 [(rad/s) / gyro unit].
    alpha_a : ndarray, shape (n,)
        Accelerometer scales, eq. 48 [(rad/s^2) / accelerometer unit].
    gyro : ScaleFit
        Diagnostics of the eq. 47 fit (residual in rad/s).
    accel : ScaleFit
        Diagnostics of the eq. 48 fit (residual in rad/s^2).
    """

    alpha_g: np.ndarray
    alpha_a: np.ndarray
    gyro: ScaleFit
    accel: ScaleFit


def _as_2d(x: np.ndarray, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape (N, n) or (N,), got {np.shape(x)}")
    bad = ~np.isfinite(a)
    if bad.any():
        k, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} contains {int(bad.sum())} non-finite value(s) (NaN or inf); first at sample {k}, joint {j}")
    return a


def _check_ts(ts: float) -> float:
    ts = float(ts)
    if not (ts > 0.0 and math.isfinite(ts)):
        raise ValueError(f"sample time ts must be finite and > 0 s, got {ts!r}")
    return ts


def _same_shape(**arrays: np.ndarray) -> None:
    shapes = {k: v.shape for k, v in arrays.items()}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"arrays must have the same shape (N, n): {shapes}")


def central_difference(x: np.ndarray, ts: float) -> np.ndarray:
    """Time derivative by central differences along axis 0.

    Parameters
    ----------
    x : array_like, shape (N, ...)
        Uniformly sampled signal, N >= 3.
    ts : float
        Sample time [s].

    Returns
    -------
    ndarray, shape (N, ...)
        ``(x[k+1] - x[k-1]) / (2 ts)``; second-order one-sided differences at the ends.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 3:
        raise ValueError(f"need at least 3 samples to differentiate, got {x.shape[0]}")
    return np.gradient(x, _check_ts(ts), axis=0, edge_order=2)


def zero_phase_lowpass(x: np.ndarray, ts: float, cutoff_hz: float) -> np.ndarray:
    """Zero-phase low-pass along axis 0 (2nd-order Butterworth, forward and backward).

    Parameters
    ----------
    x : array_like, shape (N, ...)
        Signal.
    ts : float
        Sample time [s].
    cutoff_hz : float
        -3 dB frequency of each pass [Hz]; below the Nyquist frequency ``1 / (2 ts)``.

    Returns
    -------
    ndarray, shape (N, ...)
    """
    ts = _check_ts(ts)
    fs = 1.0 / ts
    if not (0.0 < cutoff_hz < 0.5 * fs):
        raise ValueError(f"cutoff_hz must be in (0, {0.5 * fs:g}) Hz for ts = {ts:g} s, got {cutoff_hz!r}")
    sos = signal.butter(2, cutoff_hz, btype="low", fs=fs, output="sos")
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] <= 3 * (2 * sos.shape[0] + 1):
        raise ValueError(f"too few samples ({x.shape[0]}) to filter")
    return signal.sosfiltfilt(sos, x, axis=0)


def _trim(n_samples: int, ts: float, cutoff_hz: float | None, trim: int | None) -> int:
    if trim is not None:
        if trim < 0:
            raise ValueError(f"trim must be >= 0, got {trim}")
        return int(trim)
    if cutoff_hz is None:
        return 1
    return int(math.ceil(1.0 / (cutoff_hz * ts)))  # one period of the cutoff


def fit_scale(regressor: np.ndarray, target: np.ndarray, mask: np.ndarray, *,
              min_samples: int = 200, what: str = "scale fit", threshold_note: str = "") -> ScaleFit:
    """Per-column least-squares scale ``alpha_j = (x_j^T x_j)^-1 x_j^T y_j`` over masked samples.

    Parameters
    ----------
    regressor : ndarray, shape (N, n)
        ``x`` (raw sensor signal).
    target : ndarray, shape (N, n)
        ``y`` (reference signal).
    mask : ndarray of bool, shape (N, n)
        Samples to use, per column.
    min_samples : int, default 200
        Fewer used samples in any column raises.
    what, threshold_note : str
        For the error messages.

    Returns
    -------
    ScaleFit

    Raises
    ------
    ValueError
        When a column has fewer than ``min_samples`` usable samples (too little motion).
    """
    x = np.where(mask, regressor, 0.0)
    y = np.where(mask, target, 0.0)
    n_used = mask.sum(axis=0)
    for j in range(x.shape[1]):
        if n_used[j] < min_samples or not np.any(x[:, j] != 0.0):
            raise ValueError(
                f"{what}: too little motion on joint {j}: {int(n_used[j])} sample(s) above the threshold"
                f"{threshold_note}, need at least {min_samples} (max |regressor| = "
                f"{float(np.max(np.abs(regressor[:, j]))):.4g})"
            )
    sxx = np.einsum("ij,ij->j", x, x)
    sxy = np.einsum("ij,ij->j", x, y)
    syy = np.einsum("ij,ij->j", y, y)
    alpha = sxy / sxx
    res = np.where(mask, y - alpha * x, 0.0)
    ssr = np.einsum("ij,ij->j", res, res)
    dof = np.maximum(n_used - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(syy > 0, 1.0 - ssr / syy, np.nan)
        rel_se = np.sqrt(ssr / dof / sxx) / np.abs(alpha)
    return ScaleFit(
        alpha=alpha,
        n_used=n_used.astype(np.int64),
        rms_residual=np.sqrt(ssr / np.maximum(n_used, 1)),
        r2=r2,
        rel_std_error=rel_se,
    )


def calibrate_gyro(gyro_z: np.ndarray, q_enc: np.ndarray, ts: float, *, cutoff_hz: float | None = None,
                   min_rate: float = 0.05, min_samples: int = 200, trim: int | None = None) -> ScaleFit:
    """Gyro scale factors, eq. 47: raw gyro z -> encoder-differentiated joint velocity.

    Parameters
    ----------
    gyro_z : array_like, shape (N, n) or (N,)
        Raw gyroscope z readings, one column per joint [gyro unit, nominally rad/s].
    q_enc : array_like, shape (N, n) or (N,)
        Encoder joint angles [rad], same sampling.
    ts : float
        Sample time [s].
    cutoff_hz : float, optional
        Zero-phase low-pass applied to both the gyro signal and the encoder velocity.
    min_rate : float, default 0.05
        Use samples with ``|gyro_z| > min_rate`` [gyro unit].
    min_samples : int, default 200
        Minimum samples in motion per joint.
    trim : int, optional
        Samples dropped at each end (default 1, or one cutoff period when filtering).

    Returns
    -------
    ScaleFit
        ``alpha`` = alpha_g [(rad/s)/gyro unit]; residuals in rad/s.

    Raises
    ------
    ValueError
        NaN/inf, mismatched shapes, or too little motion.
    """
    ts = _check_ts(ts)
    g = _as_2d(gyro_z, "gyro_z")
    q = _as_2d(q_enc, "q_enc")
    _same_shape(gyro_z=g, q_enc=q)
    qd_e = central_difference(q, ts)
    if cutoff_hz is not None:
        g = zero_phase_lowpass(g, ts, cutoff_hz)
        qd_e = zero_phase_lowpass(qd_e, ts, cutoff_hz)
    mask = np.abs(g) > min_rate
    k = _trim(g.shape[0], ts, cutoff_hz, trim)
    mask[:k] = False
    if k:
        mask[-k:] = False
    return fit_scale(g, qd_e, mask, min_samples=min_samples, what="gyro calibration (eq. 47)",
                     threshold_note=f" |gyro_z| > {min_rate:g}")


def calibrate_accel(acc_y: np.ndarray, gyro_z: np.ndarray, alpha_g: np.ndarray, ts: float, *,
                    cutoff_hz: float | None = None, min_acc: float = 0.5, min_samples: int = 200,
                    trim: int | None = None) -> ScaleFit:
    """Accelerometer scale factors, eq. 48: raw accelerometer y -> d/dt (alpha_g gyro_z).

    Parameters
    ----------
    acc_y : array_like, shape (N, n) or (N,)
        Raw accelerometer y readings [accelerometer unit, e.g. m/s^2].
    gyro_z : array_like, shape (N, n) or (N,)
        Raw gyroscope z readings [gyro unit].
    alpha_g : array_like, shape (n,)
        Gyro scales from :func:`calibrate_gyro`.
    ts : float
        Sample time [s].
    cutoff_hz : float, optional
        Zero-phase low-pass applied to both the accelerometer signal and the gyro derivative.
    min_acc : float, default 0.5
        Use samples with ``|acc_y| > min_acc`` [accelerometer unit].
    min_samples : int, default 200
        Minimum samples in motion per joint.
    trim : int, optional
        Samples dropped at each end.

    Returns
    -------
    ScaleFit
        ``alpha`` = alpha_a [(rad/s^2)/accelerometer unit]; residuals in rad/s^2.

    Raises
    ------
    ValueError
        NaN/inf, mismatched shapes, or too little motion.
    """
    ts = _check_ts(ts)
    a = _as_2d(acc_y, "acc_y")
    g = _as_2d(gyro_z, "gyro_z")
    _same_shape(acc_y=a, gyro_z=g)
    ag = np.asarray(alpha_g, dtype=np.float64).reshape(-1)
    if ag.shape != (g.shape[1],):
        raise ValueError(f"alpha_g must have shape ({g.shape[1]},), got {np.shape(alpha_g)}")
    if not np.isfinite(ag).all():
        raise ValueError("alpha_g contains non-finite values")
    qdd_g = central_difference(g * ag, ts)
    if cutoff_hz is not None:
        a = zero_phase_lowpass(a, ts, cutoff_hz)
        qdd_g = zero_phase_lowpass(qdd_g, ts, cutoff_hz)
    mask = np.abs(a) > min_acc
    k = _trim(a.shape[0], ts, cutoff_hz, trim)
    mask[:k] = False
    if k:
        mask[-k:] = False
    return fit_scale(a, qdd_g, mask, min_samples=min_samples, what="accelerometer calibration (eq. 48)",
                     threshold_note=f" |acc_y| > {min_acc:g}")


def calibrate_imu(q_enc: np.ndarray, gyro_z: np.ndarray, acc_y: np.ndarray, ts: float, *,
                  cutoff_hz: float | None = None, min_rate: float = 0.05, min_acc: float = 0.5,
                  min_samples: int = 200) -> ImuCalibration:
    """Both calibrations of the paper (eq. 47, then eq. 48 with the fitted alpha_g).

    Parameters
    ----------
    q_enc : array_like, shape (N, n) or (N,)
        Encoder joint angles [rad].
    gyro_z : array_like, shape (N, n) or (N,)
        Raw gyroscope z readings [gyro unit, nominally rad/s].
    acc_y : array_like, shape (N, n) or (N,)
        Raw accelerometer y readings [accelerometer unit, e.g. m/s^2].
    ts : float
        Sample time [s].
    cutoff_hz : float, optional
        Zero-phase low-pass for both fits (None: central differences only).
    min_rate, min_acc : float
        Motion thresholds on the raw gyro and accelerometer signals.
    min_samples : int, default 200
        Minimum samples in motion per joint.

    Returns
    -------
    ImuCalibration

    Raises
    ------
    ValueError
        NaN/inf, mismatched shapes, or too little motion.
    """
    q = _as_2d(q_enc, "q_enc")
    g = _as_2d(gyro_z, "gyro_z")
    a = _as_2d(acc_y, "acc_y")
    _same_shape(q_enc=q, gyro_z=g, acc_y=a)
    gyro = calibrate_gyro(g, q, ts, cutoff_hz=cutoff_hz, min_rate=min_rate, min_samples=min_samples)
    accel = calibrate_accel(a, g, gyro.alpha, ts, cutoff_hz=cutoff_hz, min_acc=min_acc, min_samples=min_samples)
    return ImuCalibration(alpha_g=gyro.alpha, alpha_a=accel.alpha, gyro=gyro, accel=accel)


# ---------------------------------------------------------------------------------------------
# Extended calibration: offsets, centripetal leak and stream delay (beyond eqs. 47-48)
# ---------------------------------------------------------------------------------------------
#: Per-joint IMU conversion row used by the twin and the hardware rig (see :func:`imu_to_joint`).
IC_ALPHA_G, IC_BIAS_G, IC_ALPHA_A, IC_LEAK, IC_BIAS_A, IC_DELAY = range(6)
N_IC = 6


@rt_njit
def imu_to_joint(gyro_z: float, accel_y: float, lever_arm: float, row: np.ndarray) -> tuple[float, float]:  # pragma: no cover - compiled
    """Joint rate [rad/s] and acceleration [rad/s^2] from one IMU's gyro z [rad/s] and accel y [m/s^2].

    ``qd = alpha_g gz + b_g`` and ``qdd = alpha_a ay / r + k qd^2 + b_a``: the paper's scales
    (eqs. 47-48) plus offsets and the centripetal acceleration leaking into the y axis through
    a mounting rotation (``k`` ~ -sin(mu)). ``row`` layout: ``IC_*``.
    """
    qd = row[IC_ALPHA_G] * gyro_z + row[IC_BIAS_G]
    qdd = row[IC_ALPHA_A] * accel_y / lever_arm + row[IC_LEAK] * qd * qd + row[IC_BIAS_A]
    return qd, qdd


def identity_conversion(n: int) -> np.ndarray:
    """Conversion rows (n, N_IC) of an uncalibrated IMU: unit scales, no offset, no leak, no delay."""
    rows = np.zeros((n, N_IC))
    rows[:, IC_ALPHA_G] = 1.0
    rows[:, IC_ALPHA_A] = 1.0
    return rows


def conversion_rows(imu_calibration: Any, calibrate: Callable[[], np.ndarray], n: int = 2) -> np.ndarray:
    """The conversion rows (n, N_IC) a run's ``imu_calibration`` argument asks for (C-contiguous).

    ``"auto"``: ``calibrate()`` (e.g. the rows of :func:`calibration_protocol` on the same rig);
    ``"none"``: :func:`identity_conversion`; an array: its values, reshaped to (n, N_IC).
    """
    if isinstance(imu_calibration, str):
        if imu_calibration == "auto":
            rows = calibrate()
        elif imu_calibration == "none":
            rows = identity_conversion(n)
        else:
            raise ValueError(f"imu_calibration must be 'auto', 'none' or an array, not {imu_calibration!r}")
    else:
        rows = np.asarray(imu_calibration, dtype=float).reshape(n, N_IC)
    return np.ascontiguousarray(rows, dtype=float)


@dataclass
class ExtendedImuCalibration:
    """Result of :func:`calibrate_imu_extended`.

    Attributes
    ----------
    rows : ndarray, shape (n, N_IC)
        Conversion rows for :func:`imu_to_joint` (delay in control cycles in ``IC_DELAY``).
    delay_s : ndarray, shape (n,)
        Stream delay of the IMU data behind the encoder [s].
    rms_gyro, rms_accel : ndarray, shape (n,)
        RMS residuals of the two fits [rad/s], [rad/s^2].
    """

    rows: np.ndarray
    delay_s: np.ndarray
    rms_gyro: np.ndarray
    rms_accel: np.ndarray


def calibrate_imu_extended(q_enc: np.ndarray, gyro_qd: np.ndarray, accel_qdd: np.ndarray, ts: float, *,
                           cutoff_hz: float = 50.0, max_delay_s: float = 0.005, min_rate: float = 0.05,
                           min_samples: int = 200, valid: np.ndarray | None = None) -> ExtendedImuCalibration:
    """Calibrate each joint's IMU against its encoder: delay, gyro scale and offset, accelerometer
    scale, offset and centripetal leak.

    The paper (eqs. 47-48) fits one scale per sensor. On a rig whose IMU stream arrives over UDP
    the samples are also ~1-2 ms older than the encoder's and the torque's, and a small mounting
    rotation leaks the centripetal acceleration ``-r qd^2`` into the y axis; both bias friction
    identification (the lag correlates with jerk, the leak looks like a quadratic friction term).
    Steps, per joint:

    1. reference rate from the encoder: central difference of the zero-phase low-passed angle;
    2. delay: the integer lag (0 .. ``max_delay_s``) maximizing the correlation of the gyro with the
       reference rate;
    3. gyro: ``qd_ref(t - d) = alpha_g gz(t) + b_g`` by least squares over samples in motion;
    4. accelerometer: ``d/dt qd_cal = alpha_a ay/r + k qd_cal^2 + b_a`` (both IMU signals share the
       stream delay, so no shift), by least squares.

    Parameters
    ----------
    q_enc : array_like, shape (N, n)
        Encoder angles [rad].
    gyro_qd : array_like, shape (N, n)
        Gyroscope rates with the nominal conversion [rad/s].
    accel_qdd : array_like, shape (N, n)
        Accelerometer y over the nominal lever arm [rad/s^2].
    ts : float
        Sample time [s].
    valid : array_like of bool, shape (N,), optional
        Samples that are in step (a hardware log marks cycles off their period, with a lost or
        stale EtherCAT frame or a stale IMU sample: ``sample_faults != 0``). The fits skip every
        sample within two filter lengths (``2 / cutoff_hz``) of an invalid one, where the
        filtered derivatives still feel it. Default: all valid.
    """
    q = _as_2d(q_enc, "q_enc")
    g = _as_2d(gyro_qd, "gyro_qd")
    a = _as_2d(accel_qdd, "accel_qdd")
    _same_shape(q_enc=q, gyro_qd=g, accel_qdd=a)
    ts = _check_ts(ts)
    n = q.shape[1]
    v_ref = central_difference(zero_phase_lowpass(q, ts, cutoff_hz), ts)
    max_d = max(0, int(round(max_delay_s / ts)))
    trim = max(max_d, int(round(1.0 / (cutoff_hz * ts))))
    rows = identity_conversion(n)
    delay = np.zeros(n)
    rms_g = np.zeros(n)
    rms_a = np.zeros(n)
    seg = slice(trim, len(q) - trim)
    good = np.ones(len(q), dtype=bool)
    if valid is not None:
        v = np.asarray(valid, dtype=bool).reshape(-1)
        if v.shape[0] != len(q):
            raise ValueError(f"valid must have one entry per sample ({len(q)}), got {v.shape[0]}")
        reach = int(math.ceil(2.0 / (cutoff_hz * ts))) + max_d
        bad = np.convolve(~v, np.ones(2 * reach + 1), mode="same") > 0
        good = ~bad
    good = good[seg]
    if good.sum() < min_samples:
        raise ValueError(f"only {int(good.sum())} samples are valid and away from a fault; need {min_samples}")
    for j in range(n):
        best, best_d = -np.inf, 0
        for d in range(max_d + 1):
            c = np.corrcoef(g[seg, j][good], v_ref[trim - d:len(q) - trim - d, j][good])[0, 1]
            if c > best:
                best, best_d = c, d
        gj = g[seg, j]
        vr = v_ref[trim - best_d:len(q) - trim - best_d, j]
        moving = (np.abs(gj) > min_rate) & good
        if moving.sum() < min_samples:
            raise ValueError(f"joint {j + 1}: only {int(moving.sum())} samples in motion (|qd| > {min_rate} rad/s); "
                             f"need {min_samples}")
        A = np.c_[gj[moving], np.ones(moving.sum())]
        (ag, bg), *_ = np.linalg.lstsq(A, vr[moving], rcond=None)
        rms_g[j] = float(np.sqrt(np.mean((A @ [ag, bg] - vr[moving]) ** 2)))
        qd_cal = ag * g[:, j] + bg
        acc_ref = central_difference(zero_phase_lowpass(qd_cal, ts, cutoff_hz), ts)[seg][good]
        A = np.c_[a[seg, j][good], qd_cal[seg][good] ** 2, np.ones(int(good.sum()))]
        coef, *_ = np.linalg.lstsq(A, acc_ref, rcond=None)
        rms_a[j] = float(np.sqrt(np.mean((A @ coef - acc_ref) ** 2)))
        rows[j] = [ag, bg, coef[0], coef[1], coef[2], best_d]
        delay[j] = best_d * ts
    return ExtendedImuCalibration(rows=rows, delay_s=delay, rms_gyro=rms_g, rms_accel=rms_a)


#: Seed offset of the calibration run: its data are not the identified run's data.
CALIBRATION_SEED_OFFSET = 1_000_003


def calibration_protocol(record: Any, seed: int, duration_s: float = 20.0) -> Any:
    """The IMU-calibration protocol: a PD run with the nominal conversion, calibrated against the encoders.

    ``record(controller=..., duration_s=..., seed=..., estimate=False, imu_calibration="none")``
    makes the run on any rig or twin and returns a recording; the calibration
    (:func:`calibrate_imu_extended`) uses its ``q``, ``qd``, ``qdd`` at its ``sample_rate_hz``.
    The run uses its own seed (``seed + CALIBRATION_SEED_OFFSET``), as the paper calibrates
    before identifying, on other data.
    """
    ds = record(controller="PD", duration_s=duration_s, seed=int(seed) + CALIBRATION_SEED_OFFSET, estimate=False,
                imu_calibration="none")
    return calibrate_imu_extended(ds.q.values, ds.qd.values, ds.qdd.values, 1.0 / float(ds.attrs["sample_rate_hz"]))
