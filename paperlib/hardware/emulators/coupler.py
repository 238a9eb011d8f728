"""The emulated EK1828-like EtherCAT coupler and the proximity sensors on its digital inputs (the flagship's zeroing sensors).

Part of the emulated rig devices (:mod:`paperlib.hardware.emulators.devices`, which re-exports it).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Sequence

from .esc.registers import AlState, AlStatusCode
from .esc.sii import PdoEntrySpec, PdoSpec, SiiImage, SmEntry
from .esc.slave import EscSlave

__all__ = ["ProximitySensors", "Ek1828Coupler", "EK1828_VENDOR_ID", "EK1828_PRODUCT_CODE", "EK1828_REVISION"]

EK1828_VENDOR_ID = 0x00000002
EK1828_PRODUCT_CODE = 0x07242C52
EK1828_REVISION = 0x00110000
TWO_PI = 2.0 * math.pi


@dataclasses.dataclass
class ProximitySensors:
    """Two proximity sensors at the joints' home angles (the paper's zeroing sensors).

    Attributes
    ----------
    home_rad : tuple of float
        Joint angle of each sensor's target [rad].
    half_width_rad : float
        Half width of the active window [rad].
    gear_ratio : tuple of float
        Motor angle / joint angle, to turn the drive's motor angle into the joint angle.
    """

    home_rad: tuple[float, float] = (0.0, 0.0)
    half_width_rad: float = 0.05
    gear_ratio: tuple[float, float] = (1.0, 1.0)

    def bits(self, motor_rad: Sequence[float]) -> int:
        """DI bit field: bit k set while joint k is inside its sensor window."""
        out = 0
        for k in range(min(len(self.home_rad), len(motor_rad))):
            joint = motor_rad[k] / self.gear_ratio[k]
            d = (joint - self.home_rad[k] + math.pi) % TWO_PI - math.pi
            if abs(d) <= self.half_width_rad:
                out |= 1 << k
        return out


class Ek1828Coupler(EscSlave):
    """EK1828-like EtherCAT coupler with ``n_di`` digital inputs and ``n_do`` digital outputs.

    Parameters
    ----------
    input_fn : callable, optional
        Returns the DI bit field (called once per cycle); default all inputs off.
    vendor_id, product_code, revision, serial : int
        Identity in the SII (override the product code to emulate a wrong device).
    n_di, n_do : int
        Number of digital inputs (bit-sized TxPDO entries) and outputs (RxPDO entries).
    eeprom_8byte, dc : bool
        ESC capabilities.
    refuse_states : dict, optional
        Fault injection, see :class:`~paperlib.hardware.emulators.esc.EscSlave`.
    """

    SM_OUT = (0, 0x0F00)
    SM_IN = (1, 0x1000)

    def __init__(
        self,
        input_fn: Callable[[], int] | None = None,
        *,
        vendor_id: int = EK1828_VENDOR_ID,
        product_code: int = EK1828_PRODUCT_CODE,
        revision: int = EK1828_REVISION,
        serial: int = 1828001,
        n_di: int = 4,
        n_do: int = 8,
        eeprom_8byte: bool = True,
        dc: bool = True,
        name: str = "EK1828",
        refuse_states: dict[Any, int] | None = None,
    ) -> None:
        self.n_di, self.n_do = n_di, n_do
        self.in_bytes = (n_di + 7) // 8
        self.out_bytes = (n_do + 7) // 8
        sii = SiiImage(
            vendor_id=vendor_id,
            product_code=product_code,
            revision=revision,
            serial=serial,
            strings=(name, "EtherCAT coupler, 4 DI 24 V, 8 DO 24 V (emulated)"),
            fmmu=(1, 2, 3),
            sms=(
                SmEntry(self.SM_OUT[1], self.out_bytes, 0x44, 0x01, 3),
                SmEntry(self.SM_IN[1], self.in_bytes, 0x00, 0x01, 4),
            ),
            rxpdos=(
                PdoSpec(0x1600, 0, tuple(PdoEntrySpec(0x7000 + 0x10 * k, 1, 1, 0x0001) for k in range(n_do))),
            ),
            txpdos=(
                PdoSpec(0x1A00, 1, tuple(PdoEntrySpec(0x6000 + 0x10 * k, 1, 1, 0x0001) for k in range(n_di))),
            ),
            pdi_control=0x04,  # digital I/O
            ebus_current_mA=-2000,
        )
        super().__init__(sii, eeprom_8byte=eeprom_8byte, dc=dc, name=name, refuse_states=refuse_states)
        self.input_fn = input_fn or (lambda: 0)
        self.outputs = 0

    def check_transition(self, old: int, new: int) -> int:
        if new == AlState.SAFEOP:
            if not self.check_sm(self.SM_OUT[0], self.SM_OUT[1], self.out_bytes, outputs=True):
                return AlStatusCode.INVALID_OUTPUT_CONFIG
            if not self.check_sm(self.SM_IN[0], self.SM_IN[1], self.in_bytes, outputs=False):
                return AlStatusCode.INVALID_INPUT_CONFIG
        return 0

    def _refresh_inputs(self) -> None:
        bits = int(self.input_fn()) & ((1 << self.n_di) - 1)
        self.mem[self.SM_IN[1] : self.SM_IN[1] + self.in_bytes] = bits.to_bytes(self.in_bytes, "little")

    def on_state_change(self, old: int, new: int) -> None:
        if new >= AlState.SAFEOP:
            self._refresh_inputs()
        if new < AlState.OP:
            self.outputs = 0  # outputs are switched off outside OP

    def on_outputs(self, sm_index: int, now: float) -> None:
        if self.al_state == AlState.OP:
            self.outputs = int.from_bytes(self.mem[self.SM_OUT[1] : self.SM_OUT[1] + self.out_bytes], "little")
        self._refresh_inputs()

    def tick(self, now: float) -> None:
        if self.al_state >= AlState.SAFEOP:
            self._refresh_inputs()
