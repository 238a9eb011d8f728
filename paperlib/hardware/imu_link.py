"""UDP link to the IMU microcontroller: packet format, receiver, joint-rate conversion.

The paper's rig (Section 3.2) has an STM32 F439ZI read two ST LSM6DSV16BX IMUs over I2C
and stream them to the controller over UDP at 1 kHz, while the control loop runs at
4 kHz and *oversamples* the IMU data: every control cycle uses the latest sample received
(zero-order hold). Only gyroscope z and accelerometer y are used, at +-1000 dps and +-2 g.

This module defines

* the packet ("PLIM" version 1; byte table in ``docs/imu_packet.md``):
  :func:`encode_packet`, :func:`decode_packet`, :class:`ImuPacket`, :class:`PacketError`;
* the datasheet sensitivities that turn raw counts into SI units
  (:data:`GYRO_SENSITIVITY_MDPS`, :data:`ACCEL_SENSITIVITY_MG`, :func:`counts_to_si`);
* :class:`ImuReceiver`, a non-blocking UDP receiver polled once per control cycle, which
  rejects and counts malformed, foreign, duplicate and out-of-order datagrams, counts lost
  ones from sequence gaps, and holds the latest valid sample in preallocated arrays;
* :class:`ImuJointCalibration` and :func:`imu_to_joint_rates`, the paper's conversion of
  gyro z / accel y into joint angular velocity / acceleration (Eqs. 47-48 scale factors).

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
from numpy.typing import ArrayLike, NDArray

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
# Packet format (little-endian, fixed size for a given number of IMUs)
# --------------------------------------------------------------------------------------

MAGIC: Final[bytes] = b"PLIM"
"""First four bytes of every packet ("PaperLib IMu")."""

VERSION: Final[int] = 1
"""Packet format version this module writes and accepts."""

N_IMU: Final[int] = 2
"""Number of IMUs on the paper's rig (one per actuated joint of the 5R)."""

_HEADER = struct.Struct("<4sBBHIQ")  # magic, version, n_imu, flags, seq, timestamp_us
_IMU_BLOCK = struct.Struct("<HBB6h")  # gyro_fs_dps, accel_fs_g, status, gx gy gz ax ay az
_CRC = struct.Struct("<I")

HEADER_SIZE: Final[int] = _HEADER.size  # 20
IMU_BLOCK_SIZE: Final[int] = _IMU_BLOCK.size  # 16
CRC_SIZE: Final[int] = _CRC.size  # 4
_SAMPLES_OFFSET_IN_BLOCK: Final[int] = 4
_MAX_IMU: Final[int] = 8  # one flag bit per IMU in the low byte of ``flags``


def packet_size(n_imu: int = N_IMU) -> int:
    """Size of a version-1 packet carrying ``n_imu`` IMUs [bytes] (56 for two IMUs)."""
    if not 1 <= n_imu <= _MAX_IMU:
        raise ValueError(f"n_imu must be in 1..{_MAX_IMU}, got {n_imu}")
    return HEADER_SIZE + n_imu * IMU_BLOCK_SIZE + CRC_SIZE


PACKET_SIZE: Final[int] = packet_size(N_IMU)

# --------------------------------------------------------------------------------------
# Sensitivities (LSM6DSV16BX datasheet, "Mechanical characteristics", typical values)
# --------------------------------------------------------------------------------------

STANDARD_GRAVITY: Final[float] = 9.80665
"""Standard acceleration of gravity g_n [m/s^2] (used for mg -> m/s^2)."""

GYRO_SENSITIVITY_MDPS: Final[dict[int, float]] = {
    125: 4.375,
    250: 8.75,
    500: 17.5,
    1000: 35.0,
    2000: 70.0,
    4000: 140.0,
}
"""Gyroscope sensitivity [mdps/LSB] by full scale [dps]: the datasheet's *typical* values.

The part-to-part tolerance of the sensitivity (and mounting misalignment) is what the
calibration scale factors alpha_g of the paper's Eq. (47) absorb."""

ACCEL_SENSITIVITY_MG: Final[dict[int, float]] = {
    2: 0.061,
    4: 0.122,
    8: 0.244,
    16: 0.488,
}
"""Accelerometer sensitivity [mg/LSB] by full scale [g]: the datasheet's *typical* values.

The tolerance is absorbed by the calibration scale factors alpha_a of Eq. (48)."""


