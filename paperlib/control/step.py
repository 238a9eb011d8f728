"""The compiled control step for any robot: identify (EWR-RLS, eq. 14), then PD / CTC / AC torque.

One cycle (:func:`control_step`; the twin's compiled loop and the Python hardware loop both call
it, through :class:`paperlib.control.controllers.Controller`):

0. **Guard.** Every input (measurements, setpoints) must be finite; otherwise the step commands
   zero torque, leaves the estimator untouched and returns :data:`ST_NONFINITE` (a fault). The
   same holds when the computed command is not finite.
1. **Identify** from the measurements with the regressor assembled from column blocks::

       Y = [ -D_m^T diag(tau) | Y_I | Y_F ]   (drive gains | inertial | friction),   R = Q_I + Q_G

   where the robot's kernel set (:mod:`paperlib.robots.kernel_sets`, chosen by the integer
   ``iflags[I_KERNEL]``, never imported here) gives the known part of ``Q_I + Q_G`` (gravity in
   the right-hand side), the drive map ``D_m`` (``n_drv x n``; it may be non-square), the
   inertial columns ``Y_I`` of unknown inertial parameters and the friction joints' Jacobian;
   the friction columns ``Y_F`` come from :mod:`paperlib.friction.polynomial`. The rows are
   summed over the joints (the paper) or kept per joint; the update is gated
   (:func:`paperlib.estimation.gating.gate_signals`). The IMU samples reach the loop ``delay``
   cycles after the encoder's and the drive's: each IMU sample is paired with the encoder angle
   and torque of ``delay`` cycles before (a ring buffer). With ``delay = 0`` this is the paper's step.
2. **Control** (eqs. 15-18, 23) from the setpoints::

       tau_cmd = (a) tau_I,FF + (b) tau_F,FF + feedback
       D_m^T tau_I,FF = -(Q_I + Q_G)(q_sp, qd_sp, qdd_sp)  with the identified inertial part
       D_m^T tau_F,FF =  Y_F(q_sp, qd_sp) pi_F_hat
       tau_tgt = (c) diag(pi_pds_hat)^-1 tau_cmd, clipped to the drive limits

   With one drive per joint (square ``D_m``) the transposed system is solved exactly and drive
   ``i`` takes the feedback ``K_P,i e_i + K_D,i e_dot_i`` of joint ``i`` (motor-side gains, as in
   eq. 15). With more drives than joints (redundant actuation) the torques are the
   minimum-norm solution ``tau = D_m (D_m^T D_m)^-1 b`` and the feedback is a joint-space force
   ``K_P e + K_D e_dot`` distributed the same way. PD: (c); CTC: (a), (c); AC: (a), (b), (c).
   A drive-gain estimate outside ``[PDS_BAND_LOW, PDS_BAND_HIGH]`` is not used for the
   rescaling (c) of that drive; the cycle is counted in ``iflags[I_PDS_OUT]`` (flagged, see
   :attr:`Controller.pds_out_of_band_cycles`).
3. **Switches (b) and (c) close when the estimate has converged** (the paper: "initially
   open ... until a convergence criterion is satisfied"): the named criterion
   :data:`paperlib.estimation.convergence.WINDOW_CRITERION`, checked at the end of every window;
   once closed they stay closed (latched).

Everything is preallocated by the caller; the step allocates nothing.
"""

from __future__ import annotations

import math

from paperlib._jit import rt_njit
from paperlib._linalg import solve_inplace
from paperlib.control.step_arrays import table_doc
from paperlib.estimation.ewrls import ewrls_step
from paperlib.estimation.gating import gate_signals
from paperlib.estimation.regressor import assemble_row  # noqa: F401  (re-exported)
from paperlib.friction.polynomial import friction_regressor, joint_friction
from paperlib.robots.kernel_sets import robot_terms

# switch bits
SW_DYNAMIC = 1   # (a) inertial (and gravitational) feed-forward
SW_FRICTION = 2  # (b) friction feed-forward from the estimate
SW_PDS = 4       # (c) drive-gain rescaling diag(pi_pds)^-1

# float config layout
F_V_GATE, F_A_GATE, F_BETA, F_FLOOR_C, F_CONV_WINDOW, F_CONV_TOL_PDS, F_CONV_TOL_F, F_CONV_T_MIN, F_CONV_V_MAX = range(9)
N_FCFG = 9
# int flags layout
(I_REQUESTED, I_CLOSED, I_ESTIMATE, I_PER_JOINT, I_N_DRIVES, I_DELAY, I_RING_POS, I_RING_FILL, I_GATE_ALL, I_HOLD,
 I_KERNEL, I_N_INERTIAL, I_PDS_OUT) = range(13)
