"""Replay a recording through the regressor and the EWR-RLS estimator (offline identification).

The rows are the same as in the real-time step (:mod:`paperlib.control.controllers`):
``Y = [-D_m^T diag(tau_m), Y_F(q, qd)]``, ``R = Q_I(q, qd, qdd)``, from the measured
channels (encoder ``q``, gyroscope ``qd``, accelerometer ``qdd``, drive torque ``tau_m``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np
import xarray as xr

from paperlib.estimation.ewrls import EWRLS, RunHistory
from paperlib.friction import FrictionModel, regressor_row, table4_model
from paperlib.kernels import five_bar as K

#: Offline convergence criterion of :func:`converged_time` (stated in every result).
CONVERGENCE_CRITERION = (
    "first time after which every pi_pds stays within {tol_pds:.0%} of its final value and every "
    "identified friction curve, evaluated at 8 velocities up to the largest |qd| visited, stays "
    "within {tol_f:.0%} of its final peak"
)


@nb.njit(cache=True)
def _rows(Q, QD, QDD, TAU, prm, cols, Y, R, status):  # pragma: no cover - compiled
    n = Q.shape[1]
    Q_I = np.empty(n)
    D_m = np.empty((n, n))
    D_psi = np.empty((K.N_PSI, n))
    psid = np.empty(K.N_PSI)
    for i in range(Q.shape[0]):
        s = K.row_terms(Q[i], QD[i], QDD[i], prm, Q_I, D_m, D_psi, psid)
        status[i] = s
        if s == 0:
            regressor_row(Q_I, D_m, TAU[i], D_psi, psid, cols, Y[i], R[i])
        else:
            for a in range(Y.shape[1]):
                R[i, a] = 0.0
                for b in range(Y.shape[2]):
                    Y[i, a, b] = 0.0


def regressor_rows(robot, model: FrictionModel, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                   tau_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-joint rows Y (N, n, n_pi) and right-hand sides R (N, n) of eq. 13 for every sample.

    Raises
    ------
    ValueError
        If a sample lies outside the workspace or at a singularity (naming the first).
    """
    arrs = [np.ascontiguousarray(a, dtype=np.float64) for a in (q, qd, qdd, tau_m)]
    N, n = arrs[0].shape
    n_pi = n + model.n_params
    Y = np.empty((N, n, n_pi))
    R = np.empty((N, n))
    status = np.empty(N, dtype=np.int64)
    _rows(*arrs, robot.params, model.columns(), Y, R, status)
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
        Offline convergence time (NaN if never), see :data:`CONVERGENCE_CRITERION`.
    criterion : str
    v_max : float
        Largest |qd| visited [rad/s].
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


