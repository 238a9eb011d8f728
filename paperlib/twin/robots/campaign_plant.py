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
semi-implicitly at each call's ``dt``, Coulomb friction held at rest below the breakaway level and
not allowed to reverse a joint within a step; the two-node networks (the day's, discretised at the
twin's sample period) are stepped with the friction power of the cycle. What a drive reports is the
torque it applies plus the twin's torque noise (joint side, divided by the gear ratio).

``views()`` gives one :class:`AxisView` per drive (its joints): the emulated drives of a chain are
separate devices, each stepping its own plant once per frame. The first view of a frame (the
lowest joint's drive) advances the arm with every axis' torque of the previous frame, then each
view returns the arm's new state for its joints and keeps the torque its drive applies now (one
frame of transport delay, as between a drive and the arm's other drives). :meth:`signal` is what
the RTD terminals are wired to: ``temperature`` of joint ``j`` is its gearbox's inner node [degC];
the RTD's own lag and quantisation are the terminal's.

Motor 6's coupling of joints 5 and 6 is left out (each axis turns its own joint through its own gear
ratio). Only the two-node thermal model is stepped.
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["CampaignArmPlant", "AxisView", "day_from_config", "plant_for_day", "day_setpoints"]


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

    def advance(self, dt: float) -> None:
        """Advance the arm by ``dt`` [s] under the drives' torques of the last frame."""
        from paperlib.friction.lugre import FR_FS
        from paperlib.twin.thermal import thermal_step

        if dt <= 0.0:
            return
        q, qd, n = self.q, self.qd, self.n
        h = self._rb(q, qd, self._z)  # C qd + g
        g0 = self._rb(q, self._z, self._z)
        M = np.empty((n, n))
        for j in range(n):
            M[:, j] = self._rb(q, self._z, self._e[j]) - g0
        M[np.diag_indices(n)] += self.J_r
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
        qdd = np.linalg.solve(M, drive - f)
        qd1 = qd + qdd * dt
        for j in range(n):
            if stuck[j] or (qd[j] != 0.0 and (qd1[j] > 0.0) != (qd[j] > 0.0)):
                qd1[j] = 0.0
        power = np.abs(f * 0.5 * (qd + qd1))
        self.q = q + 0.5 * (qd + qd1) * dt
        self.qd = qd1
        self._carry += dt
        while self._carry >= self.period * (1.0 - 1e-9):
            self._carry -= self.period
            for j in range(n):
                thermal_step(self.x[j], float(power[j]), self.disc[j], self.T_amb)
        tau_joint = self.gear * self.tau_motor + self.rng.standard_normal(n) * self.noise
        self.report = tau_joint / self.gear
        self.t += dt
        self.cycles += 1

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
