"""The 5R digital twin in closed loop: plant, drives, sensors, temperature, controller, estimator.

One compiled loop runs every 4 kHz control cycle exactly as the rig would:

1. **sense** (time t_k): encoder angle (quantized), the IMU stream as the loop sees it (the
   newest UDP packet, :mod:`paperlib.twin.imu`), converted with the *nominal* lever arm to
   joint rate and acceleration, and the torque the drive reports (:mod:`paperlib.twin.drives`);
2. **control**: :func:`paperlib.control.controllers.control_step` (the same compiled step the
   hardware loop calls) identifies and returns the target torques;
3. **actuate**: each drive's current loop is advanced over the step; its step-averaged actual
   torque, times the gear ratio, is held over the step;
4. **plant**: the closed-chain dynamics ``M qdd = Q_m + Q_F - C qd`` (generated kernels) are
   advanced by one RK4 step of 1/4000 s with the generalized forces held over the step.
   The LuGre friction torques of the five joints (:mod:`paperlib.twin.friction`) are evaluated
   at the step's start and held; the bristle states are then advanced with the exact
   frozen-velocity update, which is stable at any step (the LuGre equation is stiff at high
   speed). Because the applied forces are held, the work they do over a step is exactly
   ``Q . (q_{k+1} - q_k)``: the loop accumulates the motor work and the friction
   dissipation, and kinetic energy balances them to RK4 accuracy (tested);
5. **heat**: each gearbox's second-order thermal model takes the friction power of its joint.

Recordings come out in the schema ``paperlib.recording/2`` with ``source = "twin"`` and the
true values (drive gains, friction laws, temperatures) in their ``truth`` attribute.
"""

from __future__ import annotations

import functools
import json
import math
import time as _time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from paperlib._jit import rt_njit
from paperlib.control import controllers as ctl
from paperlib.estimation.imu_calibration import N_IC, IC_DELAY, calibrate_imu_extended, identity_conversion, imu_to_joint
from paperlib.control.trajectories import (
    TABLE3_BOUNDS,
    Polygon,
    random_point_to_point,
    well_conditioned_polygon,
)
from paperlib.kernels import five_bar as K
from paperlib.robots.five_bar import FiveBar
from paperlib.twin import drives as dr
from paperlib.twin import friction as fr
from paperlib.twin import imu as im
from paperlib.twin import thermal as th
from paperlib.twin.plant import plant_forces, plant_heat, plant_rk4, solve2

SAMPLE_RATE_HZ = 4000.0

# carried loop state (one float array, so a run can be simulated in chunks)
ST_Q, ST_QD, ST_Z, ST_QA, ST_TAU_REP, ST_TAU_ACT, ST_W_MOTOR, ST_W_FRIC = 0, 2, 4, 9, 11, 13, 15, 16
N_LOOP_STATE = 17
#: Cycles per call of the compiled loop when a progress bar is shown (5 s of robot time).
CHUNK = 20000

# diagnostics columns (per logged sample)
DG_EKIN, DG_WMOTOR, DG_WFRICTION = range(3)
N_DIAG = 3


def _loop_scratch() -> tuple:
    """Work arrays of :func:`_simulate_loop` (which may not allocate: see :mod:`paperlib._jit`)."""
    return (np.zeros(2), np.empty((2, 2)), np.empty(2), np.empty((5, 2)), np.empty(5), np.empty(5), np.empty(5),
            np.empty(2), np.empty(2), np.empty(2), np.empty(2), np.empty((8, 2)), np.empty((7, 2)),
            np.empty((2, im.N_OUT)), np.empty(5))


