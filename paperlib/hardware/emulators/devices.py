"""Emulated devices of the paper's rig: an EK1828-like coupler and CiA 402 CST drives (dual-axis by default).

The flagship paper (Section 3.2) runs a Beckhoff EK1828 EtherCAT coupler (digital I/O; two
proximity sensors for zeroing) followed by a Copley Controls Accelnet BE2-090-20-R dual-axis
drive in torque mode, at 4 kHz.  This module emulates that chain on top of
:mod:`paperlib.hardware.emulators.esc` so the real master (SOEM through pysoem) can be run
against it in a network namespace.

Assumptions (no datasheet was available; each is a parameter):

* EK1828: vendor 0x00000002 (Beckhoff), product code 0x07242C52 (Beckhoff's coupler
  convention ``(number << 16) | 0x2C52``, as EK1100 = 0x044C2C52), 4 digital inputs and 8
  digital outputs (EK1814: 4/4, EK1818: 8/4, EK1828: 4/8), no mailbox, bit-sized PDOs:
  SM0 at 0x0F00 (outputs, 1 byte), SM1 at 0x1000 (inputs, 4 bits).  DI1/DI2 (bits 0/1) are
  the proximity sensors of joints 1/2 (active within ``half_width_rad`` of the home angle).
* Drive: vendor 0x000000AB (Copley), product code 0x00000BE2 (placeholder: the real code
  was not available), CiA 402 with axis B at +0x800 (0x6840...), CoE mailbox 128/128 bytes
  at 0x1000/0x1080, SM2 at 0x1100 (outputs), SM3 at 0x1180 (inputs).  By default only cyclic
  synchronous torque (0x6060 = 10) is offered (supported drive modes 0x6502 = bit 9); writing
  another mode is aborted with 0x06090030.  A drive built with ``modes`` including ``"csp"`` /
  ``"csv"`` also offers cyclic synchronous position (8; target position 0x607A) / velocity (9;
  target velocity 0x60FF) and follows the target with its own loop (:class:`AxisLoop`).  Encoder: 2^16 counts/rev (virtual encoder from the resolver), velocity in
  units of 0.1 counts/s (Copley's documented unit for 0x606C; unverified for this drive),
  torque in per mille of the rated torque 0x6076 [mN m].  Rated torque 1.6 N m and rated
  current 4 A per axis are placeholders for the Mavilor BLS55 motors.
* The drive's default PDO mapping differs from what the master needs (controlword only /
  statusword + position), so a master that does not remap is caught (AL status 0x001D).

Run as a process (inside a network namespace)::

    python -m paperlib.hardware.emulators.devices --ifname veth1 --config '{"faults": {...}}'

It prints ``READY`` once its raw socket is bound and a ``STATS {json}`` line when it is
terminated (SIGTERM/SIGINT), with the plant's true state for cross-checks.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import sys
from typing import Any, Callable, Sequence

import numpy as np

from paperlib.hardware.cia402 import MODE_CSP, MODE_CST, MODE_CSV, MODE_SUPPORT_BIT, MODES

from .axis_loop import LOOP_CSP, LOOP_CST, LOOP_CSV, LOOP_OFF, AxisLoop
from .cia402_axis import Cia402Axis
from .coupler import EK1828_PRODUCT_CODE, EK1828_REVISION, EK1828_VENDOR_ID, Ek1828Coupler, ProximitySensors  # noqa: F401
from .esc.chain import EscChain
from .esc.coe import _TYPE_FORMATS, AbortRule, CoeServer, ObjectDictionary, OdEntry, SdoAbort
from .esc.registers import AlState, AlStatusCode
from .esc.server import FrameFaults, serve_until_signalled, slave_reports
from .esc.sii import PdoEntrySpec, PdoSpec, SiiImage, SmEntry
from .esc.slave import EscSlave
from .plants import InertiaPlant, Plant, make_plant
from .terminals import TERMINAL_TYPES, make_terminal

__all__ = [
    "Plant",
    "InertiaPlant",
    "ProximitySensors",
    "Ek1828Coupler",
    "Cia402Drive",
    "DualAxisCia402Drive",
    "Cia402Axis",
    "AxisLoop",
    "build_chain",
    "main",
    "EK1828_VENDOR_ID",
    "EK1828_PRODUCT_CODE",
    "COPLEY_VENDOR_ID",
    "BE2_PRODUCT_CODE",
]

COPLEY_VENDOR_ID = 0x000000AB
BE2_PRODUCT_CODE = 0x00000BE2  # assumed placeholder
BE2_REVISION = 0x00010000

DEVICE_TYPE_SERVO = 0x00020192  # CiA 402, servo drive
TWO_PI = 2.0 * math.pi


# --- dual-axis CST drive --------------------------------------------------------------------------


class Cia402Drive(EscSlave):
    """A CiA 402 drive with one to four axes in cyclic synchronous torque (and optionally position/velocity) mode.

    The default is the Copley BE2-090-20: two axes, CST only.

    Parameters
    ----------
    plant : Plant, optional
        What the axes move, one entry per axis (default :class:`InertiaPlant`).
    vendor_id, product_code, revision, serial : int
        Identity in the SII and in 0x1018.
    counts_per_rev : int
        Encoder counts per motor revolution (virtual encoder from the resolver).
    velocity_unit_counts_s : float
        Value of one unit of 0x606C [counts/s].
    rated_torque_mNm, rated_current_mA : sequence of int, optional
        0x6076 / 0x6075 per axis (default 1600 mN m and 4000 mA each).
    max_torque_permille : sequence of int, optional
        Initial 0x6072 per axis [per mille of rated torque] (default 3000 each).
    axis_offset : int
        Object index offset of axis B when ``axis_offsets`` is not given (0x800: 0x6840 = controlword of axis B).
    axis_offsets : sequence of int, optional
        Object index offset of each axis (default ``(0, axis_offset)``: two axes); axis ``k``'s default
        PDOs are 0x1600 + k / 0x1A00 + k.
    sdo_aborts : sequence of dict
        Injected SDO aborts: ``{"index", "subindex", "code", "direction"}``.
    axis_faults : sequence of dict
        Injected axis faults: ``{"axis": 0|1, "after_cycles": n, "code": 0x2310}``.
    modes : sequence of str
        Modes the drive offers (``"cst"``, ``"csp"``, ``"csv"``; default CST only). CSP / CSV add
        target position 0x607A / target velocity 0x60FF per axis and their bits in 0x6502.
    loop : dict, optional
        :class:`AxisLoop` gains of every axis (CSP / CSV).
    inner_steps : int
        How many times per frame the axes' own loops are closed (CSP / CSV), as a servo drive
        closes its velocity loop faster than its process-data frames. 1 (default): once per frame,
        the torque held over it; more: the plant runs the frame in that many steps, each with the
        loops' torque at its own state (the plant needs ``step_loops``, e.g.
        :class:`paperlib.twin.robots.campaign_plant.AxisView`).
    encoder_offset_counts : sequence of int, optional
        Position counts at plant angle 0 per axis (default 0).
    fixed_dt : float or None
        Plant step per exchange [s]; None = measured wall time between exchanges.
    idle_step_s : float
        Without process data for longer than this (bring-up, a silent master) the plant is
        still advanced, from the housekeeping tick, so the motors keep moving [s].
    eeprom_8byte, dc : bool
        ESC capabilities.
    refuse_states : dict, optional
        Fault injection, see :class:`~paperlib.hardware.emulators.esc.EscSlave`.
    """

    MBX_RX = (0x1000, 128)
    MBX_TX = (0x1080, 128)
    SM2 = 0x1100
    SM3 = 0x1180
    MAX_PDO_ENTRIES = 8
    PDO_CAPACITY_BITS = 8 * 64

    def __init__(
        self,
        plant: Plant | None = None,
        *,
        vendor_id: int = COPLEY_VENDOR_ID,
        product_code: int = BE2_PRODUCT_CODE,
        revision: int = BE2_REVISION,
        serial: int = 90200001,
        counts_per_rev: int = 65536,
        velocity_unit_counts_s: float = 0.1,
        rated_torque_mNm: Sequence[int] | None = None,
        rated_current_mA: Sequence[int] | None = None,
        max_torque_permille: Sequence[int] | None = None,
        axis_offset: int = 0x800,
        axis_offsets: Sequence[int] | None = None,
        sdo_aborts: Sequence[dict[str, Any]] = (),
        axis_faults: Sequence[dict[str, Any]] = (),
        modes: Sequence[str] = ("cst",),
        loop: dict[str, float] | None = None,
        inner_steps: int = 1,
        encoder_offset_counts: Sequence[int] | None = None,
        fixed_dt: float | None = None,
        idle_step_s: float = 0.005,
        eeprom_8byte: bool = False,
        dc: bool = True,
        name: str = "BE2-090-20",
        refuse_states: dict[Any, int] | None = None,
    ) -> None:
        self.axis_offsets = [int(o) for o in (axis_offsets if axis_offsets is not None else (0, axis_offset))]
        n = len(self.axis_offsets)
        if not 1 <= n <= 4:
            raise ValueError(f"an emulated drive has 1 to 4 axes, not {n}")

        def per_axis(v: Sequence[int] | None, default: int, what: str) -> list[int]:
            out = [default] * n if v is None else [int(x) for x in v]
            if len(out) != n:
                raise ValueError(f"{what}: {len(out)} value(s) for {n} axes")
            return out

        rated_torque_mNm = per_axis(rated_torque_mNm, 1600, "rated_torque_mNm")
        rated_current_mA = per_axis(rated_current_mA, 4000, "rated_current_mA")
        max_torque_permille = per_axis(max_torque_permille, 3000, "max_torque_permille")
        txpdo_default = tuple(
            PdoSpec(0x1A00 + k, 3, (PdoEntrySpec(0x6041 + b, 0, 16, 0x0006), PdoEntrySpec(0x6064 + b, 0, 32, 0x0004)))
            for k, b in enumerate(self.axis_offsets))
        rxpdo_default = tuple(PdoSpec(0x1600 + k, 2, (PdoEntrySpec(0x6040 + b, 0, 16, 0x0006),))
                              for k, b in enumerate(self.axis_offsets))
        sii = SiiImage(
            vendor_id=vendor_id,
            product_code=product_code,
            revision=revision,
            serial=serial,
            strings=(name, "Accelnet Plus dual-axis EtherCAT servo drive (emulated)"),
            rx_mailbox=self.MBX_RX,
            tx_mailbox=self.MBX_TX,
            mailbox_protocols=0x0004,  # CoE
            coe_details=0x01 | 0x04 | 0x08,  # SDO, PDO assign, PDO config; no SDO info, no complete access
            fmmu=(1, 2, 3),
            sms=(
                SmEntry(self.MBX_RX[0], self.MBX_RX[1], 0x26, 0x01, 1),
                SmEntry(self.MBX_TX[0], self.MBX_TX[1], 0x22, 0x01, 2),
                SmEntry(self.SM2, 0, 0x64, 0x01, 3),
                SmEntry(self.SM3, 0, 0x20, 0x01, 4),
            ),
            txpdos=txpdo_default,
            rxpdos=rxpdo_default,
            pdi_control=0x05,
        )
        super().__init__(sii, eeprom_8byte=eeprom_8byte, dc=dc, name=name, refuse_states=refuse_states)
        self.plant: Plant = plant if plant is not None else InertiaPlant()
        self.cpr = int(counts_per_rev)
        self.vel_unit = float(velocity_unit_counts_s)
        self.fixed_dt = fixed_dt
        self.idle_step_s = float(idle_step_s)
        self.enc_offset = per_axis(encoder_offset_counts, 0, "encoder_offset_counts")
        self.axes = [Cia402Axis() for _ in range(n)]
        self.modes = tuple(str(m) for m in modes)
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise ValueError(f"modes {list(self.modes)}: each one of {list(MODES)}, at least one")
        self.loops = [AxisLoop(**(loop or {})) for _ in range(n)]
        self.inner_steps = int(inner_steps)
        if self.inner_steps < 1 or (self.inner_steps > 1 and not hasattr(self.plant, "step_loops")):
            raise ValueError(f"inner_steps = {inner_steps}: 1, or more with a plant that has step_loops "
                             f"({type(self.plant).__name__} has not)")
        # what the plant's step_loops reads each frame (filled in place: no allocation per frame)
        self._frame = {k: np.zeros(n) for k in ("hold", "q_ref", "v_ff", "limit", "kp_pos", "kp_vel", "ki_vel",
                                                "integral", "applied")}
        self._frame["code"] = np.full(n, LOOP_OFF, dtype=np.int64)
        self.axis_faults = [dict(f) for f in axis_faults]
        self.cycles = 0
        self.watchdog_trips: list[float] = []
        self._last_step: float | None = None
        self.torque_cmd_Nm = np.zeros(n)
        q, qd, tau = self.plant.step(np.zeros(n), 0.0)
        self.q, self.qd, self.tau = np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float)
        self.od = ObjectDictionary()
        self._build_od(vendor_id, product_code, revision, serial, name, rated_torque_mNm, rated_current_mA,
                       max_torque_permille)
        rules = [AbortRule(int(r["index"]), int(r.get("subindex", 0)), int(r["code"]), r.get("direction", "download"))
                 for r in sdo_aborts]
        self.coe = CoeServer(self.od, lambda: self.al_state, rules, max_data=self.MBX_RX[1] - 16)
        self._rx_struct = self._tx_struct = struct.Struct("<")
        self._rx_entries: list[OdEntry] = []
        self._tx_getters: list[Callable[[], Any]] = []
        self._out_len = self._in_len = 0
        self._update_actuals()

    # -- object dictionary -----------------------------------------------------------------------
    def _build_od(self, vendor, product, revision, serial, name, rated_t, rated_i, max_t) -> None:
        od = self.od
        od.var(0x1000, "u32", DEVICE_TYPE_SERVO, name="device type")
        od.var(0x1001, "u8", 0, name="error register")
        od.var(0x1008, "str", name, name="device name")
        od.var(0x1009, "str", "BE2-EMU-HW-1", name="hardware version")
        od.var(0x100A, "str", "paperlib esc emulator 1.0", name="software version")
        od.add(OdEntry(0x1018, 0, "u8", 4, name="identity"))
        for sub, v in enumerate((vendor, product, revision, serial), start=1):
            od.add(OdEntry(0x1018, sub, "u32", v, name="identity"))
        od.add(OdEntry(0x1C00, 0, "u8", 4, name="SM communication type"))
        for sub, v in enumerate((1, 2, 3, 4), start=1):
            od.add(OdEntry(0x1C00, sub, "u8", v, name="SM communication type"))
        defaults: dict[int, list[int]] = {}
        for k, b in enumerate(self.axis_offsets):
            defaults[0x1600 + k] = [((0x6040 + b) << 16) | 0x10]
            defaults[0x1A00 + k] = [((0x6041 + b) << 16) | 0x10, ((0x6064 + b) << 16) | 0x20]
        for base in (0x1600, 0x1A00):
            for k in range(4):
                idx = base + k
                vals = defaults.get(idx, [])
                od.add(OdEntry(idx, 0, "u8", len(vals), "rw", name=f"PDO mapping 0x{idx:04X}", preop_only=True,
                               on_write=self._mapping_count_writer(idx)))
                for sub in range(1, self.MAX_PDO_ENTRIES + 1):
                    od.add(OdEntry(idx, sub, "u32", vals[sub - 1] if sub <= len(vals) else 0, "rw",
                                   name=f"PDO mapping 0x{idx:04X}", preop_only=True,
                                   on_write=self._mapping_entry_writer(idx, sub)))
        n = len(self.axis_offsets)
        for assign, first in ((0x1C12, 0x1600), (0x1C13, 0x1A00)):
            dflt = [first + k for k in range(n)]
            od.add(OdEntry(assign, 0, "u8", len(dflt), "rw", name=f"PDO assignment 0x{assign:04X}", preop_only=True,
                           on_write=self._assign_count_writer(assign, first)))
            for sub in range(1, 5):
                od.add(OdEntry(assign, sub, "u16", dflt[sub - 1] if sub <= len(dflt) else 0, "rw",
                               name=f"PDO assignment 0x{assign:04X}", preop_only=True,
                               on_write=self._assign_entry_writer(assign, sub, first)))
        for axis in range(n):
            b = self.axis_offsets[axis]
            ax = self.axes[axis]
            od.var(0x603F + b, "u16", 0, on_read=lambda ax=ax: ax.error_code, name="error code")
            od.var(0x6040 + b, "u16", 0, "rw", pdo_mappable=True, name="controlword")
            od.var(0x6041 + b, "u16", 0, pdo_mappable=True, on_read=lambda ax=ax: ax.statusword, name="statusword")
            od.var(0x6060 + b, "i8", 0, "rw", pdo_mappable=True, on_write=self._mode_writer, name="modes of operation")
            od.var(0x6061 + b, "i8", 0, pdo_mappable=True, on_read=lambda b=b: self.od.value(0x6060 + b),
                   name="modes of operation display")
            od.var(0x6064 + b, "i32", 0, pdo_mappable=True, name="position actual value")
            od.var(0x606C + b, "i32", 0, pdo_mappable=True, name="velocity actual value")
            od.var(0x6071 + b, "i16", 0, "rw", pdo_mappable=True, name="target torque")
            if "csp" in self.modes:
                od.var(0x607A + b, "i32", 0, "rw", pdo_mappable=True, name="target position")
            if "csv" in self.modes:
                od.var(0x60FF + b, "i32", 0, "rw", pdo_mappable=True, name="target velocity")
            od.var(0x6072 + b, "u16", int(max_t[axis]), "rw", pdo_mappable=True, name="max torque")
            od.var(0x6075 + b, "u32", int(rated_i[axis]), "rw", name="motor rated current")
            od.var(0x6076 + b, "u32", int(rated_t[axis]), "rw", on_write=self._positive, name="motor rated torque")
            od.var(0x6077 + b, "i16", 0, pdo_mappable=True, name="torque actual value")
            od.var(0x6502 + b, "u32", sum(1 << MODE_SUPPORT_BIT[m] for m in set(self.modes)),
                   name="supported drive modes")  # bits 7 CSP, 8 CSV, 9 CST
            od.var(0x67FF + b, "u32", DEVICE_TYPE_SERVO, name="device type of the axis")

    def _mode_writer(self, value: int) -> int:
        return 0 if value == 0 or value in (MODES[m] for m in self.modes) else SdoAbort.VALUE_RANGE

    @staticmethod
    def _positive(value: int) -> int:
        return 0 if value > 0 else SdoAbort.VALUE_TOO_LOW

    def _entry_for_mapping(self, value: int, rx: bool) -> tuple[OdEntry | None, int]:
        idx, sub, bits = value >> 16, (value >> 8) & 0xFF, value & 0xFF
        if bits == 0:
            return None, SdoAbort.PARAM_INCOMPATIBLE
        if idx == 0:  # padding (dummy entry)
            return None, 0
        entry = self.od.get(idx, sub)
        if entry is None or not entry.pdo_mappable:
            return None, SdoAbort.NOT_MAPPABLE
        if rx and entry.access == "ro":
            return None, SdoAbort.NOT_MAPPABLE
        if entry.bit_length != bits:
            return None, SdoAbort.PARAM_INCOMPATIBLE
        return entry, 0

    def _mapping_entry_writer(self, idx: int, sub: int) -> Callable[[int], int]:
        def write(value: int) -> int:
            if self.od.value(idx, 0) != 0:
                return SdoAbort.SUBINDEX0_NOT_ZERO
            _, code = self._entry_for_mapping(value, rx=idx < 0x1A00)
            return code
        return write

    def _mapping_count_writer(self, idx: int) -> Callable[[int], int]:
        def write(n: int) -> int:
            if n > self.MAX_PDO_ENTRIES:
                return SdoAbort.VALUE_TOO_HIGH
            bits = 0
            for sub in range(1, n + 1):
                value = self.od.value(idx, sub)
                _, code = self._entry_for_mapping(value, rx=idx < 0x1A00)
                if code:
                    return code
                bits += value & 0xFF
            return SdoAbort.PDO_LENGTH_EXCEEDED if bits > self.PDO_CAPACITY_BITS else 0
        return write

    def _assign_entry_writer(self, assign: int, sub: int, first: int) -> Callable[[int], int]:
        def write(value: int) -> int:
            if self.od.value(assign, 0) != 0:
                return SdoAbort.SUBINDEX0_NOT_ZERO
            return 0 if first <= value < first + 4 else SdoAbort.VALUE_RANGE
        return write

    def _assign_count_writer(self, assign: int, first: int) -> Callable[[int], int]:
        def write(n: int) -> int:
            if n > 4:
                return SdoAbort.VALUE_TOO_HIGH
            for sub in range(1, n + 1):
                if not first <= self.od.value(assign, sub) < first + 4:
                    return SdoAbort.VALUE_RANGE
            return 0
        return write

    def _layout(self, assign: int) -> tuple[struct.Struct, list[OdEntry], int]:
        """Compile the PDOs assigned in ``assign`` into one struct (dummy entries = pad bytes)."""
        fmt = "<"
        entries: list[OdEntry] = []
        bits = 0
        for sub in range(1, self.od.value(assign, 0) + 1):
            pdo = self.od.value(assign, sub)
            for e in range(1, self.od.value(pdo, 0) + 1):
                value = self.od.value(pdo, e)
                idx, esub, nbits = value >> 16, (value >> 8) & 0xFF, value & 0xFF
                if idx == 0:
                    fmt += "x" * (nbits // 8)
                else:
                    entry = self.od[(idx, esub)]
                    fmt += _TYPE_FORMATS[entry.dtype][0][1:]
                    entries.append(entry)
                bits += nbits
        return struct.Struct(fmt), entries, (bits + 7) // 8

    # -- AL hooks --------------------------------------------------------------------------------
    def check_transition(self, old: int, new: int) -> int:
        if new == AlState.SAFEOP:
            rx_struct, rx_entries, out_len = self._layout(0x1C12)
            tx_struct, tx_entries, in_len = self._layout(0x1C13)
            if not self.check_sm(2, self.SM2, out_len, outputs=True):
                return AlStatusCode.INVALID_OUTPUT_CONFIG
            if not self.check_sm(3, self.SM3, in_len, outputs=False):
                return AlStatusCode.INVALID_INPUT_CONFIG
            self._rx_struct, self._rx_entries, self._out_len = rx_struct, rx_entries, out_len
            self._tx_struct, self._tx_getters, self._in_len = tx_struct, [e.get for e in tx_entries], in_len
        return 0

    def on_state_change(self, old: int, new: int) -> None:
        if old == AlState.OP and new < AlState.OP:
            for ax in self.axes:
                if ax.state in (Cia402Axis.OE, Cia402Axis.QSA):
                    ax.fault(0x8130)  # communication lost while enabled
        if new >= AlState.SAFEOP:
            self._write_inputs()

    # -- cyclic application ----------------------------------------------------------------------
    def on_outputs(self, sm_index: int, now: float) -> None:
        if sm_index != 2:
            return
        for entry, value in zip(self._rx_entries, self._rx_struct.unpack_from(self.mem, self.SM2)):
            entry.value = value
        self.cycles += 1
        self._inject_faults()
        if self.al_state == AlState.OP:
            for axis, ax in enumerate(self.axes):
                ax.step(self.od.value(0x6040 + self.axis_offsets[axis]), now, self.qd[axis])
        self._cycle(now)

    def _inject_faults(self) -> None:
        for f in self.axis_faults:
            if not f.get("done") and self.cycles >= int(f.get("after_cycles", 0)):
                f["done"] = True
                self.axes[int(f.get("axis", 0))].fault(int(f.get("code", 0x2310)))

    def _cycle(self, now: float) -> None:
        if self.fixed_dt is not None:
            dt = self.fixed_dt
        else:
            dt = 0.0 if self._last_step is None else min(max(now - self._last_step, 0.0), 0.05)
        self._last_step = now
        if self.inner_steps > 1:
            self._cycle_inner(dt)
            return
        od = self.od
        for axis, ax in enumerate(self.axes):
            b = self.axis_offsets[axis]
            mode = od.value(0x6060 + b)
            if ax.state == Cia402Axis.OE and mode == MODE_CST:
                limit = od.value(0x6072 + b)
                permille = max(-limit, min(limit, od.value(0x6071 + b)))
                self.torque_cmd_Nm[axis] = permille * 1e-3 * od.value(0x6076 + b) * 1e-3
            elif ax.state == Cia402Axis.OE and mode in (MODE_CSP, MODE_CSV):
                self.torque_cmd_Nm[axis] = self._loop_torque(axis, b, mode, dt)
            else:
                self.torque_cmd_Nm[axis] = 0.0
                self.loops[axis].reset()
        q, qd, tau = self.plant.step(self.torque_cmd_Nm.copy(), dt)
        self.q, self.qd, self.tau = np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float)
        self._update_actuals()
        self._write_inputs()

    def set_actuals(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> None:
        """Overwrite the axes' actual values and the process image (a plant shared with other drives moved).

        Parameters
        ----------
        q, qd, tau : ndarray, shape (n_axes,)
            Motor-side position [rad], velocity [rad/s] and torque actual [N m]
            (:mod:`paperlib.hardware.emulators.shared_plant`).
        """
        self.q, self.qd, self.tau = np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float)
        self._update_actuals()
        self._write_inputs()

    def _cycle_inner(self, dt: float) -> None:
        """One frame with the axes' loops closed ``inner_steps`` times by the plant (``inner_steps`` > 1)."""
        od, frame = self.od, self._frame
        frame["code"].fill(LOOP_OFF)  # an axis' other entries are read only under its code
        for axis, ax in enumerate(self.axes):
            b = self.axis_offsets[axis]
            mode = od.value(0x6060 + b)
            loop = self.loops[axis]
            if ax.state == Cia402Axis.OE and mode == MODE_CST:
                limit = od.value(0x6072 + b)
                permille = max(-limit, min(limit, od.value(0x6071 + b)))
                frame["code"][axis], frame["hold"][axis] = LOOP_CST, permille * 1e-3 * od.value(0x6076 + b) * 1e-3
            elif ax.state == Cia402Axis.OE and mode in (MODE_CSP, MODE_CSV):
                target, limit_Nm = self._loop_target(axis, b, mode)
                frame["q_ref"][axis], frame["v_ff"][axis] = loop.frame(mode, target, dt)
                frame["code"][axis] = LOOP_CSP if mode == MODE_CSP else LOOP_CSV
                frame["limit"][axis] = limit_Nm
                for k in ("kp_pos", "kp_vel", "ki_vel", "integral"):
                    frame[k][axis] = getattr(loop, k)
            else:
                loop.reset()
        q, qd, tau = self.plant.step_loops(frame, dt, self.inner_steps)
        for axis, loop in enumerate(self.loops):
            if frame["code"][axis] in (LOOP_CSP, LOOP_CSV):
                loop.integral = float(frame["integral"][axis])
        self.torque_cmd_Nm = frame["applied"].copy()
        self.q, self.qd, self.tau = np.asarray(q, float), np.asarray(qd, float), np.asarray(tau, float)
        self._update_actuals()
        self._write_inputs()

    def _loop_target(self, axis: int, b: int, mode: int) -> tuple[float, float]:
        """The axis' target position [rad] (CSP) or velocity [rad/s] (CSV), motor side, and its torque limit [N m]."""
        od = self.od
        scale_q = self.cpr / TWO_PI  # counts per motor radian
        if mode == MODE_CSP:
            # the target relative to the position last reported, across the 32-bit wrap
            err = ((od.value(0x607A + b) - od.value(0x6064 + b) + 2**31) % 2**32) - 2**31
            target = (round(float(self.q[axis]) * scale_q) + err) / scale_q
        else:
            target = od.value(0x60FF + b) * self.vel_unit / scale_q
        return target, od.value(0x6072 + b) * 1e-3 * od.value(0x6076 + b) * 1e-3

    def _loop_torque(self, axis: int, b: int, mode: int, dt: float) -> float:
        """Torque of the axis' own loop toward its target position / velocity [N m] (CSP / CSV)."""
        target, limit = self._loop_target(axis, b, mode)
        return self.loops[axis].torque(mode, target, float(self.q[axis]), float(self.qd[axis]), dt, limit)

    def _update_actuals(self) -> None:
        q, qd, tau = self.q.tolist(), self.qd.tolist(), self.tau.tolist()
        od = self.od
        scale_q = self.cpr / TWO_PI
        scale_v = scale_q / self.vel_unit
        for axis, b in enumerate(self.axis_offsets):
            counts = int(round(q[axis] * scale_q)) + self.enc_offset[axis]
            od.set(0x6064 + b, 0, ((counts + 2**31) % 2**32) - 2**31)
            vel = int(round(qd[axis] * scale_v))
            od.set(0x606C + b, 0, max(-(2**31), min(2**31 - 1, vel)))
            rated = od.value(0x6076 + b) * 1e-3
            tq = int(round(tau[axis] / rated * 1000.0)) if rated > 0 else 0
            od.set(0x6077 + b, 0, max(-32768, min(32767, tq)))

    def _write_inputs(self) -> None:
        if self._tx_getters:
            self._tx_struct.pack_into(self.mem, self.SM3, *[g() for g in self._tx_getters])

    def on_mailbox(self, request: bytes) -> bytes | None:
        length, _addr, _chan, mtype = struct.unpack_from("<HHBB", request)
        if (mtype & 0x0F) != 0x03:
            return super().on_mailbox(request)
        return self.coe.handle(request[6 : 6 + length]) or None

    def tick(self, now: float) -> None:
        if self.al_state == AlState.OP and self.last_output_time is not None:
            wd = self.watchdog_time_s()
            sm2_wd = self.mem[0x0800 + 2 * 8 + 4] & 0x40
            if sm2_wd and wd > 0 and now - self.last_output_time > wd:
                self.watchdog_trips.append(round(now - self.last_output_time, 4))
                self.fall_back(AlState.SAFEOP, AlStatusCode.SM_WATCHDOG)
        if self.al_state >= AlState.SAFEOP and (self._last_step is None or now - self._last_step > self.idle_step_s):
            self._cycle(now)  # the motors keep moving between frames

    @property
    def positions_rad(self) -> np.ndarray:
        """True plant positions [rad] (for the coupler's proximity sensors and cross-checks)."""
        return self.q


