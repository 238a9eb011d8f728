"""A switch that makes every twin run refuse: a build from an archived release runs no twin code.

``paperlib reproduce --source archive`` sets :data:`FORBID_ENV` for Snakemake and every notebook
it starts, so a room that would fall back to simulating a recording it should have read from the
release stops with :class:`TwinForbiddenError` instead of quietly making twin data. Tests set it
the same way. Every public entry that runs a twin (the closed-loop runner, the twin plant, each
robot's own simulator under :mod:`paperlib.twin.robots`) is wrapped in :func:`twin_run`.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, TypeVar

__all__ = ["FORBID_ENV", "TwinForbiddenError", "check_allowed", "forbidden", "twin_run"]

#: Environment variable: any non-empty value other than ``0`` forbids twin runs.
FORBID_ENV = "PAPERLIB_FORBID_TWIN"

F = TypeVar("F", bound=Callable[..., Any])


class TwinForbiddenError(RuntimeError):
    """A twin was asked to run while :data:`FORBID_ENV` forbids it."""


def forbidden() -> bool:
    """Whether twin runs are forbidden now (:data:`FORBID_ENV` set, not ``0``)."""
    return os.environ.get(FORBID_ENV, "") not in ("", "0")


def check_allowed(what: str) -> None:
    """Raise :class:`TwinForbiddenError` naming ``what`` if twin runs are forbidden."""
    if forbidden():
        raise TwinForbiddenError(
            f"{what}: a digital-twin run was started while {FORBID_ENV} is set (a build from an archived "
            "release must read every recording from the release; the room asked the twin for one instead)")


def twin_run(fn: F) -> F:
    """Decorator of a twin entry point: refuse (:func:`check_allowed`) before running ``fn``."""
    what = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        check_allowed(what)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
