"""EtherCAT master for a chain of CiA 402 drives (any number of axes each) in CST, CSP or CSV mode, optionally with digital inputs.

Built on pysoem (SOEM).  :class:`EthercatMaster` brings the chain up and runs the cyclic
exchange; :func:`probe` lists what is on an interface (``paperlib hardware probe``). Which
devices the chain holds (identities in wiring order, each drive's axes with their object offsets
and velocity unit) is the rig's: its rig file's ``[[ethercat.slave]]`` tables
(:func:`chain_from_tables`; ``config/rigs/`` holds the flagship's). The axes form one flat list,
drive after drive in wiring order (:attr:`EthercatConfig.axes`): entry ``k`` of every per-axis
array (torques, positions, gear ratios) is axis ``k``. The drive profile is
:mod:`paperlib.hardware.cia402`, the errors :mod:`paperlib.hardware.ethercat_errors`, the
configuration and counters :mod:`paperlib.hardware.ethercat_config`, the drives' process data and
PRE-OP configuration :mod:`paperlib.hardware.ethercat_drives`, SOEM's interface and :func:`probe`
:mod:`paperlib.hardware.ethercat_bus` (all re-exported here).

Bring-up (:meth:`EthercatMaster.open`):

1. open the interface (optionally from inside a network namespace) and scan
   (``config_init``); no slave -> :class:`NoSlaveError`;
2. compare the chain with the expected one (name, vendor id, product code per position)
   and refuse a different chain, naming what was found (:class:`ChainMismatchError`);
3. in PRE-OP, from each drive's ``config_func`` (:func:`~paperlib.hardware.ethercat_drives.configure_drive`):
   check that each axis answers at its object offset (e.g. ETG.6010's 0x800 for a second axis:
   statusword 0x6841, rated torque 0x6876, device type 0x6FFF if present), check that the axis
   offers the mode its rig file names (``mode``: supported drive modes 0x6502 + offset, the
   mode's target object), set modes of operation 0x6060 + offset = 10 (CST), 8 (CSP) or 9 (CSV)
   and read it back through 0x6061 + offset, read rated torque 0x6076 + offset and max torque
   0x6072 + offset, and map the PDOs: axis ``k`` of the drive to RxPDO 0x1600 + k = controlword
   (U16) + target torque 0x6071 (I16; CST) / target position 0x607A (I32; CSP) / target velocity
   0x60FF (I32; CSV) and TxPDO 0x1A00 + k = statusword (U16), position (I32), velocity (I32),
   torque actual (I16), assigned through 0x1C12/0x1C13 (sub-index 0 written as one byte);
4. ``config_map``; check the mapped sizes; compute the expected working counter from the
   ESC rules (LRW: +2 per slave with outputs, +1 per slave with inputs) -- SOEM's
   ``expected_wkc`` undercounts by one when a slave's inputs are bit-sized (e.g. a coupler's
   four DIs), so it is reported but not used;
5. ``config_dc`` when the slaves offer distributed clocks (SYNC0 at the cycle time on the
   drives); SAFE-OP, then OP with process data running;
6. walk each axis' CiA 402 state machine to "operation enabled" (fault reset if needed).

Analog input terminals (rig-file roles ``bridge`` / ``rtd``: :mod:`paperlib.hardware.analog_terminals`)
are configured by SDO in their own ``config_func`` (settings written and read back), tared before
the axes are enabled when asked, decoded every cycle into :attr:`EthercatMaster.terminals`
``.values``; a reply whose terminal status has the error bit raises :class:`TerminalFault`.

:meth:`EthercatMaster.exchange` then runs one cycle: each axis' command in its mode's SI unit
(CST: motor torque [N m] -> per mille of the rated torque; CSP: joint position [rad] -> counts on
the unwrapped encoder scale; CSV: joint velocity [rad/s] -> velocity units), LRW, working-counter
check, and counts -> SI units. While the axes are not enabled a CSP axis is sent its actual
position (so enabling it does not move it), the others zero.  Every cycle's WKC is
checked; lost frames and WKC errors are counted and too many in a row raise
:class:`LostFrameError`.

Stale replies. SOEM tags each frame with one of only 16 indices and matches replies by index,
so a reply that comes back late (a slave or the wire paused for longer than the receive
timeout) can be taken for the answer to a *newer* frame with the same index: right working
counter, inputs several cycles old. Worse, if replies keep queuing in the socket the master
goes on reading one stale reply per cycle, permanently late (seen on the emulated rig after a
~10-ms pause of the emulator: the inputs then lagged the commands by 32 cycles for the rest of
the run). An LRW reply carries the outputs it was sent with (SOEM copies them back into the IOmap),
so :meth:`EthercatMaster.receive` compares them with the outputs of the frame it waits for, and
with distributed clocks also requires the reference clock's time to advance; a reply that fails
either test counts as a bad cycle (inputs not used) and the receive queue is emptied
(:meth:`EthercatMaster._flush`).  :meth:`EthercatMaster.disable` commands zero torque and walks the
drives down to "switch on disabled"; :meth:`EthercatMaster.close` is safe to call twice and
after any fault.

Units inside are SI: rad, rad/s, N m, s.  Positions are unwrapped across each axis'
32-bit counter.  ``gear_ratio`` converts motor to joint side for position and velocity
(default 1: motor side); torques are always motor torques.
"""

