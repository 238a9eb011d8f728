"""Comparison rows of the thermal campaign (paper 001, Section 3, Table 1, Fig. 13).

:data:`ROWS` are plain data (key, quantity, joint, paper value, kind, unit, path into the results
of ``02_thermal_campaign``, note, calibrated); :func:`headlines` turns them into
:class:`paperlib.comparison.Headline` objects for the room's ``HEADLINES``.
"""

from __future__ import annotations

from typing import Any, Mapping

NOTEBOOK = "02_thermal_campaign"

_CAL = ("the twin's time constants, temperature rises and temperature coefficients were chosen to fall in the "
        "paper's ranges (data/twin/tx40_thermal_campaign.toml), so it sits near the paper by construction (not evidence)")

ROWS: tuple[dict[str, Any], ...] = (
    {"key": "thermal_cold_hot_ratio_max", "quantity": "cold/hot friction ratio at 60 % speed, largest over joints and tests",
     "joint": "-", "paper": 1.7, "kind": "approx", "unit": "-", "path": ("summary", "cold_hot_ratio_max"),
     "note": _CAL + "; the temperature coefficients in particular are calibrated (x0.6) so that the largest "
             "cold/hot ratio of the twin's noise-free friction over a day is the paper's 1.7 ([friction] reason); "
             "the value here is the method's estimate from the noisy days", "calibrated": True},
    {"key": "thermal_t1_median", "quantity": "fast time constant t1 of the double exponential (median)",
     "joint": "-", "paper": 2.5, "kind": "approx", "unit": "min", "path": ("summary", "t1_min_median"),
     "note": _CAL + "; the paper's t1 ranges over 0.24-8.1 min in Table 1 and is poorly determined by 5-min cycles, "
             "in the twin as in the paper; the twin's own t1 (median 2.0 min over its six joints) is already 20 % "
             "below the paper's 2.5",
     "calibrated": True},
    {"key": "thermal_t2_median", "quantity": "slow time constant t2 of the double exponential (median)",
     "joint": "-", "paper": 25.0, "kind": "approx", "unit": "min", "path": ("summary", "t2_min_median"),
     "note": _CAL + "; the twin's own t2 has a median of 24.5 min over its six joints, the recovered median (over "
             "joints and tests) is shorter; why the fit of 5-min cycles shortens t2 is not tested", "calibrated": True},
    {"key": "thermal_steady_cycles", "quantity": "cycles until friction stays within 5 % of its hot level (median)",
     "joint": "-", "paper": 15.0, "kind": "approx", "unit": "cycles", "path": ("summary", "steady_cycles_median"),
     "note": "follows from the calibrated time constants (the paper's 'about 15 cycles' is for the inertial "
             "parameters' steady state, read here on friction)", "calibrated": True},
    {"key": "thermal_gearbox_cold_degC", "quantity": "gearbox temperature at the start of a day, cold (median over joints)",
     "joint": "-", "paper": 15.0, "kind": "approx", "unit": "degC", "path": ("summary", "gearbox_cold_degC_median"),
     "note": "calibrated: the gearboxes start each day at the paper's cold temperature (data/twin/"
             "tx40_thermal_campaign.toml [campaign.start], 15 C, moved by the day's +/- 1 K room spread), while the "
             "room stays at the paper's 20 C (Sec. 2.4); the value read is the twin's inner node at the start of "
             "each healthy day, so it agrees by construction (not evidence)",
     "calibrated": True},
    {"key": "thermal_gearbox_hot_degC_min", "quantity": "gearbox temperature at the end of a day, hot (coolest joint)",
     "joint": "-", "paper": 50.0, "kind": "approx", "unit": "degC", "path": ("summary", "gearbox_hot_degC_min"),
     "note": _CAL + "; the paper: about 50 or 60 C depending on the joint", "calibrated": True},
    {"key": "thermal_gearbox_hot_degC_max", "quantity": "gearbox temperature at the end of a day, hot (warmest joint)",
     "joint": "-", "paper": 60.0, "kind": "approx", "unit": "degC", "path": ("summary", "gearbox_hot_degC_max"),
     "note": _CAL + "; the paper: about 50 or 60 C depending on the joint", "calibrated": True},
    {"key": "thermal_fault_detected", "quantity": "32 % friction step detected with the thermal model (within 10 min, no healthy-day alarm)",
     "joint": "1", "paper": True, "kind": "choice", "unit": "-", "path": ("summary", "fault_detected_thermal"),
     "note": "the 32 % step is injected in the twin as in the paper's Fig. 13; detection itself is measured",
     "calibrated": False},
    {"key": "thermal_fault_separable_no_thermal", "quantity": "the same fault separable from healthy days without the thermal model",
     "joint": "1", "paper": False, "kind": "choice", "unit": "-", "path": ("summary", "fault_separable_no_thermal"),
     "note": "measured on the twin: the cold/hot swing of the healthy days exceeds the fault's 32 %",
     "calibrated": False},
)


def _dig(r: Mapping[str, Any], path: tuple) -> Any:
    cur: Any = r
    for p in path:
        if not isinstance(cur, Mapping) or p not in cur:
            return None
        cur = cur[p]
    return cur


def value(results: Mapping[str, Any], key: str) -> Any:
    """The reproduced value of row ``key`` in a results dict of ``02_thermal_campaign``."""
    row = next(r for r in ROWS if r["key"] == key)
    return _dig(results, row["path"])


def headlines() -> list:
    """The rows as :class:`paperlib.comparison.Headline` (the room's ``HEADLINES``)."""
    from paperlib.comparison import Headline, dig

    return [Headline(key=r["key"], quantity=r["quantity"], joint=r["joint"], paper=r["paper"], kind=r["kind"],
                     unit=r["unit"], notebook=NOTEBOOK, get=dig(*r["path"]), note=r["note"],
                     calibrated=r["calibrated"]) for r in ROWS]
