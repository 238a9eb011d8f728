"""One plant cycle for any robot, shared by the closed-loop runner and the emulated hardware.

The physics of a cycle (see :mod:`paperlib.twin.runner` for why it is built this way), in three
compiled phases around the caller's sensing, control and logging:

1. :func:`cycle_begin` -- the dynamics at the cycle's start (mass matrix, bias forces, the
   friction joints' Jacobian and velocities, from the robot's kernel set) and the acceleration
   the forces of the previous cycle produce there (what an accelerometer feels);
2. :func:`cycle_forces` -- the drives advance over the cycle (current loop, reported torque),
   ``Q_m = D_drive^T tau_actual``; the LuGre friction torques of every friction joint are
   evaluated at the cycle's start with their bristles advanced exactly (:func:`plant_forces`);
   the generalized forces ``Q = Q_m + Q_F`` are then held over the cycle;
3. :func:`cycle_finish` -- one RK4 step of ``M qdd + h = Q`` with ``Q`` held (so the work of the
   held forces is exactly ``Q . dq``: motor work and friction dissipation are accumulated), and
   the gearboxes heat with their joints' friction power.

:class:`TwinPlant` runs the same three phases, with the twin's drives and IMUs, behind the
``step(torque_Nm, dt)`` interface the emulated EtherCAT drive calls.

Drives whose map changes with the configuration (a parallel robot's actuated Jacobian: a twin
of :mod:`paperlib.twin.robots` that drives a closed chain through it) hold their torques rather than the generalized
forces: :func:`friction_torques` (the friction part of :func:`plant_forces`), then
:func:`plant_rk4_mapped`, which maps the held joint torques by the Jacobian of every RK4 stage
(the same RK4 as :func:`plant_rk4`). Holding ``Q`` of the step's start instead would make the
drives' work over a step ``Q . dq`` rather than the ``tau . d psi`` a held torque does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib._jit import rt_njit
from paperlib._linalg import accel_from, solve2  # noqa: F401  (solve2 re-exported)
from paperlib.friction import lugre as fr
from paperlib.robots.kernel_sets import robot_dynamics, robot_state_terms
from paperlib.twin import drives as dr
from paperlib.twin import imu as im
from paperlib.twin import thermal as th
from paperlib.twin.guard import check_allowed

# energy accumulators (a float array of two): motor work, friction dissipation [J]
EN_MOTOR, EN_FRICTION = 0, 1


@rt_njit(inline="always")
def accel(kid, q, qd, Qa, prm, M, h, out, work):  # pragma: no cover - compiled
    """qdd = M^-1 (Qa - h) (the kernel set's ``robot_dynamics``); returns the kernel status."""
    s = robot_dynamics(kid, q, qd, prm, M, h)
    if s != 0:
        return s
    accel_from(M, Qa, h, out, work)
    return 0


@rt_njit(inline="always")
def friction_torques(scale, z, phi, Tj, fric, dt, psid, psid0, F):  # pragma: no cover - compiled
    """LuGre torques of the friction joints at the cycle's start, bristles advanced exactly over ``dt``.

    ``psid`` (n_ups,) [rad/s] are the joints' rates, ``Tj`` (n_ups,) their temperatures [degC]:
    writes ``F`` (n_ups,) [N m, resisting, times ``scale``], updates the bristles ``z`` and keeps
    the rates in ``psid0`` (for the heat of :func:`plant_heat`). ``phi`` (n_ups,) [rad] is each
    joint's angle travelled since the run's start (advanced here by ``psid dt``): a row with a
    position ripple (``FR_RIPPLE_A`` > 0) multiplies its torque by ``1 + a sin(k phi)``; a row
    without one is left exactly as the law gives it.
    """
    for j in range(z.shape[0]):
        psid0[j] = psid[j]
        f, z[j] = fr.lugre_step(psid[j], z[j], fric[j], Tj[j], dt)
        a = fric[j, fr.FR_RIPPLE_A]
        if a != 0.0:
            f *= 1.0 + a * np.sin(fric[j, fr.FR_RIPPLE_K] * phi[j])
        phi[j] += psid[j] * dt
        F[j] = scale * f


@rt_njit(inline="always")
def plant_forces(Qm, scale, z, phi, therm_x, T_amb, fric, dt, D_psi, psid, psid0, Tj, F, QF, Qa):  # pragma: no cover
    """Friction at the cycle's start (bristles advanced over ``dt``) and the held forces.

    Needs ``D_psi`` (n_ups, n), ``psid`` of the current state. Writes the friction torques ``F``
    (n_ups,) [N m, resisting], ``Q_F`` (n,) and ``Q = Q_m + Q_F`` (n,).
    """
    th.joint_temperatures(therm_x, T_amb, Tj)
    friction_torques(scale, z, phi, Tj, fric, dt, psid, psid0, F)
    n_ups = z.shape[0]
    for i in range(Qm.shape[0]):
        acc = 0.0
        for j in range(n_ups):
            acc -= D_psi[j, i] * F[j]
        QF[i] = acc
        Qa[i] = Qm[i] + QF[i]


@rt_njit(inline="always")
def plant_rk4(kid, q, qd, Qa, k1v, prm, dt, M, h, work, dq):  # pragma: no cover - compiled
    """One RK4 step with the forces ``Qa`` held; ``k1v`` is the acceleration at the start.

    Updates ``q``, ``qd`` in place and writes the displacement ``dq`` (n,) (so the work of the
    held forces is exactly ``Q . dq``). ``work`` is (8 + n, n) scratch. Returns the kernel status.
    """
    # (the mapped-torque arguments of _rk4 are unused here: placeholders of their types)
    return _rk4(kid, False, q, qd, Qa, k1v, prm, dt, M, h, M, h, h, work, dq)


@rt_njit(inline="always")
def mapped_accel_from(M, h, D, tau, Q, out, work):  # pragma: no cover - compiled
    """out = M^-1 (Q - h) with ``Q = D^T tau`` (n,): torques ``tau`` (n_ups,) acting at the friction joints.

    ``D`` (n_ups, n) is the friction joints' Jacobian at the state ``M`` and ``h`` belong to.
    """
    for i in range(Q.shape[0]):
        acc = 0.0
        for j in range(tau.shape[0]):
            acc += D[j, i] * tau[j]
        Q[i] = acc
    accel_from(M, Q, h, out, work)


@rt_njit(inline="always")
def accel_mapped(kid, q, qd, tau, prm, M, h, D, ups_d, Q, out, work):  # pragma: no cover - compiled
    """qdd = M^-1 (D(q)^T tau - h) (the kernel set's ``robot_state_terms``); returns the kernel status."""
    s = robot_state_terms(kid, q, qd, prm, M, h, D, ups_d)
    if s != 0:
        return s
    mapped_accel_from(M, h, D, tau, Q, out, work)
    return 0


@rt_njit(inline="always")
def plant_rk4_mapped(kid, q, qd, tau, k1v, prm, dt, M, h, D, ups_d, Q, work, dq):  # pragma: no cover - compiled
    """One RK4 step with joint torques ``tau`` (n_ups,) held at the friction joints; ``k1v`` at the start.

    The variant of :func:`plant_rk4` for drives whose map changes with the configuration (a
    parallel robot's actuated Jacobian): the torques, not the generalized forces, are held, and
    every stage maps them by the Jacobian at its own state, ``Q = D(q)^T tau`` (the work of the
    held torques over the step is ``tau . d psi``, psi the friction joints' angles). Updates ``q``,
    ``qd`` in place, writes the displacement ``dq`` (n,); ``D``, ``ups_d``, ``Q`` are left at the
    last stage's values. ``work`` is (8 + n, n) scratch. Returns the kernel status.
    """
    return _rk4(kid, True, q, qd, tau, k1v, prm, dt, M, h, D, ups_d, Q, work, dq)


@rt_njit(inline="always")
def _stage_accel(kid, mapped, q, qd, held, prm, M, h, D, ups_d, Q, out, lin):  # pragma: no cover - compiled
    """Acceleration at an RK4 stage: held generalized forces, or (``mapped``) held friction-joint torques."""
    if mapped:
        return accel_mapped(kid, q, qd, held, prm, M, h, D, ups_d, Q, out, lin)
    return accel(kid, q, qd, held, prm, M, h, out, lin)


@rt_njit(inline="always")
def _rk4(kid, mapped, q, qd, held, k1v, prm, dt, M, h, D, ups_d, Q, work, dq):  # pragma: no cover - compiled
    """The RK4 step of :func:`plant_rk4` (``mapped`` False) and :func:`plant_rk4_mapped` (True).

    ``mapped`` is a constant at every call: after inlining, the compiler drops the other branch.
    """
    n = q.shape[0]
    k2v, k3v, k4v, qs, vs, k2q, k3q = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    lin = work[8:8 + n]
    for i in range(n):
        qs[i] = q[i] + 0.5 * dt * qd[i]
        vs[i] = qd[i] + 0.5 * dt * k1v[i]
    s = _stage_accel(kid, mapped, qs, vs, held, prm, M, h, D, ups_d, Q, k2v, lin)
    for i in range(n):
        k2q[i] = vs[i]
        qs[i] = q[i] + 0.5 * dt * k2q[i]
        vs[i] = qd[i] + 0.5 * dt * k2v[i]
    s |= _stage_accel(kid, mapped, qs, vs, held, prm, M, h, D, ups_d, Q, k3v, lin)
    for i in range(n):
        k3q[i] = vs[i]
        qs[i] = q[i] + dt * k3q[i]
        vs[i] = qd[i] + dt * k3v[i]
    s |= _stage_accel(kid, mapped, qs, vs, held, prm, M, h, D, ups_d, Q, k4v, lin)
    if s != 0:
        return s
    for i in range(n):
        dq[i] = dt / 6.0 * (qd[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + vs[i])
        q[i] += dq[i]
        qd[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i])
    return 0


@rt_njit(inline="always")
def plant_heat(therm_x, F, psid0, therm_disc, T_amb):  # pragma: no cover - compiled
    """Advance each gearbox's thermal model with its joint's friction power |F v| [W]."""
    for g in range(therm_x.shape[0]):
        th.thermal_step(therm_x[g], abs(F[g] * psid0[g]), therm_disc[g], T_amb)


@rt_njit(inline="always")
def cycle_begin(kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd, work):  # pragma: no cover - compiled
    """Phase 1: dynamics at the cycle's start and the acceleration the held forces ``Qa`` give."""
    s = robot_state_terms(kid, q, qd, prm, M, h, D_psi, psid)
    if s != 0:
        return s
    accel_from(M, Qa, h, qdd, work[8:])
    return 0


@rt_njit(inline="always")
def cycle_forces(tau_tgt, drv, drv_state, D_drive, tau_act, tau_rep, Qm, scale, z, phi, therm_x, T_amb, fric, dt,
                 D_psi, psid, psid0, Tj, F, QF, Qa, M, h, k1v, work):  # pragma: no cover - compiled
    """Phase 2: drives over the cycle, ``Q_m = D_drive^T tau_act``, friction, held forces, ``k1v``."""
    n_drv = tau_tgt.shape[0]
    for d in range(n_drv):
        a, r = dr.drive_step(drv_state[d], tau_tgt[d], drv[d])
        tau_act[d] = a
        tau_rep[d] = r
    for i in range(Qm.shape[0]):
        acc = 0.0
        for d in range(n_drv):
            acc += D_drive[d, i] * tau_act[d]
        Qm[i] = acc
    plant_forces(Qm, scale, z, phi, therm_x, T_amb, fric, dt, D_psi, psid, psid0, Tj, F, QF, Qa)
    accel_from(M, Qa, h, k1v, work[8:])


@rt_njit(inline="always")
def cycle_finish(kid, q, qd, Qa, Qm, QF, k1v, prm, dt, M, h, work, dq, energy, therm_x, F, psid0, therm_disc,
                 T_amb):  # pragma: no cover - compiled
    """Phase 3: RK4 with the forces held, work and dissipation of the cycle, gearbox heat."""
    s = plant_rk4(kid, q, qd, Qa, k1v, prm, dt, M, h, work, dq)
    if s != 0:
        return s
    for i in range(q.shape[0]):
        energy[EN_MOTOR] += Qm[i] * dq[i]
        energy[EN_FRICTION] -= QF[i] * dq[i]
    plant_heat(therm_x, F, psid0, therm_disc, T_amb)
    return 0


def drive_map_of_gears(gears: np.ndarray) -> np.ndarray:
    """Drive map of one geared drive per joint, ``diag(iota)`` (n, n): ``Q_m,i = iota_i tau_m,i``."""
    return np.ascontiguousarray(np.diag(np.asarray(gears, dtype=float)))


def cycle_scratch(n: int, n_drv: int, n_ups: int) -> dict[str, np.ndarray]:
    """Work arrays of the three phases for ``n`` joints, ``n_drv`` drives, ``n_ups`` friction joints."""
    return {"M": np.empty((n, n)), "h": np.empty(n), "D_psi": np.empty((n_ups, n)), "psid": np.empty(n_ups),
            "psid0": np.empty(n_ups), "Tj": np.empty(n_ups), "F": np.empty(n_ups), "Qm": np.empty(n),
            "QF": np.empty(n), "k1v": np.empty(n), "qdd": np.empty(n), "work": np.empty((8 + n, n)),
            "dq": np.empty(n), "tau_act": np.zeros(n_drv), "energy": np.zeros(2)}


@rt_njit
def _twin_plant_cycles(n_cycles, kid, dt, tau_tgt, q, qd, z, phi, Qa, therm_x, T_amb, prm, fric, therm_disc, drv,
                       drv_state, D_drive, imu_p, link_p, imu_state, keys, t, out_tau_rep, M, h, D_psi, psid, psid0,
                       Tj, F, QF, Qm, k1v, qdd, work, dq, tau_act, energy):  # pragma: no cover - compiled
    """Advance the twin (drives, plant, heat, IMU sensors) by ``n_cycles`` cycles of ``dt`` from ``t``."""
    for _ in range(n_cycles):
        s = cycle_begin(kid, q, qd, Qa, prm, M, h, D_psi, psid, qdd, work)
        if s != 0:
            return s, t
        im.imu_advance(imu_state, keys, imu_p, link_p, t, qd, qdd)
        cycle_forces(tau_tgt, drv, drv_state, D_drive, tau_act, out_tau_rep, Qm, 1.0, z, phi, therm_x, T_amb, fric, dt,
                     D_psi, psid, psid0, Tj, F, QF, Qa, M, h, k1v, work)
        s = cycle_finish(kid, q, qd, Qa, Qm, QF, k1v, prm, dt, M, h, work, dq, energy, therm_x, F, psid0,
                         therm_disc, T_amb)
        if s != 0:
            return s, t
        t += dt
    return 0, t


class TwinPlant:
    """The twin behind the emulated drive: ``step(torque_Nm, dt) -> (position, velocity, torque)``.

    Quantities at the interface are on the motor side (what a drive sees): positions and
    velocities are ``iota`` times the joint's, torques are motor torques. The twin's drives sit
    inside: the torque handed in is the drive's *target*; the torque returned is what the drive
    *reports* (``tau_m`` check); the plant moves with the actual torque (``pi_pds`` times it).
    Time advances in whole control cycles of the robot's rate (``robot.sample_rate_hz``; a
    remainder is carried to the next call).

    Parameters
    ----------
    seed : int
        Seeds the IMU noise streams.
    q0 : array_like, shape (2,), optional
        Initial joint angles [rad] (default: the twin file's ``[meta] q0_deg``).
    twin_params, robot : optional
        Twin parameter set (default :func:`paperlib.twin.drives.load_twin_params`) and robot
        model (default: the robot the twin file names, ``[meta] robot_name``).
    """

    def __init__(self, seed: int = 1, q0: Any = None, twin_params: Any = None, robot: Any = None) -> None:
        from paperlib import robots

        check_allowed("paperlib.twin.plant.TwinPlant")
        self.tp = twin_params or dr.load_twin_params()
        self.robot = robot or robots.load(self.tp.robot_name)
        self.dt = 1.0 / self.robot.sample_rate_hz
        self.kid = self.robot.kernels.kid
        self.iota = self.robot.gear_ratios.copy()
        self.prm = np.ascontiguousarray(self.robot.params)
        self.q = self.tp.q0 if q0 is None else np.array(q0, dtype=float)
        self.qd = np.zeros(2)
        self.z = np.zeros(5)
        self.phi = np.zeros(5)  # the friction joints' angles travelled (their position ripple's phase) [rad]
        self.Qa = np.zeros(2)
        self.T_amb = float(self.tp.ambient_degC)
        self.therm_x = np.ascontiguousarray(th.initial_state(self.T_amb, 2), dtype=np.float64)
        self.fric = np.ascontiguousarray(self.tp.friction)
        self.therm_disc = np.ascontiguousarray(self.tp.thermal_discrete(self.dt))
        self.drv = np.ascontiguousarray(self.tp.drive_array(self.dt))
        self.drv_state = np.zeros((2, dr.N_DRIVE_STATE))
        self.imu_p = np.ascontiguousarray(self.tp.imu)
        self.link_p = np.ascontiguousarray(self.tp.link).copy()
        self.link_p[im.LK_P_LOSS] = 0.0  # the emulated UDP link loses packets itself
        self.imu_state = im.imu_stream_init(self.imu_p, 0.0)
        self.keys = im.make_keys(seed)
        self.t = 0.0
        self._carry = 0.0
        self.tau_rep = np.zeros(2)
        self._tau_tgt = np.zeros(2)
        self.D_drive = drive_map_of_gears(self.drv[:, dr.DR_GEAR])
        ks = self.robot.kernels
        sc = cycle_scratch(ks.n_joints, ks.n_drives, ks.n_ups)
        self._scratch = [sc[k] for k in ("M", "h", "D_psi", "psid", "psid0", "Tj", "F", "QF", "Qm", "k1v", "qdd",
                                          "work", "dq", "tau_act", "energy")]
        self._last_read = 0

    @property
    def pi_pds(self) -> np.ndarray:
        """True drive gains (2,)."""
        return self.tp.pi_pds

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance by ``dt`` [s] with motor target torques [N m]; return motor-side (position [rad],
        velocity [rad/s], reported torque [N m])."""
        self._tau_tgt[:] = torque_Nm
        self._carry += max(float(dt), 0.0)
        n = int(self._carry / self.dt + 1e-9)
        if n:
            self._carry -= n * self.dt
            status, self.t = _twin_plant_cycles(
                n, self.kid, self.dt, self._tau_tgt, self.q, self.qd, self.z, self.phi, self.Qa, self.therm_x, self.T_amb,
                self.prm, self.fric, self.therm_disc, self.drv, self.drv_state, self.D_drive, self.imu_p, self.link_p,
                self.imu_state, self.keys, self.t, self.tau_rep, *self._scratch)
            if status != 0:
                raise RuntimeError(f"twin plant left the workspace at t = {self.t:.4f} s (q = {self.q.tolist()})")
        return self.iota * self.q, self.iota * self.qd, self.tau_rep.copy()

    def imu_reads(self) -> list[tuple[int, float, np.ndarray]]:
        """Microcontroller reads made since the last call: (sequence, read time [s], raw counts (2, 3)).

        Raw counts per IMU: gyro z, accel y, accel x (int16 values as floats), as the sensors'
        output registers held them when the microcontroller read them. The twin's own network
        model (latency, loss) is not applied: the emulated UDP link is the network.
        """
        out = []
        n_read = int(self.imu_state[im.ST_READ_COUNT])
        for seq in range(max(self._last_read, n_read - im.RING_SLOTS), n_read):
            base = im.ST_RING + (seq % im.RING_SLOTS) * im.RING_STRIDE
            if int(self.imu_state[base + 1]) != seq:
                continue
            raw = self.imu_state[base + 3:base + 9].reshape(2, 3).copy()
            out.append((seq, float(self.imu_state[base + 2]), raw))
        self._last_read = n_read
        return out