from __future__ import annotations

import logging
import math
import struct
import time
from typing import Any

import numpy as np

from paperlib.hardware.cia402 import (
    CW_DISABLE_VOLTAGE,
    CW_SHUTDOWN,
    CW_SWITCH_ON,
    ERROR_CODE,
    OPERATION_ENABLED,
    OPERATION_ENABLED_MASK,
    cia402_state,
    enable_step,
)
from paperlib.hardware.analog_terminals import TerminalBank, TerminalFault
from paperlib.hardware.coe import sdo_abort_text
from paperlib.hardware.ethercat_bus import AL_INIT as _INIT
from paperlib.hardware.ethercat_bus import AL_OP as _OP
from paperlib.hardware.ethercat_bus import AL_SAFEOP as _SAFEOP
from paperlib.hardware.ethercat_bus import (
    STATE_NAMES,
    drain,
    duplicate_sockets,
    open_interface,
    probe,
    set_nonblocking,
    state_report,
)
from paperlib.hardware.ethercat_bus import require_pysoem as _require_pysoem
from paperlib.hardware.ethercat_config import (
    SLAVE_KEYS,
    DriveAxis,
    EthercatConfig,
    ExchangeStats,
    SlaveIdentity,
    chain_from_tables,
)
from paperlib.hardware.ethercat_drives import axis_targets, configure_drive, drives_of, unwrap_offset
from paperlib.hardware.ethercat_errors import (
    BringUpError,
    ChainMismatchError,
    DriveStateError,
    EthercatError,
    LostFrameError,
    NoSlaveError,
    SdoAbortError,
    StateTransitionError,
)

__all__ = [
    "SlaveIdentity",
    "DriveAxis",
    "EthercatConfig",
    "SLAVE_KEYS",
    "chain_from_tables",
    "EthercatMaster",
    "ExchangeStats",
    "EthercatError",
    "NoSlaveError",
    "ChainMismatchError",
    "SdoAbortError",
    "LostFrameError",
    "StateTransitionError",
    "DriveStateError",
    "BringUpError",
    "TerminalFault",
    "probe",
    "cia402_state",
    "sdo_abort_text",
]

log = logging.getLogger(__name__)

TWO_PI = 2.0 * math.pi


