"""The recording format ``paperlib.recording/2``: one run of a robot, twin, hardware or another lab's logger.

A recording is the contract between the hardware logger, the twins, imported public data, the
estimators and the notebooks. It is a NetCDF4 file (HDF5, written and read by xarray's
``h5netcdf`` engine) holding one :class:`xarray.Dataset`. All quantities are SI; every variable
carries CF ``units`` (UDUNITS strings) and a ``long_name``. ``docs/recordings.md`` shows how to
write one from any logger.

Schema 2
--------
Core (every recording)
    ``time`` (time,) float64 [s], seconds from the start, uniform at ``1 / sample_rate_hz``
    (see *Time tolerances*); ``joint`` (joint,) integer labels, positive, unique, ascending;
    ``q`` (time, joint) [rad], the encoder angle. Global attributes :data:`CORE_ATTRS`:
    ``schema`` (``"paperlib.recording/2"``), ``robot``, ``source`` (``"twin"`` = simulated or
    ``"hardware"`` = measured, nothing else; writers take it as a mandatory keyword),
    ``sample_rate_hz``, ``created`` (ISO 8601) and ``writer`` (the program that wrote the
    data: ``"paperlib 0.1.0"``, which then also stamps ``paperlib_version`` and ``git_commit``,
    or e.g. ``"lab_logger 1.3"``). Twin recordings carry ``truth``, a JSON object of the true
    parameters (an external simulator that cannot give them writes
    ``{"withheld": "why"}``); hardware recordings never do.

Channel vocabulary (optional, fixed names, units and meaning; each (time, joint); see :data:`CHANNELS`)
    ``qd`` [rad/s] and ``qdd`` [rad/s^2], each with attribute ``origin``
    (:data:`VELOCITY_ORIGINS`, :data:`ACCELERATION_ORIGINS`: gyroscope, accelerometer,
    encoder-derived, ...); ``tau_m`` (drive torque) and ``tau_tgt`` (target torque) [N m],
    each with attribute ``side`` = ``motor`` | ``joint``; ``tau_s`` [N m] joint torque sensor;
    ``tau_ref`` [N m] external reference torque about the joint axis (load cell);
    ``current`` [A]; ``temperature`` [degC] (the only channel that may hold NaN: "not
    measured"); setpoints ``q_sp``, ``qd_sp``, ``qdd_sp``. Every channel is finite.

Other variables and attributes
    Any other variable (raw IMU counts, estimator history on (time, param), ...) is allowed with
    any dimensions, but must carry non-empty ``units`` (``"1"`` for dimensionless or counts) and
    ``long_name`` and, if numeric, be finite. Optional attributes with a fixed meaning:
    ``controller``, ``config`` (JSON object), ``seed`` (integer), ``fault`` (why the run ended
    early), ``reduced`` (JSON object: the file keeps only some of the writer's variables, or
    stores some in float32; :func:`reduce_recording`).

Storage
    Channels are floating point of any width (float32 halves a file where its precision is
    enough; :func:`read_recording` returns float64 either way); ``time`` is float64. A float64
    variable with a ``resolution`` attribute (its sensor's step, in its units) whose values are
    all exact multiples of it is written as int32 counts with that ``scale_factor``, and read
    back bit for bit.

Each analysis declares the channels it needs (:func:`require_channels`,
``read_recording(path, require=...)``); given a file without one it stops with an error naming
the file and the channel. Velocities and accelerations missing from a file are derived from
``q`` by :func:`paperlib.signals.ensure_kinematics` (zero-phase, the filter stated).

Schema 1 (still read and validated by its own rules)
    The first format, written until schema 2: every file had ``q``, ``qd`` (gyroscope), ``qdd``
    (accelerometer), ``tau_m`` (motor side), ``tau_tgt``, ``q_sp``, ``qd_sp``, ``qdd_sp``
    (:data:`REQUIRED_VARIABLES`), optional ``temperature``, and the attributes ``controller``,
    ``config``, ``paperlib_version``, ``git_commit`` and, for twin data, ``seed``.

Units
    Canonical strings are those of :data:`CHANNELS`; a small explicit alias table
    (:data:`UNIT_ALIASES`, e.g. ``"rad s-1"``, ``"N.m"``) is accepted and mapped to canonical
    units by :func:`read_recording` and :func:`write_recording`. Degrees are rejected.

Time tolerances (dt = 1 / sample_rate_hz)
    * every step: ``|diff(time) - dt| <= 1e-3 * dt`` (250 ns at 4 kHz, 5 us at 200 Hz; float64
      seconds computed as ``k / fs`` are exact to ~1e-12 s even after hours);
    * no drift: ``|time[k] - time[0] - k * dt| <= 0.5 * dt`` for every k, so every sample
      lies in its own slot of the nominal grid (this catches a wrong ``sample_rate_hz`` by
      as little as 1e-4 relative, and still accepts times accumulated with ``t += dt``,
      which drift by ~2e-5 s over 4 h at 4 kHz).
    Hardware loops must therefore log the nominal sample time ``k / fs``; measured lateness
    belongs in an optional variable.

Files are compressed (gzip level 4 with shuffle, fletcher32 checksums on numeric variables,
so corrupted data chunks are detected at read time) and written atomically.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import numbers
import os
import tempfile
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import h5py  # noqa: F401  -- the h5netcdf engine needs it and does not pull it in itself
import numpy as np
import xarray as xr

from paperlib import provenance

__all__ = [
    "SCHEMA",
    "SOURCES",
    "REQUIRED_VARIABLES",
    "OPTIONAL_VARIABLES",
    "ALLOWED_NAN",
    "UNIT_ALIASES",
    "STEP_RTOL",
    "GRID_TOL",
    "SCHEMA_V1",
    "SCHEMAS",
    "CHANNELS",
    "CORE_CHANNELS",
    "LOOP_CHANNELS",
    "VELOCITY_ORIGINS",
    "ACCELERATION_ORIGINS",
    "TORQUE_SIDES",
    "ChannelSpec",
    "RecordingError",
    "Channel",
    "from_arrays",
    "require_channels",
    "plausibility",
    "canonical_units",
    "make_recording",
    "validate",
    "write_recording",
    "read_recording",
    "truth",
    "config",
    "reduce_recording",
    "RecordingWriter",
    "RegistryEntry",
    "DEFAULT_REGISTRY",
    "sha256_file",
    "load_registry",
    "verify_registry",
    "registry_entry",
]

SCHEMA = "paperlib.recording/2"
#: The first schema: still read and validated by its own rules (every v1 file stays valid).
SCHEMA_V1 = "paperlib.recording/1"
SCHEMAS = (SCHEMA_V1, SCHEMA)
SOURCES = ("twin", "hardware")

#: name -> (canonical units, long_name); every one on (time, joint), finite.
REQUIRED_VARIABLES: dict[str, tuple[str, str]] = {
    "q": ("rad", "joint angle from the encoder"),
    "qd": ("rad/s", "joint angular velocity from the gyroscope"),
    "qdd": ("rad/s^2", "joint angular acceleration from the accelerometer"),
    "tau_m": ("N m", "motor torque reported by the drive"),
    "tau_tgt": ("N m", "target motor torque sent to the drive"),
    "q_sp": ("rad", "joint angle setpoint"),
    "qd_sp": ("rad/s", "joint angular velocity setpoint"),
    "qdd_sp": ("rad/s^2", "joint angular acceleration setpoint"),
}

#: Optional variables with a fixed meaning: name -> (canonical units, long_name); on (time, joint).
OPTIONAL_VARIABLES: dict[str, tuple[str, str]] = {
    "temperature": ("degC", "gearbox case temperature"),
}

#: The only variables that may hold NaN (meaning "not measured"); inf is never allowed.
ALLOWED_NAN: frozenset[str] = frozenset({"temperature"})


@dataclass(frozen=True)
class ChannelSpec:
    """One channel of the schema-2 vocabulary: fixed name, units and meaning, on (time, joint).

    Attributes
    ----------
    units : str
        Canonical UDUNITS string.
    long_name : str
        Default CF long name (a writer may give a more specific one).
    meaning : str
        What the channel holds, in one sentence (documentation and ``paperlib validate``).
    attr : str, optional
        Name of a required qualifying attribute (``origin`` or ``side``), if any.
    choices : tuple of str
        The values ``attr`` may take.
    allow_nan : bool
        Whether NaN may mark "not measured at this sample".
    """

    units: str
    long_name: str
    meaning: str
    attr: str | None = None
    choices: tuple[str, ...] = ()
    allow_nan: bool = False


#: Where a velocity comes from (attribute ``origin`` of ``qd``).
VELOCITY_ORIGINS = ("gyroscope", "encoder-derived", "tachometer", "drive", "model")
#: Where an acceleration comes from (attribute ``origin`` of ``qdd``).
ACCELERATION_ORIGINS = ("accelerometer", "encoder-derived", "model")
#: Which side of the gearbox a drive torque is expressed on (attribute ``side``).
TORQUE_SIDES = ("motor", "joint")

#: The schema-2 channel vocabulary: name -> spec. Only ``q`` is required.
CHANNELS: dict[str, ChannelSpec] = {
    "q": ChannelSpec("rad", "joint angle from the encoder", "joint angle measured by the encoder"),
    "qd": ChannelSpec("rad/s", "joint angular velocity", "joint angular velocity; attribute 'origin' says how it "
                      "was obtained", "origin", VELOCITY_ORIGINS),
    "qdd": ChannelSpec("rad/s^2", "joint angular acceleration", "joint angular acceleration; attribute 'origin' says "
                       "how it was obtained", "origin", ACCELERATION_ORIGINS),
    "tau_m": ChannelSpec("N m", "drive torque reported by the drive", "torque the drive reports; attribute 'side' "
                         "says whether it is motor side or joint side (after the gearbox)", "side", TORQUE_SIDES),
    "tau_tgt": ChannelSpec("N m", "target torque sent to the drive", "torque commanded to the drive; attribute "
                           "'side' as for tau_m", "side", TORQUE_SIDES),
    "tau_s": ChannelSpec("N m", "joint torque sensor", "torque measured by a torque sensor in the joint, about its axis"),
    "tau_ref": ChannelSpec("N m", "external reference torque", "reference torque about the joint axis from an "
                           "external sensor (e.g. a 6-axis load cell)"),
    "current": ChannelSpec("A", "motor current", "motor (quadrature) current"),
    "temperature": ChannelSpec("degC", "gearbox case temperature", "gearbox case temperature; NaN = not measured "
                               "at this sample", allow_nan=True),
    "q_sp": ChannelSpec("rad", "joint angle setpoint", "joint angle setpoint of the controller"),
    "qd_sp": ChannelSpec("rad/s", "joint angular velocity setpoint", "joint velocity setpoint of the controller"),
    "qdd_sp": ChannelSpec("rad/s^2", "joint angular acceleration setpoint", "joint acceleration setpoint"),
}
#: Schema-2 channels every recording has.
CORE_CHANNELS: tuple[str, ...] = ("q",)
#: Global attributes a schema-2 recording must have (``truth`` too when ``source = twin``).
CORE_ATTRS: tuple[str, ...] = ("schema", "robot", "source", "sample_rate_hz", "created", "writer")
#: The channels the 4 kHz loops of the 5R log (the required variables of schema 1).
LOOP_CHANNELS: tuple[str, ...] = ("q", "qd", "qdd", "tau_m", "tau_tgt", "q_sp", "qd_sp", "qdd_sp")

#: canonical units -> accepted spellings (exact match after collapsing whitespace).
UNIT_ALIASES: dict[str, frozenset[str]] = {
    "s": frozenset({"s", "sec", "second", "seconds"}),
    "rad": frozenset({"rad", "radian", "radians"}),
    "rad/s": frozenset({"rad/s", "rad s-1", "rad.s-1", "rad s^-1", "rad/sec", "radian/second",
                        "radians/second"}),
    "rad/s^2": frozenset({"rad/s^2", "rad/s2", "rad s-2", "rad.s-2", "rad s^-2", "rad/s/s",
                          "radian/second^2", "radians/second^2"}),
    "N m": frozenset({"N m", "N.m", "N*m", "N-m", "m N", "newton meter", "newton metre",
                      "newton_meter", "newton_metre"}),
    "degC": frozenset({"degC", "deg_C", "degree_Celsius", "degrees_Celsius", "Celsius", "celsius",
                       "\u00b0C"}),
    "1": frozenset({"1", "count", "counts"}),
    "A": frozenset({"A", "ampere", "amperes", "amp", "amps"}),
}
_ALIAS_TO_CANONICAL = {alias: canon for canon, aliases in UNIT_ALIASES.items() for alias in aliases}
_QUANTITY = {
    "s": "time",
    "rad": "angle",
    "rad/s": "angular velocity",
    "rad/s^2": "angular acceleration",
    "N m": "torque",
    "degC": "temperature",
    "1": "dimensionless",
    "A": "current",
}

#: Relative tolerance on every time step: |diff(time) - dt| <= STEP_RTOL * dt.
STEP_RTOL = 1e-3
#: Drift tolerance in periods: |time[k] - time[0] - k dt| <= GRID_TOL * dt.
GRID_TOL = 0.5

DEFAULT_REGISTRY = provenance.REPO_ROOT / "data" / "recordings" / "registry.toml"

_TIME_LONG_NAME = "time since the start of the run"
_JOINT_LONG_NAME = "actuated joint label"
_RESERVED_ATTRS = frozenset({"schema", "robot", "source", "sample_rate_hz", "controller", "config",
                             "created", "paperlib_version", "git_commit", "seed", "truth", "writer"})


class RecordingError(ValueError):
    """A recording (file or dataset) violates the schema, or cannot be read.

    The message names the file (or dataset), the variable or attribute, and the fault; with
    several faults there is one such line per fault, also available as :attr:`problems`.
    """

    def __init__(self, problems: str | Sequence[str]):
        self.problems: list[str] = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------------------------
# units and small helpers
# --------------------------------------------------------------------------------------------

def canonical_units(units: object) -> str | None:
    """Return the canonical spelling of ``units`` from :data:`UNIT_ALIASES`, or None if unknown.

    Parameters
    ----------
    units : object
        A ``units`` attribute value, e.g. ``"rad s-1"``.

    Returns
    -------
    str or None
        E.g. ``"rad/s"``; None for units outside the table (or a non-string).
    """
    if not isinstance(units, str):
        return None
    return _ALIAS_TO_CANONICAL.get(" ".join(units.split()))


def _units_fault(units: object, canonical: str) -> str | None:
    """Describe why ``units`` are not ``canonical`` (None when they are, up to aliases)."""
    if canonical_units(units) == canonical:
        return None
    what = f"{_QUANTITY.get(canonical, 'quantity')} in {canonical}"
    if units is None:
        return f"has no 'units' attribute (expected {what})"
    hint = ""
    if isinstance(units, str) and units.strip().lower().startswith("deg") and canonical.startswith("rad"):
        hint = " (degrees are not accepted: convert to radians)"
    return f"units {units!r} are not {what}{hint}"


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


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _first_nonfinite(arr: np.ndarray, allow_nan: bool) -> tuple[int, ...] | None:
    """Index (per axis) of the first non-finite element, or None; NaN is skipped if allowed."""
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if not bad.any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), arr.shape))


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------

def _check_attrs(attrs: Mapping[str, Any], name: str) -> list[str]:
    """Problems with the global attributes (empty list when valid), by the file's own schema.

    Schema 1 requires the 5R loop's bookkeeping (``controller``, ``config``, ``paperlib_version``,
    ``git_commit``); schema 2 requires only :data:`CORE_ATTRS` (plus ``truth`` for twin data) and
    checks the optional ones when present.
    """
    out: list[str] = []

    def bad(key: str, fault: str) -> None:
        out.append(f"{name}: attribute {key!r}: {fault}")

    schema = attrs.get("schema")
    if schema is None:
        bad("schema", f"missing (expected {SCHEMA!r})")
    elif schema not in SCHEMAS:
        bad("schema", f"{schema!r} is not {SCHEMA!r} (nor the older {SCHEMA_V1!r})")
    v1 = schema == SCHEMA_V1

    required_str = ("robot", "controller", "created", "paperlib_version", "git_commit") if v1 else ("robot", "created",
                                                                                                  "writer")
    optional_str = () if v1 else ("controller", "paperlib_version", "git_commit")
    for key in required_str + optional_str:
        value = attrs.get(key)
        if value is None:
            if key in required_str:
                bad(key, "missing" + ("" if key != "writer" else
                                      " (who wrote the file, e.g. 'my_logger 2.1' or 'paperlib 0.1.0')"))
        elif not isinstance(value, str) or not value.strip():
            bad(key, f"must be a non-empty string, got {value!r}")
    created = attrs.get("created")
    if isinstance(created, str) and created.strip():
        try:
            _dt.datetime.fromisoformat(created)
        except ValueError:
            bad("created", f"{created!r} is not an ISO-8601 timestamp")

    source = attrs.get("source")
    if source is None:
        bad("source", "missing (state 'twin' for simulated or 'hardware' for measured data)")
    elif source not in SOURCES:
        bad("source", f"{source!r} is not one of 'twin', 'hardware'")

    fs = attrs.get("sample_rate_hz")
    if fs is None:
        bad("sample_rate_hz", "missing")
    elif not _is_real(fs) or not math.isfinite(float(fs)) or float(fs) <= 0:
        bad("sample_rate_hz", f"must be a positive finite number, got {fs!r}")

    seed = attrs.get("seed")
    if seed is None:
        if source == "twin" and v1:
            bad("seed", "missing: a twin recording must state its random seed")
    elif not _is_int(seed) or not 0 <= int(seed) < 2**63:
        bad("seed", f"must be an integer in [0, 2**63), got {seed!r}")

    for key in ("config", "truth"):
        value = attrs.get(key)
        if value is None:
            if key == "config" and v1:
                bad("config", "missing (the run configuration as a JSON string)")
            elif key == "truth" and source == "twin":
                bad("truth", "missing: a twin recording must carry its true parameters as JSON "
                    "(an external simulator that cannot may write {\"withheld\": \"why\"})")
            continue
        if key == "truth" and source == "hardware":
            bad("truth", "a hardware recording cannot carry ground truth")
            continue
        if not isinstance(value, str):
            bad(key, f"must be a JSON string, got {type(value).__name__}")
            continue
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            bad(key, f"is not valid JSON ({exc})")
            continue
        if not isinstance(parsed, dict):
            bad(key, f"must be a JSON object, got {type(parsed).__name__}")
        elif key == "truth" and "withheld" in parsed and (not isinstance(parsed["withheld"], str)
                                                          or not parsed["withheld"].strip()):
            bad("truth", "'withheld' must give the reason as a non-empty string")

    fault = attrs.get("fault")
    if fault is not None and (not isinstance(fault, str) or not fault.strip()):
        bad("fault", f"must be a non-empty string when present, got {fault!r}")
    return out


def _check_time(ds: xr.Dataset, name: str, fs: float | None) -> list[str]:
    out: list[str] = []

    def bad(fault: str) -> None:
        out.append(f"{name}: coordinate 'time': {fault}")

    if "time" not in ds.dims or "time" not in ds.coords:
        bad("missing (dimension and coordinate 'time' in s are required)")
        return out
    time = ds["time"]
    if time.dims != ("time",):
        bad(f"must be 1-D on ('time',), has dims {time.dims}")
        return out
    fault = _units_fault(time.attrs.get("units"), "s")
    if fault:
        bad(fault)
    if not str(time.attrs.get("long_name", "")).strip():
        bad("has no 'long_name' attribute")
    if time.dtype != np.float64:
        bad(f"must be float64 seconds, got dtype {time.dtype}")
        return out
    t = time.values
    if t.size < 2:
        bad(f"too few samples ({t.size}); a recording needs at least 2")
        return out
    idx = _first_nonfinite(t, allow_nan=False)
    if idx is not None:
        bad(f"non-finite value {float(t[idx[0]])} at time index {idx[0]}")
        return out
    step = np.diff(t)
    if not (step > 0).all():
        k = int(np.argmax(step <= 0))
        bad(f"not strictly increasing: time index {k + 1} (t = {float(t[k + 1])!r} s) "
            f"follows t = {float(t[k])!r} s")
        return out
    if fs is None:
        return out  # the sample_rate_hz attribute is reported invalid elsewhere
    dt = 1.0 / fs
    median = float(np.median(step))
    if abs(median - dt) > STEP_RTOL * dt:
        bad(f"median step {median!r} s does not match sample_rate_hz = {fs!r} "
            f"(1/fs = {dt!r} s)")
        return out
    err = np.abs(step - dt)
    k = int(np.argmax(err))
    if err[k] > STEP_RTOL * dt:
        bad(f"non-uniform: step {float(step[k])!r} s between time index {k} and {k + 1} "
            f"(t = {float(t[k])!r} s) differs from 1/sample_rate_hz = {dt!r} s by more than "
            f"{STEP_RTOL:g} relative")
        return out
    drift = np.abs(t - t[0] - np.arange(t.size) * dt)
    k = int(np.argmax(drift))
    if drift[k] > GRID_TOL * dt:
        bad(f"drifts from the grid time[0] + k/sample_rate_hz by {float(drift[k])!r} s at time index "
            f"{k} (more than {GRID_TOL:g} sample): sample_rate_hz = {fs!r} does not match the data")
    return out


def _check_joint(ds: xr.Dataset, name: str) -> list[str]:
    out: list[str] = []

    def bad(fault: str) -> None:
        out.append(f"{name}: coordinate 'joint': {fault}")

    if "joint" not in ds.dims or "joint" not in ds.coords:
        bad("missing (dimension and coordinate 'joint' of integer labels are required)")
        return out
    joint = ds["joint"]
    if joint.dims != ("joint",):
        bad(f"must be 1-D on ('joint',), has dims {joint.dims}")
        return out
    labels = joint.values
    if labels.size < 1:
        bad("no joints")
    elif labels.dtype.kind not in "iu":
        bad(f"labels must be integers, got dtype {labels.dtype} ({labels.tolist()})")
    else:
        uniq, counts = np.unique(labels, return_counts=True)
        if (counts > 1).any():
            bad(f"duplicate labels {uniq[counts > 1].tolist()} in {labels.tolist()}")
        elif (labels < 1).any():
            bad(f"labels must be positive (1..n), got {labels.tolist()}")
        elif (np.diff(labels) <= 0).any():
            bad(f"labels must be ascending, got {labels.tolist()}")
    return out


def _check_variable(var: xr.DataArray, vname: str, name: str, time: np.ndarray | None,
                    canonical: str | None, dims: tuple[str, ...] | None) -> list[str]:
    out: list[str] = []

    def bad(fault: str) -> None:
        out.append(f"{name}: variable {vname!r}: {fault}")

    if dims is not None and var.dims != dims:
        bad(f"wrong dimensions {var.dims} (shape {var.shape}); expected {dims}")
        return out
    units = var.attrs.get("units")
    if canonical is not None:
        fault = _units_fault(units, canonical)
        if fault:
            bad(fault)
    elif not isinstance(units, str) or not units.strip():
        bad("has no 'units' attribute (use '1' for dimensionless values or counts)")
    long_name = var.attrs.get("long_name")
    if not isinstance(long_name, str) or not long_name.strip():
        bad("has no 'long_name' attribute")
    kind = var.dtype.kind
    if dims is not None and kind != "f":
        bad(f"must be floating point, got dtype {var.dtype}")
        return out
    if kind in "fc":
        allow_nan = vname in ALLOWED_NAN
        values = np.asarray(var.values)
        idx = _first_nonfinite(values, allow_nan)
        if idx is not None:
            where = []
            for dim, i in zip(var.dims, idx):
                if dim == "time" and time is not None:
                    where.append(f"time index {i} (t = {float(time[i])!r} s)")
                elif dim in var.coords:
                    where.append(f"{dim} {var.coords[dim].values[i].item()!r}")
                else:
                    where.append(f"{dim} index {i}")
            count = int((np.isinf(values) if allow_nan else ~np.isfinite(values)).sum())
            bad(f"{values[idx].item()} at {', '.join(where)}; {count} non-finite value(s)"
                + ("" if allow_nan else " (this variable must be finite)"))
    return out


def validate(ds: xr.Dataset, name: str = "<dataset>") -> None:
    """Check that ``ds`` is a conformant recording (schema 2, or schema 1 by its own rules).

    Parameters
    ----------
    ds : xarray.Dataset
        The recording.
    name : str
        How to name the recording in messages (usually its file path).

    Raises
    ------
    RecordingError
        With one line per fault, each naming ``name``, the variable/coordinate/attribute and
        the fault: missing variable or attribute, wrong dimensions, wrong units, dtype,
        non-increasing / non-uniform time or time not matching ``sample_rate_hz``, fewer than
        two samples, NaN/inf (with the first bad index and its time), bad joint labels,
        invalid ``schema``/``source``/``seed``/``config``/``truth``.
    """
    if not isinstance(ds, xr.Dataset):
        raise RecordingError(f"{name}: not an xarray.Dataset but {type(ds).__name__}")
    problems = _check_attrs(ds.attrs, name)
    fs = ds.attrs.get("sample_rate_hz")
    fs = float(fs) if _is_real(fs) and math.isfinite(float(fs)) and float(fs) > 0 else None
    time_problems = _check_time(ds, name, fs)
    problems += time_problems + _check_joint(ds, name)
    # Variables are checked even against broken axes (every fault in one pass); without a usable
    # time axis their faults are located by index only.
    time_ok = not time_problems or all("'time': drifts" in p or "median step" in p for p in time_problems)
    time = ds["time"].values if ("time" in ds.coords and time_ok) else None
    if ds.attrs.get("schema") == SCHEMA_V1:
        problems += _check_variables_v1(ds, name, time)
    else:
        problems += _check_variables_v2(ds, name, time)
    if problems:
        raise RecordingError(problems)


def _check_variables_v1(ds: xr.Dataset, name: str, time: np.ndarray | None) -> list[str]:
    problems: list[str] = []
    for vname, (units, _) in REQUIRED_VARIABLES.items():
        if vname not in ds.data_vars:
            problems.append(f"{name}: variable {vname!r}: missing "
                            f"(required on (time, joint) in {units})")
            continue
        problems += _check_variable(ds[vname], vname, name, time, units, ("time", "joint"))
    for vname in ds.data_vars:
        vname = str(vname)
        if vname in REQUIRED_VARIABLES:
            continue
        if vname in OPTIONAL_VARIABLES:
            units = OPTIONAL_VARIABLES[vname][0]
            problems += _check_variable(ds[vname], vname, name, time, units, ("time", "joint"))
        else:
            problems += _check_variable(ds[vname], vname, name, time, None, None)
    return problems


def _check_variables_v2(ds: xr.Dataset, name: str, time: np.ndarray | None) -> list[str]:
    problems: list[str] = []
    for vname in CORE_CHANNELS:
        if vname not in ds.data_vars:
            problems.append(f"{name}: variable {vname!r}: missing (every recording has it, on (time, joint) "
                            f"in {CHANNELS[vname].units}: {CHANNELS[vname].meaning})")
    for vname in ds.data_vars:
        vname = str(vname)
        spec = CHANNELS.get(vname)
        if spec is None:
            problems += _check_variable(ds[vname], vname, name, time, None, None)
            continue
        problems += _check_variable(ds[vname], vname, name, time, spec.units, ("time", "joint"))
        if spec.attr is not None:
            value = ds[vname].attrs.get(spec.attr)
            if value is None:
                problems.append(f"{name}: variable {vname!r}: attribute {spec.attr!r} missing (one of "
                                f"{', '.join(spec.choices)})")
            elif value not in spec.choices:
                problems.append(f"{name}: variable {vname!r}: attribute {spec.attr!r} = {value!r} is not one of "
                                f"{', '.join(spec.choices)}")
    return problems


def plausibility(ds: xr.Dataset, name: str = "<dataset>") -> list[str]:
    """Warnings about values that are valid but look wrong (a unit or a rate mislabelled).

    A valid file can still hold degrees labelled ``rad``, N mm labelled ``N m`` or a wrong
    ``sample_rate_hz``; these checks catch the common cases and say why. They warn, they never
    refuse: a robot may really turn many revolutions.

    Parameters
    ----------
    ds : xarray.Dataset
        A valid recording.
    name : str
        How to name it in messages.

    Returns
    -------
    list of str
        One sentence per suspicion (empty when nothing looks off).
    """
    out: list[str] = []
    fs = float(ds.attrs.get("sample_rate_hz", 0.0) or 0.0)
    if "q" in ds.data_vars and ds["q"].ndim == 2 and ds.sizes.get("time", 0) > 4:
        q = np.asarray(ds["q"].values, dtype=float)
        span = np.nanmax(q, axis=0) - np.nanmin(q, axis=0)
        for j, label in enumerate(ds["joint"].values):
            if span[j] > 4 * math.pi and np.nanmax(np.abs(q[:, j])) > 30.0:
                out.append(f"{name}: variable 'q', joint {label}: spans {span[j]:.4g} rad ({span[j] / (2 * math.pi):.3g} "
                           "turns) and reaches beyond 30 rad: are these degrees labelled 'rad'?")
        if "qd" in ds.data_vars and fs > 0 and ds["qd"].shape == q.shape:
            qd = np.asarray(ds["qd"].values, dtype=float)
            dq = np.gradient(q, 1.0 / fs, axis=0)
            for j, label in enumerate(ds["joint"].values):
                # judged only where the joint clearly moves and the two signals agree in shape
                # (a resting joint's gyro noise says nothing about units)
                if np.nanmax(np.abs(qd[:, j])) < 0.05 or np.std(dq[:, j]) == 0:
                    continue
                if np.corrcoef(dq[:, j], qd[:, j])[0, 1] < 0.9:
                    continue
                ratio = float(np.dot(dq[:, j], qd[:, j]) / np.dot(qd[:, j], qd[:, j]))
                if not 0.8 <= ratio <= 1.25:
                    hint = (" (180/pi: degrees?)" if 40 < abs(ratio) < 80 else
                            " (pi/180: velocities in deg/s?)" if 0.01 < abs(ratio) < 0.025 else
                            " (a wrong sample_rate_hz, or qd of another joint or sign?)")
                    out.append(f"{name}: joint {label}: the derivative of 'q' at sample_rate_hz = {fs:g} Hz is "
                               f"{ratio:.3g} x 'qd'{hint}")
    for v in ("tau_m", "tau_tgt", "tau_s", "tau_ref"):
        if v in ds.data_vars:
            peak = float(np.nanmax(np.abs(ds[v].values))) if ds[v].size else 0.0
            if peak > 2e4:
                out.append(f"{name}: variable {v!r}: peaks at {peak:.4g} N m, more than any robot joint here: "
                           "N mm, mN m or per mille of rated torque labelled 'N m'?")
    return out


# --------------------------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------------------------

def writer_name() -> str:
    """How paperlib names itself in the ``writer`` attribute, e.g. ``"paperlib 0.1.0"``."""
    return f"paperlib {provenance.__version__}"


def _global_attrs(name: str, *, robot: str, source: str, sample_rate_hz: float, controller: str | None,
                  config: Mapping[str, Any] | None, seed: int | None, truth: Mapping[str, Any] | None,
                  attrs: Mapping[str, Any] | None, writer: str | None = None) -> dict[str, Any]:
    """The global attributes of a new schema-2 recording, provenance stamped now.

    ``writer=None`` means paperlib writes the file (version and commit are stamped); an
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
    for vname, var in (extra_vars or {}).items():
        ds[vname] = var
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


