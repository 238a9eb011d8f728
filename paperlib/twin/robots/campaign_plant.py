"""The TX40 warm-up campaign twin stepped cycle by cycle, behind emulated position-controlled drives and RTDs.

:func:`paperlib.twin.robots.campaign.simulate_day` gives a whole test day of the arm *following*
its prescribed program: the torque model ``tau = inverse dynamics(q, qd, qdd) + friction(qd, T) +
noise`` with each gearbox's two-node thermal network heated by its friction power ``|tau_f qd|``.
An emulated rig needs the arm advanced one control cycle at a time under the torques of emulated
drives that close their own position loops (cyclic synchronous position). :class:`CampaignArmPlant`
is the same arm as a plant, with the same physics evaluated at its own state:

    (M(q) + diag(J_r N^2)) qdd = N tau_drive - (C(q, qd) qd + g(q)) - f(qd, T_inner)

(``M``, ``C qd + g`` from the arm's inertial regressor with the nominal inertials, as the twin's
inverse dynamics; ``f`` the day's friction rows -- robot and day spread, the faulty day's step --
at the gearbox's inner temperature; ``J_r`` a rotor inertia per axis, a placeholder) integrated
semi-implicitly at each call's ``dt``, Coulomb friction held at rest below the breakaway level (a
joint so held is locked: its friction takes whatever torque keeps it still, so its drive's
unbalanced torque does not move the other joints) and not allowed to reverse a joint within a
step; the two-node networks (the day's, discretised at the twin's sample period) are stepped with
the friction power of the cycle. What a drive reports is the
torque it applies plus the twin's torque noise (joint side, divided by the gear ratio).

``views()`` gives one :class:`AxisView` per drive (its joints): the emulated drives of a chain are
separate devices, each stepping its own plant once per frame. The first view of a frame (the
lowest joint's drive) advances the arm with every axis' torque of the previous frame, then each
view returns the arm's new state for its joints and keeps the torque its drive applies now (one
frame of transport delay, as between a drive and the arm's other drives). :meth:`signal` is what
the RTD terminals are wired to: ``temperature`` of joint ``j`` is its gearbox's inner node [degC];
the RTD's own lag and quantisation are the terminal's.

Drives that close their own loops faster than their frames (the emulated drive's ``inner_steps``)
hand the arm their loops instead of a torque (:meth:`AxisView.step_loops`): the arm then runs the
frame in that many steps, each drive's torque from its loop at the arm's state of that step, with
the mass matrix and the bias forces of the frame's start (:func:`frame_of_inner_steps`, compiled).
What such a drive reports is its mean torque over the frame.

Motor 6's coupling of joints 5 and 6 is left out (each axis turns its own joint through its own gear
ratio). Only the two-node thermal model is stepped.
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Mapping, Sequence

import numpy as np

from paperlib._jit import rt_njit
from paperlib._linalg import solve_inplace
from paperlib.friction.lugre import FR_FS, steady_friction

__all__ = ["CampaignArmPlant", "AxisView", "day_from_config", "plant_for_day", "day_setpoints",
           "frame_of_inner_steps"]

#: Loop codes of :meth:`AxisView.step_loops` (as :mod:`paperlib.hardware.emulators.axis_loop`'s LOOP_*).
_HOLD, _CSP, _CSV, _OFF = 0, 1, 2, 3


@rt_njit
def _friction_at(v, row, T, scale):  # pragma: no cover - compiled
    return steady_friction(v, row, T) * scale


@rt_njit(inline="always")
def _hold_still(Minv, acc, held, m, A, lam):  # pragma: no cover - compiled
    """Take the held joints' stiction reactions out of the accelerations ``acc = Minv (drive - f)``.

    A joint held at rest by its friction (``held[:m]``, its ``f`` left at 0 in ``acc``) takes
    whatever torque keeps it still: reactions ``lam`` with ``(Minv (drive - f - lam))_held = 0``,
    i.e. ``Minv[held, held] lam = acc[held]`` (:func:`paperlib._linalg.solve_inplace`), then
    ``acc -= Minv[:, held] lam``. The held joints' accelerations become 0 and the moving joints' are
    those of the arm with the held joints locked (``M_free qdd_free = (drive - f)_free``): a held
    joint's unbalanced drive torque no longer reaches the others through the off-diagonal terms of
    ``Minv``.

    Parameters
    ----------
    Minv : ndarray, shape (n, n)
        Inverse mass matrix (rotors included) [1 / (kg m^2)].
    acc : ndarray, shape (n,)
        ``Minv (drive - f)`` [rad/s^2], updated in place.
    held : ndarray of int64, shape (n,)
        The held joints (0-based) in its first ``m`` entries.
    m : int
        Number of held joints, 0 < m < n.
    A : ndarray, shape (n, n)
        Scratch.
    lam : ndarray, shape (n,)
        Scratch; the held joints' reactions [N m] in its first ``m`` entries on return.
    """
    n = acc.shape[0]
    for a in range(m):
        for b in range(m):
            A[a, b] = Minv[held[a], held[b]]
        lam[a] = acc[held[a]]
    solve_inplace(A, lam, m)
    for i in range(n):
        for a in range(m):
            acc[i] -= Minv[i, held[a]] * lam[a]


@rt_njit
def frame_of_inner_steps(n_steps, h, q, qd, Minv, bias, gear, rows, T, scale, code, hold, q_ref, v_ff, limit,
                         kp_pos, kp_vel, ki_vel, integral, tau_mean, energy, drive, f, tau, acc, lam, held,
                         A):  # pragma: no cover - compiled
    """Advance the arm ``n_steps`` steps of ``h`` [s], each drive's loop closed at every step.

    Joint side: ``q``, ``qd`` (n,) [rad, rad/s] updated in place; ``Minv`` (n, n) and ``bias`` (n,)
    [N m] held from the frame's start; friction ``rows`` at the inner temperatures ``T`` (n,) times
    ``scale`` (n,), held at rest below the breakaway level (the joint locked: its stiction takes the
    torque that keeps it still, :func:`_hold_still`) and never reversing a joint within a step.
    Motor side, per axis: ``code`` (LOOP_* of the axis loop), ``hold`` [N m] (CST), the position
    reference ``q_ref + v_ff t`` [rad] (CSP) or velocity ``v_ff`` [rad/s] (CSV), ``limit`` [N m], the
    gains, ``integral`` [N m] (updated). Writes the mean motor torque over the frame ``tau_mean`` (n,)
    [N m] and adds each joint's friction energy to ``energy`` (n,) [J]. ``drive``, ``f``, ``tau``,
    ``acc``, ``lam`` (n,), ``held`` (n,) int64 and ``A`` (n, n) are scratch.
    """
    n = q.shape[0]
    for j in range(n):
        tau_mean[j] = 0.0
    for s in range(n_steps):
        t = s * h
        for j in range(n):
            c = code[j]
            if c == _HOLD:
                tau[j] = hold[j]
            elif c == _OFF:
                tau[j] = 0.0
            else:
                qm, qdm = q[j] * gear[j], qd[j] * gear[j]
                v = v_ff[j] + kp_pos[j] * (q_ref[j] + v_ff[j] * t - qm) if c == _CSP else v_ff[j]
                e = v - qdm
                u = kp_vel[j] * e + integral[j]
                if u > limit[j]:
                    u = limit[j]
                elif u < -limit[j]:
                    u = -limit[j]
                else:
                    integral[j] += ki_vel[j] * e * h
                tau[j] = u
            tau_mean[j] += tau[j] / n_steps
            drive[j] = gear[j] * tau[j] - bias[j]
        for j in range(n):
            if qd[j] == 0.0:
                if abs(drive[j]) <= rows[j, FR_FS]:
                    f[j] = 0.0  # held at rest (its speed is set back to 0 below), as CampaignArmPlant.advance
                else:
                    f[j] = math.copysign(abs(_friction_at(math.copysign(1e-9, drive[j]), rows[j], T[j], scale[j])),
                                         drive[j])
            else:
                f[j] = _friction_at(qd[j], rows[j], T[j], scale[j])
        m = 0
        for i in range(n):
            a = 0.0
            for j in range(n):
                a += Minv[i, j] * (drive[j] - f[j])
            acc[i] = a
            if qd[i] == 0.0 and abs(drive[i]) <= rows[i, FR_FS]:
                held[m] = i
                m += 1
        if 0 < m < n:
            _hold_still(Minv, acc, held, m, A, lam)
        for i in range(n):
            qd1 = qd[i] + acc[i] * h
            stuck = qd[i] == 0.0 and abs(drive[i]) <= rows[i, FR_FS]
            if stuck or (qd[i] != 0.0 and (qd1 > 0.0) != (qd[i] > 0.0)):
                qd1 = 0.0
            mean = 0.5 * (qd[i] + qd1)
            energy[i] += abs(f[i] * mean) * h
            q[i] += mean * h
            qd[i] = qd1


class CampaignArmPlant:
    """The campaign arm of one day as the emulated drives' plant (module docstring).

    Parameters
    ----------
    truth : dict
        The day's truth (:func:`~paperlib.twin.robots.campaign.simulate_day`): ``friction_rows``,
        ``ambient_degC``, ``gearbox_start_degC`` (absent in older truths: the ambient),
        ``thermal_params`` (two-node), ``fault``.
    q0 : array_like, shape (6,)
        Start pose [rad] (at rest, gearboxes at the day's start temperature).
    gear_ratio : sequence of float
        Motor / joint angle per axis.
    sample_period_s : float
        The twin's sample period [s] (the thermal networks' step).
    torque_noise_Nm : array_like, shape (6,)
        Standard deviation of the twin's torque noise, joint side [N m].
    rotor_inertia : float
        Rotor inertia per axis, motor side [kg m^2].
    seed : int
        Seed of the noise.
    """

    def __init__(self, truth: Mapping[str, Any], q0: Any, gear_ratio: Sequence[float], sample_period_s: float,
                 torque_noise_Nm: Any, rotor_inertia: float = 1e-4, seed: int = 0) -> None:
        from paperlib.robots.serial import SerialArm
        from paperlib.twin.thermal import thermal_discrete_array

        arm = SerialArm.named("tx40")
        self._Y = importlib.import_module(f"paperlib.kernels.{arm.kernel}").inertial_regressor
        self.p = np.ascontiguousarray(arm.inertial.ravel())
        self.n = arm.n
        self.gear = np.asarray(gear_ratio, dtype=float)
        self.rows = np.ascontiguousarray(np.asarray(truth["friction_rows"], float))
        self.T_amb = float(truth["ambient_degC"])
        if truth.get("thermal_model", "two_node") != "two_node":
            raise ValueError("the campaign arm's plant steps the two-node thermal model only")
        self.period = float(sample_period_s)
        self.disc = thermal_discrete_array(np.asarray(truth["thermal_params"], float), self.period)
        fault = truth.get("fault")
        self.fault = None if not fault else (int(fault["joint"]) - 1, float(fault["factor"]),
                                             60.0 * float(fault["onset_min"]))
        self.J_r = float(rotor_inertia) * self.gear ** 2  # joint side [kg m^2]
        self.noise = np.asarray(torque_noise_Nm, float)
        self.rng = np.random.default_rng(seed)
        self.q = np.asarray(q0, float).copy()
        self.qd = np.zeros(self.n)
        self.x = np.full((self.n, 2), float(truth.get("gearbox_start_degC", self.T_amb)))  # inner, case [degC]
        self.tau_motor = np.zeros(self.n)  # the drives' torques [N m] (applied on the next step)
        self.report = np.zeros(self.n)  # what each drive reports [N m], motor side
        self.t = 0.0
        self.cycles = 0
        self._carry = 0.0
        self._Ybuf = np.zeros((self.n, self.p.size))
        self._z = np.zeros(self.n)
        self._e = np.eye(self.n)
        # the drives' loops of the last frame, per joint (AxisView.step_loops; all axes held at 0 torque until then)
        self.loops = {k: np.zeros(self.n) for k in ("hold", "q_ref", "v_ff", "limit", "kp_pos", "kp_vel", "ki_vel",
                                                    "integral")}
        self.loops["code"] = np.full(self.n, _OFF, dtype=np.int64)
        # scratch of advance_loops (no allocation per frame)
        self._scale, self._energy = np.ones(self.n), np.zeros(self.n)
        self._T = np.zeros(self.n)
        self._work = (*(np.empty(self.n) for _ in range(5)), np.zeros(self.n, dtype=np.int64),
                      np.empty((self.n, self.n)))

    def _rb(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        self._Y(q, qd, qdd, self._Ybuf)
        return self._Ybuf @ self.p

    def friction(self, j: int, v: float) -> float:
        """Joint ``j``'s friction torque at velocity ``v`` [rad/s] and its inner temperature [N m]."""
        from paperlib.friction.lugre import steady_friction

        f = steady_friction(v, self.rows[j], float(self.x[j, 0]))
        if self.fault is not None and j == self.fault[0] and self.t >= self.fault[2]:
            f *= self.fault[1]
        return f

    def _frame_start(self) -> tuple[np.ndarray, np.ndarray]:
        """Mass matrix with the rotors (n, n) and bias forces ``C qd + g`` (n,) at the present state."""
        q, qd, n = self.q, self.qd, self.n
        h = self._rb(q, qd, self._z)  # C qd + g
        g0 = self._rb(q, self._z, self._z)
        M = np.empty((n, n))
        for j in range(n):
            M[:, j] = self._rb(q, self._z, self._e[j]) - g0
        M[np.diag_indices(n)] += self.J_r
        return M, h

    def _frame_end(self, dt: float, power: np.ndarray) -> None:
        """Heat the gearboxes with the frame's friction power [W], report the torques, count the frame."""
        from paperlib.twin.thermal import thermal_step

        n = self.n
        self._carry += dt
        while self._carry >= self.period * (1.0 - 1e-9):
            self._carry -= self.period
            for j in range(n):
                thermal_step(self.x[j], float(power[j]), self.disc[j], self.T_amb)
        tau_joint = self.gear * self.tau_motor + self.rng.standard_normal(n) * self.noise
        self.report = tau_joint / self.gear
        self.t += dt
        self.cycles += 1

    def advance(self, dt: float) -> None:
        """Advance the arm by ``dt`` [s] under the drives' torques of the last frame."""
        if dt <= 0.0:
            return
        q, qd, n = self.q, self.qd, self.n
        M, h = self._frame_start()
        drive = self.gear * self.tau_motor - h
        f = np.zeros(n)
        stuck = np.zeros(n, dtype=bool)
        for j in range(n):
            if qd[j] == 0.0:
                fs = self.rows[j, FR_FS]
                if abs(drive[j]) <= fs:
                    stuck[j] = True
                    continue
                f[j] = math.copysign(abs(self.friction(j, math.copysign(1e-9, drive[j]))), drive[j])
            else:
                f[j] = self.friction(j, float(qd[j]))
        qdd = np.zeros(n)
        free = ~stuck
        if free.any():  # the held joints locked: their stiction takes the torque that keeps them still
            qdd[free] = np.linalg.solve(M[np.ix_(free, free)], (drive - f)[free])
        qd1 = qd + qdd * dt
        for j in range(n):
            if stuck[j] or (qd[j] != 0.0 and (qd1[j] > 0.0) != (qd[j] > 0.0)):
                qd1[j] = 0.0
        power = np.abs(f * 0.5 * (qd + qd1))
        self.q = q + 0.5 * (qd + qd1) * dt
        self.qd = qd1
        self._frame_end(dt, power)

    def compile_loops(self) -> None:
        """Compile :func:`frame_of_inner_steps` now (a no-op frame), not at the first frame a drive waits on."""
        n, z = self.n, np.zeros(self.n)
        frame_of_inner_steps(0, 0.0, z.copy(), z.copy(), np.eye(n), z, self.gear, self.rows, z, z,
                             np.zeros(n, dtype=np.int64), z, z, z, z, z, z, z, z.copy(), z.copy(), z.copy(),
                             *self._work)

    def advance_loops(self, dt: float, n_steps: int) -> None:
        """Advance the arm by ``dt`` [s] in ``n_steps`` steps under the drives' loops of the last frame."""
        if dt <= 0.0:
            return
        L, scale, energy = self.loops, self._scale, self._energy
        M, h = self._frame_start()
        if self.fault is not None and self.t >= self.fault[2]:
            scale[self.fault[0]] = self.fault[1]
        energy.fill(0.0)
        self._T[:] = self.x[:, 0]
        # q, qd and the mean torque are advanced in place (the views hand out copies of them)
        frame_of_inner_steps(int(n_steps), dt / n_steps, self.q, self.qd, np.linalg.inv(M), h, self.gear, self.rows,
                             self._T, scale, L["code"], L["hold"], L["q_ref"], L["v_ff"], L["limit"], L["kp_pos"],
                             L["kp_vel"], L["ki_vel"], L["integral"], self.tau_motor, energy, *self._work)
        self._frame_end(dt, energy / dt)

    def motor_inertia(self) -> np.ndarray:
        """Each axis' inertia at the present pose as its motor sees it: ``(M_jj + J_r N^2) / N^2`` [kg m^2]."""
        g0 = self._rb(self.q, self._z, self._z)
        m = np.array([self._rb(self.q, self._z, self._e[j])[j] - g0[j] for j in range(self.n)])
        return (m + self.J_r) / self.gear ** 2

    def views(self, groups: Sequence[Sequence[int]]) -> list["AxisView"]:
        """One drive's plant per group of joints (0-based), the first group's view advancing the arm."""
        return [AxisView(self, list(cols), first=(k == 0)) for k, cols in enumerate(groups)]

    def signal(self, name: str, joint: int) -> float:
        """The twin signal a terminal channel is wired to: ``temperature`` of ``joint`` (0-based) [degC]."""
        if name != "temperature":
            raise ValueError(f"the campaign arm's terminals carry temperature only, not {name!r}")
        return float(self.x[joint, 0])


