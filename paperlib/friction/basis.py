"""Basis functions of a single joint's intrinsic torque (paper 004, eqs. 7-16), linear in their weights.

The sensed torque of a joint with an integrated torque sensor, turning without load, is
modelled as ``tau = tau_f + tau_i + tau_r + tau_o`` (eq. 15):

``SigmoidCoulomb``  Coulomb friction with the sigmoid basis of eq. 9,
                    ``phi_+ = 1 / (1 + exp(-alpha v))``, ``phi_- = 1 / (1 + exp(alpha v))``
``Viscous``         viscous friction, ``phi_v = v`` (eq. 10)
``HarmonicRipple``  torque ripple, ``cos(k q)``, ``sin(k q)`` for chosen orders ``k`` of the
                    joint angle (eqs. 12-13); the orders need not be integers (a harmonic
                    drive's wave generator turns at the gear ratio)
inertia             ``phi_i = qdd`` (eq. 11)
offset              ``phi_o = 1`` (eq. 14)

:class:`JointTorqueBasis` stacks them into the design matrix of eq. 4 and says which columns
belong to which component (Fig. 3c). The two friction classes follow
:class:`~paperlib.friction.base.LinearFrictionLaw`.

Sign convention (the friction layer's): friction torque *resists* the motion, so
``SigmoidCoulomb`` has the columns ``[phi_+, -phi_-]`` with positive levels
``coulomb_pos``, ``coulomb_neg`` for a dissipative law; the paper's weights are
``w_c+ = coulomb_pos`` and ``w_c- = -coulomb_neg``.

Rank deficiency: ``phi_+ + phi_- = 1``, so with the offset column the basis has one exact null
direction, ``(coulomb_pos, coulomb_neg, offset) -> (+1, -1, -1)`` (:meth:`JointTorqueBasis.null_direction`):
only the per-direction levels ``offset + coulomb_pos`` and ``offset - coulomb_neg`` are
determined by data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SigmoidCoulomb", "Viscous", "HarmonicRipple", "JointTorqueBasis", "sigmoid"]


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Logistic function ``1 / (1 + exp(-x))``, overflow-free, shape of ``x``."""
    x = np.asarray(x, dtype=float)
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class SigmoidCoulomb:
    """Coulomb friction on the sigmoid basis of eq. 9 (a :class:`LinearFrictionLaw`).

    Parameters
    ----------
    alpha : float
        Sharpness [s/rad] of the sigmoids near zero velocity, > 0.
    coulomb_pos, coulomb_neg : float
        Levels [N m] for positive / negative velocity (positive dissipates).
    """

    alpha: float
    coulomb_pos: float = 0.0
    coulomb_neg: float = 0.0

    def __post_init__(self) -> None:
        if not self.alpha > 0:
            raise ValueError(f"SigmoidCoulomb: alpha must be > 0 s/rad, got {self.alpha!r}")

    @property
    def param_names(self) -> tuple[str, ...]:
        return ("coulomb_pos", "coulomb_neg")

    @property
    def params(self) -> np.ndarray:
        return np.array([self.coulomb_pos, self.coulomb_neg])

    def regressor(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        """Columns ``[phi_+(v), -phi_-(v)]``, shape ``v.shape + (2,)``."""
        p = sigmoid(self.alpha * np.asarray(v, dtype=float))
        return np.stack([p, -(1.0 - p)], axis=-1)

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        return self.regressor(v) @ self.params

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        p = sigmoid(self.alpha * np.asarray(v, dtype=float))
        dp = self.alpha * p * (1.0 - p)  # d phi_+/dv; d(-phi_-)/dv = d(phi_+ - 1)/dv = dp
        return dp * (self.coulomb_pos + self.coulomb_neg)


@dataclass(frozen=True)
class Viscous:
    """Viscous friction ``b v`` (eq. 10), a :class:`LinearFrictionLaw`; ``b`` [N m s/rad]."""

    viscous: float = 0.0

    @property
    def param_names(self) -> tuple[str, ...]:
        return ("viscous",)

    def regressor(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        return np.asarray(v, dtype=float)[..., None]

    def torque(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        return self.viscous * np.asarray(v, dtype=float)

    def dtorque_dv(self, v: np.ndarray, temperature_C: np.ndarray | float | None = None) -> np.ndarray:
        return np.full(np.shape(v), float(self.viscous))


def _order_label(k: float) -> str:
    return f"{k:g}"


@dataclass(frozen=True)
class HarmonicRipple:
    """Torque ripple periodic in the joint angle: ``sum_k a_k cos(k q) + b_k sin(k q)`` (eqs. 12-13).

    Parameters
    ----------
    orders : tuple of float
        Orders ``k`` [cycles per joint revolution], > 0, distinct; integers reproduce the paper's
        ``1..n``; other values model ripple at the wave generator's orders.
    cos, sin : tuple of float, optional
        Weights a_k, b_k [N m] (zeros when omitted).
    """

    orders: tuple[float, ...]
    cos: tuple[float, ...] | None = None
    sin: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        o = np.asarray(self.orders, dtype=float)
        if o.ndim != 1 or np.any(~np.isfinite(o)) or np.any(o <= 0) or len(set(o.tolist())) != o.size:
            raise ValueError(f"HarmonicRipple: orders must be distinct positive numbers, got {self.orders!r}")
        for name in ("cos", "sin"):
            w = getattr(self, name)
            if w is not None and len(w) != o.size:
                raise ValueError(f"HarmonicRipple: {name} needs {o.size} weights, got {len(w)}")

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(f"cos_{_order_label(k)}" for k in self.orders) + tuple(
            f"sin_{_order_label(k)}" for k in self.orders)

    @property
    def params(self) -> np.ndarray:
        n = len(self.orders)
        a = np.zeros(n) if self.cos is None else np.asarray(self.cos, float)
        b = np.zeros(n) if self.sin is None else np.asarray(self.sin, float)
        return np.concatenate([a, b])

    def regressor(self, q: np.ndarray) -> np.ndarray:
        """Columns ``[cos(k_1 q) .. cos(k_n q), sin(k_1 q) .. sin(k_n q)]``, shape ``q.shape + (2n,)``."""
        kq = np.asarray(q, dtype=float)[..., None] * np.asarray(self.orders, dtype=float)
        return np.concatenate([np.cos(kq), np.sin(kq)], axis=-1)

    def torque(self, q: np.ndarray) -> np.ndarray:
        """Ripple torque [N m] at joint angles ``q`` [rad]."""
        if not self.orders:
            return np.zeros(np.shape(q))
        return self.regressor(q) @ self.params

    def amplitudes(self) -> np.ndarray:
        """Amplitude ``sqrt(a_k^2 + b_k^2)`` [N m] of each order, shape (n,)."""
        n = len(self.orders)
        p = self.params
        return np.hypot(p[:n], p[n:])


@dataclass(frozen=True)
class JointTorqueBasis:
    """The design matrix of paper 004 (eqs. 4, 16) for one joint.

    Column order: ``coulomb_pos, coulomb_neg`` (sigmoid, eq. 9), ``viscous``, ``inertia``,
    ``cos_k...``, ``sin_k...`` (ripple orders), ``offset``.

    Parameters
    ----------
    alpha : float
        Sigmoid sharpness [s/rad].
    orders : tuple of float
        Ripple orders of the joint angle (may be empty).
    """

    alpha: float
    orders: tuple[float, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        SigmoidCoulomb(self.alpha)
        if self.orders:
            HarmonicRipple(tuple(self.orders))

    @property
    def names(self) -> tuple[str, ...]:
        ripple = HarmonicRipple(tuple(self.orders)).param_names if self.orders else ()
        return ("coulomb_pos", "coulomb_neg", "viscous", "inertia", *ripple, "offset")

    @property
    def n_columns(self) -> int:
        return 5 + 2 * len(self.orders)

    def groups(self) -> dict[str, slice]:
        """Component -> column slice: ``friction``, ``inertia``, ``ripple``, ``offset`` (Fig. 3c)."""
        n = len(self.orders)
        return {"friction": slice(0, 3), "inertia": slice(3, 4), "ripple": slice(4, 4 + 2 * n),
                "offset": slice(4 + 2 * n, 5 + 2 * n)}

    def columns(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Design matrix Phi, shape (N, n_columns), from angle [rad], velocity [rad/s], acceleration [rad/s^2] (N,)."""
        q, qd, qdd = (np.asarray(a, dtype=float).reshape(-1) for a in (q, qd, qdd))
        if not (q.shape == qd.shape == qdd.shape):
            raise ValueError(f"JointTorqueBasis.columns: q, qd, qdd must have one length, got "
                             f"{q.shape}, {qd.shape}, {qdd.shape}")
        out = np.empty((q.size, self.n_columns))
        out[:, 0:2] = SigmoidCoulomb(self.alpha).regressor(qd)
        out[:, 2] = qd
        out[:, 3] = qdd
        if self.orders:
            out[:, 4:4 + 2 * len(self.orders)] = HarmonicRipple(tuple(self.orders)).regressor(q)
        out[:, -1] = 1.0
        return out

    def null_direction(self) -> np.ndarray:
        """The exact null direction of the columns, (n_columns,): ``phi_+ + phi_- = 1`` with the offset."""
        n = np.zeros(self.n_columns)
        n[0], n[1], n[-1] = 1.0, -1.0, -1.0
        return n

    def component(self, weights: np.ndarray, name: str, q: np.ndarray, qd: np.ndarray,
                  qdd: np.ndarray) -> np.ndarray:
        """Torque [N m] of one component (``friction``, ``inertia``, ``ripple``, ``offset``), shape (N,)."""
        sl = self.groups()[name]
        return self.columns(q, qd, qdd)[:, sl] @ np.asarray(weights, dtype=float)[sl]