def friction_curves(model: FrictionModel, theta_F: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Identified friction torque (..., n_joints_F, len(v)) at velocities v [rad/s]."""
    theta_F = np.atleast_2d(theta_F)
    v = np.asarray(v, dtype=float)
    cols = model.columns()
    joints = sorted(set(int(j) for j in cols[:, 0]))
    out = np.zeros(theta_F.shape[:1] + (len(joints), len(v)))
    # all history rows at once, column by column in the model's order: the same sums as
    # FrictionModel.torque per row (bit for bit), without a Python call per row
    for c in range(len(cols)):
        unit = np.zeros(len(cols))
        unit[c] = 1.0
        a = joints.index(int(cols[c][0]))
        out[:, a, :] += theta_F[:, c, None] * model.torque(unit, v, joint=int(cols[c][0]) + 1)[None, :]
    return out


def converged_time(t: np.ndarray, theta: np.ndarray, model: FrictionModel, n_drives: int, v_max: float,
                   tol_pds: float = 0.01, tol_f: float = 0.05) -> float:
    """Offline convergence time of an estimate history (see :data:`CONVERGENCE_CRITERION`)."""
    if len(t) == 0:
        return float("nan")
    final = theta[-1]
    ok_pds = np.all(np.abs(theta[:, :n_drives] - final[:n_drives]) <= tol_pds * np.abs(final[:n_drives]), axis=1)
    v = np.linspace(v_max / 8, v_max, 8)
    curves = friction_curves(model, theta[:, n_drives:], v)
    final_c = curves[-1]
    peak = np.maximum(np.abs(final_c).max(axis=1), 1e-12)
    ok_f = np.all(np.abs(curves - final_c) <= tol_f * peak[None, :, None], axis=(1, 2))
    ok = ok_pds & ok_f
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return float(t[0])
    if bad[-1] == len(t) - 1:
        return float("nan")
    return float(t[bad[-1] + 1])


#: The channels :func:`replay` reads (the IMU's velocities and accelerations, the drive torque).
REPLAY_CHANNELS: tuple[str, ...] = ("q", "qd", "qdd", "tau_m")


def replay(ds: xr.Dataset, model: int | FrictionModel = 3, *, half_life_s: float = 600.0, lambda_reg: float = 1e-3,
           gate_velocity: float = 0.1, gate_acceleration: float = 0.2, gate_all_joints: bool = True,
           per_joint_rows: bool = False,
           record_every_s: float = 0.01, robot=None, pi0: np.ndarray | None = None,
           imu_delay_cycles: int | None = None) -> ReplayResult:
    """Run the EWR-RLS estimator over a recording (schema 2 or 1, channels :data:`REPLAY_CHANNELS`).

    Parameters
    ----------
    ds : xarray.Dataset
        A validated recording.
    model : int or FrictionModel
        Table 4 model number or a friction model.
    half_life_s, lambda_reg, gate_velocity, gate_acceleration : float
        Estimator settings (paper: 600 s, 0.001; gates are our choice).
    gate_all_joints : bool
        Use a sample only when every joint slides, ``min_j |qd_j| > gate_velocity`` (default; the
        acceleration gate is then unused), as the real-time step's ``gate_all_joints``. False: the
        paper's rule, ``any |qd_j| > gate_velocity or any |qdd_j| > gate_acceleration``.
    per_joint_rows : bool
        Per-joint rows instead of the paper's summed row.
    record_every_s : float
        History spacing [s].
    robot : FiveBar, optional
        Known model; default from ``ds.attrs["robot"]``.
    pi0 : ndarray, optional
        Initial estimate (default pi_pds = 1, pi_F = 0).
    imu_delay_cycles : int, optional
        Samples by which the IMU channels (qd, qdd) lag the encoder and the drive torque; the
        rows pair each IMU sample with ``q`` and ``tau_m`` that many samples earlier, as the
        real-time step does. Default: the recording's ``controller_config.imu_delay_cycles``
        (0 if absent).

    Raises
    ------
    ValueError
        Too few informative samples (fewer than parameters), or states outside the workspace.
    """
    from paperlib import robots
    from paperlib.recordings import require_channels

    require_channels(ds, REPLAY_CHANNELS, analysis="EWR-RLS identification")
    fm = model if isinstance(model, FrictionModel) else table4_model(model)
    robot = robot or robots.load(ds.attrs["robot"])
    q, qd, qdd, tau = (ds[v].values for v in ("q", "qd", "qdd", "tau_m"))
    if imu_delay_cycles is None:
        imu_delay_cycles = recording_imu_delay(ds)
    d = int(imu_delay_cycles)
    if d < 0 or d >= len(q) // 2:
        raise ValueError(f"imu_delay_cycles = {d} is out of range for {len(q)} samples")
    if d:
        q, tau = q[:-d], tau[:-d]
        qd, qdd = qd[d:], qdd[d:]
    n = q.shape[1]
    fs = float(ds.attrs["sample_rate_hz"])
    Y, R = regressor_rows(robot, fm, q, qd, qdd, tau)
    n_pi = n + fm.n_params
    if pi0 is None:
        pi0 = np.concatenate([np.ones(n), np.zeros(fm.n_params)])
    est = EWRLS(n_pi, pi0=pi0, lam=lambda_reg, t_half=half_life_s, ts=1.0 / fs,
                v_gate=gate_velocity, a_gate=gate_acceleration)
    if gate_all_joints:
        gate_qd = np.abs(qd).min(axis=1, keepdims=True)
        gate_qdd = np.zeros_like(gate_qd)
    else:
        gate_qd, gate_qdd = qd, qdd
    informative = np.any((np.abs(gate_qd) > gate_velocity) | (np.abs(gate_qdd) > gate_acceleration), axis=1)
    if informative.sum() < n_pi:
        raise ValueError(f"too few informative samples: {int(informative.sum())} samples exceed the gates "
                         f"(|qd| > {gate_velocity} rad/s or |qdd| > {gate_acceleration} rad/s^2); "
                         f"model {fm.name or fm} needs at least {n_pi}")
    rows = (Y, R) if per_joint_rows else (Y.sum(axis=1), R.sum(axis=1))
    hist = est.run(*rows, gate_qd, gate_qdd, record_every=max(1, int(round(record_every_s * fs))))
    v_max = float(np.abs(qd).max())
    conv = converged_time(hist.t, hist.theta, fm, n, v_max)
    crit = CONVERGENCE_CRITERION.format(tol_pds=0.01, tol_f=0.05)
    names = [f"pi_pds,{j + 1}" for j in range(n)] + fm.param_names()
    return ReplayResult(model=fm, param_names=names, estimator=est, history=hist, t0=float(ds.time.values[d]),
                        converged_s=conv, criterion=crit, v_max=v_max, n_drives=n, extra={"imu_delay_cycles": d})


def recording_imu_delay(ds: xr.Dataset) -> int:
    """The IMU delay (control cycles) the recording's controller used, 0 if it does not say."""
    import json

    try:
        cfg = json.loads(ds.attrs.get("config", "{}"))
        return int(cfg.get("controller_config", {}).get("imu_delay_cycles", 0))
    except (ValueError, TypeError, AttributeError):
        return 0
