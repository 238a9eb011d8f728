"""The room's recordings made on its rig (``source hardware``): the experiments' motions through the one real-time loop.

Each plan entry (:func:`paperlib.experiments.bearing.study.recording_plan`) is run on the single-joint
rig of a rig file (``config/rigs/bearing.toml``) by :func:`~paperlib.hardware.joint_session.run_joint_session`
(the real master, :func:`paperlib.hardware.loop.run_loop` and the recording writer):

* ``no-load``: the open-loop trapezoidal torque profile of the twin's no-load run (30 s, Sec. 3.1.1;
  :func:`paperlib.twin.robots.torque_joint.trapezoidal_torque_profile`), nothing grasped;
* ``bearing``: joint impedance control along the bearing move of :class:`~.runs.BearingProfile` (two
  revolutions each way, Sec. 3.1.2) with the plan's wheel bearing grasped.

``emulated=True`` brings up paperlib's emulated devices for the rig file's chain (root: network
namespaces; :func:`paperlib.hardware.joint_selftest.selftest_joint`) around the room's joint twin,
in lock-step (one twin cycle per process-data frame, so a stalled host makes a run late, never
different), with the plan entry's bearing and seed; those recordings are simulated data and say so
(``source = twin``, ``rig = emulated-hardware``, the twin's truth). Otherwise the rig file's interface
must exist here (:func:`paperlib.experiments.kit.rig_config.require_rig`), and the recording is
``source = hardware``.

The room keeps, as for its twin recordings, what its analysis reads and the rig's logger writes:
``q``, ``tau_s``, ``tau_ref`` (bearing), ``q_sp`` (bearing), and the drive's ``tau_m``, ``tau_tgt``;
velocities and accelerations are derived from ``q`` by the analysis, as on the twin (the drive's
``qd`` and the setpoint derivatives are in the session's own file, not the room's).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

import xarray as xr

from paperlib.experiments.kit import rig_runs as kit_rig
from paperlib.experiments.kit.rig_config import BASE_REQUIRED_KEYS
from paperlib.experiments.kit.rig_runs import RigRunError

__all__ = ["RIG_REQUIRED_KEYS", "KEPT_CHANNELS", "RigRunError", "session_kwargs", "emulator_config",
           "record_on_rig", "check_rig"]

#: Rig-file keys the room needs (section, key): a single-joint rig's drive train.
RIG_REQUIRED_KEYS: tuple[tuple[str, str], ...] = BASE_REQUIRED_KEYS + (("joint", "gear_ratio"),)
#: Channels of the session's recording the room keeps.
KEPT_CHANNELS = ("q", "tau_s", "tau_ref", "q_sp", "tau_m", "tau_tgt")


def check_rig(rig_file: str | os.PathLike[str] | None, *, emulated: bool) -> dict[str, Any]:
    """The rig file if the room can run on it; :class:`RigUnavailable` otherwise.

    Emulated: the file and its keys (the devices are brought up by the run). Real: also its interface.
    """
    return kit_rig.check_rig(rig_file, RIG_REQUIRED_KEYS, emulated=emulated)


def session_kwargs(spec: Mapping[str, Any], fs: float) -> tuple[float, dict[str, Any]]:
    """Duration [s] and :func:`~paperlib.hardware.joint_session.run_joint_session` arguments of a plan entry.

    Parameters
    ----------
    spec : mapping
        A plan entry (``kind`` ``"no-load"`` or ``"bearing"``).
    fs : float
        The rig's loop rate [Hz].
    """
    from paperlib.experiments.bearing.runs import BearingProfile
    from paperlib.twin.robots.torque_joint import trapezoidal_moves, trapezoidal_torque_profile

    if spec["kind"] == "no-load":
        ff = trapezoidal_torque_profile(duration_s=float(spec.get("duration_s", 30.0)), fs=fs)
        return ff.shape[0] / fs, {"tau_ff": ff}
    prof = BearingProfile()
    d = 2.0 * math.pi * prof.revolutions
    q_sp, _, _ = trapezoidal_moves((d, -d), v_max=prof.v_max, a_max=prof.a_max, dwell_s=prof.dwell_s, fs=fs)
    return q_sp.shape[0] / fs, {"distances_rad": (d, -d), "v_max": prof.v_max, "a_max": prof.a_max,
                                "dwell_s": prof.dwell_s}


def emulator_config(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The emulated rig's twin for a plan entry: seed, start angle and the grasped bearing (none without load)."""
    bearing = None
    if spec["kind"] == "bearing":
        bearing = {"grade": str(spec.get("grade", "good")), "index": int(spec["bearing_index"]),
                   "seed": int(spec["bearing_seed"])}
    return {"seed": int(spec["seed"]), "q0_rad": float(spec.get("q0", 0.0)), "load": bearing}


def _room_recording(session_nc: Path, spec: Mapping[str, Any]) -> xr.Dataset:
    """The room's copy of a session recording: :data:`KEPT_CHANNELS`, the plan's kind in the truth."""
    import json

    from paperlib.recordings import read_recording

    ds = read_recording(session_nc).load()
    drop = [v for v in ds.data_vars if v not in KEPT_CHANNELS and "time" in ds[v].dims]
    ds = ds.drop_vars(drop)
    if spec["kind"] == "no-load":
        ds = ds.drop_vars([v for v in ("q_sp",) if v in ds])
    if "truth" in ds.attrs:
        truth = json.loads(ds.attrs["truth"])
        truth["kind"] = "no_load" if spec["kind"] == "no-load" else "bearing"
        ds.attrs["truth"] = json.dumps(truth)
    ds.attrs["description"] = ("no-load trapezoidal torque run" if spec["kind"] == "no-load"
                               else "wheel-bearing turning trial with external load cell") + " (on the rig)"
    return ds


def record_on_rig(spec: Mapping[str, Any], rig_file: str | os.PathLike[str], output: str | os.PathLike[str], *,
                  emulated: bool, workdir: str | os.PathLike[str] | None = None,
                  log: Callable[[str], None] | None = None) -> xr.Dataset:
    """Run one plan entry on the rig and write the room's recording to ``output`` (module docstring).

    Parameters
    ----------
    spec : mapping
        A plan entry of :func:`~paperlib.experiments.bearing.study.recording_plan`.
    rig_file : path-like
        The single-joint rig file.
    output : path-like
        The recording (``.nc``).
    emulated : bool
        Bring up the emulated devices (root; lock-step) instead of using the file's interface.
    workdir : path-like, optional
        Where the session's own files go (default: a temporary folder, removed afterwards).
    log : callable, optional
        Progress messages.

    Returns
    -------
    xarray.Dataset
        The recording as written.

    Raises
    ------
    RigUnavailable
        No usable rig file (or, real rig, its interface is absent).
    RigRunError
        The run stopped with a fault or its recording is not valid.
    """
    from paperlib.hardware.rig_settings import load_rig_settings

    check_rig(rig_file, emulated=emulated)
    fs = float(load_rig_settings(rig_file).cycle_hz or 1000.0)
    duration_s, kw = session_kwargs(spec, fs)
    tmp = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_bearing_rig_"))
    tmp.mkdir(parents=True, exist_ok=True)
    name = str(spec.get("path", ""))
    try:
        session_nc = kit_rig.run_joint_experiment(rig_file, name=name, emulated=emulated, duration_s=duration_s,
                                                  seed=int(spec["seed"]), session=kw, emulator=emulator_config(spec),
                                                  workdir=tmp, twin="torque_joint", log=log)
        return kit_rig.write_room_recording(_room_recording(session_nc, spec), output, name=name, emulated=emulated)
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
