"""PD, CTC and AC control with online EWR-RLS identification, for any robot (eqs. 13-23).

The compiled step is :func:`paperlib.control.step.control_step` (its docstring states the
cycle: guard, identify from the column blocks drive gains | inertial | friction, control,
convergence). This module holds the settings (:class:`ControllerConfig`), the status names
(:class:`StepStatus`) and :class:`Controller`, which owns the step's preallocated state: two
buffers whose named views and packed call are generated from one table
(:mod:`paperlib.control.step_arrays`). The robot's kernels are the robot's own
(``robot.kernels``, :mod:`paperlib.robots.kernel_sets`): nothing here knows a particular robot.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperlib.control import step as _s
from paperlib.control._step_call import control_step_packed
from paperlib.control.step import (  # noqa: F401  (re-exported: the step's constants)
    C_CONVERGED_T, C_NEXT_CHECK, F_A_GATE, F_BETA, F_CONV_T_MIN, F_CONV_TOL_F, F_CONV_TOL_PDS,
    F_CONV_V_MAX, F_CONV_WINDOW, F_FLOOR_C, F_V_GATE, I_CLOSED, I_DELAY, I_ESTIMATE, I_GATE_ALL, I_HOLD, I_KERNEL,
    I_N_DRIVES, I_N_INERTIAL, I_PDS_OUT, I_PER_JOINT, I_REQUESTED, N_FCFG, N_IFLAGS, N_REF_V, PART_DYNAMIC,
    PART_FEEDBACK, PART_FRICTION, PDS_BAND_HIGH, PDS_BAND_LOW, RING, SW_DYNAMIC, SW_FRICTION, SW_PDS, control_step,
)
from paperlib.control.step_arrays import INDEX, MEAS_ROWS, SIZES, STEP_ARRAYS
from paperlib.estimation.config import EstimatorConfig
from paperlib.estimation.ewrls import floor_coefficient, forgetting_factor

#: The paper's three controllers as the switches they close (b and c only after convergence).
CONTROLLER_SWITCHES: dict[str, int] = {
    "PD": SW_PDS,
    "CTC": SW_DYNAMIC | SW_PDS,
    "AC": SW_DYNAMIC | SW_FRICTION | SW_PDS,
    "OPEN": 0,  # feedback only, no rescaling: for identification experiments
}


class StepStatus(enum.IntEnum):
    """What one control step did (the compiled step returns these values)."""

    UPDATED = _s.ST_UPDATED            #: estimate updated
    GATED = _s.ST_GATED                #: sample gated out (not informative)
    REJECTED = _s.ST_REJECTED          #: estimator rejected the row (non-finite or broken update)
    KERNEL_ERROR = _s.ST_KERNEL_ERROR  #: the measured state is outside the model's domain
    ESTIMATION_OFF = _s.ST_ESTIMATION_OFF  #: no estimator
    SETPOINT_INVALID = _s.ST_SETPOINT_INVALID  #: fault: the feed-forward needs the model at an invalid setpoint
    HELD = _s.ST_HELD                  #: estimator held back by the caller
    NONFINITE = _s.ST_NONFINITE        #: fault: a non-finite input or command (zero torque)

    @property
    def is_fault(self) -> bool:
        """True for the statuses whose torque output is zero: stop the run."""
        return self in (StepStatus.SETPOINT_INVALID, StepStatus.NONFINITE)

    def describe(self) -> str:
        return {
            StepStatus.SETPOINT_INVALID: "control step fault: the setpoint is outside the model's domain (zero torque)",
            StepStatus.NONFINITE: "control step fault: non-finite measurement, setpoint or command (zero torque)",
        }.get(self, self.name.lower())


class ControlFault(RuntimeError):
    """The control step returned a fault status (zero torque): the run must stop safely."""

    def __init__(self, status: StepStatus, detail: str = "") -> None:
        self.status = StepStatus(status)
        super().__init__(self.status.describe() + (f": {detail}" if detail else ""))


def nonfinite_channels(values: dict[str, np.ndarray]) -> str:
    """Name the non-finite entries of a cycle's inputs, e.g. ``"qd[1] = nan"`` (1-based joints)."""
    out = []
    for name, arr in values.items():
        a = np.atleast_1d(np.asarray(arr, dtype=float))
        for j in np.flatnonzero(~np.isfinite(a)):
            out.append(f"{name}[{int(j) + 1}] = {a[j]}")
    return ", ".join(out) or "the command"


