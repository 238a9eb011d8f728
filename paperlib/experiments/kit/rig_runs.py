"""A room's recording made on a joint-space rig (``--source hardware``): the parts every such room shares.

A room whose rig is a chain of drives without an IMU board (the bearing room's single joint, the
3-RRR's three drives: a rig file with a ``[joint]`` table) runs each of its experiments through the
real master, the one real-time loop and the recording writer
(:func:`paperlib.hardware.joint_session.run_joint_session`). With ``emulated=True`` the rig file's
devices are emulated around the twin its ``[rig] twin`` names, in lock-step (one twin cycle per
process-data frame: a stalled host makes a run late, never different;
:func:`paperlib.hardware.joint_selftest.selftest_joint`), and the recordings say so
(``source = twin``, ``rig = emulated-hardware``); otherwise the rig file's interface must exist
here and the recordings say ``source = hardware``.

:func:`run_joint_experiment` runs one experiment and returns the session's recording;
:func:`write_room_recording` checks the labels and writes the room's copy; :func:`hardware_check`
is the room's ``paperlib reproduce`` check of ``--source hardware``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import xarray as xr

from paperlib.experiments.kit.rig_config import RigUnavailable, load_rig_config, require_rig

__all__ = ["RigRunError", "check_rig", "hardware_check", "run_joint_experiment", "write_room_recording"]


class RigRunError(RuntimeError):
    """A run on the rig stopped with a fault or left no valid recording."""


def check_rig(rig_file: str | os.PathLike[str] | None, required: Sequence[tuple[str, str]], *,
              emulated: bool) -> dict[str, Any]:
    """The rig file if it has the ``required`` keys (and, real rig, its interface is here); :class:`RigUnavailable` otherwise."""
    if emulated:
        return load_rig_config(rig_file, required)
    return require_rig(rig_file, required)


def hardware_check(slug: str, args: Any, required: Sequence[tuple[str, str]], what: str) -> None:
    """``paperlib reproduce``'s check of ``--source hardware`` for room ``slug``, before Snakemake runs.

    Parameters
    ----------
    slug : str
        The room (named in the refusal).
    args : argparse.Namespace
        ``source``, ``rig_config``, ``emulate_rig``.
    required : sequence of (section, key)
        The rig-file keys the room needs.
    what : str
        What the emulated rig runs (for the hint), e.g. ``"the joint twin"``.

    Raises
    ------
    RigUnavailable
        No rig file, a file without the room's keys, a real rig whose interface is absent, or
        ``--emulate-rig`` where the emulated devices cannot be brought up (not root, no network
        namespaces).
    """
    if getattr(args, "source", None) != "hardware":
        return
    emulated = bool(getattr(args, "emulate_rig", False))
    try:
        check_rig(getattr(args, "rig_config", None), required, emulated=emulated)
    except RigUnavailable as exc:
        hint = "" if emulated or not getattr(args, "rig_config", None) else (
            f" (with --emulate-rig, as root, the rig file's devices are emulated around {what} instead: recordings "
            "labelled source = twin, rig = emulated-hardware)")
        raise RigUnavailable(f"{slug}: {exc}{hint}") from None
    if emulated:
        from paperlib.hardware import netns

        reason = netns.unavailable_reason()
        if reason:
            raise RigUnavailable(f"{slug}: --emulate-rig cannot bring up the emulated rig: {reason}")


def run_joint_experiment(rig_file: str | os.PathLike[str], *, name: str, emulated: bool, duration_s: float, seed: int,
                         session: Mapping[str, Any], emulator: Mapping[str, Any] | None, workdir: Path,
                         twin: str | None = None, log: Callable[[str], None] | None = None) -> Path:
    """Run one experiment on the rig of ``rig_file``; the session's recording (in ``workdir``).

    Parameters
    ----------
    rig_file : path-like
        A joint-space rig file (a ``[joint]`` table).
    name : str
        The run (named in errors).
    emulated : bool
        Emulated devices (root; lock-step) instead of the file's interface.
    duration_s : float
        Loop duration [s].
    seed : int
        The run's seed (the twin's, emulated).
    session : mapping
        Keyword arguments of :func:`~paperlib.hardware.joint_session.run_joint_session` (the experiment).
    emulator : mapping, optional
        The emulated twin's configuration (start pose, load...).
    workdir : Path
        Where the session's files go.
    twin : str, optional
        The twin the room's emulated rig must run (checked against the file's ``[rig] twin``).
    log : callable, optional
        Progress messages.

    Raises
    ------
    RigUnavailable
        The rig file's twin is not the room's (emulated).
    RigRunError
        The run stopped with a fault or its recording is not valid.
    """
    from paperlib.hardware.rig_settings import load_rig_settings

    identity = load_rig_settings(rig_file)
    if emulated and twin is not None and identity.twin != twin:
        raise RigUnavailable(f"rig file {rig_file}: [rig] twin = {identity.twin!r}; this room's emulated rig runs "
                             f"the twin {twin!r}")
    if emulated:
        from paperlib.hardware.joint_selftest import selftest_joint
        from paperlib.hardware.selftest import LOCKSTEP_LINK

        s = selftest_joint(identity, duration_s=duration_s, seed=int(seed), workdir=workdir,
                           emulator=dict(emulator or {}), lockstep=True, session=dict(session), log=log,
                           max_lost_frames=int(LOCKSTEP_LINK["max_lost_frames"]),
                           receive_timeout_s=float(LOCKSTEP_LINK["receive_timeout_s"]),
                           pd_watchdog_s=float(LOCKSTEP_LINK["pd_watchdog_s"]))
        if s.get("fault") or not s.get("recording_valid"):
            raise RigRunError(f"run {name} on the emulated rig: fault {s.get('fault')!r}, "
                              f"stop {s.get('stop_reason')!r}, validation {s.get('validation_error')!r}")
        return Path(s["recording"])
    from paperlib.hardware.joint_rig import JointRig
    from paperlib.hardware.joint_session import run_joint_session

    res = run_joint_session(JointRig(identity), duration_s=duration_s, output=workdir / "session.nc",
                            seed=int(seed), log=log, **dict(session))
    if res.fault or not res.recording_valid or res.recording is None:
        raise RigRunError(f"run {name} on the rig: fault {res.fault!r}, stop {res.stop_reason!r}, "
                          f"validation {res.validation_error!r}")
    return res.recording


def write_room_recording(ds: xr.Dataset, output: str | os.PathLike[str], *, name: str, emulated: bool) -> xr.Dataset:
    """Check a rig recording's labels, validate it and write it to ``output``; the recording as written.

    Raises
    ------
    RigRunError
        Labels other than ``source = twin, rig = emulated-hardware`` (emulated) or ``hardware, hardware``.
    """
    from paperlib.recordings import read_recording, validate, write_recording

    want = ("twin", "emulated-hardware") if emulated else ("hardware", "hardware")
    got = (ds.attrs.get("source"), ds.attrs.get("rig"))
    if got != want:
        raise RigRunError(f"run {name}: labelled source/rig {got}, expected {want}")
    validate(ds, str(output))
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    write_recording(ds, output)
    return read_recording(output)
