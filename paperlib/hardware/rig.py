"""A two-joint EtherCAT + IMU rig behind the :class:`~paperlib.rig.Rig` interface.

:class:`HardwareRig` combines

* the EtherCAT master (:class:`~paperlib.hardware.ethercat.EthercatMaster`: the chain the rig
  file names in its ``[[ethercat.slave]]`` tables -- CiA 402 drives in CST mode whose axes, in
  wiring order, are the robot's drives (the flagship: one dual-axis drive) and, optionally, a
  slave whose digital inputs carry the proximity sensors), and
* the IMU receiver (:class:`~paperlib.hardware.imu_link.ImuReceiver`: a microcontroller's UDP
  stream of both IMUs, held between packets -- "oversampling" at the control rate),

and produces one :class:`~paperlib.rig.Measurement` per control cycle (the robot is the rig
file's ``[rig] robot``, loaded with :func:`paperlib.robots.load`; ``config/rigs/`` holds the
flagship's rig file):

==========  ==================================================================  =========
``q``       encoder position 0x6064 (motor counts -> joint angle: / gear ratio)   rad
            plus the zeroing offset
``qd``      gyroscope z of the joint's IMU, through the IMU conversion row         rad/s
``qdd``     accelerometer y over the lever arm, through the conversion row         rad/s^2
``tau_m``   torque actual 0x6077 (per mille of the rated torque 0x6076)            N m (motor)
``digital_inputs``  the DIs of the ``digital_inputs`` slave (bit k: proximity sensor of joint k + 1)
==========  ==================================================================  =========

The IMU conversion rows are :func:`paperlib.estimation.imu_calibration.imu_to_joint`'s
(``IC_*`` layout): identity by default (nominal sensitivities and lever arm), or those of an
IMU calibration file (``paperlib hardware calibrate-imu``; eqs. 47-48 plus offsets, the
centripetal leak and the stream delay).

Cycle timing. ``command`` *sends* the process-data frame and ``read`` (at the start of the
next cycle) *receives* it: the frame's round trip overlaps the wait for the next deadline
(SOEM's usual split; :meth:`EthercatMaster.send` / :meth:`~EthercatMaster.receive`). So the
measurement of cycle k is what the drive reported in the frame that carried the command of
cycle k - 1. A frame not back ``receive_timeout_s`` after the cycle started counts as lost.

Watchdog. :attr:`HardwareRig.consecutive_frame_errors` and :attr:`HardwareRig.imu_age_s` are
what :func:`paperlib.hardware.loop.run_loop` checks every cycle (its
:class:`~paperlib.hardware.loop.Watchdog`); the master itself raises
:class:`~paperlib.hardware.ethercat.LostFrameError` (a :class:`~paperlib.rig.RigFault`) inside
``read`` on the cycle the run of bad frames exceeds ``max_lost_frames``, i.e. when the loop's
check would trip, so the same threshold holds even without the loop. ``close()`` commands zero torque, walks the drive to "switch on disabled",
puts the chain in INIT and closes both sockets; it is safe to call twice and after any fault.

Zeroing (:meth:`HardwareRig.zero`). The drive's encoder counts from an arbitrary origin, so
the joint angles need an offset. Each joint in turn is moved slowly (a position ramp at
``velocity_deg_s``, PD-tracked with the torque clipped to ``max_torque_Nm``) in its
``direction`` until its proximity sensor's input switches on; the raw angle at that cycle
is the sensor's ``switch_angle_deg``, which gives the offset. The other joint holds its
position. If the input is already on at the start, the joint first backs off until it is
off. The run fails (zero torque, :class:`ZeroingError`) if the input does not switch within
``travel_max_deg`` or ``timeout_s``. Resolution: one cycle of motion (5 deg/s at 1 kHz =
0.005 deg) plus the sensor's own repeatability.

Data labels. A rig whose devices are paperlib's emulators is **not** hardware: recordings
from it are simulated data and are labelled ``source = "twin"`` with the attribute
``rig = "emulated-hardware"`` (see :attr:`HardwareRig.source`). The rig decides this at
:meth:`~HardwareRig.open`: emulated if the configuration says ``[rig] emulated = true`` or if
the drive identifies itself as the paperlib emulator (its software version 0x100A), whatever
the configuration says. Only a rig with real devices records ``source = "hardware"``.
"""

