"""What an emulated drive's axes move: the plant protocol, a rigid inertia with friction, and plants from a config.

Part of the emulated rig devices (:mod:`paperlib.hardware.emulators.devices`, which re-exports it).
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Protocol, Sequence

import numpy as np

__all__ = ["Plant", "InertiaPlant", "make_plant"]

class Plant(Protocol):
    """What the drive's axes move.

    ``step`` is called on every process-data exchange (and on idle ticks) with the motor
    torques the drive applies [N m] and the time since the previous call [s] (0 on the first
    call, which must return the initial state).
    """

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance by ``dt``; return (position [rad], velocity [rad/s], torque actual [N m]), shape (2,)."""
        ...


class InertiaPlant:
    """Default plant: two independent rigid inertias with viscous (and optional Coulomb) friction.

    ``J qdd = tau - b qd - fc sign(qd)``; the viscous part is integrated exactly over ``dt``
    (constant torque over the step), the Coulomb part semi-implicitly with stiction at rest.

    Parameters
    ----------
    inertia : sequence of float
        Rotor-side inertias [kg m^2].
    viscous : sequence of float
        Viscous friction coefficients [N m s/rad] (> 0).
    coulomb : sequence of float
        Coulomb friction torques [N m].
    q0 : sequence of float
        Initial positions [rad].
    """

    def __init__(
        self,
        inertia: Sequence[float] = (5e-4, 5e-4),
        viscous: Sequence[float] = (2e-3, 2e-3),
        coulomb: Sequence[float] = (0.0, 0.0),
        q0: Sequence[float] = (0.0, 0.0),
    ) -> None:
        self.J = [float(v) for v in inertia]
        self.b = [float(v) for v in viscous]
        self.fc = [float(v) for v in coulomb]
        self.q = [float(v) for v in q0]
        self.qd = [0.0] * len(self.q)
        self.tau = [0.0] * len(self.q)
        if min(self.J) <= 0 or min(self.b) <= 0:
            raise ValueError("inertia and viscous friction must be positive")

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance by ``dt`` [s] under ``torque_Nm`` [N m]; see :class:`Plant`.

        Plain float arithmetic per axis (this runs at every process-data cycle of the emulator).
        """
        for k in range(len(self.q)):
            tau = float(torque_Nm[k])
            self.tau[k] = tau
            if dt <= 0.0:
                continue
            w0, J, b, fc = self.qd[k], self.J[k], self.b[k], self.fc[k]
            if w0 == 0.0 and abs(tau) <= fc:
                continue  # stiction
            drive = tau - (fc if w0 > 0.0 else -fc if w0 < 0.0 else math.copysign(fc, tau))
            a = math.exp(-b * dt / J)
            w_inf = drive / b
            w1 = w_inf + (w0 - w_inf) * a
            self.q[k] += w_inf * dt + (w0 - w_inf) * (J / b) * (1.0 - a)
            # Coulomb friction must not reverse the motion within a step
            if fc > 0.0 and w0 != 0.0 and (w1 > 0.0) != (w0 > 0.0):
                w1 = 0.0
            self.qd[k] = w1
        return np.array(self.q), np.array(self.qd), np.array(self.tau)


def make_plant(spec: dict[str, Any] | None, n_axes: int = 2) -> Plant:
    """Build a plant from a config: ``{"factory": "module:callable", "kwargs": {...}}`` or InertiaPlant kwargs.

    An :class:`InertiaPlant`'s arguments not given are its defaults repeated for ``n_axes`` axes.
    """
    spec = dict(spec or {})
    factory = spec.pop("factory", None)
    if factory:
        module, _, attr = str(factory).partition(":")
        fn = getattr(importlib.import_module(module), attr)
        return fn(**spec.get("kwargs", {}))
    for key, value in (("inertia", 5e-4), ("viscous", 2e-3), ("coulomb", 0.0), ("q0", 0.0)):
        spec.setdefault(key, (value,) * n_axes)
    return InertiaPlant(**spec)
