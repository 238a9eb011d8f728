"""Joint velocity and acceleration from the encoder alone, causally (usable online).

The flagship paper measures ``qd`` and ``qdd`` with MEMS IMUs; its conclusions name the
comparison with methods that need no IMU as future work. This module gives the estimator those
signals from the encoder angle ``q`` alone, with filters that use past samples only, so the same
EWR-RLS can run online on them (:func:`paperlib.estimation.replay.replay` offline, one sample at
a time in a loop).

The observer and its two designs (``kalman``, ``observer``) are in
:mod:`paperlib.estimation.kinematic_observer`; ``jerk_psd=auto`` / ``noise_rad=auto`` take the Kalman
design's levels from the recording (:mod:`paperlib.estimation.observer_noise`).
"""

from __future__ import annotations

import math

import numpy as np

from paperlib.estimation.kinematic_observer import DEFAULT_BANDWIDTH_HZ, DEFAULT_JERK_PSD, METHODS, EncoderObserver

__all__ = ["EncoderObserver", "DEFAULT_JERK_PSD", "DEFAULT_BANDWIDTH_HZ", "METHODS", "encoder_derivatives",
           "parse_kinematics", "with_encoder_kinematics", "encoder_step_of", "AUTO"]

#: Value of a design key (``jerk_psd``, ``noise_rad``) that asks for it to be estimated from the recording.
AUTO = "auto"


def encoder_derivatives(q: np.ndarray, sample_rate_hz: float, method: str = "kalman", **design: float
                        ) -> tuple[np.ndarray, np.ndarray, EncoderObserver]:
    """``(qd, qdd, observer)`` from encoder angles by :class:`EncoderObserver` (causal)."""
    obs = EncoderObserver(float(sample_rate_hz), method, **design)
    _, qd, qdd = obs.run(q)
    return qd, qdd, obs


def parse_kinematics(spec: str) -> tuple[str, str, dict[str, float]]:
    """``imu`` | ``encoder[:METHOD[:key=value,...]]`` -> (source, method, design keywords).

    Examples: ``encoder``, ``encoder:observer``, ``encoder:kalman:jerk_psd=1e5``,
    ``encoder:observer:bandwidth_hz=40``. ``jerk_psd=auto``: the jerk PSD estimated from the recording
    (:func:`paperlib.estimation.observer_noise.estimate_observer_noise`) with the angle noise as set;
    ``encoder:kalman:auto`` (= ``jerk_psd=auto,noise_rad=auto``): both estimated from the recording.
    """
    parts = spec.strip().split(":")
    src = parts[0]
    if src == "imu":
        if len(parts) > 1:
            raise ValueError(f"--kinematics imu takes no method, got {spec!r}")
        return "imu", "", {}
    if src != "encoder":
        raise ValueError(f"--kinematics must be 'imu' or 'encoder[:METHOD]', got {spec!r}")
    method = parts[1] if len(parts) > 1 and parts[1] else "kalman"
    if method not in METHODS:
        raise ValueError(f"--kinematics encoder:METHOD: METHOD must be one of {METHODS}, got {method!r}")
    design: dict[str, float | str] = {}
    allowed = {"jerk_psd", "noise_rad", "bandwidth_hz", "step_rad"}
    for kv in (parts[2].split(",") if len(parts) > 2 and parts[2] else []):
        if kv == AUTO:
            design.update(jerk_psd=AUTO, noise_rad=AUTO)
            continue
        k, _, v = kv.partition("=")
        if k not in allowed:
            raise ValueError(f"--kinematics: unknown design key {k!r}; known: {sorted(allowed)}")
        if v == AUTO and k in ("jerk_psd", "noise_rad"):
            design[k] = AUTO
        else:
            design[k] = float(v)
    if method != "kalman" and AUTO in design.values():
        raise ValueError(f"--kinematics: '{AUTO}' settings need the kalman method, got {spec!r}")
    if design.get("noise_rad") == AUTO and design.get("jerk_psd") != AUTO:
        raise ValueError(f"--kinematics: noise_rad=auto needs jerk_psd=auto too, got {spec!r}")
    return "encoder", method, design


def encoder_step_of(ds, robot=None) -> float:
    """The encoder's quantization step at the joint [rad]: from the robot description
    (``sensors.encoder_counts_per_motor_rev`` and the gear ratio), else the smallest angle increment seen."""
    try:
        if robot is None:
            from paperlib import robots

            robot = robots.load(ds.attrs["robot"])
        counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
        return float(2 * math.pi / (counts * float(np.max(robot.gear_ratios))))
    except (KeyError, AttributeError, TypeError, ValueError):
        d = np.abs(np.diff(np.asarray(ds["q"].values), axis=0))
        d = d[d > 0]
        return float(d.min()) if d.size else 1e-6