@rt_njit
def _simulate_loop(
    k_begin, k_end, st, prm, q_sp, qd_sp, qdd_sp,
    fric, fric_scale_t, fric_scale, therm_disc, therm_x, T_amb,
    drv, drv_state, imu_p, link_p, imu_state, imu_keys, lever_nominal, imu_conv, enc_step,
    ctl_arrays,
    decim, log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth, scratch,
):  # pragma: no cover - compiled
    """Closed-loop cycles ``k_begin .. k_end - 1``; returns (status, k_stop). See the module docstring.

    The state carried from one call to the next lives in ``st`` (layout ``ST_*``); everything
    else the loop touches is in the arrays passed in (work arrays: ``scratch``, from
    :func:`_loop_scratch`), so a run can go in chunks (progress bar).
    """
    dt = 1.0 / 4000.0
    q = st[ST_Q:ST_Q + 2]
    qd = st[ST_QD:ST_QD + 2]
    z = st[ST_Z:ST_Z + 5]
    Qa = st[ST_QA:ST_QA + 2]
    tau_rep = st[ST_TAU_REP:ST_TAU_REP + 2]
    tau_act = st[ST_TAU_ACT:ST_TAU_ACT + 2]
    w_motor = st[ST_W_MOTOR]
    w_fric = st[ST_W_FRIC]
    qdd_true = scratch[0]
    M = scratch[1]
    h = scratch[2]
    D_psi = scratch[3]
    psid = scratch[4]
    Tj = scratch[5]
    F = scratch[6]
    Qm = scratch[7]
    QF = scratch[8]
    k1v = scratch[9]
    dq = scratch[10]
    rk_work = scratch[11]
    meas = scratch[12]
    imu_out = scratch[13]
    psid0 = scratch[14]
    theta = ctl_arrays[6]
    n_pi = theta.shape[0]
    parts = ctl_arrays[23]
    tau_tgt = ctl_arrays[24]
    for k in range(k_begin, k_end):
        t = k * dt
        # dynamics at the step start: M, C qd, D_psi, psi_dot; the acceleration the IMU feels
        # is the one the forces of the previous step produce here
        s = K.dynamics_terms(q, qd, prm, M, h, D_psi, psid)
        if s != 0:
            return s, k
        solve2(M, Qa[0] - h[0], Qa[1] - h[1], qdd_true)
        # -- 1. sense ---------------------------------------------------------------------
        im.imu_stream_step(imu_state, imu_keys, imu_p, link_p, t, qd, qdd_true, imu_out)
        for j in range(2):
            meas[ctl.M_Q, j] = math.floor(q[j] / enc_step[j] + 0.5) * enc_step[j]
            w, a = imu_to_joint(imu_out[j, im.OUT_GZ], imu_out[j, im.OUT_AY], lever_nominal[j], imu_conv[j])
            meas[ctl.M_QD, j] = w
            meas[ctl.M_QDD, j] = a
            meas[ctl.M_TAU, j] = tau_rep[j]
            meas[ctl.M_Q_SP, j] = q_sp[k, j]
            meas[ctl.M_QD_SP, j] = qd_sp[k, j]
            meas[ctl.M_QDD_SP, j] = qdd_sp[k, j]
        # -- 2. control ----------------------------------------------------------------------
        ctl.control_step(t, meas[0], meas[1], meas[2], meas[3], meas[4], meas[5], meas[6], *ctl_arrays)
        # -- 3. drives -------------------------------------------------------------------------
        for j in range(2):
            a, r = dr.drive_step(drv_state[j], tau_tgt[j], drv[j])
            tau_act[j] = a
            tau_rep[j] = r
            Qm[j] = dr.joint_torque(a, drv[j])
        # -- 4. plant: friction at the step start, held over the step -------------------------
        scale = fric_scale if t >= fric_scale_t else 1.0
        plant_forces(Qm, scale, z, therm_x, T_amb, fric, dt, D_psi, psid, psid0, Tj, F, QF, Qa)
        solve2(M, Qa[0] - h[0], Qa[1] - h[1], k1v)
        # -- log (state at the step start; forces held over this step) ------------------------
        if k % decim == 0:
            r = k // decim
            for j in range(2):
                log_f[r, 0, j] = meas[ctl.M_Q, j]
                log_f[r, 1, j] = meas[ctl.M_QD, j]
                log_f[r, 2, j] = meas[ctl.M_QDD, j]
                log_f[r, 3, j] = meas[ctl.M_TAU, j]
                log_f[r, 4, j] = tau_tgt[j]
                log_f[r, 5, j] = th.case_temperature(therm_x[j])
                for c in range(3):
                    log_parts[r, c, j] = parts[c, j]
                    log_imu_raw[r, c, j] = imu_out[j, im.OUT_RAW + c]
                # truth: q, qd, qdd, actual motor torque, friction Lagrangian of the active joint
                log_truth[r, 0, j] = q[j]
                log_truth[r, 1, j] = qd[j]
                log_truth[r, 2, j] = k1v[j]
                log_truth[r, 3, j] = tau_act[j]
                log_truth[r, 4, j] = -D_psi[j, j] * F[j]
                log_truth[r, 5, j] = QF[j]
            for c in range(n_pi):
                log_pi[r, c] = theta[c]
            log_diag[r, DG_EKIN] = 0.5 * (qd[0] * (M[0, 0] * qd[0] + M[0, 1] * qd[1])
                                          + qd[1] * (M[1, 0] * qd[0] + M[1, 1] * qd[1]))
            log_diag[r, DG_WMOTOR] = w_motor
            log_diag[r, DG_WFRICTION] = w_fric
        s = plant_rk4(q, qd, Qa, k1v, prm, dt, M, h, rk_work, dq)
        if s != 0:
            st[ST_W_MOTOR] = w_motor
            st[ST_W_FRIC] = w_fric
            return s, k
        for i in range(2):
            w_motor += Qm[i] * dq[i]
            w_fric -= QF[i] * dq[i]
        # -- 5. heat -----------------------------------------------------------------------------
        plant_heat(therm_x, F, psid0, therm_disc, T_amb)
    st[ST_W_MOTOR] = w_motor
    st[ST_W_FRIC] = w_fric
    return 0, k_end


