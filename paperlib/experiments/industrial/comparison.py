"""Headline rows of the ``industrial`` room: TX40 friction identified from the real recording beside
published values for that robot (BIRDy's TX40 description; ``identification.LITERATURE``).

Paper 001's robots (EFORT ER3A-C60) are not public and it prints no friction numbers, so the
room's comparable numbers are the TX40's. Rule ``approx``, graded (:data:`paperlib.comparison.GRADES`):
agrees within 25 % of the published value; friction of two units of one robot model, or one unit
years apart, differs by tens of percent (lubricant, temperature, wear), so a row within a factor 1.5
or 2 only says so, with its reason (before issue 27 the rule accepted a factor 2). Table built by ``python -m paperlib.comparison --paper
industrial ...`` (rules/industrial.smk).
"""

from __future__ import annotations

from paperlib.comparison import Headline, dig
from paperlib.experiments.industrial.identification import LITERATURE

__all__ = ["HEADLINES", "TITLE"]

TITLE = "Staubli TX40 friction from its public recording (hardware) vs BIRDy's TX40 description"
NB = "01_tx40_identification"

#: why a row may differ (shown when it does); rows not listed get :data:`_OTHER_UNIT`
_OTHER_UNIT = ("BIRDy's value is for another TX40 unit, trajectory and temperature; friction of two units of one "
               "model differs by tens of percent (lubricant, temperature, wear; not tested here)")
NOTES = {
    "fv6": "compared as the whole qd6 coefficient of joint 6's row (fv6 + fvm6, BIRDy's convention); BIRDy's value "
           "is for another TX40 unit, trajectory and temperature; FIGAROH's identification of this same record gives "
           "0.64, as we do, so the difference is between the robots or their conditions (not tested)",
    "fv5": "compared as fv5 + fvm6 (BIRDy's convention); FIGAROH's identification of this same record gives 1.86, "
           "as we do, so the difference is between the robots or their conditions (not tested)",
    "fs6": "joint 6's Coulomb friction and motor 6's (fsm6) are separated only by the relative motion of joints 5 "
           "and 6; here most of it is assigned to the motor (as in FIGAROH's values, fs6 = 0.28 N m), BIRDy assigns "
           "more to the joint; the split is weakly determined by this record",
    "fvm6": "see fv6: the split between joint-6 and motor-6 viscous friction is weakly determined, and BIRDy's "
            "value is for another TX40 unit",
    "fsm6": "see fs6: the split between joint-6 and motor-6 Coulomb friction is weakly determined, and BIRDy's "
            "value is for another TX40 unit",
}

_B = LITERATURE["birdy"]
HEADLINES: list[Headline] = []
for _j in range(6):
    for _k, _what, _unit in (("fv", "viscous friction", "N m s/rad"), ("fs", "Coulomb friction", "N m")):
        HEADLINES.append(Headline(
            key=f"{_k}{_j + 1}", quantity=f"TX40 {_what}, joint side (WLS)", joint=str(_j + 1), paper=_B[_k][_j],
            kind="approx", unit=_unit, notebook=NB, get=dig("methods", "wls", "fv_total" if _k == "fv" else _k, _j),
            note=NOTES.get(f"{_k}{_j + 1}", _OTHER_UNIT)))
for _k, _what, _unit in (("fvm6", "motor-6 viscous friction (coupled wrist)", "N m s/rad"),
                         ("fsm6", "motor-6 Coulomb friction (coupled wrist)", "N m")):
    HEADLINES.append(Headline(
        key=_k, quantity=f"TX40 {_what}, joint side (WLS)", joint="5-6", paper=_B["coupling"][_k], kind="approx",
        unit=_unit, notebook=NB, get=dig("methods", "wls", "coupling", _k), note=NOTES.get(_k, _OTHER_UNIT)))

# The thermal campaign's rows (paper 001's own headline numbers, on the TX40 twin).
from paperlib.experiments.industrial.thermal_comparison import headlines as _thermal_headlines  # noqa: E402

HEADLINES += _thermal_headlines()
