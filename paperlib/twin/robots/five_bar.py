"""The 5R digital twin in closed loop: plant, drives, sensors, temperature, controller, estimator.

:func:`simulate` composes the generic layers for the 5R: it designs the motion
(:func:`paperlib.control.trajectories.random_point_to_point` in the well-conditioned polygon),
calibrates the IMUs first when asked (:func:`calibration_run`, the protocol of
:mod:`paperlib.estimation.imu_calibration`), builds the controller, the drives, the thermal state
and the IMU stream from ``data/twin/five_bar_twin.toml``, and runs them in the one closed-loop
runner (:mod:`paperlib.twin.runner`: sense with the IMU stream and the drive-reported torque,
control step, drives, LuGre friction of the five joints, RK4 with the forces held, heat) at the
robot's control rate (``control.sample_rate_hz`` of ``data/robots/five_bar.toml``).

Recordings come out in the schema ``paperlib.recording/2`` with ``source = "twin"`` and the
true values (drive gains, friction laws, temperatures) in their ``truth`` attribute.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import math
import pickle
import time as _time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from paperlib.control import controllers as ctl
from paperlib.estimation.config import EstimatorConfig
from paperlib.control.planning import motion_bounds, planning_polygon
from paperlib.estimation.imu_calibration import IC_DELAY, calibration_protocol, conversion_rows
from paperlib.control.trajectories import (
    Polygon,
    random_point_to_point,
    well_conditioned_polygon,
)
from paperlib.robots.five_bar import FiveBar
from paperlib.friction import lugre as fr
from paperlib.twin import drives as dr
from paperlib.twin import imu as im
from paperlib.twin import runner
from paperlib.twin import thermal as th
from paperlib.twin.plant import drive_map_of_gears
from paperlib.twin.runner import DG_EKIN, DG_WFRICTION, DG_WMOTOR
from paperlib.twin.truth import FRICTION_PARAM_NAMES, truth_dict  # noqa: F401  (re-exported)

#: The 5R rig's control rate [Hz], from its description (``data/robots/five_bar.toml``).
SAMPLE_RATE_HZ = FiveBar.default().sample_rate_hz

def flagship_polygon(sigma_threshold: float = 0.4) -> Polygon:
    """The 5R's planning polygon (Fig. 4): :func:`paperlib.control.planning.planning_polygon`."""
    return planning_polygon(FiveBar.default(), sigma_threshold)


