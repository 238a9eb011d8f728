"""The CiA 402 drives of an EtherCAT chain: their process-data layout and their PRE-OP configuration.

A drive holds one or more axes (:class:`~paperlib.hardware.ethercat_config.DriveAxis`), axis ``k``
with its objects at ``0x6000 + offset_k``, each in its own mode of operation (the rig file's
``mode``: cyclic synchronous torque, position or velocity). :class:`DriveProcessData` is one
drive's share of the process image -- per axis, in the order the rig file lists them, RxPDO
0x1600 + k = controlword (U16) + the mode's target (target torque 0x6071 I16 in CST, target
position 0x607A I32 in CSP, target velocity 0x60FF I32 in CSV) and TxPDO 0x1A00 + k = statusword
(U16), position (I32), velocity (I32), torque actual (I16), whatever the mode -- and
:func:`configure_drive` writes that mapping by SDO in PRE-OP (from the drive's ``config_func``)
after checking each axis, checking that it offers the mode (supported drive modes 0x6502 when
present, the target object) and setting it. :class:`paperlib.hardware.ethercat.EthercatMaster`
uses both.
"""

from __future__ import annotations

import struct
from typing import Any, Protocol, Sequence

import numpy as np

from paperlib.hardware import cia402
from paperlib.hardware.coe import sdo_abort_text
from paperlib.hardware.ethercat_config import DriveAxis, EthercatConfig
from paperlib.hardware.ethercat_errors import BringUpError, SdoAbortError

__all__ = ["DriveProcessData", "drives_of", "configure_drive", "DriveConfigurator", "axis_targets", "unwrap_offset"]

