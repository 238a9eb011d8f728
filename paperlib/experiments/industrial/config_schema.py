"""The schema of ``config/industrial.yaml`` (checked when the room's configuration is loaded)."""

from __future__ import annotations

from paperlib.experiments.kit.config import Key, Schema

SCHEMA = Schema({
    # papermill parameters of notebooks/industrial/01_tx40_identification.ipynb
    "tx40_identification": Key(dict, schema=Schema({
        "cutoff_hz": Key(float),
        "decimate": Key(int),
        "v_gate": Key(float),
        "holdout_fraction": Key(float),
        "sweep_cutoffs_hz": Key(list, items=float),
        "sweep_gates": Key(list, items=float),
    })),
    "thermal_campaign": Key(dict, schema=Schema({
        "recording_storage": Key(str, allowed=("analysis", "full")),
        "float32_channels": Key(list, items=str),
    })),
})
