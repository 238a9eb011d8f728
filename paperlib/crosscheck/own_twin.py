"""The own twin's 5R plant run the way the MuJoCo cross-check runs it: ideal sensing, open or closed loop.

:func:`own_closed_loop` is the twin's compiled loop (:mod:`paperlib.twin.runner`) with ideal sensing
(encoder quantized, rate and acceleration from the plant) instead of the IMU stream, on the same
setpoints, drives, friction and controller as :func:`paperlib.crosscheck.mujoco_five_bar.closed_loop`.
:func:`own_open_loop` integrates the twin's plant (:mod:`paperlib.twin.plant`: reduced model, RK4
with the forces held over each control cycle) under a given motor-torque history.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import xarray as xr

from paperlib._linalg import accel_from
from paperlib.control import controllers as ctl
from paperlib.crosscheck.mujoco_five_bar import SENSING, CycleForces, cycle_recording, setpoints
from paperlib.estimation.config import EstimatorConfig
from paperlib.twin import drives as dr
from paperlib.twin import plant as pl
from paperlib.twin import runner
from paperlib.twin.guard import twin_run
from paperlib.twin.truth import truth_dict

__all__ = ["own_closed_loop", "own_open_loop"]


@twin_run
def own_open_loop(robot: Any, tau_motor: np.ndarray, q0: Any, qd0: Any, *, twin_params: Any = None,
                  friction_scale: float = 1.0) -> dict[str, np.ndarray]:
    """The own twin's plant under motor torques (N, 2) [N m] held one control cycle each.

    Returns ``q``, ``qd`` (N + 1, 2), ``ekin``, ``w_motor``, ``w_friction`` (N + 1,) [J], as
    :func:`paperlib.crosscheck.mujoco_five_bar.open_loop`.
    """
    tp = twin_params or dr.load_twin_params()
    dt = 1.0 / robot.sample_rate_hz
    forces = CycleForces(tp, dt, friction_scale)
    ks = robot.kernels
    kid = ks.kid
    prm = np.ascontiguousarray(robot.params)
    sc = pl.cycle_scratch(ks.n_joints, ks.n_drives, ks.n_ups)
    M, h, D_psi, psid, work, dq, qdd = (sc[k] for k in ("M", "h", "D_psi", "psid", "work", "dq", "qdd"))
    k1v, QF, Qa, Qm = np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2)
    q = np.array(q0, dtype=float)
    qd = np.array(qd0, dtype=float)
    tau_motor = np.asarray(tau_motor, dtype=float)
    n = tau_motor.shape[0]
    out = {k: np.zeros((n + 1, 2)) for k in ("q", "qd")}
    out.update({k: np.zeros(n + 1) for k in ("ekin", "w_motor", "w_friction")})
    iota = robot.gear_ratios
    energy = np.zeros(2)
    for k in range(n + 1):
        s = pl.cycle_begin(kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd, work)
        if s != 0:
            raise RuntimeError(f"own twin left the workspace at cycle {k} (status {s})")
        out["q"][k], out["qd"][k] = q, qd
        out["ekin"][k] = 0.5 * qd @ M @ qd
        out["w_motor"][k], out["w_friction"][k] = energy[pl.EN_MOTOR], energy[pl.EN_FRICTION]
        if k == n:
            break
        Qm[:] = iota * tau_motor[k]
        F = forces.friction(psid)
        for i in range(2):
            QF[i] = -float(D_psi[:, i] @ F)
            Qa[i] = Qm[i] + QF[i]
        accel_from(M, Qa, h, k1v, work[8:])
        s = pl.plant_rk4(kid, q, qd, Qa, k1v, prm, dt, M, h, work, dq)
        if s != 0:
            raise RuntimeError(f"own twin left the workspace at cycle {k} (status {s})")
        energy[pl.EN_MOTOR] += float(Qm @ dq)
        energy[pl.EN_FRICTION] -= float(QF @ dq)
        forces.heat()
    return out


@twin_run
def own_closed_loop(robot: Any = None, *, controller: str = "PD", duration_s: float = 10.0, seed: int = 1,
                    estimate: bool = False, model: int = 3, twin_params: Any = None, friction_scale: float = 1.0,
                    dwell_s: float = 0.05) -> xr.Dataset:
    """The own twin's closed loop with ideal sensing (arguments as the MuJoCo ``closed_loop``).

    Returns the recording (:func:`paperlib.crosscheck.mujoco_five_bar.cycle_recording`, attribute
    ``simulator = "paperlib"``): the twin's compiled loop with its sensing switched to ideal.
    """
    from paperlib.robots.five_bar import FiveBar

    robot = robot or FiveBar.default()
    tp = twin_params or dr.load_twin_params()
    rate = robot.sample_rate_hz
    dt = 1.0 / rate
    t, q_sp, qd_sp, qdd_sp = setpoints(robot, duration_s, seed, dwell_s)
    cfg = ctl.ControllerConfig.from_estimator(controller, EstimatorConfig(model=model), estimate=estimate)
    c = ctl.Controller(robot, cfg, rate)
    forces = CycleForces(tp, dt, friction_scale)  # the same drive, friction and thermal arrays
    counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
    la = runner.LoopArrays.build(
        robot=robot, controller=c, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp, sample_rate_hz=rate,
        fric=forces.fric, therm_x=forces.therm_x, therm_disc=forces.therm_disc, T_amb=forces.T_amb,
        drv=forces.drv, D_drive=pl.drive_map_of_gears(forces.drv[:, dr.DR_GEAR]),
        enc_step=2 * np.pi / (counts * robot.gear_ratios), friction_step=(0.0, float(friction_scale)))
    status, k_stop = runner.run(la)
    if status != 0:
        raise RuntimeError(f"own twin stopped at cycle {k_stop} (status {status})")
    lt, lf, dg = la["log_truth"], la["log_f"], la["log_diag"]
    log = {name: lf[:, r].copy() for r, name in enumerate(runner.LOG_ROWS)}
    log.update({name: lt[:, r].copy() for r, name in enumerate(runner.TRUTH_ROWS[:4])})
    log.update({"q_sp": q_sp, "qd_sp": qd_sp, "qdd_sp": qdd_sp, "kinetic_energy": dg[:, runner.DG_EKIN].copy(),
                "work_motor": dg[:, runner.DG_WMOTOR].copy(), "work_friction": dg[:, runner.DG_WFRICTION].copy()})
    config = {"controller": controller, "duration_s": duration_s, "seed": seed, "estimate": estimate, "model": model,
              "friction_scale": friction_scale, "dwell_s": dwell_s, "sensing": SENSING}
    truth = truth_dict(tp, forces.drv, robot, forces.therm_x0)
    truth["friction_scale"] = friction_scale
    return cycle_recording(robot, t, log, controller=controller, config=config, seed=seed, truth=truth,
                           simulator="own twin", attrs={"simulator": "paperlib", "converged_s": c.converged_s,
                                                        "param_names": json.dumps(list(c.param_names))})
