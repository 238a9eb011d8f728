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

from dataclasses import dataclass
from typing import Sequence

__all__ = [
    "SCHEMA",
    "SCHEMA_V1",
    "SCHEMAS",
    "SOURCES",
    "REQUIRED_VARIABLES",
    "OPTIONAL_VARIABLES",
    "ALLOWED_NAN",
    "ChannelSpec",
    "VELOCITY_ORIGINS",
    "ACCELERATION_ORIGINS",
    "TORQUE_SIDES",
    "CHANNELS",
    "CORE_CHANNELS",
    "CORE_ATTRS",
    "LOOP_CHANNELS",
    "UNIT_ALIASES",
    "STEP_RTOL",
    "GRID_TOL",
    "RecordingError",
    "canonical_units",
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

