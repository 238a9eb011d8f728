"""Identify a serial arm's base and friction parameters from a recording (IDIM, batch).

The pipeline, each step stated in the result's ``config`` and ``choices``:

0. **Inputs chosen from the recording** (:mod:`paperlib.estimation.serial_inputs`): the torque
   channel (``tau_m``, ``tau_s`` or ``current``, the first the file has unless ``torque`` says),
   measured velocities when the file's ``qd`` comes from a sensor, and, unless given, the
   filter cut-off (from the excitation's bandwidth) and the decimation (from the cut-off).
1. **Filtering and decimation.** Encoder angles are low-passed by a zero-phase Butterworth
   filter and differentiated (:func:`paperlib.signals.zero_phase_derivatives`), or a measured
   ``qd`` is filtered and differentiated once; the torques (or currents) pass
   through the *same* zero-phase filter (parallel filtering: the model and the measurement see
   the same attenuation), then both are decimated by keeping every ``decimate``-th sample (the
   cut-off must lie below the decimated Nyquist frequency).
2. **Motion and hold-out.** Samples within ``edge_periods / cutoff_hz`` of the file's ends
   (filter transients) are dropped. The motion spans from the first to the last sample where any joint
   moves faster than ``motion_threshold``; the last ``holdout_fraction`` of that span is held out
   for validation (a recorded arm may stand still for its last seconds: holding out the last samples of
   the *file* would validate on rest).
3. **Regressor and base parameters.** The full regressor of the arm
   (:meth:`paperlib.robots.serial.SerialArm.regressor`) reduced to its base columns (QR on
   random states, :mod:`paperlib.robots.base_parameters`).
4. **Velocity gate.** A row (sample, joint) is used only when that joint moves faster than
   ``v_gate`` (and, for a joint driven by a coupled motor, when the motor does too): the
   Coulomb column ``sign(qd)`` means nothing at rest.
5. **Estimation.** OLS or WLS (:class:`paperlib.estimation.least_squares.LinearLeastSquares`), or
   the physically consistent SDP (:class:`paperlib.estimation.physical.PhysicalLeastSquares`,
   WLS weights) whose standard deviations are reported from the WLS fit. With motor currents and
   unknown drive gains, the gains are estimated with the base parameters from a second run
   carrying a known payload (:mod:`paperlib.estimation.drive_gains`).
6. **Validation.** RMS of measured minus predicted torque per joint on the held-out motion and
   on other runs (:func:`validate_runs`).

The result is JSON-ready and never holds NaN or infinity: such a value is ``null`` with its
reason next to it (:func:`json_safe`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from scipy import signal as _signal

from paperlib.robots.base_parameters import BaseParameters
from paperlib.estimation.least_squares import LinearLeastSquares
from paperlib.robots.serial import SerialArm

__all__ = ["IdentificationConfig", "Prepared", "prepare", "base_regressor", "predict", "identify", "identify_recording",
           "prepare_recording", "validate_runs", "json_safe", "finalise"]


@dataclass(frozen=True)
class IdentificationConfig:
    """Settings of :func:`identify` (SI units).

    Attributes
    ----------
    method : {"ols", "wls", "sdp"}
    cutoff_hz : float or None
        Zero-phase Butterworth cut-off for angles and torques [Hz] (None: chosen from the
        recording, :func:`paperlib.estimation.serial_inputs.choose_rates`).
    filter_order : int
    decimate : int or None
        Keep every ``decimate``-th sample after filtering (None: chosen from the cut-off).
    v_gate : float
        Per-row velocity gate [rad/s].
    motion_threshold : float
        Speed that marks the motion span [rad/s].
    holdout_fraction : float
        Share of the motion span held out (the end of it) for validation.
    base_tol : float
        Relative QR tolerance for the base parameters.
    base_states : int
        Random states for the base-parameter QR.
    torque : str
        Torque channel: ``tau_m`` (either side), ``tau_s``, ``current``, or ``auto`` (the first
        of them the file has).
    kinematics : {"auto", "measured", "derive"}
        Use the recording's ``qd`` when its origin is a sensor (``auto``), insist on it, or
        derive velocities from the angles.
    drive_gains : tuple of float or None
        Known drive gains [N m per A] for ``current`` (None: the robot file's, or identified
        from a payload run).
    gain_side : {"joint", "motor"}
        Side of the drive gains (motor: referred to the joints through the gear ratios).
    edge_periods : float
        Samples within ``edge_periods / cutoff_hz`` seconds of the file's ends are not used (the
        zero-phase filter's start-up transients).
    """

    method: str = "wls"
    cutoff_hz: float | None = None
    filter_order: int = 4
    decimate: int | None = None
    v_gate: float = 0.05
    motion_threshold: float = 0.05
    holdout_fraction: float = 0.2
    base_tol: float = 1e-6
    base_states: int = 200
    torque: str = "auto"
    edge_periods: float = 3.0
    kinematics: str = "auto"
    drive_gains: tuple[float, ...] | None = None
    gain_side: str = "joint"

    def check(self, fs: float) -> None:
        if self.method not in ("ols", "wls", "sdp"):
            raise ValueError(f"method must be ols, wls or sdp; got {self.method!r}")
        if not 0.0 <= self.holdout_fraction < 1.0:
            raise ValueError(f"holdout fraction must be in [0, 1); got {self.holdout_fraction}")
        if self.gain_side not in ("joint", "motor"):
            raise ValueError(f"gain side must be joint or motor; got {self.gain_side!r}")
        if self.cutoff_hz is None or self.decimate is None:
            raise ValueError("cut-off and decimation not chosen yet: resolve them with "
                             "paperlib.estimation.serial_inputs.choose_rates (identify_recording does)")
        from paperlib.estimation.serial_inputs import choose_rates

        choose_rates(np.zeros((0, 1)), fs, self.cutoff_hz, self.decimate)  # refuses, with a fix


@dataclass
class Prepared:
    """Filtered, decimated data split into fit and validation parts."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    fit: np.ndarray  # bool (N,)
    val: np.ndarray  # bool (N,)
    fs: float
    motion_span_s: tuple[float, float]
    split_s: float
    sign_f: np.ndarray | None = None  # filtered sign(qd) (N, n)
    coupling_sign_f: dict | None = None  # coupling name -> filtered sign(v_m) (N,)


