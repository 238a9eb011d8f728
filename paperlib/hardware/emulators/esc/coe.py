"""Mailbox and CANopen over EtherCAT (CoE): SDO abort codes, object dictionary, SDO server.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any, Callable, Iterable

from paperlib.hardware.coe import SDO_ABORT_TEXT  # noqa: F401  (one table for master and emulator)

from .registers import _U16, _U32, AlState

__all__ = ["SdoAbort", "SDO_ABORT_TEXT", "OdEntry", "ObjectDictionary", "AbortRule", "CoeServer"]

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
