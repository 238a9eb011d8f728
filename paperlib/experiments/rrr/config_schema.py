"""The schema of ``config/rrr.yaml`` (checked when the room's configuration is loaded)."""

from __future__ import annotations

from paperlib.experiments.kit.config import Key, Schema

NONE = type(None)

SCHEMA = Schema({
    "formats": Key(list, items=str),
    "sensitivity": Key((str, NONE)),
    "notebooks": Key(dict, schema=Schema({
        "01_identification": Key(dict, schema=Schema({"n_starts": Key(int), "seed": Key(int)})),
        "02_tracking": Key(dict, schema=Schema({})),
    })),
})
