"""A joint-space EtherCAT rig behind the :class:`~paperlib.rig.Rig` interface: drive axes and analog terminals.

The bearing room's rig (paper 004: one joint with an integrated joint torque sensor, an external
load cell) has no IMU board: its measurement is the drive's encoder and velocity, the drive's
torque, and the analog terminals' channels (:mod:`paperlib.hardware.analog_terminals`):

=================  ==============================================================  =======
``q``              position 0x6064 / gear ratio (joint side)                        rad
``qd``             velocity 0x606C / gear ratio (``origin = "drive"``)              rad/s
``tau_m``          torque actual 0x6077 (motor side)                                N m
``tau_s``          the joint torque sensor's bridge terminal                        N m
``tau_ref``        the load cell's bridge terminal                                  N m
``temperature``    an RTD terminal channel                                          degC
=================  ==============================================================  =======

(``tau_s`` / ``tau_ref`` / ``temperature`` exist when the rig file's terminals provide them.) The
rig file's ``[joint]`` table gives the drive train (:class:`JointTrain`). A rig of several axes
without an IMU board (the 3-RRR's three single-axis drives) is the same rig with one column per
axis, in the rig file's axis order, every axis with the ``[joint]`` drive train; a terminal
channel's ``joint`` (1-based) is the column it fills. A terminal whose status
says its value is invalid (a broken bridge wire, an open or out-of-range RTD) makes the master
raise :class:`~paperlib.hardware.analog_terminals.TerminalFault` in ``read``, on the cycle its
reply carries the error bit; :func:`paperlib.hardware.loop.run_loop` then stops safely (zero
torque, drive disabled) and the recording ends at the last good cycle with the fault named.
Labels as :class:`~paperlib.hardware.rig.HardwareRig`: emulated devices record ``source = "twin"``,
``rig = "emulated-hardware"``.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from paperlib.hardware.ethercat import EthercatConfig, EthercatMaster
from paperlib.hardware.rig import identify
from paperlib.hardware.rig_settings import RigSettings
from paperlib.rig import Measurement, Rig, RigFault

__all__ = ["JointTrain", "JointRig"]


@dataclasses.dataclass(frozen=True)
class JointTrain:
    """A single-joint rig's drive train (its rig file's ``[joint]`` table).

    Attributes
    ----------
    gear_ratio : float
        Motor angle / joint angle.
    encoder_counts_per_motor_rev : int
        Counts of 0x6064 per motor revolution.
    max_motor_torque_Nm : float
        The loop's torque clip (motor side) [N m].
    q_min_deg, q_max_deg : float
        Joint-angle range; leaving it stops the run [deg].
    kp_Nm_per_rad, kd_Nm_s_per_rad : float
        Joint impedance gains of the self-test's moves (joint side).
    selftest_move_deg : float
        Length of the self-test's moves (out and back, every axis) [deg].
    torque_actual_lag_cycles : int
        Cycles by which the drive's reported torque (0x6077, ``tau_m``) lags the cycle it was
        applied in: 1 when the reply of cycle k carries the position at the start of cycle k + 1
        with the torque applied over cycle k (paperlib's emulated drives). A property of the drive,
        to be measured on it (a torque step: which sample first shows it). The recording keeps what
        the drive reported; an analysis that pairs torque with state aligns by it.
    """

    gear_ratio: float
    encoder_counts_per_motor_rev: int = 65536
    max_motor_torque_Nm: float = 0.1
    q_min_deg: float = -1080.0
    q_max_deg: float = 1080.0
    kp_Nm_per_rad: float = 60.0
    kd_Nm_s_per_rad: float = 6.0
    selftest_move_deg: float = 180.0
    torque_actual_lag_cycles: int = 0

    @classmethod
    def from_settings(cls, settings: RigSettings) -> "JointTrain":
        """From ``settings.joint``; raises ValueError naming the rig file for a missing or bad table."""
        where = f"rig {settings.source_file or settings.name}"
        tab = dict(settings.joint or {})
        if "gear_ratio" not in tab:
            raise ValueError(f"{where}: a single-joint rig needs [joint] gear_ratio")
        unknown = sorted(set(tab) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"{where}: [joint] unknown key(s) {unknown}")
        ints = ("encoder_counts_per_motor_rev", "torque_actual_lag_cycles")
        train = cls(**{k: (int(v) if k in ints else float(v)) for k, v in tab.items()})
        if not (train.gear_ratio > 0 and train.max_motor_torque_Nm > 0 and train.q_min_deg < train.q_max_deg
                and train.torque_actual_lag_cycles >= 0):
            raise ValueError(f"{where}: [joint] needs gear_ratio > 0, max_motor_torque_Nm > 0, q_min_deg < q_max_deg, "
                             "torque_actual_lag_cycles >= 0")
        if len(settings.axes) < 1:
            raise ValueError(f"{where}: a joint-space rig needs at least one CiA 402 axis, the chain has none")
        return train


class JointRig(Rig):
    """One drive axis and the chain's analog terminals as a :class:`~paperlib.rig.Rig` (module docstring).

    Parameters
    ----------
    settings : RigSettings
        The rig file's settings (``cycle_hz`` required).
    """

    origins = {"qd": "drive"}
    torque_side = "motor"

    def __init__(self, settings: RigSettings) -> None:
        if settings.cycle_hz is None:
            where = settings.source_file or settings.name
            raise ValueError(f"rig {where}: a joint-space rig needs [ethercat] cycle_hz")
        self.settings = settings
        self.train = JointTrain.from_settings(settings)
        self.n_joints = len(settings.axes)
        self.robot = settings.robot
        self.sample_rate_hz = float(settings.cycle_hz)
        mine = [(i, c) for i, c in enumerate(settings.terminals) if 0 <= c.joint < self.n_joints]
        self.channels = ("q", "qd", "tau_m", *dict.fromkeys(c.signal for _, c in mine))
        self._slot = [(c.signal, c.joint, i) for i, c in mine]
        self.source = "hardware"
        self.rig_label = "hardware"
        self.emulated: bool | None = None
        self.identity: dict[str, Any] = {}
        self.master: EthercatMaster | None = None
        self.timings: dict[str, float] = {}
        self._m = Measurement(self.n_joints, self.channels)
        self._zero = np.zeros(self.n_joints)
        self._in_flight = False
        self._cycle = 0
        # per-cycle read / command timestamps for the deadline analysis (prepare_timing)
        self.record_timing = False
        self.t_read_ns = np.zeros(0, dtype=np.int64)
        self.t_cmd_ns = np.zeros(0, dtype=np.int64)

    def prepare_timing(self, n_cycles: int) -> None:
        """Preallocate per-cycle read / command timestamps for ``n_cycles`` (the session's deadline analysis)."""
        self.t_read_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self.t_cmd_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self._cycle = 0
        self.record_timing = True

    def ethercat_config(self) -> EthercatConfig:
        s, tr = self.settings, self.train
        return EthercatConfig(chain=s.chain, coupler_index=s.coupler_index, axes=s.axes, terminals=s.terminals,
                              counts_per_rev=tr.encoder_counts_per_motor_rev, gear_ratio=(tr.gear_ratio,) * self.n_joints,
                              cycle_time_s=1.0 / self.sample_rate_hz, use_dc=s.use_dc,
                              max_consecutive_errors=s.max_lost_frames + 1, pd_watchdog_s=s.pd_watchdog_s,
                              nonblocking_receive=True)

    def open(self) -> None:
        """Bring the chain to OP (terminals configured and tared, the axis enabled)."""
        if self.master is not None and self.master.operational:
            return
        t0 = time.perf_counter()
        self.master = EthercatMaster(self.ethercat_config())
        try:
            self.master.open(self.settings.interface, netns=self.settings.netns)
        except BaseException:
            self.master.close()
            raise
        self.timings.update({f"ethercat_{k}": v for k, v in self.master.timings.items()})
        self.identity = identify(self.master)
        self.emulated = bool(self.settings.emulated or self.identity.get("emulator"))
        self.source = "twin" if self.emulated else "hardware"
        self.rig_label = "emulated-hardware" if self.emulated else "hardware"
        self._in_flight = False
        self._cycle = 0
        self.timings["open_s"] = time.perf_counter() - t0

    def read_idle(self) -> Measurement:
        """A measurement outside the loop (one zero-torque round trip)."""
        if self.master is None:
            raise RigFault("read_idle() on a closed rig")
        if self._in_flight:
            self.master.receive(max(self.settings.receive_timeout_s, 1e-3))
            self._in_flight = False
        return self._fill(*self.master.exchange(self._zero)[:3])

    @contextmanager
    def keepalive(self, rate_hz: float = 1000.0) -> Iterator[None]:
        """Exchange zero-torque frames from a thread while the caller prepares the run.

        The drive's process-data watchdog (e.g. 100 ms) must not see a silent master between the
        bring-up and the loop (the recording writer's allocation, ...).

        Raises
        ------
        RigFault
            When the link or a terminal failed meanwhile.
        """
        stop = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            try:
                while not stop.is_set():
                    self.read_idle()
                    time.sleep(1.0 / rate_hz)
            except BaseException as exc:  # noqa: BLE001 -- reported to the caller
                errors.append(exc)

        thread = threading.Thread(target=run, name="joint-rig-keepalive", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5.0)
        if errors:
            raise RigFault(f"link lost while preparing the run: {errors[0]}") from errors[0]

    def read(self) -> Measurement:
        m = self.master
        if m is None or not m.operational:
            raise RigFault("read() on a closed rig")
        k = self._cycle
        if self.record_timing and k < self.t_read_ns.size:
            self.t_read_ns[k] = time.perf_counter_ns()
        if self._in_flight:
            pos, vel, tau, _, _ = m.receive(self.settings.receive_timeout_s)
            self._in_flight = False
        else:
            pos, vel, tau, _, _ = m.exchange(self._zero)
        return self._fill(pos, vel, tau)

    def _fill(self, pos: np.ndarray, vel: np.ndarray, tau: np.ndarray) -> Measurement:
        meas = self._m
        meas.q[:] = pos[: self.n_joints]
        meas.qd[:] = vel[: self.n_joints]
        meas.tau_m[:] = tau[: self.n_joints]
        values = self.master.terminals.values  # type: ignore[union-attr]
        for name, j, i in self._slot:
            getattr(meas, name)[j] = values[i]
        meas.t = self._cycle / self.sample_rate_hz
        return meas

    def command(self, tau_tgt: np.ndarray) -> None:
        m = self.master
        if m is None or not m.operational:
            return
        m.send(tau_tgt)
        self._in_flight = True
        k = self._cycle
        if self.record_timing and k < self.t_cmd_ns.size:
            self.t_cmd_ns[k] = time.perf_counter_ns()
        self._cycle = k + 1

    def close(self) -> None:
        """Zero torque, disable the drive, chain to INIT (safe twice)."""
        m = self.master
        if m is None:
            return
        try:
            if m.operational and self._in_flight:
                try:
                    m.receive(1e-3)
                except Exception:  # noqa: BLE001 -- the link or a terminal may be gone: disable anyway
                    pass
        finally:
            self._in_flight = False
            self.record_timing = False
            m.close()

    @property
    def consecutive_frame_errors(self) -> int:
        """Current run of cycles whose frame was lost or had a wrong working counter."""
        return 0 if self.master is None else self.master.stats.consecutive_errors

    def counters(self) -> dict[str, Any]:
        """The master's link counters."""
        return {} if self.master is None else self.master.counters()

    def channel_sources(self) -> dict[str, Any]:
        """Which terminal and channel each recording channel came from, and the drive's."""
        objects = {"q": ("0x6064 / gear ratio", "rad"), "qd": ("0x606C / gear ratio", "rad/s"),
                   "tau_m": ("0x6077 (motor side)", "N m")}
        out: dict[str, Any] = {}
        for name, (obj, unit) in objects.items():
            out[name] = {}
            for k, axis in enumerate(self.settings.axes):
                entry = {"device": "drive", "object": obj if axis.offset == 0 else f"{obj} + 0x{axis.offset:X}",
                         "unit": unit, "drive": self.settings.chain[axis.slave].name, "chain_position": axis.slave}
                out[name][str(k + 1)] = entry
        if self.master is not None:
            out.update(self.master.terminals.sources())
        return out
