"""Identify a serial arm's base and friction parameters from a recording (IDIM, batch).

The pipeline, each step stated in the result's ``config``:

1. **Filtering and decimation.** Encoder angles are low-passed by a zero-phase Butterworth
   filter and differentiated (:func:`paperlib.signals.zero_phase_derivatives`); the torques pass
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
   WLS weights) whose standard deviations are reported from the WLS fit.
6. **Validation.** RMS of measured minus predicted torque per joint on the held-out motion.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import signal as _signal

from paperlib.cli_args import add_robot_arguments, output_file_in_new_dir
from paperlib.robots.base_parameters import BaseParameters
from paperlib.estimation.least_squares import LinearLeastSquares
from paperlib.robots.serial import SerialArm

__all__ = ["IdentificationConfig", "Prepared", "prepare", "base_regressor", "predict", "identify", "identify_recording",
           "add_parser"]


@dataclass(frozen=True)
class IdentificationConfig:
    """Settings of :func:`identify` (SI units).

    Attributes
    ----------
    method : {"ols", "wls", "sdp"}
    cutoff_hz : float
        Zero-phase Butterworth cut-off for angles and torques [Hz].
    filter_order : int
    decimate : int
        Keep every ``decimate``-th sample after filtering.
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
        Torque channel (``tau_m`` with ``side = joint``, or ``tau_s``).
    edge_periods : float
        Samples within ``edge_periods / cutoff_hz`` seconds of the file's ends are not used (the
        zero-phase filter's start-up transients).
    """

    method: str = "wls"
    cutoff_hz: float = 20.0
    filter_order: int = 4
    decimate: int = 10
    v_gate: float = 0.05
    motion_threshold: float = 0.05
    holdout_fraction: float = 0.2
    base_tol: float = 1e-6
    base_states: int = 200
    torque: str = "tau_m"
    edge_periods: float = 3.0

    def check(self, fs: float) -> None:
        if self.method not in ("ols", "wls", "sdp"):
            raise ValueError(f"method must be ols, wls or sdp; got {self.method!r}")
        if not 0.0 <= self.holdout_fraction < 1.0:
            raise ValueError(f"holdout fraction must be in [0, 1); got {self.holdout_fraction}")
        if self.decimate < 1:
            raise ValueError(f"decimate must be >= 1; got {self.decimate}")
        if not 0 < self.cutoff_hz < 0.5 * fs / self.decimate:
            raise ValueError(f"cut-off {self.cutoff_hz} Hz must lie below the decimated Nyquist frequency "
                             f"{0.5 * fs / self.decimate:g} Hz ({fs:g} Hz / {self.decimate} / 2)")


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


def prepare(t: np.ndarray, q: np.ndarray, tau: np.ndarray, fs: float, cfg: IdentificationConfig,
            arm: SerialArm | None = None) -> Prepared:
    """Steps 1-2 of the module docstring on arrays (N, n) (``arm`` for its coupled motors)."""
    from paperlib.signals import zero_phase_derivatives

    cfg.check(fs)
    q_f, qd, qdd = zero_phase_derivatives(q, fs, cfg.cutoff_hz, cfg.filter_order)
    sos = _signal.butter(int(cfg.filter_order), cfg.cutoff_hz, btype="low", fs=fs, output="sos")
    tau_f = _signal.sosfiltfilt(sos, np.asarray(tau, dtype=np.float64), axis=0)
    sign_f = _signal.sosfiltfilt(sos, np.sign(qd), axis=0)
    coupling_sign = {}
    for cp in (arm.couplings if arm is not None else ()):
        vm = qd[:, list(cp.joints)] @ np.asarray(cp.coefficients)
        coupling_sign[cp.name] = _signal.sosfiltfilt(sos, np.sign(vm))[:: cfg.decimate]
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


def identify(arm: SerialArm, data: Prepared, cfg: IdentificationConfig, bp: BaseParameters | None = None) -> dict[str, Any]:
    """Steps 3-6: the result dictionary (JSON-ready; see :func:`identify_recording`)."""
    if bp is None:
        bp = arm.base_parameters(n_states=cfg.base_states, seed=0, tol=cfg.base_tol)
    Y = base_regressor(arm, data, bp)  # (N, n, r)
    mask = gate_mask(arm, data.qd, cfg.v_gate) & data.fit[:, None]
    A, b = Y[mask], data.tau[mask]
    joint = np.broadcast_to(np.arange(arm.n), mask.shape)[mask]
    missing = [j + 1 for j in range(arm.n) if not np.any(joint == j)]
    if missing:
        raise ValueError(f"joints {missing} never pass the velocity gate {cfg.v_gate} rad/s in the fit part")
    ls = LinearLeastSquares("ols" if cfg.method == "ols" else "wls", bp.names).fit(A, b, joint)
    beta, std = ls.theta_, ls.std_
    extra: dict[str, Any] = {}
    if cfg.method == "sdp":
        from paperlib.estimation.physical import PhysicalLeastSquares

        sdp = PhysicalLeastSquares(arm.param_names, arm.n, bp.K, arm.nominal_params())
        sdp.fit(A, b, weights=1.0 / ls.sigma_[joint])
        beta = sdp.beta_
        extra = {"sdp": {"status": sdp.status_, "min_pseudo_inertia_eigenvalue": sdp.min_eig_.tolist(),
                         "full_parameters": dict(zip(arm.param_names, sdp.pi_.tolist())),
                         "std_from": "the WLS fit (the SDP gives no covariance)"}}
    pred = Y @ beta
    err = data.tau - pred
    rms_val = np.sqrt(np.mean(err[data.val] ** 2, axis=0)) if data.val.any() else np.full(arm.n, np.nan)
    rms_meas_val = np.sqrt(np.mean(data.tau[data.val] ** 2, axis=0)) if data.val.any() else np.full(arm.n, np.nan)
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


def identify_recording(path: str | Path, robot: str, cfg: IdentificationConfig,
                       bp: BaseParameters | None = None, *, base_link: str | None = None,
                       tip_link: str | None = None) -> tuple[dict[str, Any], Prepared]:
    """Read a recording, identify, and return (results, prepared data).

    The results carry the recording's ``source`` (hardware | twin) and file name. ``base_link``
    and ``tip_link`` pick the chain when ``robot`` is a URDF (:meth:`SerialArm.from_urdf`).
    """
    from paperlib.recordings import RecordingError, read_recording, require_channels

    ds = read_recording(path)
    require_channels(ds, ("q", cfg.torque), name=str(path), analysis="serial identification")
    side = ds[cfg.torque].attrs.get("side")
    if cfg.torque in ("tau_m", "tau_tgt") and side != "joint":
        raise RecordingError(f"{path}: channel {cfg.torque!r} is on the {side!r} side; identification needs joint-side torques")
    arm = SerialArm.named(robot, base_link=base_link, tip_link=tip_link)
    n = ds.sizes["joint"]
    if n != arm.n:
        raise RecordingError(f"{path}: {n} joints, but robot {arm.name!r} has {arm.n} ({', '.join(arm.joint_names)})")
    fs = float(ds.attrs["sample_rate_hz"])
    data = prepare(ds["time"].values, ds["q"].values, ds[cfg.torque].values, fs, cfg, arm)
    res = identify(arm, data, cfg, bp)
    res["source"] = str(ds.attrs.get("source"))
    res["recording"] = Path(path).name
    for key in ("origin", "licence"):
        if key in ds.attrs:
            res[f"recording_{key}"] = str(ds.attrs[key])
    return res, data


# ------------------------------------------------------------------------------ command line
def _run_identify(args: argparse.Namespace) -> int:
    from paperlib.recordings import RecordingError

    cfg = IdentificationConfig(method=args.method, cutoff_hz=args.cutoff_hz, decimate=args.decimate, v_gate=args.v_gate,
                               holdout_fraction=args.holdout_fraction)
    try:
        res, _ = identify_recording(args.recording, args.robot, cfg, base_link=args.base_link, tip_link=args.tip_link)
    except (RecordingError, ValueError, RuntimeError, OSError) as exc:
        print(f"paperlib serial identify: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(res, indent=2, allow_nan=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
        print(f"wrote {args.json}")
    else:
        print(text)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serial", help="serial arms: identification from a recording")
    ss = p.add_subparsers(dest="serial_command", metavar="SERIAL_COMMAND")
    ident = ss.add_parser("identify", help="identify base and friction parameters of a serial arm from a recording")
    ident.add_argument("recording", help="recording (.nc, schema 2) with q and joint-side torques")
    add_robot_arguments(ident, help="robot name (a file stem in data/robots/) or a URDF path")
    ident.add_argument("--method", choices=("ols", "wls", "sdp"), default="wls",
                       help="ordinary / per-joint weighted least squares, or physically consistent SDP (default wls)")
    ident.add_argument("--holdout-fraction", type=float, default=0.2,
                       help="share of the motion span (its end) held out for validation (default 0.2)")
    ident.add_argument("--cutoff-hz", type=float, default=20.0, help="zero-phase Butterworth cut-off [Hz] (default 20)")
    ident.add_argument("--decimate", type=int, default=10, help="keep every k-th sample after filtering (default 10)")
    ident.add_argument("--v-gate", type=float, default=0.05, help="per-row velocity gate [rad/s] (default 0.05)")
    ident.add_argument("--json", type=output_file_in_new_dir, help="write the results here instead of printing them")
    ident.set_defaults(func=_run_identify)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
