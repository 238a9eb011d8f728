"""Emulated RTD terminal (EL3202 class, two PT100 channels) with the sensors' thermal lag and wiring faults.

Each channel's sensor follows the temperature of what it is fixed to (``sources[k]()``, the twin's
gearbox temperature [degC]) with a first-order lag of time constant ``time_constant_s``, updated
exactly for an input held over a sample::

    T <- T_in + (T - T_in) exp(-dt / tau)          dt = sample_period_s (one sample per frame)

so a step of the input gives ``T(t) = T_in + (T_0 - T_in) exp(-t / tau)`` at the sample times. The
value 0x60n0:11 is ``round(T / 0.1 degC)`` (INT16, the default presentation). Outside the PT100
range (-200 ... 850 degC) the channel reports underrange / overrange with the error bit and the
value at the range end. Faults per channel (``faults``: ``{"channel": 1, "kind": "open" | "short",
"after_samples": n}``): an open wire reads as overrange + error (value 0x7FFF), a short as
underrange + error (value -0x8000), until the end. The real terminal converts every ~170 ms (with its
50-Hz filter); the emulator converts on every frame.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from paperlib.hardware.analog_terminals import (
    EL3202_PRODUCT_CODE,
    RTD_COUNT_DEGC,
    ST_ERROR,
    ST_OVERRANGE,
    ST_TOGGLE,
    ST_UNDERRANGE,
)

from .analog_terminal import AnalogTerminal
from .esc.coe import OdEntry, SdoAbort

__all__ = ["RtdTerminal", "PT100_RANGE_DEGC"]

#: The PT100 measuring range of the EL3202 [degC].
PT100_RANGE_DEGC = (-200.0, 850.0)


class RtdTerminal(AnalogTerminal):
    """An EL3202-class two-channel PT100 terminal (module docstring).

    Parameters
    ----------
    sources : sequence of callable, optional
        Per channel, the temperature the sensor is fixed to [degC] (default: 25 degC each).
    time_constant_s : float
        The sensors' thermal time constant [s].
    initial_degC : sequence of float, optional
        The sensors' temperatures at power-on (default: their sources' first values).
    sample_period_s : float
        Time per sample (the cycle time) [s].
    faults : sequence of dict
        Wiring faults (module docstring).
    product_code, revision, serial, name : optional
        Identity.
    """

    N_CHANNELS = 2

    def __init__(self, sources: Sequence[Callable[[], float]] | None = None, *, time_constant_s: float = 5.0,
                 initial_degC: Sequence[float] | None = None, sample_period_s: float = 2.5e-4,
                 faults: Sequence[dict[str, Any]] = (), product_code: int = EL3202_PRODUCT_CODE,
                 revision: int = 0x00120000, serial: int = 3202001, name: str = "EL3202") -> None:
        channel_pdo = [[(0x6000 + 0x10 * n, k, 1) for k in range(1, 17)] + [(0x6000 + 0x10 * n, 0x11, 16)]
                       for n in range(self.N_CHANNELS)]
        super().__init__(product_code=product_code, revision=revision, serial=serial, name=name,
                         description="2-channel PT100 input (emulated)",
                         txpdos=[(0x1A00 + n, e) for n, e in enumerate(channel_pdo)], rxpdos=[],
                         in_struct="<HhHh", out_struct="<")
        if not (time_constant_s > 0 and sample_period_s > 0):
            raise ValueError("time_constant_s and sample_period_s must be > 0")
        srcs = list(sources or [])
        while len(srcs) < self.N_CHANNELS:
            srcs.append(lambda: 25.0)
        self.sources = srcs
        self.tau = float(time_constant_s)
        self.period = float(sample_period_s)
        self.decay = math.exp(-self.period / self.tau)
        self.temperature = [float(v) for v in (initial_degC if initial_degC is not None else
                                               [s() for s in self.sources])]
        self.faults = [dict(f) for f in faults]
        for f in self.faults:
            if f.get("kind") not in ("open", "short") or int(f.get("channel", 1)) not in (1, 2):
                raise ValueError(f"RTD fault {f}: kind 'open' or 'short' on channel 1 or 2")
        self.wiring = ["ok"] * self.N_CHANNELS
        self.fault_at: list[int | None] = [None] * self.N_CHANNELS
        self.status = [0] * self.N_CHANNELS
        self.value = [0] * self.N_CHANNELS
        od = self.od
        for n in range(self.N_CHANNELS):
            base = 0x8000 + 0x10 * n
            od.add(OdEntry(base, 0, "u8", 0x1A, name="RTD settings"))
            od.add(OdEntry(base, 0x06, "bool", 1, "rw", name="enable filter"))
            od.add(OdEntry(base, 0x19, "u16", 0, "rw", name="RTD element",
                           on_write=lambda v: 0 if int(v) == 0 else SdoAbort.VALUE_RANGE))  # PT100 only
            od.add(OdEntry(base, 0x1A, "u16", 1, "rw", name="connection technology",
                           on_write=lambda v: 0 if int(v) in (0, 1, 2) else SdoAbort.VALUE_RANGE))
            od.add(OdEntry(0x6000 + 0x10 * n, 0x11, "i16", 0, on_read=lambda n=n: self.value[n], name="value"))

    def set_wiring(self, channel: int, kind: str) -> None:
        """Fault injection: channel ``channel`` (1-based) is ``"open"`` or ``"short"`` from now on."""
        if self.fault_at[channel - 1] is None:
            self.wiring[channel - 1] = kind
            self.fault_at[channel - 1] = self.samples

    def sample(self, now: float) -> None:
        for f in self.faults:
            if self.samples >= int(f.get("after_samples", 0)):
                self.set_wiring(int(f.get("channel", 1)), str(f["kind"]))
        lo, hi = PT100_RANGE_DEGC
        for n in range(self.N_CHANNELS):
            t_in = float(self.sources[n]())
            self.temperature[n] = t_in + (self.temperature[n] - t_in) * self.decay
            toggle = (self.status[n] ^ ST_TOGGLE) & ST_TOGGLE
            wiring, temp = self.wiring[n], self.temperature[n]
            if wiring == "open" or (wiring == "ok" and temp > hi):
                self.status[n] = ST_ERROR | ST_OVERRANGE | toggle
                self.value[n] = 0x7FFF if wiring == "open" else int(round(hi / RTD_COUNT_DEGC))
            elif wiring == "short" or temp < lo:
                self.status[n] = ST_ERROR | ST_UNDERRANGE | toggle
                self.value[n] = -0x8000 if wiring == "short" else int(round(lo / RTD_COUNT_DEGC))
            else:
                self.status[n] = toggle
                self.value[n] = int(round(temp / RTD_COUNT_DEGC))

    def inputs(self) -> Sequence[Any]:
        return self.status[0], self.value[0], self.status[1], self.value[1]

    def report(self) -> dict[str, Any]:
        """What the terminal did (for the emulator's STATS)."""
        return {"name": self.name, "samples": self.samples, "temperature_degC": list(self.temperature),
                "wiring": list(self.wiring), "fault_at_sample": list(self.fault_at),
                "wires": [int(self.od.value(0x8000 + 0x10 * n, 0x1A)) for n in range(self.N_CHANNELS)]}
