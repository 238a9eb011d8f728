"""The IMU board's UDP packet ("PLIM" version 1; byte table in ``docs/imu_packet.md``) and the
datasheet sensitivities that turn its raw counts into SI units (rad/s, m/s^2).

:func:`encode_packet` / :func:`decode_packet`, :class:`ImuPacket`, :class:`PacketError`;
:data:`GYRO_SENSITIVITY_MDPS`, :data:`ACCEL_SENSITIVITY_MG`, :func:`counts_to_si`. The receiver
that reads them off the network is :mod:`paperlib.hardware.imu_link`.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
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
]

# --------------------------------------------------------------------------------------
# Packet format (little-endian, fixed size for a given number of IMUs)
# --------------------------------------------------------------------------------------

MAGIC: Final[bytes] = b"PLIM"
"""First four bytes of every packet ("PaperLib IMu")."""

VERSION: Final[int] = 1
"""Packet format version this module writes and accepts."""

N_IMU: Final[int] = 2
"""Number of IMUs on the paper's rig (one per actuated joint of the flagship's parallel robot)."""

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