#: Status of a cycle whose update was held back (:meth:`Controller.hold_estimation`).
EST_HELD = int(StepStatus.HELD)
#: Rows of :attr:`Controller.meas` (``M_Q`` ...), from the table.
M_Q, M_QD, M_QDD, M_TAU, M_Q_SP, M_QD_SP, M_QDD_SP = range(len(MEAS_ROWS))
globals().update({f"A_{name.upper()}": k for name, k in INDEX.items()})


@dataclass(frozen=True)
class ControllerConfig(EstimatorConfig):
    """Controller settings: the estimator's (:class:`paperlib.estimation.config.EstimatorConfig`,
    every field of which it has) plus the controller.

    Attributes
    ----------
    name : str
        "PD", "CTC", "AC" or "OPEN".
    estimate : bool
        Run the estimator (switches b and c need it).
    extra : dict
        Free-form notes carried along (not used by the step).
    """

    name: str = "AC"
    estimate: bool = True
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_estimator(cls, name: str, estimator: EstimatorConfig, *, estimate: bool = True) -> "ControllerConfig":
        """The controller ``name`` with every setting of ``estimator``."""
        return cls(name=name, estimate=estimate,
                   **{f.name: getattr(estimator, f.name) for f in dataclasses.fields(EstimatorConfig)})

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "name": self.name, "estimate": self.estimate}


