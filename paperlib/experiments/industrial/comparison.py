"""Headline rows of the ``industrial`` room: TX40 friction identified from the real recording beside
published values for that robot (BIRDy's TX40 description; ``identification.LITERATURE``).

Paper 001's robots (EFORT ER3A-C60) are not public and it prints no friction numbers, so the
room's comparable numbers are the TX40's. Rule ``approx``: agrees when ours / published is in
[0.5, 2] (friction of two units of one robot model, or one unit years apart, differs by tens of
percent: lubricant, temperature, wear). Table built by ``python -m paperlib.comparison --paper
industrial ...`` (rules/industrial.smk).
"""

from __future__ import annotations

from paperlib.comparison import Headline, dig
from paperlib.experiments.industrial.identification import LITERATURE

__all__ = ["HEADLINES", "TITLE"]

TITLE = "Staubli TX40 friction from its public recording (hardware) vs BIRDy's TX40 description"
NB = "01_tx40_identification"

#: why a row may differ (shown when it does)
NOTES = {
    "fv6": "compared as the whole qd6 coefficient of joint 6's row (fv6 + fvm6, BIRDy's convention); BIRDy's value "
           "is for another TX40 unit, trajectory and temperature; FIGAROH's identification of this same record gives "
           "0.64, as we do, so the difference is between the robots or their conditions (not tested)",
    "fv5": "compared as fv5 + fvm6 (BIRDy's convention); FIGAROH's identification of this same record gives 1.86, "
           "as we do, so the difference is between the robots or their conditions (not tested)",
    "fs6": "joint 6's Coulomb friction and motor 6's (fsm6) are separated only by the relative motion of joints 5 "
           "and 6; here most of it is assigned to the motor (as in FIGAROH's values, fs6 = 0.28 N m), BIRDy assigns "
           "more to the joint; the split is weakly determined by this record",
    "fvm6": "see fv6: the split between joint-6 and motor-6 viscous friction is weakly determined",
    "fsm6": "see fs6: the split between joint-6 and motor-6 Coulomb friction is weakly determined",
}

_B = LITERATURE["birdy"]
HEADLINES: list[Headline] = []
for _j in range(6):
    for _k, _what, _unit in (("fv", "viscous friction", "N m s/rad"), ("fs", "Coulomb friction", "N m")):
        HEADLINES.append(Headline(
            key=f"{_k}{_j + 1}", quantity=f"TX40 {_what}, joint side (WLS)", joint=str(_j + 1), paper=_B[_k][_j],
            kind="approx", unit=_unit, notebook=NB, get=dig("methods", "wls", "fv_total" if _k == "fv" else _k, _j),
            note=NOTES.get(f"{_k}{_j + 1}", "unknown")))
for _k, _what, _unit in (("fvm6", "motor-6 viscous friction (coupled wrist)", "N m s/rad"),
                         ("fsm6", "motor-6 Coulomb friction (coupled wrist)", "N m")):
    HEADLINES.append(Headline(
        key=_k, quantity=f"TX40 {_what}, joint side (WLS)", joint="5-6", paper=_B["coupling"][_k], kind="approx",
        unit=_unit, notebook=NB, get=dig("methods", "wls", "coupling", _k), note=NOTES.get(_k, "unknown")))