def require_channels(ds: xr.Dataset, names: Iterable[str], *, name: str | None = None,
                     analysis: str | None = None) -> None:
    """Refuse a recording without the channels an analysis needs.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording.
    names : iterable of str
        Channels the analysis needs, e.g. ``("q", "tau_s")``.
    name : str, optional
        The file, for the message (default: the dataset's ``source_file`` encoding or
        ``<dataset>``).
    analysis : str, optional
        What needs them, e.g. ``"bearing fit"``.

    Raises
    ------
    RecordingError
        One line per missing channel, naming the file, the channel, its meaning and the analysis.
    """
    where = name or str(ds.attrs.get("_file", "<dataset>"))
    what = f" ({analysis} needs it)" if analysis else ""
    missing = [c for c in names if c not in ds.data_vars]
    if missing:
        raise RecordingError([f"{where}: channel {c!r} missing{what}: "
                              + (f"{CHANNELS[c].meaning} [{CHANNELS[c].units}]" if c in CHANNELS else "not in the file")
                              for c in missing])


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


def reduce_recording(ds: xr.Dataset, *, keep: Iterable[str] | None = None, float32: Iterable[str] = (),
                     resolution: Mapping[str, float] | None = None, purpose: str = "") -> xr.Dataset:
    """A smaller copy of a recording for storage: only the variables an analysis reads, some in float32.

    The core channel ``q``, the coordinates of the kept variables and every global attribute
    stay; ``time`` stays float64 (the schema's rule). The copy states what was left out in its
    ``reduced`` attribute (JSON: ``kept``, ``dropped``, ``float32``, ``integer_counts``,
    ``purpose``), so a reader knows it is not the whole log. :func:`read_recording` returns float32 variables as float64,
    so analyses compute in double precision whatever the storage.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording.
    keep : iterable of str, optional
        Data variables to keep (``q`` is always kept); None keeps all.
    float32 : iterable of str
        Kept floating-point data variables to store in single precision (a relative rounding of
        at most 6e-8).
    resolution : mapping of str to float, optional
        Kept variables whose every value is an integer multiple of a known step (an encoder's
        count, a drive's torque LSB), in the variable's units: when ``round(x / step) * step``
        gives back every value bit for bit, the step is noted in the variable's ``resolution``
        attribute and :func:`write_recording` stores the integer counts (lossless); otherwise the
        variable is left as it is.
    purpose : str
        Why, in a few words (e.g. "the mems notebooks' channels"), for the ``reduced`` attribute.

    Returns
    -------
    xarray.Dataset
        The reduced copy (valid if ``ds`` is).

    Raises
    ------
    ValueError
        A name in ``keep`` or ``float32`` is not a data variable of ``ds``, or a ``float32``
        variable is not floating point or not kept.
    """
    names = [str(v) for v in ds.data_vars]
    keep_set = set(names) if keep is None else set(keep) | (set(CORE_CHANNELS) & set(names))
    f32 = set(float32)
    unknown = sorted((keep_set | f32) - set(names))
    if unknown:
        raise ValueError(f"reduce_recording: {unknown} not in the recording (variables: {sorted(names)})")
    not_kept = sorted(f32 - keep_set)
    if not_kept:
        raise ValueError(f"reduce_recording: float32 variable(s) {not_kept} are not kept")
    not_float = sorted(v for v in f32 if ds[v].dtype.kind != "f")
    if not_float:
        raise ValueError(f"reduce_recording: {not_float} are not floating point")
    dropped = [v for v in names if v not in keep_set]
    out = ds.drop_vars(dropped)
    unused = [str(c) for c in out.coords if c not in out.dims and str(c) not in ("time", "joint")]
    unused += [str(d) for d in out.dims if d not in ("time", "joint")
               and not any(d in out[v].dims for v in out.data_vars)]
    out = out.drop_vars([c for c in dict.fromkeys(unused) if c in out.variables])
    for v in sorted(f32):
        out[v] = out[v].astype(np.float32)
    packed = []
    for v, step in (resolution or {}).items():
        if v in out.data_vars and v not in f32 and _counts(out[v].values, float(step)) is not None:
            out[v] = out[v].copy(deep=False).assign_attrs(resolution=float(step))  # ds's attrs stay untouched
            packed.append(v)
    previous = json.loads(ds.attrs["reduced"]) if "reduced" in ds.attrs else None
    note = {"kept": sorted(str(v) for v in out.data_vars), "dropped": dropped, "float32": sorted(f32),
            "integer_counts": sorted(packed), "purpose": purpose}
    if previous:
        note["dropped"] = sorted(set(previous.get("dropped", [])) | set(dropped))
        note["float32"] = sorted(set(previous.get("float32", [])) | f32)
        note["integer_counts"] = sorted(set(previous.get("integer_counts", [])) | set(packed))
    out.attrs = {**ds.attrs, "reduced": json.dumps(note)}
    return out