def true_friction_curve(truth: dict[str, Any], joint: int, v: np.ndarray, temperature_C: float) -> np.ndarray:
    """The twin's true steady friction torque of joint ``joint`` (1-based) [N m] at v [rad/s]."""
    return fr.StribeckLaw.from_row(truth["friction"][joint - 1]).torque(np.asarray(v, float), float(temperature_C))


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
    inject_nan_qd: tuple[float, int] | None = None,
    estimator: EstimatorConfig | None = None,
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
    estimator : EstimatorConfig, optional
        Every estimator setting at once (:mod:`paperlib.estimation.config`); when given, the
        separate estimator arguments above (``model``, ``half_life_s``, ``lambda_reg``,
        ``pi_pds0``, ``pi_F0``, ``closed_from_start``, ``P0``, ``per_joint_rows``) must be left
        at their defaults. Its ``imu_delay_cycles`` is replaced by the delay the IMU calibration
        measured (the twin's, as the hardware session takes the rig's) unless
        ``controller_overrides`` sets it.
    inject_nan_qd : (float, int), optional
        Fault injection for tests: ``(t_s, joint)`` makes the gyroscope rate of ``joint``
        (1-based) NaN in the cycle at ``t_s``. The control step then faults (zero torque) and
        the run stops safely: the recording ends at the last good cycle and its ``fault``
        attribute names the cause.

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
    rate = robot.sample_rate_hz
    dt = 1.0 / rate
    # trajectory (setpoints) at 4 kHz
    traj = random_point_to_point(flagship_polygon(), duration_s, seed, motion_bounds(robot), dwell_s=dwell_s)
    t_grid, q_sp, qd_sp, qdd_sp = traj.sample_rate(rate)
    n = len(t_grid)
    # IMU conversion (calibration)
    conv = conversion_rows(imu_calibration, lambda: calibration_run(seed, tp, robot).rows)
    overrides = dict(controller_overrides or {})
    overrides.setdefault("imu_delay_cycles", int(round(float(np.mean(conv[:, IC_DELAY])))))
    # controller: the whole estimator configuration, then the run's own settings
    legacy = {"model": model, "half_life_s": half_life_s, "lambda_reg": lambda_reg, "per_joint_rows": per_joint_rows,
              "closed_from_start": closed_from_start, "P0": P0, "pi_pds0": pi_pds0, "pi_F0": pi_F0}
    if estimator is None:
        estimator = EstimatorConfig(**legacy)
    else:
        defaults = EstimatorConfig()
        clash = [k for k, v in legacy.items() if (v is not None and not isinstance(v, (bool, int, float))) or
                 (isinstance(v, (bool, int, float)) and v != getattr(defaults, k))]
        if clash:
            raise ValueError(f"give the estimator settings in one place: estimator= and {clash}")
    cfg = ctl.ControllerConfig.from_estimator(controller, estimator.replace(**overrides), estimate=estimate)
    c = ctl.Controller(robot, cfg, rate)
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
    imu = {"imu_p": tp.imu, "link_p": tp.link, "imu_state": im.imu_stream_init(tp.imu, 0.0),
           "imu_keys": im.make_keys(seed), "lever_nominal": np.asarray(robot.description["imu"]["lever_arm_m"], float),
           "imu_conv": conv}
    counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
    enc_step = 2 * np.pi / (counts * robot.gear_ratios)
    la = runner.LoopArrays.build(
        robot=robot, controller=c, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp, sample_rate_hz=rate,
        fric=tp.friction, therm_x=therm_x, therm_disc=tp.thermal_discrete(dt), T_amb=T_amb, drv=drv,
        D_drive=drive_map_of_gears(drv[:, dr.DR_GEAR]), enc_step=enc_step, decimate=decimate,
        friction_step=friction_step, imu=imu, inject_nan_qd=inject_nan_qd)
    decim = la["decim"]
    status, k_stop = runner.run(la, progress=f"twin {controller}" if progress else None)
    log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth = (
        la[k] for k in ("log_f", "log_pi", "log_parts", "log_imu_raw", "log_diag", "log_truth"))
    idx = np.arange(0, n, decim)
    fault = None
    if status >= runner.LOOP_CONTROL_FAULT:
        fault = runner.fault_message(la, status, k_stop)
        rows = (k_stop + decim - 1) // decim
        idx = idx[:rows]
        log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth = (
            a[:rows] for a in (log_f, log_pi, log_parts, log_imu_raw, log_diag, log_truth))
    elif status != 0:
        raise RuntimeError(f"twin left the workspace or hit a singularity at t = {k_stop * dt:.4f} s (status {status})")
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
        "controller": controller, "duration_s": duration_s, "seed": seed, "model": cfg.to_dict()["model"],
        "ambient_temperature_C": T_amb, "warm_up_minutes": warm_up_minutes, "half_life_s": cfg.half_life_s,
        "lambda": cfg.lambda_reg, "friction_step": friction_step, "closed_from_start": cfg.closed_from_start,
        "per_joint_rows": cfg.per_joint_rows,
        "decimate": decim, "dwell_s": dwell_s, "controller_config": {k: v for k, v in asdict(cfg).items() if k not in ("model", "P0")},
        "warm_start_P0": cfg.P0 is not None,
        "estimator": cfg.estimator_config().to_dict(),
        "imu_conversion": conv.tolist(),
    }
    truth = truth_dict(tp, drv, robot, truth_thermal)
    ds = make_recording(
        t, [1, 2], data, robot="five_bar", source="twin", sample_rate_hz=rate / decim,
        controller=controller, config=config, seed=seed, truth=truth,
        origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor", extra_vars=extra,
        attrs={"converged_s": c.converged_s, "param_names": json.dumps(names), "estimator_P": json.dumps(c.P.tolist()),
               **({"fault": fault} if fault else {}),
               # a twin calibrated to a published quantity says so (issue 28: labelled `calibrated`)
               **({"twin_calibration": json.dumps(tp.raw["calibration"], sort_keys=True)}
                  if "calibration" in getattr(tp, "raw", {}) else {})},
    )
    ds = ds.assign_coords(param=names, part=["dynamic_ff", "friction_ff", "feedback"])
    if progress:
        wall = _time.perf_counter() - t_wall
        print(f"twin: {controller} {duration_s:.1f} s simulated in {wall:.2f} s ({duration_s / wall:.0f}x real time)")
    return ds


#: Calibrations made in this process, by the content of their inputs (a twin run is deterministic):
#: the pipeline's recordings share seeds (PD, CTC and AC one, cold and warm another), and a sweep job
#: makes them all in one process, so each calibration run is made once.
_CALIBRATIONS: dict[str, Any] = {}
_CALIBRATIONS_KEPT = 16


def calibration_run(seed: int, twin_params: Any = None, robot: FiveBar | None = None, duration_s: float = 20.0):
    """The IMU-calibration protocol (:func:`paperlib.estimation.imu_calibration.calibration_protocol`) on the twin.

    The same seed, duration, twin parameters and robot give the same calibration: it is made once
    per process and handed out as a copy.
    """
    tp = twin_params or dr.load_twin_params()
    robot = robot or FiveBar.default()
    key = hashlib.sha256(pickle.dumps((int(seed), float(duration_s), tp, robot.params, robot.description))).hexdigest()
    if key not in _CALIBRATIONS:
        if len(_CALIBRATIONS) >= _CALIBRATIONS_KEPT:
            _CALIBRATIONS.pop(next(iter(_CALIBRATIONS)))
        _CALIBRATIONS[key] = calibration_protocol(
            lambda **kw: simulate(**kw, twin_params=tp, robot=robot), seed, duration_s=duration_s)
    return copy.deepcopy(_CALIBRATIONS[key])


def record(output: str | Path, **kwargs: Any) -> Path:
    """:func:`simulate` and write the recording to ``output`` (validated, atomic)."""
    from paperlib.recordings import write_recording

    return write_recording(simulate(**kwargs), output)
