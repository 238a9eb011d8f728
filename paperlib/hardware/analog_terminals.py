"""Analog input terminals on the EtherCAT chain: a strain-gauge bridge (EL3356 class) and an RTD (EL3202 class).

What the master knows of the two terminal classes (from Beckhoff's public object descriptions;
the emulators, :mod:`paperlib.hardware.emulators.bridge_terminal` and
:mod:`~paperlib.hardware.emulators.rtd_terminal`, implement the same objects):

EL3356 (one resistor measuring bridge, "RMB"), default process data
    TxPDO 0x1A00 "RMB Status" = the 16 BOOLEAN entries 0x6000:01..0x6000:10 (bit ``k - 1`` is
    sub-index ``k``: 0x6000:02 overrange, :04 data invalid, :07 error, :08 calibration in
    progress, :09 steady state, :0E sync error, :10 TxPDO toggle), then TxPDO 0x1A01
    0x6000:11 "Value" (INT32); RxPDO 0x1600 "RMB Control" = 0x7000:01..:10 (bit 4 = 0x7000:05
    "Tara": the terminal tares on its rising edge). Settings 0x8000 "RMB Settings": :01 mode 0
    enable filter (BOOLEAN), :11 mode 0 filter (UINT16: 0 FIR 50 Hz, 1 FIR 60 Hz, 2..9 IIR 1..8,
    10 dynamic IIR), :23 nominal characteristic value [mV/V] (REAL32), :24 nominal load (REAL32,
    the rig's unit), :25 zero balance [mV/V] (REAL32), :27 scale factor (REAL32, default 1000).
    The value is ``(U_d / U_ref - zero balance) / nominal characteristic * nominal load * scale
    factor`` minus the tare, so the master divides it by the scale factor to get the load in the
    unit of the nominal load (here N m or N). Local gravity 0x8000:26 is left at its default.

EL3202 (two PT100 channels), default process data
    per channel n (0, 1) TxPDO 0x1A00 + n = 0x60n0:01..:10 (BOOLEAN/BIT2 status: :01 underrange,
    :02 overrange, :03-:04 limit 1, :05-:06 limit 2, :07 error, :0F TxPDO state, :10 toggle) and
    0x60n0:11 "Value" (INT16, 0.1 degC per count in the default presentation). Settings 0x80n0:
    :19 RTD element (UINT16, 0 = PT100), :1A connection technology (UINT16, 0 two-wire, 1
    three-wire, 2 four-wire), :06 enable filter (BOOLEAN). An open sensor wire reads as
    overrange with the error bit, a short as underrange with the error bit.

A rig file lists a terminal as a ``[[ethercat.slave]]`` table with ``role = "bridge"`` or
``role = "rtd"`` and its ``channels``: each maps one terminal channel to a recording channel
(``signal`` = ``tau_s``, ``tau_ref`` or ``temperature``, :data:`SIGNAL_UNITS`) of one joint
(``joint``, 1-based). :func:`terminal_channels` reads them, :class:`TerminalBank` runs them in the
master (PRE-OP configuration by SDO, the tare, the cyclic decoding and the fault check), and
:class:`TerminalFault` is what the master raises on the cycle a channel's error bit is set.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any, Sequence

import numpy as np

from paperlib.rig import RigFault

__all__ = [
    "BECKHOFF_VENDOR_ID", "EL3356_PRODUCT_CODE", "EL3202_PRODUCT_CODE", "TERMINAL_ROLES", "SIGNAL_UNITS",
    "BRIDGE_FILTERS", "RTD_WIRES", "AnalogChannel", "TerminalFault", "terminal_channels", "TerminalBank",
    "status_fault", "ST_UNDERRANGE", "ST_OVERRANGE", "ST_DATA_INVALID", "ST_ERROR", "ST_STEADY", "ST_TOGGLE",
    "CW_TARA", "RTD_COUNT_DEGC", "BRIDGE_SCALE_FACTOR",
]

BECKHOFF_VENDOR_ID = 0x00000002
#: Beckhoff's terminal product codes: number << 16 | 0x3052 ("EL" terminals).
EL3356_PRODUCT_CODE = (3356 << 16) | 0x3052
EL3202_PRODUCT_CODE = (3202 << 16) | 0x3052

#: Roles of analog terminals in a rig file's ``[[ethercat.slave]]`` tables.
TERMINAL_ROLES = ("bridge", "rtd")
#: The recording channels a terminal channel may feed, and their units.
SIGNAL_UNITS = {"tau_s": "N m", "tau_ref": "N m", "temperature": "degC"}
#: EL3356 filter settings (0x8000:11) by name; "off" clears 0x8000:01 instead.
BRIDGE_FILTERS = {"FIR 50 Hz": 0, "FIR 60 Hz": 1, **{f"IIR {k}": k + 1 for k in range(1, 9)}, "dynamic IIR": 10}
#: EL3202 connection technology (0x80n0:1A) by number of wires.
RTD_WIRES = {2: 0, 3: 1, 4: 2}
#: Value of one RTD count in the default presentation [degC].
RTD_COUNT_DEGC = 0.1
#: The EL3356's scale factor 0x8000:27 as the master writes it: value = load * 1000.
BRIDGE_SCALE_FACTOR = 1000.0

# status bits (bit k - 1 = sub-index k of 0x60n0)
ST_UNDERRANGE = 1 << 0
ST_OVERRANGE = 1 << 1
ST_DATA_INVALID = 1 << 3
ST_ERROR = 1 << 6
ST_CALIBRATING = 1 << 7
ST_STEADY = 1 << 8
ST_TXPDO_STATE = 1 << 14
ST_TOGGLE = 1 << 15
#: EL3356 control bit 0x7000:05 "Tara".
CW_TARA = 1 << 4

_CHANNEL_KEYS = {"bridge": ("signal", "joint", "unit", "rated_output_mV_V", "rated_load", "zero_balance_mV_V",
                            "filter", "tare", "name"),
                 "rtd": ("signal", "joint", "unit", "element", "wires", "filter", "name", "channel")}


@dataclasses.dataclass(frozen=True)
class AnalogChannel:
    """One terminal channel and the recording channel it feeds.

    Attributes
    ----------
    slave : int
        Chain position of the terminal (0-based, wiring order).
    terminal : str
        The terminal's name in the rig file (e.g. ``"EL3356 joint torque"``).
    role : str
        ``"bridge"`` or ``"rtd"``.
    channel : int
        Channel of the terminal (0-based; a bridge has one, an EL3202 two).
    signal : str
        Recording channel: ``tau_s``, ``tau_ref`` or ``temperature``.
    joint : int
        Joint index (0-based) of the recording channel.
    unit : str
        Unit of the signal (:data:`SIGNAL_UNITS`).
    rated_output_mV_V, rated_load : float
        Bridge: the sensor's nominal characteristic value [mV/V] at its rated load [unit].
    zero_balance_mV_V : float
        Bridge: the sensor's output at zero load [mV/V] (0x8000:25).
    filter : str
        Bridge: a key of :data:`BRIDGE_FILTERS` or ``"off"``; RTD: ``"on"`` or ``"off"``.
    tare : bool
        Bridge: tare at bring-up (the terminal's Tara bit) so the reading starts at zero.
    wires : int
        RTD: 2, 3 or 4 wires.
    """

    slave: int
    terminal: str
    role: str
    channel: int
    signal: str
    joint: int = 0
    unit: str = ""
    rated_output_mV_V: float = 2.0
    rated_load: float = 1.0
    zero_balance_mV_V: float = 0.0
    filter: str = "off"
    tare: bool = False
    wires: int = 3

    @property
    def scale(self) -> float:
        """Counts per unit of the signal (bridge: the scale factor; RTD: 1 / 0.1 degC)."""
        return BRIDGE_SCALE_FACTOR if self.role == "bridge" else 1.0 / RTD_COUNT_DEGC

    def source(self) -> dict[str, Any]:
        """Where the signal came from, for the recording's attributes."""
        out = {"terminal": self.terminal, "chain_position": self.slave, "class": "EL3356" if self.role == "bridge"
               else "EL3202", "channel": self.channel + 1, "unit": self.unit, "joint": self.joint + 1}
        if self.role == "bridge":
            out.update(rated_output_mV_V=self.rated_output_mV_V, rated_load=self.rated_load,
                       zero_balance_mV_V=self.zero_balance_mV_V, filter=self.filter, tare=self.tare)
        else:
            out.update(element="PT100", wires=self.wires, filter=self.filter)
        return out


class TerminalFault(RigFault):
    """An analog terminal reports an error (a broken bridge wire, an open or out-of-range RTD)."""


def terminal_channels(pos: int, tab: dict[str, Any]) -> tuple[AnalogChannel, ...]:
    """The channels of the rig-file terminal table ``tab`` at chain position ``pos``.

    Raises
    ------
    ValueError
        No channel, an unknown key, signal or filter, a unit other than the signal's, a bridge
        without a positive rated output and load, more channels than the terminal has.
    """
    role = str(tab["role"])
    where = f"[[ethercat.slave]] {pos} ({tab.get('name', '?')})"
    specs = tab.get("channels")
    if not isinstance(specs, list) or not specs or not all(isinstance(c, dict) for c in specs):
        raise ValueError(f"{where}: a {role} terminal needs channels = [{{signal = ...}}, ...]")
    limit = 1 if role == "bridge" else 2
    if len(specs) > limit:
        raise ValueError(f"{where}: {len(specs)} channels; an {'EL3356' if role == 'bridge' else 'EL3202'} has {limit}")
    out = []
    for k, c in enumerate(specs):
        unknown = sorted(set(c) - set(_CHANNEL_KEYS[role]))
        if unknown:
            raise ValueError(f"{where}: channel {k}: unknown key(s) {unknown} (known: {list(_CHANNEL_KEYS[role])})")
        signal = str(c.get("signal", ""))
        if signal not in SIGNAL_UNITS or (role == "rtd") != (signal == "temperature"):
            allowed = ["temperature"] if role == "rtd" else ["tau_s", "tau_ref"]
            raise ValueError(f"{where}: channel {k}: signal {signal!r} is not one of {allowed}")
        unit = str(c.get("unit", SIGNAL_UNITS[signal]))
        if unit != SIGNAL_UNITS[signal]:
            raise ValueError(f"{where}: channel {k}: {signal} is recorded in {SIGNAL_UNITS[signal]!r}, not {unit!r}")
        joint = int(c.get("joint", 1)) - 1
        if joint < 0:
            raise ValueError(f"{where}: channel {k}: joint is 1-based, got {joint + 1}")
        kw: dict[str, Any] = {"joint": joint, "unit": unit, "terminal": str(c.get("name", tab["name"]))}
        if role == "bridge":
            rated_out, rated_load = float(c.get("rated_output_mV_V", 0.0)), float(c.get("rated_load", 0.0))
            if not (rated_out > 0.0 and rated_load > 0.0):
                raise ValueError(f"{where}: channel {k}: rated_output_mV_V and rated_load must be > 0")
            filt = str(c.get("filter", "off"))
            if filt != "off" and filt not in BRIDGE_FILTERS:
                raise ValueError(f"{where}: channel {k}: filter {filt!r} is not 'off' or one of {list(BRIDGE_FILTERS)}")
            kw.update(rated_output_mV_V=rated_out, rated_load=rated_load,
                      zero_balance_mV_V=float(c.get("zero_balance_mV_V", 0.0)), filter=filt,
                      tare=bool(c.get("tare", False)))
            channel = 0
        else:
            if str(c.get("element", "PT100")) != "PT100":
                raise ValueError(f"{where}: channel {k}: only PT100 elements are supported, got {c['element']!r}")
            wires = int(c.get("wires", 3))
            if wires not in RTD_WIRES:
                raise ValueError(f"{where}: channel {k}: wires must be 2, 3 or 4, got {wires}")
            filt = str(c.get("filter", "on"))
            if filt not in ("on", "off"):
                raise ValueError(f"{where}: channel {k}: filter must be 'on' or 'off', got {filt!r}")
            kw.update(wires=wires, filter=filt)
            channel = int(c.get("channel", k + 1)) - 1
            if channel not in (0, 1):
                raise ValueError(f"{where}: channel {k}: channel must be 1 or 2")
        out.append(AnalogChannel(slave=pos, role=role, channel=channel, signal=signal, **kw))
    return tuple(out)


def status_fault(role: str, status: int) -> str | None:
    """What a channel's status word says is wrong, or None when its value is valid.

    A bridge: the error bit (a broken wire or an input beyond the ADC range: with overrange /
    underrange named), or data invalid. An RTD: the error bit with overrange (an open circuit or a
    temperature above the range), with underrange (a short circuit or below the range).
    """
    if not status & (ST_ERROR | ST_DATA_INVALID):
        return None
    what = []
    if status & ST_OVERRANGE:
        what.append("overrange (open circuit / broken wire, or above the range)" if role == "rtd"
                    else "overrange (broken bridge wire, or the ADC limit)")
    if status & ST_UNDERRANGE:
        what.append("underrange (short circuit, or below the range)" if role == "rtd" else "underrange")
    if status & ST_DATA_INVALID:
        what.append("data invalid")
    return "error bit set" + (": " + ", ".join(what) if what else "")


class _Terminal:
    """One terminal of the chain: its channels, process-data layout and pysoem slave."""

    def __init__(self, slave: int, role: str, channels: Sequence[AnalogChannel]) -> None:
        self.slave = slave
        self.role = role
        self.channels = list(channels)
        if role == "bridge":
            self.tx = struct.Struct("<Hi")  # 0x1A00 status + 0x1A01 value
            self.rx = struct.Struct("<H")  # 0x1600 control
        else:
            self.tx = struct.Struct("<HhHh")  # 0x1A00 / 0x1A01: status + value per channel
            self.rx = struct.Struct("<")
        self.pd: Any = None
        self.control = 0


class TerminalBank:
    """The chain's analog terminals in the master: PRE-OP configuration, tare, decoding, faults.

    Parameters
    ----------
    channels : sequence of AnalogChannel
        Every terminal channel of the chain (:func:`terminal_channels` of each terminal table).

    Attributes
    ----------
    values : ndarray, shape (n_channels,)
        The last decoded value of each channel [its unit] (NaN until the first valid cycle).
    status : list of int
        The last status word of each channel.
    """

    def __init__(self, channels: Sequence[AnalogChannel]) -> None:
        self.channels = tuple(channels)
        by_slave: dict[int, list[int]] = {}
        for i, ch in enumerate(self.channels):
            by_slave.setdefault(ch.slave, []).append(i)
        self._terms = [_Terminal(pos, self.channels[idx[0]].role, [self.channels[i] for i in idx])
                       for pos, idx in sorted(by_slave.items())]
        self._index = [[self.channels.index(ch) for ch in t.channels] for t in self._terms]
        self.values = np.full(len(self.channels), np.nan)
        self.status = [0] * len(self.channels)
        self.fault_text: str | None = None

    def __bool__(self) -> bool:
        return bool(self.channels)

    @property
    def positions(self) -> list[int]:
        """Chain positions of the terminals."""
        return [t.slave for t in self._terms]

    def attach(self, slaves: Sequence[Any]) -> list[tuple[int, Any]]:
        """Bind the terminals to pysoem's slaves; returns ``(chain position, terminal)`` per terminal
        (the master sets each slave's ``config_func`` to :meth:`configure` of its terminal)."""
        out = []
        for t in self._terms:
            t.pd = slaves[t.slave]
            out.append((t.slave, t))
        return out

    # -- PRE-OP -------------------------------------------------------------------------------
    def configure(self, master: Any, term: "_Terminal") -> None:
        """Write the terminal's settings by SDO (called from its ``config_func`` in PRE-OP) and read them back.

        Raises
        ------
        paperlib.hardware.ethercat_errors.BringUpError
            A setting that reads back different from what was written.
        """
        from paperlib.hardware.ethercat_errors import BringUpError

        s = term.pd
        writes: list[tuple[int, int, str, Any]] = []
        for ch in term.channels:
            if term.role == "bridge":
                on = ch.filter != "off"
                writes += [(0x8000, 0x23, "<f", ch.rated_output_mV_V), (0x8000, 0x24, "<f", ch.rated_load),
                           (0x8000, 0x25, "<f", ch.zero_balance_mV_V), (0x8000, 0x27, "<f", BRIDGE_SCALE_FACTOR),
                           (0x8000, 0x01, "<B", int(on))]
                if on:
                    writes.append((0x8000, 0x11, "<H", BRIDGE_FILTERS[ch.filter]))
            else:
                base = 0x8000 + 0x10 * ch.channel
                writes += [(base, 0x19, "<H", 0), (base, 0x1A, "<H", RTD_WIRES[ch.wires]),
                           (base, 0x06, "<B", int(ch.filter == "on"))]
        for index, sub, fmt, value in writes:
            master.sdo_write(index, sub, fmt, value, s)
            got = master.sdo_read(index, sub, fmt, s)
            same = abs(got - value) <= 1e-6 * max(1.0, abs(value)) if fmt == "<f" else got == value
            if not same:
                raise BringUpError(f"terminal {master._slave_name(s)}: 0x{index:04X}:{sub:02X} reads back {got}, "
                                   f"wrote {value}")

    def check_mapping(self, name: Any) -> None:
        """Refuse a terminal whose mapped process data differ from its default PDOs.

        Raises
        ------
        paperlib.hardware.ethercat_errors.BringUpError
        """
        from paperlib.hardware.ethercat_errors import BringUpError

        for t in self._terms:
            if len(t.pd.input) != t.tx.size or len(t.pd.output) != t.rx.size:
                raise BringUpError(
                    f"terminal {name(t.pd)}: process data mapped as {len(t.pd.output)} output / {len(t.pd.input)} "
                    f"input bytes, expected {t.rx.size} / {t.tx.size} for an "
                    f"{'EL3356' if t.role == 'bridge' else 'EL3202'}")

    # -- cyclic -------------------------------------------------------------------------------
    def set_tare(self, on: bool) -> None:
        """Set or clear the Tara bit of every bridge channel configured with ``tare = true``."""
        for t in self._terms:
            if t.role == "bridge" and any(ch.tare for ch in t.channels):
                t.control = (t.control | CW_TARA) if on else (t.control & ~CW_TARA)

    @property
    def tares(self) -> bool:
        """Whether any channel is tared at bring-up."""
        return any(ch.tare for ch in self.channels)

    def pack_outputs(self) -> None:
        """Write the bridges' control words into their outputs."""
        for t in self._terms:
            if t.rx.size:
                t.pd.output = t.rx.pack(t.control)

    def unpack(self) -> str | None:
        """Decode every channel of the last reply; returns the first fault (channel named), or None."""
        fault = None
        for t, idx in zip(self._terms, self._index):
            raw = t.tx.unpack(t.pd.input)
            for ch, i in zip(t.channels, idx):
                st, value = raw[2 * ch.channel], raw[2 * ch.channel + 1]
                self.status[i] = st
                problem = status_fault(t.role, st)
                if problem is None:
                    self.values[i] = value / ch.scale
                elif fault is None:
                    fault = (f"{ch.terminal} (chain position {ch.slave}, channel {ch.channel + 1}, feeding "
                             f"{ch.signal} of joint {ch.joint + 1}): {problem} (status 0x{st:04X})")
        self.fault_text = fault
        return fault

    def sources(self) -> dict[str, Any]:
        """Which terminal and channel each recording channel came from (for the recording's attributes)."""
        out: dict[str, Any] = {}
        for ch in self.channels:
            out.setdefault(ch.signal, {})[str(ch.joint + 1)] = ch.source()
        return out
