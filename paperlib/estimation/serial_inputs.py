"""What a serial-arm identification reads from a recording, chosen from the recording itself.

* **Torque source** (:func:`torque_source`): ``tau_m``, ``tau_s`` or ``current``; by default the
  first of them the file has, in that order. Drive torques on the motor side and motor-side
  drive gains are referred to the joints through the robot file's gear ratios
  (:func:`gear_matrix`: ``tau_joint = R^T tau_motor``).
* **Rates** (:func:`choose_rates`): the filter cut-off from the excitation's bandwidth (the
  velocity spectrum of the angles) and the decimation from the cut-off and the sample rate;
  an explicit option wins, an impossible combination is refused with a setting that works.
* **Kinematics** (:func:`kinematics_source`): a recorded ``qd`` whose ``origin`` names a sensor
  (:data:`SENSOR_VELOCITY_ORIGINS`) is used; otherwise, or when asked, velocities are derived
  from the angles.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["TORQUE_ORDER", "SENSOR_VELOCITY_ORIGINS", "BANDWIDTH_POWER", "CUTOFF_PER_BANDWIDTH",
           "DECIMATED_RATE_PER_CUTOFF", "torque_source", "gear_matrix", "current_columns", "channel_torque",
           "excitation_bandwidth", "choose_rates", "kinematics_source"]

#: Torque channels in the order the default picks them.
TORQUE_ORDER: tuple[str, ...] = ("tau_m", "tau_s", "current")
#: ``qd`` origins that are measurements (used as they are); others are derived again.
SENSOR_VELOCITY_ORIGINS: tuple[str, ...] = ("tachometer", "drive", "gyroscope")
#: Share of the velocity spectrum's power below the excitation bandwidth.
BANDWIDTH_POWER = 0.99
#: Cut-off = this many times the bandwidth (a 4th-order zero-phase Butterworth passes 0.2 of its
#: cut-off with a gain of 1 - 3e-6: the excitation's harmonics are not attenuated).
CUTOFF_PER_BANDWIDTH = 5.0
#: The decimated rate keeps at least this many samples per period of the cut-off (Nyquist at 4x the cut-off).
DECIMATED_RATE_PER_CUTOFF = 8.0


def torque_source(ds: Any, requested: str | None = None) -> tuple[str, str]:
    """The torque channel to use and why: ``(name, reason)``.

    Raises
    ------
    ValueError
        The requested channel is missing, or the file has none of :data:`TORQUE_ORDER`; the
        message lists what the file has and which option to give.
    """
    have = [c for c in TORQUE_ORDER if c in ds.data_vars]
    if requested in (None, "auto"):
        if not have:
            raise ValueError(f"no torque channel: the recording has none of {list(TORQUE_ORDER)} (its variables: "
                             f"{sorted(ds.data_vars)}); add tau_m (drive torque, with 'side'), tau_s (torque sensor) "
                             "or current (motor current, then give --drive-gains or --payload-run)")
        return have[0], (f"torque from {have[0]!r}: the first of {'/'.join(TORQUE_ORDER)} the file has "
                         f"(it has {have}); choose another with --torque")
    if requested not in TORQUE_ORDER:
        raise ValueError(f"--torque must be one of {list(TORQUE_ORDER)} or auto; got {requested!r}")
    if requested not in ds.data_vars:
        raise ValueError(f"channel {requested!r} missing (the file has {have or 'no torque channel'}): "
                         + (f"use --torque {have[0]}" if have else "record one of " + ", ".join(TORQUE_ORDER)))
    return requested, f"torque from {requested!r} (--torque)"


def gear_matrix(arm: Any) -> np.ndarray:
    """``R`` with ``q_motor = R q`` (n, n): ``diag(gear_ratios)`` and the robot file's coupling entry.

    Raises
    ------
    ValueError
        When the robot file gives no ``[drive] gear_ratios``.
    """
    drive = getattr(arm, "drive", {}) or {}
    if "gear_ratios" not in drive:
        raise ValueError(f"robot {arm.name!r} has no [drive] gear_ratios: motor-side torques or drive gains need them "
                         "(add them to its robot file, or give joint-side values: --gain-side joint)")
    N = np.asarray(drive["gear_ratios"], dtype=np.float64)
    if N.shape != (arm.n,):
        raise ValueError(f"robot {arm.name!r}: [drive] gear_ratios has {N.size} entries for {arm.n} joints")
    R = np.diag(N)
    if "coupling_row" in drive:
        r, c = int(drive["coupling_row"]) - 1, int(drive["coupling_col"]) - 1
        R[r, c] = N[r]
    return R


def current_columns(current: np.ndarray, R: np.ndarray | None) -> np.ndarray:
    """``C`` (N, n, n) with joint torques ``tau = C @ k`` for drive gains ``k`` [N m per A].

    Joint-side gains (``R = None``): ``tau_j = k_j i_j``. Motor-side gains:
    ``tau = R^T diag(k) i``, so ``C[s, j, m] = R[m, j] i[s, m]``.
    """
    i = np.asarray(current, dtype=np.float64)
    if R is None:
        C = np.zeros(i.shape + (i.shape[1],))
        idx = np.arange(i.shape[1])
        C[:, idx, idx] = i
        return C
    return i[:, None, :] * R.T[None, :, :]


def channel_torque(ds: Any, name: str, arm: Any, gains: Sequence[float] | None = None, gain_side: str = "joint"
                   ) -> np.ndarray:
    """Joint-side torques (N, n) [N m] of a recording's torque channel (currents times known gains)."""
    x = np.asarray(ds[name].values, dtype=np.float64)
    if name == "current":
        if gains is None:
            raise ValueError("torque from 'current' needs drive gains: give --drive-gains K1,..,Kn [N m per A] (or "
                             "[drive] torque_constants_n_m_per_a in the robot file), or identify them with "
                             "--payload-run RUN.nc --payload MASS_KG,CX,CY,CZ")
        k = np.asarray(gains, dtype=np.float64)
        if k.shape != (arm.n,):
            raise ValueError(f"--drive-gains has {k.size} values; robot {arm.name!r} has {arm.n} joints")
        return current_columns(x, None if gain_side == "joint" else gear_matrix(arm)) @ k
    if name in ("tau_m", "tau_tgt") and ds[name].attrs.get("side") == "motor":
        return x @ gear_matrix(arm)
    return x