def gyro_lsb_rad_s(full_scale_dps: int) -> float:
    """Angular rate of one gyroscope count at a given full scale [rad/s per LSB].

    Parameters
    ----------
    full_scale_dps : int
        Gyroscope full scale [deg/s], one of ``GYRO_SENSITIVITY_MDPS`` (125 ... 4000).

    Returns
    -------
    float
        Typical sensitivity converted to rad/s per count (35 mdps/LSB at +-1000 dps is
        6.1087e-4 rad/s per count).
    """
    try:
        mdps = GYRO_SENSITIVITY_MDPS[int(full_scale_dps)]
    except (KeyError, ValueError, TypeError):
        raise ValueError(
            f"unsupported gyroscope full scale {full_scale_dps!r} dps; "
            f"expected one of {sorted(GYRO_SENSITIVITY_MDPS)}"
        ) from None
    return mdps * 1e-3 * math.pi / 180.0


def accel_lsb_m_s2(full_scale_g: int) -> float:
    """Acceleration of one accelerometer count at a given full scale [m/s^2 per LSB].

    Parameters
    ----------
    full_scale_g : int
        Accelerometer full scale [g], one of ``ACCEL_SENSITIVITY_MG`` (2, 4, 8, 16).

    Returns
    -------
    float
        Typical sensitivity converted to m/s^2 per count (0.061 mg/LSB at +-2 g is
        5.9821e-4 m/s^2 per count).
    """
    try:
        mg = ACCEL_SENSITIVITY_MG[int(full_scale_g)]
    except (KeyError, ValueError, TypeError):
        raise ValueError(
            f"unsupported accelerometer full scale {full_scale_g!r} g; "
            f"expected one of {sorted(ACCEL_SENSITIVITY_MG)}"
        ) from None
    return mg * 1e-3 * STANDARD_GRAVITY


def counts_to_si(
    gyro_counts: ArrayLike,
    accel_counts: ArrayLike,
    gyro_fs_dps: ArrayLike = 1000,
    accel_fs_g: ArrayLike = 2,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Convert raw IMU counts to SI units.

    Parameters
    ----------
    gyro_counts, accel_counts : array_like of int, shape (n_imu, 3)
        Raw signed 16-bit samples (x, y, z) [counts].
    gyro_fs_dps : int or array_like of int, shape (n_imu,)
        Gyroscope full scale per IMU [deg/s].
    accel_fs_g : int or array_like of int, shape (n_imu,)
        Accelerometer full scale per IMU [g].

    Returns
    -------
    gyro : ndarray, shape (n_imu, 3)
        Angular rates [rad/s].
    accel : ndarray, shape (n_imu, 3)
        Specific forces (accelerations) [m/s^2].
    """
    g = np.asarray(gyro_counts, dtype=np.float64)
    a = np.asarray(accel_counts, dtype=np.float64)
    if g.ndim != 2 or g.shape[1] != 3 or a.shape != g.shape:
        raise ValueError(f"counts must both have shape (n_imu, 3); got {g.shape} and {a.shape}")
    n = g.shape[0]
    gfs = np.broadcast_to(np.asarray(gyro_fs_dps), (n,))
    afs = np.broadcast_to(np.asarray(accel_fs_g), (n,))
    gs = np.array([gyro_lsb_rad_s(int(v)) for v in gfs])
    as_ = np.array([accel_lsb_m_s2(int(v)) for v in afs])
    return g * gs[:, None], a * as_[:, None]


# --------------------------------------------------------------------------------------
# Encode / decode
# --------------------------------------------------------------------------------------


class PacketError(ValueError):
    """A datagram that is not a valid PLIM packet.

    Parameters
    ----------
    reason : str
        Short machine-readable category: ``"size"``, ``"magic"``, ``"version"``,
        ``"n_imu"``, ``"crc"`` or ``"full_scale"``.
    detail : str
        Human-readable explanation.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"invalid IMU packet ({reason}): {detail}" if detail else reason)


