"""UDP link to the IMU microcontroller: packet format, receiver, joint-rate conversion.

The paper's rig (Section 3.2) has an STM32 F439ZI read two ST LSM6DSV16BX IMUs over I2C
and stream them to the controller over UDP at 1 kHz, while the control loop runs at
4 kHz and *oversamples* the IMU data: every control cycle uses the latest sample received
(zero-order hold). Only gyroscope z and accelerometer y are used, at +-1000 dps and +-2 g.

This module holds :class:`ImuReceiver`, a non-blocking UDP receiver polled once per control
cycle, which rejects and counts malformed, foreign, duplicate and out-of-order datagrams, counts
lost ones from sequence gaps, and holds the latest valid sample in preallocated arrays
(:class:`ImuSample`, :class:`LinkCounters`). It re-exports, for its callers,

* the packet ("PLIM" version 1; byte table in ``docs/imu_packet.md``) and the datasheet
  sensitivities, from :mod:`paperlib.hardware.imu_packet`;
* :class:`ImuJointCalibration` and :func:`imu_to_joint_rates`, the paper's conversion of
  gyro z / accel y into joint angular velocity / acceleration (Eqs. 47-48 scale factors), from
  :mod:`paperlib.hardware.imu_joint`.

Units inside are SI: rad/s for angular rates, m/s^2 for accelerations, s for ages.
"""

from __future__ import annotations

import ipaddress
import math
import socket
import struct
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Final

import numpy as np

from paperlib.hardware.imu_packet import (  # noqa: F401  (re-exported: the link's public names)
    MAGIC,
    VERSION,
    N_IMU,
    HEADER_SIZE,
    IMU_BLOCK_SIZE,
    CRC_SIZE,
    PACKET_SIZE,
    STANDARD_GRAVITY,
    GYRO_SENSITIVITY_MDPS,
    ACCEL_SENSITIVITY_MG,
    packet_size,
    gyro_lsb_rad_s,
    accel_lsb_m_s2,
    counts_to_si,
    PacketError,
    ImuPacket,
    encode_packet,
    decode_packet,
)
from paperlib.hardware.imu_packet import _CRC, _HEADER, _SAMPLES_OFFSET_IN_BLOCK, _all_valid_flags
from paperlib.hardware.imu_joint import ImuJointCalibration, imu_to_joint_rates  # noqa: F401  (re-exported)

__all__ = [
    "MAGIC",
    "VERSION",
    "N_IMU",
    "HEADER_SIZE",
    "IMU_BLOCK_SIZE",
    "CRC_SIZE",
    "PACKET_SIZE",
    "STANDARD_GRAVITY",
    "GYRO_SENSITIVITY_MDPS",
    "ACCEL_SENSITIVITY_MG",
    "packet_size",
    "gyro_lsb_rad_s",
    "accel_lsb_m_s2",
    "counts_to_si",
    "PacketError",
    "ImuPacket",
    "encode_packet",
    "decode_packet",
    "ImuSample",
    "LinkCounters",
    "ImuReceiver",
    "ImuJointCalibration",
    "imu_to_joint_rates",
]

# --------------------------------------------------------------------------------------
# Receiver
# --------------------------------------------------------------------------------------


class ImuSample:
    """The latest valid IMU sample, held in preallocated arrays (zero-order hold).

    One object per receiver; :meth:`ImuReceiver.latest` overwrites it in place and
    returns it, so keep a reference only for the current control cycle (copy to keep).

    Attributes
    ----------
    gyro : ndarray, shape (n_imu, 3)
        Angular rate, sensor axes x, y, z [rad/s].
    accel : ndarray, shape (n_imu, 3)
        Specific force (acceleration), sensor axes x, y, z [m/s^2].
    timestamp_us : int
        Microcontroller timestamp of the latest accepted packet [us]; -1 before any.
    seq : int
        Sequence number of the latest accepted packet; -1 before any.
    age_s : float
        Age of the oldest of the per-IMU samples at the last :meth:`ImuReceiver.latest`
        call [s]: the time since the host received it. ``inf`` before any sample.
    imu_age_s : ndarray, shape (n_imu,)
        Per-IMU ages [s] (an IMU whose "fresh" flag is clear keeps its old sample and ages).
    """

    __slots__ = ("gyro", "accel", "timestamp_us", "seq", "age_s", "imu_age_s")

    def __init__(self, n_imu: int) -> None:
        self.gyro = np.zeros((n_imu, 3))
        self.accel = np.zeros((n_imu, 3))
        self.timestamp_us = -1
        self.seq = -1
        self.age_s = math.inf
        self.imu_age_s = np.full(n_imu, math.inf)

    def __repr__(self) -> str:
        return (
            f"ImuSample(seq={self.seq}, timestamp_us={self.timestamp_us}, "
            f"age_s={self.age_s:.6f}, gyro={self.gyro.tolist()}, accel={self.accel.tolist()})"
        )


