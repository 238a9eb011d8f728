"""PD, CTC and AC control with online EWR-RLS identification: one compiled step (eqs. 13-23).

Each control cycle (the twin's compiled loop and the hardware loop call the same
:func:`control_step`):

1. **Identify** from the measurements (encoder ``q``, gyroscope ``qd``, accelerometer
   ``qdd``, drive-reported torque ``tau_m``): the regressor row of eq. 13,
   ``Y = [-D_m^T diag(tau_m), Y_F(q, qd)]``, ``R = Q_I(q, qd, qdd)``, summed over the
   joints (``Y_sum``, ``R_sum``) or kept per joint, feeds one EWR-RLS update (eq. 14) with
   the paper's stiction gating. The IMU samples reach the loop ``delay`` cycles after the
   encoder's and the drive's (UDP latency, 1 kHz hold, the sensor's filter; the extended IMU
   calibration measures it): the row pairs each IMU sample with the encoder angle and the torque
   of ``delay`` cycles before, from a ring buffer. With ``delay = 0`` this is the paper's step.
2. **Control** (eqs. 15-18, 23) from the setpoints::

       tau_cmd = (a) tau_I,FF + (b) tau_F,FF + K_P (q_sp - q) + K_D (qd_sp - qd)
       tau_I,FF = -D_m^-T Q_I(q_sp, qd_sp, qdd_sp)          (Q_G = 0 for the 5R)
       tau_F,FF =  D_m^-T Y_F(q_sp, qd_sp) pi_F_hat
       tau_tgt  = (c) diag(pi_pds_hat)^-1 tau_cmd, clipped to the drive limits

   PD: (c); CTC: (a), (c); AC: (a), (b), (c) (the paper's definitions). K_P and K_D act on
   motor torques, as in eq. 15.
3. **Switches (b) and (c) close when the estimate has converged** (the paper: "initially
   open ... until a convergence criterion is satisfied"). Our criterion, checked at the
   end of every window of ``conv_window_s`` seconds once ``t >= conv_t_min_s``: over the
   last window, every ``pi_pds`` moved by less than ``conv_tol_pds`` (relative), and every
   identified friction curve, evaluated at ``N_REF_V`` velocities up to ``conv_v_max``,
   moved by less than ``conv_tol_friction`` of its peak. Once closed, they stay closed
   (latched), so a later friction change is followed by the estimate, not by re-opening.

All arrays are preallocated in :class:`Controller`; the compiled step allocates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperlib._jit import rt_njit
from paperlib.estimation.ewrls import ewrls_step, floor_coefficient, forgetting_factor
from paperlib.friction import FrictionModel, friction_regressor, regressor_row, shape_function, table4_model
from paperlib.kernels import five_bar as K

# switch bits
SW_DYNAMIC = 1   # (a) inertial (and gravitational) feed-forward
SW_FRICTION = 2  # (b) friction feed-forward from the estimate
SW_PDS = 4       # (c) drive-gain rescaling diag(pi_pds)^-1

#: The paper's three controllers as the switches they close (b and c only after convergence).
CONTROLLER_SWITCHES: dict[str, int] = {
    "PD": SW_PDS,
    "CTC": SW_DYNAMIC | SW_PDS,
    "AC": SW_DYNAMIC | SW_FRICTION | SW_PDS,
    "OPEN": 0,  # feedback only, no rescaling: for identification experiments
}

# float config layout
F_V_GATE, F_A_GATE, F_BETA, F_FLOOR_C, F_CONV_WINDOW, F_CONV_TOL_PDS, F_CONV_TOL_F, F_CONV_T_MIN, F_CONV_V_MAX = range(9)
N_FCFG = 9
# int flags layout
I_REQUESTED, I_CLOSED, I_ESTIMATE, I_PER_JOINT, I_N_DRIVES, I_DELAY, I_RING_POS, I_RING_FILL, I_GATE_ALL, I_HOLD = range(10)
N_IFLAGS = 10
#: Estimator status of a cycle whose update was held back (:meth:`Controller.hold_estimation`).
EST_HELD = -5
#: Ring of past encoder angles and drive torques, to pair each IMU sample with the encoder and
#: torque samples of the same age (the IMU stream arrives ``delay`` cycles late).
RING = 32
# convergence bookkeeping (float array): next check time, converged time, then snapshots
C_NEXT_CHECK, C_CONVERGED_T = 0, 1
N_REF_V = 8

# torque parts (rows of the parts output): dynamic FF, friction FF, feedback (motor side, N m)
PART_DYNAMIC, PART_FRICTION, PART_FEEDBACK = 0, 1, 2


@rt_njit
def _solve_transpose(A, b, work, out):  # pragma: no cover - compiled
    """out = A^-T b for a small square A (Gaussian elimination with partial pivoting)."""
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            work[i, j] = A[j, i]
        out[i] = b[i]
    for k in range(n):
        piv = k
        for i in range(k + 1, n):
            if abs(work[i, k]) > abs(work[piv, k]):
                piv = i
        if piv != k:
            for j in range(n):
                work[k, j], work[piv, j] = work[piv, j], work[k, j]
            out[k], out[piv] = out[piv], out[k]
        for i in range(k + 1, n):
            f = work[i, k] / work[k, k]
            for j in range(k, n):
                work[i, j] -= f * work[k, j]
            out[i] -= f * out[k]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for j in range(i + 1, n):
            s -= work[i, j] * out[j]
        out[i] = s / work[i, i]


@rt_njit
def _friction_curve(theta, cols, n_drv, joint, v):  # pragma: no cover - compiled
    """Identified friction torque of one relative joint at velocity v (resisting, N m)."""
    f = 0.0
    for c in range(cols.shape[0]):
        if cols[c, 0] == joint:
            f += theta[n_drv + c] * shape_function(v, cols[c, 1], cols[c, 2])
    return f


@rt_njit
def _check_convergence(t, theta, cols, fcfg, iflags, conv):  # pragma: no cover - compiled
    """Window-based convergence test; latches the requested switches closed when it holds."""
    if t < conv[C_NEXT_CHECK]:
        return
    n_drv = iflags[I_N_DRIVES]
    n = theta.shape[0]
    snap = conv[2:2 + n]
    curves = conv[2 + n:]
    ok = t >= fcfg[F_CONV_T_MIN]
    for d in range(n_drv):
        if abs(theta[d] - snap[d]) > fcfg[F_CONV_TOL_PDS] * abs(theta[d]):
            ok = False
    # friction curves at reference velocities, for each joint with friction columns
    k = 0
    for c in range(cols.shape[0]):
        j = cols[c, 0]
        first = True
        for c2 in range(c):
            if cols[c2, 0] == j:
                first = False
        if not first:
            continue
        peak = 1e-12
        for r in range(N_REF_V):
            v = fcfg[F_CONV_V_MAX] * (r + 1) / N_REF_V
            peak = max(peak, abs(_friction_curve(theta, cols, n_drv, j, v)))
        for r in range(N_REF_V):
            v = fcfg[F_CONV_V_MAX] * (r + 1) / N_REF_V
            f = _friction_curve(theta, cols, n_drv, j, v)
            if abs(f - curves[k]) > fcfg[F_CONV_TOL_F] * peak:
                ok = False
            curves[k] = f
            k += 1
    for i in range(n):
        snap[i] = theta[i]
    conv[C_NEXT_CHECK] = t + fcfg[F_CONV_WINDOW]
    if ok and iflags[I_CLOSED] != iflags[I_REQUESTED]:
        iflags[I_CLOSED] = iflags[I_REQUESTED]
        conv[C_CONVERGED_T] = t


@rt_njit
def control_step(t, q, qd, qdd, tau_m, q_sp, qd_sp, qdd_sp,
                 prm, cols, gains, fcfg, iflags, conv,
                 theta, P, pi0, g, counters, accum,
                 Q_I, D_m, D_psi, psid, Y, R, y_sum, r_sum, work, tmp, tmp2,
                 parts, tau_tgt, ring):  # pragma: no cover - compiled
    """One control cycle: identify, then compute the target torques (see module docstring).

    Parameters
    ----------
    t : float
        Time since start [s].
    q, qd, qdd : ndarray, shape (n,)
        Measured joint angle [rad], gyroscope rate [rad/s], accelerometer acceleration [rad/s^2].
    tau_m : ndarray, shape (n,)
        Drive-reported motor torques [N m].
    q_sp, qd_sp, qdd_sp : ndarray, shape (n,)
        Setpoints [rad, rad/s, rad/s^2].
    prm : ndarray
        Robot kernel parameters.
    cols : ndarray, shape (n_F, 3), int64
        Friction model columns (:meth:`FrictionModel.columns`).
    gains : ndarray, shape (3, n)
        Rows K_P [N m/rad], K_D [N m s/rad] (motor side), torque limit [N m].
    fcfg, iflags, conv : ndarray
        Configuration and convergence bookkeeping (layouts: module constants).
    theta, P, pi0, g, counters, accum : ndarray
        EWR-RLS state (see :func:`paperlib.estimation.ewrls.ewrls_step`).
    Q_I ... tmp2 : ndarray
        Work arrays.
    parts : ndarray, shape (3, n)
        Output: dynamic FF, friction FF and feedback parts of tau_cmd [N m].
    ring : ndarray, shape (RING, 2, n)
        Past encoder angles and drive torques (IMU delay alignment).
    tau_tgt : ndarray, shape (n,)
        Output: target torques sent to the drives [N m].

    Returns
    -------
    int
        Estimator status (1 updated, 0 gated out, -1 rejected, -2 kernel error at the
        measured state, -3 estimation off, -5 held back by the caller); the control output is valid in every case
        unless a feed-forward needs the model at an invalid setpoint (then ``tau_tgt`` is zero
        and -4 is returned).
    """
    n = q.shape[0]
    n_drv = iflags[I_N_DRIVES]
    est = -3
    # 1. identification from measurements, IMU sample paired with encoder/torque of its age
    pos = iflags[I_RING_POS]
    for i in range(n):
        ring[pos, 0, i] = q[i]
        ring[pos, 1, i] = tau_m[i]
    delay = iflags[I_DELAY]
    old = (pos - delay) % RING
    iflags[I_RING_POS] = (pos + 1) % RING
    if iflags[I_RING_FILL] <= delay:
        iflags[I_RING_FILL] += 1
    elif iflags[I_HOLD] > 0:  # the caller saw a timing or link fault in the samples of this row
        iflags[I_HOLD] -= 1
        if iflags[I_ESTIMATE] != 0:
            est = EST_HELD
    elif iflags[I_ESTIMATE] != 0:
        status = K.row_terms(ring[old, 0], qd, qdd, prm, Q_I, D_m, D_psi, psid)
        if status != 0:
            est = -2
        else:
            regressor_row(Q_I, D_m, ring[old, 1], D_psi, psid, cols, Y, R)
            # gating signals: every joint must slide (min |qd_j| > v_gate), or the paper's any-joint rule
            gv = qd
            ga = qdd
            if iflags[I_GATE_ALL] != 0:
                vmin = abs(qd[0])
                for i in range(1, n):
                    vmin = min(vmin, abs(qd[i]))
                tmp[0] = vmin
                tmp2[0] = 0.0
                gv = tmp[:1]
                ga = tmp2[:1]
            if iflags[I_PER_JOINT] != 0:
                est = ewrls_step(Y, R, gv, ga, fcfg[F_V_GATE], fcfg[F_A_GATE], fcfg[F_BETA],
                                 fcfg[F_FLOOR_C], theta, P, pi0, g, counters, accum)
            else:
                r_sum[0] = 0.0
                for c in range(Y.shape[1]):
                    y_sum[0, c] = 0.0
                for i in range(n):
                    r_sum[0] += R[i]
                    for c in range(Y.shape[1]):
                        y_sum[0, c] += Y[i, c]
                est = ewrls_step(y_sum, r_sum, gv, ga, fcfg[F_V_GATE], fcfg[F_A_GATE], fcfg[F_BETA],
                                 fcfg[F_FLOOR_C], theta, P, pi0, g, counters, accum)
    if iflags[I_ESTIMATE] != 0:
        _check_convergence(t, theta, cols, fcfg, iflags, conv)
    # 2. control from setpoints
    sw = iflags[I_REQUESTED] & (SW_DYNAMIC | iflags[I_CLOSED])
    for i in range(n):
        parts[PART_DYNAMIC, i] = 0.0
        parts[PART_FRICTION, i] = 0.0
    if sw & (SW_DYNAMIC | SW_FRICTION):  # the model at the setpoint is needed only for feed-forward
        status = K.row_terms(q_sp, qd_sp, qdd_sp, prm, Q_I, D_m, D_psi, psid)
        if status != 0:
            for i in range(n):
                tau_tgt[i] = 0.0
            return -4
    if sw & SW_DYNAMIC:
        for i in range(n):
            tmp[i] = -Q_I[i]
        _solve_transpose(D_m, tmp, work, tmp2)
        for i in range(n):
            parts[PART_DYNAMIC, i] = tmp2[i]
    if sw & SW_FRICTION:
        friction_regressor(D_psi, psid, cols, Y, n_drv)
        for i in range(n):
            s = 0.0
            for c in range(cols.shape[0]):
                s += Y[i, n_drv + c] * theta[n_drv + c]
            tmp[i] = s
        _solve_transpose(D_m, tmp, work, tmp2)
        for i in range(n):
            parts[PART_FRICTION, i] = tmp2[i]
    for i in range(n):
        fb = gains[0, i] * (q_sp[i] - q[i]) + gains[1, i] * (qd_sp[i] - qd[i])
        parts[PART_FEEDBACK, i] = fb
        cmd = parts[PART_DYNAMIC, i] + parts[PART_FRICTION, i] + fb
        if sw & SW_PDS and theta[i] > 0.05:
            cmd = cmd / theta[i]
        lim = gains[2, i]
        tau_tgt[i] = min(max(cmd, -lim), lim)
    return est


@dataclass
class ControllerConfig:
    """Controller and estimator settings (SI units; defaults are the paper's where it gives them).

    Attributes
    ----------
    name : str
        "PD", "CTC", "AC" or "OPEN".
    model : int or FrictionModel
        Friction model (Table 4 number, default 3, the paper's choice).
    half_life_s : float
        EWR-RLS weighting half-life T_HL (paper: 600 s).
    lambda_reg : float
        Regularization lambda (paper: 0.001).
    gate_velocity : float
        Gating threshold on |measured qd| [rad/s] (our choice; the paper: "small").
    gate_acceleration : float
        Gating threshold on |measured qdd| [rad/s^2] (our choice); unused when ``gate_all_joints``.
    gate_all_joints : bool
        Update only when every joint slides, ``min_j |qd_j| > gate_velocity`` (default). The paper's
        rule (``any |qd_j| > gate_velocity or any |qdd_j| > gate_acceleration``, set False with
        0.02 / 0.2 to reproduce it) admits stuck and presliding samples (|qd| ~ 0, |qdd| > gate),
        where sign(qd) in Y_F is meaningless: on the twin they bias the friction curves by 4-12 %.
    per_joint_rows : bool
        Use per-joint rows instead of the paper's summed row.
    conv_window_s, conv_tol_pds, conv_tol_friction, conv_t_min_s, conv_v_max : float
        Convergence criterion (module docstring).
    imu_delay_cycles : int
        Control cycles by which the IMU samples lag the encoder and the drive (0 .. RING - 1).
    closed_from_start : bool
        Close switches (b) and (c) at once, for a warm start from a converged estimate
        (``pi_pds0``, ``pi_F0`` from a previous run), as the paper compares the controllers.
    P0 : tuple of float, optional
        Flattened initial covariance (n_pi x n_pi) of a warm start: the previous run's final P
        (the paper: "saved together with the internal state of the EWR-RLS estimator"). Default
        ``I / lambda``. A warm start with closed switches but the default P would let the first
        samples move the estimate as freely as from scratch while it is already fed forward.
    estimate : bool
        Run the estimator (switches b and c need it).
    """

    name: str = "AC"
    model: Any = 3
    half_life_s: float = 600.0
    lambda_reg: float = 1e-3
    gate_velocity: float = 0.1
    gate_acceleration: float = 0.2
    gate_all_joints: bool = True
    per_joint_rows: bool = False
    conv_window_s: float = 1.0
    conv_tol_pds: float = 0.005
    conv_tol_friction: float = 0.03
    conv_t_min_s: float = 2.0
    conv_v_max: float = 3.0
    estimate: bool = True
    closed_from_start: bool = False
    P0: tuple[float, ...] | None = None
    imu_delay_cycles: int = 0
    pi_pds0: tuple[float, ...] | None = None
    pi_F0: tuple[float, ...] | None = None
    extra: dict = field(default_factory=dict)

    @property
    def friction_model(self) -> FrictionModel:
        return self.model if isinstance(self.model, FrictionModel) else table4_model(self.model)


# Field order of the packed state buffers (see Controller).
_FLOAT_FIELDS = ("prm", "gains", "fcfg", "conv", "theta", "P", "pi0", "g", "accum",
                 "Q_I", "D_m", "D_psi", "psid", "Y", "R", "y_sum", "r_sum", "work", "tmp", "tmp2",
                 "parts", "tau_tgt", "ring")
_INT_FIELDS = ("iflags", "counters", "cols")
# rows of the measurement/setpoint block handed to the packed step
M_Q, M_QD, M_QDD, M_TAU, M_Q_SP, M_QD_SP, M_QDD_SP = range(7)


@rt_njit
def control_step_packed(t, meas, fbuf, ibuf, lay):  # pragma: no cover - compiled
    """:func:`control_step` on packed state (few arguments: cheap to call from Python).

    ``meas`` (7, n) holds q, qd, qdd, tau_m, q_sp, qd_sp, qdd_sp (rows ``M_*``); ``fbuf``,
    ``ibuf`` and the layout ``lay`` come from :class:`Controller`.
    """
    n, npi, nd, nf, npsi = lay[0], lay[1], lay[2], lay[3], lay[4]
    fo = lay[5:5 + 24]
    io = lay[5 + 24:]
    return control_step(
        t, meas[0], meas[1], meas[2], meas[3], meas[4], meas[5], meas[6],
        fbuf[fo[0]:fo[1]], ibuf[io[2]:io[3]].reshape((nf, 3)),
        fbuf[fo[1]:fo[2]].reshape((3, n)), fbuf[fo[2]:fo[3]], ibuf[io[0]:io[1]], fbuf[fo[3]:fo[4]],
        fbuf[fo[4]:fo[5]], fbuf[fo[5]:fo[6]].reshape((npi, npi)), fbuf[fo[6]:fo[7]], fbuf[fo[7]:fo[8]],
        ibuf[io[1]:io[2]], fbuf[fo[8]:fo[9]],
        fbuf[fo[9]:fo[10]], fbuf[fo[10]:fo[11]].reshape((nd, n)), fbuf[fo[11]:fo[12]].reshape((npsi, n)),
        fbuf[fo[12]:fo[13]], fbuf[fo[13]:fo[14]].reshape((n, npi)), fbuf[fo[14]:fo[15]],
        fbuf[fo[15]:fo[16]].reshape((1, npi)), fbuf[fo[16]:fo[17]], fbuf[fo[17]:fo[18]].reshape((n, n)),
        fbuf[fo[18]:fo[19]], fbuf[fo[19]:fo[20]], fbuf[fo[20]:fo[21]].reshape((3, n)), fbuf[fo[21]:fo[22]],
        fbuf[fo[22]:fo[23]].reshape((RING, 2, n)),
    )


class Controller:
    """Preallocated state of :func:`control_step` for one robot and configuration.

    All float state lives in one buffer ``fbuf`` and all integer state in ``ibuf``; the
    attributes (``theta``, ``P``, ``gains``...) are numpy views into them, so the compiled
    step sees and updates the same memory. :meth:`step` is the hardware loop's entry:
    write the cycle's values into the rows of :attr:`meas` and call it.

    Parameters
    ----------
    robot : FiveBar
        Known model (kernel parameters, drive limits, gains from its description).
    config : ControllerConfig
        Controller and estimator settings.
    sample_rate_hz : float
        Control rate (the paper: 4 kHz).
    kp, kd : array_like, optional
        Motor-side gains [N m/rad], [N m s/rad]; default from the robot description.
    """

    def __init__(self, robot: Any, config: ControllerConfig | None = None, sample_rate_hz: float = 4000.0,
                 kp: Any = None, kd: Any = None) -> None:
        cfg = config or ControllerConfig()
        if cfg.name not in CONTROLLER_SWITCHES:
            raise ValueError(f"unknown controller {cfg.name!r}; choose from {sorted(CONTROLLER_SWITCHES)}")
        self.robot = robot
        self.config = cfg
        self.sample_rate_hz = float(sample_rate_hz)
        n = robot.n_joints
        desc = robot.description
        fm = cfg.friction_model
        self.friction_model = fm
        cols = fm.columns()
        n_drv = n
        n_pi = n_drv + fm.n_params
        self.n_params = n_pi
        self.param_names = [f"pi_pds,{j + 1}" for j in range(n_drv)] + fm.param_names()
        n_curves = len(set(int(j) for j in cols[:, 0])) * N_REF_V
        shapes = {
            "prm": (len(robot.params),), "gains": (3, n), "fcfg": (N_FCFG,), "conv": (2 + n_pi + n_curves,),
            "theta": (n_pi,), "P": (n_pi, n_pi), "pi0": (n_pi,), "g": (n_pi,), "accum": (2,),
            "Q_I": (n,), "D_m": (n_drv, n), "D_psi": (K.N_PSI, n), "psid": (K.N_PSI,), "Y": (n, n_pi),
            "R": (n,), "y_sum": (1, n_pi), "r_sum": (1,), "work": (n, n), "tmp": (n,), "tmp2": (n,),
            "parts": (3, n), "tau_tgt": (n,), "ring": (RING, 2, n),
            "iflags": (N_IFLAGS,), "counters": (3,), "cols": cols.shape,
        }
        f_off = np.cumsum([0] + [int(np.prod(shapes[k])) for k in _FLOAT_FIELDS])
        i_off = np.cumsum([0] + [int(np.prod(shapes[k])) for k in _INT_FIELDS])
        self.fbuf = np.zeros(f_off[-1])
        self.ibuf = np.zeros(i_off[-1], dtype=np.int64)
        self.lay = np.concatenate([[n, n_pi, n_drv, len(cols), K.N_PSI], f_off, i_off]).astype(np.int64)
        for k, name in enumerate(_FLOAT_FIELDS):
            setattr(self, name, self.fbuf[f_off[k]:f_off[k + 1]].reshape(shapes[name]))
        for k, name in enumerate(_INT_FIELDS):
            setattr(self, name, self.ibuf[i_off[k]:i_off[k + 1]].reshape(shapes[name]))
        self.meas = np.zeros((7, n))

        self.prm[:] = robot.params
        self.cols[:] = cols
        self.gains[0] = desc["control"]["kp_Nm_per_rad"] if kp is None else kp
        self.gains[1] = desc["control"]["kd_Nm_s_per_rad"] if kd is None else kd
        self.gains[2] = desc["drives"]["max_torque_Nm"]
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
        if not 0 <= cfg.imu_delay_cycles < RING:
            raise ValueError(f"imu_delay_cycles must be in [0, {RING - 1}], got {cfg.imu_delay_cycles}")
        self.iflags[I_DELAY] = int(cfg.imu_delay_cycles)
        self.pi0[:n_drv] = 1.0 if cfg.pi_pds0 is None else np.asarray(cfg.pi_pds0, float)
        if cfg.pi_F0 is not None:
            self.pi0[n_drv:] = np.asarray(cfg.pi_F0, float)
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
        return self.theta[: self.iflags[I_N_DRIVES]].copy()

    @property
    def pi_F(self) -> np.ndarray:
        """Friction-coefficient estimates (n_F,), order of ``friction_model.columns()``."""
        return self.theta[self.iflags[I_N_DRIVES]:].copy()

    @property
    def switches_closed(self) -> bool:
        """True once the convergence criterion closed the requested switches."""
        return bool(self.iflags[I_CLOSED] == self.iflags[I_REQUESTED])

    @property
    def converged_s(self) -> float:
        """Time [s] at which the online criterion held (NaN before)."""
        return float(self.conv[C_CONVERGED_T])

    def arrays(self) -> tuple:
        """State and work arrays in :func:`control_step`'s order after the setpoints (compiled callers)."""
        return tuple(getattr(self, name) for name in ("prm", "cols", "gains", "fcfg", "iflags", "conv", "theta", "P",
                                                      "pi0", "g", "counters", "accum", "Q_I", "D_m", "D_psi", "psid",
                                                      "Y", "R", "y_sum", "r_sum", "work", "tmp", "tmp2", "parts",
                                                      "tau_tgt", "ring"))

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
        """One cycle from Python on the values in :attr:`meas`; returns ``tau_tgt`` [N m] (a view)."""
        self.last_status = control_step_packed(t, self.meas, self.fbuf, self.ibuf, self.lay)
        return self.tau_tgt
