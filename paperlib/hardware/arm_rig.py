"""A position-controlled arm on EtherCAT behind the :class:`~paperlib.rig.Rig` interface: CSP axes and RTD terminals.

A factory arm is position-controlled: its controller sends joint positions, the drives close
their own position/velocity loops (cyclic synchronous position, CSP) and report the torque they
apply. :class:`ArmRig` is such a rig: one CiA 402 axis per joint, in the robot's joint order, each
in the mode its rig file names (``mode = "csp"``; a CSV axis takes velocities), and the chain's RTD
terminals for the gearbox temperatures. Its measurement:

=================  ==============================================================  =======
``q``              position 0x6064 / gear ratio (joint side)                        rad
``qd``             velocity 0x606C / gear ratio (``origin = "drive"``)              rad/s
``tau_m``          torque actual 0x6077 (motor side)                                N m
``temperature``    the RTD channel of each joint (NaN for a joint without one)     degC
=================  ==============================================================  =======

:meth:`ArmRig.command` sends each axis its target in its mode's unit (joint position [rad] for CSP),
not a torque; outside the loop and when the loop stops (:meth:`hold_command`) the rig holds the
last measured positions. The rig file's ``[arm]`` table gives the drive train (:class:`ArmTrain`).
A terminal fault (an open or out-of-range RTD) stops the run as for every rig: the loop's safe
stop, the recording up to the fault with the fault named. Labels as the other hardware rigs:
emulated devices record ``source = "twin"``, ``rig = "emulated-hardware"``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from paperlib.hardware.ethercat import EthercatConfig
from paperlib.hardware.joint_rig import JointRig
from paperlib.hardware.rig_settings import RigSettings
from paperlib.rig import Measurement, RigFault

__all__ = ["ArmTrain", "ArmRig"]


@dataclasses.dataclass(frozen=True)
class ArmTrain:
    """A position-controlled arm's drive train (its rig file's ``[arm]`` table).

    Attributes
    ----------
    gear_ratio : tuple of float
        Motor angle / joint angle per joint.
    encoder_counts_per_motor_rev : int
        Counts of 0x6064 per motor revolution.
    q_min_deg, q_max_deg : tuple of float
        Joint ranges; leaving one stops the run [deg].
    max_start_error_deg : float
        A run refuses to start when the arm is farther than this from its program's first pose [deg].
    """

    gear_ratio: tuple[float, ...]
    encoder_counts_per_motor_rev: int = 65536
    q_min_deg: tuple[float, ...] = ()
    q_max_deg: tuple[float, ...] = ()
    max_start_error_deg: float = 1.0

    @classmethod
    def from_settings(cls, settings: RigSettings) -> "ArmTrain":
        """From ``settings.arm``; raises ValueError naming the rig file for a missing or bad table."""
        where = f"rig {settings.source_file or settings.name}"
        tab = dict(settings.arm or {})
        n = len(settings.axes)
        if "gear_ratio" not in tab:
            raise ValueError(f"{where}: a position-controlled arm needs [arm] gear_ratio (one per axis)")
        unknown = sorted(set(tab) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"{where}: [arm] unknown key(s) {unknown}")
        vals: dict[str, Any] = {}
        for key in ("gear_ratio", "q_min_deg", "q_max_deg"):
            v = tuple(float(x) for x in tab.get(key, [-360.0 if key == "q_min_deg" else 360.0] * n))
            if len(v) != n:
                raise ValueError(f"{where}: [arm] {key} has {len(v)} values for {n} axes")
            vals[key] = v
        train = cls(encoder_counts_per_motor_rev=int(tab.get("encoder_counts_per_motor_rev", 65536)),
                    max_start_error_deg=float(tab.get("max_start_error_deg", 1.0)), **vals)
        if any(g == 0 for g in train.gear_ratio) or any(lo >= hi for lo, hi in zip(train.q_min_deg, train.q_max_deg)):
            raise ValueError(f"{where}: [arm] needs non-zero gear ratios and q_min_deg < q_max_deg per joint")
        return train


class ArmRig(JointRig):
    """The arm's axes and the chain's RTD terminals as a :class:`~paperlib.rig.Rig` (module docstring).

    Parameters
    ----------
    settings : RigSettings
        The rig file's settings (``cycle_hz`` and ``[arm]`` required).
    """

    origins = {"qd": "drive"}
    torque_side = "motor"

    def __init__(self, settings: RigSettings) -> None:  # noqa: D107 -- the class docstring
        where = settings.source_file or settings.name
        if settings.cycle_hz is None:
            raise ValueError(f"rig {where}: a position-controlled arm needs [ethercat] cycle_hz")
        self.settings = settings
        self.train = ArmTrain.from_settings(settings)
        self.n_joints = len(settings.axes)
        self.modes = tuple(a.mode for a in settings.axes)
        self.robot = settings.robot
        self.sample_rate_hz = float(settings.cycle_hz)
        temps = [i for i, c in enumerate(settings.terminals) if c.signal == "temperature"]
        self.channels = ("q", "qd", "tau_m", *(("temperature",) if temps else ()))
        self._slot = [("temperature", settings.terminals[i].joint, i) for i in temps
                      if settings.terminals[i].joint < self.n_joints]
        self.source = "hardware"
        self.rig_label = "hardware"
        self.emulated: bool | None = None
        self.identity: dict[str, Any] = {}
        self.master = None
        self.timings: dict[str, float] = {}
        self._m = Measurement(self.n_joints, self.channels)
        self._hold = np.zeros(self.n_joints)
        self._zero = self._hold  # JointRig.read_idle / read exchange this outside the loop: hold the arm
        self._in_flight = False
        self._cycle = 0
        self.record_timing = False
        self.t_read_ns = np.zeros(0, dtype=np.int64)
        self.t_cmd_ns = np.zeros(0, dtype=np.int64)

    def ethercat_config(self) -> EthercatConfig:
        s, tr = self.settings, self.train
        return EthercatConfig(chain=s.chain, coupler_index=s.coupler_index, axes=s.axes, terminals=s.terminals,
                              counts_per_rev=tr.encoder_counts_per_motor_rev, gear_ratio=tr.gear_ratio,
                              cycle_time_s=1.0 / self.sample_rate_hz, use_dc=s.use_dc,
                              max_consecutive_errors=s.max_lost_frames + 1, pd_watchdog_s=s.pd_watchdog_s,
                              nonblocking_receive=True)

    def open(self) -> None:
        """Bring the chain to OP (terminals configured, axes enabled holding their positions)."""
        super().open()
        self._m.q[:] = self.master.position  # type: ignore[union-attr]  # read while enabling
        self.hold_command()

    def hold_command(self) -> np.ndarray:
        """The command that holds the arm where it is: last measured positions (CSP), zero (CSV, CST).

        Set when the rig opens (what :meth:`read_idle` and the keep-alive frames send until the loop
        runs) and by the loop's safe stop; not on every measurement: a hold target that followed the
        measured position would let the arm sink under gravity while the run is prepared.
        """
        for j, mode in enumerate(self.modes):
            self._hold[j] = self._m.q[j] if mode == "csp" else 0.0
        return self._hold

    def _fill(self, pos: np.ndarray, vel: np.ndarray, tau: np.ndarray) -> Measurement:
        meas = self._m
        meas.q[:] = pos
        meas.qd[:] = vel
        meas.tau_m[:] = tau
        if self._slot:
            values = self.master.terminals.values  # type: ignore[union-attr]
            for name, joint, i in self._slot:
                getattr(meas, name)[joint] = values[i]
        meas.t = self._cycle / self.sample_rate_hz
        return meas

    def read_idle(self) -> Measurement:
        """A measurement outside the loop (one round trip holding the arm)."""
        if self.master is None:
            raise RigFault("read_idle() on a closed rig")
        return super().read_idle()

    def channel_sources(self) -> dict[str, Any]:
        """Which device (drive axis, terminal channel) each recording channel came from."""
        out: dict[str, Any] = {"q": {}, "qd": {}, "tau_m": {}}
        for j, ax in enumerate(self.settings.axes):
            drive = {"drive": self.settings.chain[ax.slave].name, "chain_position": ax.slave, "axis": ax.name,
                     "mode": ax.mode}
            out["q"][str(j + 1)] = {"device": "drive", "object": "0x6064 / gear ratio", "unit": "rad", **drive}
            out["qd"][str(j + 1)] = {"device": "drive", "object": "0x606C / gear ratio", "unit": "rad/s", **drive}
            out["tau_m"][str(j + 1)] = {"device": "drive", "object": "0x6077 (motor side)", "unit": "N m", **drive}
        if self.master is not None:
            out.update(self.master.terminals.sources())
        return out
