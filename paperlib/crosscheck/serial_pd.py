"""A serial arm (the TX40 of paper 001) under PD control in two simulators: the compendium's and MuJoCo's.

The serial twins of the compendium integrate nothing (their torques are inverse dynamics), so the
closed-loop check of a 6-joint arm needs a forward simulation on each side:

- **own**: the compendium's forward dynamics, ``qdd = M(q)^-1 (tau - h(q, qd))`` with ``M`` and
  ``h`` from its recursive Newton-Euler (:meth:`paperlib.robots.serial.SerialArm.forward_dynamics`),
  integrated by classical RK4;
- **mujoco**: MuJoCo's own dynamics (composite rigid bodies, its RK4) of the same arm loaded by
  MuJoCo's URDF importer (:func:`paperlib.crosscheck.mujoco_serial.serial_model`).

Both get the same inputs, held over each control cycle (a drive's zero-order hold): the PD law
with gravity compensation from the arm's nominal model, ``tau = Kp (q_sp - q) + Kd (qd_sp - qd) +
g(q)``, minus the joint friction of the compendium's steady law at the cycle's velocity
(:func:`paperlib.friction.lugre.steady_friction`, the TX40 campaign twin's rows at its reference
temperature). Each side integrates ``substeps`` fixed steps per cycle.

What the robot file does not give is assumed here, the same on both sides and stated in
:class:`SerialPdSetup`: the joint-side rotor inertia (MuJoCo's ``armature``; without it the
TX40's ``M_66`` is zero, its last link being a point mass on joint 6's axis), and the PD gains,
set by a rule (a natural frequency and damping ratio on the diagonal of ``M`` at the start pose).
Joint limits are not enforced on either side (the setpoints stay inside them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np

from paperlib.friction.lugre import steady_friction
from paperlib.robots.serial.rnea import _forward_dynamics_many, rnea

__all__ = ["SerialPdSetup", "tx40_setup", "sine_setpoints", "pd_gains", "pd_run"]


@dataclass(frozen=True)
class SerialPdSetup:
    """What a PD run of a serial arm needs beyond the arm (SI units).

    Attributes
    ----------
    rate_hz : float
        Control rate [Hz]; torques are held over a cycle.
    substeps : int
        Integration steps per cycle (RK4 on both sides).
    rotor_inertia : ndarray, shape (n,)
        Joint-side rotor inertia ``Ia`` [kg m^2], added to ``M_jj`` (MuJoCo: ``dof_armature``). Assumed.
    friction_rows : ndarray, shape (n, 13) or None
        Friction rows (``paperlib.friction.lugre`` layout) of the steady law; None: frictionless.
    temperature_C : float
        Gearbox temperature of the friction law [degC].
    natural_frequency_hz, damping_ratio : float
        Gain rule of :func:`pd_gains`.
    """

    rate_hz: float = 1000.0
    substeps: int = 4
    rotor_inertia: np.ndarray = field(default_factory=lambda: np.zeros(0))
    friction_rows: np.ndarray | None = None
    temperature_C: float = 20.0
    natural_frequency_hz: float = 8.0
    damping_ratio: float = 0.7


#: Rotor inertia assumed for a TX40-class servo motor [kg m^2] (motor side; joint side times N^2).
TX40_ROTOR_INERTIA_MOTOR_KG_M2 = 5e-5


def tx40_setup(arm: Any, *, friction: bool = True) -> SerialPdSetup:
    """The TX40's setup: rotor inertia ``5e-5 kg m^2 N_j^2`` (assumed), the campaign twin's friction rows.

    Parameters
    ----------
    arm : SerialArm
        The TX40 (``SerialArm.named("tx40")``); its ``drive`` table gives the gear ratios.
    friction : bool
        Whether the joints carry the campaign twin's friction (``data/twin/tx40_thermal_campaign.toml``,
        robot 1 without spread, at the law's reference temperature).
    """
    gears = np.abs(np.asarray(arm.drive["gear_ratios"], dtype=float))
    rows = None
    T = 20.0
    if friction:
        from paperlib.twin.robots.campaign import friction_rows, load_campaign_params

        params = load_campaign_params()
        rows = friction_rows(params)
        T = float(params.friction_T_ref)
    return SerialPdSetup(rotor_inertia=TX40_ROTOR_INERTIA_MOTOR_KG_M2 * gears ** 2, friction_rows=rows, temperature_C=T)


def sine_setpoints(arm: Any, duration_s: float, rate_hz: float, *, amplitude_rad: float = 0.3,
                   frequencies_hz: tuple[float, ...] = (0.21, 0.27, 0.33, 0.39, 0.45, 0.51)
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Joint setpoints ``q0 + A sin(2 pi f_j t)`` about the middle of each joint's range.

    Returns
    -------
    q_sp, qd_sp : ndarray, shape (N, n)
        [rad], [rad/s] at ``t_k = k / rate_hz``, ``N = duration_s * rate_hz``.
    """
    n = arm.n
    lo = np.where(np.isfinite(arm.lower), arm.lower, -math.pi)
    hi = np.where(np.isfinite(arm.upper), arm.upper, math.pi)
    q0 = 0.5 * (lo + hi) + 0.2  # off the middle, away from the wrist's straight pose
    amp = np.minimum(amplitude_rad, 0.25 * (hi - lo))
    w = 2 * math.pi * np.asarray(frequencies_hz[:n], dtype=float)
    t = np.arange(int(round(duration_s * rate_hz)))[:, None] / rate_hz
    return (np.ascontiguousarray(q0 + amp * np.sin(w * t)), np.ascontiguousarray(amp * w * np.cos(w * t)))


