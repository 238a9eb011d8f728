"""Thermal friction identification of paper 001 (eqs. 12-16, Algorithm 1, Table 1).

Three estimators, all from the per-cycle friction of :mod:`paperlib.estimation.plateaus` (no
temperature sensor, no robot model):

* :func:`fit_double_exponential`: friction at the reference speed over time,
  ``y(t) = y_hot + a1 exp(-t/t1) + a2 exp(-t/t2)`` (the shape of eq. 16), per joint and test,
  and the "mix" fit through the points of all tests at once (Table 1). ``y(0) / y_hot`` is the
  cold/hot ratio (its own module, :mod:`paperlib.estimation.double_exponential`, re-exported here).
* :class:`ThermalModel`: the second-order thermal model of eq. 12,
  ``T(s)/W_f(s) = c1/(s + 1/tau1) + c2/(s + 1/tau2)``, with the friction scale of eq. 14,
  ``tau_f = tau_0 (1 + alpha (T - T0))``, driven by the friction power ``W_f = tau_f qd`` of the
  actual motion (Algorithm 1), identified from several warm-up runs with different W_f,rms by
  scipy's differential evolution with a local polish (the paper used a genetic algorithm).
* :func:`algorithm1`: the temperature and friction estimate from velocity alone, sample by
  sample; :meth:`ThermalModel.predict_reference` for the per-cycle friction prediction.

Gauge. Without a temperature measurement, alpha and (c1, c2) enter the friction only through the
products ``alpha c1`` and ``alpha c2``: scaling alpha by s and c1, c2 by 1/s leaves every
friction prediction unchanged (the temperature scale itself is not observable from torques).
The fit therefore identifies ``g_i = alpha c_i tau_i`` (fractional friction change per watt of
each mode at steady state) and the time constants; ``alpha`` is fixed by a stated value
(:data:`DEFAULT_ALPHA_PER_K`) and c1, c2 follow. A temperature channel, where a recording has
one, could fix the gauge; the friction predictions do not depend on it.

Start offset. Eq. 12 as the paper writes it starts every run at T0. Paper 001's own mornings did
not: its gearboxes were about 15 C cold in a room at about 20 C. ``ThermalModel(start_offset=True)``
adds one offset ``delta = alpha (T_start - T0)`` shared by the runs (they start after the same rest
in the same room), relaxing as :func:`start_response` (both modes, flat at first: gear mesh and
housing start at one temperature) and feeding the friction power like the rest of ``G``
(:func:`simulate_gain_from`). A single run cannot separate it from the slow mode; runs of different
W_f,rms can.

Discretisation (Algorithm 1, line 3). The parallel form of eq. 12 is advanced exactly under a
zero-order hold on W_f: ``x_i(k) = e^{-dt/tau_i} x_i(k-1) + c_i tau_i (1 - e^{-dt/tau_i}) W_f(k)``,
``T(k) = T0 + x_1(k) + x_2(k)``; eliminating the two modes gives the paper's second-order
difference equation in T(k-1), T(k-2).

:class:`DoubleExponential` and :class:`ThermalModel` follow :mod:`paperlib.estimation.protocol`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numba
import numpy as np
import scipy.optimize

from paperlib.estimation.double_exponential import (DoubleExpFit, DoubleExponential, double_exponential,
                                                     fit_double_exponential)
from paperlib.estimation.plateaus import eq4_torque
from paperlib.estimation.protocol import EstimatorMixin, check_array, from_json_float
from paperlib.estimation.uncertainty import gauss_newton_std

__all__ = [
    "DEFAULT_ALPHA_PER_K", "DoubleExpFit", "double_exponential", "fit_double_exponential", "DoubleExponential",
    "WarmUp", "block_power", "simulate_gain", "simulate_gain_from", "start_response", "algorithm1", "ThermalModel",
    "friction_ratio", "choose_threshold", "alarms",
]

DEFAULT_ALPHA_PER_K = -0.01
"""Gauge of eq. 14 [1/K]: friction falls 1 % per kelvin, so that a 40 K rise (the paper's 15 C
cold to 50-60 C hot) takes friction down by 40 %, the size of the paper's cold/hot change."""