from __future__ import annotations

import math
import threading
import time
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from paperlib.hardware.ethercat import EthercatConfig, EthercatError, EthercatMaster
from paperlib.hardware.imu_link import ImuReceiver
from paperlib.hardware.rig_settings import (
    IDENTITY_FIELDS,
    RigSettings,
    ZeroingSettings,
    chain_toml,
    load_rig_settings,
)
from paperlib.rig import Measurement, Rig, RigFault

__all__ = [
    "RigSettings",
    "ZeroingSettings",
    "ZeroingError",
    "ZeroingResult",
    "HardwareRig",
    "load_rig_settings",
    "chain_toml",
    "IDENTITY_FIELDS",
    "load_imu_calibration",
    "write_imu_calibration",
    "EMULATOR_SOFTWARE_PREFIX",
    "identify",
]

EMULATOR_SOFTWARE_PREFIX = "paperlib esc emulator"
"""Software version (0x100A) the paperlib drive emulator reports; such a rig is never 'hardware'."""


class ZeroingError(RigFault):
    """A proximity sensor did not switch during zeroing."""


def load_imu_calibration(path: str | Path, n: int = 2) -> np.ndarray:
    """IMU conversion rows (n, N_IC) from a calibration TOML (``[imu_calibration] rows``)."""
    from paperlib.estimation.imu_calibration import N_IC

    with Path(path).open("rb") as fh:
        raw = tomllib.load(fh)
    try:
        rows = np.asarray(raw["imu_calibration"]["rows"], dtype=float)
    except KeyError:
        raise ValueError(f"{path}: no [imu_calibration] rows") from None
    if rows.shape != (n, N_IC) or not np.all(np.isfinite(rows)):
        raise ValueError(f"{path}: [imu_calibration] rows must be {n} finite rows of {N_IC}, got shape {rows.shape}")
    return rows


def write_imu_calibration(path: str | Path, rows: np.ndarray, *, source: str, extra: dict[str, Any] | None = None) -> Path:
    """Write conversion rows as a calibration TOML (read back by :func:`load_imu_calibration`)."""
    from paperlib.estimation.imu_calibration import IC_DELAY

    rows = np.asarray(rows, float)
    lines = [
        "# IMU conversion rows for paperlib.estimation.imu_calibration.imu_to_joint:",
        "# qd = alpha_g gz + b_g;  qdd = alpha_a ay / r + leak qd^2 + b_a;  delay in 4 kHz control cycles",
        "[imu_calibration]",
        'columns = ["alpha_g", "bias_g_rad_s", "alpha_a", "leak", "bias_a_rad_s2", "delay_cycles"]',
        "rows = [" + ", ".join("[" + ", ".join(repr(float(x)) for x in r) + "]" for r in rows) + "]",
        f"delay_cycles = {int(round(float(np.mean(rows[:, IC_DELAY]))))}",
        f"source = {source!r}".replace("'", '"'),
    ]
    for k, v in (extra or {}).items():
        lines.append(f"{k} = {v!r}".replace("'", '"'))
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def identify(m: EthercatMaster) -> dict[str, Any]:
    """The chain found and the first drive's name and versions (0x1008/0x1009/0x100A); ``emulator``:
    whether the drive reports paperlib's emulator as its software version (then the rig is not hardware)."""
    out: dict[str, Any] = {"slaves": [dict(d) for d in m.found], "emulator": False}
    for idx, key in ((0x1008, "device_name"), (0x1009, "hardware_version"), (0x100A, "software_version")):
        try:
            raw = m._drive.sdo_read(idx, 0)
            out[key] = bytes(raw).split(b"\0")[0].decode("ascii", "replace")
        except Exception:  # noqa: BLE001 -- optional objects
            out[key] = None
    sw = out.get("software_version") or ""
    out["emulator"] = sw.startswith(EMULATOR_SOFTWARE_PREFIX)
    return out


