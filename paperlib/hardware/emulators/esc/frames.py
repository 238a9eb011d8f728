"""EtherCAT frames and datagrams (EtherType 0x88A4): command codes, parsing, building.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import struct
from typing import Sequence

from .registers import _U16

__all__ = ["ETHERTYPE_ECAT", "ETH_HEADER", "ECAT_HEADER", "DATAGRAM_HEADER", "Cmd", "parse_frame", "build_frame"]

ETHERTYPE_ECAT = 0x88A4
ETH_HEADER = 14
ECAT_HEADER = 2
DATAGRAM_HEADER = 10


class Cmd:
    """EtherCAT datagram command codes (ETG.1000.4, table 'EtherCAT command types')."""

    NOP = 0
    APRD = 1
    APWR = 2
    APRW = 3
    FPRD = 4
    FPWR = 5
    FPRW = 6
    BRD = 7
    BWR = 8
    BRW = 9
    LRD = 10
    LWR = 11
    LRW = 12
    ARMW = 13
    FRMW = 14


_DGRAM_HDR = struct.Struct("<BBHHHH")  # cmd, idx, adp, ado, len|flags, irq


def parse_frame(frame: bytes | bytearray) -> list[tuple[int, int, int, int]] | None:
    """Parse an EtherCAT frame into datagrams.

    Returns
    -------
    list of (offset, cmd, data_offset, length) or None
        ``offset`` is the datagram header's offset in the frame; None if the frame is not a
        well-formed EtherCAT (type 1) frame.
    """
    if len(frame) < ETH_HEADER + ECAT_HEADER + DATAGRAM_HEADER + 2:
        return None
    if frame[12] != 0x88 or frame[13] != 0xA4:
        return None
    hdr = frame[14] | (frame[15] << 8)
    if (hdr >> 12) != 1:
        return None
    total = hdr & 0x07FF
    pos = ETH_HEADER + ECAT_HEADER
    limit = min(len(frame), pos + total)
    out = []
    while True:
        if pos + DATAGRAM_HEADER + 2 > limit:
            return None
        cmd = frame[pos]
        lenf = frame[pos + 6] | (frame[pos + 7] << 8)
        n = lenf & 0x07FF
        data = pos + DATAGRAM_HEADER
        if data + n + 2 > limit:
            return None
        out.append((pos, cmd, data, n))
        pos = data + n + 2
        if not lenf & 0x8000:
            return out


def build_frame(datagrams: Sequence[tuple[int, int, int, bytes]], index: int = 0) -> bytes:
    """Build an EtherCAT frame (for tests): datagrams are (cmd, adp, ado, data); ADP/ADO or logical."""
    body = bytearray()
    for k, (cmd, adp, ado, data) in enumerate(datagrams):
        more = 0x8000 if k < len(datagrams) - 1 else 0
        body += _DGRAM_HDR.pack(cmd, index, adp & 0xFFFF, ado & 0xFFFF, len(data) | more, 0) + bytes(data) + b"\0\0"
    eth = b"\xff" * 6 + b"\x01" * 6 + b"\x88\xa4"
    return eth + _U16.pack(len(body) | 0x1000) + bytes(body)
