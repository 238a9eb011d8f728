"""The bearing room's joint twin stepped cycle by cycle, behind an emulated drive and its sensors.

:func:`paperlib.twin.robots.torque_joint.run_joint` simulates a whole run from a known command;
an emulated rig needs the same joint advanced one control cycle at a time under whatever torque
the master commands. :class:`TorqueJointPlant` does that with the same physics
(:func:`~paperlib.twin.robots.torque_joint.advance_joint`: the joint, the sensed friction and
ripple, optionally the grasped wheel bearing) and exposes it the way the hardware sees it:

* ``step(torque_Nm, dt)`` -- the drive's plant (:class:`paperlib.hardware.emulators.devices.Plant`):
  the motor torque [N m] times the gear ratio drives the joint; returns the motor-side position
  [rad], velocity [rad/s] and the torque the drive reports [N m];
* :meth:`signal` -- what the analog terminals are wired to: ``tau_s`` the joint torque sensor's
  noise-free reading (transmitted torque plus the sensor's offset, its shift of this run and its
  drift, as :func:`~paperlib.twin.robots.torque_joint.run_joint` draws them), ``tau_ref`` the load
  cell's true torque (0 without a bearing), ``temperature`` the joint's (constant here, the twin has
  no thermal model) [degC]. The electrical noise, the ADC and its limits are the terminals'.

The joint starts at rest at ``q0``; time advances in whole cycles of ``cycle_s`` (a remainder of
``dt`` is carried), ``substeps`` integration steps each.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from paperlib.twin.robots.torque_joint import TorqueJointTwin, advance_joint

__all__ = ["TorqueJointPlant", "plant_from_config"]


class TorqueJointPlant:
    """The joint twin as the emulated drive's plant (module docstring).

    Parameters
    ----------
    twin : TorqueJointTwin, optional
        Parameters (default: the bearing room's).
    bearing : paperlib.twin.robots.wheel_bearing.WheelBearing, optional
        A grasped wheel bearing (None: no load).
    seed : int
        Seed of the sensor's offset shift and drift rate of this run.
    q0 : float
        Start angle [rad].
    cycle_s : float
        Control cycle [s].
    temperature_degC : float
        The joint's temperature [degC].
    """

    def __init__(self, twin: TorqueJointTwin | None = None, bearing: Any = None, *, seed: int = 0, q0: float = 0.0,
                 cycle_s: float = 1e-3, temperature_degC: float = 25.0) -> None:
        self.twin = twin or TorqueJointTwin()
        tw = self.twin
        self.gear = float(tw.gear_ratio)
        self.dt = float(cycle_s)
        self.n_sub = max(1, int(round(tw.substeps * self.dt * tw.sample_rate_hz)))
        self.h = self.dt / self.n_sub
        rng = np.random.default_rng(seed)
        self.offset_shift_Nm = float(rng.normal(0.0, tw.sensor_shift_std_Nm))
        self.drift_Nm_per_s = float(rng.normal(0.0, tw.sensor_drift_std_Nm_per_s))
        self.temperature_degC = float(temperature_degC)
        rip = tw.ripple_components
        self._r = tuple(np.array([getattr(c, k) for c in rip], float) for k in ("order", "amplitude_Nm", "phase_rad"))
        self.bearing = bearing
        if bearing is not None:
            self._pb = bearing.friction_law().as_array()
            self._b = tuple(np.asarray(a, float) for a in bearing.roughness_arrays())
            self._Jb, self._Ja = bearing.ring_inertia + bearing.adapter_inertia, bearing.adapter_inertia
        else:
            self._pb, self._b, self._Jb, self._Ja = np.zeros(8), (np.zeros(0),) * 3, 1.0, 0.0
        self._pd, self._ps = tw.drive_friction.as_array(), tw.sensor_friction.as_array()
        self.state = np.array([float(q0), 0.0, float(q0), 0.0])
        self.out = np.zeros(6)
        self.t = 0.0
        self.cycles = 0
        self._carry = 0.0
        self.tau_motor = 0.0
        self._advance(0, 0.0)  # the rates at rest, compiles the step now

    def _advance(self, n_sub: int, tau_joint: float) -> None:
        r, b = self._r, self._b
        advance_joint(self.state, n_sub, self.h, tau_joint, self.twin.motor_inertia, self.twin.sensed_inertia,
                      self._pd, self._ps, r[0], r[1], r[2], self.bearing is not None,
                      self.twin.load_friction_coefficient, self.twin.grasp_stiffness, self.twin.grasp_damping,
                      self._Jb, self._Ja, self._pb, b[0], b[1], b[2], self.out)

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance by ``dt`` [s] under the motor torque ``torque_Nm`` (1,) [N m]; motor-side (q, qd, tau)."""
        self.tau_motor = float(np.asarray(torque_Nm, float).reshape(-1)[0])
        self._carry += max(float(dt), 0.0)
        n = int(self._carry / self.dt + 1e-9)
        if n:
            self._carry -= n * self.dt
            self._advance(n * self.n_sub, self.gear * self.tau_motor)
            self.t += n * self.dt
            self.cycles += n
        g = self.gear
        return np.array([g * self.state[0]]), np.array([g * self.state[1]]), np.array([self.tau_motor])

    def terminal_noise(self) -> dict[str, float]:
        """The sensors' electrical noise (std) the emulated bridges add, per signal [N m]."""
        return {"tau_s": float(self.twin.sensor_noise_Nm), "tau_ref": float(self.twin.load_cell_noise_Nm)}

    def signal(self, name: str, joint: int = 0) -> float:
        """The value of a terminal's input now: ``tau_s`` [N m], ``tau_ref`` [N m] or ``temperature`` [degC]."""
        if name == "tau_s":
            tw = self.twin
            return float(self.out[1] + tw.sensor_offset_Nm + self.offset_shift_Nm + self.drift_Nm_per_s * self.t)
        if name == "tau_ref":
            return float(self.out[3]) if self.bearing is not None else 0.0
        if name == "temperature":
            return self.temperature_degC
        raise ValueError(f"the torque-joint twin has no signal {name!r} (tau_s, tau_ref, temperature)")

    def truth(self) -> dict[str, Any]:
        """The twin's parameters and this run's draws (for the recording's truth)."""
        out = {"twin": self.twin.as_dict(), "intrinsic": self.twin.intrinsic_truth(),
               "run": {"sensor_offset_shift_Nm": self.offset_shift_Nm, "sensor_drift_Nm_per_s": self.drift_Nm_per_s,
                       "cycle_s": self.dt, "substeps_per_cycle": self.n_sub}}
        if self.bearing is not None:
            out["wheel_bearing"] = self.bearing.as_dict()
        return out


def plant_from_config(config: Mapping[str, Any]) -> TorqueJointPlant:
    """The joint twin an emulated rig steps, from the emulator's configuration.

    Keys: ``seed`` (default 1), ``q0_rad`` (0), ``cycle_s`` (1e-3), and ``load``: the grasped wheel
    bearing as ``{"grade", "index", "seed"}`` (member ``index`` of
    :func:`paperlib.twin.robots.wheel_bearing.population`), or absent / None for no load. The
    hardware layer passes the configuration through; what the load is stays with this robot's twin.
    """
    from paperlib.twin.robots.wheel_bearing import population

    load = None
    spec = config.get("load")
    if spec:
        load = population(str(spec.get("grade", "good")), int(spec.get("index", 0)) + 1, int(spec.get("seed", 11)))[-1]
    return TorqueJointPlant(bearing=load, seed=int(config.get("seed", 1)), q0=float(config.get("q0_rad", 0.0)),
                            cycle_s=float(config.get("cycle_s", 1e-3)))
