"""The protocols every friction law of :mod:`paperlib.friction` follows.

A law maps joint velocity ``v`` [rad/s] (any shape) and, optionally, a temperature
``temperature_C`` [degC] (broadcastable to ``v``) to the friction torque [N m] that *resists*
the motion (``torque(v) * v >= 0`` for a dissipative law). Laws with internal state (LuGre)
expose their steady-state curve through the same methods.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class FrictionLaw(Protocol):
    """A friction torque as a function of velocity (and temperature)."""

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Friction torque [N m] resisting the motion, same shape as ``v`` [rad/s]."""
        ...

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Derivative of :meth:`torque` with respect to ``v`` [N m s/rad], same shape as ``v``."""
        ...


@runtime_checkable
class LinearFrictionLaw(FrictionLaw, Protocol):
    """A law linear in its parameters: ``torque(v) = regressor(v) @ params``."""

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the parameters, in column order."""
        ...

    def regressor(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Columns of the law, shape ``v.shape + (n_params,)``, such that ``torque = columns @ params``."""
        ...