# ------------------------------------------------------------------------------------------------
# second-order thermal model (eqs. 12-15, Algorithm 1)
# ------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def start_response(t: float, tau1: float, tau2: float) -> float:  # pragma: no cover - compiled
    """Inner-node temperature of eq. 12's network left alone after a uniform start offset, per kelvin.

    ``h(t) = (tau2 exp(-t/tau2) - tau1 exp(-t/tau1)) / (tau2 - tau1)``: ``h(0) = 1`` and
    ``h'(0) = 0`` (gear mesh and housing start at the same temperature after the rest, so no heat
    flows between them at first), both modes decaying; ``t`` [s], ``tau1 < tau2`` [s].
    """
    return (tau2 * math.exp(-t / tau2) - tau1 * math.exp(-t / tau1)) / (tau2 - tau1)


@numba.njit(cache=True)
def simulate_gain_from(p0: np.ndarray, dt: float, g1: float, g2: float, tau1: float, tau2: float,
                       delta: float) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`simulate_gain` of a run that starts away from the rest temperature T0.

    ``G(t) = alpha (T(t) - T0)`` with ``T(0) - T0 = delta / alpha``: the power-driven modes of eq. 12
    plus ``delta h(t)`` (:func:`start_response`), the start offset relaxing towards T0 (the
    gearboxes of paper 001 start about 15 C in a room at about 20 C). The friction power at each
    step includes the offset's share of the friction. ``delta = 0`` is :func:`simulate_gain`.

    Parameters
    ----------
    p0 : ndarray, shape (n,)
        Friction power at T0 held over each step [W].
    dt : float
        Step [s].
    g1, g2 : float
        ``alpha c_i tau_i`` [1/W].
    tau1, tau2 : float
        Time constants [s], ``tau1 < tau2``.
    delta : float
        ``alpha (T_start - T0)`` [-]: the friction scale's offset at the start.

    Returns
    -------
    ndarray, shape (n,)
        G after each step.
    """
    e1 = math.exp(-dt / tau1)
    e2 = math.exp(-dt / tau2)
    x1 = 0.0
    x2 = 0.0
    off = delta
    out = np.empty(p0.shape[0])
    for k in range(p0.shape[0]):
        w = (1.0 + x1 + x2 + off) * p0[k]
        x1 = e1 * x1 + g1 * (1.0 - e1) * w
        x2 = e2 * x2 + g2 * (1.0 - e2) * w
        off = 0.0 if delta == 0.0 else delta * start_response((k + 1) * dt, tau1, tau2)
        out[k] = x1 + x2 + off
    return out


@numba.njit(cache=True)
def simulate_gain(p0: np.ndarray, dt: float, g1: float, g2: float, tau1: float, tau2: float
                  ) -> np.ndarray:  # pragma: no cover - compiled
    """Friction scale minus one, ``G = alpha (T - T0)``, under eq. 12 with friction feedback.

    Parameters
    ----------
    p0 : ndarray, shape (n,)
        Friction power at T0 (cold friction) held over each step [W].
    dt : float
        Step [s].
    g1, g2 : float
        ``alpha c_i tau_i`` [1/W]: steady fractional friction change of each mode per watt.
    tau1, tau2 : float
        Time constants [s].

    Returns
    -------
    ndarray, shape (n,)
        G after each step (friction at step k uses G of step k-1: Algorithm 1). A run from rest
        at T0; :func:`simulate_gain_from` starts elsewhere.
    """
    return simulate_gain_from(p0, dt, g1, g2, tau1, tau2, 0.0)


@numba.njit(cache=True)
def _algorithm1(qd, dt, k, alpha, c1, c2, tau1, tau2, T0, T_out, f_out):  # pragma: no cover - compiled
    e1 = math.exp(-dt / tau1)
    e2 = math.exp(-dt / tau2)
    x1 = 0.0
    x2 = 0.0
    T_prev = T0
    for i in range(qd.shape[0]):
        v = qd[i]
        s = 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)
        f0 = k[0] * s + k[1] * v + k[2] * v * v * s + k[3] * v * v * v
        f = (1.0 + alpha * (T_prev - T0)) * f0            # line 1 (eq. 15)
        w = abs(f * v)                                      # line 2
        x1 = e1 * x1 + c1 * tau1 * (1.0 - e1) * w           # line 3 (eq. 12, exact ZOH)
        x2 = e2 * x2 + c2 * tau2 * (1.0 - e2) * w
        T_prev = T0 + x1 + x2
        T_out[i] = T_prev
        f_out[i] = f


def algorithm1(qd: np.ndarray, dt: float, k0: np.ndarray, alpha: float, c1: float, c2: float,
               tau1_s: float, tau2_s: float, T0: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """Estimated gearbox temperature and friction from the joint velocity alone (Algorithm 1).

    Parameters
    ----------
    qd : ndarray, shape (n,)
        Joint velocity [rad/s] at a fixed step.
    dt : float
        Step [s].
    k0 : ndarray, shape (4,)
        Eq. 4 coefficients at T0.
    alpha : float
        Eq. 14 [1/K].
    c1, c2 : float
        Eq. 12 residues [K/J].
    tau1_s, tau2_s : float
        Eq. 12 time constants [s].
    T0 : float
        Initial (rest) temperature [degC].

    Returns
    -------
    T : ndarray, shape (n,)
        Estimated temperature [degC].
    tau_f : ndarray, shape (n,)
        Friction (eq. 15) [N m].
    """
    qd = np.ascontiguousarray(qd, dtype=float)
    T = np.empty_like(qd)
    f = np.empty_like(qd)
    _algorithm1(qd, float(dt), np.ascontiguousarray(k0, dtype=float), float(alpha), float(c1),
                float(c2), float(tau1_s), float(tau2_s), float(T0), T, f)
    return T, f


def block_power(qd: np.ndarray, fs: float, k: np.ndarray, block_s: float = 1.0) -> np.ndarray:
    """Mean friction power of eq. 4 with coefficients ``k`` over consecutive blocks.

    Parameters
    ----------
    qd : ndarray, shape (n,)
        Velocity [rad/s] sampled at ``fs`` [Hz].
    fs : float
    k : ndarray, shape (4,)
    block_s : float
        Block length [s] (the thermal model's step in the fit).

    Returns
    -------
    ndarray, shape (ceil(n / block),)
        [W].
    """
    qd = np.asarray(qd, dtype=float)
    w = np.abs(eq4_torque(k, qd) * qd)
    nb = max(int(round(block_s * fs)), 1)
    pad = (-w.size) % nb
    if pad:
        w = np.concatenate([w, np.full(pad, w[-(w.size % nb):].mean() if w.size % nb else 0.0)])
    return w.reshape(-1, nb).mean(axis=1)


@dataclass
class WarmUp:
    """One warm-up run of one joint, as the thermal fit sees it.

    Attributes
    ----------
    t_min : ndarray, shape (m,)
        Times of the friction segments [min] since the run started (from rest at T0).
    friction_ref : ndarray, shape (m,)
        Measured friction at the reference speed [N m].
    power_first : ndarray, shape (B,)
        Block friction power of the motion computed with the first segment's eq. 4 [W].
    k_first : ndarray, shape (4,)
        Eq. 4 of the first segment.
    block_s : float
        Block length [s].
    label : str
    """

    t_min: np.ndarray
    friction_ref: np.ndarray
    power_first: np.ndarray
    k_first: np.ndarray
    block_s: float = 1.0
    label: str = ""

    @property
    def w_rms(self) -> float:
        """RMS friction power of the run [W] (first-segment friction)."""
        return float(np.sqrt(np.mean(self.power_first ** 2)))


@numba.njit(cache=True)
def _cost_runs(g1, g2, tau1, tau2, delta, P, nB, tidx, y, nM, block_s, scale, out_t0):  # pragma: no cover - compiled
    """Sum of squared scaled residuals over runs (see :func:`_run_fit`), cold levels in out_t0."""
    e1 = math.exp(-block_s / tau1)
    e2 = math.exp(-block_s / tau2)
    total = 0.0
    for r in range(P.shape[0]):
        m = nM[r]
        y0 = y[r, 0]
        t0 = y0
        G = np.empty(m)
        for _ in range(2):
            x1 = 0.0
            x2 = 0.0
            off = delta
            k = 0
            f = t0 / y0
            for b in range(nB[r]):
                w = (1.0 + x1 + x2 + off) * P[r, b] * f
                x1 = e1 * x1 + g1 * (1.0 - e1) * w
                x2 = e2 * x2 + g2 * (1.0 - e2) * w
                off = 0.0 if delta == 0.0 else delta * start_response((b + 1) * block_s, tau1, tau2)
                while k < m and tidx[r, k] == b:
                    G[k] = x1 + x2 + off
                    k += 1
            while k < m:  # segment times after the last block
                G[k] = x1 + x2 + off
                k += 1
            num = 0.0
            den = 0.0
            for i in range(m):
                sv = 1.0 + G[i]
                num += sv * y[r, i]
                den += sv * sv
            t0 = num / den
        out_t0[r] = t0
        for i in range(m):
            e = (y[r, i] - t0 * (1.0 + G[i])) / scale
            total += e * e
    return total


def _gain_at(G: np.ndarray, t_min: np.ndarray, block_s: float) -> np.ndarray:
    idx = np.clip(np.round(t_min * 60.0 / block_s).astype(int) - 1, 0, G.size - 1)
    return G[idx]


def _run_fit(w: WarmUp, g1: float, g2: float, tau1: float, tau2: float, delta: float = 0.0, iters: int = 2
             ) -> tuple[float, np.ndarray]:
    """Cold level tau_0 of one run and the model scale at its segment times (1 + G)."""
    y = w.friction_ref
    t0 = float(y[0])
    for _ in range(iters):
        G = simulate_gain_from(w.power_first * (t0 / y[0]), w.block_s, g1, g2, tau1, tau2, delta)
        s = 1.0 + _gain_at(G, w.t_min, w.block_s)
        t0 = float(s @ y / (s @ s))
    return t0, s


@dataclass
class ThermalModel(EstimatorMixin):
    """Eq. 12 + eq. 14 for one joint, identified from warm-up runs (scikit-learn shape).

    Parameters
    ----------
    alpha : float
        Gauge of eq. 14 [1/K] (see the module docstring).
    T0 : float
        Rest temperature [degC]: the room's, towards which the gearboxes settle.
    start_offset : bool
        Also fit ``delta_``, one start offset shared by every run (the runs start after the same
        rest in the same room, away from T0: paper 001's gearboxes were about 15 C cold in a room
        at about 20 C). False: every run starts at T0 (eq. 12 as the paper writes it).
    delta_bounds : tuple of float
        Search range of ``delta_`` [-] (``alpha (T_start - T0)``).
    tau1_bounds_min, tau2_bounds_min : tuple of float
        Search ranges of the time constants [min].
    seed : int
        Seed of differential evolution.
    maxiter, popsize : int
        Differential evolution settings.

    Attributes
    ----------
    tau1_s_, tau2_s_ : float
        Time constants [s].
    g1_, g2_ : float
        ``alpha c_i tau_i`` [1/W].
    c1_, c2_ : float
        Residues of eq. 12 in the gauge [K/J].
    delta_ : float
        ``alpha (T_start - T0)`` [-]: the friction scale's offset at the start of a run (0 without
        ``start_offset``); ``delta_ / alpha`` is the start offset [K] in the gauge.
    tau0_ : float
        Mean cold friction at the reference speed over the runs [N m], at T0.
    k0_ : ndarray, shape (4,)
        Mean cold eq. 4 coefficients.
    tau0_runs_ : ndarray
        Cold level of each run [N m].
    rms_ : float
        RMS residual over all runs [N m] (``residual_rms_``, the protocol's name).
    params_ : ndarray, shape (4,)
        ``[g1_, g2_, tau1_s_, tau2_s_]`` ([1/W], [1/W], [s], [s]).
    std_ : ndarray, shape (4,)
        Their standard deviations (Gauss-Newton on the fit's residual, cold levels profiled out,
        ``delta_`` held, by central differences).
    """

    PARAM_NAMES = ("g1", "g2", "tau1_s", "tau2_s")

    alpha: float = DEFAULT_ALPHA_PER_K
    T0: float = 20.0
    start_offset: bool = False
    delta_bounds: tuple[float, float] = (-0.5, 0.5)
    tau1_bounds_min: tuple[float, float] = (0.2, 15.0)
    tau2_bounds_min: tuple[float, float] = (5.0, 200.0)
    seed: int = 0
    maxiter: int = 150
    popsize: int = 15
    tau1_s_: float = field(default=float("nan"), init=False)
    tau2_s_: float = field(default=float("nan"), init=False)
    g1_: float = field(default=float("nan"), init=False)
    g2_: float = field(default=float("nan"), init=False)
    delta_: float = field(default=0.0, init=False)
    tau0_: float = field(default=float("nan"), init=False)
    k0_: np.ndarray = field(default_factory=lambda: np.full(4, np.nan), init=False)
    tau0_runs_: np.ndarray = field(default_factory=lambda: np.zeros(0), init=False)
    rms_: float = field(default=float("nan"), init=False)
    std_: np.ndarray = field(default_factory=lambda: np.full(4, np.nan), init=False)

    def is_fitted(self) -> bool:
        """Whether ``fit`` (or ``from_dict``) has set the time constants."""
        return math.isfinite(self.tau1_s_)

    @property
    def params_(self) -> np.ndarray:
        """``[g1_, g2_, tau1_s_, tau2_s_]``."""
        return np.array([self.g1_, self.g2_, self.tau1_s_, self.tau2_s_])

    @property
    def residual_rms_(self) -> float:
        """``rms_`` [N m]."""
        return self.rms_

    # -- derived --------------------------------------------------------------------------------
    @property
    def c1_(self) -> float:
        return self.g1_ / (self.alpha * self.tau1_s_)

    @property
    def c2_(self) -> float:
        return self.g2_ / (self.alpha * self.tau2_s_)

    # -- fit ------------------------------------------------------------------------------------
    def fit(self, runs: Sequence[WarmUp]) -> "ThermalModel":
        """Identify (tau1, tau2, g1, g2) by differential evolution + L-BFGS-B polish.

        Parameters
        ----------
        runs : sequence of WarmUp
            At least two runs, ideally with different W_f,rms.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            No usable run, a run with non-finite or misshapen arrays, or segment times that do
            not increase.
        """
        if isinstance(runs, WarmUp):
            runs = [runs]
        for i, r in enumerate(runs):
            if not isinstance(r, WarmUp):
                raise ValueError(f"ThermalModel.fit: run {i} is a {type(r).__name__}, not a WarmUp")
            who = f"ThermalModel.fit (run {i} {r.label!r})"
            t = check_array(r.t_min, "t_min", ndim=1, who=who)
            check_array(r.friction_ref, "friction_ref", shape=t.shape, who=who)
            check_array(r.power_first, "power_first", ndim=1, who=who)
            check_array(r.k_first, "k_first", shape=(4,), who=who)
        runs = [r for r in runs if r.friction_ref.size >= 3]
        if len(runs) < 1:
            raise ValueError("thermal model: no warm-up run with >= 3 friction segments")
        p_ref = float(np.mean([r.power_first.mean() for r in runs])) or 1.0
        ys = np.concatenate([r.friction_ref for r in runs])
        scale = float(np.mean(np.abs(ys))) or 1.0

        def unpack(x: np.ndarray) -> tuple[float, float, float, float]:
            return (x[0] / p_ref, x[1] / p_ref, 60.0 * math.exp(x[2]), 60.0 * math.exp(x[3]))

        def delta_of(x: np.ndarray) -> float:
            return float(x[4]) if self.start_offset else 0.0

        # runs packed for the compiled cost (same arithmetic as _run_fit, in one call)
        R = len(runs)
        nB = np.array([r.power_first.size for r in runs], dtype=np.int64)
        nM = np.array([r.friction_ref.size for r in runs], dtype=np.int64)
        P = np.zeros((R, nB.max()))
        Y = np.zeros((R, nM.max()))
        TI = np.full((R, nM.max()), -1, dtype=np.int64)
        for i, r in enumerate(runs):
            P[i, :nB[i]] = r.power_first
            Y[i, :nM[i]] = r.friction_ref
            ti = np.clip(np.round(r.t_min * 60.0 / r.block_s).astype(np.int64) - 1, 0, nB[i] - 1)
            if np.any(np.diff(ti) < 0):
                raise ValueError("thermal model: segment times must increase within a run")
            TI[i, :nM[i]] = ti
        block = float(runs[0].block_s)
        t0buf = np.zeros(R)

        def cost(x: np.ndarray) -> float:
            g1, g2, t1, t2 = unpack(x)
            if t1 >= t2:
                return 1e6 + (t1 - t2)
            return _cost_runs(g1, g2, t1, t2, delta_of(x), P, nB, TI, Y, nM, block, scale, t0buf)

        # fractional change of each mode at the mean power: between -1.5 (-150 %) and 0
        bounds = [(-1.5, 0.0), (-1.5, 0.0), tuple(np.log(self.tau1_bounds_min)),
                  tuple(np.log(self.tau2_bounds_min))]
        if self.start_offset:
            bounds.append(tuple(float(b) for b in self.delta_bounds))
        res = scipy.optimize.differential_evolution(cost, bounds, seed=self.seed, maxiter=self.maxiter,
                                                    popsize=self.popsize, tol=1e-8, polish=True)
        self.g1_, self.g2_, self.tau1_s_, self.tau2_s_ = unpack(res.x)
        self.delta_ = delta_of(res.x)
        t0s, ks = [], []
        sq, n = 0.0, 0
        for r in runs:
            t0, m = _run_fit(r, self.g1_, self.g2_, self.tau1_s_, self.tau2_s_, self.delta_)
            t0s.append(t0)
            ks.append(r.k_first * t0 / r.friction_ref[0])
            e = r.friction_ref - t0 * m
            sq += float(e @ e)
            n += e.size
        self.tau0_runs_ = np.array(t0s)
        self.tau0_ = float(np.mean(t0s))
        self.k0_ = np.mean(ks, axis=0)
        self.rms_ = math.sqrt(sq / n)
        self.std_ = self._std(runs)
        return self

    def fitted_warm_up(self, run: WarmUp) -> np.ndarray:
        """The model's reconstruction of one run's friction at its segment times [N m], shape (m,).

        As the fit sees the run: the run's own cold level (profiled by least squares, as in
        :meth:`fit`) times ``1 + alpha (T - T0)`` driven by the run's friction power. Unlike
        :meth:`predict_reference`, which predicts a new run from the mean cold level.
        """
        self._check_fitted("fitted_warm_up")
        t0, m = _run_fit(run, self.g1_, self.g2_, self.tau1_s_, self.tau2_s_, self.delta_)
        return t0 * m

    def _residuals(self, runs: Sequence[WarmUp], x: np.ndarray) -> np.ndarray:
        out = []
        for r in runs:
            t0, m = _run_fit(r, x[0], x[1], x[2], x[3], self.delta_)
            out.append(r.friction_ref - t0 * m)
        return np.concatenate(out)

    def _std(self, runs: Sequence[WarmUp]) -> np.ndarray:
        x = self.params_
        J = np.empty((sum(r.friction_ref.size for r in runs), 4))
        for k in range(4):
            h = 1e-6 * max(abs(x[k]), 1e-12)
            xp, xm = x.copy(), x.copy()
            xp[k] += h
            xm[k] -= h
            J[:, k] = (self._residuals(runs, xp) - self._residuals(runs, xm)) / (2 * h)
        return gauss_newton_std(J, self._residuals(runs, x), n_extra=len(runs))[0]

    def predict(self, qd: np.ndarray, fs: float, t_min: np.ndarray, *, block_s: float = 1.0) -> np.ndarray:
        """Friction at the reference speed at times ``t_min`` [min] of a run from rest [N m]
        (:meth:`predict_reference` with the thermal model), shape (m,)."""
        self._check_fitted()
        return self.predict_reference(qd, fs, t_min, block_s=block_s)

    # -- predict --------------------------------------------------------------------------------
    def gain(self, power0: np.ndarray, block_s: float) -> np.ndarray:
        """``alpha (T - T0)`` after each block for the cold-friction block power ``power0`` [W]
        (from the fitted start offset ``delta_``)."""
        return simulate_gain_from(np.ascontiguousarray(power0, dtype=float), float(block_s),
                                  self.g1_, self.g2_, self.tau1_s_, self.tau2_s_, self.delta_)

    def predict_reference(self, qd: np.ndarray, fs: float, t_min: np.ndarray, *,
                          block_s: float = 1.0, thermal: bool = True) -> np.ndarray:
        """Friction at the reference speed predicted at times ``t_min`` of a run from rest.

        Parameters
        ----------
        qd : ndarray, shape (n,)
            The joint's velocity over the run [rad/s] (from ``q``), sampled at ``fs`` [Hz].
        fs : float
        t_min : ndarray, shape (m,)
            [min].
        block_s : float
            Thermal step [s].
        thermal : bool
            With the thermal model (Algorithm 1) or the cold friction held constant.

        Returns
        -------
        ndarray, shape (m,)
            [N m].
        """
        self._check_fitted("predict_reference")
        t_min = np.asarray(t_min, dtype=float)
        if not thermal:
            return np.full(t_min.shape, self.tau0_)
        G = self.gain(block_power(qd, fs, self.k0_, block_s), block_s)
        return self.tau0_ * (1.0 + _gain_at(G, t_min, block_s))

    def temperature(self, qd: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """Algorithm 1 over a velocity record: (T [degC], tau_f [N m]), shape (n,) each, from T0
        (the start offset ``delta_`` is not applied here)."""
        return algorithm1(qd, dt, self.k0_, self.alpha, self.c1_, self.c2_, self.tau1_s_,
                          self.tau2_s_, self.T0)

    # -- save / restore ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"c1": self.c1_, "c2": self.c2_, "tau1_min": self.tau1_s_ / 60.0,
                "tau2_min": self.tau2_s_ / 60.0, "alpha": self.alpha, "alpha_c1": self.alpha * self.c1_,
                "alpha_c2": self.alpha * self.c2_, "T0": self.T0, "start_delta": self.delta_,
                "start_offset_K": self.delta_ / self.alpha, "tau0": self.tau0_,
                "k0": [float(x) for x in self.k0_], "tau0_runs": [float(x) for x in self.tau0_runs_],
                "rms": self.rms_}

    def _to_json(self) -> dict[str, Any]:
        return {"config": self.get_params(), **self.to_dict(), "params": dict(zip(self.PARAM_NAMES, self.params_)),
                "std": dict(zip(self.PARAM_NAMES, self.std_)),
                "units": {"c1": "K/J", "c2": "K/J", "tau1_min": "min", "tau2_min": "min", "alpha": "1/K",
                          "T0": "degC", "start_delta": "-", "start_offset_K": "K (in the gauge alpha)",
                          "tau0": "N m", "rms": "N m", "std": "g: 1/W, tau: s"}}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "ThermalModel":
        """A fitted model from :meth:`to_json` output (enough to predict)."""
        try:
            m = cls.from_dict(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a ThermalModel description ({type(exc).__name__}: {exc})") from None
        cfg = dict(d.get("config") or {})
        for k in ("tau1_bounds_min", "tau2_bounds_min", "delta_bounds"):
            if k in cfg:
                setattr(m, k, tuple(cfg[k]))
        if "start_offset" in cfg:
            m.start_offset = bool(cfg["start_offset"])
        for k in ("seed", "maxiter", "popsize"):
            if k in cfg:
                setattr(m, k, int(cfg[k]))
        if "params" in d:  # the exact values (the c's of to_dict lose the last bits of g)
            m.g1_, m.g2_, m.tau1_s_, m.tau2_s_ = (float(d["params"][k]) for k in cls.PARAM_NAMES)
        std = d.get("std") or {}
        m.std_ = np.array([from_json_float(std.get(k)) for k in cls.PARAM_NAMES])
        return m

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ThermalModel":
        m = cls(alpha=float(d["alpha"]), T0=float(d.get("T0", 20.0)))
        m.tau1_s_ = 60.0 * float(d["tau1_min"])
        m.tau2_s_ = 60.0 * float(d["tau2_min"])
        m.g1_ = float(d["alpha"]) * float(d["c1"]) * m.tau1_s_
        m.g2_ = float(d["alpha"]) * float(d["c2"]) * m.tau2_s_
        m.delta_ = float(d.get("start_delta", 0.0))
        m.tau0_ = float(d["tau0"])
        m.k0_ = np.asarray(d["k0"], dtype=float)
        m.tau0_runs_ = np.asarray(d.get("tau0_runs", []), dtype=float)
        m.rms_ = from_json_float(d.get("rms"))
        return m


# ------------------------------------------------------------------------------------------------
# anomaly detection (Fig. 13)
# ------------------------------------------------------------------------------------------------
def friction_ratio(identified: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Residual as a ratio: identified / predicted friction [-] (1 = as expected)."""
    return np.asarray(identified, dtype=float) / np.asarray(predicted, dtype=float)


def choose_threshold(healthy_ratios: Sequence[np.ndarray], n_sigma: float = 4.0) -> float:
    """Alarm threshold on the ratio from healthy runs: max(healthy) + n_sigma * std(healthy).

    Parameters
    ----------
    healthy_ratios : sequence of ndarray
        Ratios of the healthy runs.
    n_sigma : float
        Margin in standard deviations of the healthy ratios.

    Returns
    -------
    float
        Threshold [-] (a ratio above it raises an alarm).
    """
    r = np.concatenate([np.ravel(x) for x in healthy_ratios])
    r = r[np.isfinite(r)]
    if r.size == 0:
        raise ValueError("threshold: no healthy ratio")
    return float(r.max() + n_sigma * r.std())


def alarms(t_min: np.ndarray, ratio: np.ndarray, threshold: float, joint: int) -> list[dict[str, float]]:
    """Alarms where the ratio exceeds the threshold: list of {joint, time_min, ratio}."""
    t_min = np.asarray(t_min, dtype=float)
    ratio = np.asarray(ratio, dtype=float)
    return [{"joint": int(joint), "time_min": float(t), "ratio": float(r)}
            for t, r in zip(t_min, ratio) if r > threshold]