@dataclass
class ZeroingResult:
    """Outcome of :meth:`HardwareRig.zero`.

    Attributes
    ----------
    offset_rad : ndarray, shape (2,)
        Added to the raw joint angle (encoder / gear ratio) [rad].
    raw_at_switch_rad : ndarray, shape (2,)
        Raw joint angle at the cycle the input switched on [rad].
    travel_rad : ndarray, shape (2,)
        Distance moved to find each sensor [rad].
    duration_s : float
        Wall time [s].
    """

    offset_rad: np.ndarray
    raw_at_switch_rad: np.ndarray
    travel_rad: np.ndarray
    duration_s: float

    def as_dict(self) -> dict[str, Any]:
        return {"offset_deg": np.degrees(self.offset_rad).tolist(),
                "raw_at_switch_deg": np.degrees(self.raw_at_switch_rad).tolist(),
                "travel_deg": np.degrees(self.travel_rad).tolist(), "duration_s": self.duration_s}


def _check_axes(settings: RigSettings, robot: Any, gear: np.ndarray) -> None:
    """Refuse a rig whose chain has not one CiA 402 axis per drive of its robot (axis k drives drive k).

    Raises
    ------
    ValueError
        Naming the rig file, the axes found and the robot's drives.
    """
    n_drives = int(getattr(robot, "n_drives", len(gear)))
    names = [ax.name for ax in settings.axes]
    where = f"rig {settings.source_file or settings.name}"
    if len(names) != n_drives:
        raise ValueError(f"{where}: the [[ethercat.slave]] chain has {len(names)} CiA 402 axis/axes ({', '.join(names)}) "
                         f"but robot {settings.robot!r} has {n_drives} drive(s); list one axis per drive, in the "
                         "robot's drive order")
    if len(gear) != n_drives:
        raise ValueError(f"{where}: {len(gear)} gear ratio(s) for robot {settings.robot!r}'s {n_drives} drive(s)")


