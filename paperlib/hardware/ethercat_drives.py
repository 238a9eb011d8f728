"""The CiA 402 drives of an EtherCAT chain: their process-data layout and their PRE-OP configuration.

A drive holds one or more axes (:class:`~paperlib.hardware.ethercat_config.DriveAxis`), axis ``k``
with its objects at ``0x6000 + offset_k``. :class:`DriveProcessData` is one drive's share of the
process image -- per axis, in the order the rig file lists them, RxPDO 0x1600 + k = controlword
(U16) + target torque (I16) and TxPDO 0x1A00 + k = statusword (U16), position (I32), velocity
(I32), torque actual (I16) -- and :func:`configure_drive` writes that mapping by SDO in PRE-OP
(from the drive's ``config_func``) after checking each axis and setting it to cyclic synchronous
torque. :class:`paperlib.hardware.ethercat.EthercatMaster` uses both.
"""

from __future__ import annotations

import struct
from typing import Any, Protocol, Sequence

import numpy as np

from paperlib.hardware import cia402
from paperlib.hardware.coe import sdo_abort_text
from paperlib.hardware.ethercat_config import DriveAxis, EthercatConfig
from paperlib.hardware.ethercat_errors import BringUpError, SdoAbortError

__all__ = ["DriveProcessData", "drives_of", "configure_drive", "DriveConfigurator"]

#: One axis' outputs: controlword, target torque [per mille of the rated torque].
RX_AXIS = "Hh"
#: One axis' inputs: statusword, position [counts], velocity [velocity units], torque actual [per mille].
TX_AXIS = "Hiih"


class DriveProcessData:
    """One drive's process data: which axes it holds and how their PDOs are packed.

    Parameters
    ----------
    slave : int
        The drive's position in the chain (0-based).
    axes : sequence of int
        Indices into the master's flat axis list of the drive's axes, in the drive's PDO order.
    offsets : sequence of int
        Object index offset of each of those axes.
    """

    def __init__(self, slave: int, axes: Sequence[int], offsets: Sequence[int]) -> None:
        self.slave = int(slave)
        self.axes = tuple(int(a) for a in axes)
        self.offsets = tuple(int(o) for o in offsets)
        n = len(self.axes)
        self.rx = struct.Struct("<" + RX_AXIS * n)
        self.tx = struct.Struct("<" + TX_AXIS * n)

    def pack(self, controlwords: Sequence[int], permille: Sequence[int]) -> bytes:
        """The drive's outputs from the master's per-axis controlwords and target torques [per mille]."""
        vals: list[int] = []
        for a in self.axes:
            vals.append(controlwords[a])
            vals.append(permille[a])
        return self.rx.pack(*vals)

    def rx_pdos(self) -> list[tuple[int, tuple[int, ...]]]:
        """(RxPDO index, its mapping entries) per axis: controlword and target torque."""
        return [(0x1600 + k, (((cia402.CONTROLWORD + b) << 16) | 16, ((cia402.TARGET_TORQUE + b) << 16) | 16))
                for k, b in enumerate(self.offsets)]

    def tx_pdos(self) -> list[tuple[int, tuple[int, ...]]]:
        """(TxPDO index, its mapping entries) per axis: statusword, position, velocity, torque actual."""
        return [(0x1A00 + k, (((cia402.STATUSWORD + b) << 16) | 16, ((cia402.POSITION_ACTUAL + b) << 16) | 32,
                              ((cia402.VELOCITY_ACTUAL + b) << 16) | 32, ((cia402.TORQUE_ACTUAL + b) << 16) | 16))
                for k, b in enumerate(self.offsets)]


def drives_of(axes: Sequence[DriveAxis]) -> list[DriveProcessData]:
    """Group a flat axis list by drive (in wiring order of the drives, each drive's axes in list order)."""
    by_slave: dict[int, list[int]] = {}
    for i, ax in enumerate(axes):
        by_slave.setdefault(ax.slave, []).append(i)
    return [DriveProcessData(slave, idx, [axes[i].offset for i in idx]) for slave, idx in sorted(by_slave.items())]


class DriveConfigurator(Protocol):
    """What :func:`configure_drive` needs of the master (:class:`paperlib.hardware.ethercat.EthercatMaster`)."""

    config: EthercatConfig
    axis_device_type: list[int | None]
    max_torque_permille: np.ndarray
    rated_torque_Nm: np.ndarray
    rated_current_A: np.ndarray

    def sdo_read(self, index: int, subindex: int, fmt: str, slave: Any = None) -> Any: ...

    def sdo_write(self, index: int, subindex: int, fmt: str, value: Any, slave: Any = None) -> None: ...

    def _slave_name(self, slave: Any) -> str: ...


