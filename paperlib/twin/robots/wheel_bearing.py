"""Wheel bearings for the inspection twin: seal drag + rolling friction by quality grade.

A wheel bearing (double-row angular-contact hub unit) turned slowly resists with

* **seal drag** ``M_seal`` [N m]: the contact seals, nearly independent of speed;
* **rolling friction** after Palmgren: a load-dependent part ``M_1`` [N m] and a lubricant
  (viscous) part that grows with speed; here a Stribeck-like law with a viscous slope
  ``c_v`` [N m s/rad] stands for it;
* in a **worn** bearing, raceway damage adds torque that repeats at the ball-pass order
  (non-integer cycles per revolution of the ring), ``a (1 + cos(k phi + p))`` [N m].

The grades' distributions are **assumed** (chosen so that a good unit needs ~1 N m, about what
the paper's Fig. 5 shows, and a worn one needs more, with some overlap); they are not
measured data. :func:`population` draws a reproducible set of bearings of one grade.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from paperlib.friction.stribeck import StribeckLaw
from paperlib.twin.guard import twin_run

__all__ = ["WheelBearing", "GRADES", "population"]


@dataclass(frozen=True)
class WheelBearing:
    """One bearing (units in the names).

    Attributes
    ----------
    grade : str
        ``"good"`` or ``"worn"``.
    seal_drag_Nm, rolling_Nm : float
        Seal drag and load-dependent rolling torque [N m].
    breakaway_extra_Nm : float
        Extra torque at breakaway [N m] (Stribeck dip).
    viscous : float
        Lubricant slope [N m s/rad].
    roughness_Nm : float
        Amplitude of the raceway-damage torque [N m] (0 for a good bearing).
    ball_pass_order : float
        Its order per ring revolution.
    roughness_phase_rad : float
    ring_inertia, adapter_inertia : float
        Ring + hub flange beyond the load cell, and adapter between grasp and load cell [kg m^2].
    """

    grade: str
    seal_drag_Nm: float
    rolling_Nm: float
    breakaway_extra_Nm: float
    viscous: float
    roughness_Nm: float = 0.0
    ball_pass_order: float = 7.4
    roughness_phase_rad: float = 0.0
    ring_inertia: float = 0.004
    adapter_inertia: float = 0.002
    smoothing_velocity: float = 0.02

    def friction_law(self) -> StribeckLaw:
        """Speed-dependent part (seal + rolling + lubricant) as a symmetric Stribeck law."""
        level = self.seal_drag_Nm + self.rolling_Nm
        return StribeckLaw(level, level, level + self.breakaway_extra_Nm, level + self.breakaway_extra_Nm,
                           stribeck_velocity=0.1, stribeck_exponent=2.0, viscous=self.viscous,
                           smoothing_velocity=self.smoothing_velocity)

    def roughness_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.roughness_Nm <= 0:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        return (np.array([self.ball_pass_order]), np.array([self.roughness_Nm]),
                np.array([self.roughness_phase_rad]))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: grade -> (mean, std) of each drawn quantity [N m or N m s/rad]; assumed.
GRADES: dict[str, dict[str, tuple[float, float]]] = {
    "good": {"seal_drag_Nm": (0.55, 0.06), "rolling_Nm": (0.2, 0.04), "viscous": (0.15, 0.03),
             "roughness_Nm": (0.0, 0.0)},
    "worn": {"seal_drag_Nm": (0.55, 0.06), "rolling_Nm": (0.36, 0.08), "viscous": (0.2, 0.04),
             "roughness_Nm": (0.06, 0.03)},
}


@twin_run
def population(grade: str, n: int, seed: int) -> list[WheelBearing]:
    """``n`` bearings of one grade, drawn reproducibly from :data:`GRADES`.

    Parameters
    ----------
    grade : {"good", "worn"}
    n : int
    seed : int

    Returns
    -------
    list of WheelBearing
    """
    if grade not in GRADES:
        raise ValueError(f"population: grade must be one of {sorted(GRADES)}, got {grade!r}")
    rng = np.random.default_rng(seed)
    g = GRADES[grade]
    out = []
    for _ in range(n):
        draw = {k: max(0.0, rng.normal(m, s)) for k, (m, s) in g.items()}
        out.append(WheelBearing(grade=grade, breakaway_extra_Nm=0.1 * draw["seal_drag_Nm"],
                                roughness_phase_rad=float(rng.uniform(0, 2 * np.pi)),
                                ball_pass_order=float(rng.uniform(7.2, 7.6)), **draw))
    return out
