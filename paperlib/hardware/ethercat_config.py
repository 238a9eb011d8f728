"""What the EtherCAT master expects and counts: the chain and its drive axes (from a rig file), its settings, its counters."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

from paperlib.hardware import cia402
from paperlib.hardware.analog_terminals import TERMINAL_ROLES, AnalogChannel, terminal_channels

__all__ = ["SlaveIdentity", "found_summary", "DriveAxis", "EthercatConfig", "SLAVE_KEYS", "AXIS_KEYS", "chain_from_tables",
           "ExchangeStats"]


@dataclasses.dataclass(frozen=True)
class SlaveIdentity:
    """Expected identity of one slave of the chain.

    Attributes
    ----------
    name : str
        Short name for messages.
    vendor_id, product_code : int
        From the slave's SII.
    revision : int or None
        Checked only when given.
    role : str
        What the master does with it: ``"drive"`` (a CiA 402 drive with one or more axes),
        ``"digital_inputs"`` (its digital inputs carry the zeroing sensors), ``"bridge"`` /
        ``"rtd"`` (an analog terminal: :mod:`paperlib.hardware.analog_terminals`) or ``""`` (nothing).
    """

    name: str
    vendor_id: int
    product_code: int
    revision: int | None = None
    role: str = ""

    def describe(self) -> str:
        rev = f" rev 0x{self.revision:08X}" if self.revision is not None else ""
        return f"{self.name} (vendor 0x{self.vendor_id:08X}, product 0x{self.product_code:08X}{rev})"


@dataclasses.dataclass(frozen=True)
class DriveAxis:
    """One CiA 402 axis of the chain (a drive's axis ``k`` has its objects at ``0x6000 + offset``).

    Attributes
    ----------
    slave : int
        Position (0-based, wiring order) in the chain of the drive that holds the axis.
    offset : int
        Object index offset of the axis (0x000 for a drive's first axis; ETG.6010: ``k * 0x800``).
    velocity_unit_counts_s : float
        One unit of the axis' velocity actual value 0x606C [counts/s].
    name : str
        Short name for messages (default: the drive's name and the axis letter, e.g. ``"BE2-090-20/B"``).
    mode : str
        Mode of operation: ``"cst"`` (cyclic synchronous torque: the master sends a target torque),
        ``"csp"`` (position: a target position) or ``"csv"`` (velocity: a target velocity);
        :data:`paperlib.hardware.cia402.MODES`.
    """

    slave: int
    offset: int = 0
    velocity_unit_counts_s: float = 1.0
    name: str = ""
    mode: str = "cst"


@dataclasses.dataclass
class EthercatConfig:
    """Configuration of :class:`EthercatMaster`.

    Attributes
    ----------
    chain : tuple of SlaveIdentity
        Expected slaves in wiring order (a rig file's ``[[ethercat.slave]]`` tables:
        :func:`chain_from_tables`).
    coupler_index : int or None
        Position (0-based) in ``chain`` of the slave whose digital inputs are read (None: none).
    terminals : tuple of AnalogChannel
        The channels of the chain's analog terminals (bridges, RTDs), in wiring order.
    axes : tuple of DriveAxis
        The CiA 402 axes, drive after drive in wiring order and, within a drive, in the order the
        rig file lists them: axis ``k`` drives the robot's drive ``k`` (:func:`chain_from_tables`).
    counts_per_rev : int
        Encoder counts per motor revolution (the rig takes them from the robot description).
    gear_ratio : tuple of float
        Motor angle / joint angle per axis (one per entry of ``axes``; empty: 1 for every axis),
        applied to positions and velocities.
    max_torque_permille : int or None
        Written to every axis' max torque (0x6072 + offset) at bring-up when given; the master
        also clamps to it.
    cycle_time_s : float
        Nominal cycle time [s] (SYNC0 period, bring-up loop period).
    use_dc : bool
        Configure distributed clocks when the slaves offer them.
    receive_timeout_s : float
        Timeout of one process-data frame [s].
    flush_timeout_s : float
        Timeout of the register read that flushes stale replies (see the module docstring) [s].
    max_consecutive_errors : int
        Lost frames / WKC errors in a row before :class:`LostFrameError`.
    pd_watchdog_s : float or None
        Process-data (SM) watchdog written to the drive, None = leave the device default.
    scan_attempts : int
        How many times the bus is scanned (``config_init``) before :class:`NoSlaveError`, 0.2 s
        apart: a slave still booting, or a busy host, may miss the first scan's short timeouts.
    state_timeout_s, cia402_timeout_s : float
        Timeouts for reaching SAFE-OP/OP and CiA 402 operation enabled [s].
    enable_axes : bool
        Walk every axis to operation enabled in :meth:`EthercatMaster.open`.
    sdo_retries : int
        Retries of an SDO transfer whose mailbox answer timed out (not of aborts).
    nonblocking_receive : bool
        After bring-up, make SOEM's socket non-blocking so that waiting for a lost frame takes
        ``receive_timeout_s`` and not a scheduler tick (see :meth:`EthercatMaster._set_nonblocking`).
        Off by default (a late frame is then waited for up to a tick); the real-time rig
        (:class:`paperlib.hardware.rig.HardwareRig`) turns it on.
    """

    chain: tuple[SlaveIdentity, ...]
    coupler_index: int | None = None
    axes: tuple[DriveAxis, ...] = ()
    terminals: tuple[AnalogChannel, ...] = ()
    counts_per_rev: int = 65536
    gear_ratio: tuple[float, ...] = ()
    max_torque_permille: int | None = None
    cycle_time_s: float = 0.00025
    use_dc: bool = True
    receive_timeout_s: float = 0.001
    flush_timeout_s: float = 0.002
    max_consecutive_errors: int = 20
    pd_watchdog_s: float | None = None
    scan_attempts: int = 3
    state_timeout_s: float = 3.0
    cia402_timeout_s: float = 1.0
    enable_axes: bool = True
    sdo_retries: int = 2
    nonblocking_receive: bool = False

    def __post_init__(self) -> None:
        if not self.axes:
            raise ValueError("EthercatConfig: no CiA 402 axis (a chain needs a slave with role 'drive')")
        for ax in self.axes:
            if not 0 <= ax.slave < len(self.chain) or self.chain[ax.slave].role != "drive":
                raise ValueError(f"EthercatConfig: axis {ax.name or ax.offset} is on chain position {ax.slave}, "
                                 "which is not a slave with role 'drive'")
        for ch in self.terminals:
            if not 0 <= ch.slave < len(self.chain) or self.chain[ch.slave].role != ch.role:
                raise ValueError(f"EthercatConfig: analog channel {ch.terminal} is on chain position {ch.slave}, "
                                 f"which is not a slave with role {ch.role!r}")
        if not self.gear_ratio:
            self.gear_ratio = (1.0,) * len(self.axes)
        if len(self.gear_ratio) != len(self.axes):
            raise ValueError(f"EthercatConfig: {len(self.gear_ratio)} gear ratio(s) for {len(self.axes)} axes "
                             f"({', '.join(a.name for a in self.axes)})")


#: Keys of one ``[[ethercat.slave]]`` table of a rig file (:func:`chain_from_tables`).
SLAVE_KEYS = ("name", "vendor_id", "product_code", "revision", "role", "axes", "n_axes", "axis_object_offset",
              "velocity_unit_counts_s", "mode", "channels")
_DRIVE_ONLY_KEYS = ("axes", "n_axes", "axis_object_offset", "velocity_unit_counts_s", "mode")
#: Keys of one entry of a drive's ``axes`` list (an inline table, e.g. ``{offset = 0x800, mode = "csp"}``).
AXIS_KEYS = ("offset", "name", "mode")
#: Axes of a drive table that names neither ``axes`` nor ``n_axes`` (the rig files written when the
#: master knew one dual-axis drive: axis B at ``axis_object_offset``).
DEFAULT_AXES_PER_DRIVE = 2


def _drive_axes(pos: int, tab: dict[str, Any]) -> tuple[DriveAxis, ...]:
    """The axes of the drive table ``tab`` at chain position ``pos`` (see :func:`chain_from_tables`)."""
    where = f"[[ethercat.slave]] {pos} ({tab.get('name', '?')})"
    vel = float(tab.get("velocity_unit_counts_s", 1.0))
    if not vel > 0.0:
        raise ValueError(f"{where}: velocity_unit_counts_s must be > 0, got {vel}")
    if "axes" in tab:
        if "n_axes" in tab or "axis_object_offset" in tab:
            raise ValueError(f"{where}: give either axes = [{{offset = ...}}, ...] or n_axes and "
                             "axis_object_offset, not both")
        specs = tab["axes"]
        if not isinstance(specs, list) or not specs or not all(isinstance(a, dict) for a in specs):
            raise ValueError(f"{where}: axes must be a non-empty list of tables such as {{offset = 0x800}}")
        for k, a in enumerate(specs):
            unknown = sorted(set(a) - set(AXIS_KEYS))
            if unknown or "offset" not in a:
                raise ValueError(f"{where}: axis {k} needs offset and knows only {list(AXIS_KEYS)}, got {sorted(a)}")
        offsets = [int(a["offset"]) for a in specs]
        names = [str(a.get("name", "")) for a in specs]
        modes = [str(a.get("mode", tab.get("mode", "cst"))) for a in specs]
    else:
        n = int(tab.get("n_axes", DEFAULT_AXES_PER_DRIVE))
        if n < 1:
            raise ValueError(f"{where}: n_axes must be >= 1, got {n}")
        step = int(tab.get("axis_object_offset", cia402.AXIS_OFFSET))
        offsets = [k * step for k in range(n)]
        names = [""] * n
        modes = [str(tab.get("mode", "cst"))] * n
    bad = sorted({m for m in modes if m not in cia402.MODES})
    if bad:
        raise ValueError(f"{where}: mode {', '.join(repr(m) for m in bad)} is not one of "
                         f"{', '.join(repr(m) for m in cia402.MODES)}")
    if len(set(offsets)) != len(offsets) or any(o < 0 or o % 0x800 for o in offsets):
        raise ValueError(f"{where}: axis object offsets {[hex(o) for o in offsets]} must be distinct multiples "
                         "of 0x800 (ETG.6010)")
    if len(offsets) > cia402.MAX_AXES_PER_DRIVE:
        raise ValueError(f"{where}: {len(offsets)} axes; a drive maps at most {cia402.MAX_AXES_PER_DRIVE} "
                         "(one RxPDO 0x1600+k and TxPDO 0x1A00+k per axis)")
    drive = str(tab["name"])
    return tuple(DriveAxis(pos, off, vel, name or f"{drive}/{chr(ord('A') + k)}", mode)
                 for k, (off, name, mode) in enumerate(zip(offsets, names, modes)))


def chain_from_tables(tables: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The expected chain of a rig file (its ``[[ethercat.slave]]`` tables) as :class:`EthercatConfig` fields.

    Parameters
    ----------
    tables : sequence of dict
        One per slave in wiring order, with ``name``, ``vendor_id``, ``product_code``, optional
        ``revision`` and ``role`` (``"drive"``: at least one; ``"digital_inputs"``: at most one).
        A drive's table lists its CiA 402 axes, either as ``axes = [{offset = 0x000}, {offset =
        0x800}]`` (object index offset of each axis, optional ``name``) or as ``n_axes`` and
        ``axis_object_offset`` (axis ``k`` at ``k * axis_object_offset``); with neither, two axes
        at 0 and ``axis_object_offset`` (default 0x800). It may give ``velocity_unit_counts_s``
        (one unit of 0x606C [counts/s], default 1) and ``mode`` (``"cst"``, ``"csp"`` or ``"csv"``,
        default ``"cst"``; an axis' own ``mode`` in ``axes`` overrides it). ``config/rig.example.toml`` documents them.

    Returns
    -------
    dict
        ``chain`` (tuple of :class:`SlaveIdentity`), ``coupler_index`` (int or None), ``axes``
        (tuple of :class:`DriveAxis`: drive after drive in wiring order, each drive's in its
        table's order; axis ``k`` drives the robot's drive ``k``) and ``terminals`` (tuple of
        :class:`~paperlib.hardware.analog_terminals.AnalogChannel`: the channels of the tables with
        ``role = "bridge"`` or ``"rtd"``, whose ``channels`` list maps each terminal channel to a
        recording channel, :func:`~paperlib.hardware.analog_terminals.terminal_channels`).

    Raises
    ------
    ValueError
        No slave, no drive, two ``digital_inputs`` slaves, an unknown key or role, a bad axis list.
    """
    if not tables:
        raise ValueError("[[ethercat.slave]]: the expected chain (one table per slave, in wiring order) is required")
    chain = []
    coupler: int | None = None
    axes: list[DriveAxis] = []
    terminals: list[AnalogChannel] = []
    for pos, tab in enumerate(tables):
        unknown = sorted(set(tab) - set(SLAVE_KEYS))
        if unknown:
            raise ValueError(f"[[ethercat.slave]] {pos}: unknown key(s) {unknown} (known: {list(SLAVE_KEYS)})")
        for key in ("name", "vendor_id", "product_code"):
            if key not in tab:
                raise ValueError(f"[[ethercat.slave]] {pos}: {key} is required")
        role = str(tab.get("role", ""))
        if role not in ("", "drive", "digital_inputs", *TERMINAL_ROLES):
            raise ValueError(f"[[ethercat.slave]] {pos}: role {role!r} is not 'drive', 'digital_inputs', "
                             f"{', '.join(repr(r) for r in TERMINAL_ROLES)} or ''")
        if role != "drive" and any(k in tab for k in _DRIVE_ONLY_KEYS):
            raise ValueError(f"[[ethercat.slave]] {pos}: {list(_DRIVE_ONLY_KEYS)} belong to a drive's table")
        if role not in TERMINAL_ROLES and "channels" in tab:
            raise ValueError(f"[[ethercat.slave]] {pos}: channels belong to an analog terminal's table "
                             f"(role {' or '.join(repr(r) for r in TERMINAL_ROLES)})")
        if role in TERMINAL_ROLES:
            terminals.extend(terminal_channels(pos, tab))
        elif role == "drive":
            axes.extend(_drive_axes(pos, tab))
        elif role == "digital_inputs":
            if coupler is not None:
                raise ValueError("[[ethercat.slave]]: more than one slave with role 'digital_inputs'")
            coupler = pos
        chain.append(SlaveIdentity(str(tab["name"]), int(tab["vendor_id"]), int(tab["product_code"]),
                                   None if tab.get("revision") is None else int(tab["revision"]), role))
    if not axes:
        raise ValueError("[[ethercat.slave]]: no slave has role 'drive' (at least one CiA 402 drive is required)")
    seen: dict[tuple[str, int], str] = {}
    for ch in terminals:
        key = (ch.signal, ch.joint)
        if key in seen:
            raise ValueError(f"[[ethercat.slave]]: {ch.signal} of joint {ch.joint + 1} comes from both {seen[key]} "
                             f"and {ch.terminal}")
        seen[key] = ch.terminal
    return {"chain": tuple(chain), "coupler_index": coupler, "axes": tuple(axes), "terminals": tuple(terminals)}


@dataclasses.dataclass
class ExchangeStats:
    """Counters of the cyclic exchange.

    Attributes
    ----------
    cycles : int
        Exchanges performed.
    wkc_errors : int
        Cycles whose working counter differed from the expected one (lost frames included).
    lost_frames : int
        Cycles without a returned frame (``receive_processdata`` <= 0).
    consecutive_errors : int
        Current run of bad cycles.
    max_consecutive_errors : int
        Longest run of bad cycles.
    last_wkc : int
        Working counter of the last cycle.
    stale_replies : int
        Cycles whose reply had the expected working counter but answered an older frame
        (echoed outputs differ from those sent, or the DC time did not advance); counted in
        ``wkc_errors`` too.
    flushes : int
        Receive-queue flushes after a stale reply.
    flushed_replies : int
        Queued replies those flushes dropped.
    """

    cycles: int = 0
    wkc_errors: int = 0
    lost_frames: int = 0
    consecutive_errors: int = 0
    max_consecutive_errors: int = 0
    last_wkc: int = 0
    stale_replies: int = 0
    flushes: int = 0
    flushed_replies: int = 0


def found_summary(found: Sequence[Mapping[str, Any]], chain: Sequence[SlaveIdentity]) -> list[dict[str, Any]]:
    """The slaves a master found, for a report.

    Parameters
    ----------
    found : sequence of mapping
        The master's ``found`` (position, name, vendor, product per slave, in wiring order).
    chain : sequence of SlaveIdentity
        The rig file's chain.

    Returns
    -------
    list of dict
        ``position``, ``name`` (the slave's own, from its SII), ``rig_name`` (the rig file's name for that
        position; None past its end), ``vendor`` and ``product`` in hex. SOEM reads the SII strings once
        per run of identical slaves (same vendor, product and revision as the one before) and copies them
        to the rest, so identical terminals all carry the first one's ``name``: ``rig_name`` tells them apart.
    """
    return [{"position": d["position"], "name": d["name"],
             "rig_name": chain[d["position"]].name if d["position"] < len(chain) else None,
             "vendor": f"0x{d['vendor']:08X}", "product": f"0x{d['product']:08X}"} for d in found]
