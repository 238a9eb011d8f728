"""Emulator of the IMU microcontroller: streams PLIM packets over UDP at 1 kHz.

Stands in for the paper's STM32 F439ZI + two LSM6DSV16BX (Section 3.2). Samples come
from a *source*: a callable ``source(t) -> (gyro, accel)`` returning the physical
signals at time ``t`` [s] -- angular rates [rad/s] and accelerations [m/s^2], each of
shape (n_imu, 3) in the sensor axes. The twin's sensor model plugs in there; the default
is :class:`SineMotion`. Signals are quantised to int16 counts with the datasheet's
typical sensitivities and saturate at the int16 limits like the real sensor.

Faults for testing the receiver are injected with fixed, seeded probabilities per
packet: loss, duplicates, reordering (a packet held back and sent after the next one),
malformed datagrams (bad CRC / truncated / wrong version) and foreign datagrams (random
bytes without the magic). Packets are paced to absolute deadlines ``t0 + k / rate_hz``
(no drift); if the sender falls more than ``max_catch_up`` periods behind, it skips the
missed slots (their sequence numbers are never sent, as if the packets were lost) rather
than bursting.

Run as a process::

    python -m paperlib.hardware.emulators.imu --dest 127.0.0.1:5005 --duration-s 2 --loss 0.05

It prints one JSON line ``{"event": "started", "source": [ip, port], ...}`` when its
socket is ready and one ``{"event": "stopped", ...}`` line with its counters at the end
(SIGINT / SIGTERM stop it cleanly).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import random
import signal
import socket
import sys
import threading
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paperlib.hardware.imu_link import (
    N_IMU,
    STANDARD_GRAVITY,
    accel_lsb_m_s2,
    encode_packet,
    gyro_lsb_rad_s,
)

__all__ = ["SourceFn", "SineMotion", "FaultInjection", "EmulatorStats", "ImuEmulator", "main"]

SourceFn = Callable[[float], tuple[ArrayLike, ArrayLike]]
"""``source(t) -> (gyro [rad/s], accel [m/s^2])``, each shape (n_imu, 3), t in [s]."""


@dataclass
class SineMotion:
    """Default sample source: each IMU on a link swinging sinusoidally about its joint.

    q_j(t) = A_j sin(2 pi f_j t + phi_j). The IMU sits at lever arm r_j on a link
    rotating in the horizontal plane: gyro z = q_dot, accel y (tangential) = r q_ddot,
    accel x (radial, pointing away from the joint) = -r q_dot^2, accel z = +g (the
    specific force of gravity on a horizontal board).

    Parameters
    ----------
    amplitude_rad : sequence of float
        A_j [rad].
    freq_hz : sequence of float
        f_j [Hz].
    phase_rad : sequence of float
        phi_j [rad].
    lever_arm_m : sequence of float
        r_j [m].
    gravity_m_s2 : float
        Gravity seen on sensor z [m/s^2].
    """

    amplitude_rad: Sequence[float] = (0.6, 0.4)
    freq_hz: Sequence[float] = (0.5, 0.8)
    phase_rad: Sequence[float] = (0.0, 1.0)
    lever_arm_m: Sequence[float] = (0.05, 0.05)
    gravity_m_s2: float = STANDARD_GRAVITY

    def __post_init__(self) -> None:
        self._a = np.asarray(self.amplitude_rad, dtype=np.float64)
        n = self._a.size
        self._w = 2.0 * math.pi * np.broadcast_to(np.asarray(self.freq_hz, float), (n,))
        self._phi = np.broadcast_to(np.asarray(self.phase_rad, float), (n,))
        self._r = np.broadcast_to(np.asarray(self.lever_arm_m, float), (n,))
        self._gyro = np.zeros((n, 3))
        self._accel = np.zeros((n, 3))

    @property
    def n_imu(self) -> int:
        """Number of IMUs (links)."""
        return int(self._a.size)

    def joint_state(
        self, t: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Joint angle [rad], velocity [rad/s] and acceleration [rad/s^2] at time t [s]."""
        ph = self._w * t + self._phi
        q = self._a * np.sin(ph)
        qd = self._a * self._w * np.cos(ph)
        qdd = -self._a * self._w**2 * np.sin(ph)
        return q, qd, qdd

    def __call__(self, t: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Gyro [rad/s] and accel [m/s^2], shape (n_imu, 3); arrays are reused per call."""
        _, qd, qdd = self.joint_state(t)
        self._gyro[:, 2] = qd
        self._accel[:, 0] = -self._r * qd**2
        self._accel[:, 1] = self._r * qdd
        self._accel[:, 2] = self.gravity_m_s2
        return self._gyro, self._accel


@dataclass
class FaultInjection:
    """Per-packet fault probabilities (independent draws from a seeded generator).

    Attributes
    ----------
    loss : float
        Probability that a packet is not sent (its sequence number is skipped).
    duplicate : float
        Probability that a sent packet is sent a second time right after.
    reorder : float
        Probability that a packet is held back and sent after the next one (if the next
        one is lost, or the run ends, it goes out late but in order).
    garbage : float
        Probability of sending, before the packet, an extra malformed datagram that
        starts with the magic (bad CRC, truncated or wrong version, in turn).
    foreign : float
        Probability of sending an extra datagram of random bytes without the magic.
    seed : int
        Seed of the generator (same seed, same faults).
    """

    loss: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    garbage: float = 0.0
    foreign: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("loss", "duplicate", "reorder", "garbage", "foreign"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1], got {p}")


@dataclass
class EmulatorStats:
    """What the emulator did (to compare with the receiver's counters).

    Attributes
    ----------
    slots : int
        Packet slots elapsed (sequence numbers used).
    sent : int
        Valid packets sent (duplicates included).
    dropped : int
        Packets withheld by the loss injection.
    duplicated, reordered, garbage, foreign : int
        Injected faults of each kind (``reordered``: packets actually sent after a newer one).
    skipped : int
        Slots skipped because the sender fell behind (never sent; look like losses).
    saturated : int
        Samples (channel values) clipped to the int16 range.
    send_errors : int
        ``OSError`` from ``sendto``.
    max_lateness_us : float
        Largest lateness of a send with respect to its deadline [us].
    """

    slots: int = 0
    sent: int = 0
    dropped: int = 0
    duplicated: int = 0
    reordered: int = 0
    garbage: int = 0
    foreign: int = 0
    skipped: int = 0
    saturated: int = 0
    send_errors: int = 0
    max_lateness_us: float = 0.0


class ImuEmulator:
    """Send PLIM packets to ``dest`` at ``rate_hz`` from a sample source.

    Parameters
    ----------
    dest : (str, int)
        Destination ``(ip, port)``.
    source : callable, optional
        ``source(t) -> (gyro [rad/s], accel [m/s^2])`` with shapes (n_imu, 3); default
        :class:`SineMotion`. ``t`` is the slot's scheduled time since the start [s].
    rate_hz : float
        Packet rate [Hz] (1 kHz on the paper's rig).
    faults : FaultInjection, optional
        Fault probabilities (default: none).
    gyro_fs_dps, accel_fs_g : int
        Full scales written in the packets and used to quantise [deg/s], [g].
    n_imu : int
        Number of IMUs per packet.
    bind : (str, int), optional
        Local address to send from (default: chosen by the OS).
    seq0 : int
        First sequence number.
    timestamp0_us : int
        Microcontroller clock at the first slot [us].
    max_catch_up : int
        Periods the sender may fall behind before it skips slots instead of bursting.
    spin_s : float
        Busy-wait this long before each deadline after sleeping [s] (0: sleep only; the
        sends are then typically ~0.1 ms late on a non-RT kernel, but never drift).
    """

    def __init__(
        self,
        dest: tuple[str, int],
        source: SourceFn | None = None,
        *,
        rate_hz: float = 1000.0,
        faults: FaultInjection | None = None,
        gyro_fs_dps: int = 1000,
        accel_fs_g: int = 2,
        n_imu: int = N_IMU,
        bind: tuple[str, int] | None = None,
        seq0: int = 0,
        timestamp0_us: int = 0,
        max_catch_up: int = 10,
        spin_s: float = 0.0,
    ) -> None:
        if rate_hz <= 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz}")
        self.dest = (str(dest[0]), int(dest[1]))
        self.source: SourceFn = source if source is not None else SineMotion()
        self.rate_hz = float(rate_hz)
        self.faults = faults if faults is not None else FaultInjection()
        self.gyro_fs_dps = int(gyro_fs_dps)
        self.accel_fs_g = int(accel_fs_g)
        self._gyro_lsb = gyro_lsb_rad_s(self.gyro_fs_dps)
        self._accel_lsb = accel_lsb_m_s2(self.accel_fs_g)
        self.n_imu = int(n_imu)
        self.seq0 = int(seq0)
        self.timestamp0_us = int(timestamp0_us)
        self.max_catch_up = int(max_catch_up)
        self.spin_s = float(spin_s)
        self.stats = EmulatorStats()
        self._rng = random.Random(self.faults.seed)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            if bind is not None:
                self._sock.bind((bind[0], int(bind[1])))
            else:
                # Bind now so the source port is known (receivers may filter on it); stay on
                # loopback when the destination is.
                loopback = ipaddress.ip_address(self.dest[0]).is_loopback
                self._sock.bind(("127.0.0.1" if loopback else "0.0.0.0", 0))
        except OSError:
            self._sock.close()
            raise
        self._garbage_kind = 0

    # -- packets ---------------------------------------------------------------------

    @property
    def source_address(self) -> tuple[str, int]:
        """Local ``(ip, port)`` the packets are sent from."""
        host, port = self._sock.getsockname()[:2]
        return host, port

    def quantise(
        self, gyro: ArrayLike, accel: ArrayLike
    ) -> tuple[NDArray[np.int16], NDArray[np.int16], int]:
        """Physical signals -> int16 counts (round to nearest, saturate).

        Returns
        -------
        gyro_counts, accel_counts : ndarray of int16, shape (n_imu, 3)
        n_saturated : int
            Values clipped to the int16 range.
        """
        g = np.rint(np.asarray(gyro, dtype=np.float64) / self._gyro_lsb)
        a = np.rint(np.asarray(accel, dtype=np.float64) / self._accel_lsb)
        if g.shape != (self.n_imu, 3) or a.shape != (self.n_imu, 3):
            raise ValueError(
                f"source must return two arrays of shape ({self.n_imu}, 3); got {g.shape}, {a.shape}"
            )
        n_sat = int(np.count_nonzero((g < -32768) | (g > 32767)) + np.count_nonzero((a < -32768) | (a > 32767)))
        g = np.clip(g, -32768, 32767).astype(np.int16)
        a = np.clip(a, -32768, 32767).astype(np.int16)
        return g, a, n_sat

    def packet_for_slot(self, k: int) -> bytes:
        """The packet of slot ``k`` (sequence ``seq0 + k``, sampled at t = k / rate_hz)."""
        t = k / self.rate_hz
        gyro, accel = self.source(t)
        gc, ac, n_sat = self.quantise(gyro, accel)
        self.stats.saturated += n_sat
        ts = self.timestamp0_us + int(round(k * 1e6 / self.rate_hz))
        return encode_packet(
            self.seq0 + k, ts, gc, ac, gyro_fs_dps=self.gyro_fs_dps, accel_fs_g=self.accel_fs_g
        )

    def _garbage(self, pkt: bytes) -> bytes:
        kind = self._garbage_kind
        self._garbage_kind = (kind + 1) % 3
        if kind == 0:  # one bit flipped in the payload: CRC mismatch
            b = bytearray(pkt)
            b[8 + self._rng.randrange(len(b) - 12)] ^= 1 << self._rng.randrange(8)
            return bytes(b)
        if kind == 1:  # truncated
            return pkt[: self._rng.randrange(4, len(pkt))]
        b = bytearray(pkt)  # wrong version
        b[4] = (b[4] + 1) % 256 or 2
        return bytes(b)

    def _foreign(self) -> bytes:
        n = self._rng.randrange(1, 120)
        b = bytearray(self._rng.getrandbits(8) for _ in range(n))
        if b[:1] == b"P":
            b[0] = 0
        return bytes(b)

    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendto(data, self.dest)
        except OSError:
            self.stats.send_errors += 1

    # -- running ---------------------------------------------------------------------

    def run(self, duration_s: float | None = None, stop_event: threading.Event | None = None) -> EmulatorStats:
        """Stream until ``duration_s`` elapsed, :meth:`stop` or ``stop_event`` is set.

        Parameters
        ----------
        duration_s : float, optional
            Run time [s]; ``None`` runs until stopped.
        stop_event : threading.Event, optional
            Extra stop signal.

        Returns
        -------
        EmulatorStats
        """
        period_ns = int(round(1e9 / self.rate_hz))
        n_slots = None if duration_s is None else int(round(duration_s * self.rate_hz))
        spin_ns = int(self.spin_s * 1e9)
        f = self.faults
        rng = self._rng
        st = self.stats
        held: bytes | None = None
        # Warm up (first calls into numpy / the source are slow) so slot 0 is on time.
        g, a, _ = self.quantise(*self.source(0.0))
        encode_packet(0, 0, g, a, gyro_fs_dps=self.gyro_fs_dps, accel_fs_g=self.accel_fs_g)
        t0 = time.perf_counter_ns()
        k = 0
        while n_slots is None or k < n_slots:
            if self._stop.is_set() or (stop_event is not None and stop_event.is_set()):
                break
            deadline = t0 + k * period_ns
            now = time.perf_counter_ns()
            if deadline - now > spin_ns:
                time.sleep((deadline - now - spin_ns) * 1e-9)
            while time.perf_counter_ns() < deadline:
                pass
            now = time.perf_counter_ns()
            late = now - deadline
            if late > self.max_catch_up * period_ns:
                skip = late // period_ns
                if n_slots is not None:
                    skip = min(skip, n_slots - k)
                st.skipped += skip
                st.slots += skip
                k += skip
                continue
            st.max_lateness_us = max(st.max_lateness_us, late * 1e-3)
            pkt = self.packet_for_slot(k)
            st.slots += 1
            k += 1
            if f.garbage and rng.random() < f.garbage:
                self._send(self._garbage(pkt))
                st.garbage += 1
            if f.foreign and rng.random() < f.foreign:
                self._send(self._foreign())
                st.foreign += 1
            if f.loss and rng.random() < f.loss:
                st.dropped += 1
                if held is not None:  # late, but still in order: not a reorder
                    self._send(held)
                    st.sent += 1
                    held = None
                continue
            if held is None and f.reorder and rng.random() < f.reorder:
                held = pkt
                continue
            self._send(pkt)
            st.sent += 1
            if held is not None:  # sent after a newer packet: reordered
                self._send(held)
                st.sent += 1
                st.reordered += 1
                held = None
            if f.duplicate and rng.random() < f.duplicate:
                self._send(pkt)
                st.sent += 1
                st.duplicated += 1
        if held is not None:
            self._send(held)
            st.sent += 1
        return st

    def start(self, duration_s: float | None = None) -> "ImuEmulator":
        """Run in a daemon thread (for tests and the twin); returns ``self``."""
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("emulator already running")
        self._stop.clear()
        self._thread = threading.Thread(
            target=self.run, args=(duration_s,), name="imu-emulator", daemon=True
        )
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        """Whether a :meth:`start` ed thread is still streaming."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout_s: float = 2.0) -> EmulatorStats:
        """Stop the thread started by :meth:`start` and wait for it [s]."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        return self.stats

    def join(self, timeout_s: float | None = None) -> EmulatorStats:
        """Wait for a :meth:`start` ed run with a duration to finish."""
        if self._thread is not None:
            self._thread.join(timeout_s)
        return self.stats

    def close(self) -> None:
        """Stop and close the socket (idempotent)."""
        self.stop()
        self._sock.close()

    def __enter__(self) -> "ImuEmulator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"expected IP:PORT, got {text!r}")
    try:
        return host, int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad port in {text!r}") from None


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of ``python -m paperlib.hardware.emulators.imu``."""
    p = argparse.ArgumentParser(
        prog="python -m paperlib.hardware.emulators.imu",
        description="Emulate the IMU microcontroller: stream PLIM packets over UDP.",
    )
    p.add_argument("--dest", type=_host_port, required=True, help="receiver IP:PORT")
    p.add_argument("--bind", type=_host_port, default=None, help="local IP:PORT to send from")
    p.add_argument("--rate-hz", type=float, default=1000.0, help="packet rate [Hz] (1000)")
    p.add_argument("--duration-s", type=float, default=None, help="run time [s] (until stopped)")
    p.add_argument("--loss", type=float, default=0.0, help="packet loss probability")
    p.add_argument("--duplicate", type=float, default=0.0, help="duplicate probability")
    p.add_argument("--reorder", type=float, default=0.0, help="reorder probability")
    p.add_argument("--garbage", type=float, default=0.0, help="malformed-datagram probability")
    p.add_argument("--foreign", type=float, default=0.0, help="foreign-datagram probability")
    p.add_argument("--seed", type=int, default=0, help="fault generator seed")
    p.add_argument("--gyro-fs-dps", type=int, default=1000, help="gyro full scale [deg/s]")
    p.add_argument("--accel-fs-g", type=int, default=2, help="accelerometer full scale [g]")
    p.add_argument("--amplitude-rad", type=_floats, default=(0.6, 0.4), help="sine amplitudes [rad]")
    p.add_argument("--freq-hz", type=_floats, default=(0.5, 0.8), help="sine frequencies [Hz]")
    p.add_argument("--lever-arm-m", type=_floats, default=(0.05, 0.05), help="IMU lever arms [m]")
    p.add_argument("--seq0", type=int, default=0, help="first sequence number")
    p.add_argument("--spin-s", type=float, default=0.0,
                   help="busy-wait this long before each deadline [s] (0: sleep only)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: stream until the duration elapses or SIGINT/SIGTERM."""
    args = build_parser().parse_args(argv)
    motion = SineMotion(
        amplitude_rad=args.amplitude_rad, freq_hz=args.freq_hz, lever_arm_m=args.lever_arm_m,
        phase_rad=tuple(float(i) for i in range(len(args.amplitude_rad))),
    )
    faults = FaultInjection(
        loss=args.loss, duplicate=args.duplicate, reorder=args.reorder,
        garbage=args.garbage, foreign=args.foreign, seed=args.seed,
    )
    emu = ImuEmulator(
        args.dest, motion, rate_hz=args.rate_hz, faults=faults, gyro_fs_dps=args.gyro_fs_dps,
        accel_fs_g=args.accel_fs_g, n_imu=motion.n_imu, bind=args.bind, seq0=args.seq0,
        spin_s=args.spin_s,
    )
    stop = threading.Event()

    def _on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    print(json.dumps({"event": "started", "source": list(emu.source_address),
                      "dest": list(emu.dest), "rate_hz": emu.rate_hz}), flush=True)
    try:
        stats = emu.run(args.duration_s, stop)
    finally:
        emu.close()
    print(json.dumps({"event": "stopped", **asdict(stats)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
