"""The schema of ``config/mems.yaml`` (checked when the room's configuration is loaded).

The allowed values are written out here so that declaring the room imports nothing heavy; the
room's tests hold them equal to :data:`paperlib.experiments.mems.sources.SOURCES` and
:data:`paperlib.recordings.storage.KEEP_MODES`.
"""

from __future__ import annotations

from paperlib.experiments.kit.config import Key, Schema

NONE = type(None)

SCHEMA = Schema({
    "source": Key(str, allowed=("archive", "twin", "hardware")),
    "rig_config": Key((str, NONE)),
    "use_archive": Key(bool),
    "registry": Key(str),
    "results_dir": Key(str),
    "figures_dir": Key(str),
    "formats": Key(list, items=str),
    "recording_storage": Key(str, allowed=("analysis", "full")),
    "float32_channels": Key(list, items=str),
    "sweep": Key((str, NONE)),
    "sensitivity": Key((str, NONE)),
    "recordings": Key(dict, values=Key(dict)),   # name -> run spec (keys checked by pipeline.normalise_config)
    "notebooks": Key(dict, values=Key(dict)),    # notebook -> its settings
})
