"""CANopen-over-EtherCAT facts shared by the master and the emulated devices."""

from __future__ import annotations

#: SDO abort codes (CiA 301 / ETG.1000.6) and their meaning.
SDO_ABORT_TEXT: dict[int, str] = {
    0x05030000: 'toggle bit not changed',
    0x05040000: 'SDO protocol timeout',
    0x05040001: 'client/server command specifier not valid or unknown',
    0x05040005: 'out of memory',
    0x06010000: 'unsupported access to an object',
    0x06010001: 'attempt to read a write-only object',
    0x06010002: 'attempt to write a read-only object',
    0x06010003: 'subindex cannot be written, SI0 must be 0 for write access',
    0x06010004: 'SDO complete access not supported for this object',
    0x06020000: 'object does not exist in the object dictionary',
    0x06040041: 'object cannot be mapped to the PDO',
    0x06040042: 'number and length of the objects to be mapped would exceed the PDO length',
    0x06040043: 'general parameter incompatibility',
    0x06040047: 'general internal incompatibility in the device',
    0x06060000: 'access failed due to a hardware error',
    0x06070010: 'data type does not match, length of service parameter does not match',
    0x06070012: 'data type does not match, length of service parameter too high',
    0x06070013: 'data type does not match, length of service parameter too low',
    0x06090011: 'subindex does not exist',
    0x06090030: 'value range of parameter exceeded',
    0x06090031: 'value of parameter written too high',
    0x06090032: 'value of parameter written too low',
    0x06090036: 'maximum value is less than minimum value',
    0x08000000: 'general error',
    0x08000020: 'data cannot be transferred or stored to the application',
    0x08000021: 'data cannot be transferred or stored because of local control',
    0x08000022: 'data cannot be transferred or stored because of the present device state',
    0x08000023: 'object dictionary dynamic generation fails or no object dictionary present',
}


def sdo_abort_text(code: int) -> str:
    """Meaning of an SDO abort code."""
    return SDO_ABORT_TEXT.get(code, "unknown abort code")
