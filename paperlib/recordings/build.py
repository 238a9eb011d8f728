"""Building a schema-2 recording from arrays (:func:`make_recording`, :func:`from_arrays`) and
reading back the JSON attributes it stores (:func:`truth`, :func:`config`).

The global attributes of a new recording (provenance, ``source``, ``truth``...) and the
qualifiers of its channels are made here for every writer, the streaming one included.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib import provenance
from paperlib.recordings.schema import CHANNELS, CORE_CHANNELS, SCHEMA, SOURCES, RecordingError
from paperlib.recordings.validation import _is_int, _is_real, validate

__all__ = ["writer_name", "make_recording", "from_arrays", "truth", "config"]

_TIME_LONG_NAME = "time since the start of the run"
_JOINT_LONG_NAME = "actuated joint label"
_RESERVED_ATTRS = frozenset({"schema", "robot", "source", "sample_rate_hz", "controller", "config",
                             "created", "paperlib_version", "git_commit", "seed", "truth", "writer"})


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"object of type {type(obj).__name__} is not JSON serialisable")


def _to_json(obj: Mapping[str, Any], what: str, name: str) -> str:
    if not isinstance(obj, Mapping):
        raise RecordingError(f"{name}: attribute {what!r}: must be a dict, got {type(obj).__name__}")
    try:
        return json.dumps(dict(obj), sort_keys=True, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise RecordingError(f"{name}: attribute {what!r}: cannot be stored as JSON ({exc})") from None


# --------------------------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------------------------

def writer_name() -> str:
    """How paperlib names itself in the ``writer`` attribute, e.g. ``"paperlib 0.1.0"``."""
    return f"paperlib {provenance.__version__}"


def _is_paperlib(writer: str) -> bool:
    """Whether ``writer`` names paperlib's own code (``"paperlib ..."``, ``"paperlib.experiments..."``)."""
    first = writer.strip().split(" ")[0] if writer.strip() else ""
    return first == "paperlib" or first.startswith("paperlib.")


def _global_attrs(name: str, *, robot: str, source: str, sample_rate_hz: float, controller: str | None,
                  config: Mapping[str, Any] | None, seed: int | None, truth: Mapping[str, Any] | None,
                  attrs: Mapping[str, Any] | None, writer: str | None = None) -> dict[str, Any]:
    """The global attributes of a new schema-2 recording, provenance stamped now.

    ``writer=None`` means paperlib writes the file (version and commit are stamped), and so does a
    writer naming one of paperlib's modules (``"paperlib.experiments.<slug>.runs ..."``); an
    external tool names itself (``"my_logger 2.1"``) and only ``created`` is stamped.
    """
    if source not in SOURCES:
        raise RecordingError(f"{name}: attribute 'source': {source!r} is not one of 'twin', "
                             "'hardware' (state whether the data are simulated or measured)")
    if not _is_real(sample_rate_hz) or not math.isfinite(sample_rate_hz) or sample_rate_hz <= 0:
        raise RecordingError(f"{name}: attribute 'sample_rate_hz': must be a positive finite "
                             f"number, got {sample_rate_hz!r}")
    extra = dict(attrs or {})
    clash = sorted(_RESERVED_ATTRS & set(extra))
    if clash:
        raise RecordingError(f"{name}: attrs: {clash} are set by keyword arguments, not through attrs")
    out: dict[str, Any] = {"schema": SCHEMA, "robot": robot, "source": source, "sample_rate_hz": float(sample_rate_hz)}
    if writer is None:
        out.update(provenance.stamp())
        out["writer"] = writer_name()
    elif _is_paperlib(writer):  # one of paperlib's own modules (a room's twin runs): its version and commit too
        out.update(provenance.stamp())
        out["writer"] = writer
    else:
        out["created"] = provenance.now_utc()
        out["writer"] = writer
    if controller is not None:
        out["controller"] = controller
    if config is not None:
        out["config"] = _to_json(config, "config", name)
    if seed is not None:
        if not _is_int(seed):
            raise RecordingError(f"{name}: attribute 'seed': must be an integer, got {seed!r}")
        out["seed"] = int(seed)
    if truth is not None:
        out["truth"] = _to_json(truth, "truth", name)
    out.update(extra)
    return out


def _qualifiers(name: str, channels: Iterable[str], origins: Mapping[str, str] | None,
                torque_side: str | None) -> dict[str, dict[str, str]]:
    """The qualifying attributes (``origin``, ``side``) of the given channels; a clear error when one is missing."""
    origins = dict(origins or {})
    out: dict[str, dict[str, str]] = {}
    for c in channels:
        spec = CHANNELS.get(c)
        if spec is None or spec.attr is None:
            continue
        value = origins.get(c) if spec.attr == "origin" else (origins.get(c) or torque_side)
        if value is None:
            how = f"origins={{{c!r}: ...}}" if spec.attr == "origin" else "torque_side=..."
            raise RecordingError(f"{name}: variable {c!r}: state its {spec.attr} ({', '.join(spec.choices)}) "
                                 f"with {how}")
        if value not in spec.choices:
            raise RecordingError(f"{name}: variable {c!r}: {spec.attr} {value!r} is not one of "
                                 f"{', '.join(spec.choices)}")
        out[c] = {spec.attr: value}
    return out


