"""What the EtherCAT master expects and counts: the chain (from a rig file), its settings, its counters."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from paperlib.hardware import cia402

__all__ = ["SlaveIdentity", "EthercatConfig", "SLAVE_KEYS", "chain_from_tables", "ExchangeStats"]


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
        What the master does with it: ``"drive"`` (the dual-axis CiA 402 drive),
        ``"digital_inputs"`` (its digital inputs carry the zeroing sensors) or ``""`` (nothing).
    """

    name: str
    vendor_id: int
    product_code: int
    revision: int | None = None
    role: str = ""

    def describe(self) -> str:
        rev = f" rev 0x{self.revision:08X}" if self.revision is not None else ""
        return f"{self.name} (vendor 0x{self.vendor_id:08X}, product 0x{self.product_code:08X}{rev})"


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
    drive_index : int
        Position (0-based) of the drive in ``chain``.
    counts_per_rev : int
        Encoder counts per motor revolution (the rig takes them from the robot description).
    velocity_unit_counts_s : float
        One unit of the velocity actual value 0x606C in counts/s (CiA 402's default: 1; a
        drive's own unit comes from the rig file).
    axis_offset : int
        Object index offset of axis B (ETG.6010: 0x800; a drive's own from the rig file).
    gear_ratio : tuple of float
        Motor angle / joint angle per axis, applied to positions and velocities.
    max_torque_permille : int or None
        Written to 0x6072/0x6872 at bring-up when given; the master also clamps to it.
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
        Walk the drive to operation enabled in :meth:`EthercatMaster.open`.
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
    drive_index: int = 0
    counts_per_rev: int = 65536
    velocity_unit_counts_s: float = 1.0
    axis_offset: int = cia402.AXIS_OFFSET
    gear_ratio: tuple[float, float] = (1.0, 1.0)
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


#: Keys of one ``[[ethercat.slave]]`` table of a rig file (:func:`chain_from_tables`).
SLAVE_KEYS = ("name", "vendor_id", "product_code", "revision", "role", "axis_object_offset", "velocity_unit_counts_s")
_DRIVE_ONLY_KEYS = ("axis_object_offset", "velocity_unit_counts_s")


def chain_from_tables(tables: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The expected chain of a rig file (its ``[[ethercat.slave]]`` tables) as :class:`EthercatConfig` fields.

    Parameters
    ----------
    tables : sequence of dict
        One per slave in wiring order, with ``name``, ``vendor_id``, ``product_code``, optional
        ``revision`` and ``role`` (``"drive"``: exactly one; ``"digital_inputs"``: at most one);
        the drive's table may give ``axis_object_offset`` and ``velocity_unit_counts_s``
        (``config/rig.example.toml`` documents them).

    Returns
    -------
    dict
        ``chain``, ``coupler_index``, ``drive_index``, ``axis_offset``, ``velocity_unit_counts_s``.

    Raises
    ------
    ValueError
        No slave, no or two drives, an unknown key or role.
    """
    if not tables:
        raise ValueError("[[ethercat.slave]]: the expected chain (one table per slave, in wiring order) is required")
    chain = []
    out: dict[str, Any] = {"coupler_index": None, "axis_offset": cia402.AXIS_OFFSET, "velocity_unit_counts_s": 1.0}
    drives: list[int] = []
    for pos, tab in enumerate(tables):
        unknown = sorted(set(tab) - set(SLAVE_KEYS))
        if unknown:
            raise ValueError(f"[[ethercat.slave]] {pos}: unknown key(s) {unknown} (known: {list(SLAVE_KEYS)})")
        for key in ("name", "vendor_id", "product_code"):
            if key not in tab:
                raise ValueError(f"[[ethercat.slave]] {pos}: {key} is required")
        role = str(tab.get("role", ""))
        if role not in ("", "drive", "digital_inputs"):
            raise ValueError(f"[[ethercat.slave]] {pos}: role {role!r} is not 'drive', 'digital_inputs' or ''")
        if role != "drive" and any(k in tab for k in _DRIVE_ONLY_KEYS):
            raise ValueError(f"[[ethercat.slave]] {pos}: {list(_DRIVE_ONLY_KEYS)} belong to the drive's table")
        if role == "drive":
            drives.append(pos)
            out["axis_offset"] = int(tab.get("axis_object_offset", cia402.AXIS_OFFSET))
            out["velocity_unit_counts_s"] = float(tab.get("velocity_unit_counts_s", 1.0))
        elif role == "digital_inputs":
            if out["coupler_index"] is not None:
                raise ValueError("[[ethercat.slave]]: more than one slave with role 'digital_inputs'")
            out["coupler_index"] = pos
        chain.append(SlaveIdentity(str(tab["name"]), int(tab["vendor_id"]), int(tab["product_code"]),
                                   None if tab.get("revision") is None else int(tab["revision"]), role))
    if len(drives) != 1:
        raise ValueError(f"[[ethercat.slave]]: exactly one slave must have role 'drive', found {len(drives)}")
    out["chain"] = tuple(chain)
    out["drive_index"] = drives[0]
    return out


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
