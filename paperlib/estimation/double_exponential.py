"""The double exponential of paper 001 (eq. 16's shape; Table 1, Figs. 6-7).

Friction at the reference speed over a warm-up, ``y(t) = y_hot + a1 exp(-t/t1) + a2 exp(-t/t2)``
(times in minutes), fitted per joint and test and through the points of all tests at once (the
"mix" of Table 1); ``y(0) / y_hot`` is the cold/hot ratio. Used by
:mod:`paperlib.estimation.thermal` (which re-exports it) and the campaign's analysis.
:class:`DoubleExponential` follows :mod:`paperlib.estimation.protocol`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import scipy.optimize

from paperlib.estimation.protocol import EstimatorMixin, check_array, from_json_float
from paperlib.estimation.uncertainty import gauss_newton_std

__all__ = ["DoubleExpFit", "double_exponential", "fit_double_exponential", "DoubleExponential"]

@dataclass(frozen=True)
class DoubleExpFit:
    """``y(t) = y_hot + a1 exp(-t/t1) + a2 exp(-t/t2)`` with t1 <= t2 (times in minutes).

    Attributes
    ----------
    t1_min, t2_min : float
        Time constants [min].
    y_hot, a1, a2 : float
        Hot level and the two amplitudes [N m].
    rms : float
        RMS residual [N m].
    n : int
        Points fitted.
    """

    t1_min: float
    t2_min: float
    y_hot: float
    a1: float
    a2: float
    rms: float
    n: int

    @property
    def y_cold(self) -> float:
        """Value at t = 0 [N m]."""
        return self.y_hot + self.a1 + self.a2

    @property
    def cold_hot_ratio(self) -> float:
        """y(0) / y_hot [-]."""
        return self.y_cold / self.y_hot

    def __call__(self, t_min: np.ndarray) -> np.ndarray:
        return double_exponential(np.asarray(t_min, dtype=float), self.t1_min, self.t2_min,
                                  self.y_hot, self.a1, self.a2)

    def as_dict(self) -> dict[str, float]:
        return {"t1_min": self.t1_min, "t2_min": self.t2_min, "y_hot": self.y_hot, "a1": self.a1,
                "a2": self.a2, "cold_hot_ratio": self.cold_hot_ratio, "rms": self.rms, "n": self.n}


def double_exponential(t_min: np.ndarray, t1: float, t2: float, y_hot: float, a1: float,
                       a2: float) -> np.ndarray:
    """Eq. 16's shape [N m] at times ``t_min`` [min]."""
    return y_hot + a1 * np.exp(-t_min / t1) + a2 * np.exp(-t_min / t2)


def _linear_part(t: np.ndarray, y: np.ndarray, t1: float, t2: float
                 ) -> tuple[np.ndarray, float]:
    A = np.stack([np.ones_like(t), np.exp(-t / t1), np.exp(-t / t2)], axis=1)
    x, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ x
    return x, float(r @ r)