def _sign_as_logged(v: np.ndarray, t: np.ndarray, t_logged: np.ndarray | None) -> np.ndarray:
    """``sign(v)`` on the grid ``t``, as a resampled log shows it (see :func:`prepare`)."""
    if t_logged is None:
        return np.sign(v)
    from scipy.interpolate import CubicSpline

    v2 = v.reshape(v.shape[0], -1)
    at_log = np.stack([np.sign(np.interp(t_logged, t, col)) for col in v2.T], axis=1)
    return CubicSpline(t_logged, at_log, axis=0)(t).reshape(v.shape)


def prepare(t: np.ndarray, q: np.ndarray, tau: np.ndarray, fs: float, cfg: IdentificationConfig,
            arm: SerialArm | None = None, qd: np.ndarray | None = None,
            t_logged: np.ndarray | None = None) -> Prepared:
    """Steps 1-2 of the module docstring on arrays (N, n) (``arm`` for its coupled motors).

    ``tau`` is whatever the torque channel holds (joint torques, or currents when the drive
    gains are to be identified); ``qd`` a measured velocity [rad/s] (None: derived from ``q``).

    ``t_logged`` [s]: the stamps of a jittery log before it was resampled onto ``t``
    (:func:`paperlib.recordings.resample_uniform`, the recording's ``time_logged``). The Coulomb
    columns then pass through the same resampling as the measured torque did: ``sign(qd)`` at
    the logged stamps, interpolated onto the grid by the same cubic spline, then filtered. A
    resampled torque step is smeared over the logged samples around it; a sign sampled on the
    grid is not, and on a +-5 ms jittery 100-Hz twin log that mismatch biased the first axis'
    drive gain and friction by 6-7 %.
    """
    from paperlib.signals import zero_phase_derivatives

    cfg.check(fs)
    sos = _signal.butter(int(cfg.filter_order), cfg.cutoff_hz, btype="low", fs=fs, output="sos")
    if qd is None:
        q_f, qd, qdd = zero_phase_derivatives(q, fs, cfg.cutoff_hz, cfg.filter_order)
    else:
        q_f = _signal.sosfiltfilt(sos, np.asarray(q, dtype=np.float64), axis=0)
        qd = _signal.sosfiltfilt(sos, np.asarray(qd, dtype=np.float64), axis=0)
        qdd = np.gradient(qd, 1.0 / fs, axis=0)
    tau_f = _signal.sosfiltfilt(sos, np.asarray(tau, dtype=np.float64), axis=0)
    sign_f = _signal.sosfiltfilt(sos, _sign_as_logged(qd, t, t_logged), axis=0)
    coupling_sign = {}
    for cp in (arm.couplings if arm is not None else ()):
        vm = qd[:, list(cp.joints)] @ np.asarray(cp.coefficients)
        coupling_sign[cp.name] = _signal.sosfiltfilt(sos, _sign_as_logged(vm, t, t_logged))[:: cfg.decimate]
    k = cfg.decimate
    t, q_f, qd, qdd, tau_f, sign_f = (a[::k] for a in (np.asarray(t), q_f, qd, qdd, tau_f, sign_f))
    edge = cfg.edge_periods / cfg.cutoff_hz
    inside = (t >= t[0] + edge) & (t <= t[-1] - edge)
    moving = (np.max(np.abs(qd), axis=1) > cfg.motion_threshold) & inside
    if not moving.any():
        raise ValueError(f"no joint moves faster than {cfg.motion_threshold} rad/s: nothing to identify")
    i0, i1 = np.flatnonzero(moving)[[0, -1]]
    t0, t1 = float(t[i0]), float(t[i1])
    split = t1 - cfg.holdout_fraction * (t1 - t0)
    fit = (t >= t0) & (t < split) if cfg.holdout_fraction > 0 else (t >= t0) & (t <= t1)
    val = (t >= split) & (t <= t1) if cfg.holdout_fraction > 0 else np.zeros_like(fit)
    return Prepared(t, q_f, qd, qdd, tau_f, fit, val, fs / k, (t0, t1), float(split), sign_f, coupling_sign)


