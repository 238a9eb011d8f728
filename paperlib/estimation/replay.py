"""Replay a recording through the regressor and the EWR-RLS estimator (offline identification).

The rows are the real-time step's (:func:`paperlib.control.step.assemble_row` on the robot's
kernel set): ``Y = [-D_m^T diag(tau) | Y_I | Y_F]``, ``R = Q_I + Q_G``, from the measured channels
(encoder ``q``, rate ``qd``, acceleration ``qdd``, drive torque ``tau_m``), gated by the one
predicate of :mod:`paperlib.estimation.gating`, with the settings of one
:class:`~paperlib.estimation.config.EstimatorConfig`. The result's ``converged_s`` is the window
criterion of :mod:`paperlib.estimation.convergence` applied to the history, the same rule the
step uses online; ``settled_s`` is the settling time (a different quantity, named so).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import xarray as xr

from paperlib._jit import rt_njit
from paperlib.estimation.config import EstimatorConfig
from paperlib.estimation.convergence import (  # noqa: F401  (friction_curves re-exported)
    SETTLING_RULE, friction_curves, settled_time, window_converged_time,
)
from paperlib.estimation.ewrls import EWRLS, RunHistory
from paperlib.estimation.gating import gate_arrays, informative
from paperlib.estimation.regressor import assemble_row
from paperlib.friction import FrictionModel
from paperlib.robots.kernel_sets import robot_terms

#: Offline settling criterion (kept under its old name for callers).
CONVERGENCE_CRITERION = SETTLING_RULE


@rt_njit
def _rows(kid, Q, QD, QDD, TAU, prm, cols, Y, R, status, Q_IG, D_m, D_ups, ups_d, Y_I):  # pragma: no cover - compiled
    for i in range(Q.shape[0]):
        s = robot_terms(kid, Q[i], QD[i], QDD[i], prm, Q_IG, D_m, D_ups, ups_d, Y_I)
        status[i] = s
        if s == 0:
            assemble_row(Q_IG, D_m, TAU[i], Y_I, D_ups, ups_d, cols, Y[i], R[i])
        else:
            for a in range(Y.shape[1]):
                R[i, a] = 0.0
                for b in range(Y.shape[2]):
                    Y[i, a, b] = 0.0


@rt_njit
def _summed_rows(kid, Q, QD, QDD, TAU, prm, cols, col_start, y_start, Y_flat, R, status, Q_IG, D_m, D_ups, ups_d,
                 Y_I, y, r):  # pragma: no cover - compiled
    """Summed rows of several friction models from one kernel evaluation per sample.

    Model ``m`` has the columns ``cols[col_start[m]:col_start[m + 1]]`` and its ``w = y_start[m + 1] -
    y_start[m]`` summed columns fill the C-ordered block (N, w) of ``Y_flat`` that starts at ``N *
    y_start[m]``; ``R`` (N,) is the summed right-hand side, which no friction model changes. Each sum
    adds the joints in order from 0.0, as ``ndarray.sum(axis=1)`` of the per-joint rows does, so the
    rows are those of :func:`_rows` summed, bit for bit.
    """
    n = Q.shape[1]
    N = Q.shape[0]
    for i in range(N):
        s = robot_terms(kid, Q[i], QD[i], QDD[i], prm, Q_IG, D_m, D_ups, ups_d, Y_I)
        status[i] = s
        R[i] = 0.0
        for m in range(col_start.shape[0] - 1):
            w = y_start[m + 1] - y_start[m]
            at = N * y_start[m] + i * w
            for c in range(w):
                Y_flat[at + c] = 0.0
            if s != 0:  # outside the workspace or singular: a zero row (the caller raises, naming the sample)
                continue
            assemble_row(Q_IG, D_m, TAU[i], Y_I, D_ups, ups_d, cols[col_start[m]:col_start[m + 1]], y, r)
            for c in range(w):
                for a in range(n):
                    Y_flat[at + c] += y[a, c]
        if s == 0:
            for a in range(n):
                R[i] += r[a]


def summed_regressor_rows(robot, models: Sequence[FrictionModel], q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                          tau_m: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Summed rows of several friction models over the same samples, the robot's kernel evaluated once per sample.

    Parameters
    ----------
    robot
        Known model (its kernel set and parameters).
    models : sequence of FrictionModel
        Friction models; their rows share every column but the friction block.
    q, qd, qdd : ndarray, shape (N, n)
        Joint angle [rad], rate [rad/s] and acceleration [rad/s^2].
    tau_m : ndarray, shape (N, n_drv)
        Drive torques [N m].

    Returns
    -------
    Y_sum : list of ndarray, shape (N, n_pi) each
        Per model, ``Y.sum(axis=1)`` of :func:`regressor_rows` (bit for bit).
    R_sum : ndarray, shape (N,)
        ``R.sum(axis=1)`` [N m], the same for every model.

    Raises
    ------
    ValueError
        If a sample lies outside the workspace or at a singularity (naming the first).
    """
    ks, arrs, work = _kernel_inputs(robot, q, qd, qdd, tau_m)
    for m in models:
        m.require_joints(ks.n_ups, ks.name)
    N, n = arrs[0].shape
    base = ks.n_drives + ks.n_inertial
    col_list = [m.columns() for m in models]
    cols = np.concatenate(col_list, axis=0)
    col_start = np.concatenate([[0], np.cumsum([len(c) for c in col_list])]).astype(np.int64)
    widths = [base + len(c) for c in col_list]
    y_start = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    Y_flat = np.empty(N * int(y_start[-1]))
    R = np.empty(N)
    status = np.empty(N, dtype=np.int64)
    work = (*work, np.empty((n, max(widths))), np.empty(n))
    _summed_rows(ks.kid, *arrs, robot.params, cols, col_start, y_start, Y_flat, R, status, *work)
    _raise_on_bad_samples(status, arrs[0])
    return [Y_flat[N * y_start[m]:N * y_start[m + 1]].reshape(N, widths[m]) for m in range(len(models))], R