def fit_double_exponential(t_min: np.ndarray, y: np.ndarray, *,
                           t1_bounds: tuple[float, float] | None = None,
                           t2_bounds: tuple[float, float] = (2.0, 300.0),
                           grid: int = 40) -> DoubleExpFit:
    """Least-squares double exponential by variable projection.

    The amplitudes and the hot level are solved linearly for each (t1, t2); (t1, t2) are
    searched on a log grid (t1 < t2, both amplitudes non-negative: friction falls while the
    joint warms) and polished by Nelder-Mead on the logs.

    Parameters
    ----------
    t_min : ndarray, shape (m,)
        Times [min] since the start of the test (several tests may be merged: the "mix" fit).
    y : ndarray, shape (m,)
        Friction at the reference speed [N m]; m >= 5.
    t1_bounds, t2_bounds : tuple of float
        Search ranges [min]. Default t1 range: from half the first time (at least 0.05 min) to
        15 min: a fast mode much shorter than the first sample is not observable, and would
        make the extrapolated cold value y(0) explode.
    grid : int
        Grid points per time constant.

    Returns
    -------
    DoubleExpFit
    """
    t = np.asarray(t_min, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if t.size != y.size or t.size < 5:
        raise ValueError(f"double exponential: need >= 5 points, got {t.size} times, {y.size} values")
    if t1_bounds is None:
        t1_bounds = (max(0.05, 0.5 * float(t.min())), 15.0)
    g1 = np.geomspace(*t1_bounds, grid)
    g2 = np.geomspace(*t2_bounds, grid)

    def cost(l1: float, l2: float) -> float:
        t1, t2 = math.exp(l1), math.exp(l2)
        if not (t1_bounds[0] <= t1 <= t1_bounds[1] and t2_bounds[0] <= t2 <= t2_bounds[1]) or t1 >= t2:
            return np.inf
        x, s = _linear_part(t, y, t1, t2)
        if x[1] < 0 or x[2] < 0:  # penalise a rising branch smoothly
            s += 1e3 * (min(x[1], 0.0) ** 2 + min(x[2], 0.0) ** 2)
        return s

    # the whole grid at once: batched normal equations of the 3 linear parameters
    A1, B2 = np.meshgrid(g1, g2, indexing="ij")
    ok = A1 < B2
    T1, T2 = A1[ok], B2[ok]
    A = np.stack([np.ones((T1.size, t.size)), np.exp(-t[None, :] / T1[:, None]),
                  np.exp(-t[None, :] / T2[:, None])], axis=-1)
    AtA = np.einsum("gmi,gmj->gij", A, A) + 1e-12 * np.eye(3)
    x = np.linalg.solve(AtA, np.einsum("gmi,m->gi", A, y)[..., None])[..., 0]
    r = y[None, :] - np.einsum("gmi,gi->gm", A, x)
    c = (r * r).sum(axis=1) + 1e3 * (np.minimum(x[:, 1], 0) ** 2 + np.minimum(x[:, 2], 0) ** 2)
    k = int(np.argmin(c))
    best = (float(c[k]), math.log(T1[k]), math.log(T2[k]))
    res = scipy.optimize.minimize(lambda p: cost(p[0], p[1]), np.array(best[1:]), method="Nelder-Mead",
                                  options={"xatol": 1e-4, "fatol": 1e-12, "maxiter": 400})
    l1, l2 = (res.x if res.fun <= best[0] else best[1:])
    t1, t2 = math.exp(l1), math.exp(l2)
    x, s = _linear_part(t, y, t1, t2)
    return DoubleExpFit(t1_min=t1, t2_min=t2, y_hot=float(x[0]), a1=float(x[1]), a2=float(x[2]),
                        rms=math.sqrt(s / t.size), n=int(t.size))


class DoubleExponential(EstimatorMixin):
    """:func:`fit_double_exponential` as an estimator of the protocol (same numbers).

    Parameters
    ----------
    t1_bounds, t2_bounds, grid
        As for :func:`fit_double_exponential` [min].

    Attributes (after :meth:`fit`)
    ------------------------------
    result_ : DoubleExpFit
    params_ : ndarray, shape (5,)
        ``[t1_min, t2_min, y_hot, a1, a2]`` ([min], [min], [N m], [N m], [N m]).
    std_ : ndarray, shape (5,)
        Their standard deviations (Gauss-Newton at the solution).
    residual_rms_ : float
        [N m].
    cold_hot_ratio_ : float
        ``y(0) / y_hot``.
    """

    PARAM_NAMES = ("t1_min", "t2_min", "y_hot", "a1", "a2")

    def __init__(self, t1_bounds: tuple[float, float] | None = None,
                 t2_bounds: tuple[float, float] = (2.0, 300.0), grid: int = 40) -> None:
        self.t1_bounds = t1_bounds
        self.t2_bounds = t2_bounds
        self.grid = grid

    def fit(self, t_min: np.ndarray, y: np.ndarray) -> "DoubleExponential":
        """Fit ``y(t)`` [N m] at times ``t_min`` [min], both (m,) with m >= 5; returns self."""
        t = check_array(t_min, "t_min", ndim=1, who="DoubleExponential.fit")
        y = check_array(y, "y", shape=t.shape, who="DoubleExponential.fit")
        f = fit_double_exponential(t, y, t1_bounds=self.t1_bounds, t2_bounds=self.t2_bounds, grid=self.grid)
        self._set(f)
        e1, e2 = np.exp(-t / f.t1_min), np.exp(-t / f.t2_min)
        J = np.stack([f.a1 * e1 * t / f.t1_min ** 2, f.a2 * e2 * t / f.t2_min ** 2, np.ones_like(t), e1, e2], axis=1)
        self.std_, _ = gauss_newton_std(J, y - f(t))
        return self

    def _set(self, f: DoubleExpFit) -> None:
        self.result_ = f
        self.params_ = np.array([f.t1_min, f.t2_min, f.y_hot, f.a1, f.a2])
        self.residual_rms_ = f.rms
        self.cold_hot_ratio_ = f.cold_hot_ratio

    def predict(self, t_min: np.ndarray) -> np.ndarray:
        """``y`` [N m] at times ``t_min`` [min], same shape."""
        self._check_fitted()
        return self.result_(t_min)

    def _to_json(self) -> dict[str, Any]:
        return {"config": self.get_params(), **self.result_.as_dict(),
                "std": dict(zip(self.PARAM_NAMES, self.std_)), "units": {"t1_min": "min", "t2_min": "min",
                                                                         "y_hot": "N m", "a1": "N m", "a2": "N m"}}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "DoubleExponential":
        """A fitted estimator from :meth:`to_json` output."""
        try:
            cfg = dict(d.get("config") or {})
            for k in ("t1_bounds", "t2_bounds"):
                if cfg.get(k) is not None:
                    cfg[k] = tuple(cfg[k])
            self = cls(**cfg)
            f = DoubleExpFit(*(float(d[k]) for k in cls.PARAM_NAMES[:2]), *(float(d[k]) for k in cls.PARAM_NAMES[2:]),
                             rms=from_json_float(d.get("rms")), n=int(d.get("n", 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a DoubleExponential description ({type(exc).__name__}: {exc})") from None
        self._set(f)
        std = d.get("std") or {}
        self.std_ = np.array([from_json_float(std.get(k)) for k in cls.PARAM_NAMES])
        return self
