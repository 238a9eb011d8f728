"""The room's identification run made on its rig (``source hardware``): the sampling run through the one real-time loop.

``python -m paperlib.experiments.rrr.rig_runs --rig-config RIG.toml [--emulated] --output sampling_pd.nc``
(the pipeline's rule with ``--source hardware``).

The 21-point sampling run (:mod:`paperlib.experiments.rrr.sampling`, the data of Table 2) is run on
the 3-RRR's rig of a rig file (``config/rigs/three_rrr.toml``: three single-axis CiA 402 drives in
cyclic synchronous torque) by :func:`~paperlib.hardware.joint_session.run_joint_session` (the real
master, :func:`paperlib.hardware.loop.run_loop` and the recording writer), with the controller the
twin's drives run: independent joint PD loops on the drive angles of the platform reference
(``th_ref``, ``thd_ref`` by inverse kinematics, :func:`paperlib.twin.robots.three_rrr.run_inputs`),
the twin's gains, the rate from the encoder by a filtered backward difference, no compensation.

``emulated=True`` brings up paperlib's emulated drives for the rig file's chain around the 3-RRR
twin's stepped plant (:mod:`paperlib.twin.robots.three_rrr_plant`; root: network namespaces), in
lock-step, the platform starting at rest where the reference starts; the recording is simulated data
and says so (``source = twin``, ``rig = emulated-hardware``, the twin's truth). Otherwise the rig
file's interface must exist here, and the recording is ``source = hardware``.

The room keeps what its analysis reads and the rig's logger writes: ``q`` (encoders), ``tau_m`` (the
drives' reported torque), ``tau_tgt``, ``q_sp``, ``qd_sp`` and the drives' ``qd``; the torques are
converted to the joint side (times the rig's gear ratio), as the twin's recordings hold them, and
the reported torque is paired with the state of the cycle it was applied in (moved
``torque_actual_lag_cycles`` samples earlier, the rig file's ``[joint]`` key: a drive that reports,
with the position at the start of cycle k + 1, the torque it applied over cycle k lags by one). The
twin's own "sensor" of the platform (``p_true``, ``pd_true``) does not exist on a rig: notebook 01
does not read it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

import xarray as xr

from paperlib.experiments.kit import rig_runs as kit_rig
from paperlib.experiments.kit.rig_config import BASE_REQUIRED_KEYS, RigUnavailable
from paperlib.experiments.kit.rig_runs import RigRunError

__all__ = ["RIG_REQUIRED_KEYS", "KEPT_CHANNELS", "RigRunError", "sampling_session", "record_sampling_on_rig",
           "reproduce_check"]

#: Rig-file keys the room needs (section, key): a joint-space rig's drive train.
RIG_REQUIRED_KEYS: tuple[tuple[str, str], ...] = BASE_REQUIRED_KEYS + (("joint", "gear_ratio"),)
#: Channels of the session's recording the room keeps.
KEPT_CHANNELS = ("q", "qd", "tau_m", "tau_tgt", "q_sp", "qd_sp")
#: The run's name in messages.
RUN = "sampling_pd"


def reproduce_check(run_config: Any, args: Any) -> None:
    """``paperlib reproduce``'s check of ``--source hardware`` (:func:`paperlib.experiments.kit.rig_runs.hardware_check`)."""
    kit_rig.hardware_check("rrr", args, RIG_REQUIRED_KEYS, "the 3-RRR twin")


def sampling_session(fs: float) -> tuple[float, dict[str, Any], dict[str, Any]]:
    """Duration [s], :func:`~paperlib.hardware.joint_session.run_joint_session` arguments and the emulated twin's start.

    Parameters
    ----------
    fs : float
        The rig's loop rate [Hz]; must be the twin's control rate (the reference is sampled at it).

    Raises
    ------
    RigUnavailable
        A rig rate other than the twin's.
    """
    from paperlib.experiments.rrr import sampling
    from paperlib.hardware.joint_session import JointReference
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin, run_inputs

    robot, twin = ThreeRRR.default(), ThreeRRRTwin.default()
    if abs(fs - twin.control_rate_hz) > 1e-9 * twin.control_rate_hz:
        raise RigUnavailable(f"rrr: the rig runs at {fs:g} Hz; the sampling run is the paper's at {twin.control_rate_hz:g} Hz "
                             "([ethercat] cycle_hz)")
    ref = sampling.sampling_reference(robot, fs, a_max=sampling.A_MAX_SAMPLING_M_S2)
    t, p, _, th_ref, thd_ref, _ = run_inputs(robot, twin, ref)
    config = {"run": "21-point sampling", "speed_m_s": sampling.SAMPLING_SPEED_M_S, "a_max_m_s2": sampling.A_MAX_SAMPLING_M_S2,
              "dwell_s": sampling.DWELL_S, "points_m": ref["points"].tolist()}
    reference = JointReference(q_sp=th_ref, qd_sp=thd_ref, kp=twin.kp, kd=twin.kd, relative=False,
                               velocity_filter_s=twin.velocity_filter_s,
                               controller="PD (drive loops, no compensation)", config=config)
    return t.size / fs, {"reference": reference}, {"p0_m": p[0].tolist()}


