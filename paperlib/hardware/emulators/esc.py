"""EtherCAT slave controller (ESC) emulator: frames, datagrams, registers, SII, mailbox/CoE.

A pure-Python model of the parts of an EtherCAT slave controller that a real master
(SOEM through pysoem) exercises when it scans, configures and runs a chain:

* frame and datagram parsing (EtherType 0x88A4, several datagrams per frame), processed by
  every slave of the chain in order, as the frame passes through them on the wire;
* all addressing modes: auto-increment (APRD/APWR/APRW/ARMW: every slave increments ADP,
  the one that sees 0 is addressed), configured station address (FPRD/FPWR/FPRW/FRMW,
  register 0x0010), broadcast (BRD/BWR/BRW, BRD data are OR-ed) and logical (LRD/LWR/LRW
  through the FMMUs, bit-granular);
* working-counter rules of ETG.1000.4: +1 per slave for a successful read or write, and
  for the read-write commands +1 (read) +2 (write), i.e. +3 when both succeed;
* a register file (ESC information 0x0000.., station address 0x0010, DL control/status
  0x0100/0x0110, AL control/status/status code 0x0120/0x0130/0x0134, PDI control 0x0140,
  watchdogs 0x0400.., SII interface 0x0500-0x050F, FMMUs 0x0600.., SyncManagers 0x0800..,
  distributed clocks 0x0900-0x09A7) with read-only bytes and side effects;
* the SII EEPROM (4- or 8-byte reads through 0x0502/0x0504/0x0508) and a builder for SII
  images with the categories SOEM reads (strings, general, FMMU, SyncM, TXPDO, RXPDO);
* the AL state machine INIT -> PRE-OP -> SAFE-OP -> OP with AL status codes for invalid
  transitions and invalid SyncManager configurations;
* mailbox SyncManagers (SM0 master -> slave, SM1 slave -> master) with "mailbox full"
  semantics, and a CoE server (SDO upload/download, expedited and normal, SDO abort sent as
  CoE service 2 = SDO request with command 0x80 as ETG.1000.6 specifies, which is what SOEM
  recognises as an abort).

Device behaviour (what a coupler or a drive does with its process data) lives in subclasses
of :class:`EscSlave` (see :mod:`paperlib.hardware.emulators.devices`).  :func:`serve` runs a
chain on a raw ``AF_PACKET`` socket bound to one end of a veth pair.

Simplifications (documented, deliberate): one buffer per process-data SyncManager instead of
the ESC's three-buffer mode; no EEPROM write protection; no SDO Information service, no
segmented SDO transfer, no complete access; DC is a model of the registers SOEM's
``ecx_configdc``/``ecx_dcsync0`` read and write (no SYNC0 pulse generation).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import struct
import time
from collections import deque
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "ETHERTYPE_ECAT",
    "Cmd",
    "AlState",
    "AlStatusCode",
    "SdoAbort",
    "SDO_ABORT_TEXT",
    "FmmuEntry",
    "SmEntry",
    "SiiImage",
    "build_sii",
    "OdEntry",
    "ObjectDictionary",
    "CoeServer",
    "EscSlave",
    "EscChain",
    "FrameFaults",
    "serve",
    "build_frame",
    "parse_frame",
]

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


class AlState:
    """AL states as coded in AL control 0x0120 / AL status 0x0130 (low nibble)."""

    INIT = 0x01
    PREOP = 0x02
    BOOT = 0x03
    SAFEOP = 0x04
    OP = 0x08
    ERROR = 0x10  # AL status: error indication; AL control: error acknowledge

    NAMES = {0x01: "INIT", 0x02: "PRE-OP", 0x03: "BOOT", 0x04: "SAFE-OP", 0x08: "OP"}


class AlStatusCode:
    """AL status codes (register 0x0134) used by the emulator (ETG.1000.6 table 11)."""

    NO_ERROR = 0x0000
    UNSPECIFIED = 0x0001
    INVALID_STATE_CHANGE = 0x0011
    UNKNOWN_STATE = 0x0012
    BOOTSTRAP_NOT_SUPPORTED = 0x0013
    INVALID_MAILBOX_CONFIG_PREOP = 0x0016
    SM_WATCHDOG = 0x001B
    INVALID_OUTPUT_CONFIG = 0x001D
    INVALID_INPUT_CONFIG = 0x001E


class SdoAbort:
    """SDO abort codes (CiA 301 / ETG.1000.6) used by the CoE server."""

    TOGGLE = 0x05030000
    TIMEOUT = 0x05040000
    UNKNOWN_COMMAND = 0x05040001
    UNSUPPORTED_ACCESS = 0x06010000
    WRITE_ONLY = 0x06010001
    READ_ONLY = 0x06010002
    SUBINDEX0_NOT_ZERO = 0x06010003
    NO_OBJECT = 0x06020000
    NOT_MAPPABLE = 0x06040041
    PDO_LENGTH_EXCEEDED = 0x06040042
    PARAM_INCOMPATIBLE = 0x06040043
    TYPE_MISMATCH = 0x06070010
    LENGTH_TOO_HIGH = 0x06070012
    LENGTH_TOO_LOW = 0x06070013
    NO_SUBINDEX = 0x06090011
    VALUE_RANGE = 0x06090030
    VALUE_TOO_HIGH = 0x06090031
    VALUE_TOO_LOW = 0x06090032
    GENERAL = 0x08000000
    CANNOT_TRANSFER = 0x08000020
    CANNOT_TRANSFER_LOCAL = 0x08000021
    CANNOT_TRANSFER_STATE = 0x08000022


from paperlib.hardware.coe import SDO_ABORT_TEXT  # noqa: E402  (one table for master and emulator)

# --- register addresses -------------------------------------------------------------------
REG_TYPE = 0x0000
REG_REVISION = 0x0001
REG_BUILD = 0x0002
REG_FMMU_COUNT = 0x0004
REG_SM_COUNT = 0x0005
REG_RAM_SIZE = 0x0006
REG_PORT_DESC = 0x0007
REG_FEATURES = 0x0008
REG_STATION_ADDR = 0x0010
REG_STATION_ALIAS = 0x0012
REG_DL_CONTROL = 0x0100
REG_DL_STATUS = 0x0110
REG_AL_CONTROL = 0x0120
REG_AL_STATUS = 0x0130
REG_AL_STATUS_CODE = 0x0134
REG_PDI_CONTROL = 0x0140
REG_WD_DIVIDER = 0x0400
REG_WD_TIME_PDI = 0x0410
REG_WD_TIME_PD = 0x0420
REG_WD_STATUS_PD = 0x0440
REG_SII_CONFIG = 0x0500
REG_SII_CONTROL = 0x0502
REG_SII_ADDRESS = 0x0504
REG_SII_DATA = 0x0508
REG_FMMU0 = 0x0600
REG_SM0 = 0x0800
REG_DC_RECV_TIME_P0 = 0x0900
REG_DC_SYSTEM_TIME = 0x0910
REG_DC_RECV_TIME_EPU = 0x0918
REG_DC_SYSTEM_OFFSET = 0x0920
REG_DC_SYSTEM_DELAY = 0x0928
REG_DC_SYNC_ACTIVATION = 0x0981
REG_DC_SYNC0_CYCLE = 0x09A0

N_FMMU = 8
N_SM = 8
MEM_SIZE = 0x10000
REGISTER_END = 0x0F00  # 0x0F00.. (digital I/O) and 0x1000.. (process RAM) are plain memory

# SII control/status bits (register 0x0502)
SII_READ_8BYTE = 0x0040
SII_CMD_MASK = 0x0700
SII_CMD_READ = 0x0100
SII_CMD_WRITE = 0x0200
SII_CMD_RELOAD = 0x0400
SII_ERR_CMD = 0x2000

# mailbox types (mailbox header, low nibble of byte 5)
MBX_TYPE_ERR = 0x00
MBX_TYPE_COE = 0x03
MBX_ERR_UNSUPPORTED_PROTOCOL = 0x0002
MBX_ERR_INVALID_HEADER = 0x0005
MBX_ERR_SIZE_TOO_SHORT = 0x0006

# CoE services (CoE header bits 12..15)
COE_EMERGENCY = 0x01
COE_SDO_REQUEST = 0x02
COE_SDO_RESPONSE = 0x03
COE_SDO_INFO = 0x08

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
_DGRAM_HDR = struct.Struct("<BBHHHH")  # cmd, idx, adp, ado, len|flags, irq


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


# --- CoE object dictionary and SDO server -----------------------------------------------------

_TYPE_FORMATS: dict[str, tuple[str, int]] = {
    "bool": ("<B", 0x0001),
    "i8": ("<b", 0x0002),
    "i16": ("<h", 0x0003),
    "i32": ("<i", 0x0004),
    "u8": ("<B", 0x0005),
    "u16": ("<H", 0x0006),
    "u32": ("<I", 0x0007),
    "f32": ("<f", 0x0008),
    "i64": ("<q", 0x0015),
    "u64": ("<Q", 0x001B),
}


@dataclasses.dataclass
class OdEntry:
    """One object-dictionary entry (index:subindex).

    Attributes
    ----------
    index, subindex : int
        Address of the entry.
    dtype : str
        One of ``bool i8 i16 i32 u8 u16 u32 f32 i64 u64 str``.
    value : int, float or str
        Current value (for ``str``: the string; its encoded length is the object size).
    access : str
        ``"ro"``, ``"rw"`` or ``"wo"``.
    pdo_mappable : bool
        Whether the entry can be mapped into a PDO.
    name : str
        For error messages and SDO abort diagnostics.
    preop_only : bool
        Writable only in PRE-OP (PDO mapping and assignment objects).
    on_write : callable or None
        ``on_write(value) -> abort_code`` (0 = accepted) called before the value is stored.
    on_read : callable or None
        ``on_read() -> value`` for live values.
    """

    index: int
    subindex: int
    dtype: str
    value: Any
    access: str = "ro"
    pdo_mappable: bool = False
    name: str = ""
    preop_only: bool = False
    on_write: Callable[[Any], int] | None = None
    on_read: Callable[[], Any] | None = None

    @property
    def bit_length(self) -> int:
        """Size of the entry [bits]."""
        if self.dtype == "str":
            return 8 * len(str(self.get()).encode("ascii"))
        return 8 * struct.calcsize(_TYPE_FORMATS[self.dtype][0])

    def get(self) -> Any:
        """Current value (through ``on_read`` when set)."""
        return self.on_read() if self.on_read is not None else self.value

    def encode(self, value: Any | None = None) -> bytes:
        """Encode ``value`` (default: the current value) as little-endian bytes."""
        v = self.get() if value is None else value
        if self.dtype == "str":
            return str(v).encode("ascii")
        fmt = _TYPE_FORMATS[self.dtype][0]
        if self.dtype == "f32":
            return struct.pack(fmt, float(v))
        return struct.pack(fmt, int(v))

    def decode(self, raw: bytes) -> Any:
        """Decode raw little-endian bytes of exactly the object's size."""
        if self.dtype == "str":
            return raw.decode("ascii", errors="replace")
        return struct.unpack(_TYPE_FORMATS[self.dtype][0], raw)[0]


