"""Campaign days recorded through the thermal arm's rig (``--source hardware`` with ``--emulate-rig``), in the campaign's format.

:func:`record_day_on_rig` runs one campaign day's program (or its first ``duration_s``) on the rig a
rig file describes (``config/rigs/tx40_thermal.toml``): the real EtherCAT master, the one real-time
loop and recording writer (:func:`paperlib.hardware.arm_selftest.selftest_arm`), against the emulated
drives and RTDs around the campaign twin in lock step. The rig's recording is then written in the
format the campaign's analysis reads (:func:`paperlib.twin.robots.campaign.day_recording`'s): the
measured joint angles ``q`` and the drives' torques on the joint side (``tau_m`` times each axis'
gear ratio), plus the RTDs' ``temperature``, labelled ``source = twin``, ``rig = emulated-hardware``,
with the day's truth and the rig run's link and deadline statistics.

The rig runs at 250 Hz (the arm controller's 4-ms setpoint period, assumed, and the twin's sample
rate) and logs every cycle: the campaign's analysis needs the recording at the twin's rate. The emulated
devices answer in lock step, so by default the loop does not wait for real time between cycles
(``free_run``): a day of 1.8 million cycles is recorded in minutes instead of its 2 hours, and the
recording says its deadline statistics were not measured.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from paperlib.twin.robots import campaign as C

__all__ = ["record_day_on_rig"]


def record_day_on_rig(rig_file: str | Path, day: str, output: str | Path, *, cycles: int | None = None,
                      duration_s: float | None = None, store: Mapping[str, Any] | None = None,
                      workdir: str | Path | None = None, emulator: Mapping[str, Any] | None = None,
                      free_run: bool = True, log: Any = None) -> dict[str, Any]:
    """Record campaign day ``day`` (e.g. ``r1_d1``) through the emulated rig into ``output`` (module docstring).

    Parameters
    ----------
    rig_file : path-like
        The arm's rig file (``[rig] twin = "tx40_campaign"``).
    day : str
        Day name (:attr:`paperlib.twin.robots.campaign.DaySpec.name`).
    output : path-like
        Recording to write (.nc).
    cycles : int, optional
        Program cycles of the day (default the campaign file's, 24).
    duration_s : float, optional
        Only the first ``duration_s`` of the day [s] (overrides ``cycles`` for the run's length).
    store : mapping, optional
        What to keep (:func:`paperlib.experiments.industrial.thermal.storage`); default everything.
    workdir : path-like, optional
        Where the rig's own recording goes (default a temporary folder).
    emulator : mapping, optional
        Overrides of the emulated arm's configuration (:mod:`paperlib.hardware.emulators.arm_rig`).
    free_run : bool
        Run the lock-step cycles back to back (default; :class:`paperlib.hardware.loop.FreeRunClock`):
        the emulated devices wait for each frame, so the recording is that of a run at the rig's rate,
        made about 12 times faster than real time (measured 2026-12-07 on a quiet 2-core VM, the
        drives closing their loops at 4 kHz: the first 900 s of r1_d1 in 65-74 s wall; a whole day of
        1.8 million frames in 669 s before the drives' per-frame arrays were preallocated). False: the
        loop keeps real time (a day then takes its 2 hours) and its deadline statistics are measured.
    log : callable, optional
        Progress messages.

    Returns
    -------
    dict
        The rig run's summary (:func:`~paperlib.hardware.arm_selftest.selftest_arm`), plus ``output``.

    Raises
    ------
    ValueError
        An unknown day, a rig file of another twin.
    RuntimeError
        The rig run faulted or its recording is not valid (naming the fault).
    """
    from paperlib import recordings as R
    from paperlib.hardware.arm_rig import ArmTrain
    from paperlib.hardware.arm_selftest import selftest_arm
    from paperlib.hardware.rig_settings import load_rig_settings
    from paperlib.hardware.selftest import LOCKSTEP_LINK
    from paperlib.recordings.storage import apply_storage

    params = C.load_campaign_params()
    days = {d.name: d for d in C.campaign_days(params)}
    if day not in days:
        raise ValueError(f"unknown campaign day {day!r}; known: {', '.join(sorted(days))}")
    spec = days[day]
    identity = load_rig_settings(rig_file)
    if identity.twin != "tx40_campaign":
        raise ValueError(f"rig {rig_file}: [rig] twin is {identity.twin!r}, not 'tx40_campaign' (the thermal arm's)")
    n_cycles = int(cycles or params.cycles_per_day)
    seconds = float(duration_s) if duration_s is not None else n_cycles * params.cycle_period_s
    wd = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_rigday_"))
    link = {k: v for k, v in LOCKSTEP_LINK.items() if k != "max_imu_age_s"}
    fields = {**spec.__dict__, "fault": list(spec.fault) if spec.fault else None}
    summary = selftest_arm(identity, duration_s=seconds, seed=spec.seed, workdir=wd, lockstep=True, day=fields,
                           output_name=f"{day}_rig.nc", report=False, emulator=dict(emulator or {}), log=log,
                           free_run=free_run, **link)
    if summary.get("fault") or not summary.get("recording_valid"):
        raise RuntimeError(f"campaign day {day} on rig {rig_file}: {summary.get('fault') or summary.get('validation_error')}")
    rig_ds = R.read_recording(summary["recording"])
    gear = np.asarray(ArmTrain.from_settings(identity).gear_ratio)
    truth = R.truth(rig_ds)
    config = {"twin": "tx40 thermal campaign", "spec": {k: v for k, v in spec.__dict__.items() if k != "thermal_model"},
              "params_file": Path(params.path).name, "rig_file": str(rig_file), "cycle_hz": summary["cycle_hz"],
              "logged_hz": summary["cycle_hz"], "duration_s": seconds}
    attrs = {"description": f"TX40 twin, thermal campaign, robot {spec.robot} day {spec.day}"
             + (" (faulty)" if spec.fault else "") + ", recorded through the emulated rig",
             "rig": "emulated-hardware", "channel_sources": rig_ds.attrs.get("channel_sources", "{}"),
             "loop_cycles": int(summary["cycles"]),
             "loop_clock": rig_ds.attrs["loop_clock"],  # as the rig's session wrote it
             **({"deadline_statistics": summary["deadline_statistics"]} if free_run
                else {"deadline_misses": int(summary.get("deadline_misses") or 0)}),
             "link_counters": json.dumps(summary.get("link_counters", {}), default=str)}
    channels = {"tau_m": rig_ds["tau_m"].values * gear}
    if "temperature" in rig_ds:
        channels["temperature"] = rig_ds["temperature"].values
    ds = R.from_arrays(rig_ds["q"].values, sample_rate_hz=float(rig_ds.attrs["sample_rate_hz"]), robot="tx40",
                       source="twin", channels=channels, torque_side="joint", truth=truth, seed=spec.seed,
                       config=config, controller="position", writer="paperlib.experiments.industrial.rig_days",
                       attrs=attrs)
    ds = apply_storage(ds, store) if store else ds
    R.write_recording(ds, output)
    return {**summary, "output": str(output)}
