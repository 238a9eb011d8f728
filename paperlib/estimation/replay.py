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


def regressor_rows(robot, model: FrictionModel, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                   tau_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-joint rows Y (N, n, n_pi) and right-hand sides R (N, n) for every sample.

    Raises
    ------
    ValueError
        If a sample lies outside the workspace or at a singularity (naming the first).
    """
    ks = robot.kernels
    arrs = [np.ascontiguousarray(a, dtype=np.float64) for a in (q, qd, qdd, tau_m)]
    N, n = arrs[0].shape
    n_pi = ks.n_drives + ks.n_inertial + model.n_params
    Y = np.empty((N, n, n_pi))
    R = np.empty((N, n))
    status = np.empty(N, dtype=np.int64)
    work = (np.empty(n), np.empty((ks.n_drives, n)), np.empty((ks.n_ups, n)), np.empty(ks.n_ups),
            np.empty((n, ks.n_inertial)))
    _rows(ks.kid, *arrs, robot.params, model.columns(), Y, R, status, *work)
    bad = np.flatnonzero(status)
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"sample {k} (q = {arrs[0][k].tolist()} rad) is outside the workspace or singular; "
                         f"{bad.size} such samples")
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
    from paperlib import robots
    from paperlib.recordings import require_channels

    require_channels(ds, REPLAY_CHANNELS, analysis="EWR-RLS identification")
    unknown = sorted(set(settings) - set(_LEGACY))
    if unknown:
        raise ValueError(f"replay: unknown setting(s) {unknown}")
    cfg = (config or EstimatorConfig()).replace(**settings)
    if model is not None:
        cfg = cfg.replace(model=model)
    fm = cfg.friction_model
    robot = robot or robots.load(ds.attrs["robot"])
    ks = robot.kernels
    q, qd, qdd, tau = (ds[v].values for v in ("q", "qd", "qdd", "tau_m"))
    if imu_delay_cycles is None:
        imu_delay_cycles = recording_imu_delay(ds)
    d = int(imu_delay_cycles)
    if d < 0 or d >= len(q) // 2:
        raise ValueError(f"imu_delay_cycles = {d} is out of range for {len(q)} samples")
    cfg = cfg.replace(imu_delay_cycles=d)
    if d:
        q, tau = q[:-d], tau[:-d]
        qd, qdd = qd[d:], qdd[d:]
    fs = float(ds.attrs["sample_rate_hz"])
    Y, R = regressor_rows(robot, fm, q, qd, qdd, tau)
    n_drv, n_i = ks.n_drives, ks.n_inertial
    n_pi = n_drv + n_i + fm.n_params
    if pi0 is None:
        pi0 = np.concatenate([np.ones(n_drv) if cfg.pi_pds0 is None else np.asarray(cfg.pi_pds0),
                              np.zeros(n_i) if cfg.pi_I0 is None else np.asarray(cfg.pi_I0),
                              np.zeros(fm.n_params) if cfg.pi_F0 is None else np.asarray(cfg.pi_F0)])
    est = EWRLS.from_config(cfg, n_pi, 1.0 / fs, pi0=pi0)
    gate_qd, gate_qdd = gate_arrays(qd, qdd, cfg.gate_all_joints)
    inf_mask = informative(qd, qdd, cfg.gate_velocity, cfg.gate_acceleration, cfg.gate_all_joints)
    n_inf = int(inf_mask.sum())
    if n_inf < n_pi:
        raise ValueError(f"too few informative samples: {n_inf} samples exceed the gates "
                         f"(|qd| > {cfg.gate_velocity} rad/s or |qdd| > {cfg.gate_acceleration} rad/s^2); "
                         f"model {fm.name or fm} needs at least {n_pi}")
    rows = (Y, R) if cfg.per_joint_rows else (Y.sum(axis=1), R.sum(axis=1))
    hist = est.run(*rows, gate_qd, gate_qdd, record_every=max(1, int(round(record_every_s * fs))))
    v_max = float(np.abs(qd).max())
    settled = settled_time(hist.t, hist.theta, fm, n_drv + n_i, v_max)
    conv = window_converged_time(hist.t, hist.theta, fm, n_drv + n_i, cfg.convergence)
    names = ([f"pi_pds,{j + 1}" for j in range(n_drv)] + [f"pi_I,{nm}" for nm in ks.inertial_names]
             + fm.param_names())
    extra = {"imu_delay_cycles": d}
    if keep_rows:
        extra["rows"] = (Y.sum(axis=1), R.sum(axis=1), inf_mask)
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