def with_encoder_kinematics(ds, method: str = "kalman", *, q: np.ndarray | None = None, robot=None, **design: float):
    """A shallow copy of a recording whose ``qd``, ``qdd`` come from the encoder by :class:`EncoderObserver`.

    ``q`` replaces the recording's angles (e.g. re-quantized); the copy's ``q`` is then that too.
    ``jerk_psd="auto"`` estimates the jerk PSD per joint from the angles, ``noise_rad="auto"`` (with it) the
    angle noise too, so that no setting comes from the robot file or the designer
    (:func:`paperlib.estimation.observer_noise.estimate_observer_noise`); the fixed design stays the default.
    The derived channels carry ``origin = "encoder-derived"`` and ``filter`` (the design in words);
    the copy's ``attrs["kinematics"]`` says the same.
    """
    import xarray as xr

    qq = np.asarray(ds["q"].values if q is None else q, dtype=float)
    design = dict(design)
    fs = float(ds.attrs["sample_rate_hz"])
    if AUTO in design.values():
        qd, qdd, text = _auto_derivatives(qq, fs, method, design, lambda: encoder_step_of(ds, robot))
    else:
        design.setdefault("step_rad", encoder_step_of(ds, robot))
        qd, qdd, obs = encoder_derivatives(qq, fs, method, **design)
        text = obs.describe()
    out = ds.copy(deep=False)
    dims = ds["q"].dims
    meta = {"origin": "encoder-derived", "filter": text}
    if q is not None:
        out["q"] = xr.DataArray(qq, dims=dims, attrs=dict(ds["q"].attrs))
    out["qd"] = xr.DataArray(qd, dims=dims, attrs={"units": "rad/s", "long_name": "joint rate from the encoder (causal)",
                                                   **meta})
    out["qdd"] = xr.DataArray(qdd, dims=dims, attrs={"units": "rad/s^2",
                                                     "long_name": "joint acceleration from the encoder (causal)", **meta})
    out.attrs = dict(ds.attrs)
    out.attrs["kinematics"] = f"encoder:{method}: {text}"
    return out


def _auto_derivatives(q: np.ndarray, fs: float, method: str, design: dict, step_of) -> tuple[np.ndarray, np.ndarray, str]:
    """``qd``, ``qdd`` (same shape as ``q``) and the design in words, with the ``auto`` settings of ``design``
    estimated per joint from ``q`` (:func:`paperlib.estimation.observer_noise.estimate_observer_noise`)."""
    from paperlib.estimation.observer_noise import estimate_observer_noise

    if method != "kalman":
        raise ValueError(f"encoder kinematics: '{AUTO}' settings need the kalman method, not {method!r}")
    if design.get("jerk_psd") != AUTO:
        raise ValueError("encoder kinematics: noise_rad=auto needs jerk_psd=auto too")
    Q = q.reshape(len(q), -1)
    if design.get("noise_rad") == AUTO:
        fixed_R = None
        step = 0.0
    else:
        step = float(design.get("step_rad", step_of()))
        fixed_R = step ** 2 / 12.0 + float(design.get("noise_rad", 0.0)) ** 2
    est = estimate_observer_noise(Q, fs, noise_variance=fixed_R)
    qd, qdd = np.empty_like(Q), np.empty_like(Q)
    words = []
    for j, e in enumerate(est):
        noise = 0.0 if fixed_R is None else float(design.get("noise_rad", 0.0))
        if fixed_R is None:
            noise = e.noise_rad
        obs = EncoderObserver(fs, "kalman", step_rad=step, jerk_psd=e.jerk_psd, noise_rad=noise)
        _, qd[:, j], qdd[:, j] = obs.run(Q[:, j])
        words.append(f"joint {j + 1}: {obs.describe()} (innovations: autocorrelation {e.whiteness_lag1:.3f} at lag 1, "
                     f"largest {e.largest_autocorrelation:.3f} at lag {e.largest_autocorrelation_lag}, "
                     f"white noise would give ~{1 / math.sqrt(e.n_samples):.3f})")
    what = "jerk PSD and angle noise" if fixed_R is None else "jerk PSD"
    text = (f"{what} estimated from the recording by maximum likelihood of the innovations (per joint); "
            + "; ".join(words))
    return qd.reshape(q.shape), qdd.reshape(q.shape), text