class EthercatMaster:
    """pysoem-based master for a chain of CiA 402 drives with any number of axes, each in CST, CSP or CSV (and optionally digital inputs).

    Parameters
    ----------
    config : EthercatConfig
        Chain, its axes, scaling and timing.

    Attributes
    ----------
    n_axes : int
        Number of CiA 402 axes (``len(config.axes)``): the length of every per-axis array.

    Examples
    --------
    >>> m = EthercatMaster(EthercatConfig(**chain_from_tables(tables)))  # doctest: +SKIP
    >>> m.open("eth1")                                        # doctest: +SKIP
    >>> q, qd, tau, di, ok = m.exchange(np.array([0.1, 0.0])) # doctest: +SKIP
    >>> m.close()                                             # doctest: +SKIP
    """

    def __init__(self, config: EthercatConfig) -> None:
        self.config = config
        self.ifname: str | None = None
        self.stats = ExchangeStats()
        self.master: Any = None
        self.slaves: list[Any] = []
        self.found: list[dict[str, Any]] = []
        self.expected_wkc = 0
        self.soem_expected_wkc = 0
        self.has_dc = False
        self.iomap_size = 0
        n = self.n_axes = len(config.axes)
        self.rated_torque_Nm = np.zeros(n)
        self.rated_current_A = np.zeros(n)
        self.max_torque_permille = np.zeros(n, dtype=int)
        self.axis_device_type: list[int | None] = [None] * n  # 0x67FF + offset, when the axis has it
        self.timings: dict[str, float] = {}
        self.sdo_retried = 0
        self.nonblocking = False
        self._socket_fds: list[int] = []
        self.digital_outputs = 0
        self._layout = drives_of(config.axes)  # one entry per drive, in wiring order
        self._drive_slaves: list[Any] = []  # their pysoem slaves
        self.terminals = TerminalBank(config.terminals)  # analog terminals (bridges, RTDs), if any
        self._drive: Any = None  # the first drive (identity, flushes, default slave of sdo_read/sdo_write)
        self._coupler: Any = None
        self._di_shift = 0
        self._di_mask = 0x0F
        self._operational = False
        self._enabled = False
        self._closed = False
        self._cw = [CW_DISABLE_VOLTAGE] * n
        self._last_counts: list[int | None] = [None] * n
        self._turn_offset = [0] * n
        cfg = self.config
        self._pos_scale = np.array([TWO_PI / cfg.counts_per_rev / g for g in cfg.gear_ratio])
        self._vel_scale = self._pos_scale * np.array([ax.velocity_unit_counts_s for ax in cfg.axes])
        self._zero_permille = [0] * n
        self._modes = [ax.mode for ax in cfg.axes]
        self._csp = [a for a, mode in enumerate(self._modes) if mode == "csp"]
        self._idle = [0] * n  # targets while not enabled (a CSP axis: its actual position)
        self.position = np.zeros(n)
        self.velocity = np.zeros(n)
        self.torque = np.zeros(n)
        self.statusword = [0] * n
        self.digital_inputs = 0
        self._sent: list[bytes] = []  # each drive's outputs of the frame in flight (to recognise its reply)
        self._last_dc = -1  # DC system time of the last accepted reply [ns]
        self._drain: list[Any] | None = None  # duplicates of SOEM's socket, to flush stale replies

    # ------------------------------------------------------------------------------------------
    # bring-up
    # ------------------------------------------------------------------------------------------
    def open(self, ifname: str, netns: str | None = None) -> None:
        """Bring the chain up to OP and (by default) enable every axis.

        Parameters
        ----------
        ifname : str
            Network interface of the EtherCAT segment.
        netns : str, optional
            Network namespace that holds ``ifname`` (the socket is opened inside it).

        Raises
        ------
        NoSlaveError, ChainMismatchError, SdoAbortError, BringUpError,
        StateTransitionError, DriveStateError, EthercatError
        """
        ps = _require_pysoem()
        cfg = self.config
        t0 = time.perf_counter()
        self.ifname = ifname
        self._closed = False
        self.master = ps.Master()
        try:
            self._socket_fds = open_interface(self.master, ifname, netns)
            n = self.master.config_init()
            for _ in range(max(1, cfg.scan_attempts) - 1):
                if n > 0:
                    break
                time.sleep(0.2)
                n = self.master.config_init()
            self.timings["scan_s"] = time.perf_counter() - t0
            if n <= 0:
                raise NoSlaveError(f"no EtherCAT slave found on {ifname} (config_init returned {n}, "
                                   f"{max(1, cfg.scan_attempts)} scan(s))")
            self.slaves = list(self.master.slaves)
            self.found = [self._describe(i, s) for i, s in enumerate(self.slaves)]
            self._check_chain()
            self._drive_slaves = [self.slaves[d.slave] for d in self._layout]
            self._drive = self._drive_slaves[0]
            self._coupler = self.slaves[cfg.coupler_index] if cfg.coupler_index is not None else None
            for d, s in zip(self._layout, self._drive_slaves):
                s.config_func = (lambda pos, d=d, s=s: configure_drive(self, d, s))
            for pos, term in self.terminals.attach(self.slaves):
                self.slaves[pos].config_func = (lambda p, t=term: self.terminals.configure(self, t))
            self.iomap_size = self.master.config_map()
            self.timings["config_map_s"] = time.perf_counter() - t0
            self._check_mapping()
            if cfg.use_dc:
                self.has_dc = bool(self.master.config_dc())
                if self.has_dc:
                    for s in self._drive_slaves:
                        s.dc_sync(True, int(round(cfg.cycle_time_s * 1e9)))
            self._wait_state(_SAFEOP, cfg.state_timeout_s, exchange=False)
            self.timings["safeop_s"] = time.perf_counter() - t0
            self._request_op()
            self.timings["op_s"] = time.perf_counter() - t0
            self._operational = True
            if self.terminals.tares:
                self.tare()
            if cfg.enable_axes:
                self.enable()
            self.timings["enabled_s"] = time.perf_counter() - t0
            if cfg.nonblocking_receive:
                self.nonblocking = set_nonblocking(self._socket_fds)
        except BaseException:
            self._abort_bringup()
            raise

    @staticmethod
    def _describe(pos: int, s: Any) -> dict[str, Any]:
        return {"position": pos, "name": s.name, "vendor": s.man, "product": s.id, "revision": s.rev}

    def _found_text(self) -> str:
        return ", ".join(
            f"{d['position']}: {d['name']!r} (vendor 0x{d['vendor']:08X}, product 0x{d['product']:08X}, "
            f"rev 0x{d['revision']:08X})"
            for d in self.found
        )

    def _check_chain(self) -> None:
        expected = self.config.chain
        problems = []
        if len(self.found) != len(expected):
            problems.append(f"{len(self.found)} slave(s) instead of {len(expected)}")
        for i, (exp, got) in enumerate(zip(expected, self.found)):
            if (got["vendor"], got["product"]) != (exp.vendor_id, exp.product_code) or (
                exp.revision is not None and got["revision"] != exp.revision
            ):
                problems.append(f"position {i} is {got['name']!r} (vendor 0x{got['vendor']:08X}, "
                                f"product 0x{got['product']:08X}) instead of {exp.describe()}")
        if problems:
            raise ChainMismatchError(
                f"unexpected EtherCAT chain on {self.ifname}: {'; '.join(problems)}. "
                f"Expected [{', '.join(e.describe() for e in expected)}], found [{self._found_text()}]"
            )

    # -- SDO helpers ---------------------------------------------------------------------------
    def _slave_name(self, slave: Any) -> str:
        try:
            return f"{slave.name or '?'} (position {self.slaves.index(slave)})"
        except ValueError:
            return str(slave.name)

    def _retry(self, transfer: Any) -> Any:
        """Run an SDO transfer, again up to ``config.sdo_retries`` times on a mailbox timeout.

        A mailbox that did not answer in time (``WkcError``/``MailboxError``/``PacketError``:
        e.g. the slave's CPU was busy) is retried; SOEM empties the slave's out-mailbox before
        each new request, so a late answer to the previous one cannot be taken for this one.
        Aborts (``SdoError``) are never retried. Our transfers are idempotent.
        """
        ps = _require_pysoem()
        for attempt in range(self.config.sdo_retries + 1):
            try:
                return transfer()
            except (ps.MailboxError, ps.PacketError, ps.WkcError):
                if attempt == self.config.sdo_retries:
                    raise
                self.sdo_retried += 1
                log.warning("SDO transfer timed out; retrying (%d/%d)", attempt + 1, self.config.sdo_retries)
        raise AssertionError("unreachable")

    def sdo_read(self, index: int, subindex: int, fmt: str, slave: Any = None) -> Any:
        """Read a CoE object and unpack it with ``struct`` format ``fmt`` (e.g. ``"<H"``).

        Raises
        ------
        SdoAbortError
            With index:subindex, abort code and its text.
        """
        s = slave if slave is not None else self._drive
        raw = self._sdo(lambda: s.sdo_read(index, subindex), s, index, subindex, "upload")
        size = struct.calcsize(fmt)
        if len(raw) != size:
            raise BringUpError(
                f"0x{index:04X}:{subindex:02X} on {self._slave_name(s)} is {len(raw)} byte(s), expected {size}"
            )
        return struct.unpack(fmt, raw)[0]

    def sdo_write(self, index: int, subindex: int, fmt: str, value: Any, slave: Any = None) -> None:
        """Write a CoE object packed with ``struct`` format ``fmt`` (its size is the transfer size).

        Raises
        ------
        SdoAbortError
            With index:subindex, abort code and its text.
        """
        s = slave if slave is not None else self._drive
        data = struct.pack(fmt, value)
        self._sdo(lambda: s.sdo_write(index, subindex, data), s, index, subindex, "download")

    def _sdo(self, transfer: Any, s: Any, index: int, subindex: int, action: str) -> Any:
        """Run an SDO ``action`` ("upload" / "download") with retries; aborts and failures as our errors."""
        ps = _require_pysoem()
        try:
            return self._retry(transfer)
        except ps.SdoError as exc:
            raise SdoAbortError(self._slave_name(s), index, subindex, exc.abort_code, action) from exc
        except (ps.MailboxError, ps.PacketError, ps.WkcError) as exc:
            raise EthercatError(
                f"SDO {action} of 0x{index:04X}:{subindex:02X} on {self._slave_name(s)} failed: "
                f"{type(exc).__name__} {getattr(exc, 'desc', '') or getattr(exc, 'error_code', '')}"
            ) from exc

    def _check_mapping(self) -> None:
        for lay, d in zip(self._layout, self._drive_slaves):
            if len(d.output) != lay.rx.size or len(d.input) != lay.tx.size:
                raise BringUpError(
                    f"drive {self._slave_name(d)}: process data mapped as {len(d.output)} output / {len(d.input)} "
                    f"input bytes, expected {lay.rx.size} / {lay.tx.size} for its {len(lay.axes)} axis/axes"
                )
        if self.terminals:
            self.terminals.check_mapping(self._slave_name)
        # expected WKC by the ESC rules: LRW +2 for a slave with outputs, +1 with inputs
        wkc = 0
        for s in self.slaves:
            wkc += (2 if len(s.output) > 0 else 0) + (1 if len(s.input) > 0 else 0)
        self.expected_wkc = wkc
        self.soem_expected_wkc = int(self.master.expected_wkc)
        if wkc != self.soem_expected_wkc:
            log.info("expected WKC %d (ESC rules) vs SOEM's expected_wkc %d", wkc, self.soem_expected_wkc)
        if self._coupler is not None and len(self._coupler.input) > 0:
            # where the coupler's (bit-sized) inputs start: read its input FMMU back
            self._di_shift = 0
            try:
                for k in range(4):
                    raw = self._coupler._fprd(0x0600 + 16 * k, 16)
                    if raw[12] & 1 and raw[11] == 1:
                        self._di_shift = raw[6]  # LogStartbit of the input FMMU
                        break
            except Exception as exc:  # noqa: BLE001 -- pysoem WkcError etc.: assume bit 0
                log.warning("could not read the coupler's input FMMU (%s); assuming DIs start at bit 0", exc)

    # -- state handling --------------------------------------------------------------------------
    def _fault_context(self) -> str:
        """AL states and the axes' error codes (0x603F), best effort, for error messages."""
        parts = [f"EtherCAT: {state_report(self.master, self.slaves)}"]
        codes = []
        for lay, s in zip(self._layout, self._drive_slaves):
            for a, off in zip(lay.axes, lay.offsets):
                name = self.config.axes[a].name
                try:
                    codes.append(f"axis {name} error code 0x{self.sdo_read(ERROR_CODE + off, 0, '<H', s):04X}")
                except Exception:  # noqa: BLE001 -- diagnostics only
                    codes.append(f"axis {name} error code unreadable")
        return "; ".join(parts + codes)

    def _wait_state(self, state: int, timeout: float, exchange: bool) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if exchange:
                self._raw_cycle()
            got = self.master.state_check(state, 2000)
            if got == state:
                return
            if time.monotonic() > deadline:
                raise StateTransitionError(
                    f"EtherCAT slaves did not reach {STATE_NAMES[state]} within {timeout:.1f} s: {state_report(self.master, self.slaves)}"
                )
            if exchange:
                time.sleep(self.config.cycle_time_s)

    def _request_op(self) -> None:
        ps = _require_pysoem()
        self._raw_cycle()
        self.master.state = ps.OP_STATE
        self.master.write_state()
        self._wait_state(_OP, self.config.state_timeout_s, exchange=True)

    def _raw_cycle(self) -> int:
        self._pack_outputs()
        self.master.send_processdata()
        return self.master.receive_processdata(int(self.config.receive_timeout_s * 1e6))

    def _idle_targets(self) -> list[int]:
        """Targets while not enabled: zero torque / velocity, a CSP axis' last actual position [counts]."""
        if not self._csp:
            return self._zero_permille
        for a in self._csp:
            last = self._last_counts[a]
            self._idle[a] = 0 if last is None else last
        return self._idle

    def _pack_outputs(self, permille: list[int] | None = None) -> None:
        """Every drive's outputs: the axes' controlwords and targets in their modes' units (None: idle targets)."""
        p = self._idle_targets() if permille is None else permille
        sent = self._sent = []
        for lay, d in zip(self._layout, self._drive_slaves):
            out = lay.pack(self._cw, p)
            sent.append(out)
            d.output = out
        if self._coupler is not None and len(self._coupler.output) > 0:
            self._coupler.output = bytes([self.digital_outputs & 0xFF])
        if self.terminals:
            self.terminals.pack_outputs()

    def tare(self, cycles: int = 20) -> None:
        """Tare the bridge channels configured with ``tare = true`` (their terminal's Tara bit, then cleared).

        The terminal zeroes its value on the rising edge of 0x7000:05; the bit is held ``cycles``
        process-data cycles, then cleared for as many, before the drives are enabled.
        """
        for on in (True, False):
            self.terminals.set_tare(on)
            for _ in range(cycles):
                self._cycle_for_enable()
                time.sleep(self.config.cycle_time_s)

    # -- CiA 402 -----------------------------------------------------------------------------------
    def enable(self) -> None:
        """Walk every axis to CiA 402 'operation enabled' (fault reset first if needed).

        Raises
        ------
        DriveStateError
            Naming the axis, its last state and statusword.
        """
        self._enabled = False
        deadline = time.monotonic() + self.config.cia402_timeout_s
        reset_sent = [False] * self.n_axes
        while True:
            self._cycle_for_enable()
            states = [cia402_state(sw) for sw in self.statusword]
            if all(st == "operation enabled" for st in states):
                self._enabled = True
                return
            for axis, st in enumerate(states):
                self._cw[axis], reset_sent[axis] = enable_step(st, self._cw[axis], reset_sent[axis])
            if time.monotonic() > deadline:
                detail = ", ".join(f"axis {ax.name}: {states[a]} (statusword 0x{self.statusword[a]:04X})"
                                   for a, ax in enumerate(self.config.axes))
                raise DriveStateError(
                    f"drive axes did not reach 'operation enabled' within {self.config.cia402_timeout_s:.1f} s: {detail}"
                )
            time.sleep(max(self.config.cycle_time_s, 0.0005))

    def _cycle_for_enable(self) -> None:
        wkc = self._raw_cycle()
        if wkc == self.expected_wkc:
            self._unpack_inputs()

    # ------------------------------------------------------------------------------------------
    # cyclic exchange
    # ------------------------------------------------------------------------------------------
    def exchange(self, torque_Nm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
        """One process-data cycle: command the axes, return the drive's actual values.

        Same as :meth:`send` followed by :meth:`receive` (one round trip inside the call).

        Parameters
        ----------
        torque_Nm : array_like, shape (n_axes,)
            Each axis' command in its mode's unit (:meth:`send`): target motor torque [N m] of a
            CST axis, target position [rad] of a CSP axis, target velocity [rad/s] of a CSV axis.

        Returns
        -------
        position_rad, velocity_rad_s, torque_Nm : ndarray, shape (n_axes,)
            Actual values (preallocated arrays, overwritten every cycle; copy to keep).
            After a bad cycle they hold the last good values.
        digital_inputs : int
            DI bit field of the ``digital_inputs`` slave (the flagship: bit 0/1 = proximity sensors of joints 1/2).
        wkc_ok : bool
            Whether this cycle's working counter was the expected one.

        Raises
        ------
        LostFrameError
            After ``max_consecutive_errors`` bad cycles in a row.
        DriveStateError
            When an axis leaves 'operation enabled' (e.g. a drive fault).
        """
        self.send(torque_Nm)
        return self.receive()

    def send(self, torque_Nm: np.ndarray) -> None:
        """First half of a cycle: pack each axis' target and send the process-data frame.

        ``torque_Nm`` (shape (n_axes,)) holds each axis' command in its mode's unit: a CST axis'
        target motor torque [N m] (to per mille of the rated torque, clamped to the max torque
        0x6072 + offset), a CSP axis' target position [rad, joint side: gear ratio applied] (to
        counts on the unwrapped scale of the positions read, sent modulo 2^32), a CSV axis'
        target velocity [rad/s, joint side] (to units of 0x606C, clipped to I32).

        Does not wait for the frame to come back: :meth:`receive` collects it. A real-time
        loop sends at the end of cycle k and receives at the start of cycle k + 1, so the
        frame's round trip overlaps the wait for the next deadline instead of lengthening
        the cycle (SOEM's usual split of ``send_processdata`` / ``receive_processdata``).

        Raises
        ------
        EthercatError
            Before :meth:`open` / after :meth:`close`.
        """
        if not self._operational:
            raise EthercatError("send() before open() / after close()")
        if not self._enabled:
            self._pack_outputs(None)
        else:
            self._pack_outputs(axis_targets(torque_Nm, self._modes, self.rated_torque_Nm, self.max_torque_permille,
                                            self._pos_scale, self._turn_offset, self._vel_scale))
        self.master.send_processdata()

    def receive(self, timeout_s: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
        """Second half of a cycle: wait for the frame sent by :meth:`send`, check its WKC, unpack.

        Parameters
        ----------
        timeout_s : float, optional
            How long to wait for the frame [s] (default ``config.receive_timeout_s``). A frame
            not back by then counts as lost.

        Returns
        -------
        position_rad, velocity_rad_s, torque_Nm, digital_inputs, wkc_ok
            As :meth:`exchange`.

        Raises
        ------
        LostFrameError
            After ``max_consecutive_errors`` bad cycles in a row.
        DriveStateError
            When an axis leaves 'operation enabled' (e.g. a drive fault).
        """
        if not self._operational:
            raise EthercatError("receive() before open() / after close()")
        timeout = self.config.receive_timeout_s if timeout_s is None else timeout_s
        wkc = self.master.receive_processdata(int(timeout * 1e6))
        st = self.stats
        st.cycles += 1
        st.last_wkc = wkc
        ok = wkc == self.expected_wkc
        if ok and not self._fresh_reply():
            ok = False
            st.stale_replies += 1
            self._flush()
        if ok:
            st.consecutive_errors = 0
            self._unpack_inputs()
            if self.terminals and self.terminals.fault_text is not None:
                raise TerminalFault(f"analog terminal fault at cycle {st.cycles}: {self.terminals.fault_text}")
            if self._enabled and any(sw & OPERATION_ENABLED_MASK != OPERATION_ENABLED for sw in self.statusword):
                self._enabled = False
                detail = ", ".join(
                    f"axis {ax.name}: {cia402_state(self.statusword[a])} (statusword 0x{self.statusword[a]:04X})"
                    for a, ax in enumerate(self.config.axes)
                )
                raise DriveStateError(
                    f"drive left 'operation enabled' at cycle {st.cycles}: {detail}; {self._fault_context()}"
                )
        else:
            st.wkc_errors += 1
            if wkc <= 0:
                st.lost_frames += 1
            st.consecutive_errors += 1
            st.max_consecutive_errors = max(st.max_consecutive_errors, st.consecutive_errors)
            if st.consecutive_errors >= self.config.max_consecutive_errors:
                raise LostFrameError(
                    f"EtherCAT: {st.consecutive_errors} process-data cycles in a row without the expected working counter "
                    f"on {self.ifname} (last WKC {wkc}, expected {self.expected_wkc}; "
                    f"{'frame lost / no answer' if wkc <= 0 else ('a stale reply to an older frame' if wkc == self.expected_wkc else 'a slave did not process its data')}); "
                    f"totals: {st.lost_frames} lost, {st.stale_replies} stale, {st.wkc_errors} bad in {st.cycles} cycles"
                )
        return self.position, self.velocity, self.torque, self.digital_inputs, ok

    def _fresh_reply(self) -> bool:
        """Whether the reply just received answers the frame last sent (module docstring)."""
        for d, sent in zip(self._drive_slaves, self._sent):
            if d.output[:len(sent)] != sent:
                return False
        if self.has_dc:
            dc = self.master.dc_time
            if dc <= self._last_dc:
                return False
            self._last_dc = dc
        return True

    def _flush(self) -> None:
        """Drop every reply waiting in SOEM's receive queue (called right after a stale reply).

        Nothing of ours is in flight then (the next frame is sent later), so whatever is queued
        answers frames given up on. Read directly from SOEM's raw socket (a duplicate of its
        descriptor, without blocking); without the descriptor, fall back to one blocking register
        read, which drops queued replies until its own comes back (not all of them if one
        carries the read's own index: hence the direct read first).
        """
        self.stats.flushes += 1
        if self._drain is None:
            self._drain = duplicate_sockets(self._socket_fds)
        if self._drain:
            self.stats.flushed_replies += drain(self._drain)
            return
        try:
            self._drive._fprd(0x0130, 2, int(self.config.flush_timeout_s * 1e6))
        except Exception:  # noqa: BLE001 -- a lost flush frame is just another bad cycle
            pass

    def _unpack_inputs(self) -> None:
        """Every drive's inputs into the per-axis statuswords and SI actual values (positions unwrapped)."""
        for lay, d in zip(self._layout, self._drive_slaves):
            vals = lay.tx.unpack(d.input)
            for j, axis in enumerate(lay.axes):
                sw, counts, vel, tq = vals[4 * j:4 * j + 4]
                self.statusword[axis] = sw
                self._turn_offset[axis] = unwrap_offset(counts, self._last_counts[axis], self._turn_offset[axis])
                self._last_counts[axis] = counts
                self.position[axis] = (counts + self._turn_offset[axis]) * self._pos_scale[axis]
                self.velocity[axis] = vel * self._vel_scale[axis]
                self.torque[axis] = tq * 1e-3 * self.rated_torque_Nm[axis]
        if self._coupler is not None and len(self._coupler.input) > 0:
            self.digital_inputs = (self._coupler.input[0] >> self._di_shift) & self._di_mask
        if self.terminals:
            self.terminals.unpack()

    # ------------------------------------------------------------------------------------------
    # shutdown
    # ------------------------------------------------------------------------------------------
    def disable(self, cycles: int = 10) -> None:
        """Zero torque, then disable operation -> shutdown -> disable voltage (never raises).

        Runs ``cycles`` process-data cycles per step; lost frames are tolerated (the drive's
        SM watchdog disables it anyway if the link is gone).
        """
        if self.master is None or not self._operational:
            return
        self._enabled = False
        for cw in (CW_SWITCH_ON, CW_SHUTDOWN, CW_DISABLE_VOLTAGE):
            self._cw = [cw] * self.n_axes
            for _ in range(cycles):
                try:
                    if self._raw_cycle() == self.expected_wkc:
                        self._unpack_inputs()
                except Exception as exc:  # noqa: BLE001 -- best effort on the way down
                    log.warning("disable: process-data cycle failed: %s", exc)
                    break
                time.sleep(max(self.config.cycle_time_s, 0.0005))

    def close(self) -> None:
        """Disable the drives, request INIT and release the interface. Safe to call twice."""
        if self._closed or self.master is None:
            self._closed = True
            return
        try:
            self.disable()
        finally:
            try:
                if self.slaves:
                    self.master.state = _INIT
                    self.master.write_state()
            except Exception as exc:  # noqa: BLE001
                log.warning("close: requesting INIT failed: %s", exc)
            for sock in self._drain or ():
                sock.close()
            self._drain = None
            try:
                self.master.close()
            except Exception as exc:  # noqa: BLE001
                log.warning("close: closing the interface failed: %s", exc)
            self._operational = False
            self._enabled = False
            self._closed = True

    def _abort_bringup(self) -> None:
        self._operational = False
        self._enabled = False
        try:
            if self.master is not None:
                if self.slaves:
                    self.master.state = _INIT
                    self.master.write_state()
                self.master.close()
        except Exception as exc:  # noqa: BLE001
            log.warning("cleanup after failed bring-up: %s", exc)
        self._closed = True

    def __enter__(self) -> "EthercatMaster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- info ------------------------------------------------------------------------------------
    @property
    def operational(self) -> bool:
        """Whether the chain is in OP (after a successful :meth:`open`, before :meth:`close`)."""
        return self._operational

    @property
    def enabled(self) -> bool:
        """Whether every axis is in CiA 402 'operation enabled'."""
        return self._enabled

    @property
    def consecutive_errors(self) -> int:
        """Current run of cycles without the expected working counter (lost frames included).

        This is what :func:`paperlib.hardware.loop.run_loop` reads as ``rig.lost_frames``.
        """
        return self.stats.consecutive_errors

    def counters(self) -> dict[str, int]:
        """Link counters (cycles, WKC errors, lost frames, longest bad run) for loop statistics."""
        st = self.stats
        return {
            "cycles": st.cycles,
            "wkc_errors": st.wkc_errors,
            "lost_frames": st.lost_frames,
            "max_consecutive_wkc_errors": st.max_consecutive_errors,
            "stale_replies": st.stale_replies,
            "flushes": st.flushes,
            "flushed_replies": st.flushed_replies,
        }