#: The two-axis drive of the flagship (the default of :class:`Cia402Drive`), by its former name.
DualAxisCia402Drive = Cia402Drive


# --- chain construction and the process entry point -------------------------------------------------

DEFAULT_CONFIG: dict[str, Any] = {
    "chain": [{"type": "ek1828"}, {"type": "dual_cst_drive"}],
    "plant": {},
    "proximity": {},
    "faults": {},
}


def _ints(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (int(v, 0) if isinstance(v, str) and k in {"vendor_id", "product_code", "revision", "serial"} else v)
            for k, v in d.items()}


def build_chain(config: dict[str, Any] | None = None) -> tuple[EscChain, FrameFaults, Cia402Drive | None]:
    """Build the emulated chain from a config dict (see :data:`DEFAULT_CONFIG`).

    Config keys: ``chain`` (list of ``{"type": "ek1828"|"cst_drive"|"dual_cst_drive"|"el3356"|"el3202", **kwargs}`` in
    wiring order; a drive's kwargs are :class:`Cia402Drive`'s, ``"dual_cst_drive"`` is the two-axis
    default, and a drive may carry its own ``plant``), ``plant`` (see :func:`make_plant`; each
    drive gets its own, with one entry per axis), ``proximity`` (:class:`ProximitySensors` kwargs),
    ``faults`` (:class:`~paperlib.hardware.emulators.esc.FrameFaults` kwargs).

    Returns
    -------
    chain, faults, drive
        The chain, the frame faults and the (first) drive, or None when there is none.
    """
    cfg = {**DEFAULT_CONFIG, **(config or {})}
    prox = ProximitySensors(**{k: tuple(v) if isinstance(v, list) else v for k, v in cfg.get("proximity", {}).items()})
    drive: Cia402Drive | None = None
    slaves: list[EscSlave] = []
    couplers: list[Ek1828Coupler] = []
    for spec in cfg["chain"]:
        spec = _ints(dict(spec))
        kind = spec.pop("type")
        if kind == "ek1828":
            c = Ek1828Coupler(**spec)
            couplers.append(c)
            slaves.append(c)
        elif kind in ("cst_drive", "dual_cst_drive"):
            n = len(spec.get("axis_offsets") or (0, 0))
            d = Cia402Drive(plant=make_plant(spec.pop("plant", cfg.get("plant")), n), **spec)
            drive = drive or d
            slaves.append(d)
        elif kind in TERMINAL_TYPES:  # analog terminals (bridges, RTDs)
            slaves.append(make_terminal(kind, spec))
        else:
            raise ValueError(f"unknown emulated device type {kind!r}")
    if drive is not None:
        for c in couplers:
            c.input_fn = lambda d=drive: prox.bits(d.positions_rad)
    return EscChain(slaves), FrameFaults(**cfg.get("faults", {})), drive


