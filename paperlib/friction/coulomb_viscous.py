"""Coulomb + viscous friction, ``tau_F = Fc sign(v) + Fv v``: the classical two-parameter law.

Linear in its parameters (a :class:`~paperlib.friction.base.LinearFrictionLaw`); it is the
first-order odd polynomial of :mod:`paperlib.friction.polynomial` and evaluates through the same
shape function, so the two can never disagree. Paper 002 uses it as the baseline against the
Kostic law.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperlib.friction.polynomial import SIDE_SYMMETRIC, _shape_np

__all__ = ["CoulombViscous"]


@dataclass(frozen=True)
class CoulombViscous:
    """``tau_F(v) = coulomb_Nm sign(v) + viscous_Nm_s_per_rad v`` [N m], resisting the motion.

    Attributes
    ----------
    coulomb_Nm : float
        Coulomb level Fc [N m].
    viscous_Nm_s_per_rad : float
        Viscous coefficient Fv [N m s/rad].
    """

    coulomb_Nm: float = 0.0
    viscous_Nm_s_per_rad: float = 0.0

    param_names = ("coulomb_Nm", "viscous_Nm_s_per_rad")

    @property
    def params(self) -> np.ndarray:
        return np.array([self.coulomb_Nm, self.viscous_Nm_s_per_rad])

    @classmethod
    def from_params(cls, params: np.ndarray) -> "CoulombViscous":
        fc, fv = (float(x) for x in np.asarray(params, dtype=float))
        return cls(fc, fv)

    def regressor(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Columns ``[sign(v), v]``, shape ``v.shape + (2,)`` (temperature-independent)."""
        v = np.asarray(v, dtype=float)
        return np.stack([_shape_np(v, 0, SIDE_SYMMETRIC), _shape_np(v, 1, SIDE_SYMMETRIC)], axis=-1)

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Friction torque [N m], same shape as ``v``."""
        return self.regressor(v) @ self.params

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Slope ``Fv`` [N m s/rad] (the Coulomb step at v = 0 is left out)."""
        return np.full(np.shape(v), self.viscous_Nm_s_per_rad)