def excitation_bandwidth(q: np.ndarray, fs: float, power: float = BANDWIDTH_POWER) -> float:
    """Frequency [Hz] below which ``power`` of the angles' velocity spectrum lies (all joints, each normalised).

    The spectrum is ``f^2 |FFT(q - mean)|^2`` of a Hann-windowed record: the velocity's, which
    weights the higher harmonics of an excitation as the accelerations need them, without
    differencing the noise as a derivative of the samples would.
    """
    x = np.asarray(q, dtype=np.float64)
    x = x.reshape(x.shape[0], -1)
    n = x.shape[0]
    if n < 16:
        raise ValueError(f"{n} samples are too few to estimate the excitation's bandwidth: give --cutoff-hz")
    f = np.fft.rfftfreq(n, 1.0 / fs)
    w = np.hanning(n)[:, None]
    spec = np.abs(np.fft.rfft((x - x.mean(axis=0)) * w, axis=0)) ** 2 * (f ** 2)[:, None]
    tot = spec.sum(axis=0)
    spec = spec[:, tot > 0] / tot[tot > 0]
    if spec.shape[1] == 0:
        raise ValueError("no joint moves: no excitation bandwidth (and nothing to identify)")
    cum = np.cumsum(spec.sum(axis=1)) / spec.shape[1]
    return float(f[min(int(np.searchsorted(cum, power)), f.size - 1)])