def main(argv: list[str] | None = None) -> int:
    """Run the emulated chain on ``--ifname`` until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="Emulated EtherCAT chain (EK1828 + CiA 402 CST drives)")
    parser.add_argument("--ifname", required=True, help="interface the master's frames arrive on")
    parser.add_argument("--config", default="{}", help="JSON config (see build_chain)")
    parser.add_argument("--rt-priority", type=int, default=0,
                        help="run under SCHED_FIFO with this priority (1-99; 0 = normal scheduling). The emulator "
                             "sleeps between frames, so this only shortens its wake-up latency under CPU contention")
    args = parser.parse_args(argv)
    if args.rt_priority > 0:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt_priority))
        except (OSError, AttributeError) as exc:
            print(f"warning: SCHED_FIFO not available ({exc})", file=sys.stderr, flush=True)
    chain, faults, drive = build_chain(json.loads(args.config))
    stats = serve_until_signalled(chain, args.ifname, faults=faults, gc_threshold=(50000, 50, 100))
    report: dict[str, Any] = {"serve": stats, "slaves": slave_reports(chain)}
    if drive is not None:
        report["drive"] = {
            "q_rad": drive.q.tolist(),
            "qd_rad_s": drive.qd.tolist(),
            "tau_Nm": drive.tau.tolist(),
            "axis_states": [ax.state for ax in drive.axes],
            "axis_error_codes": [ax.error_code for ax in drive.axes],
            "watchdog_trips": drive.watchdog_trips,
            "cycles": drive.cycles,
            "sdo_requests": drive.coe.n_requests,
            "sdo_aborts": drive.coe.n_aborts,
        }
    report["drives"] = [{"name": s.name, "q_rad": s.q.tolist(), "axis_states": [ax.state for ax in s.axes]}
                        for s in chain.slaves if isinstance(s, Cia402Drive)]
    report["terminals"] = [s.report() for s in chain.slaves if hasattr(s, "report")]
    print("STATS " + json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
