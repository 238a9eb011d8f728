"""The 5R twin's plant, one control cycle at a time, shared by the closed-loop simulator and the
emulated hardware.

The physics of a cycle (see :mod:`paperlib.twin.simulate` for why it is built this way): at the
cycle's start the LuGre friction torques of the five joints are evaluated and their bristles
advanced exactly (:func:`plant_forces`); the generalized forces ``Q = Q_m + Q_F`` are then held
over one RK4 step of the closed-chain dynamics (:func:`plant_rk4`); the gearboxes heat with the
friction power (:func:`plant_heat`).

:class:`TwinPlant` wraps the same functions, with the twin's drives and IMUs, behind the
``step(torque_Nm, dt)`` interface the emulated EtherCAT drive calls, and exposes the IMU
microcontroller's reads for the emulated UDP stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib._jit import rt_njit
from paperlib.kernels import five_bar as K
from paperlib.twin import drives as dr
from paperlib.friction import lugre as fr
from paperlib.twin import imu as im
from paperlib.twin import thermal as th

DT = 1.0 / 4000.0


@rt_njit
def solve2(M, b0, b1, out):  # pragma: no cover - compiled
    """out = M^-1 [b0, b1] for a 2x2 matrix."""
    det = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    out[0] = (M[1, 1] * b0 - M[0, 1] * b1) / det
    out[1] = (M[0, 0] * b1 - M[1, 0] * b0) / det


@rt_njit
def accel(q, qd, Qa, prm, M, h, out):  # pragma: no cover - compiled
    """qdd = M^-1 (Qa - C qd) (M and C qd only: the kernel ``mass_bias``); returns the kernel status."""
    s = K.mass_bias(q, qd, prm, M, h)
    if s != 0:
        return s
    solve2(M, Qa[0] - h[0], Qa[1] - h[1], out)
    return 0


@rt_njit
def plant_forces(Qm, scale, z, therm_x, T_amb, fric, dt, D_psi, psid, psid0, Tj, F, QF, Qa):  # pragma: no cover
    """Friction at the cycle's start (bristles advanced over ``dt``) and the held forces.

    Needs ``D_psi``, ``psid`` of the current state (from ``dynamics_terms``). Writes the joint
    friction torques ``F`` (5,) [N m, resisting], ``Q_F`` (2,) and ``Q = Q_m + Q_F`` (2,).
    """
    th.joint_temperatures(therm_x, T_amb, Tj)
    for j in range(5):
        psid0[j] = psid[j]
        f, z[j] = fr.lugre_step(psid[j], z[j], fric[j], Tj[j], dt)
        F[j] = scale * f
    for i in range(2):
        acc = 0.0
        for j in range(5):
            acc -= D_psi[j, i] * F[j]
        QF[i] = acc
        Qa[i] = Qm[i] + QF[i]


@rt_njit
def plant_rk4(q, qd, Qa, k1v, prm, dt, M, h, work, dq):  # pragma: no cover - compiled
    """One RK4 step with the forces ``Qa`` held; ``k1v`` is the acceleration at the start.

    Updates ``q``, ``qd`` in place and writes the displacement ``dq`` (2,) (so the work of the
    held forces is exactly ``Q . dq``). ``work`` is (8, 2) scratch. Returns the kernel status.
    """
    k2v, k3v, k4v, qs, vs, k2q, k3q = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    for i in range(2):
        qs[i] = q[i] + 0.5 * dt * qd[i]
        vs[i] = qd[i] + 0.5 * dt * k1v[i]
    s = accel(qs, vs, Qa, prm, M, h, k2v)
    for i in range(2):
        k2q[i] = vs[i]
        qs[i] = q[i] + 0.5 * dt * k2q[i]
        vs[i] = qd[i] + 0.5 * dt * k2v[i]
    s |= accel(qs, vs, Qa, prm, M, h, k3v)
    for i in range(2):
        k3q[i] = vs[i]
        qs[i] = q[i] + dt * k3q[i]
        vs[i] = qd[i] + dt * k3v[i]
    s |= accel(qs, vs, Qa, prm, M, h, k4v)
    if s != 0:
        return s
    for i in range(2):
        dq[i] = dt / 6.0 * (qd[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + vs[i])
        q[i] += dq[i]
        qd[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i])
    return 0


@rt_njit
def plant_heat(therm_x, F, psid0, therm_disc, T_amb):  # pragma: no cover - compiled
    """Advance each gearbox's thermal model with its joint's friction power |F v| [W]."""
    for g in range(therm_x.shape[0]):
        th.thermal_step(therm_x[g], abs(F[g] * psid0[g]), therm_disc[g], T_amb)


@rt_njit
def _twin_plant_cycles(n, tau_tgt, q, qd, z, Qa, therm_x, T_amb, prm, fric, therm_disc, drv, drv_state,
                       imu_p, link_p, imu_state, keys, t, out_tau_rep, M, h, D_psi, psid, psid0, Tj, F, QF,
                       Qm, k1v, qdd, work, dq):  # pragma: no cover - compiled
    """Advance the twin (drives, plant, heat, IMU sensors) by ``n`` control cycles from time ``t``."""
    for _ in range(n):
        s = K.dynamics_terms(q, qd, prm, M, h, D_psi, psid)
        if s != 0:
            return s, t
        solve2(M, Qa[0] - h[0], Qa[1] - h[1], qdd)
        im.imu_advance(imu_state, keys, imu_p, link_p, t, qd, qdd)
        for j in range(2):
            a, r = dr.drive_step(drv_state[j], tau_tgt[j], drv[j])
            out_tau_rep[j] = r
            Qm[j] = dr.joint_torque(a, drv[j])
        plant_forces(Qm, 1.0, z, therm_x, T_amb, fric, DT, D_psi, psid, psid0, Tj, F, QF, Qa)
        solve2(M, Qa[0] - h[0], Qa[1] - h[1], k1v)
        s = plant_rk4(q, qd, Qa, k1v, prm, DT, M, h, work, dq)
        if s != 0:
            return s, t
        plant_heat(therm_x, F, psid0, therm_disc, T_amb)
        t += DT
    return 0, t


class TwinPlant:
    """The twin behind the emulated drive: ``step(torque_Nm, dt) -> (position, velocity, torque)``.

    Quantities at the interface are on the motor side (what a drive sees): positions and
    velocities are ``iota`` times the joint's, torques are motor torques. The twin's drives sit
    inside: the torque handed in is the drive's *target*; the torque returned is what the drive
    *reports* (``tau_m`` check); the plant moves with the actual torque (``pi_pds`` times it).
    Time advances in whole 250-us cycles (a remainder is carried to the next call).

    Parameters
    ----------
    seed : int
        Seeds the IMU noise streams.
    q0 : array_like, shape (2,), optional
        Initial joint angles [rad] (default: the middle of the well-conditioned polygon,
        (120, 60) deg).
    twin_params, robot : optional
        Twin parameter set and robot model (defaults: the repository's files).
    """

    def __init__(self, seed: int = 1, q0: Any = None, twin_params: Any = None, robot: Any = None) -> None:
        from paperlib.robots.five_bar import FiveBar

        self.robot = robot or FiveBar.default()
        self.tp = twin_params or dr.load_twin_params()
        self.iota = self.robot.gear_ratios.copy()
        self.prm = np.ascontiguousarray(self.robot.params)
        self.q = np.radians([120.0, 60.0]) if q0 is None else np.array(q0, dtype=float)
        self.qd = np.zeros(2)
        self.z = np.zeros(5)
        self.Qa = np.zeros(2)
        self.T_amb = float(self.tp.ambient_degC)
        self.therm_x = np.ascontiguousarray(th.initial_state(self.T_amb, 2), dtype=np.float64)
        self.fric = np.ascontiguousarray(self.tp.friction)
        self.therm_disc = np.ascontiguousarray(self.tp.thermal_discrete(DT))
        self.drv = np.ascontiguousarray(self.tp.drive_array(DT))
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
        self._scratch = [np.empty((2, 2)), np.empty(2), np.empty((5, 2)), np.empty(5), np.empty(5), np.empty(5),
                         np.empty(5), np.empty(2), np.empty(2), np.empty(2), np.empty(2), np.empty((8, 2)),
                         np.empty(2)]
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
        n = int(self._carry / DT + 1e-9)
        if n:
            self._carry -= n * DT
            status, self.t = _twin_plant_cycles(
                n, self._tau_tgt, self.q, self.qd, self.z, self.Qa, self.therm_x, self.T_amb, self.prm, self.fric,
                self.therm_disc, self.drv, self.drv_state, self.imu_p, self.link_p, self.imu_state, self.keys,
                self.t, self.tau_rep, *self._scratch)
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