N_IFLAGS = 13
#: Ring of past encoder angles and drive torques (the IMU stream arrives ``delay`` cycles late).
RING = 32
# convergence bookkeeping (float array): next check time, converged time, then snapshots
C_NEXT_CHECK, C_CONVERGED_T = 0, 1
N_REF_V = 8
# torque parts (rows of the parts output): dynamic FF, friction FF, feedback (motor side, N m)
PART_DYNAMIC, PART_FRICTION, PART_FEEDBACK = 0, 1, 2
#: Band of drive-gain estimates used for the rescaling (c): outside it the estimate is flagged.
PDS_BAND_LOW = 0.05
PDS_BAND_HIGH = 20.0

# step status (module ints for the compiled code; paperlib.control.controllers.StepStatus names them)
ST_UPDATED = 1
ST_GATED = 0
ST_REJECTED = -1
ST_KERNEL_ERROR = -2
ST_ESTIMATION_OFF = -3
ST_SETPOINT_INVALID = -4
ST_HELD = -5
ST_NONFINITE = -6


@rt_njit(inline="always")
def _solve_transpose(A, b, work, out):  # pragma: no cover - compiled
    """out = A^-T b for a small square A (Gaussian elimination with partial pivoting)."""
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            work[i, j] = A[j, i]
        out[i] = b[i]
    solve_inplace(work, out, n)


@rt_njit(inline="always")
def distribute(D_m, b, work, y, out):  # pragma: no cover - compiled
    """Drive torques ``out`` (n_drv,) with ``D_m^T out = b`` (n,): exact when square, else minimum norm.

    Minimum norm: ``out = D_m (D_m^T D_m)^-1 b`` (``y`` (n,) is work).
    """
    n_drv = D_m.shape[0]
    n = D_m.shape[1]
    if n_drv == n:
        _solve_transpose(D_m, b, work, out)
        return
    for i in range(n):
        y[i] = b[i]
        for j in range(n):
            s = 0.0
            for d in range(n_drv):
                s += D_m[d, i] * D_m[d, j]
            work[i, j] = s
    solve_inplace(work, y, n)
    for d in range(n_drv):
        s = 0.0
        for i in range(n):
            s += D_m[d, i] * y[i]
        out[d] = s


@rt_njit
def _check_convergence(t, theta, cols, fcfg, iflags, conv):  # pragma: no cover - compiled
    """Window-based convergence test at the end of a window (the caller checks ``t >= conv[C_NEXT_CHECK]``);
    latches the requested switches closed when it holds."""
    n_rel = iflags[I_N_DRIVES] + iflags[I_N_INERTIAL]  # parameters judged relative to themselves
    n = theta.shape[0]
    snap = conv[2:2 + n]
    curves = conv[2 + n:]
    ok = t >= fcfg[F_CONV_T_MIN]
    for d in range(n_rel):
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
            peak = max(peak, abs(joint_friction(theta, cols, n_rel, j, v)))
        for r in range(N_REF_V):
            v = fcfg[F_CONV_V_MAX] * (r + 1) / N_REF_V
            f = joint_friction(theta, cols, n_rel, j, v)
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


@rt_njit(inline="always")
def _all_finite(x):  # pragma: no cover - compiled
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return False
    return True


@rt_njit(inline="always")
def _fault(parts, tau_tgt):  # pragma: no cover - compiled
    for d in range(tau_tgt.shape[0]):
        tau_tgt[d] = 0.0
        for r in range(3):
            parts[r, d] = 0.0
    return ST_NONFINITE


