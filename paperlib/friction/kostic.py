"""The exponential friction law of Kostic et al. (paper 002, eq. 38)::

    f(v) = k_v v + sum_{n=1,2} f_n (1 - 2 / (1 + exp(2 m_n v)))
         = k_v v + f_1 tanh(m_1 v) + f_2 tanh(m_2 v)

``v`` is the joint velocity [rad/s], ``f`` the friction torque [N m] resisting the motion.
The two tanh terms smooth the Coulomb step (large ``m``) and, with an opposite sign and a
smaller ``m``, model the Stribeck drop from breakaway to Coulomb level.

Symmetries. ``tanh`` is odd, so ``(f_n, m_n) -> (-f_n, -m_n)`` leaves the law unchanged, and
the two terms can swap labels: eight parameter vectors give every curve (the paper's Table 2,
with negative ``m``'s, is one of them). Compare *curves*, not raw parameters; or map both
sides to the canonical form of :meth:`KosticLaw.canonical` (``m_1 >= m_2 >= 0``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["KosticLaw", "PARAM_NAMES", "tanh_term"]

#: Parameter order of one joint, as in the paper's Table 2.
PARAM_NAMES: tuple[str, ...] = ("k_v", "f_1", "f_2", "m_1", "m_2")


def tanh_term(v: np.ndarray, m: float | np.ndarray) -> np.ndarray:
    """``1 - 2 / (1 + exp(2 m v)) = tanh(m v)`` without overflow."""
    return np.tanh(np.multiply(m, v))


@dataclass(frozen=True)
class KosticLaw:
    """One joint's Kostic law (a :class:`~paperlib.friction.base.FrictionLaw`).

    Attributes
    ----------
    k_v : float
        Viscous coefficient [N m s/rad].
    f_1, f_2 : float
        Levels of the two exponential (tanh) terms [N m].
    m_1, m_2 : float
        Their steepness [s/rad].
    """

    k_v: float
    f_1: float
    f_2: float
    m_1: float
    m_2: float

    param_names = PARAM_NAMES

    @property
    def params(self) -> np.ndarray:
        """``[k_v, f_1, f_2, m_1, m_2]`` (5,)."""
        return np.array([self.k_v, self.f_1, self.f_2, self.m_1, self.m_2])

    @classmethod
    def from_params(cls, params: np.ndarray) -> "KosticLaw":
        """From ``[k_v, f_1, f_2, m_1, m_2]``."""
        p = np.asarray(params, dtype=float).ravel()
        if p.shape != (5,):
            raise ValueError(f"a Kostic law has 5 parameters (k_v, f_1, f_2, m_1, m_2); got {p.shape}")
        return cls(*(float(x) for x in p))

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Friction torque [N m] resisting the motion, same shape as ``v`` [rad/s] (no temperature term)."""
        v = np.asarray(v, dtype=float)
        return self.k_v * v + self.f_1 * tanh_term(v, self.m_1) + self.f_2 * tanh_term(v, self.m_2)

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Slope [N m s/rad]: ``k_v + sum f_n m_n sech^2(m_n v)``."""
        v = np.asarray(v, dtype=float)
        out = np.full(v.shape, self.k_v)
        for f, m in ((self.f_1, self.m_1), (self.f_2, self.m_2)):
            out = out + f * m * (1.0 - np.tanh(m * v) ** 2)
        return out

    def canonical(self) -> "KosticLaw":
        """The same curve with ``m_1 >= m_2 >= 0`` (sign flips ``(f, m) -> (-f, -m)``, label swap)."""
        terms = [(self.f_1, self.m_1), (self.f_2, self.m_2)]
        terms = [(-f, -m) if m < 0 else (f, m) for f, m in terms]
        terms.sort(key=lambda t: -t[1])
        return KosticLaw(self.k_v, terms[0][0], terms[1][0], terms[0][1], terms[1][1])