def gate_mask(arm: SerialArm, qd: np.ndarray, v_gate: float) -> np.ndarray:
    """Rows (N, n) used by the fit: the joint (and any coupled motor driving it) faster than ``v_gate``."""
    mask = np.abs(qd) > v_gate
    for cp in arm.couplings:
        vm = qd[:, list(cp.joints)] @ np.asarray(cp.coefficients)
        for j in cp.joints:
            mask[:, j] &= np.abs(vm) > v_gate
    return mask


def _param(bp: BaseParameters, values: np.ndarray, name: str) -> float | None:
    for k, n in enumerate(bp.names):
        if n in (name, name + "R"):
            return float(values[k])
    return None


def base_regressor(arm: SerialArm, data: Prepared, bp: BaseParameters) -> np.ndarray:
    """Base regressor (N, n, r) of prepared data, with the parallel-filtered Coulomb columns (step 1)."""
    Yfull = arm.regressor(data.q, data.qd, data.qdd)
    names = list(arm.param_names)
    if data.sign_f is not None:
        for j in range(arm.n):
            if f"fs{j + 1}" in names:
                Yfull[:, j, names.index(f"fs{j + 1}")] = data.sign_f[:, j]
        for cp in arm.couplings:
            if data.coupling_sign_f and cp.name in data.coupling_sign_f:
                for jk, ck in zip(cp.joints, cp.coefficients):
                    Yfull[:, jk, names.index(f"fsm{cp.name}")] = ck * data.coupling_sign_f[cp.name]
    return bp.columns(Yfull)


def predict(arm: SerialArm, data: Prepared, bp: BaseParameters, result: dict[str, Any]) -> np.ndarray:
    """Joint torques (N, n) [N m] predicted by a result's base parameters on prepared data."""
    beta = np.array([result["base_parameters"][n] for n in bp.names])
    return base_regressor(arm, data, bp) @ beta