@rt_njit
def control_step(t, q, qd, qdd, tau_m, q_sp, qd_sp, qdd_sp,
                 prm, cols, gains, tau_max, fcfg, iflags, conv,
                 theta, P, pi0, g, counters, accum,
                 Q_IG, D_m, D_ups, ups_d, Y_I, Y, R, y_sum, r_sum, work, tmp, tmp2, tmpd,
                 parts, tau_tgt, ring):  # pragma: no cover - compiled
    """One control cycle: guard, identify, then compute the target torques (module docstring).

    Parameters
    ----------
    t : float
        Time since start [s].
    q, qd, qdd : ndarray, shape (n,)
        Measured joint angle [rad], rate [rad/s], acceleration [rad/s^2].
    tau_m : ndarray, shape (nd,)
        Measured drive torques [N m].
    q_sp, qd_sp, qdd_sp : ndarray, shape (n,)
        Setpoints [rad, rad/s, rad/s^2].

    Returns
    -------
    int
        Step status (``ST_*``; :class:`paperlib.control.controllers.StepStatus`): 1 updated,
        0 gated out, -1 rejected, -2 kernel error at the measured state, -3 estimation off,
        -5 held back by the caller (the control output is valid in all of these); faults with
        zero torque: -4 a feed-forward needs the model at an invalid setpoint, -6 a non-finite
        input or command.
    """
    n = q.shape[0]
    n_drv = iflags[I_N_DRIVES]
    n_rel = n_drv + iflags[I_N_INERTIAL]
    kid = iflags[I_KERNEL]
    if not (_all_finite(q) and _all_finite(qd) and _all_finite(qdd) and _all_finite(tau_m)
            and _all_finite(q_sp) and _all_finite(qd_sp) and _all_finite(qdd_sp)):
        return _fault(parts, tau_tgt)
    est = ST_ESTIMATION_OFF
    # 1. identification from measurements, IMU sample paired with encoder/torque of its age
    pos = iflags[I_RING_POS]
    for i in range(n):
        ring[pos, 0, i] = q[i]
    for d in range(n_drv):
        ring[pos, 1, d] = tau_m[d]
    delay = iflags[I_DELAY]
    old = (pos - delay) % RING
    iflags[I_RING_POS] = (pos + 1) % RING
    if iflags[I_RING_FILL] <= delay:
        iflags[I_RING_FILL] += 1
    elif iflags[I_HOLD] > 0:  # the caller saw a timing or link fault in the samples of this row
        iflags[I_HOLD] -= 1
        if iflags[I_ESTIMATE] != 0:
            est = ST_HELD
    elif iflags[I_ESTIMATE] != 0:
        status = robot_terms(kid, ring[old, 0, :n], qd, qdd, prm, Q_IG, D_m, D_ups, ups_d, Y_I)
        if status != 0:
            est = ST_KERNEL_ERROR
        else:
            assemble_row(Q_IG, D_m, ring[old, 1, :n_drv], Y_I, D_ups, ups_d, cols, Y, R)
            m = gate_signals(qd, qdd, iflags[I_GATE_ALL], tmp, tmp2)
            gv = tmp[:m]
            ga = tmp2[:m]
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
    if iflags[I_ESTIMATE] != 0 and t >= conv[C_NEXT_CHECK]:  # a window ended (test here: no call per cycle)
        _check_convergence(t, theta, cols, fcfg, iflags, conv)
    # 2. control from setpoints
    sw = iflags[I_REQUESTED] & (SW_DYNAMIC | iflags[I_CLOSED])
    for d in range(n_drv):
        parts[PART_DYNAMIC, d] = 0.0
        parts[PART_FRICTION, d] = 0.0
    if sw & (SW_DYNAMIC | SW_FRICTION):  # the model at the setpoint is needed only for feed-forward
        status = robot_terms(kid, q_sp, qd_sp, qdd_sp, prm, Q_IG, D_m, D_ups, ups_d, Y_I)
        if status != 0:
            for d in range(n_drv):
                tau_tgt[d] = 0.0
            return ST_SETPOINT_INVALID
    if sw & SW_DYNAMIC:
        for i in range(n):
            s = -Q_IG[i]
            for c in range(Y_I.shape[1]):
                s += Y_I[i, c] * theta[n_drv + c]
            tmp[i] = s
        distribute(D_m, tmp, work, tmp2, tmpd)
        for d in range(n_drv):
            parts[PART_DYNAMIC, d] = tmpd[d]
    if sw & SW_FRICTION:
        friction_regressor(D_ups, ups_d, cols, Y, n_rel)
        for i in range(n):
            s = 0.0
            for c in range(cols.shape[0]):
                s += Y[i, n_rel + c] * theta[n_rel + c]
            tmp[i] = s
        distribute(D_m, tmp, work, tmp2, tmpd)
        for d in range(n_drv):
            parts[PART_FRICTION, d] = tmpd[d]
    if n_drv != n:  # redundant drives: joint-space feedback force, minimum-norm distribution
        if not sw & (SW_DYNAMIC | SW_FRICTION):  # the drive map at the measured state
            if robot_terms(kid, q, qd, qdd, prm, Q_IG, D_m, D_ups, ups_d, Y_I) != 0:
                for d in range(n_drv):
                    tau_tgt[d] = 0.0
                return ST_SETPOINT_INVALID
        for i in range(n):
            tmp[i] = gains[0, i] * (q_sp[i] - q[i]) + gains[1, i] * (qd_sp[i] - qd[i])
        distribute(D_m, tmp, work, tmp2, tmpd)
        for d in range(n_drv):
            parts[PART_FEEDBACK, d] = tmpd[d]
    else:
        for i in range(n):
            parts[PART_FEEDBACK, i] = gains[0, i] * (q_sp[i] - q[i]) + gains[1, i] * (qd_sp[i] - qd[i])
    finite = True
    for d in range(n_drv):
        cmd = parts[PART_DYNAMIC, d] + parts[PART_FRICTION, d] + parts[PART_FEEDBACK, d]
        if sw & SW_PDS:
            if PDS_BAND_LOW < theta[d] <= PDS_BAND_HIGH:
                cmd = cmd / theta[d]
            else:
                iflags[I_PDS_OUT] += 1
        if not math.isfinite(cmd):
            finite = False
        lim = tau_max[d]
        tau_tgt[d] = min(max(cmd, -lim), lim)
    if not finite:
        return _fault(parts, tau_tgt)
    return est


control_step.__doc__ = (control_step.__doc__ or "") + "\n" + table_doc()
