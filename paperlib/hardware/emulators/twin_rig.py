"""The whole emulated rig in one process: EtherCAT coupler + dual-axis drive + IMU board, one twin.

The paper's rig (Section 3.2) has two independent links to the controller PC: the EtherCAT
chain (EK1828 coupler with the proximity sensors, Copley dual-axis drive in CST mode) and the
STM32 streaming both IMUs over UDP at 1 kHz. Both see the *same* robot. Here one
:class:`~paperlib.twin.plant.TwinPlant` (the robot's twin: closed-chain dynamics, LuGre friction,
thermal gearboxes, the twin's drives and IMU sensor models) sits behind the emulated drive
(:mod:`paperlib.hardware.emulators.devices`) and, every time the drive advances it, the IMU
reads the twin's microcontroller made meanwhile are sent as PLIM packets
(:mod:`paperlib.hardware.imu_link`, ``docs/imu_packet.md``) to the controller. So the IMU
stream shows exactly the motion the commanded torques cause.

Timing. The drive advances the plant by the *wall-clock* time since its previous step (the
twin integrates whole 250-us cycles and carries the remainder), on every process-data frame
and, without frames, from the housekeeping tick every ``idle_step_s`` (1 ms here). The robot
therefore moves in real time whatever the master does -- like a real one -- and the IMU
stream keeps its 1 kHz rate (in plant time) while the master is silent. The packets leave
after the EtherCAT reply (the ESC model runs the application after answering), so the IMU
traffic never delays a frame. Plant time starts when the process does.

Lock-step (``"lockstep": true`` in the config): the plant advances exactly one 250-us cycle per
process-data frame and never on its own (no housekeeping steps, no wall clock). A stalled master
or emulator then pauses the robot with it: the run becomes late, never different. That is what a
shared CI machine needs to test the master; a lab's self-test keeps the real-time default, where
the robot, like a real one, moves on while the master is late.

Packet contents: gyroscope z (twin counts), accelerometer y (tangential) and x (radial) of
each IMU as the twin's output registers held them when its microcontroller read them; gyro
x/y are 0 and accelerometer z carries +1 g (a horizontal board); full scales +-1000 dps and
+-2 g (the twin's sensitivities are the datasheet's typical ones, checked at start); sequence
number and microcontroller timestamp from the twin's read counter and read time.

Fault injection on the IMU stream (``imu_faults``; seeded, per packet): ``loss``
(probability a packet is not sent), ``garbage`` (an extra malformed datagram -- bad CRC,
truncated, wrong version -- in turn), ``foreign`` (an extra datagram of random bytes),
``stop_after_s`` (the board goes silent after this plant time), ``gap`` (``[t_start_s,
duration_s]``: no packets in that plant-time window), ``silent_after_pd_frames`` (silent once
the drive has processed that many process-data frames: a board dying during the run),
``silent_pd_frames`` (``[first, stop)``: silent while the drive's process-data frame count is
in that range: a burst of lost packets during the run). EtherCAT faults are those of
:mod:`~paperlib.hardware.emulators.devices` (``faults``, ``chain`` with ``sdo_aborts`` or a
wrong ``product_code``).

Run (inside the slave network namespace)::

    python -m paperlib.hardware.emulators.twin_rig --ifname IF --imu-dest IP:PORT --config JSON

It prints one line ``READY {json}`` (truth of the twin, IMU source address, settings) once
its raw socket is bound, and ``STATS {json}`` on SIGTERM/SIGINT (frame and IMU counters,
the twin's final state). Config keys: ``robot`` (a name for :func:`paperlib.robots.load`; default:
the twin's own), ``seed``, ``q0_deg``, ``encoder_offset_counts``,
``proximity`` (:class:`~paperlib.hardware.emulators.devices.ProximitySensors` kwargs, joint
side), ``faults``, ``imu_faults``, ``chain`` (override the devices), ``drive`` (extra drive
kwargs), ``pd_watchdog_s``. RTD terminals of the chain (``el3202``) that measure a joint's
``temperature`` are fixed to that gearbox's case (the twin's thermal node, :func:`_wire_rtds`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import socket
import struct
import sys
import time
import zlib
from dataclasses import asdict, dataclass
from typing import Any, Callable

import numpy as np

from paperlib.hardware.imu_link import (
    CRC_SIZE,
    HEADER_SIZE,
    IMU_BLOCK_SIZE,
    MAGIC,
    N_IMU,
    VERSION,
    accel_lsb_m_s2,
    gyro_lsb_rad_s,
    packet_size,
)

__all__ = ["ImuFaults", "ImuSenderStats", "ImuSender", "TwinDrivePlant", "twin_truth", "build", "main"]

_HEADER = struct.Struct("<4sBBHIQ")
_BLOCK = struct.Struct("<HBB6h")
_CRC = struct.Struct("<I")
GYRO_FS_DPS = 1000
ACCEL_FS_G = 2
ONE_G_COUNTS = int(round(1.0 / (0.061e-3)))  # +1 g on accel z at +-2 g (0.061 mg/LSB)


@dataclass
class ImuFaults:
    """Fault injection on the emulated IMU stream (see the module docstring)."""

    loss: float = 0.0
    garbage: float = 0.0
    foreign: float = 0.0
    stop_after_s: float | None = None
    gap: tuple[float, float] | None = None
    silent_after_pd_frames: int | None = None
    silent_pd_frames: tuple[int, int] | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("loss", "garbage", "foreign"):
            p = float(getattr(self, name))
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"imu_faults.{name} must be a probability in [0, 1], got {p}")
        if self.gap is not None:
            self.gap = (float(self.gap[0]), float(self.gap[1]))
        if self.silent_pd_frames is not None:
            self.silent_pd_frames = (int(self.silent_pd_frames[0]), int(self.silent_pd_frames[1]))


@dataclass
class ImuSenderStats:
    """What the IMU sender did (compare with the receiver's counters)."""

    reads: int = 0
    sent: int = 0
    dropped: int = 0
    silenced: int = 0
    garbage: int = 0
    foreign: int = 0
    send_errors: int = 0
    max_send_delay_ms: float = 0.0


class ImuSender:
    """Encode the twin's microcontroller reads as PLIM packets and send them over UDP.

    Parameters
    ----------
    dest : (str, int)
        Controller address.
    faults : ImuFaults, optional
        Fault injection.
    """

    def __init__(self, dest: tuple[str, int], faults: ImuFaults | None = None) -> None:
        self.dest = (str(dest[0]), int(dest[1]))
        self.faults = faults or ImuFaults()
        self.stats = ImuSenderStats()
        self._rng = random.Random(self.faults.seed)
        self._garbage_kind = 0
        self._size = packet_size(N_IMU)
        self._buf = bytearray(self._size)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(("0.0.0.0", 0))
        self.pd_frames: Callable[[], int] = lambda: 0

    @property
    def source_address(self) -> tuple[str, int]:
        """Local (ip, port) the packets leave from (ip 0.0.0.0: any of this namespace's)."""
        host, port = self._sock.getsockname()[:2]
        return host, port

    def encode(self, seq: int, t_read_s: float, raw: np.ndarray) -> bytes:
        """One packet from a twin read: ``raw`` (2, 3) = gyro z, accel y, accel x counts per IMU."""
        buf = self._buf
        _HEADER.pack_into(buf, 0, MAGIC, VERSION, N_IMU, (1 << N_IMU) - 1, seq % 2**32,
                          max(0, int(round(t_read_s * 1e6))))
        for i in range(N_IMU):
            gz, ay, ax = (int(raw[i, 0]), int(raw[i, 1]), int(raw[i, 2]))
            _BLOCK.pack_into(buf, HEADER_SIZE + i * IMU_BLOCK_SIZE, GYRO_FS_DPS, ACCEL_FS_G, 0,
                             0, 0, gz, ax, ay, ONE_G_COUNTS)
        _CRC.pack_into(buf, self._size - CRC_SIZE, zlib.crc32(memoryview(buf)[: self._size - CRC_SIZE]))
        return bytes(buf)

    def _garbage(self, pkt: bytes) -> bytes:
        kind = self._garbage_kind
        self._garbage_kind = (kind + 1) % 3
        if kind == 0:  # one bit flipped: CRC mismatch
            b = bytearray(pkt)
            b[8 + self._rng.randrange(len(b) - 12)] ^= 1 << self._rng.randrange(8)
            return bytes(b)
        if kind == 1:  # truncated
            return pkt[: self._rng.randrange(4, len(pkt))]
        b = bytearray(pkt)  # wrong version
        b[4] = (b[4] + 1) % 256 or 2
        return bytes(b)

    def _sendto(self, data: bytes) -> None:
        try:
            self._sock.sendto(data, self.dest)
        except OSError:
            self.stats.send_errors += 1

    def send_read(self, seq: int, t_read_s: float, raw: np.ndarray, plant_t_s: float) -> None:
        """Send one read (subject to the fault injection); ``plant_t_s``: the plant's time now."""
        f, st, rng = self.faults, self.stats, self._rng
        st.reads += 1
        if (f.stop_after_s is not None and t_read_s >= f.stop_after_s) or (
            f.gap is not None and f.gap[0] <= t_read_s < f.gap[0] + f.gap[1]
        ) or (f.silent_after_pd_frames is not None and self.pd_frames() >= f.silent_after_pd_frames) or (
            f.silent_pd_frames is not None and f.silent_pd_frames[0] <= self.pd_frames() < f.silent_pd_frames[1]
        ):
            st.silenced += 1
            return
        pkt = self.encode(seq, t_read_s, raw)
        if f.garbage and rng.random() < f.garbage:
            self._sendto(self._garbage(pkt))
            st.garbage += 1
        if f.foreign and rng.random() < f.foreign:
            n = rng.randrange(1, 120)
            junk = bytearray(rng.getrandbits(8) for _ in range(n))
            if junk[:1] == b"P":
                junk[0] = 0
            self._sendto(bytes(junk))
            st.foreign += 1
        if f.loss and rng.random() < f.loss:
            st.dropped += 1
            return
        self._sendto(pkt)
        st.sent += 1
        st.max_send_delay_ms = max(st.max_send_delay_ms, (plant_t_s - t_read_s) * 1e3)

    def close(self) -> None:
        """Close the socket (idempotent)."""
        self._sock.close()


class TwinDrivePlant:
    """The drive's plant: a :class:`~paperlib.twin.plant.TwinPlant` that also feeds the IMU sender.

    Implements :class:`paperlib.hardware.emulators.devices.Plant` (motor side). If the twin
    fails (it left its workspace), the plant freezes, ``fault_cb`` is called once (the drive
    then faults its axes) and the failure is reported in the stats.

    Synchronisation (``sync=True``, like a drive on distributed clocks): the twin advances in
    whole cycles of ``period_s`` on a wall-clock grid (the drive's SYNC0 events), and each
    process-data frame carries the state at the latest grid point. The grid's phase is locked
    to the frames' arrivals (a first-order phase-locked loop, gain 0.05 per frame) so that they
    fall half a period after a grid point: with the master on time every frame advances the
    twin by exactly one cycle, whatever the emulator's scheduling jitter, instead of 0 or 2
    cycles whenever a frame arrives near a grid point. Without frames (a silent or stalled
    master; the drive's idle tick) the grid goes on in real time; frames arriving back to back
    (a master catching up) see the same grid point, as on a real drive.
    """

    def __init__(self, twin: Any, sender: ImuSender | None, sync: bool = True, period_s: float | None = None) -> None:
        self.twin = twin
        self.sender = sender
        self.failure: str | None = None
        self.fault_cb: Callable[[], None] | None = None
        self.steps = 0
        self.sync = bool(sync)
        self.period = float(twin.dt if period_s is None else period_s)  # the twin's control cycle
        self._t = 0.0  # local wall-clock time (sum of the drive's dt)
        self._grid = 0.0  # a grid point (SYNC0) [s]
        self._k = 0  # index of the last grid point the twin was advanced to
        self.cycles_per_step = [0, 0, 0, 0]  # histogram of cycles advanced per call: 0, 1, 2, more
        self._last = twin.step(np.zeros(2), 0.0)

    def _cycles(self, dt: float) -> int:
        """Whole grid periods to advance for a call ``dt`` [s] after the previous one."""
        T = self.period
        self._t += max(dt, 0.0)
        if 0.5 * T < dt < 2.0 * T:  # a regular frame: lock the grid's phase to it
            phase = (self._t - self._grid) % T
            self._grid += 0.05 * (phase - 0.5 * T)
        k = math.floor((self._t - self._grid) / T)
        n = k - self._k
        if n > 0:
            self._k = k
        return max(n, 0)

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.failure is not None:
            q, _, _ = self._last
            return q, np.zeros(2), np.zeros(2)
        if self.sync and dt > 0.0:
            n = self._cycles(dt)
            self.cycles_per_step[min(n, 3)] += 1
            if n == 0:  # no grid point since the last call: same sample (the new target acts from the next)
                return self._last
            dt = n * self.period
        try:
            self._last = self.twin.step(torque_Nm, dt)
        except RuntimeError as exc:
            self.failure = str(exc)
            print(f"twin_rig: plant failure: {exc}", file=sys.stderr, flush=True)
            if self.fault_cb is not None:
                self.fault_cb()
            q, _, _ = self._last
            return q, np.zeros(2), np.zeros(2)
        self.steps += 1
        if self.sender is not None:
            reads = self.twin.imu_reads()
            if reads:
                now = self.twin.t
                for seq, t_read, raw in reads:
                    self.sender.send_read(seq, t_read, raw, now)
        return self._last


from paperlib.twin.truth import twin_truth  # noqa: E402  (moved to the twin layer; re-exported here)


def build(config: dict[str, Any], imu_dest: tuple[str, int] | None) -> tuple[Any, Any, Any, TwinDrivePlant, ImuSender | None]:
    """Build the chain around one twin; returns (chain, frame faults, drive, plant, sender)."""
    from paperlib.hardware.emulators.devices import build_chain
    from paperlib.robots import load as load_robot
    from paperlib.twin import drives as dr
    from paperlib.twin import imu as im
    from paperlib.twin.plant import TwinPlant

    seed = int(config.get("seed", 1))
    q0 = config.get("q0_deg")
    robot = None if config.get("robot") is None else load_robot(str(config["robot"]))  # None: the twin's own
    # load (or compile) the twin's compiled cycle now, not on the first process-data frame
    twin = TwinPlant(seed=seed, q0=None if q0 is None else np.radians(np.asarray(q0, float)), robot=robot)
    TwinPlant(seed=seed, robot=robot).step(np.zeros(2), 2.0 * twin.dt)
    for name, got, want in (("gyro", twin.imu_p[:, im.IM_SENS_G], gyro_lsb_rad_s(GYRO_FS_DPS)),
                            ("accelerometer", twin.imu_p[:, im.IM_SENS_A], accel_lsb_m_s2(ACCEL_FS_G))):
        if not np.allclose(got, want, rtol=1e-9):
            raise ValueError(f"twin {name} sensitivity {got} differs from the packet's full-scale code ({want})")
    sender = None
    if imu_dest is not None:
        fcfg = dict(config.get("imu_faults", {}))
        if fcfg.get("gap") is not None:
            fcfg["gap"] = tuple(fcfg["gap"])
        sender = ImuSender(imu_dest, ImuFaults(**fcfg))
    lockstep = bool(config.get("lockstep", False))
    plant = TwinDrivePlant(twin, sender, sync=not lockstep)
    drv = twin.tp.drive_array(twin.dt)
    rated_mNm = [int(round(v * 1e3)) for v in drv[:, dr.DR_RATED]]
    max_permille = [int(round(m / r * 1e3)) for m, r in zip(drv[:, dr.DR_TAU_MAX], drv[:, dr.DR_RATED])]
    drive_kw: dict[str, Any] = {
        "type": "dual_cst_drive",
        "rated_torque_mNm": rated_mNm,
        "max_torque_permille": max_permille,
        "encoder_offset_counts": list(config.get("encoder_offset_counts", (0, 0))),
        "idle_step_s": math.inf if lockstep else 0.001,
        **({"fixed_dt": twin.dt} if lockstep else {}),
        **config.get("drive", {}),
    }
    chain_spec = config.get("chain") or [{"type": "ek1828"}, drive_kw]
    chain_spec = [({**drive_kw, **c} if c.get("type") in ("cst_drive", "dual_cst_drive") else c) for c in chain_spec]
    prox = {"gear_ratio": twin.iota.tolist(), **config.get("proximity", {})}
    cfg = {"chain": chain_spec, "plant": {"factory": f"{__name__}:_current_plant"}, "proximity": prox,
           "faults": config.get("faults", {})}
    _PLANT_SLOT[0] = plant
    try:
        chain, faults, drive = build_chain(cfg)
    finally:
        _PLANT_SLOT[0] = None
    _wire_rtds(chain, plant)
    if drive is not None:
        plant.fault_cb = lambda: [ax.fault(0x7500) for ax in drive.axes]
        if sender is not None:
            sender.pd_frames = lambda: drive.cycles
    return chain, faults, drive, plant, sender


_PLANT_SLOT: list[TwinDrivePlant | None] = [None]


def _wire_rtds(chain: Any, plant: TwinDrivePlant) -> None:
    """Fix the chain's RTD channels measuring ``temperature`` of joint g to gearbox g's case (the twin's thermal node)."""
    from paperlib.twin import thermal as th

    x = plant.twin.therm_x
    for s in chain.slaves:
        if not (hasattr(s, "signals") and hasattr(s, "sources")):
            continue  # not an RTD terminal
        s.sources = [(lambda g=joint: float(th.case_temperature(x[g]))) if name == "temperature" and joint < x.shape[0]
                     else src for (name, joint), src in zip(s.signals, s.sources)] + s.sources[len(s.signals):]
        s.temperature = [float(f()) for f in s.sources]


def _current_plant() -> TwinDrivePlant:
    """Plant factory for :func:`~paperlib.hardware.emulators.devices.build_chain` (one twin per process)."""
    plant = _PLANT_SLOT[0]
    if plant is None:
        raise RuntimeError("twin_rig plant factory used outside build()")
    return plant


def _parse_dest(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main(argv: list[str] | None = None) -> int:
    """Run the emulated rig until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="Emulated rig: EtherCAT coupler + dual-axis drive + IMU board, "
                                                 "around the twin")
    parser.add_argument("--ifname", required=True, help="interface the master's EtherCAT frames arrive on")
    parser.add_argument("--imu-dest", default=None, help="IP:PORT of the controller's IMU receiver (omit: no IMU)")
    parser.add_argument("--config", default="{}", help="JSON config (module docstring)")
    parser.add_argument("--rt-priority", type=int, default=0,
                        help="SCHED_FIFO priority (1-99; 0 = normal). The emulator sleeps between frames")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    args = parser.parse_args(argv)
    from paperlib.hardware.emulators.esc import serve_until_signalled, slave_reports

    if args.cpu is not None:
        try:
            os.sched_setaffinity(0, {args.cpu})
        except (OSError, AttributeError) as exc:
            print(f"warning: cannot pin to CPU {args.cpu} ({exc})", file=sys.stderr, flush=True)
    if args.rt_priority > 0:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt_priority))
        except (OSError, AttributeError) as exc:
            print(f"warning: SCHED_FIFO not available ({exc})", file=sys.stderr, flush=True)
    config = json.loads(args.config)
    dest = _parse_dest(args.imu_dest) if args.imu_dest else None
    chain, faults, drive, plant, sender = build(config, dest)
    info = {
        "truth": twin_truth(plant.twin),
        "imu_source": list(sender.source_address) if sender else None,
        "seed": int(config.get("seed", 1)),
        "q0_rad": plant.twin.q.tolist(),
        "gear_ratio": plant.twin.iota.tolist(),
        "pid": os.getpid(),
    }
    t0 = time.monotonic()
    stats = serve_until_signalled(chain, args.ifname, faults=faults, tick_period_s=0.001, gc_threshold=(50000, 50, 100),
                                  ready_line=lambda: "READY " + json.dumps(info))
    twin = plant.twin
    report: dict[str, Any] = {
        "serve": stats,
        "wall_s": time.monotonic() - t0,
        "slaves": slave_reports(chain),
        "twin": {"t_s": twin.t, "q_rad": twin.q.tolist(), "qd_rad_s": twin.qd.tolist(), "steps": plant.steps,
                 "failure": plant.failure, "cycles_per_step_0_1_2_more": plant.cycles_per_step},
        "imu": asdict(sender.stats) if sender else None,
    }
    if drive is not None:
        report["drive"] = {
            "axis_states": [ax.state for ax in drive.axes],
            "axis_error_codes": [ax.error_code for ax in drive.axes],
            "watchdog_trips": drive.watchdog_trips,
            "cycles": drive.cycles,
            "sdo_requests": drive.coe.n_requests,
            "sdo_aborts": drive.coe.n_aborts,
        }
    if sender is not None:
        sender.close()
    print("STATS " + json.dumps(report, default=float), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