def identify(arm: SerialArm, data: Prepared, cfg: IdentificationConfig, bp: BaseParameters | None = None,
             payload_run: tuple[Prepared, Any] | None = None) -> dict[str, Any]:
    """Steps 3-6: the result dictionary (JSON-ready; see :func:`identify_recording`).

    With ``payload_run = (prepared payload run, KnownPayload)``, ``data.tau`` and the payload
    run's ``tau`` are motor currents [A] and the drive gains are identified with the base
    parameters (:mod:`paperlib.estimation.drive_gains`); the result's ``drive_gains`` holds them
    and its torques are ``C(i) k``.
    """
    if bp is None:
        bp = arm.base_parameters(n_states=cfg.base_states, seed=0, tol=cfg.base_tol)
    Y = base_regressor(arm, data, bp)  # (N, n, r)
    mask = gate_mask(arm, data.qd, cfg.v_gate) & data.fit[:, None]
    joint = np.broadcast_to(np.arange(arm.n), mask.shape)[mask]
    missing = [j + 1 for j in range(arm.n) if not np.any(joint == j)]
    if missing:
        raise ValueError(f"joints {missing} never pass the velocity gate {cfg.v_gate} rad/s in the fit part: "
                         "lower --v-gate, or record motion of those joints")
    extra: dict[str, Any] = {}
    names = list(bp.names)
    if payload_run is None:
        A, b = Y[mask], data.tau[mask]
        ls = LinearLeastSquares("ols" if cfg.method == "ols" else "wls", names).fit(A, b, joint)
        beta, std = ls.theta_, ls.std_
    else:
        from paperlib.estimation import drive_gains as dg
        from paperlib.estimation.serial_inputs import current_columns, gear_matrix

        if cfg.method == "sdp":
            raise ValueError("--method sdp with drive gains identified from a payload run is not supported: "
                             "use --method wls (or give the gains with --drive-gains)")
        pdata, payload = payload_run
        R = None if cfg.gain_side == "joint" else gear_matrix(arm)
        pmask = gate_mask(arm, pdata.qd, cfg.v_gate) & pdata.fit[:, None]
        runs = [dg.GainRun(Y, data.tau, mask),
                dg.GainRun(base_regressor(arm, pdata, bp), pdata.tau, pmask,
                           dg.payload_torque(arm, pdata.q, pdata.qd, pdata.qdd, payload))]
        beta, std, k, k_std, ls = dg.fit_gains(runs, R, bp.names, cfg.method)
        A, b = Y[mask], None  # for the condition number of the inertial part below
        data.tau = current_columns(data.tau, R) @ k
        extra["drive_gains"] = {"values": k.tolist(), "std": k_std.tolist(), "side": cfg.gain_side,
                                "units": "N m per A" + (" (motor side: joint torques = R^T diag(K) i)" if R is not None
                                                       else " (joint side: tau_j = K_j i_j)"),
                                "from": "identified with the base parameters from the payload run "
                                        "(paperlib.estimation.drive_gains: Gauss-Newton on i = (Y beta + p) / K)",
                                "payload": payload.to_dict(),
                                "payload_rows_used": int(pmask.sum()),
                                "sigma_current_A": ls.sigma_.tolist()}
        extra["sigma_joint_units"] = "A (drive gains identified: the fit is in current space)"
    if cfg.method == "sdp":
        from paperlib.estimation.physical import PhysicalLeastSquares

        sdp = PhysicalLeastSquares(arm.param_names, arm.n, bp.K, arm.nominal_params())
        sdp.fit(A, b, weights=1.0 / ls.sigma_[joint])
        beta = sdp.beta_
        extra["sdp"] = {"status": sdp.status_, "min_pseudo_inertia_eigenvalue": sdp.min_eig_.tolist(),
                        "full_parameters": dict(zip(arm.param_names, sdp.pi_.tolist())),
                        "std_from": "the WLS fit (the SDP gives no covariance)"}
    pred = Y @ beta
    err = data.tau - pred
    rms_val = np.sqrt(np.mean(err[data.val] ** 2, axis=0)) if data.val.any() else np.full(arm.n, np.nan)
    rms_meas_val = np.sqrt(np.mean(data.tau[data.val] ** 2, axis=0)) if data.val.any() else np.full(arm.n, np.nan)
    if not data.val.any():
        extra["rms_validation_reason"] = ("no held-out samples (holdout fraction 0): see 'validation' for other runs "
                                          "(--validate RUN.nc)")
    rms_fit = np.sqrt(np.mean(err[data.fit] ** 2, axis=0))
    As = A / np.where(np.linalg.norm(A, axis=0) > 0, np.linalg.norm(A, axis=0), 1.0)
    sv = np.linalg.svd(As, compute_uv=False)
    coupling = {}
    for cp in arm.couplings:
        for kind in ("Iam", "fvm", "fsm"):
            v = _param(bp, beta, f"{kind}{cp.name}")
            if v is not None:
                coupling[f"{kind}{cp.name}"] = v
    with np.errstate(divide="ignore"):
        rel = np.where(beta != 0, 100.0 * std / np.abs(beta), np.inf)
    fv = [_param(bp, beta, f"fv{j + 1}") for j in range(arm.n)]
    # the coefficient of qd_j in joint j's own row, a coupled motor's direct part included
    # (the convention of Gautier et al. and of FIGAROH / BIRDy: for coupled joints 5, 6, fv5 + fvm6, fv6 + fvm6)
    fv_total = list(fv)
    for cp in arm.couplings:
        fvm = _param(bp, beta, f"fvm{cp.name}")
        for jk, ck in zip(cp.joints, cp.coefficients):
            if fv_total[jk] is not None and fvm is not None:
                fv_total[jk] = fv_total[jk] + ck * ck * fvm
    return {
        "robot": arm.name,
        "method": cfg.method,
        "fv": fv,
        "fv_total": fv_total,
        "fs": [_param(bp, beta, f"fs{j + 1}") for j in range(arm.n)],
        "offset": [_param(bp, beta, f"off{j + 1}") for j in range(arm.n)],
        "Ia": [_param(bp, beta, f"Ia{j + 1}") for j in range(arm.n)],
        "coupling": coupling,
        "base_parameters": dict(zip(bp.names, map(float, beta))),
        "std": dict(zip(bp.names, map(float, std))),
        "rel_std_percent": dict(zip(bp.names, map(float, rel))),
        "relations": bp.relations(),
        "rms_validation": rms_val.tolist(),
        "rms_validation_relative": (rms_val / rms_meas_val).tolist(),
        "rms_fit": rms_fit.tolist(),
        "sigma_joint": ls.sigma_.tolist(),
        "condition_number": float(ls.cond_),
        "condition_number_scaled": float(sv[0] / sv[-1]),
        "n_base": bp.n_base,
        "samples_used": int(mask.any(axis=1).sum()),
        "rows_used": int(mask.sum()),
        "samples_validation": int(data.val.sum()),
        "motion_span_s": list(data.motion_span_s),
        "holdout_from_s": data.split_s,
        "config": asdict(cfg),
        "conventions": ("fv_j: viscous friction of joint j alone; a coupled motor's own friction is in 'coupling' "
                        "(fvm acts on every joint it drives, with the motor's speed); fv_total_j = fv_j + c_j^2 fvm: "
                        "the whole coefficient of qd_j in joint j's row"),
        "units": "SI, joint side: fv [N m s/rad], fs and offset [N m], Ia and Iam [kg m^2], rms [N m]",
        **extra,
    }


