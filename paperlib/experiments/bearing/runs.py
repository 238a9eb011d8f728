"""The twin's recordings of paper 004's two experiments, in schema ``paperlib.recording/2``.

* :func:`no_load_recording`: the joint driven by trapezoidal torque profiles (30 s, 1-3 N m,
  alternating directions), nothing attached (Sec. 3.1.1);
* :func:`bearing_recording`: joint impedance control turning a grasped wheel bearing two
  revolutions each way, with the external load cell (Sec. 3.1.2, 4.1).

Both store only what the rig's logger would: the encoder angle ``q``, the joint torque sensor
``tau_s``, the commanded torque or setpoint, and (bearing) the load cell ``tau_ref``. Velocities
and accelerations are derived from ``q`` by the analysis (:func:`paperlib.signals.ensure_kinematics`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from paperlib import recordings as rec
from paperlib.twin.robots.torque_joint import JointRun, TorqueJointTwin, run_joint, trapezoidal_moves, trapezoidal_torque_profile
from paperlib.twin.robots.wheel_bearing import WheelBearing

__all__ = ["ROBOT", "WRITER", "BearingProfile", "no_load_run", "bearing_run", "no_load_recording",
           "bearing_recording", "to_recording"]

ROBOT = "kinova_gen3_joint7_twin"
WRITER = "paperlib.experiments.bearing.runs (twin: paperlib.twin.robots.torque_joint)"


@dataclass(frozen=True)
class BearingProfile:
    """The bearing-turning move: two revolutions each way (paper Sec. 3.1.2).

    Attributes
    ----------
    revolutions : float
        Per direction.
    v_max, a_max : float
        Cruise velocity [rad/s] and acceleration [rad/s^2] (assumed).
    dwell_s : float
        Rest before each move [s].
    """

    revolutions: float = 2.0
    v_max: float = 1.5
    a_max: float = 3.0
    dwell_s: float = 1.0

    def setpoints(self, fs: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = 2.0 * math.pi * self.revolutions
        return trapezoidal_moves((d, -d), v_max=self.v_max, a_max=self.a_max, dwell_s=self.dwell_s, fs=fs)


def no_load_run(twin: TorqueJointTwin | None = None, *, seed: int = 0, duration_s: float = 30.0) -> JointRun:
    """The no-load identification run on the twin (trapezoidal torque profiles)."""
    twin = twin or TorqueJointTwin()
    ff = trapezoidal_torque_profile(duration_s=duration_s, fs=twin.sample_rate_hz)
    return run_joint(twin, tau_ff=ff, seed=seed)


def bearing_run(bearing: WheelBearing, twin: TorqueJointTwin | None = None, *, seed: int = 0, q0: float = 0.0,
                profile: BearingProfile = BearingProfile()) -> JointRun:
    """One inspection trial: the joint turns ``bearing`` under impedance control."""
    twin = twin or TorqueJointTwin()
    return run_joint(twin, setpoint=profile.setpoints(twin.sample_rate_hz), bearing=bearing, q0=q0, seed=seed)


def to_recording(run: JointRun, *, kind: str, seed: int, config: dict[str, Any]) -> xr.Dataset:
    """A schema-2 recording of a twin run (``source = twin``, truth in the attributes)."""
    fs = 1.0 / (run.t[1] - run.t[0])
    channels: dict[str, np.ndarray] = {"tau_s": run.tau_s}
    if run.tau_ref is not None:
        channels["tau_ref"] = run.tau_ref
    if run.setpoint is not None:
        channels["q_sp"] = run.setpoint + float(run.truth["run"]["q0_rad"])
    truth = dict(run.truth)
    truth["kind"] = kind
    return rec.from_arrays(run.q, sample_rate_hz=round(fs, 9), robot=ROBOT, source="twin", channels=channels,
                           truth=truth, seed=int(seed), config={"kind": kind, **config},
                           controller="torque profile" if kind == "no_load" else "joint impedance",
                           writer=WRITER,
                           attrs={"description": ("no-load trapezoidal torque run" if kind == "no_load"
                                                  else "wheel-bearing turning trial with external load cell")})


def no_load_recording(seed: int = 0, twin: TorqueJointTwin | None = None, duration_s: float = 30.0) -> xr.Dataset:
    """:func:`no_load_run` as a recording."""
    run = no_load_run(twin, seed=seed, duration_s=duration_s)
    return to_recording(run, kind="no_load", seed=seed, config={"duration_s": duration_s})


def bearing_recording(bearing: WheelBearing, seed: int = 0, twin: TorqueJointTwin | None = None,
                      q0: float = 0.0, profile: BearingProfile = BearingProfile()) -> xr.Dataset:
    """:func:`bearing_run` as a recording."""
    run = bearing_run(bearing, twin, seed=seed, q0=q0, profile=profile)
    return to_recording(run, kind="bearing", seed=seed,
                        config={"profile": {"revolutions": profile.revolutions, "v_max": profile.v_max,
                                            "a_max": profile.a_max, "dwell_s": profile.dwell_s}})
