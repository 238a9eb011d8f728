"""The schema of ``config/textbook.yaml`` (checked when the room's configuration is loaded)."""

from __future__ import annotations

from paperlib.experiments.kit.config import Key, Schema

SCHEMA = Schema({
    # lesson -> its outputs (figure and view stems) and optional parameter overrides
    "notebooks": Key(dict, required=True, values=Schema({
        "figures": Key(list, items=str),
        "views": Key(list, items=str),
        "params": Key(dict),
    })),
    "book": Key(dict, schema=Schema({"papers": Key(str, allowed=("all", "existing"))})),
})