#: One axis' outputs per mode: controlword and target torque [per mille of the rated torque] (CST),
#: target position [counts] (CSP) or target velocity [velocity units] (CSV).
RX_AXIS = {"cst": "Hh", "csp": "Hi", "csv": "Hi"}
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
    modes : sequence of str, optional
        Mode of each of those axes (:data:`paperlib.hardware.cia402.MODES`; default all ``"cst"``).
    """

    def __init__(self, slave: int, axes: Sequence[int], offsets: Sequence[int],
                 modes: Sequence[str] | None = None) -> None:
        self.slave = int(slave)
        self.axes = tuple(int(a) for a in axes)
        self.offsets = tuple(int(o) for o in offsets)
        n = len(self.axes)
        self.modes = tuple(str(m) for m in (modes if modes is not None else ("cst",) * n))
        if len(self.modes) != n or any(m not in cia402.MODES for m in self.modes):
            raise ValueError(f"drive at {slave}: modes {self.modes} for {n} axes (one of {list(cia402.MODES)} each)")
        self.rx = struct.Struct("<" + "".join(RX_AXIS[m] for m in self.modes))
        self.tx = struct.Struct("<" + TX_AXIS * n)

    def pack(self, controlwords: Sequence[int], targets: Sequence[int]) -> bytes:
        """The drive's outputs from the master's per-axis controlwords and targets.

        Each axis' target is in its mode's unit: per mille of the rated torque (CST), counts (CSP),
        velocity units of 0x606C (CSV).
        """
        vals: list[int] = []
        for a in self.axes:
            vals.append(controlwords[a])
            vals.append(targets[a])
        return self.rx.pack(*vals)

    def rx_pdos(self) -> list[tuple[int, tuple[int, ...]]]:
        """(RxPDO index, its mapping entries) per axis: controlword and the target of the axis' mode."""
        out = []
        for k, (b, mode) in enumerate(zip(self.offsets, self.modes)):
            target, bits = cia402.MODE_TARGET[mode]
            out.append((0x1600 + k, (((cia402.CONTROLWORD + b) << 16) | 16, ((target + b) << 16) | bits)))
        return out

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
    return [DriveProcessData(slave, idx, [axes[i].offset for i in idx], [axes[i].mode for i in idx])
            for slave, idx in sorted(by_slave.items())]


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
    0x67FF + offset if present must be CiA 402), check that it offers the axis' mode (the mode's
    bit in supported drive modes 0x6502 + offset when the drive has that object, and the mode's
    target object: 0x6071, 0x607A or 0x60FF + offset), set modes of operation to it and read it back,
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
        An axis that does not answer at its offset, is no CiA 402 axis, lacks the mode the rig
        file asks for (naming it), does not show that mode or has no rated torque.
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
        mode = cfg.axes[a].mode
        _check_mode(master, s, name, off, mode)
        value = cia402.MODES[mode]
        master.sdo_write(cia402.MODES_OF_OPERATION + off, 0, "<b", value, s)  # an abort: SdoAbortError naming it
        shown = master.sdo_read(cia402.MODES_OF_OPERATION_DISPLAY + off, 0, "<b", s)
        if shown != value:
            raise BringUpError(
                f"axis {name}: modes of operation display 0x{cia402.MODES_OF_OPERATION_DISPLAY + off:04X} = "
                f"{shown}, expected {value} ({cia402.MODE_NAMES[mode]})"
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


def _check_mode(master: DriveConfigurator, s: Any, name: str, off: int, mode: str) -> None:
    """Refuse an axis that lacks ``mode``: its bit in 0x6502 + offset (if present) or its target object.

    Raises
    ------
    BringUpError
        Naming the axis, the mode, and what the drive offers instead.
    """
    try:
        supported = master.sdo_read(cia402.SUPPORTED_DRIVE_MODES + off, 0, "<I", s)
    except SdoAbortError:
        supported = None  # optional object: the target object below decides
    if supported is not None and not supported >> cia402.MODE_SUPPORT_BIT[mode] & 1:
        offered = [m for m, bit in cia402.MODE_SUPPORT_BIT.items() if supported >> bit & 1]
        raise BringUpError(
            f"axis {name} of {master._slave_name(s)}: the rig file asks for mode {mode!r} ({cia402.MODE_NAMES[mode]}), "
            f"which the drive does not offer (supported drive modes 0x{cia402.SUPPORTED_DRIVE_MODES + off:04X} = "
            f"0x{supported:08X}: {', '.join(offered) or 'none of cst, csp, csv'})"
        )
    target, bits = cia402.MODE_TARGET[mode]
    try:
        master.sdo_read(target + off, 0, "<h" if bits == 16 else "<i", s)
    except SdoAbortError as exc:
        raise BringUpError(
            f"axis {name} of {master._slave_name(s)}: the rig file asks for mode {mode!r} ({cia402.MODE_NAMES[mode]}), "
            f"but the drive has no target object 0x{target + off:04X} to map -> abort 0x{exc.abort_code:08X} "
            f"({sdo_abort_text(exc.abort_code)})"
        ) from exc


def axis_targets(commands: Sequence[float], modes: Sequence[str], rated_Nm: Sequence[float],
                 max_permille: Sequence[float], pos_scale: Sequence[float], turn_offset: Sequence[int],
                 vel_scale: Sequence[float]) -> list[int]:
    """Each axis' command in its mode's SI unit to the integer its target object carries.

    Parameters
    ----------
    commands : sequence of float, shape (n_axes,)
        CST: motor torque [N m]; CSP: position [rad, on the scale of the positions read];
        CSV: velocity [rad/s].
    modes : sequence of {"cst", "csp", "csv"}
    rated_Nm, max_permille : sequence of float
        Rated torque 0x6076 [N m] and max torque 0x6072 [per mille] per axis (CST).
    pos_scale, turn_offset : sequence
        Radians per count and the unwrapped scale's offset [counts] per axis (CSP).
    vel_scale : sequence of float
        rad/s per velocity unit of 0x606C per axis (CSV).

    Returns
    -------
    list of int
        CST: per mille of the rated torque, clamped to the max torque; CSP: counts modulo 2^32
        as I32; CSV: velocity units clipped to I32.
    """
    out = []
    for a, mode in enumerate(modes):
        if mode == "cst":
            p = int(round(float(commands[a]) / rated_Nm[a] * 1000.0))
            lo = min(int(max_permille[a]), 32767)
            out.append(-lo if p < -lo else (lo if p > lo else p))
        elif mode == "csp":
            counts = int(round(float(commands[a]) / pos_scale[a])) - turn_offset[a]
            out.append(((counts + 2**31) % 2**32) - 2**31)
        else:
            v = int(round(float(commands[a]) / vel_scale[a]))
            out.append(-(2**31) if v < -(2**31) else (2**31 - 1 if v > 2**31 - 1 else v))
    return out


def unwrap_offset(counts: int, last: int | None, offset: int) -> int:
    """The unwrapped scale's offset [counts] after reading ``counts`` (I32) following ``last`` (None: first read)."""
    if last is not None:
        delta = counts - last
        if delta > 2**31 - 1:
            return offset - 2**32
        if delta < -(2**31):
            return offset + 2**32
    return offset
