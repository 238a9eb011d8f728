"""Checking a recording against its schema: :func:`validate` (every fault in one pass),
:func:`plausibility` (valid but suspicious values) and :func:`require_channels` (what an analysis needs).

The rules are those of :mod:`paperlib.recordings.schema` (schema 2, and schema 1 by its own rules).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import numbers
from typing import Any, Iterable, Mapping

import numpy as np
import xarray as xr

from paperlib.recordings.schema import (
    ALLOWED_NAN,
    CHANNELS,
    CORE_CHANNELS,
    GRID_TOL,
    OPTIONAL_VARIABLES,
    REQUIRED_VARIABLES,
    SCHEMA,
    SCHEMA_V1,
    SCHEMAS,
    SOURCES,
    STEP_RTOL,
    RecordingError,
    _units_fault,
)

__all__ = ["validate", "plausibility", "robot_joint_limits", "require_channels"]


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------

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

    if dims is not None and var.dims != dims:  # reported, and the variable checked on: every fault in one pass
        bad(f"wrong dimensions {var.dims} (shape {var.shape}); expected {dims}")
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
    refuse: a robot may really turn many revolutions. Angles outside the joint limits of the robot
    the file names are flagged where the compendium's model of that robot knows its limits
    (:func:`robot_joint_limits`).

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
    out += _outside_joint_limits(ds, name)
    for v in ("tau_m", "tau_tgt", "tau_s", "tau_ref"):
        if v in ds.data_vars:
            peak = float(np.nanmax(np.abs(ds[v].values))) if ds[v].size else 0.0
            if peak > 2e4:
                out.append(f"{name}: variable {v!r}: peaks at {peak:.4g} N m, more than any robot joint here: "
                           "N mm, mN m or per mille of rated torque labelled 'N m'?")
    return out


def robot_joint_limits(robot: object) -> tuple[np.ndarray, np.ndarray] | None:
    """The joint limits of a robot the compendium has a model of, where the model states them.

    Parameters
    ----------
    robot : object
        A recording's ``robot`` attribute, e.g. ``"five_bar"`` or ``"tx40"``
        (:func:`paperlib.robots.load`).

    Returns
    -------
    (q_min, q_max) : tuple of ndarray, each shape (n_joint,), or None
        Lower and upper limits [rad] of the model's joints 1..n in order (a five-bar's
        ``joint_limits``, a serial arm's ``lower`` / ``upper``; infinite where the model does not
        know one); None for a robot without a model here, or a model that states no limits.
    """
    if not isinstance(robot, str) or not robot.strip():
        return None
    from paperlib.robots import load

    try:
        model = load(robot)
    except (ValueError, OSError):  # no model of this robot in the compendium
        return None
    if hasattr(model, "joint_limits"):
        lo, hi = model.joint_limits
    elif hasattr(model, "lower") and hasattr(model, "upper"):
        lo, hi = model.lower, model.upper
    else:
        return None
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def _outside_joint_limits(ds: xr.Dataset, name: str) -> list[str]:
    """Warnings for angles of ``q`` outside the joint limits of the recording's robot (see :func:`plausibility`).

    Joint label k is the model's joint k; labels beyond the model's joints are not judged.
    """
    if "q" not in ds.data_vars or ds["q"].dims != ("time", "joint") or ds["q"].size == 0:
        return []
    limits = robot_joint_limits(ds.attrs.get("robot"))
    if limits is None:
        return []
    lo, hi = limits
    robot = ds.attrs["robot"]
    q = np.asarray(ds["q"].values, dtype=float)
    out: list[str] = []
    for j, label in enumerate(ds["joint"].values):
        k = int(label) - 1
        if not 0 <= k < lo.size:
            continue
        q_min, q_max = float(np.nanmin(q[:, j])), float(np.nanmax(q[:, j]))
        if lo[k] <= q_min and q_max <= hi[k]:
            continue
        worst = q_min if lo[k] - q_min >= q_max - hi[k] else q_max
        index = int(np.nanargmin(q[:, j]) if worst == q_min else np.nanargmax(q[:, j]))
        # beyond a turn, and within the limits once read as degrees: a unit, not an overshoot
        as_deg = abs(worst) > 2 * math.pi and lo[k] <= math.radians(q_min) and math.radians(q_max) <= hi[k]
        hint = (" (read as degrees every angle of this joint lies within them: degrees labelled 'rad'?)" if as_deg
                else " (a zero offset, a sign, or a file of another robot?)")
        out.append(f"{name}: variable 'q', joint {label}: reaches {worst:.4g} rad at time index {index}, outside "
                   f"{robot}'s joint limits [{lo[k]:.4g}, {hi[k]:.4g}] rad ([{math.degrees(lo[k]):.4g}, "
                   f"{math.degrees(hi[k]):.4g}] deg){hint}")
    return out


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
        What needs them, e.g. ``"the friction fit"``.

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
