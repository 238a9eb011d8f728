"""The drive side of the CiA 402 state machine: one emulated axis (the same in every mode of operation).

Used by the emulated drive (:class:`paperlib.hardware.emulators.devices.Cia402Drive`);
the master's side is :mod:`paperlib.hardware.cia402`.
"""

from __future__ import annotations

__all__ = ["Cia402Axis"]


class Cia402Axis:
    """The CiA 402 drive state machine of one axis (mode-independent; the drive applies the mode).

    States and statusword patterns (bits 0-3, 5, 6): not ready 0x0000, switch on disabled
    0x0040, ready to switch on 0x0021, switched on 0x0023, operation enabled 0x0027, quick stop
    active 0x0007, fault reaction active 0x000F, fault 0x0008; plus bit 4 (voltage enabled)
    and bit 9 (remote).
    """

    NOT_READY = "not ready to switch on"
    SOD = "switch on disabled"
    RTSO = "ready to switch on"
    SO = "switched on"
    OE = "operation enabled"
    QSA = "quick stop active"
    FRA = "fault reaction active"
    FAULT = "fault"
    _SW = {NOT_READY: 0x0000, SOD: 0x0040, RTSO: 0x0021, SO: 0x0023, OE: 0x0027, QSA: 0x0007, FRA: 0x000F, FAULT: 0x0008}

    def __init__(self) -> None:
        self.state = self.SOD  # power on: not ready -> switch on disabled happens at once
        self.error_code = 0
        self._last_cw = 0
        self._qs_since: float | None = None

    @property
    def statusword(self) -> int:
        """Statusword 0x6041 for the current state."""
        sw = self._SW[self.state] | 0x0200  # remote
        if self.state != self.NOT_READY:
            sw |= 0x0010  # voltage enabled (main power present)
        return sw

    def fault(self, code: int) -> None:
        """Enter fault (through fault reaction) with error code ``code`` (0x603F)."""
        self.error_code = code
        self.state = self.FRA

    def step(self, cw: int, now: float, speed: float) -> None:
        """Apply one controlword (a new process-data cycle)."""
        rising_reset = bool(cw & 0x80) and not (self._last_cw & 0x80)
        self._last_cw = cw
        s = self.state
        if s == self.FRA:
            self.state = self.FAULT
            return
        if s == self.FAULT:
            if rising_reset:
                self.state = self.SOD
                self.error_code = 0
            return
        if s == self.QSA:
            if not cw & 0x02:
                self.state = self.SOD
            elif (cw & 0x0F) == 0x0F and cw & 0x04:
                self.state = self.OE
            elif self._qs_since is not None and (abs(speed) < 0.05 or now - self._qs_since > 1.0):
                self.state = self.SOD
            return
        if not cw & 0x02:  # disable voltage
            self.state = self.SOD
            return
        if not cw & 0x04:  # quick stop
            if s == self.OE:
                self.state = self.QSA
                self._qs_since = now
            elif s in (self.RTSO, self.SO):
                self.state = self.SOD
            return
        low = cw & 0x0F
        if (low & 0x07) == 0x06:  # shutdown
            if s in (self.SOD, self.SO, self.OE):
                self.state = self.RTSO
        elif low == 0x07:  # switch on / disable operation
            if s in (self.RTSO, self.OE):
                self.state = self.SO
        elif low == 0x0F:  # switch on + enable operation
            if s == self.RTSO:
                self.state = self.SO
            elif s == self.SO:
                self.state = self.OE
