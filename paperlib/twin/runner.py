"""One closed-loop runner for any robot and any control rate: sense, control, actuate, plant, heat.

Each control cycle k (time ``t_k = k dt``, ``dt = 1 / rate``) runs exactly as a rig would:

1. **plant state** (:func:`paperlib.twin.plant.cycle_begin`): dynamics at the cycle's start and
   the acceleration the forces of the previous cycle produce there (what an IMU feels);
2. **sense**: encoder angle (quantized to ``enc_step``); joint rate and acceleration either from
   the IMU stream as the loop sees it (``SENSE_IMU``: the newest UDP packet of
   :mod:`paperlib.twin.imu`, converted with the *nominal* lever arm and the calibration rows) or
   ideal (``SENSE_IDEAL``: the plant's own rate and acceleration, ``origin = model``); the torque
   the drives report (``TORQUE_DRIVE``) or a joint torque sensor's reading of the actual drive
   torque at the joint (``TORQUE_SENSOR``);
3. **control**: :func:`paperlib.control.step.control_step` (the same compiled step the hardware
   loop calls). A fault status (non-finite input or command) stops the run safely: zero torque
   was commanded, the loop returns ``LOOP_CONTROL_FAULT - status`` and the cycle;
4. **actuate and plant** (:func:`~paperlib.twin.plant.cycle_forces`,
   :func:`~paperlib.twin.plant.cycle_finish`): each drive's current loop over the cycle,
   ``Q_m = D_drive^T tau_actual``, LuGre friction of every friction joint at the cycle's start
   (bristles advanced with the exact frozen-velocity update, stable at any step), the forces
   held over one RK4 step (so the work they do is exactly ``Q . dq``: motor work and friction
   dissipation are accumulated, and kinetic energy balances them to RK4 accuracy), and the
   gearboxes heat with their joints' friction power.

Everything the loop touches is passed in (:class:`LoopArrays` builds it), so a run can go in
chunks (progress bar) and the same compiled loop serves every robot's twin.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperlib._jit import rt_njit
from paperlib.control import controllers as ctl
from paperlib.control.step import ST_NONFINITE, ST_SETPOINT_INVALID
from paperlib.estimation.imu_calibration import imu_to_joint
from paperlib.twin import drives as dr
from paperlib.twin import imu as im
from paperlib.twin import thermal as th
from paperlib.twin.plant import EN_FRICTION, EN_MOTOR, cycle_begin, cycle_finish, cycle_forces, cycle_scratch
from paperlib.twin.guard import twin_run

SENSE_IDEAL, SENSE_IMU = 0, 1
TORQUE_DRIVE, TORQUE_SENSOR = 0, 1
#: Loop status of a control-step fault: LOOP_CONTROL_FAULT - step status (kernel statuses are small > 0).
LOOP_CONTROL_FAULT = 100
# diagnostics columns (per logged sample)
DG_EKIN, DG_WMOTOR, DG_WFRICTION = range(3)
N_DIAG = 3
#: rows of the logged measurement block ``log_f`` and of the truth block ``log_truth``
LOG_ROWS = ("q", "qd", "qdd", "tau_m", "tau_tgt", "temperature")
TRUTH_ROWS = ("q_true", "qd_true", "qdd_true", "tau_m_true", "tau_F_true", "Q_F_true")


@rt_njit
def closed_loop(k_begin, k_end, kid, dt, q, qd, z, phi, Qa, tau_rep, prm, q_sp, qd_sp, qdd_sp,
                fric, fric_scale_t, fric_scale, therm_disc, therm_x, T_amb,
                drv, drv_state, D_drive, sense_mode, torque_mode,
                imu_p, link_p, imu_state, imu_keys, lever_nominal, imu_conv, enc_step,
                ctl_arrays, inject_k, inject_j,
                decim, log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth,
                M, h, D_psi, psid, psid0, Tj, F, QF, Qm, k1v, qdd_true, work, dq, tau_act, energy,
                meas, imu_out):  # pragma: no cover - compiled
    """Closed-loop cycles ``k_begin .. k_end - 1``; returns (status, k_stop). See the module docstring."""
    n = q.shape[0]
    n_drv = tau_rep.shape[0]
    theta = ctl_arrays[ctl.A_THETA]
    n_pi = theta.shape[0]
    parts = ctl_arrays[ctl.A_PARTS]
    tau_tgt = ctl_arrays[ctl.A_TAU_TGT]
    n_gear = therm_x.shape[0]
    for k in range(k_begin, k_end):
        t = k * dt
        # -- plant state at the cycle's start ----------------------------------------------------
        s = cycle_begin(kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd_true, work)
        if s != 0:
            return s, k
        # -- 1. sense ---------------------------------------------------------------------
        if sense_mode == SENSE_IMU:
            im.imu_stream_step(imu_state, imu_keys, imu_p, link_p, t, qd, qdd_true, imu_out)
        for j in range(n):
            meas[ctl.M_Q, j] = math.floor(q[j] / enc_step[j] + 0.5) * enc_step[j]
            if sense_mode == SENSE_IMU:
                w, a = imu_to_joint(imu_out[j, im.OUT_GZ], imu_out[j, im.OUT_AY], lever_nominal[j], imu_conv[j])
            else:
                w, a = qd[j], qdd_true[j]
            meas[ctl.M_QD, j] = w
            meas[ctl.M_QDD, j] = a
            meas[ctl.M_Q_SP, j] = q_sp[k, j]
            meas[ctl.M_QD_SP, j] = qd_sp[k, j]
            meas[ctl.M_QDD_SP, j] = qdd_sp[k, j]
        for d in range(n_drv):
            if torque_mode == TORQUE_SENSOR:
                meas[ctl.M_TAU, d] = dr.joint_torque(tau_act[d], drv[d])
            else:
                meas[ctl.M_TAU, d] = tau_rep[d]
        if k == inject_k:  # fault injection (tests): one non-finite rate sample
            meas[ctl.M_QD, inject_j] = math.nan
        # -- 2. control ----------------------------------------------------------------------
        cs = ctl.control_step(t, meas[0, :n], meas[1, :n], meas[2, :n], meas[3, :n_drv], meas[4, :n], meas[5, :n],
                              meas[6, :n], *ctl_arrays)
        if cs == ST_NONFINITE or cs == ST_SETPOINT_INVALID:  # safe stop: zero torque was commanded
            return LOOP_CONTROL_FAULT - cs, k
        # -- 3. drives, friction at the cycle's start, forces held over the cycle -------------------
        scale = fric_scale if t >= fric_scale_t else 1.0
        cycle_forces(tau_tgt, drv, drv_state, D_drive, tau_act, tau_rep, Qm, scale, z, phi, therm_x, T_amb, fric, dt,
                     D_psi, psid, psid0, Tj, F, QF, Qa, M, h, k1v, work)
        # -- log (state at the cycle's start; forces held over this cycle) ---------------------
        if k % decim == 0:
            r = k // decim
            for j in range(n):
                log_f[r, 0, j] = meas[ctl.M_Q, j]
                log_f[r, 1, j] = meas[ctl.M_QD, j]
                log_f[r, 2, j] = meas[ctl.M_QDD, j]
                log_f[r, 5, j] = th.case_temperature(therm_x[j]) if j < n_gear else math.nan
                log_truth[r, 0, j] = q[j]
                log_truth[r, 1, j] = qd[j]
                log_truth[r, 2, j] = k1v[j]
                log_truth[r, 4, j] = -D_psi[j, j] * F[j] if j < D_psi.shape[0] else 0.0
                log_truth[r, 5, j] = QF[j]
            for d in range(n_drv):
                log_f[r, 3, d] = meas[ctl.M_TAU, d]
                log_f[r, 4, d] = tau_tgt[d]
                log_truth[r, 3, d] = tau_act[d]
                for c in range(3):
                    log_parts[r, c, d] = parts[c, d]
            if sense_mode == SENSE_IMU:
                for j in range(n):
                    for c in range(3):
                        log_imu_raw[r, c, j] = imu_out[j, im.OUT_RAW + c]
            for c in range(n_pi):
                log_pi[r, c] = theta[c]
            ek = 0.0
            for i in range(n):
                mi = 0.0
                for j in range(n):
                    mi += M[i, j] * qd[j]
                ek += qd[i] * mi
            log_diag[r, DG_EKIN] = 0.5 * ek
            log_diag[r, DG_WMOTOR] = energy[EN_MOTOR]
            log_diag[r, DG_WFRICTION] = energy[EN_FRICTION]
        # -- 4. RK4 with the forces held, energy, heat ---------------------------------------------
        s = cycle_finish(kid, q, qd, Qa, Qm, QF, k1v, prm, dt, M, h, work, dq, energy, therm_x, F, psid0,
                         therm_disc, T_amb)
        if s != 0:
            return s, k
    return 0, k_end


@dataclass
class LoopArrays:
    """Everything :func:`closed_loop` touches, allocated once for one run.

    Build with :meth:`build`; :meth:`args` is the argument tuple after ``(k_begin, k_end)``.
    """

    values: dict[str, Any] = field(default_factory=dict)

    ORDER = ("kid", "dt", "q", "qd", "z", "phi", "Qa", "tau_rep", "prm", "q_sp", "qd_sp", "qdd_sp",
             "fric", "fric_scale_t", "fric_scale", "therm_disc", "therm_x", "T_amb",
             "drv", "drv_state", "D_drive", "sense_mode", "torque_mode",
             "imu_p", "link_p", "imu_state", "imu_keys", "lever_nominal", "imu_conv", "enc_step",
             "ctl_arrays", "inject_k", "inject_j",
             "decim", "log_f", "log_pi", "log_parts", "log_imu_raw", "log_diag", "log_truth",
             "M", "h", "D_psi", "psid", "psid0", "Tj", "F", "QF", "Qm", "k1v", "qdd", "work", "dq", "tau_act",
             "energy", "meas", "imu_out")

    @classmethod
    def build(cls, *, robot: Any, controller: ctl.Controller, q_sp: np.ndarray, qd_sp: np.ndarray,
              qdd_sp: np.ndarray, sample_rate_hz: float, fric: np.ndarray, therm_x: np.ndarray,
              therm_disc: np.ndarray, T_amb: float, drv: np.ndarray, D_drive: np.ndarray, enc_step: np.ndarray,
              decimate: int = 1, friction_step: tuple[float, float] | None = None,
              imu: dict[str, np.ndarray] | None = None, torque_sensor: bool = False,
              inject_nan_qd: tuple[float, int] | None = None) -> "LoopArrays":
        """Arrays for a run on the setpoints ``q_sp`` (N, n) ... at ``sample_rate_hz``.

        ``imu`` (keys ``imu_p, link_p, imu_state, imu_keys, lever_nominal, imu_conv``) selects
        ``SENSE_IMU``; without it the rates are ideal. ``torque_sensor`` selects ``TORQUE_SENSOR``.
        ``inject_nan_qd = (t_s, joint)`` (1-based) makes one rate sample NaN (tests).
        """
        ks = robot.kernels
        n, n_drv, n_ups = ks.n_joints, ks.n_drives, ks.n_ups
        N = q_sp.shape[0]
        decim = max(1, int(decimate))
        nl = (N + decim - 1) // decim
        inj_k, inj_j = -1, 0
        if inject_nan_qd is not None:
            inj_k, inj_j = int(round(float(inject_nan_qd[0]) * sample_rate_hz)), int(inject_nan_qd[1]) - 1
            if not (0 <= inj_j < n and 0 <= inj_k < N):
                raise ValueError(f"inject_nan_qd = {inject_nan_qd!r} is outside the run or the joints")
        fs_t, fs_k = (np.inf, 1.0) if friction_step is None else (float(friction_step[0]), float(friction_step[1]))
        if imu is None:
            imu = {"imu_p": np.zeros((n, 1)), "link_p": np.zeros(1), "imu_state": np.zeros(1),
                   "imu_keys": np.zeros(1, dtype=np.uint64), "lever_nominal": np.zeros(n),
                   "imu_conv": np.zeros((n, 1))}
            sense = SENSE_IDEAL
        else:
            sense = SENSE_IMU
        v: dict[str, Any] = {
            "kid": ks.kid, "dt": 1.0 / float(sample_rate_hz), "q": q_sp[0].copy(), "qd": qd_sp[0].copy(),
            "z": np.zeros(n_ups), "phi": np.zeros(n_ups), "Qa": np.zeros(n), "tau_rep": np.zeros(n_drv), "prm": np.ascontiguousarray(robot.params),
            "q_sp": q_sp, "qd_sp": qd_sp, "qdd_sp": qdd_sp, "fric": np.ascontiguousarray(fric), "fric_scale_t": fs_t,
            "fric_scale": fs_k, "therm_disc": np.ascontiguousarray(therm_disc), "therm_x": therm_x, "T_amb": float(T_amb),
            "drv": np.ascontiguousarray(drv), "drv_state": np.zeros((n_drv, dr.N_DRIVE_STATE)),
            "D_drive": np.ascontiguousarray(D_drive, dtype=float), "sense_mode": sense,
            "torque_mode": TORQUE_SENSOR if torque_sensor else TORQUE_DRIVE,
            **{k: np.ascontiguousarray(a) for k, a in imu.items()},
            "enc_step": np.ascontiguousarray(enc_step, dtype=float), "ctl_arrays": controller.arrays(),
            "inject_k": inj_k, "inject_j": inj_j, "decim": decim,
            "log_f": np.zeros((nl, len(LOG_ROWS), max(n, n_drv))), "log_pi": np.zeros((nl, controller.n_params)),
            "log_parts": np.zeros((nl, 3, n_drv)), "log_imu_raw": np.zeros((nl, 3, n)), "log_diag": np.zeros((nl, N_DIAG)),
            "log_truth": np.zeros((nl, len(TRUTH_ROWS), max(n, n_drv))),
            **cycle_scratch(n, n_drv, n_ups), "meas": np.zeros((len(ctl.MEAS_ROWS), max(n, n_drv))),
            "imu_out": np.zeros((n, im.N_OUT)),
        }
        return cls(v)

    def args(self) -> tuple:
        return tuple(self.values[k] for k in self.ORDER)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


#: Robot time per call of the compiled loop when a progress bar is shown [s].
CHUNK_S = 5.0


#: Open :func:`captured_runs` blocks (each a list the runs append to).
_CAPTURES: list[list[LoopArrays]] = []


@contextlib.contextmanager
def captured_runs() -> Iterator[list[LoopArrays]]:
    """Collect a copy of the arrays of every :func:`run` started inside the block, as each run began.

    For benchmarks and debugging of any robot's twin: the copies hold the run's initial state,
    setpoints and controller, so :func:`closed_loop` can be timed or stepped on them again.

    Examples
    --------
    >>> from paperlib.twin.robots import twin_module
    >>> with captured_runs() as runs:
    ...     _ = twin_module().simulate(controller="PD", duration_s=0.01, seed=1, imu_calibration="none")
    >>> runs[0]["q_sp"].shape
    (40, 2)
    """
    runs: list[LoopArrays] = []
    _CAPTURES.append(runs)
    try:
        yield runs
    finally:
        _CAPTURES.remove(runs)


@twin_run
def run(arrays: LoopArrays, *, progress: str | None = None, chunk_s: float | None = None) -> tuple[int, int]:
    """Run the whole setpoint grid; returns (status, k_stop). ``progress``: a tqdm label (chunks of ``chunk_s``)."""
    for runs in _CAPTURES:
        runs.append(LoopArrays(copy.deepcopy(arrays.values)))
    N = arrays["q_sp"].shape[0]
    dt = arrays["dt"]
    args = arrays.args()
    chunk = max(1, int(round((CHUNK_S if chunk_s is None else chunk_s) / dt)))
    if progress is None or N <= chunk:
        return closed_loop(0, N, *args)
    from tqdm import tqdm

    status, k_stop = 0, 0
    with tqdm(total=round(N * dt, 2), unit="s", desc=progress, leave=False) as bar:
        while k_stop < N and status == 0:
            status, k_new = closed_loop(k_stop, min(N, k_stop + chunk), *args)
            bar.update(round((k_new - k_stop) * dt, 2))
            k_stop = k_new
    return status, k_stop


def fault_message(arrays: LoopArrays, status: int, k_stop: int) -> str:
    """The recording's ``fault`` text for a loop stopped by a control-step fault."""
    step_status = ctl.StepStatus(LOOP_CONTROL_FAULT - status)
    meas = arrays["meas"]
    n = arrays["q"].shape[0]
    nd = arrays["tau_rep"].shape[0]
    detail = ctl.nonfinite_channels({name: meas[r, :(nd if name == "tau" else n)]
                                     for r, (name, _, _) in enumerate(ctl.MEAS_ROWS)})
    return (f"{step_status.describe()}: {detail} (cycle {k_stop}, t = {k_stop * arrays['dt']:.6f} s); "
            "safe stop: zero torque commanded, run ended")
