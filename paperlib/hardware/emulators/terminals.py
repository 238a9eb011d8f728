"""The emulated analog terminals by type name, as the emulator's chain spec names them.

``{"type": "el3356", ...}`` is a :class:`~.bridge_terminal.BridgeTerminal`, ``{"type": "el3202", ...}``
an :class:`~.rtd_terminal.RtdTerminal`; the other keys are their arguments, and

* ``signal`` / ``joint`` (bridge) or ``signals`` (RTD: one ``[signal, joint]`` per channel) say which
  twin signal feeds them (kept on the terminal as ``signals``; the twin-rig bridge connects them),
* ``load`` (bridge) or ``temperature_degC`` (RTD, one value or one per channel) give a constant
  input instead (the default without a twin: 0 load, 25 degC).
"""

from __future__ import annotations

from typing import Any

from .bridge_terminal import BridgeTerminal
from .rtd_terminal import RtdTerminal

__all__ = ["TERMINAL_TYPES", "make_terminal"]

TERMINAL_TYPES = {"el3356": BridgeTerminal, "el3202": RtdTerminal}


def make_terminal(kind: str, spec: dict[str, Any]) -> BridgeTerminal | RtdTerminal:
    """The emulated terminal of type ``kind`` from its chain spec (module docstring)."""
    spec = dict(spec)
    spec.pop("vendor_id", None)  # Beckhoff's, always
    if kind == "el3356":
        signals = [(spec.pop("signal", None), int(spec.pop("joint", 0)))]
        load = float(spec.pop("load", 0.0))
        term: Any = BridgeTerminal(lambda: load, **spec)
    else:
        signals = [tuple(s) for s in spec.pop("signals", [])]
        temps = spec.pop("temperature_degC", 25.0)
        temps = list(temps) if isinstance(temps, (list, tuple)) else [temps, temps]
        term = RtdTerminal([(lambda v=float(v): v) for v in temps], **spec)
    term.signals = signals
    return term