def pd_gains(arm: Any, setup: SerialPdSetup, q0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Kp = M_jj w^2``, ``Kd = 2 zeta M_jj w`` with ``M`` (rotor inertia included) at ``q0`` [N m/rad], [N m s/rad]."""
    m = np.diag(arm.mass_matrix(q0)) + setup.rotor_inertia
    w = 2 * math.pi * setup.natural_frequency_hz
    return m * w ** 2, 2 * setup.damping_ratio * m * w


def _friction(setup: SerialPdSetup, qd: np.ndarray) -> np.ndarray:
    if setup.friction_rows is None:
        return np.zeros_like(qd)
    return np.array([steady_friction(float(v), setup.friction_rows[j], setup.temperature_C) for j, v in enumerate(qd)])


def pd_run(arm: Any, setup: SerialPdSetup, q_sp: np.ndarray, qd_sp: np.ndarray, simulator: str = "own") -> dict[str, np.ndarray]:
    """Run the PD loop on one simulator from rest at the first setpoint.

    Parameters
    ----------
    arm : SerialArm
    setup : SerialPdSetup
    q_sp, qd_sp : ndarray, shape (N, n)
        Setpoints per control cycle [rad], [rad/s].
    simulator : {"own", "mujoco"}

    Returns
    -------
    dict
        ``t`` (N,) [s]; ``q``, ``qd`` (N, n) at the start of each cycle [rad, rad/s]; ``tau`` (N, n)
        the held joint torque (PD + gravity - friction) [N m].
    """
    if simulator not in ("own", "mujoco"):
        raise ValueError(f"simulator must be 'own' or 'mujoco', not {simulator!r}")
    n = arm.n
    N = q_sp.shape[0]
    if q_sp.shape != (N, n) or qd_sp.shape != (N, n):
        raise ValueError(f"setpoints must be (N, {n}); got {q_sp.shape} and {qd_sp.shape}")
    if setup.rotor_inertia.shape != (n,):
        raise ValueError(f"rotor_inertia must have shape ({n},); got {setup.rotor_inertia.shape}")
    dt = 1.0 / setup.rate_hz
    h = dt / setup.substeps
    kp, kd = pd_gains(arm, setup, q_sp[0])
    out = {"t": np.arange(N) * dt, "q": np.empty((N, n)), "qd": np.empty((N, n)), "tau": np.empty((N, n))}
    if simulator == "own":
        rows = setup.friction_rows if setup.friction_rows is not None else np.zeros((n, 13))
        _own_loop(np.ascontiguousarray(q_sp, dtype=float), np.ascontiguousarray(qd_sp, dtype=float), kp, kd,
                  arm.R0, arm.p0, arm.axes, arm.gravity, arm.inertial, np.ascontiguousarray(setup.rotor_inertia, dtype=float),
                  np.ascontiguousarray(rows, dtype=float), float(setup.temperature_C), setup.friction_rows is not None,
                  h, int(setup.substeps), out["q"], out["qd"], out["tau"])
        return out
    from paperlib.crosscheck.mujoco_five_bar import _mujoco
    from paperlib.crosscheck.mujoco_serial import serial_model

    mj = _mujoco()
    model = serial_model(arm)
    model.dof_armature[:] = setup.rotor_inertia
    model.opt.timestep = h
    model.opt.integrator = mj.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mj.mjtDisableBit.mjDSBL_LIMIT
    data = mj.MjData(model)
    zero = np.zeros(n)
    data.qpos[:], data.qvel[:] = q_sp[0], zero
    mj.mj_forward(model, data)
    for k in range(N):
        q, qd = data.qpos.copy(), data.qvel.copy()
        tau = (kp * (q_sp[k] - q) + kd * (qd_sp[k] - qd) + arm.inverse_dynamics(q, zero, zero)
               - _friction(setup, qd))
        out["q"][k], out["qd"][k], out["tau"][k] = q, qd, tau
        data.qfrc_applied[:] = tau
        for _ in range(setup.substeps):
            mj.mj_step(model, data)
    return out


@nb.njit(cache=True)
def _own_loop(q_sp, qd_sp, kp, kd, R0, p0, axes, gravity, inertial, rotor, rows, T, friction, h, substeps,
              out_q, out_qd, out_tau):  # pragma: no cover - compiled
    """The own side of :func:`pd_run`: the same control law, the compendium's forward dynamics, RK4."""
    N, n = q_sp.shape
    q = q_sp[0].copy()
    qd = np.zeros(n)
    z = np.zeros(n)
    tau = np.empty((1, n))
    acc = np.empty((1, n))
    for k in range(N):
        g = rnea(q, z, z, R0, p0, axes, gravity, inertial)
        for j in range(n):
            f = steady_friction(qd[j], rows[j], T) if friction else 0.0
            tau[0, j] = kp[j] * (q_sp[k, j] - q[j]) + kd[j] * (qd_sp[k, j] - qd[j]) + g[j] - f
        out_q[k] = q
        out_qd[k] = qd
        out_tau[k] = tau[0]
        for _ in range(substeps):  # classical RK4, torque held
            k1v, k1a = qd.copy(), _accel(q, qd, tau, R0, p0, axes, gravity, inertial, rotor, acc)
            k2v = qd + 0.5 * h * k1a
            k2a = _accel(q + 0.5 * h * k1v, k2v, tau, R0, p0, axes, gravity, inertial, rotor, acc)
            k3v = qd + 0.5 * h * k2a
            k3a = _accel(q + 0.5 * h * k2v, k3v, tau, R0, p0, axes, gravity, inertial, rotor, acc)
            k4v = qd + h * k3a
            k4a = _accel(q + h * k3v, k4v, tau, R0, p0, axes, gravity, inertial, rotor, acc)
            q = q + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
            qd = qd + h / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a)


@nb.njit(cache=True)
def _accel(q, qd, tau, R0, p0, axes, gravity, inertial, rotor, acc):  # pragma: no cover - compiled
    """Joint accelerations (n,) at one state under the held torque ``tau`` (1, n); ``acc`` (1, n) scratch."""
    n = q.shape[0]
    _forward_dynamics_many(q.reshape(1, n), qd.reshape(1, n), tau, R0, p0, axes, gravity, inertial, rotor, acc)
    return acc[0].copy()
