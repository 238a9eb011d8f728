"""The EtherCAT master's errors (all :class:`~paperlib.rig.RigFault`: a rig cannot go on safely)."""

from __future__ import annotations

from paperlib.hardware.coe import sdo_abort_text
from paperlib.rig import RigFault

__all__ = [
    "EthercatError",
    "NoSlaveError",
    "ChainMismatchError",
    "SdoAbortError",
    "LostFrameError",
    "StateTransitionError",
    "DriveStateError",
    "BringUpError",
]


class EthercatError(RigFault):
    """Base class of the master's errors (a :class:`~paperlib.rig.RigFault`)."""


class NoSlaveError(EthercatError):
    """No EtherCAT slave answered on the interface."""


class ChainMismatchError(EthercatError):
    """The slaves found are not the expected chain."""


class SdoAbortError(EthercatError):
    """An SDO transfer was aborted by the slave.

    Attributes
    ----------
    slave : str
        Slave name.
    index, subindex : int
        The object.
    abort_code : int
        The 32-bit abort code.
    """

    def __init__(self, slave: str, index: int, subindex: int, abort_code: int, action: str) -> None:
        self.slave, self.index, self.subindex, self.abort_code = slave, index, subindex, abort_code
        super().__init__(
            f"SDO {action} of 0x{index:04X}:{subindex:02X} on {slave} aborted with 0x{abort_code:08X} "
            f"({sdo_abort_text(abort_code)})"
        )


class LostFrameError(EthercatError):
    """Process-data frames were lost or came back with a wrong working counter too often."""


class StateTransitionError(EthercatError):
    """An EtherCAT AL state transition did not complete."""


class DriveStateError(EthercatError):
    """A drive axis did not reach, or left, CiA 402 'operation enabled' (fault, timeout)."""


class BringUpError(EthercatError):
    """The drive's configuration does not match what the master needs."""