def choose_rates(q: np.ndarray, fs: float, cutoff_hz: float | None = None, decimate: int | None = None
                 ) -> tuple[float, int, str]:
    """Cut-off [Hz] and decimation for a recording, and the reason (explicit values win).

    * cut-off: ``CUTOFF_PER_BANDWIDTH`` x the excitation's bandwidth
      (:func:`excitation_bandwidth`), at most 0.4 of the (decimated) Nyquist frequency;
    * decimation: the largest ``k`` with ``fs / k >= DECIMATED_RATE_PER_CUTOFF * cut-off``.

    Raises
    ------
    ValueError
        An explicit cut-off at or above the decimated Nyquist frequency, or a decimation below 1,
        with a setting that works.
    """
    if decimate is not None and decimate < 1:
        raise ValueError(f"--decimate must be >= 1; got {decimate} (1 keeps every sample)")
    reasons = []
    if cutoff_hz is None:
        bw = excitation_bandwidth(q, fs)
        nyq = 0.5 * fs / (decimate or 1)
        capped = CUTOFF_PER_BANDWIDTH * bw > 0.4 * nyq
        cutoff = float(f"{min(CUTOFF_PER_BANDWIDTH * bw, 0.4 * nyq):.3g}")
        reasons.append(f"cut-off {cutoff:g} Hz: {CUTOFF_PER_BANDWIDTH:g} x the excitation's bandwidth {bw:.3g} Hz "
                       f"({100 * BANDWIDTH_POWER:g} % of the velocity spectrum below it)"
                       + (f", capped at 0.4 x the Nyquist frequency {nyq:g} Hz" if capped else ""))
    else:
        cutoff = float(cutoff_hz)
        reasons.append(f"cut-off {cutoff:g} Hz (--cutoff-hz)")
    if not cutoff > 0:
        raise ValueError(f"--cutoff-hz must be positive; got {cutoff}")
    if decimate is None:
        k = max(1, int(math.floor(fs / (DECIMATED_RATE_PER_CUTOFF * cutoff))))
        reasons.append(f"decimate {k}: {fs / k:.4g} Hz keeps >= {DECIMATED_RATE_PER_CUTOFF:g} samples per period of "
                       f"the cut-off (recorded at {fs:g} Hz)")
    else:
        k = int(decimate)
        reasons.append(f"decimate {k} (--decimate)")
    nyq = 0.5 * fs / k
    if cutoff >= nyq:
        k_max = int(math.floor(fs / (2.0 * cutoff) * 0.999))
        fix = (f"use --decimate {k_max} or less" if k_max >= 1 else "the cut-off must lie below half the sample rate")
        raise ValueError(f"cut-off {cutoff:g} Hz must lie below the decimated Nyquist frequency {nyq:g} Hz "
                         f"({fs:g} Hz / {k} / 2): {fix}, or --cutoff-hz below {nyq:g} "
                         "(or leave both out: they are chosen from the recording)")
    return cutoff, k, "; ".join(reasons)


def kinematics_source(ds: Any, mode: str = "auto") -> tuple[str, str]:
    """``("measured" | "derived", reason)``: whether the recording's own ``qd`` is used.

    Raises
    ------
    ValueError
        ``mode = "measured"`` on a file whose ``qd`` is missing or not from a sensor.
    """
    if mode not in ("auto", "measured", "derive"):
        raise ValueError(f"--kinematics must be auto, measured or derive; got {mode!r}")
    origin = ds["qd"].attrs.get("origin") if "qd" in ds.data_vars else None
    sensor = origin in SENSOR_VELOCITY_ORIGINS
    if mode == "derive":
        return "derived", "velocities derived from the angles (--kinematics derive)"
    if sensor:
        return "measured", (f"velocities from the recording's qd (origin {origin!r}, a sensor); accelerations from "
                            "its filtered derivative (--kinematics derive to differentiate the angles instead)")
    if mode == "measured":
        raise ValueError("--kinematics measured: the recording has " + ("no qd" if origin is None else
                         f"qd of origin {origin!r}, not a sensor ({', '.join(SENSOR_VELOCITY_ORIGINS)})")
                         + ": leave --kinematics out (velocities are then derived from the angles)")
    why = "the recording has no qd" if origin is None else f"its qd has origin {origin!r}, not a sensor"
    return "derived", f"velocities derived from the angles ({why})"
