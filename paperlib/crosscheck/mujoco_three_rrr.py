"""Paper 002's 3-RRR simulated by MuJoCo under the own twin's drive loop (:mod:`paperlib.twin.robots.three_rrr`).

:func:`simulate` takes the arguments and returns the dictionary of the own twin's
:func:`paperlib.twin.robots.three_rrr.simulate`, so the rrr room's analyses and
:func:`paperlib.twin.robots.three_rrr.to_recording` read either. Per control period the same drive
loop (encoder quantization, filtered backward-difference velocity, joint PD plus feed-forward,
torque limit and quantum, drive gain); then ``plant_substeps`` plant steps, each with the LuGre
friction of the three drives at its start (:func:`paperlib.twin.plant.friction_torques`, the
twin's constant temperature) and the net joint torques ``gain tau - F`` held over ``n_sub`` MuJoCo
steps. Not shared with the twin: the mechanics (six hinges, two ``connect`` closures, the rotor
inertia as ``armature``) and the integrator.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import xarray as xr

from paperlib.crosscheck.mjcf import MjcfOptions
from paperlib.crosscheck.mjcf_three_rrr import ACTUATED, three_rrr_mjcf, qpos_qvel
from paperlib.crosscheck.mujoco_five_bar import _mujoco
from paperlib.twin import plant as pl
from paperlib.twin.guard import twin_run
from paperlib.twin.robots.three_rrr import run_inputs, to_recording

__all__ = ["simulate", "open_loop", "recording"]


@twin_run
def simulate(robot: Any, twin: Any, ref: Mapping[str, np.ndarray], tau_ff: np.ndarray | None = None, *,
             n_sub: int = 4, options: dict[str, Any] | None = None, friction_scale: float = 1.0) -> dict[str, Any]:
    """The own twin's closed loop on MuJoCo's 3-RRR (see the module docstring).

    Parameters
    ----------
    robot, twin, ref, tau_ff :
        As :func:`paperlib.twin.robots.three_rrr.simulate` (``ref``: ``t`` (n,) on the control grid,
        ``p``, ``pd`` (n, 2) [m, m/s]; ``tau_ff`` (n, 3) [N m]).
    n_sub : int
        MuJoCo steps per plant step (MuJoCo's step: ``1 / (control rate x plant_substeps x n_sub)``).
    options : dict, optional
        Further :class:`~paperlib.crosscheck.mjcf.MjcfOptions`.
    friction_scale : float
        Multiplies the drives' friction (0: frictionless).

    Returns
    -------
    dict
        The twin's keys (``t``, ``q``, ``tau_m``, ``q_sp``, ``qd_sp``, ``p_true``, ``pd_true``, ``qd_true``),
        plus ``closure_error`` (n,) [m] (largest tip distance) and ``mjcf`` (the model text).
    """
    mj = _mujoco()
    t, p_ref, pd_ref, th_ref, thd_ref, ff = run_inputs(robot, twin, ref, tau_ff)
    n = t.size
    dt = 1.0 / twin.control_rate_hz
    h = dt / twin.plant_substeps
    opts = MjcfOptions(**{**(options or {}), "timestep_s": h / int(n_sub)})
    xml = three_rrr_mjcf(robot, opts)
    model = mj.MjModel.from_xml_string(xml)
    data = mj.MjData(model)
    data.qpos[:], data.qvel[:] = qpos_qvel(robot, p_ref[0], pd_ref[0])
    mj.mj_forward(model, data)
    act = list(ACTUATED)
    fric = np.ascontiguousarray(twin.friction_rows)
    z, phi, Tj = np.zeros(3), np.zeros(3), np.full(3, float(twin.temperature_degC))
    F, qd0 = np.zeros(3), np.zeros(3)
    rad = 2 * np.pi / twin.counts_per_joint_rev
    alpha = dt / (twin.velocity_filter_s + dt)
    th_meas_prev = th_ref[0].copy()
    v_est = np.zeros(3)
    tau = np.zeros(3)
    out = {"q": np.empty((n, 3)), "tau_m": np.empty((n, 3)), "p_true": np.empty((n, 2)), "pd_true": np.empty((n, 2)),
           "qd_true": np.empty((n, 3)), "closure_error": np.empty(n)}
    for k in range(n):
        # the drive loop of the control period (the twin's, in the same order)
        th = data.qpos[act]
        for i in range(3):
            th_m = math.floor(th[i] / rad + 0.5) * rad
            if k > 0:
                v_est[i] += alpha * ((th_m - th_meas_prev[i]) / dt - v_est[i])
            th_meas_prev[i] = th_m
            out["q"][k, i] = th_m
            u = ff[k, i] + twin.kp[i] * (th_ref[k, i] - th_m) + twin.kd[i] * (thd_ref[k, i] - v_est[i])
            u = min(max(u, -twin.torque_limit_Nm), twin.torque_limit_Nm)
            if twin.torque_quantum_Nm > 0.0:
                u = math.floor(u / twin.torque_quantum_Nm + 0.5) * twin.torque_quantum_Nm
            tau[i] = u
        out["tau_m"][k] = tau
        out["p_true"][k] = data.site_xpos[0, :2]
        out["pd_true"][k] = _tip_velocity(mj, model, data)
        x = data.site_xpos
        out["closure_error"][k] = max(np.linalg.norm(x[0] - x[1]), np.linalg.norm(x[0] - x[2]))
        # the plant: friction at each plant step's start, the net joint torques held over it
        for sub in range(twin.plant_substeps):
            qd = np.ascontiguousarray(data.qvel[act])
            if sub == 0:
                out["qd_true"][k] = qd
            pl.friction_torques(float(friction_scale), z, phi, Tj, fric, h, qd, qd0, F)
            data.ctrl[:] = twin.drive_gain * tau
            data.qfrc_applied[:] = 0.0
            data.qfrc_applied[act] = -F
            mj.mj_step(model, data, nstep=int(n_sub))
        mj.mj_forward(model, data)
        if not (np.all(np.isfinite(data.qpos)) and out["closure_error"][k] < 1e-3):
            raise ValueError(f"simulate: MuJoCo's 3-RRR diverged or opened at t = {t[k]:.3f} s")
    return {"t": t, "q_sp": th_ref, "qd_sp": thd_ref, **out, "mjcf": xml}


@twin_run
def open_loop(robot: Any, tau: np.ndarray, p0: Any, pd0: Any, h: float, *, n_sub: int = 4,
              options: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """MuJoCo's 3-RRR under joint torques (N, 3) [N m], each held for ``h`` [s], from p0 [m], pd0 [m/s].

    Returns ``p``, ``pd`` (N + 1, 2) of the platform point, ``ekin`` (N + 1,) [J] and ``w_drive``
    (N + 1,) [J], the held torques' cumulative work ``tau . d th``.
    """
    mj = _mujoco()
    opts = MjcfOptions(**{**(options or {}), "timestep_s": float(h) / int(n_sub)})
    model = mj.MjModel.from_xml_string(three_rrr_mjcf(robot, opts))
    data = mj.MjData(model)
    data.qpos[:], data.qvel[:] = qpos_qvel(robot, p0, pd0)
    mj.mj_forward(model, data)
    act = list(ACTUATED)
    tau = np.asarray(tau, dtype=float)
    n = tau.shape[0]
    out = {"p": np.empty((n + 1, 2)), "pd": np.empty((n + 1, 2)), "ekin": np.empty(n + 1), "w_drive": np.zeros(n + 1)}
    for k in range(n + 1):
        out["p"][k], out["pd"][k] = data.site_xpos[0, :2], _tip_velocity(mj, model, data)
        out["ekin"][k] = data.energy[1]
        if k == n:
            break
        th0 = data.qpos[act].copy()
        data.ctrl[:] = tau[k]
        mj.mj_step(model, data, nstep=int(n_sub))
        mj.mj_forward(model, data)
        out["w_drive"][k + 1] = out["w_drive"][k] + float(tau[k] @ (data.qpos[act] - th0))
    return out


def _tip_velocity(mj: Any, model: Any, data: Any) -> np.ndarray:
    """Velocity (2,) [m/s] of the platform point (the site at the tip of chain 1)."""
    jac = np.zeros((3, model.nv))
    mj.mj_jacSite(model, data, jac, None, 0)
    return (jac @ data.qvel)[:2]


def recording(run: Mapping[str, Any], twin: Any, *, controller: str, config: Mapping[str, Any],
              seed: int | None = None) -> xr.Dataset:
    """The twin's recording (:func:`paperlib.twin.robots.three_rrr.to_recording`) of a MuJoCo run, labelled
    ``simulator = mujoco`` with the MJCF text in ``mjcf``."""
    mj = _mujoco()
    ds = to_recording(run, twin, controller=controller, config=config, seed=seed)
    ds.attrs.update({"simulator": "mujoco", "simulator_version": str(mj.__version__), "mjcf": run["mjcf"]})
    return ds