class ObjectDictionary:
    """A CoE object dictionary: ``(index, subindex) -> OdEntry``."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, int], OdEntry] = {}
        self._indices: set[int] = set()

    def add(self, entry: OdEntry) -> OdEntry:
        """Add (or replace) an entry and return it."""
        self._entries[(entry.index, entry.subindex)] = entry
        self._indices.add(entry.index)
        return entry

    def var(self, index: int, dtype: str, value: Any, access: str = "ro", **kw: Any) -> OdEntry:
        """Add a VAR object (subindex 0)."""
        return self.add(OdEntry(index, 0, dtype, value, access, **kw))

    def has_index(self, index: int) -> bool:
        """Whether any subindex of ``index`` exists."""
        return index in self._indices

    def get(self, index: int, subindex: int) -> OdEntry | None:
        """The entry, or None."""
        return self._entries.get((index, subindex))

    def __getitem__(self, key: tuple[int, int]) -> OdEntry:
        return self._entries[key]

    def value(self, index: int, subindex: int = 0) -> Any:
        """Current value of an entry."""
        return self._entries[(index, subindex)].get()

    def set(self, index: int, subindex: int, value: Any) -> None:
        """Set a value locally (device side, no access checks)."""
        self._entries[(index, subindex)].value = value


@dataclasses.dataclass
class AbortRule:
    """A configured SDO abort (fault injection): abort ``direction`` access to index:subindex."""

    index: int
    subindex: int
    code: int
    direction: str = "download"  # "download", "upload" or "both"


class CoeServer:
    """CoE SDO server on top of an :class:`ObjectDictionary`.

    Supports expedited and normal (non-segmented) upload and download. Aborts are sent as a
    CoE SDO *request* (service 2) with command 0x80 and the 32-bit abort code, as ETG.1000.6
    specifies; SOEM recognises exactly this and raises ``SdoError`` through pysoem.

    Parameters
    ----------
    od : ObjectDictionary
        The dictionary served.
    state_fn : callable
        Returns the current AL state (for PRE-OP-only objects).
    abort_rules : iterable of AbortRule
        Injected aborts, checked before any other rule.
    max_data : int
        Largest payload of a non-segmented transfer [bytes] (mailbox size minus 16).
    """

    def __init__(
        self,
        od: ObjectDictionary,
        state_fn: Callable[[], int],
        abort_rules: Iterable[AbortRule] = (),
        max_data: int = 112,
    ) -> None:
        self.od = od
        self.state_fn = state_fn
        self.abort_rules = list(abort_rules)
        self.max_data = max_data
        self.n_requests = 0
        self.n_aborts = 0

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _mbx(payload: bytes, cnt: int = 0) -> bytes:
        return struct.pack("<HHBB", len(payload), 0, 0, MBX_TYPE_COE | ((cnt & 7) << 4)) + payload

    def _abort(self, index: int, subindex: int, code: int) -> bytes:
        self.n_aborts += 1
        coe = _U16.pack(COE_SDO_REQUEST << 12)
        return self._mbx(coe + struct.pack("<BHBI", 0x80, index, subindex, code))

    def _injected(self, index: int, subindex: int, direction: str) -> int:
        for rule in self.abort_rules:
            if rule.index == index and rule.subindex == subindex and rule.direction in (direction, "both"):
                return rule.code
        return 0

    def _lookup(self, index: int, subindex: int) -> tuple[OdEntry | None, int]:
        if not self.od.has_index(index):
            return None, SdoAbort.NO_OBJECT
        entry = self.od.get(index, subindex)
        if entry is None:
            return None, SdoAbort.NO_SUBINDEX
        return entry, 0

    # -- request handling ----------------------------------------------------------------------
    def handle(self, coe: bytes) -> bytes:
        """Handle one CoE payload (after the 6-byte mailbox header); return the full response mailbox."""
        self.n_requests += 1
        if len(coe) < 10:
            return struct.pack("<HHBB", 4, 0, 0, MBX_TYPE_ERR) + struct.pack("<HH", 0x0001, MBX_ERR_SIZE_TOO_SHORT)
        service = _U16.unpack_from(coe, 0)[0] >> 12
        cmd, index, subindex = struct.unpack_from("<BHB", coe, 2)
        if service != COE_SDO_REQUEST:
            # SDO information and anything else: not supported by this device
            return struct.pack("<HHBB", 4, 0, 0, MBX_TYPE_ERR) + struct.pack(
                "<HH", 0x0001, MBX_ERR_UNSUPPORTED_PROTOCOL
            )
        if cmd & 0x10:  # complete access
            return self._abort(index, subindex, SdoAbort.UNSUPPORTED_ACCESS)
        ccs = cmd >> 5
        if ccs == 2:
            return self._upload(index, subindex)
        if ccs == 1:
            return self._download(cmd, index, subindex, coe)
        if ccs == 4:  # abort from the client: nothing to answer
            return b""
        return self._abort(index, subindex, SdoAbort.UNKNOWN_COMMAND)

    def _upload(self, index: int, subindex: int) -> bytes:
        code = self._injected(index, subindex, "upload")
        if code:
            return self._abort(index, subindex, code)
        entry, code = self._lookup(index, subindex)
        if entry is None:
            return self._abort(index, subindex, code)
        if entry.access == "wo":
            return self._abort(index, subindex, SdoAbort.WRITE_ONLY)
        raw = entry.encode()
        coe = _U16.pack(COE_SDO_RESPONSE << 12)
        if len(raw) <= 4:
            cmd = 0x43 | ((4 - len(raw)) << 2)  # initiate upload response, expedited, size indicated
            return self._mbx(coe + struct.pack("<BHB", cmd, index, subindex) + raw.ljust(4, b"\x00"))
        if len(raw) > self.max_data:
            return self._abort(index, subindex, SdoAbort.GENERAL)
        return self._mbx(coe + struct.pack("<BHBI", 0x41, index, subindex, len(raw)) + raw)

    def _download(self, cmd: int, index: int, subindex: int, coe: bytes) -> bytes:
        if cmd & 0x02:  # expedited
            n = 4 - ((cmd >> 2) & 0x03) if cmd & 0x01 else 4
            raw = bytes(coe[6 : 6 + n])
        else:
            if len(coe) < 10:
                return self._abort(index, subindex, SdoAbort.LENGTH_TOO_LOW)
            n = _U32.unpack_from(coe, 6)[0]
            raw = bytes(coe[10 : 10 + n])
            if len(raw) < n:  # would need segmented transfer
                return self._abort(index, subindex, SdoAbort.GENERAL)
        code = self._injected(index, subindex, "download")
        if code:
            return self._abort(index, subindex, code)
        entry, code = self._lookup(index, subindex)
        if entry is None:
            return self._abort(index, subindex, code)
        if entry.access == "ro":
            return self._abort(index, subindex, SdoAbort.READ_ONLY)
        if entry.preop_only and self.state_fn() != AlState.PREOP:
            return self._abort(index, subindex, SdoAbort.CANNOT_TRANSFER_STATE)
        if entry.dtype != "str":
            size = entry.bit_length // 8
            if len(raw) > size:
                return self._abort(index, subindex, SdoAbort.LENGTH_TOO_HIGH)
            if len(raw) < size:
                return self._abort(index, subindex, SdoAbort.LENGTH_TOO_LOW)
        value = entry.decode(raw)
        if entry.on_write is not None:
            code = entry.on_write(value)
            if code:
                return self._abort(index, subindex, code)
        entry.value = value
        coe_hdr = _U16.pack(COE_SDO_RESPONSE << 12)
        return self._mbx(coe_hdr + struct.pack("<BHBI", 0x60, index, subindex, 0))


# --- the slave controller ---------------------------------------------------------------------


class _Sm:
    __slots__ = ("index", "start", "length", "end", "control", "enabled", "mailbox", "ecat_writes", "full")

    def __init__(self, index: int) -> None:
        self.index = index
        self.start = 0
        self.length = 0
        self.end = 0
        self.control = 0
        self.enabled = False
        self.mailbox = False
        self.ecat_writes = False
        self.full = False


class _Fmmu:
    __slots__ = ("lbit0", "lbit1", "pbit0", "read", "write", "aligned", "lstart", "lend", "pstart")

    def __init__(self, raw: bytes) -> None:
        lstart, llen, lsb, leb, pstart, psb, ftype, _active = struct.unpack_from("<IHBBHBBB", raw)
        self.lbit0 = lstart * 8 + lsb
        self.lbit1 = (lstart + llen - 1) * 8 + leb + 1  # exclusive
        self.pbit0 = pstart * 8 + psb
        self.read = bool(ftype & 0x01)
        self.write = bool(ftype & 0x02)
        self.aligned = lsb == 0 and leb == 7 and psb == 0
        self.lstart, self.lend, self.pstart = lstart, lstart + llen, pstart


class EscSlave:
    """One emulated EtherCAT slave controller plus the hooks of its application.

    Subclasses (the devices) override :meth:`check_transition`, :meth:`on_state_change`,
    :meth:`on_outputs`, :meth:`on_mailbox` and :meth:`tick`.

    Parameters
    ----------
    sii : SiiImage
        The EEPROM content (identity, mailbox, categories).
    eeprom_8byte : bool
        Whether SII reads return 8 bytes (status bit 6 of 0x0502) instead of 4.
    dc : bool
        Whether the ESC reports distributed clocks (feature register 0x0008 bit 2).
    esc_type : int
        Value of register 0x0000.
    name : str
        For logs.
    refuse_states : dict, optional
        Fault injection: ``{state: AL status code}`` -- upward transitions into ``state``
        (1, 2, 4, 8 or "INIT", "PRE-OP", "SAFE-OP", "OP") are refused with that code.
    """

    def __init__(
        self,
        sii: SiiImage,
        *,
        eeprom_8byte: bool = True,
        dc: bool = True,
        esc_type: int = 0x11,
        name: str = "",
        refuse_states: dict[Any, int] | None = None,
    ) -> None:
        self.sii_info = sii
        self.sii = bytearray(build_sii(sii))
        self.eeprom_8byte = eeprom_8byte
        self.has_dc = dc
        self.esc_type = esc_type
        by_name = {v: k for k, v in AlState.NAMES.items()}
        self.refuse_states = {
            (by_name[k] if isinstance(k, str) and k in by_name else int(k)): int(v)
            for k, v in (refuse_states or {}).items()
        }
        self.name = name or (sii.strings[0] if sii.strings else "slave")
        self.mem = bytearray(MEM_SIZE)
        self._ro = bytearray(REGISTER_END)  # 1 = read-only from the EtherCAT side
        self.sms = [_Sm(i) for i in range(N_SM)]
        self._active_sms: list[_Sm] = []
        self.fmmus: list[_Fmmu] = []
        self.events: list[tuple[Any, ...]] = []
        self._outbox: deque[bytes] = deque()
        self.al_state = AlState.INIT
        self.al_error = False
        self.al_code = 0
        self.last_output_time: float | None = None
        self.downstream_loop_ns = 0
        self.has_downstream = False
        self._clock_offset_ns = int.from_bytes(os.urandom(4), "little") * 1000
        self._t0_ns = time.monotonic_ns()
        self.counters = {"frames": 0, "mbx_in": 0, "mbx_out": 0, "outputs": 0}
        self._init_registers()

    # -- registers -----------------------------------------------------------------------------
    def _init_registers(self) -> None:
        m = self.mem
        m[REG_TYPE] = self.esc_type
        m[REG_REVISION] = 0x02
        m[REG_BUILD : REG_BUILD + 2] = _U16.pack(0x0003)
        m[REG_FMMU_COUNT] = N_FMMU
        m[REG_SM_COUNT] = N_SM
        m[REG_RAM_SIZE] = 8  # kB
        m[REG_PORT_DESC] = 0x0F  # port 0 and 1: MII
        m[REG_FEATURES : REG_FEATURES + 2] = _U16.pack(0x000C if self.has_dc else 0x0000)
        m[REG_PDI_CONTROL] = self.sii_info.pdi_control & 0xFF
        m[REG_WD_DIVIDER : REG_WD_DIVIDER + 2] = _U16.pack(2498)  # 100 us watchdog ticks
        m[REG_WD_TIME_PDI : REG_WD_TIME_PDI + 2] = _U16.pack(1000)
        m[REG_WD_TIME_PD : REG_WD_TIME_PD + 2] = _U16.pack(1000)  # 100 ms
        for a in range(0x0000, 0x0010):
            self._ro[a] = 1
        for a in (
            list(range(REG_DL_STATUS, REG_DL_STATUS + 2))
            + list(range(REG_AL_STATUS, REG_AL_STATUS + 6))
            + list(range(REG_PDI_CONTROL, REG_PDI_CONTROL + 2))
            + list(range(REG_WD_STATUS_PD, REG_WD_STATUS_PD + 2))
            + list(range(REG_DC_SYSTEM_TIME, REG_DC_SYSTEM_TIME + 8))
            + list(range(REG_DC_RECV_TIME_EPU, REG_DC_RECV_TIME_EPU + 8))
        ):
            self._ro[a] = 1
        for n in range(N_SM):
            self._ro[REG_SM0 + 8 * n + 5] = 1  # status
            self._ro[REG_SM0 + 8 * n + 7] = 1  # PDI control
        self._sii_status(0)
        self._publish_al()

    def set_topology(self, has_downstream: bool, loop_ns: int) -> None:
        """Set DL status (0x0110) for the slave's place in the chain (called by :class:`EscChain`)."""
        self.has_downstream = has_downstream
        self.downstream_loop_ns = loop_ns
        # bit 0 PDI operational, bit 1 PDI watchdog ok, bit 4/5 physical link port 0/1,
        # bits 8-15: per port (loop closed, communication): 0b10 = open with communication,
        # 0b01 = loop closed, no communication.
        dl = 0x0003 | 0x0010 | 0x0200 | 0x1000 | 0x4000
        dl |= (0x0020 | 0x0800) if has_downstream else 0x0400
        self.mem[REG_DL_STATUS : REG_DL_STATUS + 2] = _U16.pack(dl)

    @property
    def station_address(self) -> int:
        """Configured station address (register 0x0010)."""
        return self.mem[REG_STATION_ADDR] | (self.mem[REG_STATION_ADDR + 1] << 8)

    def local_time_ns(self) -> int:
        """The ESC's local clock [ns] (free-running, arbitrary origin)."""
        return time.monotonic_ns() - self._t0_ns + self._clock_offset_ns

    def u16(self, addr: int) -> int:
        """Read a little-endian u16 from the memory (device side)."""
        return self.mem[addr] | (self.mem[addr + 1] << 8)

    # -- physical access (ECAT side) ---------------------------------------------------------
    def phys_read(self, addr: int, n: int) -> bytes | None:
        """ECAT read of ``n`` bytes at ``addr``; None if the ESC refuses (no WKC increment)."""
        end = addr + n
        clear_sm: _Sm | None = None
        for sm in self._active_sms:
            if addr < sm.end and end > sm.start:
                if sm.mailbox:
                    if sm.ecat_writes or not sm.full or self.al_state < AlState.PREOP:
                        return None
                    if end >= sm.end:
                        clear_sm = sm
                elif sm.ecat_writes or self.al_state < AlState.SAFEOP:
                    return None
        if addr < REGISTER_END and addr < REG_DC_SYSTEM_TIME + 8 and end > REG_DC_SYSTEM_TIME:
            self.mem[REG_DC_SYSTEM_TIME : REG_DC_SYSTEM_TIME + 8] = _U64.pack(self._system_time() & (2**64 - 1))
        data = bytes(self.mem[addr:end])
        if clear_sm is not None:
            self._set_full(clear_sm, False)
            if self._outbox:
                self._post(self._outbox.popleft())
        return data

    def phys_write(self, addr: int, data: bytes | memoryview) -> bool:
        """ECAT write at ``addr``; False if the ESC refuses (no WKC increment)."""
        n = len(data)
        end = addr + n
        event: tuple[Any, ...] | None = None
        for sm in self._active_sms:
            if addr < sm.end and end > sm.start:
                if sm.mailbox:
                    if not sm.ecat_writes or sm.full or self.al_state < AlState.PREOP:
                        return False
                    if end >= sm.end:
                        event = ("mbx", sm.index)
                else:
                    if not sm.ecat_writes or self.al_state < AlState.SAFEOP:
                        return False
                    if end >= sm.end:
                        event = ("out", sm.index)
        if addr < REGISTER_END:
            self._register_write(addr, data)
        else:
            self.mem[addr:end] = data
        if event is not None:
            if event[0] == "mbx":
                self._set_full(self.sms[event[1]], True)
            else:
                self.last_output_time = time.monotonic()
            self.events.append(event)
        return True

    def _register_write(self, addr: int, data: bytes | memoryview) -> None:
        end = min(addr + len(data), REGISTER_END)
        ro = self._ro
        if any(ro[addr:end]):
            for i in range(addr, end):
                if not ro[i]:
                    self.mem[i] = data[i - addr]
        else:
            self.mem[addr:end] = data[: end - addr]
        if addr + len(data) > REGISTER_END:
            self.mem[REGISTER_END : addr + len(data)] = data[REGISTER_END - addr :]
        # side effects
        if addr < REG_AL_CONTROL + 2 and end > REG_AL_CONTROL:
            self._al_control_written()
        if addr < REG_SII_CONTROL + 2 and end > REG_SII_CONTROL:
            self._sii_command()
        if addr < REG_FMMU0 + 16 * N_FMMU and end > REG_FMMU0:
            self._rebuild_fmmus()
        if addr < REG_SM0 + 8 * N_SM and end > REG_SM0:
            self._rebuild_sms()
        if addr <= REG_DC_RECV_TIME_P0 < end:
            self._latch_receive_times()

    # -- SII -------------------------------------------------------------------------------------
    def _sii_status(self, extra: int) -> None:
        status = (SII_READ_8BYTE if self.eeprom_8byte else 0) | extra
        self.mem[REG_SII_CONTROL : REG_SII_CONTROL + 2] = _U16.pack(status)

    def _sii_command(self) -> None:
        ctl = self.u16(REG_SII_CONTROL)
        cmd = ctl & SII_CMD_MASK
        if cmd == SII_CMD_READ:
            word = _U32.unpack_from(self.mem, REG_SII_ADDRESS)[0]
            n = 8 if self.eeprom_8byte else 4
            start = 2 * word
            chunk = bytes(self.sii[start : start + n]).ljust(n, b"\xff")
            self.mem[REG_SII_DATA : REG_SII_DATA + n] = chunk
            self._sii_status(0)
        elif cmd == SII_CMD_WRITE:
            word = _U32.unpack_from(self.mem, REG_SII_ADDRESS)[0]
            if 2 * word + 2 <= len(self.sii):
                self.sii[2 * word : 2 * word + 2] = self.mem[REG_SII_DATA : REG_SII_DATA + 2]
            self._sii_status(0)
        elif cmd == SII_CMD_RELOAD or cmd == 0:
            self._sii_status(0)
        else:
            self._sii_status(SII_ERR_CMD)

    # -- FMMU / SM -------------------------------------------------------------------------------
    def _rebuild_fmmus(self) -> None:
        fmmus = []
        for n in range(N_FMMU):
            raw = bytes(self.mem[REG_FMMU0 + 16 * n : REG_FMMU0 + 16 * n + 16])
            if raw[12] & 0x01 and raw[11] & 0x03:
                f = _Fmmu(raw)
                if f.lbit1 > f.lbit0:
                    fmmus.append(f)
        self.fmmus = fmmus

    def _rebuild_sms(self) -> None:
        active = []
        for sm in self.sms:
            base = REG_SM0 + 8 * sm.index
            sm.start = self.u16(base)
            sm.length = self.u16(base + 2)
            sm.end = sm.start + sm.length
            sm.control = self.mem[base + 4]
            sm.enabled = bool(self.mem[base + 6] & 0x01) and sm.length > 0
            sm.mailbox = (sm.control & 0x03) == 0x02
            sm.ecat_writes = ((sm.control >> 2) & 0x03) == 0x01
            if sm.enabled:
                active.append(sm)
            elif sm.full:
                self._set_full(sm, False)
        self._active_sms = active

    def _set_full(self, sm: _Sm, full: bool) -> None:
        sm.full = full
        status_addr = REG_SM0 + 8 * sm.index + 5
        if full:
            self.mem[status_addr] |= 0x08
        else:
            self.mem[status_addr] &= ~0x08 & 0xFF

    # -- DC ----------------------------------------------------------------------------------------
    def _system_time(self) -> int:
        offset = _I64.unpack_from(self.mem, REG_DC_SYSTEM_OFFSET)[0]
        return self.local_time_ns() + offset

    def _latch_receive_times(self) -> None:
        t = self.local_time_ns()
        t_back = t + self.downstream_loop_ns if self.has_downstream else 0
        self.mem[REG_DC_RECV_TIME_P0 : REG_DC_RECV_TIME_P0 + 16] = struct.pack(
            "<IIII", t & 0xFFFFFFFF, t_back & 0xFFFFFFFF, 0, 0
        )
        self.mem[REG_DC_RECV_TIME_EPU : REG_DC_RECV_TIME_EPU + 8] = _U64.pack(t & (2**64 - 1))

    # -- AL state machine --------------------------------------------------------------------------
    def _publish_al(self) -> None:
        status = self.al_state | (AlState.ERROR if self.al_error else 0)
        self.mem[REG_AL_STATUS : REG_AL_STATUS + 2] = _U16.pack(status)
        self.mem[REG_AL_STATUS_CODE : REG_AL_STATUS_CODE + 2] = _U16.pack(self.al_code)

    def _al_control_written(self) -> None:
        ctl = self.u16(REG_AL_CONTROL)
        requested = ctl & 0x0F
        ack = bool(ctl & AlState.ERROR)
        if self.al_error:
            if not ack:
                return  # a pending error must be acknowledged first
            self.al_error = False
            self.al_code = 0
        self.request_state(requested)
        self._publish_al()

    def request_state(self, requested: int) -> None:
        """Apply an AL state request (as if written to AL control), with the ESC's rules."""
        current = self.al_state
        if requested == current:
            return
        if requested not in AlState.NAMES:
            self._al_fail(AlStatusCode.UNKNOWN_STATE)
            return
        if requested == AlState.BOOT:
            self._al_fail(AlStatusCode.BOOTSTRAP_NOT_SUPPORTED)
            return
        upward = {AlState.INIT: AlState.PREOP, AlState.PREOP: AlState.SAFEOP, AlState.SAFEOP: AlState.OP}
        if requested > current and upward.get(current) != requested:
            self._al_fail(AlStatusCode.INVALID_STATE_CHANGE)
            return
        if requested > current:
            code = self.refuse_states.get(requested, 0)
            code = code or (self._check_mailbox_config() if requested == AlState.PREOP else 0)
            code = code or self.check_transition(current, requested)
            if code:
                self._al_fail(code)
                return
        self._enter(requested)

    def _al_fail(self, code: int) -> None:
        self.al_error = True
        self.al_code = code
        self._publish_al()

    def _enter(self, new: int) -> None:
        old = self.al_state
        self.al_state = new
        if new == AlState.INIT:
            self._outbox.clear()
            for sm in self.sms:
                if sm.full:
                    self._set_full(sm, False)
        self._publish_al()
        self.on_state_change(old, new)

    def fall_back(self, state: int, code: int) -> None:
        """Device-initiated state change with error indication (e.g. SM watchdog)."""
        if self.al_state > state:
            self._enter(state)
        self._al_fail(code)

    def _check_mailbox_config(self) -> int:
        rx_off, rx_len = self.sii_info.rx_mailbox
        tx_off, tx_len = self.sii_info.tx_mailbox
        if not rx_len:
            return 0
        sm0, sm1 = self.sms[0], self.sms[1]
        ok0 = sm0.enabled and sm0.mailbox and sm0.ecat_writes and sm0.start == rx_off and sm0.length == rx_len
        ok1 = sm1.enabled and sm1.mailbox and not sm1.ecat_writes and sm1.start == tx_off and sm1.length == tx_len
        return 0 if (ok0 and ok1) else AlStatusCode.INVALID_MAILBOX_CONFIG_PREOP

    def check_sm(self, index: int, start: int, length: int, outputs: bool) -> bool:
        """Whether SM ``index`` is configured for a process-data buffer of ``length`` bytes at ``start``."""
        sm = self.sms[index]
        if length == 0:
            return not sm.enabled
        return (
            sm.enabled
            and not sm.mailbox
            and sm.ecat_writes == outputs
            and sm.start == start
            and sm.length == length
        )

    def watchdog_time_s(self) -> float:
        """Process-data watchdog time from registers 0x0400/0x0420 [s] (0 = disabled)."""
        divider = self.u16(REG_WD_DIVIDER)
        return self.u16(REG_WD_TIME_PD) * (divider + 2) * 40e-9

    # -- mailbox -------------------------------------------------------------------------------
    def _post(self, mbx: bytes) -> None:
        sm1 = self.sms[1]
        if not (sm1.enabled and sm1.mailbox):
            return
        if sm1.full:
            self._outbox.append(mbx)
            return
        payload = mbx[: sm1.length].ljust(sm1.length, b"\x00")
        self.mem[sm1.start : sm1.end] = payload
        self.counters["mbx_out"] += 1
        self._set_full(sm1, True)

    def run_pending(self, now: float) -> None:
        """Run the application on the events queued by the last frame (after it was answered)."""
        events, self.events = self.events, []
        for ev in events:
            if ev[0] == "mbx":
                sm = self.sms[ev[1]]
                if not sm.full:
                    continue
                request = bytes(self.mem[sm.start : sm.end])
                self._set_full(sm, False)
                self.counters["mbx_in"] += 1
                response = self.on_mailbox(request)
                if response:
                    self._post(response)
            elif ev[0] == "out":
                self.counters["outputs"] += 1
                self.on_outputs(ev[1], now)

    # -- application hooks (override in devices) -------------------------------------------------
    def check_transition(self, old: int, new: int) -> int:
        """Return an AL status code to refuse an upward transition, 0 to accept it."""
        return 0

    def on_state_change(self, old: int, new: int) -> None:
        """Called after the AL state changed."""

    def on_outputs(self, sm_index: int, now: float) -> None:
        """Called when the master completed a write of the output SyncManager ``sm_index``."""

    def on_mailbox(self, request: bytes) -> bytes | None:
        """Handle a mailbox request (full SM0 buffer); return the response mailbox or None."""
        return struct.pack("<HHBB", 4, 0, 0, MBX_TYPE_ERR) + struct.pack("<HH", 0x0001, MBX_ERR_UNSUPPORTED_PROTOCOL)

    def tick(self, now: float) -> None:
        """Periodic housekeeping (watchdogs, idle plant steps)."""

    def stalled(self, gap_s: float) -> None:
        """The emulator itself was not scheduled for ``gap_s`` [s]: do not count it against the master.

        Real ESCs do not freeze together with the process that emulates them, so the SM
        watchdog is credited with the stall.
        """
        if self.last_output_time is not None:
            self.last_output_time += gap_s

    # -- datagram processing -------------------------------------------------------------------
    def logical(self, cmd: int, laddr: int, buf: bytearray, pos: int, n: int, incoming: bytes) -> int:
        """Process a logical datagram through the FMMUs; return the WKC increment.

        Parameters
        ----------
        cmd : int
            LRD, LWR or LRW.
        laddr : int
            Logical start address of the datagram.
        buf : bytearray
            The frame; the datagram data start at ``pos`` and are ``n`` bytes long.
        incoming : bytes
            The datagram data as they arrived at this slave (written data come from here).
        """
        if not self.fmmus:
            return 0
        lo_bit = laddr * 8
        hi_bit = (laddr + n) * 8
        reads: list[tuple[int, bytes, int, int]] = []
        did_read = did_write = False
        want_read = cmd != Cmd.LWR
        want_write = cmd != Cmd.LRD
        for f in self.fmmus:
            b0 = max(lo_bit, f.lbit0)
            b1 = min(hi_bit, f.lbit1)
            if b0 >= b1:
                continue
            pb0 = f.pbit0 + (b0 - f.lbit0)
            if f.aligned or (b0 % 8 == 0 and b1 % 8 == 0 and pb0 % 8 == 0):
                fo = (b0 - lo_bit) // 8  # offset in datagram
                pa = pb0 // 8
                nb = (b1 - b0) // 8
                if f.read and want_read:
                    data = self.phys_read(pa, nb)
                    if data is not None:
                        reads.append((fo, data, -1, -1))
                        did_read = True
                if f.write and want_write:
                    if self.phys_write(pa, incoming[fo : fo + nb]):
                        did_write = True
            else:
                pa0 = pb0 // 8
                pa1 = (pb0 + (b1 - b0) + 7) // 8
                if f.read and want_read:
                    data = self.phys_read(pa0, pa1 - pa0)
                    if data is not None:
                        reads.append((b0 - lo_bit, data, pb0 - pa0 * 8, b1 - b0))
                        did_read = True
                if f.write and want_write:
                    cur = bytearray(self.mem[pa0:pa1])
                    for k in range(b1 - b0):
                        src = (b0 - lo_bit) + k
                        bit = (incoming[src >> 3] >> (src & 7)) & 1
                        dst = (pb0 - pa0 * 8) + k
                        if bit:
                            cur[dst >> 3] |= 1 << (dst & 7)
                        else:
                            cur[dst >> 3] &= ~(1 << (dst & 7)) & 0xFF
                    if self.phys_write(pa0, bytes(cur)):
                        did_write = True
        for fo, data, pbit, nbits in reads:
            if nbits < 0:
                buf[pos + fo : pos + fo + len(data)] = data
            else:
                for k in range(nbits):
                    srcb = pbit + k
                    bit = (data[srcb >> 3] >> (srcb & 7)) & 1
                    dst = fo + k
                    byte_index = pos + (dst >> 3)
                    if bit:
                        buf[byte_index] |= 1 << (dst & 7)
                    else:
                        buf[byte_index] &= ~(1 << (dst & 7)) & 0xFF
        if cmd == Cmd.LRW:
            return (1 if did_read else 0) + (2 if did_write else 0)
        return 1 if (did_read or did_write) else 0


