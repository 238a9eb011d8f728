"""The 5R simulated by MuJoCo, driven by the compendium's drives, friction laws and controller.

:class:`MuJoCoFiveBar` holds the compiled model of :func:`paperlib.crosscheck.mjcf_five_bar.five_bar_mjcf`
and advances it one control cycle at a time with generalized forces held over the cycle (the
own twin holds its forces the same way, :mod:`paperlib.twin.plant`), in ``n_sub`` MuJoCo steps.

What is shared with the own twin and what is not:

* **not shared (the point of the check)**: the mechanics -- mass matrix, velocity terms, the loop
  closure (here a soft ``connect`` constraint on four hinge coordinates instead of the reduced
  two-coordinate model with the closure solved exactly) -- and the integrator (MuJoCo's RK4 or
  implicit step with its constraint solver, at its own step);
* **shared (inputs, not the object of the check)**: the drive model (current loop, true torque
  constants, quantization: :func:`paperlib.twin.drives.drive_step`), the LuGre friction of the
  five joints (:func:`paperlib.twin.plant.friction_torques`, the compendium's friction law, applied
  as joint forces; or MuJoCo's own joint friction, :func:`native_friction`), the gearbox heat, the
  twin's parameter file, and the controller (:class:`paperlib.control.controllers.Controller`, the
  same compiled step as every loop).

Sensing is ideal by default (encoder quantized to the robot's resolution; joint rate and
acceleration from the simulator, ``origin = model``), so that the check compares mechanics; with
``sensing = "imu"`` the twin's IMU stream model senses MuJoCo's motion, as in the room's runs.
:func:`closed_loop` writes a schema-2 recording (``source = twin``, attribute ``simulator = mujoco``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from paperlib.control import controllers as ctl
from paperlib.control.planning import motion_bounds, planning_polygon
from paperlib.control.trajectories import random_point_to_point
from paperlib.estimation.config import EstimatorConfig
from paperlib.estimation.imu_calibration import IC_DELAY, calibration_protocol, conversion_rows, imu_to_joint
from paperlib.crosscheck.mjcf import MjcfOptions
from paperlib.crosscheck.mjcf_five_bar import JOINTS, PSI_CONST, PSI_JACOBIAN, five_bar_mjcf, qpos_qvel
from paperlib.twin import drives as dr
from paperlib.twin import imu as im
from paperlib.twin import plant as pl
from paperlib.twin import thermal as th
from paperlib.twin.guard import twin_run
from paperlib.twin.truth import truth_dict

__all__ = ["MuJoCoFiveBar", "CycleForces", "closed_loop", "open_loop", "setpoints", "cycle_recording", "native_friction", "record", "SENSING", "SENSING_IMU"]

#: The actuated coordinates' places in MuJoCo's qpos (:data:`paperlib.crosscheck.mjcf_five_bar.JOINTS`).
ACTUATED = (JOINTS.index("q1"), JOINTS.index("q2"))


def _mujoco() -> Any:
    try:
        import mujoco
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the MuJoCo cross-check needs the `mujoco` package: pip install 'paperlib[crosscheck]'") from exc
    return mujoco


class MuJoCoFiveBar:
    """The 5R's MuJoCo model and state, advanced one control cycle at a time.

    Parameters
    ----------
    robot : FiveBar
        The robot (its file gives the model).
    sample_rate_hz : float, optional
        Control rate [Hz] (default: the robot's, 4 kHz).
    n_sub : int
        MuJoCo steps per control cycle (MuJoCo's timestep is ``1 / (sample_rate_hz n_sub)``).
    options : dict, optional
        Further :class:`~paperlib.crosscheck.mjcf.MjcfOptions` (integrator, solref, solimp...);
        ``timestep_s`` is set from the two above.
    """

    def __init__(self, robot: Any, sample_rate_hz: float | None = None, n_sub: int = 4,
                 options: dict[str, Any] | None = None) -> None:
        mj = _mujoco()
        self.robot = robot
        self.rate = float(sample_rate_hz or robot.sample_rate_hz)
        self.dt = 1.0 / self.rate
        self.n_sub = int(n_sub)
        if self.n_sub < 1:
            raise ValueError("n_sub must be >= 1")
        self.options = MjcfOptions(**{**(options or {}), "timestep_s": self.dt / self.n_sub})
        self.xml = five_bar_mjcf(robot, self.options)
        self.model = mj.MjModel.from_xml_string(self.xml)
        self.data = mj.MjData(self.model)
        self._mj = mj
        self.qfrc = np.zeros(self.model.nv)

    # -- state -----------------------------------------------------------------------------------
    def set_state(self, q: Any, qd: Any) -> None:
        """Place the closed mechanism at actuated angles q [rad] and rates qd [rad/s]."""
        mj = self._mj
        mj.mj_resetData(self.model, self.data)
        qpos, qvel = qpos_qvel(self.robot, q, qd)
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        mj.mj_forward(self.model, self.data)

    @property
    def q(self) -> np.ndarray:
        """Actuated joint angles (2,) [rad]."""
        return self.data.qpos[list(ACTUATED)].copy()

    @property
    def qd(self) -> np.ndarray:
        """Actuated joint rates (2,) [rad/s]."""
        return self.data.qvel[list(ACTUATED)].copy()

    @property
    def qdd(self) -> np.ndarray:
        """Actuated joint accelerations (2,) [rad/s^2] of the last :meth:`forward`."""
        return self.data.qacc[list(ACTUATED)].copy()

    @property
    def psi(self) -> np.ndarray:
        """The paper's internal angles psi_1..psi_5 (5,) [rad]."""
        return PSI_CONST + PSI_JACOBIAN @ self.data.qpos

    @property
    def psid(self) -> np.ndarray:
        """Internal joint rates (5,) [rad/s]."""
        return PSI_JACOBIAN @ self.data.qvel

    def closure_error(self) -> float:
        """Distance between the two distal tips [m] (zero when the loop is exactly closed)."""
        x = self.data.site_xpos
        return float(np.linalg.norm(x[0] - x[1]))

    def kinetic_energy(self) -> float:
        """Kinetic energy [J] of the state of the last :meth:`forward` (MuJoCo's own)."""
        return float(self.data.energy[1])

    def forward(self) -> None:
        """MuJoCo's forward dynamics at the current state with the forces held now (no step)."""
        self._mj.mj_forward(self.model, self.data)

    # -- one cycle -------------------------------------------------------------------------------
    def advance(self, tau_motor: np.ndarray, F_friction: np.ndarray) -> None:
        """One control cycle with motor torques (2,) [N m] and friction torques (5,) [N m, resisting] held.

        The motors act through the actuators (``ctrl``, gear = reduction); friction enters as
        ``qfrc_applied = -PSI_JACOBIAN^T F``.
        """
        self.data.ctrl[:] = tau_motor
        np.dot(PSI_JACOBIAN.T, -np.asarray(F_friction, dtype=float), out=self.qfrc)
        self.data.qfrc_applied[:] = self.qfrc
        self._mj.mj_step(self.model, self.data, nstep=self.n_sub)


def setpoints(robot: Any, duration_s: float, seed: int, dwell_s: float = 0.05) -> tuple[np.ndarray, ...]:
    """The own twin's random point-to-point setpoints at the robot's rate: (t, q_sp, qd_sp, qdd_sp)."""
    traj = random_point_to_point(planning_polygon(robot, 0.4), duration_s, seed, motion_bounds(robot), dwell_s=dwell_s)
    return traj.sample_rate(robot.sample_rate_hz)


@dataclass
class CycleForces:
    """The forces shared by the two simulators: drives, LuGre friction of the five joints, gearbox heat.

    ``friction_scale`` multiplies every friction torque (0: frictionless). State: drive states, bristles
    ``z`` (5,), gearbox temperatures ``therm_x`` (2, 2).
    """

    tp: Any
    dt: float
    friction_scale: float = 1.0

    def __post_init__(self) -> None:
        self.drv = np.ascontiguousarray(self.tp.drive_array(self.dt))
        self.drv_state = np.zeros((self.drv.shape[0], dr.N_DRIVE_STATE))
        self.fric = np.ascontiguousarray(self.tp.friction)
        self.T_amb = float(self.tp.ambient_degC)
        self.therm_x = np.ascontiguousarray(th.initial_state(self.T_amb, 2), dtype=np.float64)
        self.therm_x0 = self.therm_x.copy()
        self.therm_disc = np.ascontiguousarray(self.tp.thermal_discrete(self.dt))
        self.z = np.zeros(self.fric.shape[0])
        self.phi = np.zeros(self.fric.shape[0])
        self.Tj = np.zeros(self.fric.shape[0])
        self.F = np.zeros(self.fric.shape[0])
        self.psid0 = np.zeros(self.fric.shape[0])
        self.tau_act = np.zeros(self.drv.shape[0])
        self.tau_rep = np.zeros(self.drv.shape[0])

    def drives(self, tau_tgt: np.ndarray) -> np.ndarray:
        """Each drive over the cycle: actual motor torques (2,) [N m]; the reported ones in ``tau_rep``."""
        for d in range(self.drv.shape[0]):
            self.tau_act[d], self.tau_rep[d] = dr.drive_step(self.drv_state[d], float(tau_tgt[d]), self.drv[d])
        return self.tau_act

    def friction(self, psid: np.ndarray) -> np.ndarray:
        """LuGre torques (5,) [N m, resisting] at the cycle's start; bristles advanced over the cycle."""
        th.joint_temperatures(self.therm_x, self.T_amb, self.Tj)
        pl.friction_torques(self.friction_scale, self.z, self.phi, self.Tj, self.fric, self.dt,
                            np.ascontiguousarray(psid, dtype=float), self.psid0, self.F)
        return self.F

    def heat(self) -> None:
        """The gearboxes heat with the cycle's friction power."""
        pl.plant_heat(self.therm_x, self.F, self.psid0, self.therm_disc, self.T_amb)


@twin_run
def open_loop(robot: Any, tau_motor: np.ndarray, q0: Any, qd0: Any, *, twin_params: Any = None,
              friction_scale: float = 1.0, n_sub: int = 4, options: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """MuJoCo driven by a given history of actual motor torques (N, 2) [N m], one row per control cycle.

    Returns ``q``, ``qd`` (N + 1, 2) of the actuated joints, ``closure`` (N + 1,) [m], ``ekin``
    (N + 1,) [J], ``w_motor``, ``w_friction`` (N + 1,) [J]: cumulative work of the held motor torques
    and friction dissipation (exact for held forces: ``Q . d qpos``).
    """
    tp = twin_params or dr.load_twin_params()
    sim = MuJoCoFiveBar(robot, n_sub=n_sub, options=options)
    forces = CycleForces(tp, sim.dt, friction_scale)
    sim.set_state(q0, qd0)
    tau_motor = np.asarray(tau_motor, dtype=float)
    n = tau_motor.shape[0]
    out = {k: np.zeros((n + 1, 2)) for k in ("q", "qd")}
    out.update({k: np.zeros(n + 1) for k in ("closure", "ekin", "w_motor", "w_friction")})
    iota = robot.gear_ratios
    wm = wf = 0.0
    for k in range(n + 1):
        out["q"][k], out["qd"][k] = sim.q, sim.qd
        out["closure"][k], out["ekin"][k] = sim.closure_error(), sim.kinetic_energy()
        out["w_motor"][k], out["w_friction"][k] = wm, wf
        if k == n:
            break
        F = forces.friction(sim.psid)
        qpos0 = sim.data.qpos.copy()
        sim.advance(tau_motor[k], F)
        sim.forward()
        dqpos = sim.data.qpos - qpos0
        wm += float(np.dot(iota * tau_motor[k], dqpos[list(ACTUATED)]))
        wf += float(np.dot(F, PSI_JACOBIAN @ dqpos))
        forces.heat()
    return out


@twin_run
def closed_loop(robot: Any = None, *, controller: str = "PD", duration_s: float = 10.0, seed: int = 1,
                estimate: bool = False, model: int = 3, twin_params: Any = None, friction_scale: float = 1.0,
                n_sub: int = 4, options: dict[str, Any] | None = None, dwell_s: float = 0.05,
                friction: str = "lugre", sensing: str = "ideal", imu_calibration: Any = "auto") -> xr.Dataset:
    """The compendium's controller stepping on the MuJoCo 5R over the own twin's setpoints; a recording.

    Each control cycle, in the own twin's order (:mod:`paperlib.twin.runner`): state at the cycle's
    start (MuJoCo's forward dynamics with the last cycle's forces: the acceleration an IMU feels);
    sense (encoder angle quantized; rate and acceleration ideal); control step; drives over the cycle;
    friction at the cycle's start; the forces held over ``n_sub`` MuJoCo steps; work and heat.

    Parameters
    ----------
    robot : FiveBar, optional
        Default: ``FiveBar.default()``.
    controller : {"PD", "CTC", "AC", "OPEN"}
        As :func:`paperlib.twin.robots.five_bar.simulate`.
    duration_s, seed, dwell_s : float, int, float
        Run length [s], setpoint seed, dwell at each target [s].
    estimate : bool
        Run the online EWR-RLS (``model``: Table 4 friction model). Off by default: the PD cross-check
        compares mechanics, and the estimate would rescale PD's torque once it converged.
    twin_params : TwinParams, optional
        Drives, friction, thermal (default: the 5R twin's file).
    friction_scale : float
        Multiplies all friction (0: frictionless).
    friction : {"lugre", "native"}
        ``lugre``: the twin's LuGre law of the five joints applied as joint forces (the cross-check).
        ``native``: MuJoCo's own joint friction instead (:func:`native_friction`: dry friction as a
        constraint plus viscous damping, at the twin's cold Coulomb and viscous levels; no Stribeck
        dip, presliding, shear thinning or temperature); the truth then lists those laws.
    n_sub, options :
        MuJoCo steps per cycle and model options (:class:`MuJoCoFiveBar`).
    sensing : {"ideal", "imu"}
        ``ideal``: encoder angle quantized, rate and acceleration from MuJoCo (``origin = model``).
        ``imu``: rate and acceleration from the twin's IMU stream model (:mod:`paperlib.twin.imu`: the
        sensors, the board and the UDP link, noise keyed by ``seed``) fed with MuJoCo's motion and
        converted with the nominal lever arm and ``imu_calibration``, as the room's twin runs sense.
    imu_calibration : "auto", "none" or array_like (2, N_IC)
        With ``sensing = "imu"``: "auto" records a 20-s PD calibration run on MuJoCo first (the
        protocol of :func:`paperlib.estimation.imu_calibration.calibration_protocol`, its own seed), as
        :func:`paperlib.twin.robots.five_bar.simulate` does on the own twin; "none": nominal conversion.

    Returns
    -------
    xarray.Dataset
        Schema ``paperlib.recording/2``, ``source = "twin"``, attributes ``simulator = "mujoco"``,
        ``simulator_version``, ``mjcf`` (the model text); the extra variables of :func:`cycle_recording`.
    """
    from paperlib.robots.five_bar import FiveBar

    robot = robot or FiveBar.default()
    tp = twin_params or dr.load_twin_params()
    if friction not in ("lugre", "native"):
        raise ValueError(f"friction must be 'lugre' or 'native', not {friction!r}")
    native = friction == "native"
    truth_rows = None
    if native:
        native_opts, truth_rows = native_friction(tp, friction_scale)
        options = {**(options or {}), **native_opts}
    if sensing not in ("ideal", "imu"):
        raise ValueError(f"sensing must be 'ideal' or 'imu', not {sensing!r}")
    imu = None
    if sensing == "imu":
        conv = conversion_rows(imu_calibration, lambda: calibration_protocol(
            lambda **kw: closed_loop(robot, **kw, twin_params=tp, friction_scale=friction_scale, n_sub=n_sub,
                                     options=options, dwell_s=dwell_s, friction=friction, sensing="imu"), seed).rows)
        imu = {"state": im.imu_stream_init(tp.imu, 0.0), "keys": im.make_keys(seed), "out": np.zeros((2, im.N_OUT)),
               "lever": np.asarray(robot.description["imu"]["lever_arm_m"], float), "conv": conv}
    sim = MuJoCoFiveBar(robot, n_sub=n_sub, options=options)
    dt, rate = sim.dt, sim.rate
    t, q_sp, qd_sp, qdd_sp = setpoints(robot, duration_s, seed, dwell_s)
    n = len(t)
    est_cfg = EstimatorConfig(model=model)
    if imu is not None:
        est_cfg = est_cfg.replace(imu_delay_cycles=int(round(float(np.mean(imu["conv"][:, IC_DELAY])))))
    cfg = ctl.ControllerConfig.from_estimator(controller, est_cfg, estimate=estimate)
    c = ctl.Controller(robot, cfg, rate)
    forces = CycleForces(tp, dt, 0.0 if native else friction_scale)
    if not np.allclose(forces.drv[:, dr.DR_GEAR], robot.gear_ratios):
        raise ValueError("twin gear ratios differ from the robot description's")
    counts = float(robot.description["sensors"]["encoder_counts_per_motor_rev"])
    enc = 2 * np.pi / (counts * robot.gear_ratios)
    iota = robot.gear_ratios
    sim.set_state(q_sp[0], qd_sp[0])
    names = ("q", "qd", "qdd", "tau_m", "tau_tgt", "temperature", "q_true", "qd_true", "qdd_true", "tau_m_true")
    log = {k: np.zeros((n, 2)) for k in names}
    log["F_psi_true"] = np.zeros((n, 5))
    log1 = {k: np.zeros(n) for k in ("closure_error", "kinetic_energy", "work_motor", "work_friction")}
    meas = c.meas
    wm = wf = 0.0
    act = list(ACTUATED)
    for k in range(n):
        tk = k * dt
        q, qd, qdd = sim.data.qpos[act], sim.data.qvel[act], sim.data.qacc[act]
        meas[ctl.M_Q, :2] = np.floor(q / enc + 0.5) * enc
        if imu is None:
            meas[ctl.M_QD, :2] = qd
            meas[ctl.M_QDD, :2] = qdd
        else:
            out = imu["out"]
            im.imu_stream_step(imu["state"], imu["keys"], tp.imu, tp.link, tk, qd, qdd, out)
            for j in range(2):
                meas[ctl.M_QD, j], meas[ctl.M_QDD, j] = imu_to_joint(out[j, im.OUT_GZ], out[j, im.OUT_AY],
                                                                   imu["lever"][j], imu["conv"][j])
        meas[ctl.M_TAU, :2] = forces.tau_rep
        meas[ctl.M_Q_SP, :2] = q_sp[k]
        meas[ctl.M_QD_SP, :2] = qd_sp[k]
        meas[ctl.M_QDD_SP, :2] = qdd_sp[k]
        tau_tgt = c.step(tk)
        if c.fault() is not None:
            raise RuntimeError(f"control fault at t = {tk:.6f} s: {c.fault()}")
        # logged as the twin logs them: the torque the drives reported at the cycle's start (what the
        # control step saw), then the drives' actual torque over the cycle
        log["q"][k], log["qd"][k], log["qdd"][k] = meas[ctl.M_Q, :2], meas[ctl.M_QD, :2], meas[ctl.M_QDD, :2]
        log["tau_m"][k], log["tau_tgt"][k] = meas[ctl.M_TAU, :2], tau_tgt
        tau_act = forces.drives(tau_tgt)
        F = forces.friction(sim.psid)
        log["temperature"][k] = [th.case_temperature(x) for x in forces.therm_x]
        log["q_true"][k], log["qd_true"][k], log["qdd_true"][k] = q, qd, qdd
        log["tau_m_true"][k] = tau_act
        log["F_psi_true"][k] = F
        log1["closure_error"][k] = sim.closure_error()
        log1["kinetic_energy"][k] = sim.kinetic_energy()
        log1["work_motor"][k], log1["work_friction"][k] = wm, wf
        qpos0 = sim.data.qpos.copy()
        sim.advance(tau_act, F)
        sim.forward()
        dqpos = sim.data.qpos - qpos0
        wm += float(np.dot(iota * tau_act, dqpos[act]))
        wf += float(np.dot(F, PSI_JACOBIAN @ dqpos))
        forces.heat()
        if not (np.all(np.isfinite(sim.data.qpos)) and sim.closure_error() < 1e-3):
            raise RuntimeError(f"MuJoCo 5R diverged or the loop opened at t = {tk:.4f} s "
                               f"(closure error {sim.closure_error():.3g} m)")
    config = {"controller": controller, "duration_s": duration_s, "seed": seed, "estimate": estimate,
              "model": model, "friction_scale": friction_scale, "friction": friction, "n_sub": n_sub,
              "dwell_s": dwell_s, "mjcf_options": {k: list(v) if isinstance(v, tuple) else v
                                                   for k, v in sim.options.items()},
              "sensing": SENSING if imu is None else SENSING_IMU,
              "controller_config": {"imu_delay_cycles": int(cfg.imu_delay_cycles)}}
    if imu is not None:
        config["imu_conversion"] = imu["conv"].tolist()
    truth = truth_dict(tp, forces.drv, robot, forces.therm_x0)
    truth["friction_scale"] = friction_scale
    if native:
        truth["friction"] = truth_rows.tolist()
        truth["friction_law"] = NATIVE_FRICTION_NOTE
        del log["F_psi_true"], log1["work_friction"]  # MuJoCo's own friction forces are not read back
    return cycle_recording(
        robot, t, {**log, **log1, "q_sp": q_sp, "qd_sp": qd_sp, "qdd_sp": qdd_sp}, controller=controller,
        config=config, seed=seed, truth=truth, simulator="MuJoCo",
        origins=None if imu is None else {"qd": "gyroscope", "qdd": "accelerometer"},
        attrs={"simulator": "mujoco", "simulator_version": str(sim._mj.__version__), "mjcf": sim.xml,
               "converged_s": c.converged_s, "param_names": json.dumps(list(c.param_names))})


#: What the truth's friction rows mean in a run with MuJoCo's own friction.
NATIVE_FRICTION_NOTE = ("MuJoCo's own joint friction: frictionloss (dry friction, a constraint) + damping (viscous) "
                        "on psi_1, psi_2 (the actuated hinges), psi_3 and psi_5 (the elbows); none at psi_4 (the "
                        "connect point). The rows are LuGre rows with the same steady curve Fc sign(v) + Fv v: "
                        "Fs = Fc, linear viscous, no temperature dependence.")


def native_friction(tp: Any, scale: float = 1.0) -> tuple[dict[str, Any], np.ndarray]:
    """MuJoCo's own joint friction at the twin's cold levels: model options and the equivalent truth rows.

    Per internal joint psi_j the twin's Coulomb level ``Fc`` (as ``frictionloss``) and low-speed viscous
    coefficient ``Fv`` (as ``damping``), times ``scale``, on the MuJoCo hinge that turns by psi_j
    (psi_1 = q1, psi_2 = pi - q2, psi_3 = pi - r2, psi_5 = pi + r1); psi_4 is the ``connect`` point
    and gets none. Returns ``(options, rows)``: :class:`MjcfOptions` entries and (5, 13) LuGre rows
    whose steady curve is the same law (``Fs = Fc``, ``delta_v = 1``, temperature coefficients 0).
    """
    from paperlib.friction import lugre as fr

    rows = np.array(tp.friction, dtype=float).copy()
    rows[:, fr.FR_FC] *= scale
    rows[:, fr.FR_FV] *= scale
    rows[3, fr.FR_FC] = rows[3, fr.FR_FV] = 0.0
    rows[:, fr.FR_FS] = rows[:, fr.FR_FC]
    rows[:, fr.FR_DV] = 1.0
    rows[:, fr.FR_ALPHA_C] = 0.0
    rows[:, fr.FR_BETA_V] = 0.0
    joint_of_psi = {0: JOINTS.index("q1"), 1: JOINTS.index("q2"), 2: JOINTS.index("r2"), 4: JOINTS.index("r1")}
    floss, damp = [0.0] * 4, [0.0] * 4
    for j, k in joint_of_psi.items():
        floss[k], damp[k] = float(rows[j, fr.FR_FC]), float(rows[j, fr.FR_FV])
    return {"frictionloss_Nm": tuple(floss), "damping_Nm_s_per_rad": tuple(damp)}, rows


#: How the cross-check runs sense (both simulators).
SENSING = "ideal (encoder angle quantized to the robot's resolution; joint rate and acceleration from the plant)"
#: ... or, with ``sensing = "imu"``, as the room's twin runs do.
SENSING_IMU = ("encoder angle quantized; joint rate and acceleration from the twin's IMU stream model "
               "(paperlib.twin.imu) on the simulator's motion, nominal lever arm and calibration rows")


def cycle_recording(robot: Any, t: np.ndarray, log: dict[str, np.ndarray], *, controller: str, config: dict[str, Any],
                    seed: int, truth: dict[str, Any], simulator: str, attrs: dict[str, Any],
                    origins: dict[str, str] | None = None) -> xr.Dataset:
    """A schema-2 recording (``source = "twin"``) of a cross-check run with ideal sensing.

    ``log`` holds (N, 2) channels ``q`` (encoder), ``qd``, ``qdd``, ``tau_m`` (reported), ``tau_tgt``,
    ``temperature``, ``q_sp``, ``qd_sp``, ``qdd_sp``, the truths ``q_true``, ``qd_true``, ``qdd_true``,
    ``tau_m_true`` and (N,) ``kinetic_energy``, ``work_motor`` [J]; optional: ``work_friction`` (N,) [J], the
    friction torques of the five internal joints ``F_psi_true`` (N, 5) [N m] and ``closure_error`` (N,) [m].
    ``simulator`` names the simulator in the long names; ``origins`` of ``qd``, ``qdd`` (default: model).
    """
    from paperlib.recordings import make_recording

    data = {k: log[k] for k in ("q", "qd", "qdd", "tau_m", "tau_tgt", "temperature", "q_sp", "qd_sp", "qdd_sp")}

    def var(name: str, dims: tuple[str, ...], long_name: str, units: str) -> tuple:
        return (dims, log[name], {"long_name": f"{long_name} ({simulator})", "units": units})

    tj, tt = ("time", "joint"), ("time",)
    extra = {
        "q_true": var("q_true", tj, "true joint angle", "rad"),
        "qd_true": var("qd_true", tj, "true joint rate", "rad/s"),
        "qdd_true": var("qdd_true", tj, "true joint acceleration", "rad/s^2"),
        "tau_m_true": var("tau_m_true", tj, "true motor torque", "N m"),
        "kinetic_energy": var("kinetic_energy", tt, "kinetic energy", "J"),
        "work_motor": var("work_motor", tt, "cumulative motor work", "J"),
    }
    if "work_friction" in log:
        extra["work_friction"] = var("work_friction", tt, "cumulative friction dissipation", "J")
    if "F_psi_true" in log:
        extra["F_psi_true"] = var("F_psi_true", ("time", "friction_joint"),
                                  "true friction torque of the internal joints psi_1..psi_5", "N m")
    if "closure_error" in log:
        extra["closure_error"] = var("closure_error", tt, "distance between the distal tips", "m")
    ds = make_recording(
        t, [1, 2], data, robot=robot.name, source="twin", sample_rate_hz=robot.sample_rate_hz, controller=controller,
        config=config, seed=seed, truth=truth, origins=origins or {"qd": "model", "qdd": "model"}, torque_side="motor",
        extra_vars=extra, attrs=attrs)
    return ds.assign_coords(friction_joint=[1, 2, 3, 4, 5]) if "F_psi_true" in log else ds


def record(output: str | Path, **kwargs: Any) -> Path:
    """:func:`closed_loop` and write the recording to ``output`` (validated, atomic; :func:`paperlib.recordings.write_recording`)."""
    from paperlib.recordings import write_recording

    return write_recording(closed_loop(**kwargs), output)