def _coords(time: np.ndarray, joint_labels: Sequence[int]) -> dict[str, Any]:
    labels = np.asarray(joint_labels)
    if labels.dtype.kind in "iu":
        labels = labels.astype(np.int64)
    return {
        "time": ("time", np.asarray(time, dtype=np.float64), {"units": "s", "long_name": _TIME_LONG_NAME}),
        "joint": ("joint", labels, {"units": "1", "long_name": _JOINT_LONG_NAME}),
    }


def make_recording(
    time_or_n: int | np.ndarray,
    joint_labels: Sequence[int],
    data: Mapping[str, np.ndarray],
    *,
    robot: str,
    source: str,
    sample_rate_hz: float,
    controller: str | None = None,
    config: Mapping[str, Any] | None = None,
    seed: int | None = None,
    truth: Mapping[str, Any] | None = None,
    origins: Mapping[str, str] | None = None,
    torque_side: str | None = None,
    writer: str | None = None,
    extra_vars: Mapping[str, xr.DataArray | tuple] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.Dataset:
    """Build a schema-2 recording from numpy arrays in SI units.

    Parameters
    ----------
    time_or_n : int or ndarray, shape (n_time,)
        Number of samples (time is then ``arange(n) / sample_rate_hz``) or the sample times [s].
    joint_labels : sequence of int, length n_joint
        Joint labels, e.g. ``[1, 2]``.
    data : dict of str -> ndarray, shape (n_time, n_joint)
        Channels of :data:`CHANNELS` (``q`` is required) in their SI units; converted to float64.
        Units and long names are filled in.
    robot : str
        E.g. ``"five_bar"``.
    source : {"twin", "hardware"}
        Mandatory: whether the data are simulated or measured.
    sample_rate_hz : float
        Sampling rate [Hz].
    controller : str, optional
        E.g. ``"PD"``.
    config : dict, optional
        The run configuration (stored as JSON; numpy scalars/arrays and paths converted).
    seed : int, optional
        Random seed of a twin run.
    truth : dict, optional
        True parameter values of the twin (required for ``"twin"``, forbidden for ``"hardware"``;
        ``{"withheld": "why"}`` when an external simulator cannot give them).
    origins : dict of str -> str, optional
        How ``qd`` / ``qdd`` were obtained (see :data:`VELOCITY_ORIGINS`,
        :data:`ACCELERATION_ORIGINS`); required for each of them that ``data`` holds.
    torque_side : {"motor", "joint"}, optional
        Side of the gearbox ``tau_m`` / ``tau_tgt`` are expressed on; required with them.
    writer : str, optional
        The program that wrote the data, e.g. ``"my_logger 2.1"``; None = paperlib (its version
        and commit are stamped).
    extra_vars : dict of str -> DataArray or (dims, array, attrs), optional
        Further variables (raw IMU channels, ``pi_hat`` on (time, param), ...), each with
        ``units`` and ``long_name`` attributes.
    attrs : dict, optional
        Further global attributes (e.g. ``description``, ``fault``); the reserved ones are
        set by the keyword arguments above.

    Returns
    -------
    xarray.Dataset
        A validated recording.

    Raises
    ------
    RecordingError
        If an array is missing, has the wrong shape, a qualifier is missing, or the result is
        not valid.
    """
    where = "make_recording"
    global_attrs = _global_attrs(where, robot=robot, source=source, sample_rate_hz=sample_rate_hz,
                                 controller=controller, config=config, seed=seed, truth=truth,
                                 attrs=attrs, writer=writer)
    if isinstance(time_or_n, numbers.Integral) and not isinstance(time_or_n, bool):
        time = np.arange(int(time_or_n), dtype=np.float64) / float(sample_rate_hz)
    else:
        time = np.asarray(time_or_n, dtype=np.float64)
    if time.ndim != 1:
        raise RecordingError(f"{where}: coordinate 'time': must be 1-D, got shape {time.shape}")
    n_time, n_joint = time.shape[0], len(joint_labels)
    unknown = sorted(set(data) - set(CHANNELS))
    if unknown:
        raise RecordingError(f"{where}: variable(s) {unknown} are not channels of the schema "
                             f"({', '.join(CHANNELS)}): pass them through extra_vars with units and long_name")
    missing = [v for v in CORE_CHANNELS if v not in data]
    if missing:
        raise RecordingError([f"{where}: variable {v!r}: missing (every recording has it, on (time, joint) in "
                              f"{CHANNELS[v].units})" for v in missing])
    qual = _qualifiers(where, data, origins, torque_side)
    variables: dict[str, Any] = {}
    for vname, arr in data.items():
        spec = CHANNELS[vname]
        arr = np.asarray(arr, dtype=np.float64)
        if arr.shape != (n_time, n_joint):
            raise RecordingError(f"{where}: variable {vname!r}: wrong shape {arr.shape}; expected "
                                 f"(n_time, n_joint) = ({n_time}, {n_joint})")
        variables[vname] = (("time", "joint"), arr, {"units": spec.units, "long_name": spec.long_name,
                                                     **qual.get(vname, {})})
    ds = xr.Dataset(variables, coords=_coords(time, joint_labels), attrs=global_attrs)
    if extra_vars:  # one update (one alignment) for all of them, not one per variable
        ds = ds.assign(dict(extra_vars))
    validate(ds, where)
    return ds


def from_arrays(
    q: np.ndarray,
    *,
    sample_rate_hz: float,
    robot: str,
    source: str,
    channels: Mapping[str, np.ndarray] | None = None,
    origins: Mapping[str, str] | None = None,
    torque_side: str | None = None,
    truth: Mapping[str, Any] | None = None,
    seed: int | None = None,
    config: Mapping[str, Any] | None = None,
    controller: str | None = None,
    writer: str | None = None,
    joint: Sequence[int] | None = None,
    time: np.ndarray | None = None,
    extra_vars: Mapping[str, xr.DataArray | tuple] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.Dataset:
    """A schema-2 recording from plain arrays: the schema's bookkeeping filled in for you.

    Parameters
    ----------
    q : ndarray, shape (n_time, n_joint) or (n_time,)
        Joint angles [rad] (a 1-D array is one joint).
    sample_rate_hz : float
        Sampling rate [Hz]; time is ``arange(n_time) / sample_rate_hz`` unless ``time`` is given.
    robot : str
        Robot name (``data/robots/<robot>.toml`` when the compendium has a model of it).
    source : {"twin", "hardware"}
        Simulated or measured: always state it.
    channels : dict of str -> ndarray, optional
        Further channels of :data:`CHANNELS` (``qd``, ``tau_m``, ``tau_s``, ``tau_ref``,
        ``current``, ``temperature``, ...), each shaped like ``q``, in SI units.
    origins, torque_side, truth, seed, config, controller, writer, extra_vars, attrs
        As for :func:`make_recording`. ``writer`` names the program that produced the data.
    joint : sequence of int, optional
        Joint labels (default ``1..n_joint``).
    time : ndarray, shape (n_time,), optional
        Sample times [s] (uniform at ``1 / sample_rate_hz``).

    Returns
    -------
    xarray.Dataset
        A validated schema-2 recording; write it with :func:`write_recording`.

    Examples
    --------
    >>> ds = from_arrays(q, sample_rate_hz=1000.0, robot="my_joint", source="hardware",
    ...                  channels={"tau_s": tau_s, "tau_ref": tau_ref}, writer="lab_logger 1.3")
    """
    q = np.asarray(q, dtype=np.float64)
    if q.ndim == 1:
        q = q[:, None]
    if q.ndim != 2:
        raise RecordingError(f"from_arrays: variable 'q': must be (n_time, n_joint), got shape {q.shape}")
    data = {"q": q}
    for name, arr in (channels or {}).items():
        arr = np.asarray(arr, dtype=np.float64)
        data[name] = arr[:, None] if arr.ndim == 1 and q.shape[1] == 1 else arr
    labels = list(joint) if joint is not None else list(range(1, q.shape[1] + 1))
    return make_recording(q.shape[0] if time is None else time, labels, data, robot=robot, source=source,
                          sample_rate_hz=sample_rate_hz, controller=controller, config=config, seed=seed,
                          truth=truth, origins=origins, torque_side=torque_side, writer=writer,
                          extra_vars=extra_vars, attrs=attrs)


def truth(ds: xr.Dataset) -> dict[str, Any]:
    """The true parameter values a twin recording was made with.

    Parameters
    ----------
    ds : xarray.Dataset
        A twin recording.

    Returns
    -------
    dict
        The ``truth`` attribute parsed from JSON.

    Raises
    ------
    RecordingError
        If the recording has no ``truth`` (hardware recordings never do).
    """
    if "truth" not in ds.attrs:
        raise RecordingError(f"attribute 'truth': missing (source = {ds.attrs.get('source')!r}; "
                             "only twin recordings carry ground truth)")
    return json.loads(ds.attrs["truth"])


def config(ds: xr.Dataset) -> dict[str, Any]:
    """The run configuration of a recording (the ``config`` attribute parsed from JSON)."""
    if "config" not in ds.attrs:
        raise RecordingError("attribute 'config': missing")
    return json.loads(ds.attrs["config"])