def _room_recording(session_nc: Path) -> xr.Dataset:
    """The room's copy of the session recording: :data:`KEPT_CHANNELS`, torques on the joint side."""
    from paperlib.recordings import read_recording

    ds = read_recording(session_nc).load()
    ds = ds.drop_vars([v for v in ds.data_vars if v not in KEPT_CHANNELS and "time" in ds[v].dims])
    train = json.loads(ds.attrs["config"])["joint_train"]
    gear = float(train["gear_ratio"])
    for name in ("tau_m", "tau_tgt"):
        attrs = {**ds[name].attrs, "side": "joint"}
        ds[name] = ds[name] * gear
        ds[name].attrs = attrs
    lag = int(train.get("torque_actual_lag_cycles", 0))
    if lag:
        # pair each reported torque with the state of the cycle it was applied in, as the analysis
        # (and the twin's recordings) pair them; the last ``lag`` samples have no torque yet
        attrs = dict(ds["tau_m"].attrs)
        shifted = ds["tau_m"].values[lag:].copy()
        ds = ds.isel(time=slice(0, ds.sizes["time"] - lag))
        ds["tau_m"] = (ds["tau_m"].dims, shifted)
        ds["tau_m"].attrs = {**attrs, "aligned": f"reported torque moved {lag} sample(s) earlier "
                                                 "(rig file: [joint] torque_actual_lag_cycles)"}
    ds.attrs["description"] = "21-point sampling run, drive PD loops only (on the rig)"
    return ds


def record_sampling_on_rig(rig_file: str | os.PathLike[str], output: str | os.PathLike[str], *, emulated: bool,
                           workdir: str | os.PathLike[str] | None = None, max_duration_s: float | None = None,
                           log: Callable[[str], None] | None = None) -> xr.Dataset:
    """Run the sampling run on the rig and write the room's recording to ``output`` (module docstring).

    Parameters
    ----------
    rig_file : path-like
        The 3-RRR's rig file.
    output : path-like
        The recording (``.nc``).
    emulated : bool
        Bring up the emulated devices (root; lock-step) instead of using the file's interface.
    workdir : path-like, optional
        Where the session's own files go (default: a temporary folder, removed afterwards).
    max_duration_s : float, optional
        Stop the run after this long [s] (the first positions only; the tests' short run).
    log : callable, optional
        Progress messages.

    Returns
    -------
    xarray.Dataset
        The recording as written.

    Raises
    ------
    RigUnavailable
        No usable rig file (or, real rig, its interface is absent), or a rate other than the twin's.
    RigRunError
        The run stopped with a fault or its recording is not valid.
    """
    from paperlib.hardware.rig_settings import load_rig_settings

    kit_rig.check_rig(rig_file, RIG_REQUIRED_KEYS, emulated=emulated)
    settings = load_rig_settings(rig_file)
    if settings.robot != "three_rrr":
        raise RigUnavailable(f"rrr: rig file {rig_file}: [rig] robot = {settings.robot!r}, not 'three_rrr'")
    if len(settings.axes) != 3:
        raise RigUnavailable(f"rrr: rig file {rig_file}: the 3-RRR has three drives, the chain has {len(settings.axes)} axes")
    duration_s, session, emulator = sampling_session(float(settings.cycle_hz or 1000.0))
    if max_duration_s is not None:
        duration_s = min(duration_s, float(max_duration_s))
    tmp = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="paperlib_rrr_rig_"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        session_nc = kit_rig.run_joint_experiment(rig_file, name=RUN, emulated=emulated, duration_s=duration_s, seed=0,
                                                  session=session, emulator=emulator, workdir=tmp, twin="three_rrr",
                                                  log=log)
        return kit_rig.write_room_recording(_room_recording(session_nc), output, name=RUN, emulated=emulated)
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paperlib.experiments.rrr.rig_runs``: the sampling run on the rig, written as a recording."""
    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.rrr.rig_runs",
                                 description="run the 21-point sampling run on the 3-RRR's rig and write the recording")
    ap.add_argument("--rig-config", required=True, metavar="RIG.toml", help="the rig file (config/rigs/three_rrr.toml)")
    ap.add_argument("--emulated", action="store_true",
                    help="emulate the rig file's devices around the twin (root; recording labelled source = twin, "
                         "rig = emulated-hardware)")
    ap.add_argument("--output", required=True, help="recording file to write (.nc)")
    a = ap.parse_args(argv)
    try:
        ds = record_sampling_on_rig(a.rig_config, a.output, emulated=a.emulated, log=print)
    except (OSError, ValueError, RuntimeError) as exc:  # RigUnavailable, RigRunError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {a.output} (source = {ds.attrs['source']}, rig = {ds.attrs.get('rig')}, {ds.sizes['time']} samples)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