# --- the chain and the frame processing --------------------------------------------------------


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


class EscChain:
    """A line of emulated slaves, in wiring order, that processes frames like the real chain.

    Parameters
    ----------
    slaves : sequence of EscSlave
        First element = first slave after the master.
    hop_ns : int
        Modelled forwarding + cable delay per slave and direction [ns] (for the DC receive times).
    """

    def __init__(self, slaves: Sequence[EscSlave], hop_ns: int = 600) -> None:
        self.slaves = list(slaves)
        n = len(self.slaves)
        for k, s in enumerate(self.slaves):
            downstream = n - 1 - k
            s.set_topology(downstream > 0, 2 * hop_ns * downstream)
        self.frames = 0
        self.pd_frames = 0

    def process_frame(self, frame: bytes | bytearray) -> bytes | None:
        """Pass a frame through every slave; return the frame as it comes back to the master."""
        dgrams = parse_frame(frame)
        if dgrams is None:
            return None
        buf = bytearray(frame)
        self.frames += 1
        for slave in self.slaves:
            for pos, cmd, data, n in dgrams:
                self._datagram(slave, buf, pos, cmd, data, n)
        buf[6] |= 0x02  # the first ESC port sets the locally-administered bit of the source MAC
        return bytes(buf)

    @staticmethod
    def _datagram(slave: EscSlave, buf: bytearray, pos: int, cmd: int, data: int, n: int) -> None:
        wkc_pos = data + n
        inc = 0
        if cmd in (Cmd.LRW, Cmd.LRD, Cmd.LWR):
            laddr = _U32.unpack_from(buf, pos + 2)[0]
            inc = slave.logical(cmd, laddr, buf, data, n, bytes(buf[data : data + n]))
        elif cmd == Cmd.NOP:
            return
        else:
            adp, ado = struct.unpack_from("<HH", buf, pos + 2)
            if cmd in (Cmd.APRD, Cmd.APWR, Cmd.APRW, Cmd.ARMW, Cmd.BRD, Cmd.BWR, Cmd.BRW):
                _U16.pack_into(buf, pos + 2, (adp + 1) & 0xFFFF)
            if cmd in (Cmd.APRD, Cmd.APWR, Cmd.APRW):
                addressed = adp == 0
            elif cmd in (Cmd.FPRD, Cmd.FPWR, Cmd.FPRW):
                addressed = adp == slave.station_address
            elif cmd in (Cmd.BRD, Cmd.BWR, Cmd.BRW):
                addressed = True
            elif cmd == Cmd.ARMW:
                addressed = adp == 0
            elif cmd == Cmd.FRMW:
                addressed = adp == slave.station_address
            else:
                return
            if cmd in (Cmd.ARMW, Cmd.FRMW):
                if addressed:
                    got = slave.phys_read(ado, n)
                    if got is not None:
                        buf[data:wkc_pos] = got
                        inc = 1
                elif slave.phys_write(ado, bytes(buf[data:wkc_pos])):
                    inc = 1
            elif addressed:
                if cmd in (Cmd.APRD, Cmd.FPRD, Cmd.BRD):
                    got = slave.phys_read(ado, n)
                    if got is not None:
                        if cmd == Cmd.BRD:
                            buf[data:wkc_pos] = bytes(a | b for a, b in zip(buf[data:wkc_pos], got))
                        else:
                            buf[data:wkc_pos] = got
                        inc = 1
                elif cmd in (Cmd.APWR, Cmd.FPWR, Cmd.BWR):
                    if slave.phys_write(ado, bytes(buf[data:wkc_pos])):
                        inc = 1
                else:  # read-write
                    incoming = bytes(buf[data:wkc_pos])
                    got = slave.phys_read(ado, n)
                    wrote = slave.phys_write(ado, incoming)
                    if got is not None:
                        buf[data:wkc_pos] = bytes(a | b for a, b in zip(incoming, got)) if cmd == Cmd.BRW else got
                    inc = (1 if got is not None else 0) + (2 if wrote else 0)
        if inc:
            _U16.pack_into(buf, wkc_pos, (_U16.unpack_from(buf, wkc_pos)[0] + inc) & 0xFFFF)

    def run_pending(self, now: float) -> None:
        """Run every slave's application on the events of the last frame."""
        for s in self.slaves:
            if s.events:
                s.run_pending(now)

    def tick(self, now: float) -> None:
        """Periodic housekeeping of every slave."""
        for s in self.slaves:
            s.tick(now)

    def stalled(self, gap_s: float) -> None:
        """Tell every slave that the emulator process was descheduled for ``gap_s`` [s]."""
        for s in self.slaves:
            s.stalled(gap_s)


