"""What the emulated analog terminals share: a CoE slave with fixed default PDOs, sampled once per frame.

:class:`AnalogTerminal` is the ESC side of a Beckhoff-style analog input terminal
(:mod:`paperlib.hardware.analog_terminals` describes the objects): a CoE mailbox for the settings
(0x8000...), the default PDO assignment readable by SDO (0x1C00, 0x1C12/0x1C13 and the PDO
mapping objects, which SOEM reads to size the process image) and, every time a process-data frame
has read its inputs, one new sample (:meth:`sample`, after the frame was answered, like the
drive's application): so the terminal's value advances exactly once per cycle in lock-step, and its
inputs answer the frame after the one that triggered the sample. The subclasses are the strain-gauge
bridge (:mod:`.bridge_terminal`) and the RTD (:mod:`.rtd_terminal`).
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

from paperlib.hardware.analog_terminals import BECKHOFF_VENDOR_ID

from .esc.coe import CoeServer, ObjectDictionary, OdEntry
from .esc.registers import AlState, AlStatusCode
from .esc.sii import PdoEntrySpec, PdoSpec, SiiImage, SmEntry
from .esc.slave import Cmd, EscSlave

__all__ = ["AnalogTerminal"]

class AnalogTerminal(EscSlave):
    """An analog input terminal with fixed PDOs (see the module docstring).

    Parameters
    ----------
    product_code, revision, serial : int
        Identity (vendor: Beckhoff).
    name, description : str
        SII strings.
    txpdos, rxpdos : sequence of (int, sequence of (index, subindex, bits))
        The default PDOs: index and mapped entries.
    in_struct, out_struct : str
        ``struct`` formats of the input and output process data.
    """

    MBX_RX = (0x1000, 128)
    MBX_TX = (0x1080, 128)
    SM2 = 0x1100
    SM3 = 0x1180

    def __init__(self, *, product_code: int, revision: int, serial: int, name: str, description: str,
                 txpdos: Sequence[tuple[int, Sequence[tuple[int, int, int]]]],
                 rxpdos: Sequence[tuple[int, Sequence[tuple[int, int, int]]]],
                 in_struct: str, out_struct: str, vendor_id: int = BECKHOFF_VENDOR_ID) -> None:
        self.in_struct = struct.Struct(in_struct)
        self.out_struct = struct.Struct(out_struct)
        sii = SiiImage(
            vendor_id=vendor_id, product_code=product_code, revision=revision, serial=serial,
            strings=(name, description), rx_mailbox=self.MBX_RX, tx_mailbox=self.MBX_TX,
            mailbox_protocols=0x0004, coe_details=0x01, fmmu=(1, 2, 3),
            sms=(SmEntry(self.MBX_RX[0], self.MBX_RX[1], 0x26, 0x01, 1),
                 SmEntry(self.MBX_TX[0], self.MBX_TX[1], 0x22, 0x01, 2),
                 SmEntry(self.SM2, self.out_struct.size, 0x24, 0x01 if self.out_struct.size else 0x00, 3),
                 SmEntry(self.SM3, self.in_struct.size, 0x20, 0x01, 4)),
            txpdos=tuple(PdoSpec(i, 3, tuple(PdoEntrySpec(x, s, b) for x, s, b in e)) for i, e in txpdos),
            rxpdos=tuple(PdoSpec(i, 2, tuple(PdoEntrySpec(x, s, b) for x, s, b in e)) for i, e in rxpdos),
            pdi_control=0x05)
        super().__init__(sii, eeprom_8byte=False, dc=True, name=name)
        self.od = ObjectDictionary()
        od = self.od
        od.var(0x1000, "u32", 0x00001389, name="device type")
        od.var(0x1008, "str", name, name="device name")
        od.var(0x100A, "str", "paperlib esc emulator 1.0", name="software version")
        od.add(OdEntry(0x1018, 0, "u8", 4, name="identity"))
        for sub, v in enumerate((vendor_id, product_code, revision, serial), start=1):
            od.add(OdEntry(0x1018, sub, "u32", v, name="identity"))
        od.add(OdEntry(0x1C00, 0, "u8", 4, name="SM communication type"))
        for sub, v in enumerate((1, 2, 3, 4), start=1):
            od.add(OdEntry(0x1C00, sub, "u8", v, name="SM communication type"))
        for assign, pdos in ((0x1C12, rxpdos), (0x1C13, txpdos)):
            od.add(OdEntry(assign, 0, "u8", len(pdos), name=f"PDO assignment 0x{assign:04X}"))
            for sub, (index, entries) in enumerate(pdos, start=1):
                od.add(OdEntry(assign, sub, "u16", index, name=f"PDO assignment 0x{assign:04X}"))
                od.add(OdEntry(index, 0, "u8", len(entries), name=f"PDO mapping 0x{index:04X}"))
                for k, (x, s, b) in enumerate(entries, start=1):
                    od.add(OdEntry(index, k, "u32", (x << 16) | (s << 8) | b, name=f"PDO mapping 0x{index:04X}"))
        self.coe = CoeServer(od, lambda: self.al_state, [], max_data=self.MBX_RX[1] - 16)
        self.samples = 0
        self.control = 0

    # -- AL hooks ----------------------------------------------------------------------------
    def check_transition(self, old: int, new: int) -> int:
        if new == AlState.SAFEOP:
            if not self.check_sm(2, self.SM2, self.out_struct.size, outputs=True):
                return AlStatusCode.INVALID_OUTPUT_CONFIG
            if not self.check_sm(3, self.SM3, self.in_struct.size, outputs=False):
                return AlStatusCode.INVALID_INPUT_CONFIG
        return 0

    def on_state_change(self, old: int, new: int) -> None:
        if new >= AlState.SAFEOP and old < AlState.SAFEOP:
            self._publish()

    def on_mailbox(self, request: bytes) -> bytes | None:
        length, _addr, _chan, mtype = struct.unpack_from("<HHBB", request)
        if (mtype & 0x0F) != 0x03:
            return super().on_mailbox(request)
        return self.coe.handle(request[6 : 6 + length]) or None

    # -- process data ------------------------------------------------------------------------
    def logical(self, cmd: int, laddr: int, buf: bytearray, pos: int, n: int, incoming: bytes) -> int:
        inc = super().logical(cmd, laddr, buf, pos, n, incoming)
        if inc and self.al_state >= AlState.SAFEOP and cmd in (Cmd.LRW, Cmd.LRD):
            self.events.append(("out", -1))  # sample after the frame was answered
        return inc

    def on_outputs(self, sm_index: int, now: float) -> None:
        if sm_index == 2 and self.out_struct.size:
            self.control = self.out_struct.unpack_from(self.mem, self.SM2)[0] if self.al_state == AlState.OP else 0
            return
        if sm_index == -1:
            self.samples += 1
            self.sample(now)
            self._publish()

    def _publish(self) -> None:
        self.in_struct.pack_into(self.mem, self.SM3, *self.inputs())

    # -- the terminal's application (subclasses) -------------------------------------------------
    def sample(self, now: float) -> None:
        """Take one new sample of every channel (called once per process-data frame)."""
        raise NotImplementedError

    def inputs(self) -> Sequence[Any]:
        """The values of the input process data, in ``in_struct`` order."""
        raise NotImplementedError
