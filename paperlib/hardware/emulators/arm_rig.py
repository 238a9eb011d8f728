"""An emulated position-controlled arm in one process: CSP drives and RTD terminals around the campaign twin.

The TX40 warm-up campaign twin (:mod:`paperlib.twin.robots.campaign`, as a plant stepped per cycle:
:class:`~paperlib.twin.robots.campaign_plant.CampaignArmPlant`) sits behind the emulated CiA 402
drives of the rig file's chain (:class:`~paperlib.hardware.emulators.devices.Cia402Drive` with the
modes its axes run in): each drive's own position/velocity loop (:class:`~.devices.AxisLoop`)
turns its motor against the arm's dynamics, friction and gearbox heating, and reports the torque it
applies. Every RTD
channel of the chain is fixed to the gearbox its rig-file channel names (``temperature`` of joint
``j``: the twin's inner gearbox node); the terminal adds the sensor's thermal lag
(``rtd_time_constant_s``, default 20 s, assumed for a PT100 in a thermowell on a gearbox case).

Lock-step (``"lockstep": true``): one twin sample per process-data frame and never between frames,
so the run does not depend on the host's pace.

Config keys: ``chain`` (required: the emulated chain, :func:`~.rig_chain.emulated_chain`),
``gear_ratio`` (required: one per axis, in the chain's axis order), ``day`` / ``cycles`` /
``params_file`` / ``temperature_log_s`` (the day: :func:`~paperlib.twin.robots.campaign_plant.day_from_config`),
``cycle_s`` (default: the twin's sample period), ``lockstep``, ``rotor_inertia`` [kg m^2],
``loop`` (:class:`~.devices.AxisLoop` gains of every drive; default :func:`loop_gains` of each
axis' inertia at the start pose and ``velocity_loop_rad_s``, default :data:`VELOCITY_LOOP_RAD_S`),
``inner_loop_steps`` (how many times per frame the drives close their loops, default
:data:`INNER_LOOP_STEPS`; :meth:`~paperlib.twin.robots.campaign_plant.AxisView.step_loops`), ``rated_torque_mNm`` (one per axis, default
:data:`RATED_TORQUE_MNM`), ``rtd_time_constant_s``, ``terminals`` (``{name: kwargs}``
merged into a terminal's spec, e.g. an RTD fault), ``faults`` (frame faults).

Run (inside the slave network namespace)::

    python -m paperlib.hardware.emulators.arm_rig --ifname IF --config JSON

It prints ``READY {json}`` once bound (the day's truth and spec) and ``STATS {json}`` on SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

import numpy as np

__all__ = ["build", "main", "loop_gains", "ROTOR_INERTIA", "VELOCITY_LOOP_RAD_S", "INNER_LOOP_STEPS"]

#: Rotor inertia of each emulated axis, motor side [kg m^2] (placeholder).
ROTOR_INERTIA = 1e-4
#: Bandwidth of the emulated drives' velocity loops [rad/s]: ~160 Hz, in the 100-300 Hz a servo
#: drive's velocity loop is commonly tuned to. It is closed :data:`INNER_LOOP_STEPS` times per 4-ms
#: frame (every 0.25 ms: 1000 rad/s x 0.25 ms = 0.25). Closed once per frame instead, the loop had to
#: stay below 1 / frame (it was 120 rad/s: 0.48 per frame), and its ripple on the gravity joints'
#: friction segments spoiled a rig day's double exponential (docs/thermal.md).
VELOCITY_LOOP_RAD_S = 1000.0
#: How many times per frame the emulated drives close their loops (:class:`~.devices.Cia402Drive`
#: ``inner_steps``): 16, a 4-kHz velocity loop as servo drives run theirs (1: once per frame, the
#: torque held over the 4-ms frame).
INNER_LOOP_STEPS = 16
#: Rated motor torque of each axis [mN m] (placeholders: larger motors on the three main axes); the
#: drives quantise torques to 1 per mille of it.
RATED_TORQUE_MNM = (2000, 2000, 2000, 500, 500, 500)
_PLANTS: list[Any] = []


def loop_gains(inertia_motor: float, bandwidth_rad_s: float = VELOCITY_LOOP_RAD_S) -> dict[str, float]:
    """:class:`~.devices.AxisLoop` gains for an axis of ``inertia_motor`` [kg m^2] (motor side).

    Velocity loop ``kp_vel = bandwidth J``, integral corner a quarter of it, position gain a quarter
    of the velocity loop's bandwidth.
    """
    kp_vel = bandwidth_rad_s * float(inertia_motor)
    return {"kp_pos": bandwidth_rad_s / 4.0, "kp_vel": kp_vel, "ki_vel": kp_vel * bandwidth_rad_s / 4.0}


def _plant(index: int) -> Any:
    if not _PLANTS:
        raise RuntimeError("arm_rig plant factory used outside build()")
    return _PLANTS[index]


def build(config: dict[str, Any]) -> tuple[Any, Any, Any, Any, list[Any]]:
    """The chain around the campaign twin: (chain, frame faults, the arm plant, day, terminals)."""
    from paperlib.hardware.emulators.devices import build_chain
    from paperlib.twin.robots.campaign_plant import day_from_config, plant_for_day

    day = day_from_config(config)
    cycle_s = float(config.get("cycle_s", 1.0 / day.sample_rate_hz))
    lockstep = bool(config.get("lockstep", False))
    gear = [float(g) for g in config["gear_ratio"]]
    drives = [s for s in config["chain"] if s.get("type") in ("cst_drive", "dual_cst_drive")]
    groups, k = [], 0
    for spec in drives:
        n = len(spec.get("axis_offsets") or (0, 0))
        groups.append(list(range(k, k + n)))
        k += n
    if k != len(gear) or k != day.tau.shape[1]:
        raise ValueError(f"the chain has {k} axes, gear_ratio {len(gear)} values, the twin {day.tau.shape[1]} joints")
    arm = plant_for_day(day, gear, rotor_inertia=float(config.get("rotor_inertia", ROTOR_INERTIA)))
    plants = arm.views(groups)
    if int(config.get("inner_loop_steps", INNER_LOOP_STEPS)) > 1:
        arm.compile_loops()  # before the chain answers: the drives' first frame must not wait on numba
    inertia = arm.motor_inertia()  # at the start pose: the drives' loops are tuned to it
    rated = list(config.get("rated_torque_mNm", RATED_TORQUE_MNM))
    per_terminal = config.get("terminals", {})
    chain_spec, d = [], 0
    for spec in config["chain"]:
        spec = dict(spec)
        if spec.get("type") in ("cst_drive", "dual_cst_drive"):
            n = len(groups[d])
            spec.update({"plant": {"factory": f"{__name__}:_plant", "kwargs": {"index": d}},
                         "rated_torque_mNm": [int(rated[j]) for j in groups[d]],
                         "max_torque_permille": [3000] * n,
                         "loop": config.get("loop", loop_gains(float(np.mean(inertia[groups[d]])),
                                                               float(config.get("velocity_loop_rad_s",
                                                                                VELOCITY_LOOP_RAD_S)))),
                         "inner_steps": int(config.get("inner_loop_steps", INNER_LOOP_STEPS)),
                         "idle_step_s": math.inf if lockstep else 0.005,
                         **({"fixed_dt": cycle_s} if lockstep else {})})
            d += 1
        elif spec.get("type") == "el3202":
            spec["sample_period_s"] = cycle_s
            spec.setdefault("time_constant_s", float(config.get("rtd_time_constant_s", 20.0)))
        spec.update(per_terminal.get(spec.get("name"), {}))
        chain_spec.append(spec)
    _PLANTS[:] = plants
    try:
        chain, faults, _ = build_chain({"chain": chain_spec, "faults": config.get("faults", {})})
    finally:
        _PLANTS.clear()
    terminals = [s for s in chain.slaves if hasattr(s, "signals")]
    clock = arm
    for term in terminals:
        feeds = [(lambda n=name, j=joint: clock.signal(n, j)) if name else (lambda: 25.0)
                 for name, joint in term.signals]
        term.sources = feeds + term.sources[len(feeds):]
        term.temperature = [float(f()) for f in term.sources]
    return chain, faults, arm, day, terminals


def main(argv: list[str] | None = None) -> int:
    """Run the emulated arm until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="Emulated position-controlled arm: CSP drives + RTDs around the "
                                                 "campaign twin")
    parser.add_argument("--ifname", required=True)
    parser.add_argument("--config", default="{}")
    args = parser.parse_args(argv)
    from paperlib.hardware.emulators.esc import serve_until_signalled, slave_reports

    config = json.loads(args.config)
    chain, faults, arm, day, terminals = build(config)
    info = {"pid": os.getpid(), "spec": {k: v for k, v in day.spec.__dict__.items()},
            "sample_rate_hz": day.sample_rate_hz, "truth": day.truth}
    stats = serve_until_signalled(chain, args.ifname, faults=faults, tick_period_s=0.001,
                                  ready_line=lambda: "READY " + json.dumps(info, default=_plain))
    report = {
        "serve": stats,
        "slaves": slave_reports(chain),
        "twin": {"t_s": arm.t, "cycles": arm.cycles, "q_rad": arm.q.tolist(),
                 "gearbox_inner_degC": arm.x[:, 0].tolist()},
        "drives": [{"name": s.name, "axis_states": [ax.state for ax in s.axes],
                    "axis_error_codes": [ax.error_code for ax in s.axes], "cycles": s.cycles,
                    "watchdog_trips": s.watchdog_trips}
                   for s in chain.slaves if hasattr(s, "axes")],
        "terminals": [t.report() for t in terminals],
    }
    print("STATS " + json.dumps(report, default=_plain), flush=True)
    return 0


def _plain(o: Any) -> Any:
    return o.tolist() if isinstance(o, np.ndarray) else (float(o) if isinstance(o, np.generic) else str(o))


if __name__ == "__main__":
    sys.exit(main())