# --- raw-socket server -------------------------------------------------------------------------


@dataclasses.dataclass
class FrameFaults:
    """Frame-level fault injection (counted on process-data frames, i.e. frames with LRD/LWR/LRW).

    Attributes
    ----------
    drop_every_n : int
        Drop every n-th process-data frame (0 = never): sporadic frame loss.
    drop_after_n_pd : int or None
        After this many process-data frames, drop every frame ...
    drop_count : int or None
        ... this many frames (None = forever, i.e. a cable pulled).
    exit_after_n_pd : int or None
        After this many process-data frames the emulator process exits abruptly (crash).
    pause_after_n_pd : int or None
        After this many process-data frames the emulator stops serving for ``pause_s`` (once):
        a slave or link that goes quiet for a while.
    pause_s : float
        Length of that pause [s].
    queue_frames : bool
        Answer every frame that queued up during a pause, oldest first, like a store-and-forward
        device would (default False: a real ESC never queues; only the newest process-data frame
        is answered). With True the master receives late replies to frames it gave up on: the
        stale-reply case of :mod:`paperlib.hardware.ethercat`.
    """

    drop_every_n: int = 0
    drop_after_n_pd: int | None = None
    drop_count: int | None = None
    exit_after_n_pd: int | None = None
    pause_after_n_pd: int | None = None
    pause_s: float = 0.01
    queue_frames: bool = False
    dropped: int = 0
    _burst_dropped: int = 0

    def should_drop(self, is_pd: bool, pd_count: int) -> bool:
        """Decide on one received frame.

        Parameters
        ----------
        is_pd : bool
            Whether the frame carries process data.
        pd_count : int
            Process-data frames received so far, this one included.
        """
        burst = self.drop_after_n_pd is not None and pd_count > self.drop_after_n_pd
        if burst and (self.drop_count is None or self._burst_dropped < self.drop_count):
            self._burst_dropped += 1
            self.dropped += 1
            return True
        if is_pd and self.drop_every_n and pd_count % self.drop_every_n == 0:
            self.dropped += 1
            return True
        return False


