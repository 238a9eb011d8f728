"""The EWR-RLS side of the estimator protocol (:mod:`paperlib.estimation.protocol`).

:class:`EWRLSProtocol` is mixed into :class:`paperlib.estimation.ewrls.EWRLS`: the recursive
estimator keeps its own state names (``theta``, ``P``, counters, updated in place by the compiled
core, which the real-time loop shares), and this mixin adds what every estimator of the layer has:

* ``fit(Y, R, qd, qdd) -> self``: back to the initial state, then every sample (the compiled
  loop of :meth:`EWRLS.run`); ``partial_fit`` continues from the current state instead (a warm
  start, e.g. after :meth:`from_json`);
* ``params_`` (the current ``theta``), ``std_`` and ``residual_rms_`` (eq. 49's ``rho_rms``),
  read from the state, so they follow every later :meth:`EWRLS.update`;
* ``to_json`` / ``from_json``: the exact state (:meth:`EWRLS.state`) as JSON numbers (a float's
  shortest repr reads back bit-identical), so an estimator rebuilt from it continues exactly.

``std_`` is ``sqrt(s^2 diag(P))`` with ``s^2`` the a-posteriori summed-row residual sum of
squares over ``max(n - n_params, 1)`` (``n`` the samples seen, rejected ones left out): the
least-squares standard deviation for white residuals, with ``P`` the (forgetting-weighted,
regularized) inverse information matrix. With per-joint rows the residual is that of the
summed row (eq. 49), so ``std_`` is then a rough scale only.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from paperlib.estimation.protocol import EstimatorMixin

__all__ = ["EWRLSProtocol"]


class EWRLSProtocol(EstimatorMixin):
    """Protocol methods of :class:`~paperlib.estimation.ewrls.EWRLS` (see the module docstring)."""

    def is_fitted(self) -> bool:
        """Whether the estimator has taken a sample (by fit, update, run or a restored state)."""
        return self.n_samples - self.n_rejected > 0  # type: ignore[attr-defined]

    def fit(self, Y: np.ndarray, R: np.ndarray, qd: np.ndarray | None = None,
            qdd: np.ndarray | None = None) -> "EWRLSProtocol":
        """Reset, then process every sample (arguments as for :meth:`EWRLS.run`); returns self.

        Raises
        ------
        ValueError
            Wrong shapes or non-finite inputs (nothing is processed then).
        """
        self.reset()  # type: ignore[attr-defined]
        return self.partial_fit(Y, R, qd, qdd)

    def partial_fit(self, Y: np.ndarray, R: np.ndarray, qd: np.ndarray | None = None,
                    qdd: np.ndarray | None = None) -> "EWRLSProtocol":
        """Continue from the current state with more samples; returns self."""
        self.run(Y, R, qd, qdd)  # type: ignore[attr-defined]
        return self

    @property
    def params_(self) -> np.ndarray:
        """The current estimate ``theta`` (a copy), shape (n_params,)."""
        self._check_fitted("params_")
        return self.theta.copy()  # type: ignore[attr-defined]

    @property
    def std_(self) -> np.ndarray:
        """Standard deviations of ``theta`` (module docstring), shape (n_params,)."""
        self._check_fitted("std_")
        n = self.n_samples - self.n_rejected  # type: ignore[attr-defined]
        s2 = float(self.accum[0]) / max(n - self.n_params, 1)  # type: ignore[attr-defined]
        return np.sqrt(np.clip(np.diag(self.P), 0.0, None) * s2)  # type: ignore[attr-defined]

    @property
    def residual_rms_(self) -> float:
        """Eq. 49's ``rho_rms`` with the a-posteriori estimate [row units, N m]."""
        self._check_fitted("residual_rms_")
        return float(self.rho_rms)  # type: ignore[attr-defined]

    def _to_json(self) -> dict[str, Any]:
        return dict(self.state())  # type: ignore[attr-defined]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Any:
        """The estimator of :meth:`to_json` output, state included (continues exactly).

        Raises
        ------
        ValueError
            Not an EWR-RLS state.
        """
        state = {k: v for k, v in d.items() if k != "estimator"}
        if state.get("t_half", 0.0) is None:  # JSON null: the infinite half-life (no forgetting)
            state["t_half"] = math.inf
        arrays = {k: np.asarray(v, dtype=np.int64 if k == "counters" else None) for k, v in state.items()
                  if v is not None}
        return cls.from_state(arrays)  # type: ignore[attr-defined]
