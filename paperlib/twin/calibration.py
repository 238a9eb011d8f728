"""The calibrated values of a twin file: its optional ``[calibration]`` table.

A twin's numbers are assumed: the papers give none of them. Where a quantity the paper does
publish pins some of them (issue 28: calibrate the unpublished parameters behind a published
quantity by a stated rule, never to a headline number), the twin file says so in one table, and
the loader applies it on top of the assumed design values, which stay in the file as they were::

    [calibration]
    status = "calibrated"
    published = "..."                      # the published quantity, with its place in the paper
    rule = "..."                           # how the values below were found (a script, its inputs)
    reason = "..."
    joints = ["joint1", "joint2"]          # friction joints the values apply to, in this order
    friction_level_factor = [1.1, 0.9]     # L per joint [-]
    ripple_relative = [0.4, 0.6]           # a per joint [-]
    ripple_cycles_per_joint_rev = 10.0     # k [-]

* ``friction_level_factor`` L multiplies the joint's Coulomb, static and viscous levels and its
  bristle stiffness, and its bristle damping by sqrt(L) (so the presliding displacement and the
  presliding mode's damping ratio stay as designed). Gearbox N of ``[thermal]`` belongs to joint
  N: its capacities, conductances and design power are multiplied by L too, so L times the
  friction heat gives the same time constants and temperatures.
* ``ripple_relative`` a and ``ripple_cycles_per_joint_rev`` k give the joint's friction a
  position ripple, ``x (1 + a sin(k phi))`` (:func:`paperlib.twin.plant.friction_torques`).

:func:`apply` returns the effective document (a copy) and the ripples; the loader
(:func:`paperlib.twin.drives.twin_params_from_doc`) checks the effective values with the same
ranges as the file's.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Mapping

__all__ = ["CalibrationError", "apply", "LEVEL_KEYS", "THERMAL_KEYS"]

#: Keys of a ``[friction.jointN]`` table that scale with the level factor L (the damping as sqrt(L)).
LEVEL_KEYS = ("coulomb_Nm", "static_Nm", "viscous_Nm_s_per_rad", "bristle_stiffness_Nm_per_rad")
#: Keys of a ``[thermal.gearboxN]`` table that scale with L.
THERMAL_KEYS = ("inner_capacity_J_per_K", "case_capacity_J_per_K", "inner_case_conductance_W_per_K",
                "case_ambient_conductance_W_per_K", "inner_ambient_conductance_W_per_K", "design_power_W")
_TEXT = ("status", "published", "rule", "reason")
_LISTS = {"friction_level_factor": (0.2, 5.0), "ripple_relative": (0.0, 0.9)}
_K_RANGE = (0.5, 1000.0)


class CalibrationError(ValueError):
    """A ``[calibration]`` table that cannot be applied (the message names the key)."""


def _numbers(t: Mapping[str, Any], key: str, n: int, lo: float, hi: float) -> list[float]:
    v = t.get(key)
    if not isinstance(v, list) or len(v) != n:
        raise CalibrationError(f"[calibration] {key} must list one number per joint ({n}), not {v!r}")
    out = []
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not lo <= x <= hi:
            raise CalibrationError(f"[calibration] {key}: {x!r} is not a number in [{lo}, {hi}]")
        out.append(float(x))
    return out


def apply(doc: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[float, float]]]:
    """The twin document with its ``[calibration]`` applied, and the friction ripples it gives.

    Parameters
    ----------
    doc : mapping
        A parsed twin file (``TwinParams.raw`` layout).

    Returns
    -------
    effective : dict
        A deep copy with the calibrated levels in its ``[friction.jointN]`` and
        ``[thermal.gearboxN]`` tables (the document itself when it has no ``[calibration]``).
    ripples : dict
        joint name -> (a, k): relative amplitude [-] and cycles per joint revolution [-].

    Raises
    ------
    CalibrationError
        A missing or unknown key, a status other than ``calibrated``, a value out of range, a
        joint the file does not have.
    """
    if "calibration" not in doc:
        return dict(doc), {}
    t = doc["calibration"]
    if not isinstance(t, Mapping):
        raise CalibrationError("[calibration] must be a table")
    unknown = sorted(set(t) - set(_TEXT) - set(_LISTS) - {"joints", "ripple_cycles_per_joint_rev"})
    if unknown:
        raise CalibrationError(f"[calibration] unknown keys {unknown}")
    if t.get("status") != "calibrated":
        raise CalibrationError("[calibration] status must be 'calibrated'")
    for key in ("published", "rule", "reason"):
        if not str(t.get(key, "")).strip():
            raise CalibrationError(f"[calibration] needs a non-empty {key!r}")
    joints = t.get("joints")
    friction = doc.get("friction", {})
    if not isinstance(joints, list) or not joints or any(j not in friction for j in joints):
        raise CalibrationError(f"[calibration] joints must name [friction] tables, not {joints!r}")
    level = _numbers(t, "friction_level_factor", len(joints), *_LISTS["friction_level_factor"])
    amp = _numbers(t, "ripple_relative", len(joints), *_LISTS["ripple_relative"])
    k = t.get("ripple_cycles_per_joint_rev")
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not _K_RANGE[0] <= k <= _K_RANGE[1]:
        raise CalibrationError(f"[calibration] ripple_cycles_per_joint_rev must be in {list(_K_RANGE)}, not {k!r}")
    out = copy.deepcopy(dict(doc))
    for name, L in zip(joints, level):
        fj = out["friction"][name]
        for key in LEVEL_KEYS:
            fj[key] = float(fj[key]) * L
        fj["bristle_damping_Nm_s_per_rad"] = float(fj["bristle_damping_Nm_s_per_rad"]) * math.sqrt(L)
        gearbox = out.get("thermal", {}).get("gearbox" + name.removeprefix("joint"))
        if gearbox is not None:
            for key in THERMAL_KEYS:
                gearbox[key] = float(gearbox[key]) * L
    return out, {name: (a, float(k)) for name, a in zip(joints, amp)}