def _is_pd(frame: bytes) -> bool:
    # first datagram command is at offset 16
    return len(frame) > 16 and frame[16] in (Cmd.LRD, Cmd.LWR, Cmd.LRW)


def serve(
    chain: EscChain,
    ifname: str,
    *,
    faults: FrameFaults | None = None,
    stop: Callable[[], bool] = lambda: False,
    on_ready: Callable[[], None] | None = None,
    tick_period_s: float = 0.002,
) -> dict[str, int]:
    """Serve a chain on a raw socket bound to ``ifname`` until ``stop()`` is true.

    Parameters
    ----------
    chain : EscChain
        The emulated slaves.
    ifname : str
        Interface (in the current network namespace) the master's frames arrive on.
    faults : FrameFaults, optional
        Frame-level fault injection.
    stop : callable
        Polled at least every ``tick_period_s``.
    on_ready : callable, optional
        Called once the socket is bound.
    tick_period_s : float
        Housekeeping period [s] (watchdogs, idle plant steps).

    Returns
    -------
    dict
        Counters: frames received, answered, dropped, process-data frames, superseded process-data
        frames (queued behind a newer one after a pause of this process: not answered), ...
    """
    faults = faults or FrameFaults()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE_ECAT))
    stats: dict[str, Any] = {"received": 0, "answered": 0, "dropped": 0, "pd_frames": 0, "superseded": 0, "stalls": 0,
                             "max_reply_us": 0.0, "slow_replies": 0, "max_app_us": 0.0, "slow_apps": 0,
                             "max_wake_gap_ms": 0.0}
    stall_limit = max(0.02, 10 * tick_period_s)
    peek: socket.socket | None = None
    try:
        sock.bind((ifname, ETHERTYPE_ECAT))
        sock.settimeout(tick_period_s)
        # the same socket without a timeout, to look ahead in its queue without waiting
        peek = socket.socket(fileno=os.dup(sock.fileno()))
        peek.setblocking(False)
        if on_ready is not None:
            on_ready()
        last_tick = last_wake = time.monotonic()
        outgoing = socket.PACKET_OUTGOING
        pending_frames: list[bytes] = []  # a non-process-data frame read while looking ahead
        while not stop():
            if pending_frames:
                frame, addr = pending_frames.pop(0), (ifname, 0, socket.PACKET_HOST)
            else:
                try:
                    frame, addr = sock.recvfrom(2048)
                except (socket.timeout, InterruptedError):
                    frame = None
            now = time.monotonic()
            # the loop wakes at least every tick period; a longer gap means this process was
            # descheduled (CPU contention), not that the master went silent
            gap = now - last_wake - tick_period_s
            if gap + tick_period_s > stats["max_wake_gap_ms"] * 1e-3:
                stats["max_wake_gap_ms"] = (gap + tick_period_s) * 1e3
            last_wake = now
            if gap > stall_limit:
                stats["stalls"] += 1
                chain.stalled(gap)
            if frame is None:
                chain.tick(now)
                last_tick = now
                continue
            if addr[2] == outgoing:
                continue
            stats["received"] += 1
            is_pd = _is_pd(frame)
            if is_pd and not faults.queue_frames:
                # A real ESC processes a frame as it passes and never queues one: after this
                # process was descheduled, process-data frames that waited in the socket are
                # superseded by a newer one behind them, and only the newest is answered (the
                # master counts the others as lost, as it would on a wire that dropped them).
                while True:
                    try:
                        nxt, naddr = peek.recvfrom(2048)
                    except (BlockingIOError, InterruptedError):
                        break
                    if naddr[2] == outgoing:
                        continue
                    stats["received"] += 1
                    if _is_pd(nxt):
                        stats["superseded"] += 1
                        stats["pd_frames"] += 1
                        frame = nxt
                    else:
                        pending_frames.append(nxt)
                        break
            if is_pd:
                stats["pd_frames"] += 1
                if faults.exit_after_n_pd is not None and stats["pd_frames"] > faults.exit_after_n_pd:
                    os._exit(3)
                if (faults.pause_after_n_pd is not None and "paused_s" not in stats
                        and stats["pd_frames"] >= faults.pause_after_n_pd):
                    time.sleep(faults.pause_s)
                    stats["paused_s"] = faults.pause_s
            if faults.should_drop(is_pd, stats["pd_frames"]):
                stats["dropped"] += 1
                if now - last_tick >= tick_period_s:  # the devices go on while frames are lost
                    chain.tick(now)
                    last_tick = now
                continue
            reply = chain.process_frame(frame)
            if reply is not None:
                sock.send(reply)
                stats["answered"] += 1
            t_rx = now
            now = time.monotonic()
            dt_reply = now - t_rx  # receive -> reply sent (timing statistics of the emulator itself)
            if dt_reply > 250e-6:
                stats["slow_replies"] += 1
            if dt_reply * 1e6 > stats["max_reply_us"]:
                stats["max_reply_us"] = dt_reply * 1e6
            chain.run_pending(now)
            if now - last_tick >= tick_period_s:
                chain.tick(now)
                last_tick = now
            dt_app = time.monotonic() - now
            if dt_app > 250e-6:
                stats["slow_apps"] += 1
            if dt_app * 1e6 > stats["max_app_us"]:
                stats["max_app_us"] = dt_app * 1e6
    finally:
        if peek is not None:
            peek.close()
        sock.close()
    return stats
