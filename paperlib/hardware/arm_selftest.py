"""``paperlib hardware selftest`` for a position-controlled arm: the real master against its emulated chain.

:func:`paperlib.hardware.selftest.selftest` hands a rig file whose ``[rig] twin`` is
``"tx40_campaign"`` to :func:`selftest_arm`, which (as root)

1. creates the network-namespace pair and starts the emulated arm in the slave namespace
   (:mod:`paperlib.hardware.emulators.arm_rig`: the chain the rig file spells out -- its CSP drives
   and RTD terminals -- around the campaign twin's day: its torque model loads the drives, its
   thermal network heats the RTDs' gearboxes);
2. runs :class:`~paperlib.hardware.arm_rig.ArmRig` (the pysoem/SOEM master: the mode and PDO mapping
   of every axis and the RTD settings by SDO at PRE-OP, read back; OP; the axes enabled) and
   :func:`~paperlib.hardware.arm_session.run_arm_session` (the day's joint program from its start,
   ``duration_s`` long, through the real-time loop, recorded) in the master namespace;
3. stops the emulator, removes the namespaces and returns the JSON summary: ``robot``, ``rig_file``,
   ``twin``, ``slaves``, ``cycles``, ``fault``, ``stop_reason``, ``recording``, ``recording_valid``,
   ``source`` / ``rig`` labels, the deadline statistics, ``channel_sources``, the tracking error, the
   recorded joint torques (``tau_m`` times the gear ratio) against the twin's and the RTD
   temperatures against the twin's gearbox temperatures, and the emulator's report.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware.emulators.rig_chain import emulated_chain
from paperlib.hardware.rig_settings import RigSettings

__all__ = ["selftest_arm", "arm_emulator_config"]


def arm_emulator_config(identity: RigSettings, day: dict[str, Any] | None, n_samples: int, lockstep: bool,
                        program_samples: int) -> dict[str, Any]:
    """The emulated arm's configuration for a run of ``n_samples`` cycles of a day (whole program cycles)."""
    from paperlib.hardware.arm_rig import ArmTrain

    train = ArmTrain.from_settings(identity)
    cfg: dict[str, Any] = {"chain": emulated_chain(identity.chain, identity.axes, identity.terminals),
                           "gear_ratio": list(train.gear_ratio), "lockstep": bool(lockstep),
                           "cycles": max(1, -(-int(n_samples) // int(program_samples)))}
    if day is not None:
        cfg["day"] = dict(day)
    return cfg


def selftest_arm(identity: RigSettings, *, duration_s: float = 20.0, seed: int = 1,
                 json_out: str | os.PathLike[str] | None = None, workdir: str | os.PathLike[str] | None = None,
                 emulator: dict[str, Any] | None = None, start_emulator: bool = True, max_lost_frames: int = 100,
                 receive_timeout_s: float = 1e-4, pd_watchdog_s: float = 0.1, lockstep: bool = False,
                 day: dict[str, Any] | None = None, output_name: str = "selftest.nc", report: bool = True,
                 free_run: bool = False, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the arm's self-test (module docstring); returns the JSON summary as a dict.

    Parameters
    ----------
    identity : RigSettings
        The rig file's settings (robot, chain, terminals, ``[arm]``, ``cycle_hz``; interfaces and
        thresholds are the self-test's).
    duration_s : float
        Loop duration [s] from the start of the day's program.
    seed : int
        Recorded as the run's seed.
    json_out, workdir : path-like, optional
        Where the summary and the recording go.
    emulator : dict, optional
        Emulator config overrides (fault injection: ``{"terminals": {name: {"faults": [...]}}}``).
    start_emulator : bool
        False: no slave on the link.
    max_lost_frames, receive_timeout_s, pd_watchdog_s : optional
        Link thresholds (:data:`paperlib.hardware.selftest.LOCKSTEP_LINK` in lock step).
    lockstep : bool
        One twin sample per process-data frame (host-independent).
    free_run : bool
        With ``lockstep``: the cycles run back to back on a simulated clock
        (:class:`~paperlib.hardware.loop.FreeRunClock`), as fast as the host computes them; the summary's
        deadline statistics are then None, and ``deadline_statistics`` says why.
    day : dict, optional
        The campaign day (:class:`~paperlib.twin.robots.campaign.DaySpec` fields; default robot 1, day 1).
    output_name : str
        File name of the recording in ``workdir``.
    report : bool
        Add ``signals`` (tracking error, torques and temperatures against the twin's; simulates the day
        once more in this process).
    log : callable, optional
        Progress messages.

    Raises
    ------
    paperlib.hardware.selftest.SelftestUnavailable
        Not root / no network namespaces.
    """
    from paperlib.hardware.arm_rig import ArmRig
    from paperlib.hardware.arm_session import run_arm_session
    from paperlib.hardware.loop import Watchdog
    from paperlib.hardware.selftest_process import emulated_selftest
    from paperlib.twin.robots.campaign_plant import day_setpoints

    say = log or (lambda s: None)
    wd = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_selftest_"))
    wd.mkdir(parents=True, exist_ok=True)
    day_cfg = {"day": dict(day)} if day is not None else {}
    program, twin_rate = day_setpoints({**day_cfg, "cycles": 1})
    cycle_hz = float(identity.cycle_hz or twin_rate)
    if free_run and not lockstep:
        raise ValueError("free_run needs lockstep: only devices that wait for each frame can run without a clock")
    if abs(cycle_hz - twin_rate) > 1e-9:
        raise ValueError(f"rig {identity.source_file}: [ethercat] cycle_hz = {cycle_hz:g} Hz, but the twin's program "
                         f"is sampled at {twin_rate:g} Hz (one program sample per cycle)")
    n = int(round(duration_s * cycle_hz))
    q_sp, _ = day_setpoints(day_cfg, n)
    emu_cfg = arm_emulator_config(identity, day, n, lockstep, program.shape[0])
    emu_cfg.update(emulator or {})
    summary: dict[str, Any] = {
        "robot": identity.robot, "rig_file": identity.source_file, "twin": identity.twin, "lockstep": bool(lockstep),
        "free_run": bool(free_run),
        "duration_s": duration_s, "cycle_hz": cycle_hz, "seed": seed, "day": day, "slaves_found": 0, "slaves": [],
        "cycles": 0, "fault": None, "stop_reason": None, "recording": None, "recording_valid": False,
        "workdir": str(wd)}

    def run(rig: ArmRig, emu: Any) -> Any:
        return run_arm_session(rig, q_sp, output=wd / output_name, seed=seed, truth=emu.info.get("truth") if emu else None,
                               config={"twin_day": emu.info.get("spec") if emu else None},
                               watchdog=Watchdog(max_imu_age_s=None, max_frame_errors=max_lost_frames),
                               sleep_margin_s=None if lockstep else 1e-3, free_run=free_run, log=say)

    signals = (lambda res, rig: _signal_report(res.recording, rig.train.gear_ratio, emu_cfg)) if report else None
    return emulated_selftest(identity, summary, emulator_module="paperlib.hardware.emulators.arm_rig",
                             emulator_config=emu_cfg, make_rig=ArmRig, run=run, signals=signals,
                             report_keys=("returncode", "twin", "drives", "terminals", "stderr"), workdir=wd,
                             cycle_hz=cycle_hz, max_lost_frames=max_lost_frames, receive_timeout_s=receive_timeout_s,
                             pd_watchdog_s=pd_watchdog_s, start_emulator=start_emulator, json_out=json_out, log=log)


def _signal_report(recording: Path, gear_ratio: tuple[float, ...], emu_cfg: dict[str, Any]) -> dict[str, Any]:
    """Tracking error, recorded joint torques against the twin's, RTD temperatures against the twin's gearboxes."""
    from paperlib.recordings import read_recording
    from paperlib.twin.robots.campaign_plant import day_from_config

    ds = read_recording(recording)
    q, q_sp, tau_m = ds["q"].values, ds["q_sp"].values, ds["tau_m"].values
    n = q.shape[0]
    day = day_from_config(emu_cfg)
    tau_joint = tau_m * np.asarray(gear_ratio)
    # the drive reports the torque it applied on the frame's cycle: the twin's load of that sample
    d_tau = tau_joint[1:] - day.tau[: n - 1]
    out: dict[str, Any] = {
        "samples": int(n),
        "tracking_error_max_deg": [float(v) for v in np.degrees(np.max(np.abs(q[1:] - q_sp[:-1]), axis=0))],
        "tracking_error_rms_deg": [float(v) for v in np.degrees(np.sqrt(np.mean((q[1:] - q_sp[:-1]) ** 2, axis=0)))],
        "joint_torque_rms_Nm": [float(v) for v in np.sqrt(np.mean(day.tau[: n - 1] ** 2, axis=0))],
        "joint_torque_error_rms_Nm": [float(v) for v in np.sqrt(np.mean(d_tau ** 2, axis=0))],
    }
    if "temperature" in ds:
        T = ds["temperature"].values
        tr = day.truth
        Ti = np.asarray(tr["temperature_inner_degC"])
        t = np.arange(n) / float(ds.attrs.get("sample_rate_hz", 250.0))
        twin_T = np.stack([np.interp(t, np.arange(Ti.shape[0]) * float(tr["temperature_inner_step_s"]), Ti[:, j])
                           for j in range(Ti.shape[1])], axis=1)
        ok = np.isfinite(T).all(axis=0)
        out["temperature"] = {"joints_with_rtd": [int(j + 1) for j in np.flatnonzero(ok)],
                              "first_degC": [float(v) for v in T[0, ok]], "last_degC": [float(v) for v in T[-1, ok]],
                              "twin_last_degC": [float(v) for v in twin_T[-1, ok]],
                              "max_abs_diff_K": float(np.max(np.abs(T[:, ok] - twin_T[:, ok]))) if ok.any() else None}
    return out
