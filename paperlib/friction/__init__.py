"""Friction laws: one layer shared by the twins, the estimators, the controllers and the figures.

Every law follows :class:`~paperlib.friction.base.FrictionLaw` (torque of velocity and
temperature, its velocity derivative) and, when it is linear in its parameters,
:class:`~paperlib.friction.base.LinearFrictionLaw` (regressor columns). Sign convention, used by
every module here: the returned torque *resists* the motion, so a positive coefficient
dissipates energy (``tau_F * v >= 0``).

Modules
-------
``base``        the protocols and small shared helpers
``polynomial``  the paper-000 polynomials of Table 4 and their compiled regressor row (eqs. 8-13)
``kostic``      the exponential (tanh) law of Kostic et al. used by paper 002 (nonlinear in m)
``coulomb_viscous``  Coulomb + viscous (the first-order odd polynomial, as a law object)
``lugre``       Stribeck level, shear-thinning viscous term, thermal scaling and LuGre dynamics
                (the twins' truth; compiled scalar kernels plus :class:`StribeckLaw`, :class:`LuGreLaw`)
"""

from paperlib.friction.base import FrictionLaw, LinearFrictionLaw
from paperlib.friction.coulomb_viscous import CoulombViscous
from paperlib.friction.kostic import KosticLaw
from paperlib.friction.lugre import LuGreLaw, StribeckLaw
from paperlib.friction.polynomial import (
    SIDE_NEGATIVE,
    SIDE_POSITIVE,
    SIDE_SYMMETRIC,
    TABLE4,
    FrictionModel,
    friction_regressor,
    shape_function,
    sum_rows,
    table4_model,
)

__all__ = [
    "CoulombViscous",
    "LuGreLaw",
    "StribeckLaw",
    "FrictionLaw",
    "KosticLaw",
    "LinearFrictionLaw",
    "SIDE_NEGATIVE",
    "SIDE_POSITIVE",
    "SIDE_SYMMETRIC",
    "TABLE4",
    "FrictionModel",
    "friction_regressor",
    "shape_function",
    "sum_rows",
    "table4_model",
]
