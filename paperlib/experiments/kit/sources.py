"""Where a room's recordings come from: made now (``twin``, ``hardware``) or read from a release (``archive``).

A room obtains every recording it analyses through one :class:`RecordingSource`, whether a
pipeline rule makes it or a notebook does:

- ``twin`` (or ``hardware``, for a room with a live rig): the room's ``make()`` produces the
  dataset; it is written to ``<results>/<slug>/recordings/<name>.nc`` (so ``paperlib archive pack``
  releases it) and read back from that file, so what the notebook analyses is exactly what a
  later build from the release will read;
- ``archive``: the recording is copied out of the release folder
  (:func:`paperlib.recordings.release.copy_from_release`: registered, sha256 checked before and
  after the copy) to the same path and read; ``make`` is never called. ``paperlib reproduce
  --source archive`` also forbids every twin run (:mod:`paperlib.twin.guard`), so a room that
  would simulate a recording it should have read stops with an error.

Pipeline rules that make recordings use the same rule through the Snakefile's
``RECORDING_SHELL(cmd)`` (the twin command, or ``python -m paperlib.recordings.release`` from
the release).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from paperlib.recordings.release import copy_from_release, release_entries, release_file

__all__ = ["SOURCES", "RecordingSource", "SourceError"]

#: Every source a room may understand (a room declares its own in ``Room.sources``).
SOURCES = ("twin", "hardware", "archive")


class SourceError(ValueError):
    """A source the room cannot use, or ``archive`` without a release."""


@dataclass(frozen=True)
class RecordingSource:
    """How one room run obtains its recordings.

    Parameters
    ----------
    slug : str
        The room.
    results_dir : path-like
        The room's results folder (``<results root>/<slug>``); recordings go to its ``recordings/``.
    source : {"twin", "hardware", "archive"}
        Where they come from.
    archive : path-like, optional
        The release folder (required for ``archive``; a URL is resolved by ``paperlib reproduce``
        before the notebooks run).
    """

    slug: str
    results_dir: str | os.PathLike[str]
    source: str = "twin"
    archive: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise SourceError(f"{self.slug}: source {self.source!r} is not one of {', '.join(SOURCES)}")
        if self.source == "archive" and not self.archive:
            raise SourceError(f"{self.slug}: source 'archive' needs the release folder (--archive DIR|URL)")

    @property
    def recordings_dir(self) -> Path:
        """``<results_dir>/recordings``."""
        return Path(self.results_dir) / "recordings"

    def path(self, name: str) -> Path:
        """The file of recording ``name`` in this run's results."""
        return self.recordings_dir / f"{name}.nc"

    def obtain(self, name: str, make: Callable[[], Any]) -> Any:
        """Recording ``name``: ``make()`` written and read back, or the release's copy read (``archive``).

        Parameters
        ----------
        name : str
            File name without ``.nc``; unique within the room.
        make : callable
            Returns the recording (an ``xarray.Dataset`` of ``paperlib.recordings``); called only
            when the source is not ``archive``.

        Returns
        -------
        xarray.Dataset
            The recording as read from ``path(name)``.
        """
        from paperlib.recordings import read_recording, write_recording

        dest = self.path(name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if self.source == "archive":
            copy_from_release(self.archive, release_file(self.slug, name), dest, self._entries())
        else:
            write_recording(make(), dest)
        return read_recording(dest)

    def _entries(self) -> dict[str, Any]:
        cache = self.__dict__.get("_entries_cache")
        if cache is None:
            cache = release_entries(self.archive)
            object.__setattr__(self, "_entries_cache", cache)
        return cache
