"""Emulated EtherCAT slaves for running the real master (SOEM/pysoem) without hardware.

* :mod:`.esc` -- the EtherCAT slave controller model (frames, datagrams, registers, SII,
  AL state machine, mailbox/CoE) and a raw-socket server;
* :mod:`.devices` -- the paper's chain: CiA 402 drives (one to four axes; the paper's has
  two) in cyclic synchronous torque, position or velocity mode, and the chain built from a
  config (``python -m paperlib.hardware.emulators.devices --ifname IF --config JSON``), with
  :mod:`.coupler` (an EK1828-like coupler and its proximity sensors), :mod:`.plants` (what a
  drive's axes move) and :mod:`.axis_loop` (a drive's own CSP/CSV loop);
* :mod:`.rig_chain` -- the emulated chain a rig file's ``[[ethercat.slave]]`` tables describe.

Names are imported lazily so that ``python -m paperlib.hardware.emulators.devices`` does
not import the module twice.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "EscChain": ".esc",
    "EscSlave": ".esc",
    "FrameFaults": ".esc",
    "serve": ".esc",
    "Cia402Drive": ".devices",
    "DualAxisCia402Drive": ".devices",
    "Ek1828Coupler": ".coupler",
    "InertiaPlant": ".plants",
    "Plant": ".plants",
    "ProximitySensors": ".coupler",
    "build_chain": ".devices",
    "emulated_chain": ".rig_chain",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