@functools.lru_cache(maxsize=4)
def flagship_polygon(sigma_threshold: float = 0.4) -> Polygon:
    """The well-conditioned convex polygon of the joint space where motions are planned (Fig. 4).

    Condition index ``sigma >= sigma_threshold`` everywhere inside (checked on edges and a
    lattice), searched in the box q1 in [40, 200] deg, q2 in [-20, 140] deg around (120, 60) deg.
    """
    robot = FiveBar.default()
    return well_conditioned_polygon(
        robot.condition_index, sigma_threshold, np.radians([[40.0, -20.0], [200.0, 140.0]]),
        seed_rad=np.radians([120.0, 60.0]), grid_n=121,
    )


FRICTION_PARAM_NAMES = ("Fc_Nm", "Fs_Nm", "vs_rad_s", "delta", "Fv_Nm_s_rad", "v_thin_rad_s", "delta_v",
                        "sigma0_Nm_rad", "sigma1_Nm_s_rad", "v_d_rad_s", "T_ref_degC", "alpha_c_per_K", "beta_v_per_K")


def _truth_dict(tp: dr.TwinParams, drv: np.ndarray, robot: FiveBar, therm_x: np.ndarray) -> dict[str, Any]:
    """The true values a twin recording carries (so estimates can be compared with them)."""
    return {
        "pi_pds": tp.pi_pds.tolist(),
        "gear_ratio": drv[:, dr.DR_GEAR].tolist(),
        "friction_parameter_names": list(FRICTION_PARAM_NAMES),
        "friction": tp.friction.tolist(),
        "ambient_degC": tp.ambient_degC,
        "gearbox_case_temperature_start_degC": [float(th.case_temperature(x)) for x in therm_x],
        "gearbox_inner_temperature_start_degC": [float(th.friction_temperature(x)) for x in therm_x],
        "twin_parameter_file": tp.path.name,
        "robot_params": dict(zip(K.PARAM_NAMES, robot.params.tolist())),
    }


def true_friction_curve(truth: dict[str, Any], joint: int, v: np.ndarray, temperature_C: float) -> np.ndarray:
    """The twin's true steady friction torque of joint ``joint`` (1-based) [N m] at v [rad/s]."""
    row = np.asarray(truth["friction"][joint - 1], dtype=float)
    return np.array([fr.steady_friction(float(x), row, float(temperature_C)) for x in np.asarray(v, float)])


