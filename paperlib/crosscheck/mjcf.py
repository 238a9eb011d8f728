"""What the MuJoCo models of :mod:`paperlib.crosscheck` share: their options and the MJCF header.

:class:`MjcfOptions` holds the simulator settings (step, integrator, the closures' constraint
softness, solver, gravity, MuJoCo's own joint friction); :func:`header` writes the model's
``<compiler>`` and ``<option>`` elements from them, :func:`closure_attrs` the ``solref`` /
``solimp`` of an equality constraint. Every model here is planar with vertical hinges, has no
contacts, and sets its inertias explicitly (``inertiafromgeom = false``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["POINT_INERTIA_KG_M2", "MjcfOptions", "fmt", "header", "closure_attrs"]

#: Rotational inertia of the end point's point mass [kg m^2] (MuJoCo wants a positive value).
POINT_INERTIA_KG_M2 = 1e-12


class MjcfOptions(dict):
    """Simulator settings of the MJCF model (a dict; keys below, SI units).

    ``timestep_s`` : MuJoCo's step [s]; ``integrator`` : "RK4", "implicit", "implicitfast" or "Euler";
    ``solref`` : (time constant [s], damping ratio) of the closure constraint (MuJoCo forbids a time
    constant below 2 steps); ``solimp`` : (d0, dwidth, width [m], midpoint, power) of its impedance;
    ``tolerance``, ``iterations`` : the Newton solver's; ``gravity_m_s2`` : magnitude along -z (None: the
    robot file's ``robot.gravity_m_s2``; the hinges are vertical, so gravity does no work either way);
    ``frictionloss_Nm``, ``damping_Nm_s_per_rad`` : MuJoCo's own joint friction (a dry-friction
    constraint with the closure's ``solref``) and viscous damping per joint of the 5R model
    (:data:`paperlib.crosscheck.mjcf_five_bar.JOINTS`, 4 values; only its builder reads them), zero by
    default (the cross-check applies the compendium's friction law as forces instead).
    """

    DEFAULTS: dict[str, Any] = {"timestep_s": 1.0 / 16000.0, "integrator": "RK4", "solref": None,
                                "solimp": (0.9999, 0.9999, 0.001, 0.5, 2.0), "tolerance": 1e-12,
                                "iterations": 50, "gravity_m_s2": None,
                                "frictionloss_Nm": (0.0, 0.0, 0.0, 0.0), "damping_Nm_s_per_rad": (0.0, 0.0, 0.0, 0.0)}

    def __init__(self, **kw: Any) -> None:
        unknown = set(kw) - set(self.DEFAULTS)
        if unknown:
            raise ValueError(f"unknown MJCF options {sorted(unknown)}; known: {sorted(self.DEFAULTS)}")
        super().__init__({**self.DEFAULTS, **kw})
        if self["solref"] is None:
            self["solref"] = (2.0 * float(self["timestep_s"]), 1.0)


def fmt(x: float) -> str:
    """A float as MJCF text (repr: round-trips exactly)."""
    return repr(float(x))




def header(robot: Any, o: MjcfOptions) -> str:
    """``<mujoco>`` opening, ``<compiler>`` and ``<option>`` of a model of ``robot`` with options ``o``.

    Gravity along -z: ``o["gravity_m_s2"]``, or the robot file's ``robot.gravity_m_s2`` when None.
    """
    g = o["gravity_m_s2"]
    g = float(robot.description["robot"].get("gravity_m_s2", 0.0) if g is None else g)
    return (f'<mujoco model="{robot.name}">'
            '<compiler angle="radian" inertiafromgeom="false"/>'
            f'<option timestep="{fmt(o["timestep_s"])}" integrator="{o["integrator"]}" solver="Newton" '
            f'tolerance="{fmt(o["tolerance"])}" iterations="{int(o["iterations"])}" gravity="0 0 {fmt(-g)}">'
            '<flag contact="disable" energy="enable"/></option>')


def closure_attrs(o: MjcfOptions) -> str:
    """``solref`` and ``solimp`` attributes of a closure constraint."""
    tc, zeta = (float(x) for x in o["solref"])
    return f'solref="{fmt(tc)} {fmt(zeta)}" solimp="{" ".join(fmt(x) for x in o["solimp"])}"'