class HardwareRig(Rig):
    """The EtherCAT drive + IMU link as a :class:`~paperlib.rig.Rig` (see the module docstring).

    Parameters
    ----------
    settings : RigSettings
        Interfaces, identities, thresholds.
    imu_rows : array_like, shape (2, N_IC), optional
        IMU conversion rows (default: ``settings.imu_calibration_file``, else identity).
    robot : optional
        Robot model (gear ratios, lever arms, limits, control rate); default
        ``paperlib.robots.load(settings.robot)``.
    """

    n_joints = 2

    def __init__(self, settings: RigSettings, imu_rows: Any = None, robot: Any = None) -> None:
        from paperlib.estimation.imu_calibration import identity_conversion
        from paperlib.robots import load as load_robot

        if not settings.imu_enabled:
            raise ValueError(f"rig {settings.source_file or settings.name} has no IMU board ([imu] enabled = false): "
                             "this rig measures the rates with it; a single-joint rig runs as "
                             "paperlib.hardware.joint_rig.JointRig")
        self.settings = settings
        self.robot_model = robot or load_robot(settings.robot)
        self.robot = settings.robot
        if settings.cycle_hz is None:  # the robot's control rate unless the rig file sets [ethercat] cycle_hz
            import dataclasses

            settings = dataclasses.replace(settings, cycle_hz=self.robot_model.sample_rate_hz)
            self.settings = settings
        self.sample_rate_hz = float(settings.cycle_hz)
        self.source = "hardware"
        self.rig_label = "hardware"
        self.emulated: bool | None = None
        self.identity: dict[str, Any] = {}
        if imu_rows is None and settings.imu_calibration_file:
            imu_rows = load_imu_calibration(settings.imu_calibration_file)
        self.imu_rows = identity_conversion(2) if imu_rows is None else np.array(imu_rows, dtype=float)
        self.imu_calibrated = imu_rows is not None
        self.gear = np.asarray(settings.gear_ratio or self.robot_model.gear_ratios, dtype=float)
        _check_axes(settings, self.robot_model, self.gear)
        self.lever = np.asarray(settings.lever_arm_m or self.robot_model.description["imu"]["lever_arm_m"], float)
        self.offset = np.radians(np.asarray(settings.position_offset_deg, float))
        self.master: EthercatMaster | None = None
        self.receiver: ImuReceiver | None = None
        self.zeroing: ZeroingResult | None = None
        self.timings: dict[str, float] = {}
        self.bringup_errors: list[str] = []
        self._m = Measurement(2)
        # RTD channels of the chain's terminals: (joint, index into the master's terminal values)
        self._temp_slots = [(c.joint, i) for i, c in enumerate(settings.terminals)
                            if c.signal == "temperature" and c.joint < 2]
        self._zero = np.zeros(2)
        self._opened = False
        self._in_flight = False
        self._cycle = 0
        self._ka_thread: threading.Thread | None = None
        self._ka_stop = threading.Event()
        self._ka_error: BaseException | None = None
        self.imu_age_s = math.inf
        # per-cycle timestamps (for deadline analysis), filled while `record_timing` is set
        self.record_timing = False
        self.t_read_ns = np.zeros(0, dtype=np.int64)
        self.t_cmd_ns = np.zeros(0, dtype=np.int64)
        # unpacked conversion constants (plain floats: the hot path avoids numpy scalars)
        self._conv: list[tuple[float, ...]] = []
        self._set_conversion()
        # fault injection (tests, self-tests): one NaN rate sample at cycle _nan_k of joint _nan_j
        nan_qd = settings.inject_nan_qd
        self._nan_k = -1 if nan_qd is None else int(round(nan_qd[0] * self.sample_rate_hz))
        self._nan_j = 0 if nan_qd is None else nan_qd[1] - 1

    # -- configuration -----------------------------------------------------------------------------
    def _set_conversion(self) -> None:
        from paperlib.estimation.imu_calibration import IC_ALPHA_A, IC_ALPHA_G, IC_BIAS_A, IC_BIAS_G, IC_LEAK

        r = self.imu_rows
        self._conv = [(float(r[j, IC_ALPHA_G]), float(r[j, IC_BIAS_G]), float(r[j, IC_ALPHA_A]) / float(self.lever[j]),
                       float(r[j, IC_LEAK]), float(r[j, IC_BIAS_A]), int(self.settings.imu_of_joint[j]))
                      for j in range(2)]

    def set_imu_rows(self, rows: Any) -> None:
        """Replace the IMU conversion rows (e.g. after a calibration run)."""
        self.imu_rows = np.array(rows, dtype=float)
        self.imu_calibrated = True
        self._set_conversion()

    @property
    def imu_delay_cycles(self) -> int:
        """Stream delay of the IMU behind the encoder in control cycles (from the conversion rows)."""
        from paperlib.estimation.imu_calibration import IC_DELAY

        return int(round(float(np.mean(self.imu_rows[:, IC_DELAY]))))

    def ethercat_config(self) -> EthercatConfig:
        s = self.settings
        return EthercatConfig(
            chain=s.chain, coupler_index=s.coupler_index, axes=s.axes, terminals=s.terminals,
            counts_per_rev=int(self.robot_model.description["sensors"]["encoder_counts_per_motor_rev"]),
            gear_ratio=tuple(float(g) for g in self.gear),
            cycle_time_s=1.0 / s.cycle_hz, use_dc=s.use_dc, max_consecutive_errors=s.max_lost_frames + 1,
            pd_watchdog_s=s.pd_watchdog_s, nonblocking_receive=True,
        )

    # -- life cycle ---------------------------------------------------------------------------------
    def open(self) -> None:
        """Bind the IMU socket, bring the EtherCAT chain to OP with both axes enabled, wait for IMU data.

        Raises
        ------
        RigFault
            :class:`~paperlib.hardware.ethercat.NoSlaveError`, ``ChainMismatchError``,
            ``SdoAbortError`` ... from the master, or no valid IMU packet within
            ``imu_wait_s`` (naming the port and the expected source).
        """
        if self._opened:
            return
        s = self.settings
        t0 = time.perf_counter()
        try:
            self._open_receiver()
            self._bring_up()
            self.timings.update({f"ethercat_{k}": v for k, v in self.master.timings.items()})
            self.identity = self._identify()
            self.emulated = bool(s.emulated or self.identity.get("emulator"))
            self.source = "twin" if self.emulated else "hardware"
            self.rig_label = "emulated-hardware" if self.emulated else "hardware"
            self._opened = True
            self._in_flight = False
            self._cycle = 0
            self._wait_for_imu()
            self.timings["open_s"] = time.perf_counter() - t0
        except BaseException:
            self._shutdown()
            raise

    def _bring_up(self) -> None:
        """EtherCAT to OP, again (up to ``bringup_attempts``) after a transient failure.

        Transient: a mailbox that timed out, a mapping read back wrong, a state not reached in
        time (a busy slave). Not retried: no slave, a wrong chain, an SDO abort.
        """
        from paperlib.hardware.ethercat import ChainMismatchError, NoSlaveError, SdoAbortError

        s = self.settings
        for attempt in range(1, s.bringup_attempts + 1):
            self.master = EthercatMaster(self.ethercat_config())
            try:
                self.master.open(s.interface, netns=s.netns)
                self.timings["bringup_attempts"] = attempt
                return
            except (NoSlaveError, ChainMismatchError, SdoAbortError):
                raise
            except EthercatError as exc:
                if attempt == s.bringup_attempts:
                    raise
                self.bringup_errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(0.2)

    def _open_receiver(self) -> None:
        s = self.settings
        if s.netns:
            from paperlib.hardware.netns import enter_netns

            with enter_netns(s.netns):
                self.receiver = self._make_receiver()
        else:
            self.receiver = self._make_receiver()

    def _make_receiver(self) -> ImuReceiver:
        s = self.settings
        try:
            return ImuReceiver(s.bind_address, s.udp_port, s.source_address, stale_after_s=s.max_imu_age_s)
        except OSError as exc:
            raise RigFault(f"cannot bind the IMU receiver to {s.bind_address}:{s.udp_port}: {exc}") from exc

    def _identify(self) -> dict[str, Any]:
        assert self.master is not None
        return identify(self.master)

    def _wait_for_imu(self) -> None:
        """Exchange zero-torque frames until a fresh IMU sample arrived (``imu_wait_s`` at most)."""
        s = self.settings
        rx = self.receiver
        assert rx is not None
        deadline = time.monotonic() + s.imu_wait_s
        while True:
            self._idle_cycle(self._zero)
            if rx.counters.valid > 0 and rx.latest().age_s <= s.max_imu_age_s:
                return
            if time.monotonic() > deadline:
                c = rx.counters
                raise RigFault(
                    f"no valid IMU data on UDP port {s.udp_port} within {s.imu_wait_s:g} s "
                    f"(expected source {s.source_address or 'any'}; datagrams {c.datagrams}, valid {c.valid}, "
                    f"foreign {c.foreign}, malformed {c.malformed})")
            time.sleep(0.001)

    def _idle_cycle(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
        """One exchange outside the real-time loop (bring-up, zeroing, keep-alive)."""
        m = self.master
        assert m is not None
        if self._in_flight:
            out = m.receive(max(self.settings.receive_timeout_s, 1e-3))
        else:
            out = m.exchange(self._zero)
        m.send(tau)
        self._in_flight = True
        if self.receiver is not None:
            self.receiver.poll()
        return out

    @contextmanager
    def keepalive(self, rate_hz: float = 1000.0) -> Iterator[None]:
        """Keep exchanging zero-torque frames from a thread while the caller prepares a run.

        The drive's process-data watchdog (~100 ms) must not see a silent master between
        bring-up and the real-time loop (trajectory planning, buffer allocation...).
        """
        if not self._opened:
            yield
            return
        self._ka_stop.clear()
        self._ka_error = None

        def run() -> None:
            try:
                while not self._ka_stop.is_set():
                    self._idle_cycle(self._zero)
                    time.sleep(1.0 / rate_hz)
            except BaseException as exc:  # noqa: BLE001 -- reported to the caller
                self._ka_error = exc

        self._ka_thread = threading.Thread(target=run, name="ethercat-keepalive", daemon=True)
        self._ka_thread.start()
        try:
            yield
        finally:
            self._ka_stop.set()
            self._ka_thread.join(timeout=5.0)
            self._ka_thread = None
        if self._ka_error is not None:
            raise RigFault(f"link lost while preparing the run: {self._ka_error}") from self._ka_error

    def read_idle(self) -> Measurement:
        """A measurement outside the real-time loop (one zero-torque exchange first)."""
        self._idle_cycle(self._zero)
        return self._fill(self.master.position, self.master.torque, self.master.digital_inputs)  # type: ignore[union-attr]

    def prepare_timing(self, n_cycles: int) -> None:
        """Preallocate per-cycle read/command timestamps for ``n_cycles`` (deadline analysis)."""
        self.t_read_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self.t_cmd_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self._cycle = 0
        self.record_timing = True

    # -- cycle ----------------------------------------------------------------------------------------
    def read(self) -> Measurement:
        m = self.master
        if m is None or not self._opened:
            raise RigFault("read() on a closed rig")
        k = self._cycle
        if self.record_timing and k < self.t_read_ns.size:
            self.t_read_ns[k] = time.perf_counter_ns()
        if self._in_flight:
            pos, _, tau, di, _ = m.receive(self.settings.receive_timeout_s)
            self._in_flight = False
        else:  # first cycle without a frame in flight: one round trip
            pos, _, tau, di, _ = m.exchange(self._zero)
        self.receiver.poll()  # type: ignore[union-attr]
        return self._fill(pos, tau, di)

    def _fill(self, pos: np.ndarray, tau: np.ndarray, di: int) -> Measurement:
        meas = self._m
        off = self.offset
        meas.q[0] = pos[0] + off[0]
        meas.q[1] = pos[1] + off[1]
        meas.tau_m[0] = tau[0]
        meas.tau_m[1] = tau[1]
        meas.digital_inputs = di
        s = self.receiver.latest()  # type: ignore[union-attr]
        self.imu_age_s = s.age_s
        g, a = s.gyro, s.accel
        for j in (0, 1):
            ag, bg, aa, leak, ba, i = self._conv[j]
            qd = ag * g[i, 2] + bg
            meas.qd[j] = qd
            meas.qdd[j] = aa * a[i, 1] + leak * qd * qd + ba
        if self._cycle == self._nan_k:
            meas.qd[self._nan_j] = math.nan
        if self._temp_slots:
            values = self.master.terminals.values  # type: ignore[union-attr]
            for j, i in self._temp_slots:
                meas.temperature[j] = values[i]
        meas.t = self._cycle / self.sample_rate_hz
        return meas

    def command(self, tau_tgt: np.ndarray) -> None:
        m = self.master
        if m is None or not m.operational:
            return  # closed (or never opened): nothing to command
        m.send(tau_tgt)
        self._in_flight = True
        k = self._cycle
        if self.record_timing and k < self.t_cmd_ns.size:
            self.t_cmd_ns[k] = time.perf_counter_ns()
        self._cycle = k + 1

    def close(self) -> None:
        """Zero torque, disable the drive, chain to INIT, close both sockets (safe twice)."""
        self._shutdown()

    def _shutdown(self) -> None:
        self._opened = False
        self.record_timing = False
        if self._ka_thread is not None:
            self._ka_stop.set()
            self._ka_thread.join(timeout=5.0)
            self._ka_thread = None
        m = self.master
        if m is not None:
            try:
                if m.operational:
                    try:
                        if self._in_flight:
                            m.receive(1e-3)
                    except Exception:  # noqa: BLE001 -- the link may be gone: disable anyway
                        pass
                    self._in_flight = False
                    try:
                        m.send(self._zero)
                        m.receive(1e-3)
                    except Exception:  # noqa: BLE001
                        pass
            finally:
                m.close()  # disable (zero torque, CiA 402 down), INIT, close the socket; idempotent
        if self.receiver is not None:
            self.receiver.close()

    @property
    def measures_temperature(self) -> bool:
        """Whether RTD terminals of the chain measure the joints' temperatures (recorded as ``temperature``)."""
        return bool(self._temp_slots)

    def channel_sources(self) -> dict[str, Any]:
        """Which analog terminal and channel each terminal-fed recording channel came from."""
        return {} if self.master is None else self.master.terminals.sources()

    # -- health (read by run_loop's watchdog) -----------------------------------------------------------
    @property
    def consecutive_frame_errors(self) -> int:
        """Current run of cycles whose frame was lost or had a wrong working counter."""
        return 0 if self.master is None else self.master.stats.consecutive_errors

    def counters(self) -> dict[str, Any]:
        """Link counters: EtherCAT (cycles, WKC errors, lost frames, longest bad run) and IMU."""
        out: dict[str, Any] = {}
        if self.master is not None:
            out.update(self.master.counters())
        if self.receiver is not None:
            c = self.receiver.counters
            out.update({"imu_datagrams": c.datagrams, "imu_valid": c.valid, "imu_lost": c.lost,
                        "imu_malformed": c.malformed, "imu_foreign": c.foreign, "imu_duplicate": c.duplicate,
                        "imu_out_of_order": c.out_of_order, "imu_malformed_reasons": dict(c.malformed_reasons)})
        return out

    # -- zeroing ------------------------------------------------------------------------------------------
    def zero(self, settings: ZeroingSettings | None = None) -> ZeroingResult:
        """Find each joint's proximity sensor and set the angle offsets (module docstring).

        Raises
        ------
        ZeroingError
            A sensor did not switch within the travel or time limit (zero torque commanded).
        """
        z = settings or self.settings.zeroing
        if not self._opened or self.master is None:
            raise RigFault("zero() needs an open rig")
        t_start = time.perf_counter()
        kp = np.asarray(self.robot_model.description["control"]["kp_Nm_per_rad"], float)
        kd = np.asarray(self.robot_model.description["control"]["kd_Nm_s_per_rad"], float)
        dt = 1.0 / z.rate_hz
        v = math.radians(z.velocity_deg_s)
        raw_at = np.full(2, np.nan)
        travel = np.zeros(2)
        tau = np.zeros(2)
        pos, vel, _, di, _ = self._idle_cycle(self._zero)
        hold = pos.copy()
        try:
            for j in range(2):
                bit = 1 << int(z.inputs[j])
                direction = int(z.direction[j])
                pos, vel, _, di, _ = self._idle_cycle(self._zero)
                start = float(pos[j])
                ref = start
                phase = "back off" if di & bit else "approach"
                pos_off = start
                t0 = time.monotonic()
                next_t = time.perf_counter()
                while True:
                    sign = 1.0 if phase == "approach" else -1.0
                    ref += sign * direction * v * dt
                    for i in range(2):
                        target = ref if i == j else hold[i]
                        vt = sign * direction * v if i == j else 0.0
                        t = kp[i] * (target - pos[i]) + kd[i] * (vt - vel[i])
                        tau[i] = min(max(t, -z.max_torque_Nm), z.max_torque_Nm)
                    next_t += dt
                    pause = next_t - time.perf_counter()
                    if pause > 0:
                        time.sleep(pause)
                    pos, vel, _, di, ok = self._idle_cycle(tau)
                    if ok:
                        on = bool(di & bit)
                        if phase == "back off" and not on:
                            phase, pos_off = "margin", float(pos[j])
                        elif phase == "margin" and direction * (pos_off - float(pos[j])) >= math.radians(1.0):
                            phase, ref = "approach", float(pos[j])  # 1 deg clear of the edge: approach
                        elif phase == "approach" and on:
                            raw_at[j] = float(pos[j])
                            break
                    travel[j] = abs(float(pos[j]) - start)
                    if travel[j] > math.radians(z.travel_max_deg) or time.monotonic() - t0 > z.timeout_s:
                        raise ZeroingError(
                            f"zeroing joint {j + 1}: proximity input DI{int(z.inputs[j]) + 1} did not switch on "
                            f"({phase}, direction {direction:+d}) after {math.degrees(travel[j]):.1f} deg in "
                            f"{time.monotonic() - t0:.1f} s (limits {z.travel_max_deg:g} deg, {z.timeout_s:g} s)")
                travel[j] = abs(raw_at[j] - start)
                hold[j] = raw_at[j]
                # settle at the switch point for a moment
                for _ in range(int(0.1 * z.rate_hz)):
                    for i in range(2):
                        t = kp[i] * (hold[i] - pos[i]) - kd[i] * vel[i]
                        tau[i] = min(max(t, -z.max_torque_Nm), z.max_torque_Nm)
                    time.sleep(dt)
                    pos, vel, _, di, _ = self._idle_cycle(tau)
        finally:
            self._idle_cycle(self._zero)
        self.offset = np.radians(np.asarray(z.switch_angle_deg, float)) - raw_at
        self.zeroing = ZeroingResult(self.offset.copy(), raw_at, travel, time.perf_counter() - t_start)
        return self.zeroing