def configure_drive(master: DriveConfigurator, drive: DriveProcessData, s: Any) -> None:
    """PRE-OP configuration of one drive (called from its ``config_func`` inside ``config_map``).

    Per axis: check that it answers at its offset (statusword, rated torque; device type
    0x67FF + offset if present must be CiA 402), set modes of operation to CST and read it back,
    write the max torque when configured, read max torque, rated torque and rated current into
    the master's per-axis arrays. Then map and assign the PDOs (:class:`DriveProcessData`) and set
    the process-data watchdog when configured.

    Parameters
    ----------
    master : DriveConfigurator
        The master (its SDO helpers, configuration and per-axis arrays [N m, A, per mille]).
    drive : DriveProcessData
        The drive to configure.
    s : pysoem CdefSlave
        The drive's slave object.

    Raises
    ------
    BringUpError
        An axis that does not answer at its offset, is no CiA 402 axis, does not show CST or has
        no rated torque.
    SdoAbortError
        Any other refused SDO transfer.
    """
    cfg = master.config
    for a, off in zip(drive.axes, drive.offsets):
        name = cfg.axes[a].name
        for obj, fmt, what in ((cia402.STATUSWORD, "<H", "statusword"), (cia402.RATED_TORQUE, "<I", "rated torque")):
            try:
                master.sdo_read(obj + off, 0, fmt, s)
            except SdoAbortError as exc:
                raise BringUpError(
                    f"axis {name} of {master._slave_name(s)} does not answer at offset 0x{off:X}: {what} "
                    f"0x{obj + off:04X} -> abort 0x{exc.abort_code:08X} ({sdo_abort_text(exc.abort_code)})"
                ) from exc
        try:
            dtype = master.sdo_read(cia402.AXIS_DEVICE_TYPE + off, 0, "<I", s)
        except SdoAbortError:
            dtype = None  # optional object (ETG.6010 device type per axis)
        master.axis_device_type[a] = dtype
        if dtype is not None and dtype & 0xFFFF != cia402.DEVICE_TYPE_PROFILE:
            raise BringUpError(
                f"axis {name}: device type 0x{cia402.AXIS_DEVICE_TYPE + off:04X} = 0x{dtype:08X} is not a CiA 402 drive"
            )
        master.sdo_write(cia402.MODES_OF_OPERATION + off, 0, "<b", cia402.MODE_CST, s)
        shown = master.sdo_read(cia402.MODES_OF_OPERATION_DISPLAY + off, 0, "<b", s)
        if shown != cia402.MODE_CST:
            raise BringUpError(
                f"axis {name}: modes of operation display 0x{cia402.MODES_OF_OPERATION_DISPLAY + off:04X} = "
                f"{shown}, expected {cia402.MODE_CST} (cyclic synchronous torque)"
            )
        if cfg.max_torque_permille is not None:
            master.sdo_write(cia402.MAX_TORQUE + off, 0, "<H", int(cfg.max_torque_permille), s)
        master.max_torque_permille[a] = master.sdo_read(cia402.MAX_TORQUE + off, 0, "<H", s)
        rated_mNm = master.sdo_read(cia402.RATED_TORQUE + off, 0, "<I", s)
        if rated_mNm <= 0:
            raise BringUpError(f"axis {name}: rated torque 0x{cia402.RATED_TORQUE + off:04X} is {rated_mNm}")
        master.rated_torque_Nm[a] = rated_mNm * 1e-3
        master.rated_current_A[a] = master.sdo_read(cia402.RATED_CURRENT + off, 0, "<I", s) * 1e-3
    # PDO mapping: clear the assignments, write each PDO (count 0, entries, count), assign
    master.sdo_write(0x1C12, 0, "<B", 0, s)
    master.sdo_write(0x1C13, 0, "<B", 0, s)
    rx, tx = drive.rx_pdos(), drive.tx_pdos()
    for k in range(len(drive.axes)):
        for pdo, entries in (rx[k], tx[k]):
            master.sdo_write(pdo, 0, "<B", 0, s)
            for sub, entry in enumerate(entries, start=1):
                master.sdo_write(pdo, sub, "<I", entry, s)
            master.sdo_write(pdo, 0, "<B", len(entries), s)
    for assign, pdos in ((0x1C12, [p for p, _ in rx]), (0x1C13, [p for p, _ in tx])):
        for sub, pdo in enumerate(pdos, start=1):
            master.sdo_write(assign, sub, "<H", pdo, s)
        master.sdo_write(assign, 0, "<B", len(pdos), s)
    if cfg.pd_watchdog_s is not None:
        s.set_watchdog("processdata", cfg.pd_watchdog_s * 1e3)