class AxisView:
    """One emulated drive's plant: the joints ``cols`` of a shared :class:`CampaignArmPlant` (motor side)."""

    def __init__(self, arm: CampaignArmPlant, cols: list[int], first: bool) -> None:
        self.arm, self.cols, self.first = arm, cols, first
        self.g = arm.gear[cols]

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The drive's plant (:class:`paperlib.hardware.emulators.devices.Plant`): motor angle, speed, torque."""
        arm = self.arm
        if self.first:
            arm.advance(dt)
        for i, j in enumerate(self.cols):
            arm.tau_motor[j] = float(torque_Nm[i])
        return arm.q[self.cols] * self.g, arm.qd[self.cols] * self.g, arm.report[self.cols].copy()

    def step_loops(self, frame: Mapping[str, np.ndarray], dt: float, n_steps: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The drive's loops for the coming frame (:meth:`Cia402Drive._cycle_inner`); its axes' state.

        ``frame`` holds per axis ``code``, ``hold``, ``q_ref``, ``v_ff``, ``limit``, ``kp_pos``,
        ``kp_vel``, ``ki_vel`` (motor side) and ``integral``. The arm takes them for its next frame
        (the first view advances it with the last frame's, one frame of transport delay as in
        :meth:`step`) and keeps the loops' integrals: it writes each axis' present integral and its
        mean applied torque over the last frame into ``frame["integral"]`` and ``frame["applied"]``.
        """
        arm = self.arm
        if self.first:
            arm.advance_loops(dt, n_steps)
        L = arm.loops
        for i, j in enumerate(self.cols):
            code = int(frame["code"][i])
            if code != L["code"][j] or code in (_HOLD, _OFF):
                L["integral"][j] = 0.0  # a loop (re)started or left: from rest, as AxisLoop.reset
            for k in ("code", "hold", "q_ref", "v_ff", "limit", "kp_pos", "kp_vel", "ki_vel"):
                L[k][j] = frame[k][i]
            frame["integral"][i] = L["integral"][j]
            frame["applied"][i] = arm.tau_motor[j]
        return arm.q[self.cols] * self.g, arm.qd[self.cols] * self.g, arm.report[self.cols].copy()


def _day(config: Mapping[str, Any]) -> Any:
    from paperlib.twin.robots.campaign import DaySpec, load_campaign_params, simulate_day

    params = load_campaign_params(config.get("params_file"))
    spec = DaySpec(**config["day"]) if "day" in config else DaySpec(robot=1, day=1,
                                                                     warming_fraction=params.warming_fraction[0],
                                                                     seed=101)
    if spec.fault is not None:
        spec = DaySpec(**{**spec.__dict__, "fault": tuple(spec.fault)})
    return simulate_day(params, spec, cycles=config.get("cycles"),
                        temperature_log_s=float(config.get("temperature_log_s", 10.0)))


def day_from_config(config: Mapping[str, Any]) -> Any:
    """One simulated campaign day from an emulator's configuration.

    Parameters
    ----------
    config : mapping
        ``day`` (:class:`~paperlib.twin.robots.campaign.DaySpec` fields; default robot 1 day 1),
        ``cycles`` (cycles of the day; default the campaign file's), ``params_file``,
        ``temperature_log_s`` [s].

    Returns
    -------
    paperlib.twin.robots.campaign.DayResult
    """
    return _day(config)


def plant_for_day(day: Any, gear_ratio: Sequence[float], rotor_inertia: float = 1e-4,
                  seed: int | None = None) -> CampaignArmPlant:
    """The arm of a simulated day as a plant, at the day's first pose (its noise seeded from the day's seed)."""
    return CampaignArmPlant(day.truth, day.program.q[0], gear_ratio, 1.0 / day.sample_rate_hz,
                            day.truth["torque_noise_Nm"], rotor_inertia=rotor_inertia,
                            seed=int(day.spec.seed if seed is None else seed) + 7)


def day_setpoints(config: Mapping[str, Any], n: int | None = None) -> tuple[np.ndarray, float]:
    """The prescribed joint positions of a campaign day (what the arm's controller commands) and their rate.

    Parameters
    ----------
    config : mapping
        As :func:`day_from_config` (``day``, ``cycles``, ``params_file``).
    n : int, optional
        Samples wanted (default: the whole day of ``cycles`` cycles).

    Returns
    -------
    q_sp : ndarray, shape (n, 6)
        Joint positions [rad] at the twin's sample rate (the program, before the encoder's rounding).
    rate_hz : float
    """
    from paperlib.twin.robots.campaign import DaySpec, cycle_program, load_campaign_params

    params = load_campaign_params(config.get("params_file"))
    wf = DaySpec(**config["day"]).warming_fraction if "day" in config else params.warming_fraction[0]
    prog = cycle_program(params, wf)
    n_day = prog.q.shape[0] * int(config.get("cycles") or params.cycles_per_day)
    n = n_day if n is None else int(n)
    reps = -(-n // prog.q.shape[0])
    return np.tile(prog.q, (reps, 1))[:n], params.sample_rate_hz