def _kernel_inputs(robot, *channels: np.ndarray) -> tuple[object, list[np.ndarray], tuple[np.ndarray, ...]]:
    """The kernel set, the channels as contiguous float64 and the work arrays of one kernel evaluation."""
    ks = robot.kernels
    arrs = [np.ascontiguousarray(a, dtype=np.float64) for a in channels]
    n = arrs[0].shape[1]
    return ks, arrs, (np.empty(n), np.empty((ks.n_drives, n)), np.empty((ks.n_ups, n)), np.empty(ks.n_ups),
                      np.empty((n, ks.n_inertial)))


def _raise_on_bad_samples(status: np.ndarray, q: np.ndarray) -> None:
    bad = np.flatnonzero(status)
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"sample {k} (q = {q[k].tolist()} rad) is outside the workspace or singular; "
                         f"{bad.size} such samples")


def regressor_rows(robot, model: FrictionModel, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                   tau_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-joint rows Y (N, n, n_pi) and right-hand sides R (N, n) for every sample.

    Raises
    ------
    ValueError
        If a sample lies outside the workspace or at a singularity (naming the first).
    """
    ks, arrs, work = _kernel_inputs(robot, q, qd, qdd, tau_m)
    model.require_joints(ks.n_ups, ks.name)
    N, n = arrs[0].shape
    n_pi = ks.n_drives + ks.n_inertial + model.n_params
    Y = np.empty((N, n, n_pi))
    R = np.empty((N, n))
    status = np.empty(N, dtype=np.int64)
    _rows(ks.kid, *arrs, robot.params, model.columns(), Y, R, status, *work)
    _raise_on_bad_samples(status, arrs[0])
    return Y, R


@dataclass
class ReplayResult:
    """Outcome of :func:`replay`.

    Attributes
    ----------
    model : FrictionModel
    param_names : list of str
    estimator : EWRLS
        Final state (``theta``, ``P``, counters).
    history : RunHistory
        Estimate and rho_rms every ``record_every`` samples.
    t0 : float
        Recording time of the first sample [s] (history times are relative to it).
    converged_s : float
        Time at which the window criterion held (NaN if never), as online.
    criterion : str
        The window criterion with its numbers.
    v_max : float
        Largest |qd| visited [rad/s].
    settled_s : float
        Settling time (:data:`CONVERGENCE_CRITERION`), NaN if never.
    config : EstimatorConfig
        The settings used.
    """

    model: FrictionModel
    param_names: list[str]
    estimator: EWRLS
    history: RunHistory
    t0: float
    converged_s: float
    criterion: str
    v_max: float
    n_drives: int = 2
    settled_s: float = float("nan")
    config: EstimatorConfig = field(default_factory=EstimatorConfig)
    extra: dict = field(default_factory=dict)

    @property
    def pi_pds(self) -> np.ndarray:
        return self.estimator.theta[: self.n_drives].copy()

    @property
    def pi_F(self) -> np.ndarray:
        return self.estimator.theta[self.n_drives:].copy()

    def pi_F_by_joint(self) -> list[list[float]]:
        """Friction coefficients per friction joint, order 0 first (symmetric models)."""
        out: dict[int, list[float]] = {}
        for c, (j, _, _) in enumerate(self.model.columns()):
            out.setdefault(int(j), []).append(float(self.pi_F[c]))
        return [out[j] for j in sorted(out)]


def converged_time(t: np.ndarray, theta: np.ndarray, model: FrictionModel, n_drives: int, v_max: float,
                   tol_pds: float = 0.01, tol_f: float = 0.05) -> float:
    """The settling time of an estimate history (:func:`paperlib.estimation.convergence.settled_time`)."""
    return settled_time(t, theta, model, n_drives, v_max, tol_pds, tol_f)


#: The channels :func:`replay` reads (the IMU's velocities and accelerations, the drive torque).
REPLAY_CHANNELS: tuple[str, ...] = ("q", "qd", "qdd", "tau_m")

_LEGACY = ("half_life_s", "lambda_reg", "gate_velocity", "gate_acceleration", "gate_all_joints", "per_joint_rows")


def replay(ds: xr.Dataset, model: int | FrictionModel | None = None, *, config: EstimatorConfig | None = None,
           record_every_s: float = 0.01, robot=None, pi0: np.ndarray | None = None,
           imu_delay_cycles: int | None = None, keep_rows: bool = False, **settings) -> ReplayResult:
    """Run the EWR-RLS estimator over a recording (schema 2 or 1, channels :data:`REPLAY_CHANNELS`).

    Parameters
    ----------
    ds : xarray.Dataset
        A validated recording.
    model : int or FrictionModel, optional
        Friction model (overrides the configuration's; default 3 when neither gives one).
    config : EstimatorConfig, optional
        Every estimator setting (default: the paper's, with the keyword ``settings``).
    record_every_s : float
        History spacing [s].
    robot : optional
        Known model; default from ``ds.attrs["robot"]``.
    pi0 : ndarray, optional
        Initial estimate (default: the configuration's ``pi_pds0`` / ``pi_F0``, else 1 and 0).
    imu_delay_cycles : int, optional
        Samples by which the IMU channels (qd, qdd) lag the encoder and the drive torque; the
        rows pair each IMU sample with ``q`` and ``tau_m`` that many samples earlier, as the
        real-time step does. Default: the recording's ``controller_config.imu_delay_cycles``
        (0 if absent).
    keep_rows : bool
        Keep the summed rows ``Y_sum`` (N, n_pi), ``R_sum`` (N,) [N m] and the gating mask (N,)
        in ``extra["rows"]`` (for residual-based criteria and uncertainty,
        :mod:`paperlib.estimation.model_selection`, :mod:`paperlib.estimation.uncertainty`).
    **settings
        ``half_life_s``, ``lambda_reg``, ``gate_velocity``, ``gate_acceleration``,
        ``gate_all_joints``, ``per_joint_rows``: fields of the configuration, for short calls.

    Raises
    ------
    ValueError
        Too few informative samples (fewer than parameters), states outside the workspace, or
        an unknown setting.
    """
    return replay_models(ds, [model], config=config, record_every_s=record_every_s, robot=robot, pi0=pi0,
                         imu_delay_cycles=imu_delay_cycles, keep_rows=keep_rows, **settings)[0]


def replay_models(ds: xr.Dataset, models: Sequence[int | FrictionModel | None], *,
                  config: EstimatorConfig | None = None, record_every_s: float = 0.01, robot=None,
                  pi0: np.ndarray | None = None, imu_delay_cycles: int | None = None, keep_rows: bool = False,
                  **settings) -> list[ReplayResult]:
    """:func:`replay` of one recording with each of several friction models, the kernel evaluated once per sample.

    Every argument is :func:`replay`'s, with ``models`` (a sequence of what ``model`` takes) in the
    place of ``model``; ``pi0`` needs a single model. The results are :func:`replay`'s model by
    model, bit for bit; summed rows (the default) come from one pass over the samples for all models.

    Returns
    -------
    list of ReplayResult
        One per model, in the order given.
    """
    from paperlib import robots
    from paperlib.recordings import require_channels

    require_channels(ds, REPLAY_CHANNELS, analysis="EWR-RLS identification")
    unknown = sorted(set(settings) - set(_LEGACY))
    if unknown:
        raise ValueError(f"replay: unknown setting(s) {unknown}")
    if not len(models):
        raise ValueError("replay_models: no model given")
    if pi0 is not None and len(models) != 1:
        raise ValueError("replay_models: an initial estimate pi0 needs a single model")
    base_cfg = (config or EstimatorConfig()).replace(**settings)
    cfgs = [base_cfg if m is None else base_cfg.replace(model=m) for m in models]
    robot = robot or robots.load(ds.attrs["robot"])
    ks = robot.kernels
    q, qd, qdd, tau = (ds[v].values for v in ("q", "qd", "qdd", "tau_m"))
    if imu_delay_cycles is None:
        imu_delay_cycles = recording_imu_delay(ds)
    d = int(imu_delay_cycles)
    if d < 0 or d >= len(q) // 2:
        raise ValueError(f"imu_delay_cycles = {d} is out of range for {len(q)} samples")
    cfgs = [c.replace(imu_delay_cycles=d) for c in cfgs]
    if d:
        q, tau = q[:-d], tau[:-d]
        qd, qdd = qd[d:], qdd[d:]
    fs = float(ds.attrs["sample_rate_hz"])
    summed = [c for c in cfgs if not c.per_joint_rows]
    if summed:
        Y_sums, R_sum = summed_regressor_rows(robot, [c.friction_model for c in summed], q, qd, qdd, tau)
        Y_sums = iter(Y_sums)
    gates: dict[tuple, tuple] = {}  # the gating of the samples, shared by the configurations that gate alike
    results = []
    for cfg in cfgs:
        key = (cfg.gate_all_joints, cfg.gate_velocity, cfg.gate_acceleration)
        if key not in gates:
            gates[key] = (*gate_arrays(qd, qdd, cfg.gate_all_joints),
                          informative(qd, qdd, cfg.gate_velocity, cfg.gate_acceleration, cfg.gate_all_joints))
        fm = cfg.friction_model
        if cfg.per_joint_rows:
            Y, R = regressor_rows(robot, fm, q, qd, qdd, tau)
            rows, summed_rows = (Y, R), None
        else:
            rows = summed_rows = (next(Y_sums), R_sum)
        results.append(_run_estimator(ds, cfg, rows, summed_rows, gates[key], qd, d, fs, ks, pi0, record_every_s,
                                      keep_rows))
    return results


def _run_estimator(ds, cfg, rows, summed_rows, gating, qd, d, fs, ks, pi0, record_every_s,
                   keep_rows) -> ReplayResult:
    """The EWR-RLS run of :func:`replay_models` for one configuration over its rows."""
    fm = cfg.friction_model
    n_drv, n_i = ks.n_drives, ks.n_inertial
    n_pi = n_drv + n_i + fm.n_params
    if pi0 is None:
        pi0 = np.concatenate([np.ones(n_drv) if cfg.pi_pds0 is None else np.asarray(cfg.pi_pds0),
                              np.zeros(n_i) if cfg.pi_I0 is None else np.asarray(cfg.pi_I0),
                              np.zeros(fm.n_params) if cfg.pi_F0 is None else np.asarray(cfg.pi_F0)])
    est = EWRLS.from_config(cfg, n_pi, 1.0 / fs, pi0=pi0)
    gate_qd, gate_qdd, inf_mask = gating
    n_inf = int(inf_mask.sum())
    if n_inf < n_pi:
        raise ValueError(f"too few informative samples: {n_inf} samples exceed the gates "
                         f"(|qd| > {cfg.gate_velocity} rad/s or |qdd| > {cfg.gate_acceleration} rad/s^2); "
                         f"model {fm.name or fm} needs at least {n_pi}")
    hist = est.run(*rows, gate_qd, gate_qdd, record_every=max(1, int(round(record_every_s * fs))))
    v_max = float(np.abs(qd).max())
    settled = settled_time(hist.t, hist.theta, fm, n_drv + n_i, v_max)
    conv = window_converged_time(hist.t, hist.theta, fm, n_drv + n_i, cfg.convergence)
    names = ([f"pi_pds,{j + 1}" for j in range(n_drv)] + [f"pi_I,{nm}" for nm in ks.inertial_names]
             + fm.param_names())
    extra = {"imu_delay_cycles": d}
    if keep_rows:
        if summed_rows is None:
            summed_rows = (rows[0].sum(axis=1), rows[1].sum(axis=1))
        extra["rows"] = (*summed_rows, inf_mask)
    return ReplayResult(model=fm, param_names=names, estimator=est, history=hist, t0=float(ds.time.values[d]),
                        converged_s=conv, criterion=cfg.convergence.describe(), v_max=v_max, n_drives=n_drv + n_i,
                        settled_s=settled, config=cfg, extra=extra)


def recording_imu_delay(ds: xr.Dataset) -> int:
    """The IMU delay (control cycles) the recording's controller used, 0 if it does not say."""
    try:
        cfg = json.loads(ds.attrs.get("config", "{}"))
        return int(cfg.get("controller_config", {}).get("imu_delay_cycles", 0))
    except (ValueError, TypeError, AttributeError):
        return 0
