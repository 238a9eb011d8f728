"""Recordings in the format ``paperlib.recording/2``: one run of a robot, twin, hardware or another lab's logger.

The format itself (core, channel vocabulary, units, time tolerances, schema 1) is described in
:mod:`paperlib.recordings.schema`; ``docs/recordings.md`` shows how to write one from any logger.
Everything public is importable from here (``from paperlib.recordings import read_recording``).

Modules
-------
schema
    The schema's names, channel vocabulary and units (:data:`CHANNELS`, :func:`canonical_units`),
    :class:`RecordingError`.
validation
    :func:`validate` (every fault in one pass), :func:`plausibility` (with
    :func:`robot_joint_limits`), :func:`require_channels`.
build
    :func:`make_recording`, :func:`from_arrays`; :func:`truth`, :func:`config`.
io
    :func:`write_recording` (validated, compressed, atomic), :func:`read_recording`.
writer
    :class:`RecordingWriter`, the streaming logger of a control loop, and its :class:`Channel`.
live_mirror
    :class:`LiveMirror` (a writer's chunks in shared files while the loop runs) and
    :class:`LiveReader` (another process reads them: the live page of ``paperlib run --live``).
storage
    :func:`reduce_recording` and the ``analysis`` / ``full`` storage plans of a pipeline's twin recordings.
registry
    The registry of archived recordings: :func:`load_recording_registry`, :func:`verify_registry`,
    :func:`registry_entry`, :func:`sha256_file`.
resample
    :func:`resample_uniform`: jittery logs onto the uniform grid (reports the jitter, refuses gaps).
cli
    ``paperlib validate`` and ``paperlib recordings {verify,list}``.
"""

from __future__ import annotations

from paperlib.recordings.build import config, from_arrays, make_recording, truth, writer_name
from paperlib.recordings.io import read_recording, write_recording
from paperlib.recordings.live_mirror import LiveMirror, LiveReader, LiveSnapshot
from paperlib.recordings.registry import (
    DEFAULT_REGISTRY,
    RegistryEntry,
    load_recording_registry,
    registry_entry,
    sha256_file,
    verify_registry,
)
from paperlib.recordings.schema import (
    ACCELERATION_ORIGINS,
    ALLOWED_NAN,
    CHANNELS,
    CORE_ATTRS,
    CORE_CHANNELS,
    GRID_TOL,
    LOOP_CHANNELS,
    OPTIONAL_VARIABLES,
    REQUIRED_VARIABLES,
    SCHEMA,
    SCHEMA_V1,
    SCHEMAS,
    SOURCES,
    STEP_RTOL,
    TORQUE_SIDES,
    UNIT_ALIASES,
    VELOCITY_ORIGINS,
    ChannelSpec,
    RecordingError,
    canonical_units,
)
from paperlib.recordings.resample import JitterReport, resample_uniform
from paperlib.recordings.storage import reduce_recording
from paperlib.recordings.validation import plausibility, require_channels, robot_joint_limits, validate
from paperlib.recordings.writer import Channel, RecordingWriter

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
    "CORE_ATTRS",
    "LOOP_CHANNELS",
    "VELOCITY_ORIGINS",
    "ACCELERATION_ORIGINS",
    "TORQUE_SIDES",
    "ChannelSpec",
    "RecordingError",
    "Channel",
    "LiveMirror",
    "LiveReader",
    "LiveSnapshot",
    "from_arrays",
    "require_channels",
    "plausibility",
    "robot_joint_limits",
    "canonical_units",
    "make_recording",
    "validate",
    "write_recording",
    "read_recording",
    "truth",
    "config",
    "writer_name",
    "reduce_recording",
    "resample_uniform",
    "JitterReport",
    "RecordingWriter",
    "RegistryEntry",
    "DEFAULT_REGISTRY",
    "sha256_file",
    "load_recording_registry",
    "verify_registry",
    "registry_entry",
]