def simulate(
    *,
    controller: str = "AC",
    duration_s: float = 40.0,
    seed: int = 1,
    model: int = 3,
    ambient_temperature_C: float | None = None,
    warm_up_minutes: float = 0.0,
    half_life_s: float = 600.0,
    lambda_reg: float = 1e-3,
    pi_pds0: Any = None,
    pi_F0: Any = None,
    friction_step: tuple[float, float] | None = None,
    closed_from_start: bool = False,
    P0: Any = None,
    per_joint_rows: bool = False,
    imu_calibration: Any = "auto",
    decimate: int = 1,
    estimate: bool = True,
    dwell_s: float = 0.05,
    twin_params: Any = None,
    robot: FiveBar | None = None,
    progress: bool = False,
    controller_overrides: dict[str, Any] | None = None,
) -> xr.Dataset:
    """Run the twin in closed loop on random point-to-point motions; return a recording.

    Parameters
    ----------
    controller : {"PD", "CTC", "AC", "OPEN"}
        Controller (switches of Fig. 1).
    duration_s : float
        Run length [s].
    seed : int
        Seeds the trajectory and every noise stream.
    model : int
        Table 4 friction model the estimator fits.
    ambient_temperature_C : float, optional
        Room temperature [degC] (default: the twin file's, 22 degC).
    warm_up_minutes : float
        Minutes of the paper's fast alternating warm-up motion before the run (thermal state
        jumped exactly; 120 gives the paper's ~39 degC).
    half_life_s, lambda_reg : float
        EWR-RLS settings (paper: 600 s, 0.001).
    pi_pds0, pi_F0 : array_like, optional
        Initial estimate (default 1 and 0, the paper's worst case).
    friction_step : (float, float), optional
        ``(t_s, factor)``: the true friction is multiplied by ``factor`` from ``t_s`` on.
    closed_from_start : bool
        Warm start: switches (b), (c) closed from t = 0 (needs ``pi_pds0``, ``pi_F0`` and ``P0``).
    P0 : array_like (n_pi, n_pi), optional
        Warm start's initial estimator covariance (a previous recording's ``estimator_P`` attribute).
    per_joint_rows : bool
        Per-joint estimator rows instead of summed.
    imu_calibration : "auto", "none" or array_like (2, N_IC)
        IMU conversion rows (:func:`paperlib.estimation.imu_calibration.imu_to_joint`). "auto"
        (default) first records a separate 20-s calibration run (PD, its own seed) and calibrates
        against the encoder (:func:`calibrate_imu_extended`), as the paper calibrates before
        identifying; "none" uses the nominal conversion (unit scales, no delay).
    decimate : int
        Log every ``decimate``-th cycle (1: 4 kHz).
    estimate : bool
        Run the estimator.
    dwell_s : float
        Dwell at each target [s].
    progress : bool
        Print a one-line summary when done.

    Returns
    -------
    xarray.Dataset
        A recording (schema ``paperlib.recording/2``, ``source = "twin"``) with the extras
        listed in the module docstring.
    """
    from paperlib.recordings import make_recording

    t_wall = _time.perf_counter()
    robot = robot or FiveBar.default()
    tp = twin_params or dr.load_twin_params()
    T_amb = tp.ambient_degC if ambient_temperature_C is None else float(ambient_temperature_C)
    if controller not in ctl.CONTROLLER_SWITCHES:
        raise ValueError(f"unknown controller {controller!r}; choose from {sorted(ctl.CONTROLLER_SWITCHES)}")
    if not duration_s > 0:
        raise ValueError("duration_s must be > 0")
    dt = 1.0 / SAMPLE_RATE_HZ
    # trajectory (setpoints) at 4 kHz
    traj = random_point_to_point(flagship_polygon(), duration_s, seed, TABLE3_BOUNDS, dwell_s=dwell_s)
    t_grid, q_sp, qd_sp, qdd_sp = traj.sample_rate(SAMPLE_RATE_HZ)
    n = len(t_grid)
    # IMU conversion (calibration)
    if isinstance(imu_calibration, str):
        if imu_calibration == "auto":
            conv = calibration_run(seed, tp, robot).rows
        elif imu_calibration == "none":
            conv = identity_conversion(2)
        else:
            raise ValueError(f"imu_calibration must be 'auto', 'none' or an array, not {imu_calibration!r}")
    else:
        conv = np.asarray(imu_calibration, dtype=float).reshape(2, N_IC)
    conv = np.ascontiguousarray(conv)
    overrides = dict(controller_overrides or {})
    overrides.setdefault("imu_delay_cycles", int(round(float(np.mean(conv[:, IC_DELAY])))))
    # controller
    cfg = ctl.ControllerConfig(name=controller, model=model, half_life_s=half_life_s, lambda_reg=lambda_reg,
                               per_joint_rows=per_joint_rows, estimate=estimate, closed_from_start=closed_from_start,
                               P0=None if P0 is None else tuple(np.ravel(P0)),
                               pi_pds0=None if pi_pds0 is None else tuple(np.ravel(pi_pds0)),
                               pi_F0=None if pi_F0 is None else tuple(np.ravel(pi_F0)),
                               **overrides)
    c = ctl.Controller(robot, cfg, SAMPLE_RATE_HZ)
    # thermal state: start at ambient, optionally warmed up
    therm_x = th.initial_state(T_amb, 2)
    if warm_up_minutes > 0:
        therm_x = th.warm_up_alternating(warm_up_minutes, tp.warmup_velocity_amplitude_rad_per_s, tp.friction,
                                         tp.thermal, T_amb=T_amb, x0=therm_x)
    therm_x = np.ascontiguousarray(therm_x, dtype=np.float64)
    truth_thermal = therm_x.copy()
    drv = np.ascontiguousarray(tp.drive_array(dt))
    if not np.allclose(drv[:, dr.DR_GEAR], robot.gear_ratios):
        raise ValueError(f"twin gear ratios {drv[:, dr.DR_GEAR]} differ from the robot description's {robot.gear_ratios}")
    drv_state = np.zeros((2, dr.N_DRIVE_STATE))
    imu_state = im.imu_stream_init(tp.imu, 0.0)
    keys = im.make_keys(seed)
    lever_nominal = np.asarray(robot.description["imu"]["lever_arm_m"], dtype=float)
    counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
    enc_step = 2 * np.pi / (counts * robot.gear_ratios)
    fs_t, fs_k = (np.inf, 1.0) if friction_step is None else (float(friction_step[0]), float(friction_step[1]))
    decim = max(1, int(decimate))
    nl = (n + decim - 1) // decim
    log_f = np.zeros((nl, 6, 2))
    log_pi = np.zeros((nl, c.n_params))
    log_parts = np.zeros((nl, 3, 2))
    log_imu_raw = np.zeros((nl, 3, 2))
    log_diag = np.zeros((nl, N_DIAG))
    log_truth = np.zeros((nl, 6, 2))
    st = np.zeros(N_LOOP_STATE)
    st[ST_Q:ST_Q + 2] = q_sp[0]
    st[ST_QD:ST_QD + 2] = qd_sp[0]
    args = (st, robot.params, q_sp, qd_sp, qdd_sp,
            np.ascontiguousarray(tp.friction), fs_t, fs_k, np.ascontiguousarray(tp.thermal_discrete(dt)), therm_x, T_amb,
            drv, drv_state, np.ascontiguousarray(tp.imu), np.ascontiguousarray(tp.link), imu_state, keys,
            lever_nominal, conv, enc_step,
            c.arrays(),
            decim, log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth, _loop_scratch())
    if progress and n > CHUNK:
        from tqdm import tqdm

        status, k_stop = 0, 0
        with tqdm(total=round(n * dt, 2), unit="s", desc=f"twin {controller}", leave=False) as bar:
            while k_stop < n and status == 0:
                k_end = min(n, k_stop + CHUNK)
                status, k_new = _simulate_loop(k_stop, k_end, *args)
                bar.update(round((k_new - k_stop) * dt, 2))
                k_stop = k_new
    else:
        status, k_stop = _simulate_loop(0, n, *args)
    if status != 0:
        raise RuntimeError(f"twin left the workspace or hit a singularity at t = {k_stop * dt:.4f} s (status {status})")
    idx = np.arange(0, n, decim)
    t = t_grid[idx]
    data = {
        "q": log_f[:, 0], "qd": log_f[:, 1], "qdd": log_f[:, 2], "tau_m": log_f[:, 3], "tau_tgt": log_f[:, 4],
        "q_sp": q_sp[idx], "qd_sp": qd_sp[idx], "qdd_sp": qdd_sp[idx], "temperature": log_f[:, 5],
    }
    # running residual of eq. 49 is recomputed offline by the analysis; here the online estimate
    names = c.param_names
    extra = {
        "pi_hat": (("time", "param"), log_pi, {"long_name": "EWR-RLS estimate (online)", "units": "1"}),
        "tau_parts": (("time", "part", "joint"), log_parts,
                      {"long_name": "motor torque command parts: dynamic FF, friction FF, feedback", "units": "N m"}),
        "gyro_z_raw": (("time", "joint"), log_imu_raw[:, 0], {"long_name": "gyroscope z raw counts", "units": "1"}),
        "accel_y_raw": (("time", "joint"), log_imu_raw[:, 1], {"long_name": "accelerometer y raw counts", "units": "1"}),
        "accel_x_raw": (("time", "joint"), log_imu_raw[:, 2], {"long_name": "accelerometer x raw counts", "units": "1"}),
        "q_true": (("time", "joint"), log_truth[:, 0], {"long_name": "true joint angle (twin)", "units": "rad"}),
        "qd_true": (("time", "joint"), log_truth[:, 1], {"long_name": "true joint rate (twin)", "units": "rad/s"}),
        "qdd_true": (("time", "joint"), log_truth[:, 2], {"long_name": "true joint acceleration (twin)", "units": "rad/s^2"}),
        "tau_m_true": (("time", "joint"), log_truth[:, 3], {"long_name": "true motor torque (twin)", "units": "N m"}),
        "tau_F_true": (("time", "joint"), log_truth[:, 4],
                       {"long_name": "true friction Lagrangian component of the active joint alone (twin)", "units": "N m"}),
        "Q_F_true": (("time", "joint"), log_truth[:, 5],
                     {"long_name": "true friction Lagrangian components, all joints (twin)", "units": "N m"}),
        "kinetic_energy": (("time",), log_diag[:, DG_EKIN], {"long_name": "kinetic energy (twin)", "units": "J"}),
        "work_motor": (("time",), log_diag[:, DG_WMOTOR], {"long_name": "cumulative motor work (twin)", "units": "J"}),
        "work_friction": (("time",), log_diag[:, DG_WFRICTION],
                          {"long_name": "cumulative friction dissipation (twin)", "units": "J"}),
    }
    config = {
        "controller": controller, "duration_s": duration_s, "seed": seed, "model": model,
        "ambient_temperature_C": T_amb, "warm_up_minutes": warm_up_minutes, "half_life_s": half_life_s,
        "lambda": lambda_reg, "friction_step": friction_step, "closed_from_start": closed_from_start, "per_joint_rows": per_joint_rows,
        "decimate": decim, "dwell_s": dwell_s, "controller_config": {k: v for k, v in asdict(cfg).items() if k not in ("model", "P0")},
        "warm_start_P0": P0 is not None,
        "imu_conversion": conv.tolist(),
    }
    truth = _truth_dict(tp, drv, robot, truth_thermal)
    ds = make_recording(
        t, [1, 2], data, robot="five_bar", source="twin", sample_rate_hz=SAMPLE_RATE_HZ / decim,
        controller=controller, config=config, seed=seed, truth=truth,
        origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor", extra_vars=extra, attrs={"converged_s": c.converged_s, "param_names": json.dumps(names),
                                 "estimator_P": json.dumps(c.P.tolist())},
    )
    ds = ds.assign_coords(param=names, part=["dynamic_ff", "friction_ff", "feedback"])
    if progress:
        wall = _time.perf_counter() - t_wall
        print(f"twin: {controller} {duration_s:.1f} s simulated in {wall:.2f} s ({duration_s / wall:.0f}x real time)")
    return ds


def calibration_run(seed: int, twin_params: Any = None, robot: FiveBar | None = None, duration_s: float = 20.0):
    """Record a PD run with the nominal IMU conversion and calibrate the IMUs against the encoders.

    Uses its own seed (``seed + 1_000_003``) so the calibration data are not the run's data.
    """
    ds = simulate(controller="PD", duration_s=duration_s, seed=int(seed) + 1_000_003, estimate=False,
                  imu_calibration="none", twin_params=twin_params, robot=robot)
    return calibrate_imu_extended(ds.q.values, ds.qd.values, ds.qdd.values, 1.0 / SAMPLE_RATE_HZ)


def record(output: str | Path, **kwargs: Any) -> Path:
    """:func:`simulate` and write the recording to ``output`` (validated, atomic)."""
    from paperlib.recordings import write_recording

    return write_recording(simulate(**kwargs), output)
