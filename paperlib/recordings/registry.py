"""The registry of archived recordings (``data/recordings/registry.toml``): entries, sha256, verification.

Each ``[[recording]]`` names a file relative to the registry, its sha256, ``source``, ``robot``
and a description (optionally a ``url``); :func:`verify_registry` checks them all,
:func:`registry_entry` writes the entry of a new file. (Public external data sets have their own
registry, :func:`paperlib.data.registry.load_dataset_registry`.)
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from paperlib import provenance
from paperlib.recordings.io import read_recording
from paperlib.recordings.schema import SOURCES, RecordingError

__all__ = ["RegistryEntry", "DEFAULT_REGISTRY", "sha256_file", "load_recording_registry", "verify_registry",
           "registry_entry"]

DEFAULT_REGISTRY = provenance.REPO_ROOT / "data" / "recordings" / "registry.toml"

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


def load_recording_registry(path: str | os.PathLike[str] | None = None) -> list[RegistryEntry]:
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
        entries = load_recording_registry(path)
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
