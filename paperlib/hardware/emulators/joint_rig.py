"""An emulated rig in one process: CiA 402 drives and analog terminals around one stepped twin.

The twin is the one the config names (``twin``, default ``"torque_joint"``): its stepped plant
(:func:`paperlib.twin.robots.stepped_plant_factory`, a ``<twin>_plant`` module of the twin layer).
With one drive the drive steps the plant itself; with several (the 3-RRR's three single-axis
drives) every drive moves its axes of the one plant (:mod:`.shared_plant`). A plant with
``drive_settings()`` sets the drives' encoder counts, rated torque and torque limit (the twin's
resolution); one without gets the joint rig's (:data:`DRIVE_RATED_MNM`).

The single-joint case (the bearing room's): the joint twin (:mod:`paperlib.twin.robots.torque_joint`, stepped by
:class:`~paperlib.twin.robots.torque_joint_plant.TorqueJointPlant`) sits behind the emulated CiA 402
drive (:class:`~paperlib.hardware.emulators.devices.Cia402Drive`: the motor torque it applies times
the gear ratio drives the joint), and every terminal of the chain (:mod:`.terminals`) is wired to
the twin signal its rig-file channel names: the joint torque sensor's bridge to ``tau_s``, the load
cell's to ``tau_ref``, an RTD to ``temperature``. The chain is the rig file's
(:func:`~paperlib.hardware.emulators.rig_chain.emulated_chain`); the bridges add the sensors'
electrical noise (by default the twin's: 0.02 N m for the joint sensor, 1.5 mN m for the load cell,
converted to mV/V with each bridge's sensitivity).

Lock-step (``"lockstep": true``, the tests): one twin cycle per process-data frame and never
between frames (:mod:`.twin_rig` explains why). Otherwise the drive advances the twin by the wall
time between frames.

Config keys: ``chain`` (required: the emulated chain), ``twin`` (default ``"torque_joint"``), ``seed``,
``q0_rad``, ``cycle_s`` (the twin's cycle, default 1 ms), ``lockstep``, ``load`` (the joint's load, read by the twin:
:func:`~paperlib.twin.robots.torque_joint_plant.plant_from_config`; default none), ``noise`` (``{signal: std}`` in the signal's unit), ``terminals`` (``{name: kwargs}``
merged into a terminal's spec, e.g. ``{"EL3356 load cell": {"broken_wire_after_samples": 3000}}``),
``drive`` (extra drive kwargs), ``faults`` (frame faults).

Run (inside the slave network namespace)::

    python -m paperlib.hardware.emulators.joint_rig --ifname IF --config JSON

It prints ``READY {json}`` once bound and ``STATS {json}`` on SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

import numpy as np

__all__ = ["build", "main", "DRIVE_RATED_MNM"]

#: The emulated drive's rated motor torque [mN m] (assumed: 0.1 N m, i.e. 10 N m at the joint through N = 100).
DRIVE_RATED_MNM = 100
_PLANT: list[Any] = [None]


def _plant(view: int | None = None) -> Any:
    if _PLANT[0] is None:
        raise RuntimeError("joint_rig plant factory used outside build()")
    return _PLANT[0] if view is None else _PLANT[0].views[view]


def _drive_defaults(plant: Any) -> dict[str, Any]:
    """The emulated drives' scaling: the plant's (its twin's resolution) or the joint rig's."""
    if hasattr(plant, "drive_settings"):
        return dict(plant.drive_settings())
    return {"rated_torque_mNm": [DRIVE_RATED_MNM], "max_torque_permille": [3000]}


def build(config: dict[str, Any]) -> tuple[Any, Any, Any, Any, list[Any]]:
    """The chain around one stepped twin: (chain, frame faults, first drive, plant, terminals)."""
    import importlib

    from paperlib.hardware.emulators.devices import build_chain
    from paperlib.hardware.emulators.shared_plant import SharedPlant
    from paperlib.twin.robots import stepped_plant_factory

    cycle_s = float(config.get("cycle_s", 1e-3))
    lockstep = bool(config.get("lockstep", False))
    module, _, attr = stepped_plant_factory(str(config.get("twin") or "torque_joint")).partition(":")
    plant = getattr(importlib.import_module(module), attr)(config)  # the twin (and its load) from the same configuration
    noise = {**(plant.terminal_noise() if hasattr(plant, "terminal_noise") else {}), **config.get("noise", {})}
    drives = [spec for spec in config["chain"] if spec.get("type") in ("cst_drive", "dual_cst_drive")]
    shared = None
    if len(drives) > 1:  # one plant, several drives: each moves its axes of it
        shared = SharedPlant(plant, [len(spec.get("axis_offsets") or (0, 0)) for spec in drives])
    drive_kw = {**_drive_defaults(plant), "idle_step_s": math.inf if lockstep else 0.001,
                **({"fixed_dt": cycle_s} if lockstep else {}), **config.get("drive", {})}
    per_terminal = config.get("terminals", {})
    chain_spec = []
    n_drive = 0
    for k, spec in enumerate(config["chain"]):
        spec = dict(spec)
        if spec.get("type") in ("cst_drive", "dual_cst_drive"):
            spec.update(drive_kw)
            n_ax = len(spec.get("axis_offsets") or (0, 0))
            for key in ("rated_torque_mNm", "max_torque_permille"):  # one value per axis of this drive
                if key in spec and len(spec[key]) == 1 and n_ax > 1:
                    spec[key] = list(spec[key]) * n_ax
            spec["plant"] = ({"factory": f"{__name__}:_plant"} if shared is None else
                             {"factory": f"{__name__}:_plant", "kwargs": {"view": n_drive}})
            n_drive += 1
        elif spec.get("type") == "el3356":
            gain = float(spec.get("sensitivity_mV_V", 2.0)) / float(spec.get("rated_load", 1.0))
            spec.setdefault("noise_mV_V", gain * float(noise.get(spec.get("signal"), 0.0)))
            spec.setdefault("seed", int(config.get("seed", 1)) * 101 + k)
            spec["sample_period_s"] = cycle_s
        elif spec.get("type") == "el3202":
            spec["sample_period_s"] = cycle_s
        spec.update(per_terminal.get(spec.get("name"), {}))
        chain_spec.append(spec)
    _PLANT[0] = plant if shared is None else shared
    try:
        chain, faults, drive = build_chain({"chain": chain_spec, "faults": config.get("faults", {})})
    finally:
        _PLANT[0] = None
    if shared is not None:
        for view, d in zip(shared.views, [s for s in chain.slaves if hasattr(s, "set_actuals")]):
            view.drive = d
    terminals = [s for s in chain.slaves if hasattr(s, "signals")]
    for term in terminals:
        feeds = [(lambda n=name, j=joint: plant.signal(n, j)) if name else (lambda: 0.0)
                 for name, joint in term.signals]
        if hasattr(term, "sources"):
            term.sources = feeds + term.sources[len(feeds):]
            term.temperature = [float(f()) for f in term.sources]
        else:
            term.source = feeds[0]
    return chain, faults, drive, plant, terminals


def main(argv: list[str] | None = None) -> int:
    """Run the emulated joint rig until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="Emulated joint rig: drive + analog terminals around the joint twin")
    parser.add_argument("--ifname", required=True)
    parser.add_argument("--config", default="{}")
    args = parser.parse_args(argv)
    from paperlib.hardware.emulators.esc import serve_until_signalled, slave_reports

    config = json.loads(args.config)
    chain, faults, drive, plant, terminals = build(config)
    info = {"truth": plant.truth(), "pid": os.getpid(), "gear_ratio": plant.gear}
    stats = serve_until_signalled(chain, args.ifname, faults=faults, tick_period_s=0.001,
                                  ready_line=lambda: "READY " + json.dumps(info, default=float))
    report = {
        "serve": stats,
        "slaves": slave_reports(chain),
        "twin": (plant.report() if hasattr(plant, "report") else
                 {"t_s": plant.t, "cycles": plant.cycles, "q_rad": float(plant.state[0]),
                  "qd_rad_s": float(plant.state[1])}),
        "drive": None if drive is None else {
            "axis_states": [ax.state for ax in drive.axes], "axis_error_codes": [ax.error_code for ax in drive.axes],
            "cycles": drive.cycles, "watchdog_trips": drive.watchdog_trips},
        "terminals": [t.report() for t in terminals],
    }
    print("STATS " + json.dumps(report, default=lambda o: o.tolist() if isinstance(o, np.ndarray) else float(o)),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
