"""The rooms, found by scanning: every package ``paperlib/experiments/<slug>/`` whose ``__init__`` defines ``ROOM``.

No list of rooms is kept by hand. Folders named in ``PAPERLIB_ROOMS_PATH`` (``os.pathsep``-
separated) are searched too: they are appended to the ``paperlib.experiments`` package path,
so a room folder ``<dir>/<slug>/`` there imports as ``paperlib.experiments.<slug>``. Rooms are
ordered by the file name of their paper's text (``000_...``, ``001_...``).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path
from typing import Any, Callable, Mapping

from paperlib.experiments.kit.config import ConfigError, Schema, config_path, deep_merge, read_run_config, read_yaml
from paperlib.experiments.kit.room import Command, Room

__all__ = ["ROOMS_PATH_ENV", "rooms", "room", "slugs", "commands", "command_modules", "bench_modules", "sweep_runners",
           "figure_modules", "config_checks", "reset", "resolve", "load_room_config"]

ROOMS_PATH_ENV = "PAPERLIB_ROOMS_PATH"
#: Packages of ``paperlib.experiments`` that are not rooms.
NOT_ROOMS = frozenset({"kit"})

_CACHE: list[Room] | None = None
#: Folders this module added to the package path (dropped again when the variable no longer names them).
_ADDED: list[str] = []


def _extend_path() -> None:
    """Make the ``paperlib.experiments`` package path hold the folders of ``PAPERLIB_ROOMS_PATH``."""
    import paperlib.experiments as experiments

    wanted = [os.path.abspath(d) for d in os.environ.get(ROOMS_PATH_ENV, "").split(os.pathsep) if d]
    for d in [d for d in _ADDED if d not in wanted]:
        _ADDED.remove(d)
        if d in experiments.__path__:
            experiments.__path__.remove(d)
    for d in wanted:
        if d not in experiments.__path__:
            experiments.__path__.append(d)
            _ADDED.append(d)


def _scan() -> list[Room]:
    import paperlib.experiments as experiments

    _extend_path()
    found: dict[str, Room] = {}
    for info in pkgutil.iter_modules(experiments.__path__):
        if not info.ispkg or info.name in NOT_ROOMS or info.name.startswith("_") or info.name in found:
            continue
        module = importlib.import_module(f"paperlib.experiments.{info.name}")
        r = getattr(module, "ROOM", None)
        if r is None:
            continue
        if not isinstance(r, Room):
            raise TypeError(f"paperlib.experiments.{info.name}.ROOM is a {type(r).__name__}, not a kit Room")
        if r.slug != info.name:
            raise ValueError(f"paperlib.experiments.{info.name}: ROOM.paper.slug is {r.slug!r}; it must be the "
                             f"package name {info.name!r}")
        found[r.slug] = r
    return sorted(found.values(), key=lambda r: (r.paper.seed_file, r.slug))


def rooms() -> list[Room]:
    """Every room, ordered by the file name of its paper's text."""
    global _CACHE
    if _CACHE is None:
        _CACHE = _scan()
    return list(_CACHE)


def reset() -> None:
    """Forget the scan (the next :func:`rooms` scans again, e.g. after ``PAPERLIB_ROOMS_PATH`` changed)."""
    global _CACHE
    _CACHE = None


def slugs() -> list[str]:
    """The rooms' slugs, in :func:`rooms` order."""
    return [r.slug for r in rooms()]


def room(slug: str) -> Room:
    """The room called ``slug``.

    Raises
    ------
    KeyError
        No such room (the message lists the known ones).
    """
    for r in rooms():
        if r.slug == slug:
            return r
    raise KeyError(f"no room {slug!r}; known: {', '.join(slugs())}")


def commands() -> list[Command | str]:
    """The rooms' CLI commands as declared: a :class:`Command` (name, module, help) or a module name."""
    return [c for r in rooms() for c in r.commands]


def command_modules() -> list[str]:
    """The rooms' CLI command modules (each with ``add_parser(subparsers)``), each once."""
    return list(dict.fromkeys(c.module if isinstance(c, Command) else c for c in commands()))


def bench_modules() -> list[str]:
    """The rooms' bench modules (each with ``benchmarks()``)."""
    return [m for r in rooms() for m in r.bench]


def figure_modules() -> dict[str, list[str]]:
    """slug -> the room's figure modules."""
    return {r.slug: list(r.figures) for r in rooms() if r.figures}


def sweep_runners() -> dict[str, str]:
    """slug -> module of the room's sweep runner (rooms that have one)."""
    return {r.slug: r.sweep_runner for r in rooms() if r.sweep_runner}


def resolve(ref: str | Callable[..., Any]) -> Callable[..., Any]:
    """A callable given as itself or as ``"module:attribute"`` (imported only when used)."""
    if callable(ref):
        return ref
    module, _, attr = str(ref).partition(":")
    if not attr:
        raise ValueError(f"{ref!r}: expected 'module:attribute'")
    return getattr(importlib.import_module(module), attr)


def config_checks(slug: str) -> list[Callable[..., Any]]:
    """The room's configuration checks (:attr:`Room.config_checks`), resolved."""
    return [resolve(c) for c in room(slug).config_checks]


def load_room_config(slug: str, run_config: Mapping[str, Any] | str | os.PathLike[str] | None = None,
                     path: str | os.PathLike[str] | None = None, schema: Schema | None = None) -> dict[str, Any]:
    """A room's configuration: its file with the run configuration's ``<slug>:`` section merged over it.

    Parameters
    ----------
    slug : str
        The room.
    run_config : mapping or path-like, optional
        A run configuration (already read, or its file).
    path : path-like, optional
        The room's file (default ``config/<slug>.yaml``).
    schema : Schema, optional
        Checked after the merge (default: the room's ``ROOM.config``, when it declares one).

    Raises
    ------
    ConfigError
        The merged configuration breaks the schema (the message names the key and the files).
    """
    p = Path(path) if path is not None else config_path(slug)
    cfg = read_yaml(p)
    where = str(p)
    if run_config is not None and not isinstance(run_config, Mapping):
        where = f"{p} with {run_config}"
        run_config = read_run_config(run_config)
    section = (run_config or {}).get(slug)
    if section is not None:
        if not isinstance(section, Mapping):
            raise ConfigError(f"{where}: run configuration section {slug!r} must be a mapping")
        cfg = deep_merge(cfg, section)
        if where == str(p):
            where = f"{p} (with the run configuration's {slug!r} section)"
    if schema is None:
        try:
            schema = room(slug).config
        except KeyError:
            schema = None
    if schema is not None:
        schema.validate(cfg, where)
    return cfg