def _robot_gains(arm: SerialArm) -> tuple[tuple[float, ...] | None, str | None]:
    """Drive gains of the robot file (``[drive] torque_constants_n_m_per_a``, ``torque_constant_side``)."""
    drive = arm.drive or {}
    if "torque_constants_n_m_per_a" not in drive:
        return None, None
    return tuple(float(x) for x in drive["torque_constants_n_m_per_a"]), str(drive.get("torque_constant_side", "joint"))


def prepare_recording(ds: Any, arm: SerialArm, cfg: IdentificationConfig, name: str = "<recording>",
                      gains: tuple[float, ...] | None = None) -> tuple[Prepared, dict[str, str]]:
    """Step 0-2 on a read recording: the torque source, kinematics and rates resolved, then :func:`prepare`.

    ``cfg`` must have its cut-off and decimation resolved (:func:`identify_recording` does).
    With ``torque = current`` and ``gains = None`` the prepared ``tau`` holds the filtered currents.
    Returns the prepared data and the choices made (name -> reason).
    """
    from paperlib.estimation.serial_inputs import channel_torque, kinematics_source, torque_source
    from paperlib.recordings import RecordingError

    source, why_torque = torque_source(ds, cfg.torque)
    n = ds.sizes["joint"]
    if n != arm.n:
        raise RecordingError(f"{name}: {n} joints, but robot {arm.name!r} has {arm.n} ({', '.join(arm.joint_names)}): "
                             "give the robot of this recording (--robot; for a URDF, --base-link / --tip-link)")
    kin, why_kin = kinematics_source(ds, cfg.kinematics)
    if source == "current" and gains is None:
        effort = np.asarray(ds["current"].values, dtype=np.float64)
    else:
        effort = channel_torque(ds, source, arm, gains, cfg.gain_side)
    fs = float(ds.attrs["sample_rate_hz"])
    qd = ds["qd"].values if kin == "measured" else None
    t_logged = ds["time_logged"].values if "time_logged" in ds.variables else None
    data = prepare(ds["time"].values, ds["q"].values, effort, fs, cfg, arm, qd=qd, t_logged=t_logged)
    side = ds[source].attrs.get("side")
    if source == "tau_m" and side == "motor":
        why_torque += "; motor side, referred to the joints by the gear ratios (tau = R^T tau_motor)"
    return data, {"torque": why_torque, "kinematics": why_kin}