class Controller:
    """Preallocated state of the control step for one robot and configuration.

    All float state lives in one buffer ``fbuf`` and all integer state in ``ibuf``; the
    attributes (``theta``, ``P``, ``gains``...: every name of
    :data:`paperlib.control.step_arrays.STEP_ARRAYS`) are numpy views into them, so the compiled
    step sees and updates the same memory. :meth:`step` is the hardware loop's entry: write the
    cycle's values into the rows of :attr:`meas` (``M_*``) and call it.

    Parameters
    ----------
    robot : object
        Known model: ``n_joints``, ``params`` (kernel parameters), ``kernels``
        (a :class:`paperlib.robots.kernel_sets.KernelSet`) and ``description`` (gains
        ``control.kp_Nm_per_rad`` / ``kd_Nm_s_per_rad`` per joint, ``drives.max_torque_Nm`` per drive).
    config : ControllerConfig
        Controller and estimator settings.
    sample_rate_hz : float
        Control rate [Hz] (the flagship paper: 4 kHz). Required: the estimator's forgetting factor
        depends on it.
    kp, kd : array_like, optional
        Feedback gains [N m/rad], [N m s/rad]; default from the robot description.
    """

    def __init__(self, robot: Any, config: ControllerConfig | None = None, sample_rate_hz: float | None = None,
                 kp: Any = None, kd: Any = None) -> None:
        cfg = config or ControllerConfig()
        if cfg.name not in CONTROLLER_SWITCHES:
            raise ValueError(f"unknown controller {cfg.name!r}; choose from {sorted(CONTROLLER_SWITCHES)}")
        if sample_rate_hz is None or not float(sample_rate_hz) > 0:
            raise ValueError(f"sample_rate_hz must be a positive control rate [Hz], got {sample_rate_hz!r}")
        self.robot = robot
        self.config = cfg
        self.sample_rate_hz = float(sample_rate_hz)
        ks = robot.kernels
        n = robot.n_joints
        if ks.n_joints != n:
            raise ValueError(f"robot has {n} joints but its kernel set {ks.name!r} has {ks.n_joints}")
        desc = robot.description
        fm = cfg.friction_model
        self.friction_model = fm
        self.kernel_set = ks
        cols = fm.columns()
        fm.require_joints(ks.n_ups, ks.name)
        n_drv, n_i = ks.n_drives, ks.n_inertial
        if n_drv < n:
            raise ValueError(f"{ks.name!r}: fewer drives ({n_drv}) than degrees of freedom ({n}) is not supported")
        n_pi = n_drv + n_i + fm.n_params
        self.n_params = n_pi
        self.n_drives = n_drv
        self.n_inertial = n_i
        self.param_names = ([f"pi_pds,{j + 1}" for j in range(n_drv)] + [f"pi_I,{nm}" for nm in ks.inertial_names]
                            + fm.param_names())
        n_curves = len(set(int(j) for j in cols[:, 0])) * N_REF_V
        sizes = {"n": n, "nd": n_drv, "npi": n_pi, "nf": len(cols), "nups": ks.n_ups, "ni": n_i,
                 "nprm": len(robot.params), "nconv": 2 + n_pi + n_curves}
        env = dict(sizes, nmax=max(n, n_drv), N_FCFG=N_FCFG, N_IFLAGS=N_IFLAGS, RING=RING)
        shapes = {name: tuple(eval(shape, {}, env)) for name, _, shape, _ in STEP_ARRAYS}  # table expressions
        offsets: list[int] = []
        ends = {"f": 0, "i": 0}
        for name, buf, _, _ in STEP_ARRAYS:
            size = int(np.prod(shapes[name]))
            offsets += [ends[buf], ends[buf] + size]
            ends[buf] += size
        self.fbuf = np.zeros(ends["f"])
        self.ibuf = np.zeros(ends["i"], dtype=np.int64)
        self.lay = np.array([sizes[s] for s, _ in SIZES] + offsets, dtype=np.int64)
        for k, (name, buf, _, _) in enumerate(STEP_ARRAYS):
            b = self.fbuf if buf == "f" else self.ibuf
            setattr(self, name, b[offsets[2 * k]:offsets[2 * k + 1]].reshape(shapes[name]))
        self.meas = np.zeros((len(MEAS_ROWS), max(n, n_drv)))

        self.prm[:] = robot.params
        self.cols[:] = cols
        self.gains[0] = desc["control"]["kp_Nm_per_rad"] if kp is None else kp
        self.gains[1] = desc["control"]["kd_Nm_s_per_rad"] if kd is None else kd
        self.tau_max[:] = desc["drives"]["max_torque_Nm"]
        beta = forgetting_factor(cfg.half_life_s, 1.0 / self.sample_rate_hz)
        self.fcfg[F_V_GATE] = cfg.gate_velocity
        self.fcfg[F_A_GATE] = cfg.gate_acceleration
        self.fcfg[F_BETA] = beta
        self.fcfg[F_FLOOR_C] = floor_coefficient(n_pi, beta, cfg.lambda_reg)
        self.fcfg[F_CONV_WINDOW] = cfg.conv_window_s
        self.fcfg[F_CONV_TOL_PDS] = cfg.conv_tol_pds
        self.fcfg[F_CONV_TOL_F] = cfg.conv_tol_friction
        self.fcfg[F_CONV_T_MIN] = cfg.conv_t_min_s
        self.fcfg[F_CONV_V_MAX] = cfg.conv_v_max
        self.iflags[I_REQUESTED] = CONTROLLER_SWITCHES[cfg.name]
        self.iflags[I_ESTIMATE] = int(cfg.estimate)
        self.iflags[I_PER_JOINT] = int(cfg.per_joint_rows)
        self.iflags[I_GATE_ALL] = int(cfg.gate_all_joints)
        self.iflags[I_N_DRIVES] = n_drv
        self.iflags[I_N_INERTIAL] = n_i
        self.iflags[I_KERNEL] = ks.kid
        if not 0 <= cfg.imu_delay_cycles < RING:
            raise ValueError(f"imu_delay_cycles must be in [0, {RING - 1}], got {cfg.imu_delay_cycles}")
        self.iflags[I_DELAY] = int(cfg.imu_delay_cycles)
        self.pi0[:n_drv] = 1.0 if cfg.pi_pds0 is None else np.asarray(cfg.pi_pds0, float)
        if cfg.pi_I0 is not None:
            self.pi0[n_drv:n_drv + n_i] = np.asarray(cfg.pi_I0, float)
        if cfg.pi_F0 is not None:
            self.pi0[n_drv + n_i:] = np.asarray(cfg.pi_F0, float)
        self.theta[:] = self.pi0
        if cfg.P0 is None:
            self.P[:] = np.eye(n_pi) / cfg.lambda_reg
        else:
            P0 = np.asarray(cfg.P0, dtype=float)
            if P0.size != n_pi * n_pi or not np.all(np.isfinite(P0)):
                raise ValueError(f"P0 must hold {n_pi}x{n_pi} finite values, got {P0.size}")
            P0 = P0.reshape(n_pi, n_pi)
            self.P[:] = 0.5 * (P0 + P0.T)
        self.conv[C_NEXT_CHECK] = cfg.conv_window_s
        self.conv[C_CONVERGED_T] = np.nan
        if cfg.closed_from_start:
            if cfg.pi_pds0 is None or cfg.P0 is None:
                raise ValueError("closed_from_start needs a warm start: pi_pds0, pi_F0 and P0 from a previous run")
            self.iflags[I_CLOSED] = self.iflags[I_REQUESTED]
            self.conv[C_CONVERGED_T] = 0.0
        self.conv[2:2 + n_pi] = self.theta
        self.last_status = 0

    # -- state views ---------------------------------------------------------------------------
    @property
    def pi_pds(self) -> np.ndarray:
        """Drive-gain estimates (n_drives,)."""
        return self.theta[: self.n_drives].copy()

    @property
    def pi_I(self) -> np.ndarray:
        """Inertial-parameter estimates (n_inertial,), names ``robot.kernels.inertial_names``."""
        return self.theta[self.n_drives:self.n_drives + self.n_inertial].copy()

    @property
    def pi_F(self) -> np.ndarray:
        """Friction-coefficient estimates (n_F,), order of ``friction_model.columns()``."""
        return self.theta[self.n_drives + self.n_inertial:].copy()

    @property
    def switches_closed(self) -> bool:
        """True once the convergence criterion closed the requested switches."""
        return bool(self.iflags[I_CLOSED] == self.iflags[I_REQUESTED])

    @property
    def converged_s(self) -> float:
        """Time [s] at which the online criterion held (NaN before)."""
        return float(self.conv[C_CONVERGED_T])

    @property
    def pds_out_of_band_cycles(self) -> int:
        """Cycles in which a drive-gain estimate lay outside ``(PDS_BAND_LOW, PDS_BAND_HIGH]``
        while rescaling (c) was closed: that drive's command was then not rescaled (flagged)."""
        return int(self.iflags[I_PDS_OUT])

    @property
    def status(self) -> StepStatus:
        """Status of the last :meth:`step`."""
        return StepStatus(self.last_status)

    def arrays(self) -> tuple:
        """The step's arrays in argument order after the setpoints (compiled callers; ``A_*`` index it)."""
        return tuple(getattr(self, name) for name, _, _, _ in STEP_ARRAYS)

    def hold_estimation(self, cycles: int) -> None:
        """Skip the estimator update for the next ``cycles`` steps (at least; holds do not add up).

        For a caller that knows the samples are out of step: a late or catch-up cycle, a lost
        EtherCAT frame (encoder and torque held from an older cycle), a stale IMU sample. A row
        pairs the IMU sample with the encoder and torque of ``imu_delay_cycles`` before, so a
        fault taints the rows of the next ``imu_delay_cycles`` steps too: hold at least that
        long plus the IMU sample period. The control output is not affected.
        """
        if cycles > self.iflags[I_HOLD]:
            self.iflags[I_HOLD] = int(cycles)

    def step(self, t: float) -> np.ndarray:
        """One cycle from Python on the values in :attr:`meas`; returns ``tau_tgt`` [N m] (a view).

        The status is in :attr:`last_status` (an int, :class:`StepStatus` value).
        """
        self.last_status = control_step_packed(t, self.meas, self.fbuf, self.ibuf, self.lay)
        return self.tau_tgt

    def fault(self) -> ControlFault | None:
        """The :class:`ControlFault` of the last step (naming the non-finite inputs), or None."""
        st = StepStatus(self.last_status)
        if not st.is_fault:
            return None
        detail = ""
        if st is StepStatus.NONFINITE:
            n, nd = self.robot.n_joints, self.n_drives
            detail = nonfinite_channels({name: self.meas[r, :(nd if name == "tau" else n)]
                                         for r, (name, _, _) in enumerate(MEAS_ROWS)})
        return ControlFault(st, detail)