# --------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------

_COMPRESSION = {"zlib": True, "complevel": 4, "shuffle": True, "fletcher32": True}
_CHUNK_BYTES = 1 << 20  # ~1 MiB chunks


def _counts(values: np.ndarray, step: float) -> np.ndarray | None:
    """``values / step`` as int32 counts if ``counts * step`` gives every value back bit for bit, else None."""
    if not (math.isfinite(step) and step > 0) or values.dtype.kind != "f" or values.size == 0:
        return None
    with np.errstate(all="ignore"):
        k = np.round(values / step)
    if not np.all(np.abs(k) < 2**31 - 1) or not np.array_equal(k.astype(np.int32) * step, values):
        return None
    return k.astype(np.int32)


def _encoding(ds: xr.Dataset) -> dict[str, dict[str, Any]]:
    """Per-variable encoding: compression and checksums on numeric arrays, no fill values.

    A float variable with a ``resolution`` attribute whose values are all exact multiples of it
    is stored as integer counts with that ``scale_factor`` (read back bit for bit as float64).
    """
    enc: dict[str, dict[str, Any]] = {}
    for vname, var in ds.variables.items():
        e: dict[str, Any] = {"_FillValue": None}
        if var.dtype.kind in "fiu" and var.ndim > 0 and var.size > 0:
            e.update(_COMPRESSION)
            itemsize = var.dtype.itemsize
            step = var.attrs.get("resolution")
            if _is_real(step) and var.dtype == np.float64 and _counts(np.asarray(var.values), float(step)) is not None:
                e.update({"dtype": "int32", "scale_factor": float(step)})
                itemsize = 4
            other = int(np.prod(var.shape[1:], dtype=np.int64)) if var.ndim > 1 else 1
            rows = max(1, min(var.shape[0], _CHUNK_BYTES // (itemsize * max(other, 1))))
            e["chunksizes"] = (rows, *var.shape[1:])
        enc[str(vname)] = e
    return enc


def _canonicalised(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` whose units attributes use the canonical spellings."""
    out = ds.copy(deep=False)
    for vname in out.variables:
        units = out[vname].attrs.get("units")
        canon = canonical_units(units)
        if canon is not None and canon != units:
            out[vname].attrs = {**out[vname].attrs, "units": canon}
    return out


def _file_mode(path: Path) -> int:
    """Permissions for a new file at ``path``: those of the file it replaces, else 0o666 & ~umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_recording(ds: xr.Dataset, path: str | os.PathLike[str]) -> Path:
    """Validate ``ds`` and write it atomically to ``path`` (NetCDF4, h5netcdf engine).

    A schema-1 dataset missing provenance attributes (``created``, ``paperlib_version``,
    ``git_commit``) is stamped now; a schema-2 dataset must carry its own ``created`` and
    ``writer`` (paperlib never signs another program's data). Units are written in their canonical spelling.
    The data go to a temporary file in the same directory, are fsync'ed, and the temporary
    file is renamed over ``path``: a crash leaves either the old file or the new one, never
    a partial file. Numeric variables are gzip-compressed with fletcher32 checksums.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording.
    path : path-like
        Destination, conventionally ``*.nc``; its directory must exist.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    RecordingError
        If ``ds`` is invalid (nothing is written).
    """
    path = Path(path)
    ds = _canonicalised(ds)
    if ds.attrs.get("schema") == SCHEMA_V1 and any(k not in ds.attrs for k in ("created", "paperlib_version",
                                                                              "git_commit")):
        ds.attrs = {**provenance.stamp(), **ds.attrs}
    validate(ds, str(path))
    ds = ds.drop_encoding()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with warnings.catch_warnings():  # integer counts have no fill value: _encoding checked they hold no NaN
            warnings.filterwarnings("ignore", message=".*as an integer dtype without any _FillValue.*")
            ds.to_netcdf(tmp, engine="h5netcdf", encoding=_encoding(ds))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))  # mkstemp creates 0o600
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return path


def read_recording(path: str | os.PathLike[str], require: Iterable[str] = (),
                   analysis: str | None = None) -> xr.Dataset:
    """Read, fully load (the file is closed on return) and validate a recording.

    Parameters
    ----------
    path : path-like
        A ``paperlib.recording/2`` (or ``/1``) file.
    require : iterable of str
        Channels the caller needs (e.g. ``("q", "tau_s")``); a file without one is refused.
    analysis : str, optional
        What needs them, for the message (e.g. ``"bearing fit"``).

    Returns
    -------
    xarray.Dataset
        The recording in memory, units in their canonical spelling.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    RecordingError
        If the file is empty, truncated, corrupt or not NetCDF4/HDF5, violates the schema, or
        lacks a channel of ``require`` (the message names the file and the channel).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such recording file")
    size = path.stat().st_size
    if size == 0:
        raise RecordingError(f"{path}: empty file (0 bytes): truncated or corrupt recording")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. phony-dims warnings on foreign HDF5 files
            ds = xr.load_dataset(path, engine="h5netcdf", decode_times=False,
                                 decode_timedelta=False)
    except Exception as exc:  # h5py/h5netcdf raise OSError, ValueError, KeyError, RuntimeError...
        raise RecordingError(f"{path}: cannot be read as NetCDF4/HDF5 ({size} bytes): truncated "
                             f"or corrupt recording ({type(exc).__name__}: {exc})") from exc
    ds = _canonicalised(ds.drop_encoding())
    validate(ds, str(path))
    require_channels(ds, require, name=str(path), analysis=analysis)
    return _as_float64(ds)


def _as_float64(ds: xr.Dataset) -> xr.Dataset:
    """Single-precision data variables (a storage choice, :func:`reduce_recording`) as float64."""
    for v in [v for v in ds.data_vars if ds[v].dtype == np.float32]:
        ds[v] = ds[v].astype(np.float64)
    return ds


# --------------------------------------------------------------------------------------------
# streaming writer
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Channel:
    """A per-sample channel of a :class:`RecordingWriter`.

    Attributes
    ----------
    long_name : str
        CF long name.
    units : str
        UDUNITS string (``"1"`` for dimensionless values or counts).
    dims : tuple of str
        Per-sample dimensions (``time`` is prepended): ``("joint",)``, ``()`` for a scalar
        per sample, or e.g. ``("param",)`` with the coordinate given to the writer.
    dtype : str
        Storage dtype.
    """

    long_name: str
    units: str
    dims: tuple[str, ...] = ("joint",)
    dtype: str = "float64"


_VOCAB_CHANNELS = {k: Channel(long_name=spec.long_name, units=spec.units) for k, spec in CHANNELS.items()}


class RecordingWriter:
    """Streaming logger: append one sample per control cycle, write a valid file at the end.

    Samples go into preallocated in-memory chunks (one array per channel and chunk; a new
    chunk is allocated every ``chunk_size`` samples unless preallocated), so :meth:`append`
    allocates no arrays and copies nothing. :meth:`finish` / :meth:`close` / leaving the
    ``with`` block writes everything appended so far atomically; leaving it on an exception
    records the exception as the ``fault`` attribute and re-raises it. Memory: 8 bytes per
    value, e.g. ~128 B per sample and joint for the eight required channels.

    The metadata are checked at construction (a twin without seed fails before the run,
    not after it). Time is checked on every append against the nominal grid
    ``t0 + k / sample_rate_hz`` (see the module's time tolerances): log nominal sample times.

    Parameters
    ----------
    path : path-like
        Destination file.
    joint_labels : sequence of int
        Actuated joint labels, e.g. ``[1, 2]``.
    robot, source, sample_rate_hz, controller, config, seed, truth, attrs
        As for :func:`make_recording`; ``source`` is mandatory.
    channels : iterable of str
        Channels of :data:`CHANNELS` given with every sample (default :data:`LOOP_CHANNELS`,
        what the 5R's loops log); must include ``q``.
    origins, torque_side, writer
        Qualifiers of ``qd``/``qdd`` and ``tau_m``/``tau_tgt``, and the writing program, as for
        :func:`make_recording`.
    optional : iterable of str
        Further channels of :data:`CHANNELS` that may be left out of a sample, e.g.
        ``("temperature",)``.
    extra_channels : dict of str -> Channel, optional
        Further channels (raw IMU, estimator history...).
    coords : dict of str -> sequence, optional
        Coordinates of the extra channels' dimensions, e.g. ``{"param": ["pi_1", ...]}``.
    chunk_size : int
        Samples per in-memory chunk.
    preallocate : int
        Samples to allocate up front (e.g. ``duration * fs``) so the loop never allocates.
    flush_every_s : float, optional
        Also write the file every this many seconds of recording time. A flush rewrites the
        whole file (O(samples so far)): do not use it inside a hard real-time loop.

    Examples
    --------
    >>> with RecordingWriter("run.nc", [1, 2], robot="five_bar", source="hardware",
    ...                      sample_rate_hz=4000.0, controller="PD", config=cfg) as rec:
    ...     for k in range(n):
    ...         m = rig.read()
    ...         rec.append(k / 4000.0, q=m.q, qd=m.qd, qdd=m.qdd, tau_m=m.tau_m,
    ...                    tau_tgt=tau, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp)
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        joint_labels: Sequence[int],
        *,
        robot: str,
        source: str,
        sample_rate_hz: float,
        controller: str | None = None,
        config: Mapping[str, Any] | None = None,
        seed: int | None = None,
        truth: Mapping[str, Any] | None = None,
        attrs: Mapping[str, Any] | None = None,
        channels: Iterable[str] = LOOP_CHANNELS,
        origins: Mapping[str, str] | None = None,
        torque_side: str | None = None,
        writer: str | None = None,
        optional: Iterable[str] = (),
        extra_channels: Mapping[str, Channel] | None = None,
        coords: Mapping[str, Sequence[Any]] | None = None,
        chunk_size: int = 1 << 14,
        preallocate: int = 0,
        flush_every_s: float | None = None,
    ) -> None:
        self.path = Path(path)
        self._name = str(self.path)
        self._attrs = _global_attrs(self._name, robot=robot, source=source,
                                    sample_rate_hz=sample_rate_hz, controller=controller,
                                    config=config, seed=seed, truth=truth, attrs=attrs, writer=writer)
        self._qualifiers: dict[str, dict[str, str]] = {}
        problems = _check_attrs(self._attrs, self._name)
        if problems:
            raise RecordingError(problems)
        self._joint_labels = list(joint_labels)
        problems = _check_joint(xr.Dataset(coords={"joint": _coords(np.zeros(0), joint_labels)["joint"]}),
                                self._name)
        if problems:
            raise RecordingError(problems)
        self._coords = {k: list(v) for k, v in (coords or {}).items()}
        sizes = {"joint": len(self._joint_labels), **{k: len(v) for k, v in self._coords.items()}}
        logged = list(channels)
        for cname in [*logged, *optional]:
            if cname not in CHANNELS:
                raise RecordingError(f"{self._name}: variable {cname!r}: not a channel of the schema "
                                     f"({', '.join(CHANNELS)}); use extra_channels")
        if "q" not in logged:
            raise RecordingError(f"{self._name}: variable 'q': every recording logs it")
        self._qualifiers = _qualifiers(self._name, [*logged, *optional], origins, torque_side)
        channels = {c: _VOCAB_CHANNELS[c] for c in logged}
        for oname in optional:
            channels[oname] = _VOCAB_CHANNELS[oname]
        for cname, spec in (extra_channels or {}).items():
            if cname in channels or cname in ("time", "joint"):
                raise RecordingError(f"{self._name}: variable {cname!r}: already defined")
            unknown = [d for d in spec.dims if d not in sizes]
            if unknown:
                raise RecordingError(f"{self._name}: variable {cname!r}: dimension(s) {unknown} "
                                     "have no coordinate: pass coords={...}")
            channels[cname] = spec
        self._channels = channels
        self._shapes = {c: tuple(sizes[d] for d in spec.dims) for c, spec in channels.items()}
        self._required = frozenset(logged)
        self._fs = float(sample_rate_hz)
        self._dt = 1.0 / self._fs
        self._step_tol = STEP_RTOL * self._dt
        self._grid_tol = GRID_TOL * self._dt
        self._chunk_size = int(chunk_size)
        if self._chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        self._chunks: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
        for _ in range(max(1, -(-int(preallocate) // self._chunk_size))):
            self._chunks.append(self._new_chunk())
        self._ci = 0  # current chunk index
        self._t_buf, self._buf = self._chunks[0]
        self._j = 0  # next row in the current chunk
        self._n = 0  # samples appended
        self._t0 = 0.0
        self._t_last = 0.0
        self._flush_every = flush_every_s
        self._next_flush = None if flush_every_s is None else float(flush_every_s)
        self._closed = False
        self._fault: str | None = None

    # -- buffers ---------------------------------------------------------------------------
    def _new_chunk(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        t = np.full(self._chunk_size, np.nan)
        bufs = {}
        for cname, spec in self._channels.items():
            shape = (self._chunk_size, *self._shapes[cname])
            dtype = np.dtype(spec.dtype)
            bufs[cname] = np.full(shape, np.nan, dtype) if dtype.kind == "f" else np.zeros(shape, dtype)
        return t, bufs

    def _advance_chunk(self) -> None:
        self._ci += 1
        if self._ci == len(self._chunks):
            self._chunks.append(self._new_chunk())
        self._t_buf, self._buf = self._chunks[self._ci]
        self._j = 0

    @property
    def n_samples(self) -> int:
        """Number of samples appended so far."""
        return self._n

    def append(self, t: float, **channels: Any) -> None:
        """Record one sample.

        Parameters
        ----------
        t : float
            Sample time [s], the nominal ``t0 + k / sample_rate_hz``.
        **channels : array_like
            One value per channel, shaped per sample (``(n_joint,)`` for joint channels). The
            first call must give every required channel; a channel left out later stays NaN
            (which a finished recording rejects for non-NaN-able channels).

        Raises
        ------
        ValueError
            On a time off the grid, an unknown channel or a wrongly shaped value; nothing of
            that sample is kept.
        RuntimeError
            After the writer was finished.
        """
        if self._closed:
            raise RuntimeError(f"{self._name}: writer already finished")
        if self._n == 0:
            if not math.isfinite(t):
                raise ValueError(f"{self._name}: first sample time {float(t)!r} is not finite")
            missing = self._required - channels.keys()
            if missing:
                raise ValueError(f"{self._name}: first sample lacks required channel(s) "
                                 f"{sorted(missing)}")
        elif not (abs(t - self._t_last - self._dt) <= self._step_tol
                  and abs(t - self._t0 - self._n * self._dt) <= self._grid_tol):
            raise ValueError(f"{self._name}: sample time {float(t)!r} s at index {self._n} is off the "
                             f"grid t0 + k/{self._fs!r} Hz (previous {self._t_last!r} s)")
        if self._j == self._chunk_size:
            self._advance_chunk()
        j = self._j
        buf = self._buf
        try:
            for cname, value in channels.items():
                buf[cname][j] = value
        except KeyError:
            self._clear_row(j)
            how = (f"declare it with optional=({cname!r},)" if cname in CHANNELS
                   else "declare it with extra_channels={...}")
            raise ValueError(f"{self._name}: unknown channel {cname!r} ({how}); known: "
                             f"{sorted(self._channels)}") from None
        except Exception:
            self._clear_row(j)
            raise
        self._t_buf[j] = t
        if self._n == 0:
            self._t0 = t
        self._t_last = t
        self._j = j + 1
        self._n += 1
        if self._next_flush is not None and t >= self._next_flush:
            self._next_flush = t + self._flush_every
            self.flush()

    def _clear_row(self, j: int) -> None:
        for arr in self._buf.values():
            arr[j] = np.nan if arr.dtype.kind == "f" else 0

    # -- output ----------------------------------------------------------------------------
    def _dataset(self, fault: str | None) -> xr.Dataset | None:
        """Everything appended so far as a dataset (cut before any non-finite sample)."""
        n = self._n
        parts = [self._chunks[i] for i in range(-(-n // self._chunk_size))]

        def gather(get) -> np.ndarray:
            arr = np.concatenate([get(p) for p in parts]) if parts else np.empty(0)
            return arr[:n]

        time = gather(lambda p: p[0])
        data = {c: gather(lambda p, c=c: p[1][c]) for c in self._channels}
        # Keep the longest prefix where every channel is valid, so a fault that produced a
        # NaN (a dead sensor) still leaves a valid file; the cut is recorded in `fault`.
        cut, culprit = n, None
        for cname, arr in data.items():
            if arr.dtype.kind != "f":
                continue
            bad = np.isinf(arr) if cname in ALLOWED_NAN else ~np.isfinite(arr)
            rows = bad.reshape(n, -1).any(axis=1) if n else bad
            if rows.any():
                k = int(np.argmax(rows))
                if k < cut:
                    cut, culprit = k, cname
        if culprit is not None:
            note = (f"non-finite {culprit!r} at time index {cut} (t = {float(time[cut])!r} s): "
                    f"recording cut to {cut} of {n} samples")
            fault = f"{fault}; {note}" if fault else note
            warnings.warn(f"{self._name}: {note}", RuntimeWarning, stacklevel=3)
        if cut < 2:
            return None
        attrs = dict(self._attrs)
        if "paperlib_version" in attrs:  # paperlib wrote the file: stamp the time of writing
            attrs.update(provenance.stamp())
        if fault:
            attrs["fault"] = fault
        ds = xr.Dataset(
            {c: (("time", *spec.dims), data[c][:cut], {"units": spec.units, "long_name": spec.long_name,
                                                        **self._qualifiers.get(c, {})})
             for c, spec in self._channels.items()},
            coords={**_coords(time[:cut], self._joint_labels),
                    **{k: (k, np.asarray(v)) for k, v in self._coords.items()}},
            attrs=attrs,
        )
        return ds

    def flush(self) -> Path | None:
        """Write everything appended so far (atomically); None if fewer than 2 samples."""
        ds = self._dataset(self._fault)
        return None if ds is None else write_recording(ds, self.path)

    def finish(self, fault: str | None = None) -> Path | None:
        """Write the recording and close the writer; idempotent.

        Parameters
        ----------
        fault : str, optional
            Why the run ended early; stored as the ``fault`` attribute.

        Returns
        -------
        Path or None
            The file written; None (with a warning) when a faulted run left fewer than two
            valid samples, or when the writer was already finished.

        Raises
        ------
        RecordingError
            If a run without fault has fewer than two valid samples.
        """
        if self._closed:
            return None
        self._closed = True
        if fault is not None:
            self._fault = str(fault) or "fault"
        ds = self._dataset(self._fault)
        if ds is None:
            msg = f"{self._name}: fewer than 2 valid samples ({self._n} appended): nothing written"
            if self._fault is None:
                raise RecordingError(msg)
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            return None
        return write_recording(ds, self.path)

    def close(self) -> Path | None:
        """Write the recording (without fault) and close; same as ``finish(None)``."""
        return self.finish(None)

    def __enter__(self) -> "RecordingWriter":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> bool:
        if exc_type is None:
            self.finish(None)
            return False
        try:
            self.finish(f"{exc_type.__name__}: {exc}")
        except Exception as write_exc:  # never mask the run's own exception
            warnings.warn(f"{self._name}: could not write the recording after "
                          f"{exc_type.__name__}: {write_exc}", RuntimeWarning, stacklevel=2)
        return False


# --------------------------------------------------------------------------------------------
# registry of archived recordings
# --------------------------------------------------------------------------------------------

_REGISTRY_KEYS = ("name", "file", "sha256", "source", "robot", "description")
_REGISTRY_OPTIONAL_KEYS = ("url",)


@dataclass(frozen=True)
class RegistryEntry:
    """One ``[[recording]]`` of the registry; ``path`` is ``file`` resolved against its directory."""

    name: str
    file: str
    sha256: str
    source: str
    robot: str
    description: str
    path: Path
    url: str | None = None


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_registry(path: str | os.PathLike[str] | None = None) -> list[RegistryEntry]:
    """Parse the recording registry.

    Parameters
    ----------
    path : path-like, optional
        Registry file; default ``data/recordings/registry.toml``. Entries' ``file`` are
        relative to the registry's directory.

    Returns
    -------
    list of RegistryEntry

    Raises
    ------
    RecordingError
        If the file is missing or not TOML, or an entry lacks a key, has a bad ``source`` or
        ``sha256``, a non-relative ``file``, or a duplicate ``name``.
    """
    reg = Path(path) if path is not None else DEFAULT_REGISTRY
    try:
        with open(reg, "rb") as fh:
            doc = tomllib.load(fh)
    except FileNotFoundError:
        raise RecordingError(f"{reg}: registry file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise RecordingError(f"{reg}: not valid TOML ({exc})") from None
    unknown_top = sorted(set(doc) - {"recording"})
    problems = [f"{reg}: unknown top-level key(s) {unknown_top}"] if unknown_top else []
    tables = doc.get("recording", [])
    if not isinstance(tables, list):
        raise RecordingError(f"{reg}: 'recording' must be an array of tables ([[recording]])")
    entries: list[RegistryEntry] = []
    seen: set[str] = set()
    for i, table in enumerate(tables):
        if not isinstance(table, dict):
            problems.append(f"{reg}: recording #{i + 1}: not a table ([[recording]])")
            continue
        label = f"{reg}: recording #{i + 1} ({table.get('name', '?')!s})"
        bad = [f"{label}: missing key {k!r}" for k in _REGISTRY_KEYS if k not in table]
        bad += [f"{label}: unknown key {k!r}" for k in table
                if k not in _REGISTRY_KEYS + _REGISTRY_OPTIONAL_KEYS]
        bad += [f"{label}: key {k!r} must be a non-empty string" for k in table
                if not isinstance(table[k], str) or not table[k].strip()]
        if bad:
            problems += bad
            continue
        if table["source"] not in SOURCES:
            problems.append(f"{label}: source {table['source']!r} is not one of 'twin', 'hardware'")
        sha = table["sha256"].lower()
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            problems.append(f"{label}: sha256 {table['sha256']!r} is not 64 hex digits")
        rel = Path(table["file"])
        if rel.is_absolute() or ".." in rel.parts:
            problems.append(f"{label}: file {table['file']!r} must be relative to {reg.parent}")
        if table["name"] in seen:
            problems.append(f"{label}: duplicate name {table['name']!r}")
        seen.add(table["name"])
        entries.append(RegistryEntry(name=table["name"], file=table["file"], sha256=sha,
                                     source=table["source"], robot=table["robot"],
                                     description=table["description"], path=reg.parent / rel,
                                     url=table.get("url")))
    if problems:
        raise RecordingError(problems)
    return entries


def verify_registry(path: str | os.PathLike[str] | None = None) -> list[str]:
    """Check every registered recording: present, checksum, schema, and agreeing metadata.

    Parameters
    ----------
    path : path-like, optional
        Registry file; default ``data/recordings/registry.toml``.

    Returns
    -------
    list of str
        One message per problem (missing file, sha256 mismatch, invalid recording, registry
        ``source``/``robot`` differing from the file's); empty when all is well.
    """
    try:
        entries = load_registry(path)
    except RecordingError as exc:
        return list(exc.problems)
    problems: list[str] = []
    for e in entries:
        if not e.path.is_file():
            problems.append(f"{e.name}: file {e.path} is missing")
            continue
        digest = sha256_file(e.path)
        if digest != e.sha256:
            problems.append(f"{e.name}: sha256 mismatch for {e.path}: registry {e.sha256}, "
                            f"file {digest}")
            continue
        try:
            ds = read_recording(e.path)
        except RecordingError as exc:
            problems += [f"{e.name}: invalid recording: {p}" for p in exc.problems]
            continue
        for key in ("source", "robot"):
            if ds.attrs.get(key) != getattr(e, key):
                problems.append(f"{e.name}: registry says {key} = {getattr(e, key)!r}, "
                                f"the file says {ds.attrs.get(key)!r}")
    return problems


def registry_entry(file: str | os.PathLike[str], *, name: str, description: str,
                   registry: str | os.PathLike[str] | None = None) -> str:
    """The TOML text of a registry entry for a recording (to append to the registry).

    The recording is read (so it must be valid); ``source`` and ``robot`` are taken from it.

    Parameters
    ----------
    file : path-like
        The recording, inside the registry's directory.
    name, description : str
        Unique short name and one-line description.
    registry : path-like, optional
        Registry file (default ``data/recordings/registry.toml``).

    Returns
    -------
    str
        A ``[[recording]]`` table.
    """
    reg = Path(registry) if registry is not None else DEFAULT_REGISTRY
    file = Path(file)
    ds = read_recording(file)
    rel = os.path.relpath(file.resolve(), reg.parent.resolve())
    if rel.startswith(".."):
        raise RecordingError(f"{file}: not inside the registry directory {reg.parent}")
    fields = {"name": name, "file": Path(rel).as_posix(), "sha256": sha256_file(file),
              "source": ds.attrs["source"], "robot": ds.attrs["robot"], "description": description}
    # JSON string escapes are valid TOML basic-string escapes.
    body = "\n".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
    return f"[[recording]]\n{body}\n"
