"""Emulated strain-gauge bridge terminal (EL3356 class) with its sensor: noise, slow drift, ADC limit, broken wire.

The signal chain of one sample (once per process-data frame, :mod:`.analog_terminal`)::

    u   = zero_mV_V + load * sensitivity_mV_V / rated_load + drift_mV_V_per_s * t + noise     sensor [mV/V]
    u   = clip(u, -adc_limit_mV_V, +adc_limit_mV_V)         (overrange / underrange bit at the limit)
    y   = filter(u)                                          0x8000:01 / 0x8000:11, below
    v   = round((y - 0x8000:25) / 0x8000:23 * 0x8000:24 * 0x8000:27) - tare    0x6000:11 (INT32)

``load`` is the physical input (a torque [N m] or force [N]) from ``source`` (the twin); the
sensor's own calibration (``sensitivity_mV_V`` at ``rated_load``, ``zero_mV_V``) is the emulator's,
and what the master writes into 0x8000:23-:27 is the *nominal* one: they agree when the rig file
describes the sensor correctly, and the value is then the load times the scale factor. ``t`` is
the number of samples times ``sample_period_s`` (plant time in lock-step). The noise is Gaussian,
seeded. Filters (the emulator's models, not Beckhoff's coefficients): "FIR 50 Hz" / "FIR 60 Hz"
average the last 20 ms / 16.7 ms of samples (a moving average of one mains period has its zeros at
the mains frequency and its harmonics), "IIR k" is ``y += (u - y) / 2**k`` per sample. The rising
edge of the Tara bit (0x7000:05) subtracts the current value from every later one.

A broken wire (``break_wire()``, or ``broken_wire_after_samples``) drives the differential input to
the rail: status error + overrange, the value frozen at the positive limit, until the end. The ADC
limit alone sets only overrange / underrange (the clipped value stays valid, as a saturated reading).
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable, Sequence

import numpy as np

from paperlib.hardware.analog_terminals import (
    BRIDGE_FILTERS,
    CW_TARA,
    EL3356_PRODUCT_CODE,
    ST_ERROR,
    ST_OVERRANGE,
    ST_TOGGLE,
    ST_UNDERRANGE,
)

from .analog_terminal import AnalogTerminal
from .esc.coe import OdEntry, SdoAbort

__all__ = ["BridgeTerminal"]

_FILTER_NAMES = {v: k for k, v in BRIDGE_FILTERS.items()}


class BridgeTerminal(AnalogTerminal):
    """An EL3356-class bridge terminal and its sensor (module docstring).

    Parameters
    ----------
    source : callable, optional
        Returns the physical load now [N m or N] (default 0).
    sensitivity_mV_V, rated_load : float
        The sensor's output at its rated load [mV/V] and that load [N m or N].
    zero_mV_V : float
        The sensor's output at zero load [mV/V].
    noise_mV_V : float
        Standard deviation of the white noise per sample [mV/V].
    drift_mV_V_per_s : float
        Slow linear drift of the bridge output [mV/V/s].
    adc_limit_mV_V : float
        The ADC's limit [mV/V] (assumed; the saturation of the emulated terminal).
    sample_period_s : float
        Time per sample (the cycle time) [s].
    broken_wire_after_samples : int, optional
        Fault injection: the wire breaks at this sample.
    seed : int
        Seed of the noise.
    product_code, revision, serial, name : optional
        Identity.
    """

    def __init__(self, source: Callable[[], float] | None = None, *, sensitivity_mV_V: float = 2.0,
                 rated_load: float = 1.0, zero_mV_V: float = 0.0, noise_mV_V: float = 0.0,
                 drift_mV_V_per_s: float = 0.0, adc_limit_mV_V: float = 16.0, sample_period_s: float = 2.5e-4,
                 broken_wire_after_samples: int | None = None, seed: int = 0,
                 product_code: int = EL3356_PRODUCT_CODE, revision: int = 0x00110000, serial: int = 3356001,
                 name: str = "EL3356") -> None:
        rmb_status = [(0x6000, k, 1) for k in range(1, 17)]
        super().__init__(product_code=product_code, revision=revision, serial=serial, name=name,
                         description="1-channel resistor bridge input (emulated)",
                         txpdos=[(0x1A00, rmb_status), (0x1A01, [(0x6000, 0x11, 32)])],
                         rxpdos=[(0x1600, [(0x7000, k, 1) for k in range(1, 17)])],
                         in_struct="<Hi", out_struct="<H")
        if not (sensitivity_mV_V > 0 and rated_load > 0 and adc_limit_mV_V > 0 and sample_period_s > 0):
            raise ValueError("sensitivity_mV_V, rated_load, adc_limit_mV_V and sample_period_s must be > 0")
        self.source = source or (lambda: 0.0)
        self.gain = float(sensitivity_mV_V) / float(rated_load)  # [mV/V per unit]
        self.zero = float(zero_mV_V)
        self.noise = float(noise_mV_V)
        self.drift = float(drift_mV_V_per_s)
        self.limit = float(adc_limit_mV_V)
        self.period = float(sample_period_s)
        self.break_at = broken_wire_after_samples
        self.rng = np.random.default_rng(seed)
        self.broken_at: int | None = None
        self.status = 0
        self.value = 0
        self.tare_counts = 0
        self.last_mV_V = 0.0
        self.counts = {"overrange": 0, "underrange": 0, "tares": 0}
        self._y: float | None = None
        self._window: deque[float] = deque()
        self._window_sum = 0.0
        self._last_control = 0
        od = self.od
        od.add(OdEntry(0x8000, 0, "u8", 0x27, name="RMB settings"))
        for sub, dtype, value, what in ((0x01, "bool", 1, "mode0 enable filter"), (0x11, "u16", 0, "mode0 filter"),
                                        (0x23, "f32", 2.0, "nominal characteristic value [mV/V]"),
                                        (0x24, "f32", 5.0, "nominal load"), (0x25, "f32", 0.0, "zero balance [mV/V]"),
                                        (0x26, "f32", 9.80665, "gravity of earth"),
                                        (0x27, "f32", 1000.0, "scale factor")):
            check = (lambda v: 0 if int(v) in _FILTER_NAMES else SdoAbort.VALUE_RANGE) if sub == 0x11 else None
            od.add(OdEntry(0x8000, sub, dtype, value, "rw", name=what, on_write=check))
        od.add(OdEntry(0x6000, 0, "u8", 0x11, name="RMB inputs"))
        od.add(OdEntry(0x6000, 0x11, "i32", 0, on_read=lambda: self.value, name="value"))

    # -- settings ----------------------------------------------------------------------------
    def setting(self, sub: int) -> Any:
        """The value of 0x8000:``sub``."""
        return self.od.value(0x8000, sub)

    def filter_name(self) -> str:
        """The filter in use ("off" or a key of :data:`~paperlib.hardware.analog_terminals.BRIDGE_FILTERS`)."""
        return _FILTER_NAMES[int(self.setting(0x11))] if self.setting(0x01) else "off"

    def break_wire(self) -> None:
        """Fault injection: a bridge wire breaks now."""
        if self.broken_at is None:
            self.broken_at = self.samples

    # -- one sample ----------------------------------------------------------------------------
    def _filter(self, u: float) -> float:
        name = self.filter_name()
        if name == "off":
            return u
        if name.startswith("FIR"):
            mains = 50.0 if "50" in name else 60.0
            n = max(1, int(round(1.0 / (mains * self.period))))
            self._window.append(u)
            self._window_sum += u
            while len(self._window) > n:
                self._window_sum -= self._window.popleft()
            return self._window_sum / len(self._window)
        if name.startswith("IIR"):
            k = int(name.split()[1])
            self._y = u if self._y is None else self._y + (u - self._y) / 2.0**k
            return self._y
        return u  # dynamic IIR: not modelled, unfiltered

    def sample(self, now: float) -> None:
        if self.break_at is not None and self.samples >= self.break_at:
            self.break_wire()
        toggle = (self.status ^ ST_TOGGLE) & ST_TOGGLE
        if self.broken_at is not None:
            self.status = ST_ERROR | ST_OVERRANGE | toggle
            self.value = 2**31 - 1
            return
        t = self.samples * self.period
        u = self.zero + self.gain * float(self.source()) + self.drift * t
        if self.noise > 0.0:
            u += self.noise * float(self.rng.standard_normal())
        status = toggle
        if u >= self.limit:
            u, status = self.limit, status | ST_OVERRANGE
            self.counts["overrange"] += 1
        elif u <= -self.limit:
            u, status = -self.limit, status | ST_UNDERRANGE
            self.counts["underrange"] += 1
        self.last_mV_V = u
        y = self._filter(u)
        nominal = float(self.setting(0x23))
        counts = (y - float(self.setting(0x25))) / nominal * float(self.setting(0x24)) * float(self.setting(0x27))
        raw = int(round(counts)) if math.isfinite(counts) else 0
        if self.control & CW_TARA and not self._last_control & CW_TARA:
            self.tare_counts = raw
            self.counts["tares"] += 1
        self._last_control = self.control
        self.value = max(-(2**31), min(2**31 - 1, raw - self.tare_counts))
        self.status = status

    def inputs(self) -> Sequence[Any]:
        return self.status, self.value

    def report(self) -> dict[str, Any]:
        """What the terminal did (for the emulator's STATS)."""
        return {"name": self.name, "samples": self.samples, "filter": self.filter_name(),
                "broken_wire_at_sample": self.broken_at, "tare_counts": self.tare_counts,
                "nominal_mV_V": float(self.setting(0x23)), "nominal_load": float(self.setting(0x24)), **self.counts}
