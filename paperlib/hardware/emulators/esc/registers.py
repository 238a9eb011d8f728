"""The ESC's register map (ETG.1000.4): addresses, sizes, SII control bits, AL states and codes.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import struct

class AlState:
    """AL states as coded in AL control 0x0120 / AL status 0x0130 (low nibble)."""

    INIT = 0x01
    PREOP = 0x02
    BOOT = 0x03
    SAFEOP = 0x04
    OP = 0x08
    ERROR = 0x10  # AL status: error indication; AL control: error acknowledge

    NAMES = {0x01: "INIT", 0x02: "PRE-OP", 0x03: "BOOT", 0x04: "SAFE-OP", 0x08: "OP"}


class AlStatusCode:
    """AL status codes (register 0x0134) used by the emulator (ETG.1000.6 table 11)."""

    NO_ERROR = 0x0000
    UNSPECIFIED = 0x0001
    INVALID_STATE_CHANGE = 0x0011
    UNKNOWN_STATE = 0x0012
    BOOTSTRAP_NOT_SUPPORTED = 0x0013
    INVALID_MAILBOX_CONFIG_PREOP = 0x0016
    SM_WATCHDOG = 0x001B
    INVALID_OUTPUT_CONFIG = 0x001D
    INVALID_INPUT_CONFIG = 0x001E


# --- register addresses -------------------------------------------------------------------
REG_TYPE = 0x0000
REG_REVISION = 0x0001
REG_BUILD = 0x0002
REG_FMMU_COUNT = 0x0004
REG_SM_COUNT = 0x0005
REG_RAM_SIZE = 0x0006
REG_PORT_DESC = 0x0007
REG_FEATURES = 0x0008
REG_STATION_ADDR = 0x0010
REG_STATION_ALIAS = 0x0012
REG_DL_CONTROL = 0x0100
REG_DL_STATUS = 0x0110
REG_AL_CONTROL = 0x0120
REG_AL_STATUS = 0x0130
REG_AL_STATUS_CODE = 0x0134
REG_PDI_CONTROL = 0x0140
REG_WD_DIVIDER = 0x0400
REG_WD_TIME_PDI = 0x0410
REG_WD_TIME_PD = 0x0420
REG_WD_STATUS_PD = 0x0440
REG_SII_CONFIG = 0x0500
REG_SII_CONTROL = 0x0502
REG_SII_ADDRESS = 0x0504
REG_SII_DATA = 0x0508
REG_FMMU0 = 0x0600
REG_SM0 = 0x0800
REG_DC_RECV_TIME_P0 = 0x0900
REG_DC_SYSTEM_TIME = 0x0910
REG_DC_RECV_TIME_EPU = 0x0918
REG_DC_SYSTEM_OFFSET = 0x0920
REG_DC_SYSTEM_DELAY = 0x0928
REG_DC_SYNC_ACTIVATION = 0x0981
REG_DC_SYNC0_CYCLE = 0x09A0

N_FMMU = 8
N_SM = 8
MEM_SIZE = 0x10000
REGISTER_END = 0x0F00  # 0x0F00.. (digital I/O) and 0x1000.. (process RAM) are plain memory

# SII control/status bits (register 0x0502)
SII_READ_8BYTE = 0x0040
SII_CMD_MASK = 0x0700
SII_CMD_READ = 0x0100
SII_CMD_WRITE = 0x0200
SII_CMD_RELOAD = 0x0400
SII_ERR_CMD = 0x2000

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