@dataclass(frozen=True)
class ImuPacket:
    """A decoded PLIM packet (raw counts; convert with :meth:`to_si`).

    Attributes
    ----------
    seq : int
        Sequence number (u32, +1 per packet, wraps at 2**32).
    timestamp_us : int
        Microcontroller time at sampling [us] (u64, free-running since its boot).
    flags : int
        Bit i (i < 8) set: IMU i's sample is fresh (read without I2C error). Bits 8-15
        are reserved (sent as 0, ignored on reception).
    gyro_counts, accel_counts : ndarray of int16, shape (n_imu, 3)
        Raw gyroscope and accelerometer samples, axes x, y, z [counts].
    gyro_fs_dps : tuple of int
        Gyroscope full scale per IMU [deg/s].
    accel_fs_g : tuple of int
        Accelerometer full scale per IMU [g].
    status : tuple of int
        Per-IMU status byte (sender-defined, 0 = OK; not interpreted here).
    version : int
        Packet format version.
    """

    seq: int
    timestamp_us: int
    flags: int
    gyro_counts: NDArray[np.int16]
    accel_counts: NDArray[np.int16]
    gyro_fs_dps: tuple[int, ...]
    accel_fs_g: tuple[int, ...]
    status: tuple[int, ...]
    version: int = VERSION

    @property
    def n_imu(self) -> int:
        """Number of IMUs in the packet."""
        return int(self.gyro_counts.shape[0])

    def imu_valid(self, i: int) -> bool:
        """Whether IMU ``i``'s sample in this packet is fresh (flag bit ``i``)."""
        return bool(self.flags >> i & 1)

    def to_si(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Gyroscope [rad/s] and accelerometer [m/s^2] samples, each shape (n_imu, 3)."""
        return counts_to_si(self.gyro_counts, self.accel_counts, self.gyro_fs_dps, self.accel_fs_g)


def _all_valid_flags(n_imu: int) -> int:
    return (1 << n_imu) - 1


def encode_packet(
    seq: int,
    timestamp_us: int,
    gyro_counts: ArrayLike,
    accel_counts: ArrayLike,
    *,
    gyro_fs_dps: int | ArrayLike = 1000,
    accel_fs_g: int | ArrayLike = 2,
    flags: int | None = None,
    status: int | ArrayLike = 0,
    version: int = VERSION,
) -> bytes:
    """Encode one PLIM packet (what the microcontroller sends).

    Parameters
    ----------
    seq : int
        Sequence number; taken modulo 2**32.
    timestamp_us : int
        Microcontroller time of the sample [us], 0 <= t < 2**64.
    gyro_counts, accel_counts : array_like of int, shape (n_imu, 3)
        Raw samples (x, y, z) [counts], each in the int16 range -32768..32767.
    gyro_fs_dps : int or array_like of int, shape (n_imu,)
        Gyroscope full scale per IMU [deg/s] (default 1000, the paper's setting).
    accel_fs_g : int or array_like of int, shape (n_imu,)
        Accelerometer full scale per IMU [g] (default 2, the paper's setting).
    flags : int, optional
        Flag word (u16); default: every IMU's "fresh" bit set.
    status : int or array_like of int, shape (n_imu,)
        Per-IMU status byte (default 0).
    version : int
        Format version to write (tests use this to forge packets of a wrong version).

    Returns
    -------
    bytes
        ``packet_size(n_imu)`` bytes, CRC-32 (``zlib.crc32``) over all bytes before it.

    Raises
    ------
    ValueError
        On wrong shapes, out-of-range counts or unsupported full scales.
    """
    g = np.asarray(gyro_counts)
    a = np.asarray(accel_counts)
    if g.ndim != 2 or g.shape[1] != 3 or a.shape != g.shape:
        raise ValueError(f"counts must both have shape (n_imu, 3); got {g.shape} and {a.shape}")
    n = g.shape[0]
    size = packet_size(n)
    for name, arr in (("gyro_counts", g), ("accel_counts", a)):
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.equal(np.mod(arr, 1), 0)):
                raise ValueError(f"{name} must be integer counts")
        if arr.size and (arr.min() < -32768 or arr.max() > 32767):
            raise ValueError(f"{name} out of the int16 range: [{arr.min()}, {arr.max()}]")
    gfs = np.broadcast_to(np.asarray(gyro_fs_dps), (n,))
    afs = np.broadcast_to(np.asarray(accel_fs_g), (n,))
    st = np.broadcast_to(np.asarray(status), (n,))
    for v in gfs:
        gyro_lsb_rad_s(int(v))  # validates
    for v in afs:
        accel_lsb_m_s2(int(v))
    if flags is None:
        flags = _all_valid_flags(n)
    if not 0 <= flags <= 0xFFFF:
        raise ValueError(f"flags must fit in u16, got {flags}")
    if not 0 <= timestamp_us < 2**64:
        raise ValueError(f"timestamp_us must fit in u64, got {timestamp_us}")
    buf = bytearray(size)
    _HEADER.pack_into(buf, 0, MAGIC, version, n, flags, seq % 2**32, timestamp_us)
    for i in range(n):
        _IMU_BLOCK.pack_into(
            buf,
            HEADER_SIZE + i * IMU_BLOCK_SIZE,
            int(gfs[i]),
            int(afs[i]),
            int(st[i]),
            *(int(x) for x in g[i]),
            *(int(x) for x in a[i]),
        )
    _CRC.pack_into(buf, size - CRC_SIZE, zlib.crc32(memoryview(buf)[: size - CRC_SIZE]))
    return bytes(buf)


def decode_packet(data: bytes | bytearray | memoryview) -> ImuPacket:
    """Decode and validate one PLIM packet.

    Checks, in order: magic, size (consistent with the IMU count it declares), version,
    CRC-32, full-scale codes.

    Parameters
    ----------
    data : bytes-like
        One UDP datagram.

    Returns
    -------
    ImuPacket

    Raises
    ------
    PacketError
        With ``reason`` in ``{"magic", "size", "version", "n_imu", "crc", "full_scale"}``.
    """
    mv = memoryview(data).cast("B")
    nbytes = len(mv)
    if nbytes < 4 or bytes(mv[:4]) != MAGIC:
        raise PacketError("magic", f"does not start with {MAGIC!r}")
    if nbytes < HEADER_SIZE:
        raise PacketError("size", f"{nbytes} bytes is shorter than the {HEADER_SIZE}-byte header")
    _, version, n, flags, seq, ts = _HEADER.unpack_from(mv, 0)
    if version != VERSION:
        raise PacketError("version", f"version {version}, expected {VERSION}")
    if not 1 <= n <= _MAX_IMU:
        raise PacketError("n_imu", f"declares {n} IMUs (1..{_MAX_IMU} allowed)")
    size = packet_size(n)
    if nbytes != size:
        raise PacketError("size", f"{nbytes} bytes, expected {size} for {n} IMUs")
    (crc,) = _CRC.unpack_from(mv, size - CRC_SIZE)
    calc = zlib.crc32(mv[: size - CRC_SIZE])
    if crc != calc:
        raise PacketError("crc", f"CRC-32 0x{crc:08x} in packet, computed 0x{calc:08x}")
    gyro = np.empty((n, 3), dtype=np.int16)
    accel = np.empty((n, 3), dtype=np.int16)
    gfs, afs, st = [], [], []
    for i in range(n):
        gf, af, s, *samples = _IMU_BLOCK.unpack_from(mv, HEADER_SIZE + i * IMU_BLOCK_SIZE)
        if gf not in GYRO_SENSITIVITY_MDPS or af not in ACCEL_SENSITIVITY_MG:
            raise PacketError("full_scale", f"IMU {i}: gyro {gf} dps / accel {af} g unsupported")
        gfs.append(gf)
        afs.append(af)
        st.append(s)
        gyro[i] = samples[:3]
        accel[i] = samples[3:]
    return ImuPacket(
        seq=seq,
        timestamp_us=ts,
        flags=flags,
        gyro_counts=gyro,
        accel_counts=accel,
        gyro_fs_dps=tuple(gfs),
        accel_fs_g=tuple(afs),
        status=tuple(st),
        version=version,
    )


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


# --------------------------------------------------------------------------------------
# IMU -> joint rates (paper Section 3.2, Eqs. 47-48)
# --------------------------------------------------------------------------------------


@dataclass
class ImuJointCalibration:
    """Parameters turning link-mounted IMU readings into joint rates.

    Parameters
    ----------
    lever_arm_m : array_like, shape (n,)
        Distance r_j from the grounded revolute joint to the accelerometer [m].
    alpha_g : array_like, shape (n,)
        Gyroscope calibration scale alpha_g,j [-] (Eq. 47; sign included). Default 1.
    alpha_a : array_like, shape (n,)
        Accelerometer calibration scale alpha_a,j [-] (Eq. 48; sign included). Default 1.
    imu_of_joint : sequence of int, shape (n,)
        IMU index mounted on joint j (default: IMU j).
    gyro_axis : int
        Sensor axis of the gyroscope read as the link angular velocity (2 = z).
    accel_axis : int
        Sensor axis of the accelerometer read as the tangential acceleration (1 = y).

    Notes
    -----
    q_dot_j = alpha_g,j * omega_{gyro_axis, j} and
    q_ddot_j = alpha_a,j * a_{accel_axis, j} / r_j, valid for links rotating about a
    grounded joint in the horizontal plane (the 5R's proximal links); links moving in
    3-D need the kinematic model and gravity compensation (paper, end of Section 3.2).
    """

    lever_arm_m: ArrayLike
    alpha_g: ArrayLike | None = None
    alpha_a: ArrayLike | None = None
    imu_of_joint: tuple[int, ...] | None = None
    gyro_axis: int = 2
    accel_axis: int = 1

    def __post_init__(self) -> None:
        r = np.atleast_1d(np.asarray(self.lever_arm_m, dtype=np.float64)).copy()
        if r.ndim != 1 or not np.all(np.isfinite(r)) or np.any(r <= 0):
            raise ValueError(f"lever_arm_m must be positive finite lengths [m], got {r}")
        n = r.size
        self.lever_arm_m = r
        self.alpha_g = self._scale(self.alpha_g, n, "alpha_g")
        self.alpha_a = self._scale(self.alpha_a, n, "alpha_a")
        self.imu_of_joint = tuple(range(n)) if self.imu_of_joint is None else tuple(
            int(i) for i in self.imu_of_joint
        )
        if len(self.imu_of_joint) != n:
            raise ValueError(f"imu_of_joint needs {n} entries, got {self.imu_of_joint}")
        if self.gyro_axis not in (0, 1, 2) or self.accel_axis not in (0, 1, 2):
            raise ValueError("gyro_axis and accel_axis must be 0 (x), 1 (y) or 2 (z)")
        self._idx = self.imu_of_joint
        # Combined gain of the acceleration path: alpha_a / r [1/m].
        self._acc_gain = self.alpha_a / r

    @staticmethod
    def _scale(v: ArrayLike | None, n: int, name: str) -> NDArray[np.float64]:
        if v is None:
            return np.ones(n)
        a = np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)).copy()
        if not np.all(np.isfinite(a)) or np.any(a == 0):
            raise ValueError(f"{name} must be finite and non-zero, got {a}")
        return a

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return int(self.lever_arm_m.size)


def imu_to_joint_rates(
    gyro: NDArray[np.float64],
    accel: NDArray[np.float64],
    cal: ImuJointCalibration,
    qd_out: NDArray[np.float64] | None = None,
    qdd_out: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Joint angular velocity and acceleration from link IMU readings.

    Parameters
    ----------
    gyro : ndarray, shape (n_imu, 3)
        Angular rates [rad/s].
    accel : ndarray, shape (n_imu, 3)
        Accelerations [m/s^2].
    cal : ImuJointCalibration
        Lever arms and calibration scales.
    qd_out, qdd_out : ndarray, shape (n_joints,), optional
        Preallocated outputs (e.g. ``Measurement.qd`` and ``Measurement.qdd``); written
        in place when given.

    Returns
    -------
    qd : ndarray, shape (n_joints,)
        q_dot_j = alpha_g,j * gyro[imu_j, gyro_axis] [rad/s].
    qdd : ndarray, shape (n_joints,)
        q_ddot_j = alpha_a,j * accel[imu_j, accel_axis] / r_j [rad/s^2].
    """
    if qd_out is None:
        qd_out = np.empty(cal.n_joints)
    if qdd_out is None:
        qdd_out = np.empty(cal.n_joints)
    idx = cal._idx
    for j in range(cal.n_joints):
        i = idx[j]
        qd_out[j] = cal.alpha_g[j] * gyro[i, cal.gyro_axis]
        qdd_out[j] = cal._acc_gain[j] * accel[i, cal.accel_axis]
    return qd_out, qdd_out
