"""Paper 004's headline numbers (``../shared/papers/README.md``) as comparison rows.

Built by ``python -m paperlib.comparison --paper bearing ...`` (rules/bearing.smk) from the
results of ``notebooks/bearing/01_intrinsic_identification`` and ``02_bearing_inspection``.
The paper reports Fig. 3c's components under its own (unstated) split of the offset and the
Coulomb levels; the basis cannot identify that split (NOTES.md), so besides the paper's four
numbers the table compares the split-free sums offset + friction at the extremes.
"""

from __future__ import annotations

from typing import Any, Mapping

from paperlib.comparison import Headline, dig as _dig

__all__ = ["HEADLINES", "TITLE"]

TITLE = "Reproduced vs published headline numbers (paper 004: joint intrinsic dynamics, wheel-bearing inspection)"

_NB1 = "01_intrinsic_identification"
_NB2 = "02_bearing_inspection"
_CAL = "the twin's intrinsic levels were set to the paper's Fig. 3c by construction, so agreement is not evidence"
_SPLIT = ("the basis cannot tell a sensor offset from asymmetric Coulomb levels (one exact null direction); "
          "this row uses the stated standstill convention, the paper an unstated one")
#: Why the split-dependent rows sit only within a factor 1.5-2 of the paper (issue 27's grading; they
#: agreed under the old factor-2 rule): the standstill convention makes the Coulomb levels symmetric.
_SYM = ("in the standstill convention the identified Coulomb levels are symmetric: the twin's asymmetric ones "
        "(0.055 / 0.15 N m, docs/bearing.md) become about +/-0.10 N m and the offset takes the difference "
        "(-0.12 - (0.15 - 0.055) / 2 = -0.17 N m), while the paper's split keeps Fig. 3c's asymmetric -0.3 / +0.1 N m")


def _pct(*path: Any):
    g = _dig(*path)

    def get(r: Mapping[str, Any]) -> float | None:
        v = g(r)
        return None if v is None else 100.0 * float(v)
    return get


def _mean_dev(r: Mapping[str, Any]) -> float | None:
    dev = (r.get("trials") or {}).get("deviation")
    if not dev:
        return None
    vals = [v["most_negative_deviation_before_Nm"] for v in dev.values()]
    return sum(vals) / len(vals)


HEADLINES: list[Headline] = [
    Headline("offset", "torque-sensor offset tau_o (Fig. 3c)", "7", -0.1189, "approx", "N m", _NB1,
             _dig("paper_compare", "offset_Nm"), _SPLIT + "; " + _SYM + "; " + _CAL, calibrated=True),
    Headline("ripple_amplitude", "ripple amplitude (+/-, Fig. 3c)", "7", 0.2, "approx", "N m", _NB1,
             _dig("paper_compare", "ripple_amplitude_Nm"), _CAL, calibrated=True),
    Headline("friction_min", "friction torque, minimum (Fig. 3c)", "7", -0.3, "approx", "N m", _NB1,
             _dig("paper_compare", "friction_min_Nm"), _SPLIT + "; " + _SYM + "; " + _CAL, calibrated=True),
    Headline("friction_max", "friction torque, maximum (Fig. 3c)", "7", 0.1, "approx", "N m", _NB1,
             _dig("paper_compare", "friction_max_Nm"), _SPLIT + "; " + _SYM + "; " + _CAL, calibrated=True),
    Headline("offset_plus_friction_min", "offset + friction, minimum (split-free; paper -0.119 - 0.3)", "7", -0.419,
             "approx", "N m", _NB1, _dig("paper_compare", "offset_plus_friction_min_Nm"),
             "split-free, but the twin's negative friction (Coulomb 0.15 N m, breakaway 0.2 N m, docs/bearing.md) "
             "is set below the paper's 0.3 N m, so offset + friction at the minimum is about -0.3 N m against the "
             "paper's -0.42 (why the twin was set so is not recorded); " + _CAL, calibrated=True),
    Headline("offset_plus_friction_max", "offset + friction, maximum (split-free; paper -0.119 + 0.1)", "7", -0.019,
             "approx", "N m", _NB1, _dig("paper_compare", "offset_plus_friction_max_Nm"),
             "the paper's value is a difference of two rounded numbers, so the ratio means little; " + _CAL,
             calibrated=True),
    Headline("inertia", "inertia torque tau_i, largest magnitude (paper: about 0)", "7", 0.05, "upper_bound", "N m",
             _NB1, _dig("paper_compare", "inertia_max_abs_Nm"),
             "the paper says only 'about 0 N m'; the bound 0.05 N m (a quarter of the ripple amplitude) is our reading"),
    Headline("rms_before", "RMS error vs load cell before compensation (mean of 3 trials)", "7", 27.0, "percent", "%",
             _NB2, _pct("trials", "rms_error_before_mean"),
             "the twin's intrinsic levels come from Fig. 3c and its good bearing needs about 0.9 N m (assumed, "
             "about what Fig. 5 shows), so this ratio is close to the paper's by construction", calibrated=True),
    Headline("rms_after", "RMS error vs load cell after compensation (mean of 3 trials)", "7", 11.0, "percent", "%",
             _NB2, _pct("trials", "rms_error_after_mean"),
             "what the twin leaves unmodelled (Stribeck dip, load-dependent output friction, sensor drift and noise) "
             "costs less than on the real rig; which effects make the paper's 11 % is unknown"),
    Headline("max_deviation_before", "largest deviation of the sensor below the load cell, before (Fig. 5b)", "7", -0.7,
             "approx", "N m", _NB2, _mean_dev, _CAL, calibrated=True),
    Headline("fewer_false_rejects", "compensation rejects fewer good bearings (Sec. 4.2)", "-", True, "choice", "-",
             _NB2, _dig("fewer_good_rejected_with_compensation")),
]
