"""Where the room's recordings come from: made now (``twin``; the TX40 file imported) or read from a release.

The room understands two ``--source`` values (:data:`SOURCES`):

- ``twin``: the thermal campaign's days are simulated on the TX40 twin
  (``rules/industrial_thermal.smk``) and the public TX40 recording (``source = hardware``: real
  data, not a live rig) is imported from its files (``rules/industrial.smk``);
- ``archive``: every one of those recordings is copied out of a data release
  (``paperlib reproduce industrial --archive DIR``), exactly as it was stored (the campaign's
  days reduced, ``recording_storage: analysis``), and nothing is simulated or imported.

``--source hardware`` is refused: the room has no live rig (the TX40 recording is imported data).
A notebook that would make a recording itself (run by hand, a file missing) obtains it through
:func:`recording_source` (:class:`paperlib.experiments.kit.sources.RecordingSource`), so the
recording is written where ``paperlib archive pack`` releases it, and read from the release in
an archive build.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the room's __init__ reads SOURCES: importing this module must not pull in xarray
    from paperlib.experiments.kit.sources import RecordingSource

__all__ = ["SLUG", "SOURCES", "recording_source"]

SLUG = "industrial"
#: The ``--source`` values the room understands (``Room.sources``).
SOURCES = ("twin", "archive")


def recording_source(results_dir: str | os.PathLike[str], source: str | None = "twin",
                     archive: str | os.PathLike[str] | None = None) -> RecordingSource:
    """The room's :class:`RecordingSource` for one notebook run.

    Parameters
    ----------
    results_dir : path-like
        The room's results folder of the run (recordings go to its ``recordings/``).
    source : {"twin", "archive"} or None
        The notebook's ``source`` parameter (None: ``twin``).
    archive : path-like, optional
        The release folder (required for ``archive``).

    Raises
    ------
    SourceError
        ``hardware`` (no live rig for this room) or any other source it does not know, or
        ``archive`` without a release folder.
    """
    from paperlib.experiments.kit.sources import RecordingSource, SourceError

    source = source or "twin"
    if source not in SOURCES:
        raise SourceError(f"{SLUG}: source {source!r} is not one of {', '.join(SOURCES)} (no live rig for this "
                          "room: the TX40 recording is imported public data, the thermal campaign is the twin's)")
    return RecordingSource(SLUG, results_dir, source, archive)
