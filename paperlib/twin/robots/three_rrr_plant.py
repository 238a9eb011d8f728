"""The 3-RRR twin stepped cycle by cycle, behind three emulated drives.

:func:`paperlib.twin.robots.three_rrr.simulate` runs the whole closed loop (encoders, joint PD
loops, drives, plant) from a platform reference. An emulated rig needs only the plant and the
drives' torque path, advanced one control period at a time under whatever torque the master
commands. :class:`ThreeRRRPlant` does that with the same compiled period
(:func:`~paperlib.twin.robots.three_rrr.plant_period`: LuGre friction on the three drives, the
net torques mapped by the actuated Jacobian of every RK4 stage) and exposes it the way the
drives see it (:class:`paperlib.hardware.emulators.devices.Plant`):

``step(torque_Nm, dt)``
    ``torque_Nm`` (3,) are the motor torques the drives apply [N m]; the joints get
    ``drive_gain x gear_ratio x torque`` (the twin's torque-constant error, so the identified
    ``k_f`` keeps its truth ``1 / drive_gain``). Returns the motor-side drive angles [rad]
    (continuous), their rates [rad/s] and the torques the drives report: the commanded ones
    [N m], as the twin's drives report theirs.

Encoder and command resolution are the emulated drives' (counts per motor revolution, per mille
of the rated torque): :meth:`ThreeRRRPlant.drive_settings` gives the values that match the
twin's description (``counts_per_joint_rev / gear``; rated torque ``torque_quantum x 1000 / gear``;
limit ``torque_limit / gear``). The platform starts at rest at ``p0`` (default: the centre of the
work region, where the room's sampling run starts); time advances in whole periods of the twin's
control rate (a remainder of ``dt`` is carried).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from paperlib.kernels import three_rrr as K
from paperlib.robots.kernel_sets import robot_state_terms
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, plant_period

__all__ = ["ThreeRRRPlant", "plant_from_config"]


class ThreeRRRPlant:
    """The 3-RRR twin's plant and drive gain as the emulated drives' plant (module docstring).

    Parameters
    ----------
    twin : ThreeRRRTwin, optional
        Friction, drive gain, control rate, substeps (default: ``data/twin/three_rrr_twin.toml``).
    robot : ThreeRRR, optional
        The plant's model (default: ``data/robots/three_rrr.toml``).
    p0 : array_like, shape (2,), optional
        Start point of the platform [m] (default: the work region's centre).
    """

    n_axes = 3

    def __init__(self, twin: ThreeRRRTwin | None = None, robot: ThreeRRR | None = None,
                 p0: Any = None) -> None:
        self.twin = twin or ThreeRRRTwin.default()
        self.robot = robot or ThreeRRR.default()
        tw = self.twin
        self.gear = self.robot.gear_ratio
        self.dt = 1.0 / float(tw.control_rate_hz)
        self.h = self.dt / int(tw.plant_substeps)
        self.p = np.array(self.robot.work_centre if p0 is None else p0, dtype=float)
        self._p0 = self.p.copy()
        self.pd = np.zeros(2)
        self.z = np.zeros(3)
        self.phi = np.zeros(3)
        self._Tj = np.full(3, float(tw.temperature_degC))
        self._fric = tw.friction_rows
        self._kid, self._prm = self.robot.kernels.kid, self.robot.params
        self._M, self._hb, self._D = np.empty((2, 2)), np.empty(2), np.empty((3, 2))
        self._qd, self._qd0, self._F, self._net = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
        self._Q, self._k1v, self._work, self._dp = np.empty(2), np.empty(2), np.empty((10, 2)), np.empty(2)
        self._qd_start = np.empty(3)
        self._chi = np.empty(K.N_CHI)
        self._tau_joint = np.zeros(3)
        self.torque_Nm = np.zeros(3)
        self.th = np.zeros(3)
        self.thd = np.zeros(3)
        self.t = 0.0
        self.cycles = 0
        self._carry = 0.0
        s = K.positions(self.p, self._prm, self._chi)
        if s != 0:
            raise ValueError(f"3-RRR plant: start point {self.p.tolist()} m is outside the workspace (status {s})")
        self.th[:] = self._chi[:3]
        self._rates()
        self._compile()

    def _compile(self) -> None:
        """Run one period on a copy of the state, so the compiled period is ready before the first frame."""
        p, pd, z, phi = self.p.copy(), self.pd.copy(), self.z.copy(), self.phi.copy()
        plant_period(p, pd, z, phi, self._Tj, np.zeros(3), self.twin.drive_gain, self._fric, self._kid, self._prm, self.h,
                     int(self.twin.plant_substeps), self._M, self._hb, self._D, self._qd, self._qd0, self._F, self._net,
                     self._Q, self._k1v, self._work, self._dp, self._qd_start)
        self._rates()

    def _rates(self) -> None:
        s = robot_state_terms(self._kid, self.p, self.pd, self._prm, self._M, self._hb, self._D, self._qd)
        if s != 0:
            raise ValueError(f"3-RRR plant: singular state at t = {self.t:.4f} s (status {s})")
        self.thd[:] = self._qd

    def _advance(self) -> None:
        tw = self.twin
        self._tau_joint[:] = self.torque_Nm * self.gear
        s = plant_period(self.p, self.pd, self.z, self.phi, self._Tj, self._tau_joint, tw.drive_gain, self._fric, self._kid,
                         self._prm, self.h, int(tw.plant_substeps), self._M, self._hb, self._D, self._qd, self._qd0,
                         self._F, self._net, self._Q, self._k1v, self._work, self._dp, self._qd_start)
        if s != 0:
            raise ValueError(f"3-RRR plant: the platform left the workspace at t = {self.t:.4f} s (status {s})")
        s = K.positions(self.p, self._prm, self._chi)
        if s != 0:
            raise ValueError(f"3-RRR plant: the platform left the workspace at t = {self.t:.4f} s (status {s})")
        for i in range(3):  # continuous drive angles, as the twin's encoders unwrap them
            d = self._chi[i] - self.th[i]
            self.th[i] += (d + math.pi) % (2.0 * math.pi) - math.pi
        self._rates()
        self.cycles += 1
        self.t = self.cycles * self.dt

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hold ``torque_Nm`` (3,) [N m, motor side] over ``dt`` [s]; return motor angles, rates, reported torques.

        ``dt`` is taken in whole control periods (the remainder carried to the next call); ``dt = 0``
        returns the current state.
        """
        self.torque_Nm[:] = np.asarray(torque_Nm, dtype=float)[:3]
        if dt > 0.0:
            self._carry += float(dt)
            n = int(self._carry / self.dt + 1e-9)
            self._carry -= n * self.dt
            for _ in range(n):
                self._advance()
        return self.th * self.gear, self.thd * self.gear, self.torque_Nm.copy()

    def drive_settings(self) -> dict[str, Any]:
        """The emulated drives' encoder and torque scaling that match the twin's description.

        Returns
        -------
        dict
            ``counts_per_rev`` (per motor revolution), ``rated_torque_mNm`` (motor side; one per mille
            of it is the twin's command quantum) and ``max_torque_permille`` (the twin's limit), each a
            per-axis list where the drive takes one.
        """
        tw = self.twin
        rated_mNm = int(round(tw.torque_quantum_Nm / self.gear * 1e6))
        return {"counts_per_rev": int(round(tw.counts_per_joint_rev / self.gear)),
                "rated_torque_mNm": [rated_mNm],
                "max_torque_permille": [int(math.floor(tw.torque_limit_Nm / self.gear / (rated_mNm * 1e-3) * 1e3))]}

    def truth(self) -> dict[str, Any]:
        """The twin's truth (what its recordings carry) and the start point [m]."""
        return {**self.twin.truth(), "start_point_m": self.p0.tolist()}

    @property
    def p0(self) -> np.ndarray:
        """The platform's start point [m] (set at construction)."""
        return self._p0

    def report(self) -> dict[str, Any]:
        """The plant at the end of a run: time [s], periods, platform point [m] and drive angles [rad]."""
        return {"t_s": self.t, "cycles": self.cycles, "p_m": self.p.tolist(), "pd_m_s": self.pd.tolist(),
                "q_rad": self.th.tolist()}

    @property
    def state(self) -> np.ndarray:
        """Platform point and velocity ``[x, y, xd, yd]`` [m, m/s]."""
        return np.r_[self.p, self.pd]

    def signal(self, name: str, joint: int = 0) -> float:
        """A signal an analog terminal could be wired to: ``temperature`` (the twin's constant one) [degC]."""
        if name == "temperature":
            return float(self._Tj[joint])
        raise KeyError(f"3-RRR plant: no signal {name!r} (it has no torque sensors or load cells)")


def plant_from_config(config: Mapping[str, Any]) -> ThreeRRRPlant:
    """The plant an emulated rig's configuration asks for.

    Keys used: ``p0_m`` (start point [m], default the work region's centre) and ``twin_file`` (a
    twin description TOML, default the stated twin). The seed is not used: the 3-RRR twin has no
    random parts (its encoders and drives are quantized, not noisy).
    """
    twin = ThreeRRRTwin.from_toml(config["twin_file"]) if config.get("twin_file") else ThreeRRRTwin.default()
    plant = ThreeRRRPlant(twin, p0=config.get("p0_m"))
    return plant
