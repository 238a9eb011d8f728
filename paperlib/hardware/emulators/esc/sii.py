"""The slave's SII (EEPROM) image as ETG.2010 lays it out, and its builder.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Sequence

__all__ = ["FmmuEntry", "SmEntry", "PdoEntrySpec", "PdoSpec", "SiiImage", "build_sii"]

# --- SII image -----------------------------------------------------------------------------


def _crc8_esc(data: bytes) -> int:
    """CRC-8 of the ESC configuration area (polynomial x^8+x^2+x+1, initial value 0xFF)."""
    crc = 0xFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


@dataclasses.dataclass(frozen=True)
class FmmuEntry:
    """One FMMU usage byte of the SII FMMU category (1 = outputs, 2 = inputs, 3 = SM status)."""

    usage: int


@dataclasses.dataclass(frozen=True)
class SmEntry:
    """One SyncManager of the SII SyncM category.

    Attributes
    ----------
    start, length : int
        Physical start address and default length [bytes].
    control : int
        SM control byte (0x26 mailbox write, 0x22 mailbox read, 0x64 buffered outputs with
        watchdog, 0x20/0x00 buffered inputs).
    enable : int
        Activate byte (bit 0: SM enabled).
    sm_type : int
        1 mailbox out, 2 mailbox in, 3 process data outputs, 4 process data inputs.
    """

    start: int
    length: int
    control: int
    enable: int
    sm_type: int


@dataclasses.dataclass(frozen=True)
class PdoEntrySpec:
    """One entry of a PDO in the SII TXPDO/RXPDO categories."""

    index: int
    subindex: int
    bit_length: int
    data_type: int = 0
    name_idx: int = 0


@dataclasses.dataclass(frozen=True)
class PdoSpec:
    """One PDO (index, SyncManager, entries) for the SII TXPDO/RXPDO categories."""

    index: int
    sm: int
    entries: tuple[PdoEntrySpec, ...]
    name_idx: int = 0


@dataclasses.dataclass(frozen=True)
class SiiImage:
    """Everything that goes into a slave's SII (EEPROM) image.

    Attributes
    ----------
    vendor_id, product_code, revision, serial : int
        Identity (SII words 0x0008..0x000F).
    strings : tuple of str
        String category; string 1 is the device name that SOEM shows.
    rx_mailbox, tx_mailbox : tuple of (int, int)
        (offset, size) of the standard receive (master -> slave, SM0) and send (SM1) mailboxes;
        (0, 0) for a slave without a mailbox.
    mailbox_protocols : int
        Bit field (0x04 = CoE).
    coe_details : int
        General category CoE details (bit 0 SDO, 2 PDO assign, 3 PDO config, 5 complete access).
    fmmu, sms : tuple
        FMMU usage bytes and SyncManager entries.
    txpdos, rxpdos : tuple of PdoSpec
        Default PDOs (all PDOs of one direction go into one category, which SOEM requires).
    pdi_control : int
        PDI type written to the ESC configuration area (word 0).
    """

    vendor_id: int
    product_code: int
    revision: int
    serial: int
    strings: tuple[str, ...]
    rx_mailbox: tuple[int, int] = (0, 0)
    tx_mailbox: tuple[int, int] = (0, 0)
    mailbox_protocols: int = 0
    coe_details: int = 0
    fmmu: tuple[int, ...] = (1, 2)
    sms: tuple[SmEntry, ...] = ()
    txpdos: tuple[PdoSpec, ...] = ()
    rxpdos: tuple[PdoSpec, ...] = ()
    pdi_control: int = 0x05
    ebus_current_mA: int = 0


def _category(cat_type: int, payload: bytes) -> bytes:
    if len(payload) % 2:
        payload += b"\x00"
    return struct.pack("<HH", cat_type, len(payload) // 2) + payload


def _pdo_category(pdos: Sequence[PdoSpec]) -> bytes:
    out = bytearray()
    for pdo in pdos:
        out += struct.pack("<HBBBBH", pdo.index, len(pdo.entries), pdo.sm, 0, pdo.name_idx, 0)
        for e in pdo.entries:
            out += struct.pack("<HBBBBH", e.index, e.subindex, e.name_idx, e.data_type, e.bit_length, 0)
    return bytes(out)


def build_sii(img: SiiImage) -> bytes:
    """Build an SII EEPROM image (bytes, little-endian words) as ETG.2010 lays it out.

    Parameters
    ----------
    img : SiiImage
        Content of the image.

    Returns
    -------
    bytes
        The EEPROM content; reads beyond its end return 0xFF bytes.
    """
    words = bytearray(0x80)  # 0x40 words of header
    config = struct.pack("<HHHHH", img.pdi_control, 0x0000, 0x0000, 0x0000, 0x0000) + b"\x00" * 4
    words[0:14] = config
    words[14:16] = struct.pack("<H", _crc8_esc(config))
    words[0x10:0x20] = struct.pack("<IIII", img.vendor_id, img.product_code, img.revision, img.serial)
    words[0x30:0x38] = struct.pack("<HHHH", *img.rx_mailbox, *img.tx_mailbox)  # words 0x18..0x1B
    words[0x38:0x3A] = struct.pack("<H", img.mailbox_protocols)  # word 0x1C
    words[0x7C:0x80] = struct.pack("<HH", 0x000F, 0x0001)  # size (16 kbit - 1), version 1

    cats = bytearray()
    strings = bytearray([len(img.strings)])
    for s in img.strings:
        raw = s.encode("ascii")[:255]
        strings += bytes([len(raw)]) + raw
    cats += _category(10, bytes(strings))
    general = bytearray(32)
    general[0] = 0  # group string index
    general[3] = 1 if img.strings else 0  # name string index
    general[5] = img.coe_details
    general[12:14] = struct.pack("<h", img.ebus_current_mA)
    general[16:18] = struct.pack("<H", 0x0011)  # physical ports: MII, MII
    cats += _category(30, bytes(general))
    if img.fmmu:
        cats += _category(40, bytes(img.fmmu))
    if img.sms:
        cats += _category(
            41, b"".join(struct.pack("<HHBBBB", s.start, s.length, s.control, 0, s.enable, s.sm_type) for s in img.sms)
        )
    if img.txpdos:
        cats += _category(50, _pdo_category(img.txpdos))
    if img.rxpdos:
        cats += _category(51, _pdo_category(img.rxpdos))
    cats += b"\xff\xff"
    return bytes(words) + bytes(cats)