def identify_recording(path: str | Path, robot: str | SerialArm, cfg: IdentificationConfig,
                       bp: BaseParameters | None = None, *, payload_run: str | Path | None = None,
                       payload: Any = None, base_link: str | None = None,
                       tip_link: str | None = None) -> tuple[dict[str, Any], Prepared]:
    """Read a recording, identify, and return (results, prepared data).

    Parameters
    ----------
    path : path-like
        The recording (schema 2).
    robot : str or SerialArm
        Robot name, URDF / TOML path, or the arm itself.
    cfg : IdentificationConfig
        Unset cut-off and decimation are chosen from this recording; the result's ``config``
        holds the values used and ``choices`` the reasons.
    payload_run, payload : optional
        A second recording with a known payload (:class:`paperlib.estimation.drive_gains.KnownPayload`)
        fixed to the last link: the drive gains of ``current`` are then identified.

    base_link, tip_link : str, optional
        Pick the chain when ``robot`` is a URDF (:meth:`SerialArm.from_urdf`).

    The results carry the recording's ``source`` (hardware | twin) and file name.
    """
    from dataclasses import replace

    from paperlib.estimation.serial_inputs import choose_rates, torque_source
    from paperlib.recordings import read_recording

    ds = read_recording(path)
    name = str(path)
    arm = robot if isinstance(robot, SerialArm) else SerialArm.named(robot, base_link=base_link, tip_link=tip_link)
    fs = float(ds.attrs["sample_rate_hz"])
    cutoff, k, why_rates = choose_rates(ds["q"].values, fs, cfg.cutoff_hz, cfg.decimate)
    cfg = replace(cfg, cutoff_hz=cutoff, decimate=k)
    source, why_torque = torque_source(ds, cfg.torque)
    cfg = replace(cfg, torque=source)
    gains, gains_from = None, None
    if source == "current":
        if cfg.drive_gains is not None:
            gains, gains_from = cfg.drive_gains, "given (--drive-gains)"
        elif payload_run is None:
            gains, side = _robot_gains(arm)
            if gains is not None:
                cfg = replace(cfg, gain_side=side)
                gains_from = f"robot file of {arm.name!r} ([drive] torque_constants_n_m_per_a)"
        if gains is None and payload_run is None:
            raise ValueError("torque from 'current' needs drive gains: give --drive-gains K1,..,Kn [N m per A] "
                             "(--gain-side joint|motor), add [drive] torque_constants_n_m_per_a to the robot file, or "
                             "identify them with --payload-run RUN.nc --payload MASS_KG,CX,CY,CZ")
    elif payload_run is not None:
        raise ValueError(f"--payload-run identifies drive gains, but the torque comes from {source!r}, not 'current': "
                         "give --torque current (the file must have a current channel), or leave --payload-run out")
    if payload_run is not None and payload is None:
        raise ValueError("--payload-run needs the payload: --payload MASS_KG,CX,CY,CZ[,IXX,IXY,IXZ,IYY,IYZ,IZZ] or FILE.toml")
    data, choices = prepare_recording(ds, arm, cfg, name, gains)
    choices["torque"] = why_torque + choices["torque"].split("(--torque)", 1)[-1]
    choices["rates"] = why_rates
    prun = None
    if payload_run is not None:
        pds = read_recording(payload_run)
        pcfg = _rates_for(cfg, float(pds.attrs["sample_rate_hz"]))
        pdata, _ = prepare_recording(pds, arm, pcfg, str(payload_run), None)
        prun = (pdata, payload)
    res = identify(arm, data, cfg, bp, payload_run=prun)
    if gains is not None:
        res["drive_gains"] = {"values": list(gains), "side": cfg.gain_side, "from": gains_from,
                              "units": "N m per A"}
    if prun is not None:
        res["drive_gains"]["payload_run"] = Path(payload_run).name
    res["choices"] = choices
    res["source"] = str(ds.attrs.get("source"))
    res["recording"] = Path(path).name
    for key in ("origin", "licence"):
        if key in ds.attrs:
            res[f"recording_{key}"] = str(ds.attrs[key])
    return res, data


