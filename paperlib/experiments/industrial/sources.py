"""Where the room's recordings come from: made now (``twin``; the TX40 file imported) or read from a release.

The room understands three ``--source`` values (:data:`SOURCES`):

- ``twin``: the thermal campaign's days are simulated on the TX40 twin
  (``rules/industrial_thermal.smk``) and the public TX40 recording (``source = hardware``: real
  data, not a live rig) is imported from its files (``rules/industrial.smk``);
- ``hardware`` (with ``--rig-config RIG --emulate-rig``, e.g. ``config/rigs/tx40_thermal.toml``): the
  campaign's days are recorded through the thermal arm's rig (:mod:`.rig_days`: the real EtherCAT
  master, loop and writer against the emulated drives and RTDs around the campaign twin, labelled
  ``source = twin``, ``rig = emulated-hardware``); the TX40 recording is imported as with ``twin``. A
  real arm is refused: the campaign's arm controller is not an open EtherCAT segment;
- ``archive``: every one of those recordings is copied out of a data release
  (``paperlib reproduce industrial --archive DIR``), exactly as it was stored (the campaign's
  days reduced, ``recording_storage: analysis``), and nothing is simulated or imported.

A notebook that would make a recording itself (run by hand, a file missing) obtains it through
:func:`recording_source` (:class:`paperlib.experiments.kit.sources.RecordingSource`), so the
recording is written where ``paperlib archive pack`` releases it, and read from the release in
an archive build.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # the room's __init__ reads SOURCES: importing this module must not pull in xarray
    from paperlib.experiments.kit.sources import RecordingSource

__all__ = ["SLUG", "SOURCES", "RIG_REQUIRED_KEYS", "recording_source", "hardware_check"]

SLUG = "industrial"
#: The ``--source`` values the room understands (``Room.sources``).
SOURCES = ("twin", "hardware", "archive")
#: Rig-file keys the room's hardware source needs (section, key): the arm's drive train.
RIG_REQUIRED_KEYS: tuple[tuple[str, str], ...] = (("rig", "robot"), ("ethercat", "interface"), ("rig", "twin"),
                                                  ("arm", "gear_ratio"))


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
    if source not in ("twin", "archive"):
        raise SourceError(f"{SLUG}: a notebook's recordings come from the twin or a release, not {source!r} (the "
                          "campaign's days through the rig are made by the pipeline's recording rule: "
                          "paperlib reproduce industrial --source hardware --rig-config RIG --emulate-rig)")
    return RecordingSource(SLUG, results_dir, source, archive)


def hardware_check(run_config: Mapping[str, Any], args: Any) -> None:
    """``paperlib reproduce``'s check of ``--source hardware``: the arm's rig file, emulated only.

    Raises
    ------
    RigUnavailable
        No rig file or one without :data:`RIG_REQUIRED_KEYS`, a rig file of another twin than the
        campaign's, no ``--emulate-rig``, or emulated devices that cannot be brought up.
    """
    from paperlib.experiments.kit.rig_config import RigUnavailable, load_rig_config
    from paperlib.experiments.kit.rig_runs import hardware_check as kit_check

    if getattr(args, "source", None) != "hardware":
        return
    if not getattr(args, "emulate_rig", False):
        raise RigUnavailable(f"{SLUG}: --source hardware records the campaign's days through the emulated arm only "
                             "(add --emulate-rig, as root): the campaign's arm controller is not an open EtherCAT "
                             "segment")
    kit_check(SLUG, args, RIG_REQUIRED_KEYS, "the TX40 campaign twin")
    cfg = load_rig_config(args.rig_config, RIG_REQUIRED_KEYS)
    if cfg["rig"]["twin"] != "tx40_campaign":
        raise RigUnavailable(f"{SLUG}: rig {args.rig_config} runs the twin {cfg['rig']['twin']!r}, not the thermal "
                             "campaign's 'tx40_campaign' (config/rigs/tx40_thermal.toml)")
