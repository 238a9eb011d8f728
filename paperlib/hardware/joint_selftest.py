"""``paperlib hardware selftest`` for a joint-space rig: the real master against its emulated chain.

:func:`paperlib.hardware.selftest.selftest` hands a rig file with a ``[joint]`` drive train (no IMU
board: the bearing room's single joint, the 3-RRR's three drives) to :func:`selftest_joint`, which
(as root)

1. creates the network-namespace pair and starts the emulated rig in the slave namespace
   (:mod:`paperlib.hardware.emulators.joint_rig`: the chain the rig file spells out -- its drives and
   analog terminals -- around the stepped twin its ``[rig] twin`` names);
2. runs :class:`~paperlib.hardware.joint_rig.JointRig` (the pysoem/SOEM master: PRE-OP settings of the
   terminals by SDO, tare, OP, the axis enabled) and :func:`~paperlib.hardware.joint_session.run_joint_session`
   (impedance moves of ``[joint] selftest_move_deg`` out and back on every axis, through the
   real-time loop, recorded) in the master namespace;
3. stops the emulator, removes the namespaces and returns the JSON summary: ``robot``, ``rig_file``,
   ``slaves``, ``cycles``, ``fault``, ``stop_reason``, ``recording``, ``recording_valid``, the deadline
   statistics, ``channel_sources``, the recorded ``tau_s`` / ``tau_ref`` against the twin's sensor
   signals, and the emulator's report (drive states, terminals).

Fault injection (tests) goes through ``emulator`` (the emulator's config, e.g. ``{"terminals":
{"EL3356 load cell": {"broken_wire_after_samples": 3000}}}``).
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware.emulators.rig_chain import emulated_chain
from paperlib.hardware.rig_settings import RigSettings

__all__ = ["selftest_joint"]


def selftest_joint(identity: RigSettings, *, duration_s: float = 6.0, seed: int = 1,
                   json_out: str | os.PathLike[str] | None = None, workdir: str | os.PathLike[str] | None = None,
                   emulator: dict[str, Any] | None = None, start_emulator: bool = True, max_lost_frames: int = 100,
                   receive_timeout_s: float = 1e-4, pd_watchdog_s: float = 0.1, lockstep: bool = False,
                   session: dict[str, Any] | None = None, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the single-joint self-test (module docstring); returns the JSON summary as a dict.

    Parameters
    ----------
    identity : RigSettings
        The rig file's settings (its robot, chain, terminals and ``[joint]`` drive train are used;
        interfaces and thresholds are the self-test's).
    duration_s : float
        Loop duration [s].
    seed : int
        The twin's seed.
    json_out, workdir : path-like, optional
        Where the summary and the recording go.
    emulator : dict, optional
        Emulator config overrides (fault injection).
    start_emulator : bool
        False: no slave on the link.
    max_lost_frames, receive_timeout_s, pd_watchdog_s : optional
        Link thresholds (:data:`paperlib.hardware.selftest.LOCKSTEP_LINK` in the tests).
    lockstep : bool
        One twin cycle per process-data frame (host-independent; the tests).
    session : dict, optional
        Keyword arguments of :func:`~paperlib.hardware.joint_session.run_joint_session` for another
        motion than the self-test's (a room's experiment: its moves, or ``tau_ff``, a torque profile).
    log : callable, optional
        Progress messages.

    Raises
    ------
    paperlib.hardware.selftest.SelftestUnavailable
        Not root / no network namespaces.
    """
    from paperlib.hardware.joint_rig import JointRig
    from paperlib.hardware.joint_session import run_joint_session
    from paperlib.hardware.loop import Watchdog
    from paperlib.hardware.selftest_process import emulated_selftest

    say = log or (lambda s: None)
    wd = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_selftest_"))
    wd.mkdir(parents=True, exist_ok=True)
    cycle_hz = float(identity.cycle_hz or 1000.0)
    emu_cfg: dict[str, Any] = {"chain": emulated_chain(identity.chain, identity.axes, identity.terminals),
                               "twin": identity.twin or "torque_joint",
                               "seed": int(seed), "cycle_s": 1.0 / cycle_hz, "lockstep": bool(lockstep),
                               "load": {"grade": "good", "index": 0, "seed": 11}}
    emu_cfg.update(emulator or {})
    summary: dict[str, Any] = {
        "robot": identity.robot, "rig_file": identity.source_file, "twin": identity.twin, "lockstep": bool(lockstep),
        "duration_s": duration_s, "seed": seed, "slaves_found": 0, "slaves": [], "cycles": 0, "fault": None,
        "stop_reason": None, "recording": None, "recording_valid": False, "workdir": str(wd)}

    def run(rig: JointRig, emu: Any) -> Any:
        move = math.radians(rig.train.selftest_move_deg)
        return run_joint_session(rig, duration_s=duration_s, output=wd / "selftest.nc", seed=seed,
                                 truth=emu.info.get("truth") if emu else None,
                                 watchdog=Watchdog(max_imu_age_s=None, max_frame_errors=max_lost_frames),
                                 sleep_margin_s=None if lockstep else 1e-3, log=say,
                                 **(session or {"distances_rad": (move, -move)}))

    return emulated_selftest(identity, summary, emulator_module="paperlib.hardware.emulators.joint_rig",
                             emulator_config=emu_cfg, make_rig=JointRig, run=run,
                             signals=lambda res, rig: _signal_report(res.recording), workdir=wd, cycle_hz=cycle_hz,
                             max_lost_frames=max_lost_frames, receive_timeout_s=receive_timeout_s,
                             pd_watchdog_s=pd_watchdog_s, start_emulator=start_emulator, json_out=json_out, log=log)


def _signal_report(recording: Path) -> dict[str, Any]:
    """What the recording's terminal channels show: range and mean of each, the joint's travel."""
    from paperlib.recordings import read_recording

    ds = read_recording(recording)
    out: dict[str, Any] = {"samples": int(ds.sizes["time"]),
                           "q_travel_rad": float(np.ptp(ds["q"].values[:, 0]))}
    for name in ("tau_s", "tau_ref", "temperature"):
        if name in ds:
            v = ds[name].values[:, 0]
            out[name] = {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v)),
                         "finite": bool(np.all(np.isfinite(v))), "units": ds[name].attrs.get("units")}
    out["q_rms_tracking_error_rad"] = float(math.sqrt(np.mean((ds["q"].values[:, 0] - ds["q_sp"].values[:, 0]) ** 2)))
    return out