def _rates_for(cfg: IdentificationConfig, fs: float) -> IdentificationConfig:
    """The configuration for another run: the same cut-off, the decimation for that run's rate."""
    from dataclasses import replace

    from paperlib.estimation.serial_inputs import choose_rates

    _, k, _ = choose_rates(np.zeros((0, 1)), fs, cfg.cutoff_hz, None)
    return replace(cfg, decimate=k)


def validate_runs(paths: Sequence[str | Path], arm: SerialArm, result: dict[str, Any], cfg: IdentificationConfig,
                  bp: BaseParameters) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Predict other runs' torques with an identified model (step 6 on other recordings).

    Each run is filtered and decimated as the identification run was (same cut-off, the
    decimation for its own rate, no hold-out), its torques measured as the identification's
    were (identified drive gains included), and compared over its motion span.

    Returns
    -------
    summaries : list of dict
        Per run: ``recording``, ``source``, ``rms`` per joint [N m], ``rms_relative`` (RMS of the
        error over RMS of the measured torque), ``rms_measured`` [N m], ``samples``.
    traces : list of dict
        Per run: ``recording``, ``source``, ``t`` (M,), ``measured`` and ``predicted`` (M, n) for a figure.
    """
    from dataclasses import replace

    from paperlib.recordings import read_recording

    gains = result.get("drive_gains", {}).get("values")
    summaries, traces = [], []
    for p in paths:
        ds = read_recording(p)
        rcfg = replace(_rates_for(cfg, float(ds.attrs["sample_rate_hz"])), holdout_fraction=0.0)
        data, _ = prepare_recording(ds, arm, rcfg, str(p), tuple(gains) if gains is not None else None)
        pred = predict(arm, data, bp, result)
        sel = data.fit
        err = data.tau[sel] - pred[sel]
        rms = np.sqrt(np.mean(err ** 2, axis=0))
        rms_meas = np.sqrt(np.mean(data.tau[sel] ** 2, axis=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = rms / rms_meas
        summaries.append({"recording": Path(p).name, "source": str(ds.attrs.get("source")), "rms": rms.tolist(),
                          "rms_relative": rel.tolist(), "rms_measured": rms_meas.tolist(), "samples": int(sel.sum()),
                          "motion_span_s": list(data.motion_span_s)})
        traces.append({"recording": Path(p).name, "source": str(ds.attrs.get("source")), "t": data.t[sel],
                       "measured": data.tau[sel], "predicted": pred[sel]})
    return summaries, traces


def json_safe(obj: Any, path: str = "", reasons: dict[str, str] | None = None) -> Any:
    """A copy of ``obj`` with every NaN / infinity replaced by ``None``; ``reasons[path]`` says why.

    A non-finite relative standard deviation means a parameter estimated as exactly zero; any
    other non-finite number is reported as "not computed".
    """
    if reasons is None:
        reasons = {}
    if isinstance(obj, dict):
        return {k: json_safe(v, f"{path}.{k}" if path else str(k), reasons) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v, f"{path}[{i}]", reasons) for i, v in enumerate(obj)]
    if isinstance(obj, (float, np.floating)) and not np.isfinite(obj):
        top = path.split(".")[0].split("[")[0]
        reasons[top] = ("a parameter estimated as exactly 0 has no relative standard deviation" if top == "rel_std_percent"
                        else "no samples to compute it from" if top.startswith("rms") else "not finite: not computed")
        return None
    return obj


def finalise(result: dict[str, Any]) -> dict[str, Any]:
    """:func:`json_safe` of a result, the reasons for its ``null`` values under ``null_reasons``."""
    reasons: dict[str, str] = {}
    out = json_safe(result, reasons=reasons)
    if reasons:
        out["null_reasons"] = reasons
    return out
