"""One emulated EtherCAT slave controller: registers, SII access, FMMUs, SyncManagers, DC, AL states, mailbox.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`). Device behaviour lives in
subclasses of :class:`EscSlave` (:mod:`paperlib.hardware.emulators.devices`).
"""

from __future__ import annotations

import os
import struct
import time
from collections import deque
from typing import Any

from .coe import MBX_ERR_UNSUPPORTED_PROTOCOL, MBX_TYPE_ERR
from .frames import Cmd
from .registers import (
    _I64,
    _U16,
    _U32,
    _U64,
    MEM_SIZE,
    N_FMMU,
    N_SM,
    REG_AL_CONTROL,
    REG_AL_STATUS,
    REG_AL_STATUS_CODE,
    REG_BUILD,
    REG_DC_RECV_TIME_EPU,
    REG_DC_RECV_TIME_P0,
    REG_DC_SYSTEM_OFFSET,
    REG_DC_SYSTEM_TIME,
    REG_DL_STATUS,
    REG_FEATURES,
    REG_FMMU0,
    REG_FMMU_COUNT,
    REG_PDI_CONTROL,
    REG_PORT_DESC,
    REG_RAM_SIZE,
    REG_REVISION,
    REG_SII_ADDRESS,
    REG_SII_CONTROL,
    REG_SII_DATA,
    REG_SM0,
    REG_SM_COUNT,
    REG_STATION_ADDR,
    REG_TYPE,
    REG_WD_DIVIDER,
    REG_WD_STATUS_PD,
    REG_WD_TIME_PD,
    REG_WD_TIME_PDI,
    REGISTER_END,
    SII_CMD_MASK,
    SII_CMD_READ,
    SII_CMD_RELOAD,
    SII_CMD_WRITE,
    SII_ERR_CMD,
    SII_READ_8BYTE,
    AlState,
    AlStatusCode,
)
from .sii import SiiImage, build_sii

__all__ = ["EscSlave"]

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
