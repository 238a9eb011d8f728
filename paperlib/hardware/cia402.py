"""CiA 402 (IEC 61800-7-201) drive profile: object indices, modes, controlword, state machine.

What any CiA 402 drive exposes, independent of the vendor: the object indices of one axis
(axis 0 at 0x6000-0x67FF; a multi-axis module places axis ``k`` at ``+ k * offset``, 0x800 by
ETG.6010), the modes of operation, the controlword commands, the states encoded in the
statusword and the controlword that moves an axis one step toward "operation enabled".
The EtherCAT master (:mod:`paperlib.hardware.ethercat`) uses it to bring the drives up.
"""

from __future__ import annotations

__all__ = [
    "AXIS_OFFSET",
    "MAX_AXES_PER_DRIVE",
    "DEVICE_TYPE_PROFILE",
    "ERROR_CODE",
    "CONTROLWORD",
    "STATUSWORD",
    "MODES_OF_OPERATION",
    "MODES_OF_OPERATION_DISPLAY",
    "POSITION_ACTUAL",
    "VELOCITY_ACTUAL",
    "TARGET_TORQUE",
    "TARGET_POSITION",
    "TARGET_VELOCITY",
    "SUPPORTED_DRIVE_MODES",
    "MAX_TORQUE",
    "RATED_CURRENT",
    "RATED_TORQUE",
    "TORQUE_ACTUAL",
    "AXIS_DEVICE_TYPE",
    "MODE_CST",
    "MODE_CSP",
    "MODE_CSV",
    "MODES",
    "MODE_NAMES",
    "MODE_TARGET",
    "MODE_SUPPORT_BIT",
    "CW_DISABLE_VOLTAGE",
    "CW_SHUTDOWN",
    "CW_SWITCH_ON",
    "CW_ENABLE_OPERATION",
    "CW_FAULT_RESET",
    "OPERATION_ENABLED_MASK",
    "OPERATION_ENABLED",
    "cia402_state",
    "enable_step",
]

#: Object index offset between the axes of a multi-axis module (ETG.6010: axis 1 at 0x6800..).
AXIS_OFFSET = 0x800
#: Axes one drive can map: the master maps axis ``k`` of a drive to RxPDO 0x1600 + k and TxPDO
#: 0x1A00 + k, and a drive offers four of each (ETG.6010's 0x1600-0x1603 / 0x1A00-0x1A03 per module).
MAX_AXES_PER_DRIVE = 4
#: Low word of the device type (0x1000, or 0x67FF per axis) of a CiA 402 drive.
DEVICE_TYPE_PROFILE = 0x0192

# object indices of axis 0 (add ``k * offset`` for axis k)
ERROR_CODE = 0x603F
CONTROLWORD = 0x6040
STATUSWORD = 0x6041
MODES_OF_OPERATION = 0x6060
MODES_OF_OPERATION_DISPLAY = 0x6061
POSITION_ACTUAL = 0x6064
VELOCITY_ACTUAL = 0x606C
TARGET_TORQUE = 0x6071
MAX_TORQUE = 0x6072
RATED_CURRENT = 0x6075
RATED_TORQUE = 0x6076
TORQUE_ACTUAL = 0x6077
TARGET_POSITION = 0x607A
TARGET_VELOCITY = 0x60FF
#: Supported drive modes (a bit per mode: 7 CSP, 8 CSV, 9 CST).
SUPPORTED_DRIVE_MODES = 0x6502
#: Device type of the axis (ETG.6010, optional).
AXIS_DEVICE_TYPE = 0x67FF

#: Mode of operation: cyclic synchronous torque.
MODE_CST = 10
#: Mode of operation: cyclic synchronous position.
MODE_CSP = 8
#: Mode of operation: cyclic synchronous velocity.
MODE_CSV = 9
#: A rig file's ``mode`` names and their modes of operation (0x6060 values).
MODES = {"cst": MODE_CST, "csp": MODE_CSP, "csv": MODE_CSV}
#: Long names of the cyclic synchronous modes, for messages.
MODE_NAMES = {"cst": "cyclic synchronous torque", "csp": "cyclic synchronous position",
              "csv": "cyclic synchronous velocity"}
#: The target object each mode's RxPDO carries and its PDO bit length: target torque 0x6071 (I16,
#: per mille of the rated torque), target position 0x607A (I32, counts), target velocity 0x60FF
#: (I32, velocity units).
MODE_TARGET = {"cst": (TARGET_TORQUE, 16), "csp": (TARGET_POSITION, 32), "csv": (TARGET_VELOCITY, 32)}
#: Bit of each mode in the supported drive modes 0x6502.
MODE_SUPPORT_BIT = {"csp": 7, "csv": 8, "cst": 9}

# controlword commands
CW_DISABLE_VOLTAGE = 0x0000
CW_SHUTDOWN = 0x0006
CW_SWITCH_ON = 0x0007
CW_ENABLE_OPERATION = 0x000F
CW_FAULT_RESET = 0x0080

#: ``statusword & OPERATION_ENABLED_MASK == OPERATION_ENABLED`` in "operation enabled".
OPERATION_ENABLED_MASK = 0x006F
OPERATION_ENABLED = 0x0027


def cia402_state(statusword: int) -> str:
    """Name of the CiA 402 state encoded in a statusword (0x6041)."""
    sw = statusword
    if sw & 0x004F == 0x0000:
        return "not ready to switch on"
    if sw & 0x004F == 0x0040:
        return "switch on disabled"
    if sw & 0x006F == 0x0021:
        return "ready to switch on"
    if sw & 0x006F == 0x0023:
        return "switched on"
    if sw & 0x006F == 0x0027:
        return "operation enabled"
    if sw & 0x006F == 0x0007:
        return "quick stop active"
    if sw & 0x004F == 0x000F:
        return "fault reaction active"
    if sw & 0x004F == 0x0008:
        return "fault"
    return f"unknown (0x{sw:04X})"


def enable_step(state: str, controlword: int, reset_sent: bool) -> tuple[int, bool]:
    """The controlword that moves an axis one transition toward "operation enabled".

    Parameters
    ----------
    state : str
        The axis' state (:func:`cia402_state`).
    controlword : int
        The controlword sent so far (kept in states that need no command).
    reset_sent : bool
        Whether the last command in "fault" was a fault reset (a reset acts on the rising
        edge of bit 7, so resets alternate with "disable voltage").

    Returns
    -------
    controlword : int
        The next controlword.
    reset_sent : bool
        The updated fault-reset flag.
    """
    if state == "fault":
        return (CW_FAULT_RESET if not reset_sent else CW_DISABLE_VOLTAGE), not reset_sent
    if state in ("switch on disabled", "not ready to switch on"):
        return CW_SHUTDOWN, reset_sent
    if state == "ready to switch on":
        return CW_SWITCH_ON, reset_sent
    if state in ("switched on", "operation enabled", "quick stop active"):
        return CW_ENABLE_OPERATION, reset_sent
    return controlword, reset_sent