@dataclass
class LinkCounters:
    """Datagram counters of an :class:`ImuReceiver` (cumulative since creation/reset).

    Attributes
    ----------
    datagrams : int
        Every datagram read from the socket.
    valid : int
        Accepted packets.
    malformed : int
        Right magic (and source) but wrong size, version, IMU count, CRC or full scale.
    foreign : int
        From an unexpected source address/port, or not starting with the magic.
    duplicate : int
        Sequence number equal to the last accepted one.
    out_of_order : int
        Sequence number older than the last accepted one (reordered or stale).
    lost : int
        Sequence numbers skipped between consecutive accepted packets (never accepted:
        a packet that arrives after a newer one counts here *and* in ``out_of_order``).
    resyncs : int
        Times the sequence tracking restarted after ``resync_after`` consecutive old
        packets (e.g. the microcontroller rebooted and restarted at seq 0).
    not_fresh : int
        (packet, IMU) pairs whose "fresh" flag was clear (I2C read failed on the uC).
    socket_errors : int
        ``OSError`` from the socket other than "would block".
    malformed_reasons : dict of str to int
        ``malformed`` broken down by :class:`PacketError` reason.
    """

    datagrams: int = 0
    valid: int = 0
    malformed: int = 0
    foreign: int = 0
    duplicate: int = 0
    out_of_order: int = 0
    lost: int = 0
    resyncs: int = 0
    not_fresh: int = 0
    socket_errors: int = 0
    malformed_reasons: dict[str, int] = field(default_factory=dict)

    def as_dict(self, prefix: str = "imu_") -> dict[str, int]:
        """Flat ``{prefix + name: count}`` dict (reasons as ``malformed_<reason>``)."""
        d = asdict(self)
        reasons = d.pop("malformed_reasons")
        out = {prefix + k: int(v) for k, v in d.items()}
        out.update({f"{prefix}malformed_{k}": int(v) for k, v in reasons.items()})
        return out


_SEQ_MOD: Final[int] = 1 << 32
_SEQ_HALF: Final[int] = 1 << 31


