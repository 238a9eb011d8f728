"""A line of emulated slaves that processes EtherCAT frames as the real chain does.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import struct
from typing import Sequence

from .frames import Cmd, parse_frame
from .registers import _U16, _U32
from .slave import EscSlave

__all__ = ["EscChain"]

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
