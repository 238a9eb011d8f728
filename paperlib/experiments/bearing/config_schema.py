"""The schema of ``config/bearing.yaml`` (checked when the room's configuration is loaded).

The keys are those of :data:`paperlib.experiments.bearing.study.DEFAULTS` and ``formats`` (the
room's tests hold them equal).
"""

from __future__ import annotations

from paperlib.experiments.kit.config import Key, Schema

SCHEMA = Schema({
    "formats": Key(list, items=str),
    "no_load_seeds": Key(list, items=int),
    "trial_seeds": Key(list, items=int),
    "bearing_population_seed": Key(int),
    "bearing_index": Key(int),
    "cutoff_hz": Key(float),
    "display_lowpass_hz": Key(float),
    "n_per_grade": Key(int),
    "tune_seed": Key(int),
    "test_seed": Key(int),
})