class ImuReceiver:
    """Non-blocking UDP receiver of PLIM packets, polled once per control cycle.

    Parameters
    ----------
    bind_addr : str
        Local IP address to bind (e.g. ``"127.0.0.1"``, or the NIC facing the uC).
    port : int
        Local UDP port; 0 picks a free one (see :attr:`address`).
    expected_source : (str, int) or str, optional
        Accept datagrams only from this ``(ip, port)``; a bare ip string (or port 0/None)
        accepts any port of that ip. Others are counted as ``foreign``.
    n_imu : int
        Number of IMUs the packets must carry (2 on the paper's rig).
    stale_after_s : float
        Default age threshold of :meth:`is_stale` [s] (5 ms = 5 missed 1 kHz packets).
    resync_after : int
        Restart sequence tracking after this many consecutive packets older than the last
        accepted one (0 disables). The watchdog of the loop fires long before on a live
        run; this only lets a link recover from a microcontroller reset when idle.
    rcvbuf_bytes : int, optional
        Requested socket receive buffer size [bytes].

    Notes
    -----
    Each call of :meth:`poll` drains every pending datagram without blocking. The
    reception time of a packet is the host's monotonic clock (``time.perf_counter_ns``)
    when :meth:`poll` read it, so it is quantised by the polling period (250 us at
    4 kHz). The hot path allocates nothing but a few small transient objects (the
    address tuple, struct tuples), which reference counting frees at once -- no garbage
    for the cyclic collector, which the real-time loop turns off.
    """

    def __init__(
        self,
        bind_addr: str,
        port: int,
        expected_source: tuple[str, int | None] | str | None = None,
        *,
        n_imu: int = N_IMU,
        stale_after_s: float = 0.005,
        resync_after: int = 200,
        rcvbuf_bytes: int | None = 1 << 18,
    ) -> None:
        self.n_imu = int(n_imu)
        self._size = packet_size(self.n_imu)
        self.stale_after_s = float(stale_after_s)
        self.resync_after = int(resync_after)
        self._expected_ip: str | None = None
        self._expected_port: int | None = None
        self.set_expected_source(expected_source)
        self.counters = LinkCounters()

        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            if rcvbuf_bytes:
                self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(rcvbuf_bytes))
            self._sock.bind((bind_addr, int(port)))
            self._sock.setblocking(False)
        except OSError:
            self._sock.close()
            raise

        # Receive buffer larger than a packet so oversize datagrams show as a size error.
        self._buf = bytearray(2048)
        self._crc_view = memoryview(self._buf)[: self._size - CRC_SIZE]
        # Zero-copy int16 views of the samples inside the receive buffer, shape (n_imu, 3).
        samples = HEADER_SIZE + _SAMPLES_OFFSET_IN_BLOCK
        self._raw_gyro = np.ndarray(
            shape=(self.n_imu, 3), dtype="<i2", buffer=self._buf, offset=samples,
            strides=(IMU_BLOCK_SIZE, 2),
        )
        self._raw_accel = np.ndarray(
            shape=(self.n_imu, 3), dtype="<i2", buffer=self._buf, offset=samples + 6,
            strides=(IMU_BLOCK_SIZE, 2),
        )
        self._gyro_scale = {fs: gyro_lsb_rad_s(fs) for fs in GYRO_SENSITIVITY_MDPS}
        self._accel_scale = {fs: accel_lsb_m_s2(fs) for fs in ACCEL_SENSITIVITY_MG}
        # Per-IMU scale columns [SI per count], cached for the last full-scale codes seen.
        self._g_lsb = np.zeros((self.n_imu, 1))
        self._a_lsb = np.zeros((self.n_imu, 1))
        self._fs_seen: list[tuple[int, int] | None] = [None] * self.n_imu
        self._fs_now: list[tuple[int, int]] = [(0, 0)] * self.n_imu
        self._all_fresh = _all_valid_flags(self.n_imu)
        self._fs_offsets = [HEADER_SIZE + i * IMU_BLOCK_SIZE for i in range(self.n_imu)]
        self._fs_struct = struct.Struct("<HB")

        self._sample = ImuSample(self.n_imu)
        self._rx_ns = [None] * self.n_imu  # type: list[int | None]
        self._last_seq: int | None = None
        self._old_streak = 0

    # -- life cycle ------------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        """The bound local ``(ip, port)``."""
        host, port = self._sock.getsockname()[:2]
        return host, port

    def fileno(self) -> int:
        """The socket's file descriptor (for ``select``)."""
        return self._sock.fileno()

    def close(self) -> None:
        """Close the socket (idempotent)."""
        self._sock.close()

    def __enter__(self) -> "ImuReceiver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_expected_source(self, source: tuple[str, int | None] | str | None) -> None:
        """Accept datagrams only from ``source`` (``(ip, port)``, bare ip, or None = any).

        Parameters
        ----------
        source : (str, int) or str or None
            An IP literal (no host names: no DNS in the loop) and optionally a port;
            port 0 or None accepts any port.
        """
        if source is None:
            self._expected_ip, self._expected_port = None, None
            return
        if isinstance(source, str):
            ip, src_port = source, None
        else:
            ip, src_port = source
        try:
            canonical = str(ipaddress.ip_address(ip))
        except ValueError:
            raise ValueError(f"expected_source must be an IP address literal, got {ip!r}") from None
        self._expected_ip = canonical
        self._expected_port = int(src_port) if src_port else None

    def reset_sequence(self) -> None:
        """Forget the last sequence number (the next valid packet is accepted as new)."""
        self._last_seq = None
        self._old_streak = 0

    # -- hot path --------------------------------------------------------------------

    def _malformed(self, reason: str) -> None:
        c = self.counters
        c.malformed += 1
        c.malformed_reasons[reason] = c.malformed_reasons.get(reason, 0) + 1

    def poll(self) -> int:
        """Drain every pending datagram without blocking; keep the newest valid sample.

        Returns
        -------
        int
            Number of packets accepted by this call (usually 0 or 1 at 1 kHz / 4 kHz).
        """
        sock = self._sock
        buf = self._buf
        c = self.counters
        size = self._size
        accepted = 0
        while True:
            try:
                nbytes, addr = sock.recvfrom_into(buf)
            except BlockingIOError:
                break
            except OSError:
                c.socket_errors += 1
                break
            now = time.perf_counter_ns()
            c.datagrams += 1
            if self._expected_ip is not None and (
                addr[0] != self._expected_ip
                or (self._expected_port is not None and addr[1] != self._expected_port)
            ):
                c.foreign += 1
                continue
            if nbytes < 4 or buf[0] != 0x50 or buf[1] != 0x4C or buf[2] != 0x49 or buf[3] != 0x4D:
                c.foreign += 1  # not our protocol at all ("PLIM")
                continue
            if nbytes < HEADER_SIZE:
                self._malformed("size")
                continue
            _, version, n, flags, seq, ts = _HEADER.unpack_from(buf, 0)
            if version != VERSION:
                self._malformed("version")
                continue
            if n != self.n_imu:
                self._malformed("n_imu")
                continue
            if nbytes != size:
                self._malformed("size")
                continue
            if zlib.crc32(self._crc_view) != _CRC.unpack_from(buf, size - CRC_SIZE)[0]:
                self._malformed("crc")
                continue
            bad_fs = False
            fs_now = self._fs_now
            for i, off in enumerate(self._fs_offsets):
                fs = self._fs_struct.unpack_from(buf, off)
                if fs[0] not in self._gyro_scale or fs[1] not in self._accel_scale:
                    bad_fs = True
                    break
                fs_now[i] = fs
            if bad_fs:
                self._malformed("full_scale")
                continue
            # Sequence: serial-number arithmetic modulo 2**32 (RFC 1982 style).
            last = self._last_seq
            if last is not None:
                d = (seq - last) % _SEQ_MOD
                if d == 0 or d >= _SEQ_HALF:
                    if d == 0:
                        c.duplicate += 1
                    else:
                        c.out_of_order += 1
                    if not self._count_old():
                        continue
                    d = 1  # resynchronised: this packet becomes the new reference
                c.lost += d - 1
            self._old_streak = 0
            self._last_seq = seq
            # Accept: convert in place (only fresh IMUs are updated).
            if fs_now != self._fs_seen:
                for i, (gf, af) in enumerate(fs_now):
                    self._g_lsb[i, 0] = self._gyro_scale[gf]
                    self._a_lsb[i, 0] = self._accel_scale[af]
                self._fs_seen = list(fs_now)
            s = self._sample
            if flags & self._all_fresh == self._all_fresh:
                np.multiply(self._raw_gyro, self._g_lsb, out=s.gyro)
                np.multiply(self._raw_accel, self._a_lsb, out=s.accel)
                for i in range(self.n_imu):
                    self._rx_ns[i] = now
            else:
                for i in range(self.n_imu):
                    if flags >> i & 1:
                        np.multiply(self._raw_gyro[i], self._g_lsb[i, 0], out=s.gyro[i])
                        np.multiply(self._raw_accel[i], self._a_lsb[i, 0], out=s.accel[i])
                        self._rx_ns[i] = now
                    else:
                        c.not_fresh += 1
            s.seq = seq
            s.timestamp_us = ts
            c.valid += 1
            accepted += 1
        return accepted

    def _count_old(self) -> bool:
        """Count a not-newer packet; True when it triggers a resync."""
        self._old_streak += 1
        if self.resync_after and self._old_streak >= self.resync_after:
            self.counters.resyncs += 1
            self._old_streak = 0
            return True
        return False

    def latest(self, now_ns: int | None = None) -> ImuSample:
        """The latest valid sample (zero-order hold) with its age updated.

        Parameters
        ----------
        now_ns : int, optional
            Current ``time.perf_counter_ns()`` (pass it to save a clock read).

        Returns
        -------
        ImuSample
            The receiver's preallocated sample, overwritten in place.
        """
        if now_ns is None:
            now_ns = time.perf_counter_ns()
        s = self._sample
        worst = 0.0
        for i, rx in enumerate(self._rx_ns):
            age = math.inf if rx is None else (now_ns - rx) * 1e-9
            s.imu_age_s[i] = age
            if age > worst:
                worst = age
        s.age_s = worst
        return s

    def age_s(self, now_ns: int | None = None) -> float:
        """Age of the oldest per-IMU sample [s] (``inf`` before any)."""
        return self.latest(now_ns).age_s

    def is_stale(self, max_age_s: float | None = None, now_ns: int | None = None) -> bool:
        """Whether the held sample is older than ``max_age_s`` (default ``stale_after_s``).

        Parameters
        ----------
        max_age_s : float, optional
            Threshold [s].
        now_ns : int, optional
            Current ``time.perf_counter_ns()``.
        """
        limit = self.stale_after_s if max_age_s is None else max_age_s
        return self.latest(now_ns).age_s > limit
