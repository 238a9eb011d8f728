"""Exponentially Weighted Regularized Recursive Least Squares (EWR-RLS).

The estimator of Section 2 of the flagship paper (eq. 14), model-independent: it takes
regressor rows ``Y_k`` (1 x n_pi, the paper's summed row ``Y_sum``; or m x n_pi per-joint
rows) and right-hand sides ``R_k`` built elsewhere (the generated robot kernels), and keeps
the parameter estimate ``theta`` and the covariance-like matrix ``P`` up to date sample by
sample.

Cost minimized
--------------
After ``n`` informative (gated-in) samples the estimate minimizes exactly ::

    J(pi) = 1/2 ( sum_{k=1..n} beta^(n-k) ( ||Y_k pi - R_k||^2 + c_k (pi_{i_k} - pi0_{i_k})^2 )
                  + beta^n lambda ||pi - pi0||^2 )                                     (*)

* ``beta = 1 + Ts ln(0.5) / T_HL`` is the forgetting factor (paper, after eq. 14): a sample's
  weight halves every ``T_HL`` seconds of *informative* data.
* ``pi0`` is the initial guess. The paper writes the regularizer as ``beta^n lambda pi^T pi``
  (toward 0); we initialise ``pi_pds = 1, pi_F = 0`` and regularize toward that guess
  instead. It reduces to the paper when ``pi0 = 0``, and it is what the standard RLS
  recursion started at ``theta_0 = pi0, P_0 = I / lambda`` minimizes: its information matrix
  obeys ``Phi_n = beta Phi_{n-1} + Y_n^T Y_n`` with ``Phi_0 = lambda I``, i.e.
  ``Phi_n = sum beta^(n-k) Y_k^T Y_k + beta^n lambda I``, and ``Phi_n theta_n`` accumulates
  ``beta^n lambda pi0`` the same way. Regularizing toward 0 while starting at ``pi_pds = 1``
  would be inconsistent: the first update would pull ``pi_pds`` toward 0.
* The ``c`` term is the covariance wind-up bound (below); with ``lambda_floor = 0`` it
  vanishes and (*) is the paper's eq. 14 exactly (with ``pi0``).

Update (no matrix inversion)
----------------------------
Summed rows use the Sherman-Morrison form with the forgetting fused in (``g = P y^T``,
``d = beta + y g``)::

    theta += g (r - y theta) / d ;   P = (P - g g^T / d) / beta

Per-joint rows (m rows per sample) are m sequential rank-1 updates; the forgetting is
applied once per sample, with the first row. This is exact for the stacked cost: the
information matrix becomes ``beta Phi + sum_i y_i^T y_i``, the same as one rank-m update,
and rank-1 updates without forgetting commute. The rank-1 correction of ``P`` is formed
from the product ``(g_i g_j) / d``, which is bitwise symmetric in (i, j), so ``P`` stays
exactly symmetric however long it runs (no periodic re-symmetrization needed).

Gating (stiction)
-----------------
A sample updates the estimate only when ``any |qd_j| > v_gate`` or ``any |qdd_j| > a_gate``
(measured velocities/accelerations; the paper: "exceed, in absolute value, a small
threshold"). Defaults 0.02 rad/s and 0.2 rad/s^2 are *our* choice, not the paper's.
Skipped samples neither update nor decay ``P`` (no forgetting either): the half-life is
counted in informative samples, so a robot standing still does not forget what it learnt
and ``P`` does not grow while it stands.

Covariance wind-up bound: a regularization floor
------------------------------------------------
With forgetting, directions of parameter space that the data do not excite have
``P`` growing as ``P / beta`` per sample (a factor 2 per half-life, without limit; at
T_HL = 2 s one hour overflows float64). We bound it with *regularized forgetting*,
``Phi_n = beta Phi_{n-1} + Y_n^T Y_n + (1 - beta) lambda_floor I`` (the regularization view
of covariance modification, e.g. S. Gunnarsson, "On covariance modification and
regularization in recursive least squares identification", IFAC SYSID, Copenhagen, 1994):
the decaying prior ``beta^n lambda`` of eq. 14 is topped up so that it never decays below
``lambda_floor``. The exact full-rank top-up would cost O(n^3) per sample; we apply it one
coordinate at a time, cyclically, as a pseudo-measurement ``sqrt(c) pi_i = sqrt(c) pi0_i``
(a rank-1 update with a unit vector, no forgetting). To save time it is applied on every
``S = FLOOR_STRIDE`` (8)-th informative sample only, with the weight scaled up: in (*),
``c_k = c = S n_pi (1 - beta) lambda_floor`` and ``i_k = ((k - 1) // S) mod n_pi`` when
``(k - 1) mod S = 0``, else ``c_k = 0``. Then ``Phi_n >= ~lambda_floor I``,
i.e. every eigenvalue of ``P`` stays below about ``1 / lambda_floor`` (default
``lambda_floor = lambda``: never less certain than before the first sample), while excited
directions keep forgetting with the full ``beta`` and keep tracking with half-life T_HL.
The per-coordinate ripple of the floor is ``~S n_pi (1 - beta)`` relative (1e-4 at the
paper's settings, 0.7 % at T_HL = 2 s).
The price: a persistent pull toward ``pi0`` of relative size ``~lambda_floor / Phi``
(about 1e-9 for torque-sized rows at the paper's settings), and an unexcited direction
reverts to ``pi0`` once its old data weight ``beta^k Phi`` falls below ``lambda_floor``
(about 30 half-lives). We did not choose the other common fix, capping ``trace(P)`` and
pausing the forgetting at the cap: the scalar factor pauses the forgetting in *every*
direction, so the excited directions lose their half-life exactly when it matters.

Residual (eq. 49)
-----------------
``rho_rms(t) = sqrt(1/t int_0^t (Y_sum(u) pi(u) - R_sum(u))^2 du)`` with uniform sampling is
``sqrt(sum_k e_k^2 / N)``. ``pi(u)`` is taken as the estimate *after* the sample's update
(a-posteriori, ``rho_rms``); the a-priori version (estimate before the update, a true
one-step prediction) is kept too (``rho_rms_prior``). The sum runs over *all* samples in
time, gated-out ones included (their two residuals coincide): it measures the model's
prediction, not only the fit. With per-joint rows the residual is that of the summed row
(``sum_i e_i``), which is eq. 49's quantity. Samples rejected as non-finite are left out.

Speed
-----
The core is :func:`ewrls_step` (compiled with :func:`paperlib._jit.rt_njit`), which works in place on
preallocated state arrays and allocates nothing; :func:`ewrls_run_kernel` loops it over N
samples in one compiled call (~6-7 million samples/s for 10 parameters, summed rows,
gating and floor on, on one core of the development VM: ``paperlib bench``). The reductions
(dot products) are compiled with reassociation allowed so that they vectorize; the update
of ``P`` is not, which keeps it bitwise symmetric. Both kernels can be called from other
``njit`` code (the real-time loop). :class:`EWRLS` is the Python-level estimator. Units are
whatever the regressor's are (SI: rows and right-hand sides in N m).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from paperlib._jit import rt_njit
from paperlib.estimation.ewrls_protocol import EWRLSProtocol

__all__ = [
    "EWRLS", "RunHistory", "forgetting_factor", "floor_coefficient", "ewrls_step", "ewrls_run_kernel",
    "UPDATED", "GATED_OUT", "REJECTED", "C_SAMPLES", "C_UPDATES", "C_REJECTED", "A_SSE_POST", "A_SSE_PRIOR",
]

#: Status codes returned by :func:`ewrls_step`.
UPDATED, GATED_OUT, REJECTED = 1, 0, -1
#: Indices into the ``counters`` (int64) state array.
C_SAMPLES, C_UPDATES, C_REJECTED = 0, 1, 2
#: Indices into the ``accum`` (float64) state array: sums of squared summed-row residuals.
A_SSE_POST, A_SSE_PRIOR = 0, 1

STATE_FORMAT = "paperlib.ewrls/1"

#: The wind-up floor's pseudo-row is applied on every FLOOR_STRIDE-th informative sample
#: (weight scaled up to match), cycling over the coordinates: 1/FLOOR_STRIDE of its cost.
FLOOR_STRIDE = 8


def forgetting_factor(t_half: float, ts: float) -> float:
    """Forgetting factor ``beta = 1 + Ts ln(0.5) / T_HL`` (paper, after eq. 14).

    Parameters
    ----------
    t_half : float
        Weighting half-life ``T_HL`` [s]; ``inf`` means no forgetting (``beta = 1``).
    ts : float
        Sample time ``Ts`` [s].

    Returns
    -------
    float
        ``beta`` in (0, 1].
    """
    if not ts > 0.0 or not math.isfinite(ts):
        raise ValueError(f"sample time ts must be finite and > 0 s, got {ts!r}")
    if not t_half > 0.0:
        raise ValueError(f"half-life t_half must be > 0 s, got {t_half!r}")
    if math.isinf(t_half):
        return 1.0
    beta = 1.0 + ts * math.log(0.5) / t_half
    if not beta > 0.0:
        raise ValueError(f"t_half = {t_half} s is too short for ts = {ts} s (beta = {beta} <= 0)")
    return beta


def floor_coefficient(n_params: int, beta: float, lambda_floor: float) -> float:
    """Weight ``c = S n_pi (1 - beta) lambda_floor`` of the cyclic regularization row.

    The row is applied on every ``S = FLOOR_STRIDE``-th informative sample, so each
    coordinate receives ``c`` once every ``S n_pi`` samples: on average
    ``(1 - beta) lambda_floor`` per sample, the top-up that holds the prior at
    ``lambda_floor``.

    Parameters
    ----------
    n_params : int
        Number of parameters ``n_pi``.
    beta : float
        Forgetting factor.
    lambda_floor : float
        Regularization floor (same units as ``lambda``: (row units)^2 / (param units)^2).

    Returns
    -------
    float
        ``c`` (0 when there is no forgetting or no floor).
    """
    return float(FLOOR_STRIDE) * float(n_params) * (1.0 - beta) * float(lambda_floor)


# --------------------------------------------------------------------------------------
# compiled core
# --------------------------------------------------------------------------------------


@rt_njit(fastmath={"reassoc"}, inline="always")
def _dot(a, b):  # pragma: no cover - compiled
    """Dot product; reassociation allowed so the reduction vectorizes (NaN/inf semantics kept)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@rt_njit(inline="always")
def _rank1(y, r, beta, theta, P, g):  # pragma: no cover - compiled
    """One Sherman-Morrison update with forgetting ``beta`` fused in; False if rejected.

    P is updated over full contiguous rows with the product ``(g_i g_j) / d``, which is
    bitwise symmetric in (i, j): the loop vectorizes and P stays exactly symmetric.
    """
    n = theta.shape[0]
    for i in range(n):
        g[i] = _dot(P[i], y)
    yt = _dot(y, theta)
    yg = _dot(y, g)
    d = beta + yg
    if not (d > 0.0 and d < np.inf):
        return False
    ed = (r - yt) / d
    invd = 1.0 / d
    invb = 1.0 / beta
    for i in range(n):
        theta[i] += g[i] * ed
    for i in range(n):
        gi = g[i]
        for j in range(n):
            P[i, j] = (P[i, j] - (gi * g[j]) * invd) * invb
    return True


@rt_njit(inline="always")
def _floor_row(i0, c, pi0, theta, P, g):  # pragma: no cover - compiled
    """Pseudo-measurement ``sqrt(c) pi_i0 = sqrt(c) pi0_i0`` (no forgetting)."""
    n = theta.shape[0]
    for i in range(n):
        g[i] = P[i0, i]
    d = 1.0 / c + g[i0]
    if not (d > 0.0 and d < np.inf):
        return
    ed = (pi0[i0] - theta[i0]) / d
    invd = 1.0 / d
    for i in range(n):
        theta[i] += g[i] * ed
    for i in range(n):
        gi = g[i]
        for j in range(n):
            P[i, j] = P[i, j] - (gi * g[j]) * invd


@rt_njit
def ewrls_step(Yk, Rk, qdk, qddk, v_gate, a_gate, beta, floor_c, theta, P, pi0, g, counters, accum):  # pragma: no cover - compiled
    """Process one sample in place (compiled; allocation-free).

    Parameters
    ----------
    Yk : ndarray, shape (m, n)
        Regressor rows of this sample (m = 1 for the paper's summed row).
    Rk : ndarray, shape (m,)
        Right-hand sides [row units, e.g. N m].
    qdk, qddk : ndarray, shape (d,)
        Measured joint velocities [rad/s] and accelerations [rad/s^2] used for gating.
        With ``d = 0`` every sample is informative (no gating).
    v_gate, a_gate : float
        Gating thresholds [rad/s], [rad/s^2].
    beta : float
        Forgetting factor.
    floor_c : float
        Cyclic regularization weight ``c`` (0 disables the wind-up floor).
    theta : ndarray, shape (n,)
        Estimate, updated in place.
    P : ndarray, shape (n, n)
        Inverse information matrix, updated in place (kept exactly symmetric).
    pi0 : ndarray, shape (n,)
        Regularization target (initial guess).
    g : ndarray, shape (n,)
        Work vector.
    counters : ndarray of int64, shape (3,)
        ``[n_samples, n_updates, n_rejected]``, updated in place.
    accum : ndarray of float64, shape (2,)
        ``[sum e_post^2, sum e_prior^2]`` of the summed-row residual, updated in place.

    Returns
    -------
    int
        ``UPDATED`` (1), ``GATED_OUT`` (0) or ``REJECTED`` (-1: non-finite data, gating
        signals included, which leaves the state untouched except for the counters; or a
        numerically broken update that was skipped).
    """
    m = Yk.shape[0]
    n = Yk.shape[1]
    counters[0] += 1
    # a-priori residual of the summed row; also catches NaN/inf anywhere in Yk, Rk
    e_prior = 0.0
    for i in range(m):
        e_prior += _dot(Yk[i], theta) - Rk[i]
    if not math.isfinite(e_prior):
        counters[2] += 1
        return -1
    nd = qdk.shape[0]
    informative = nd == 0
    for j in range(nd):
        vj = qdk[j]
        aj = qddk[j]
        if not (math.isfinite(vj) and math.isfinite(aj)):
            counters[2] += 1
            return -1
        if abs(vj) > v_gate or abs(aj) > a_gate:
            informative = True
    status = 0
    e_post = e_prior
    if informative:
        b = beta
        accepted = False
        for i in range(m):
            if _rank1(Yk[i], Rk[i], b, theta, P, g):
                b = 1.0  # forgetting applied once per sample, with the first accepted row
                accepted = True
        if not accepted:
            # no row accepted: nothing changed
            counters[2] += 1
            status = -1
        else:
            u = counters[1]
            if floor_c > 0.0 and u % FLOOR_STRIDE == 0:
                _floor_row((u // FLOOR_STRIDE) % n, floor_c, pi0, theta, P, g)
            counters[1] += 1
            status = 1
            e_post = 0.0
            for i in range(m):
                e_post += _dot(Yk[i], theta) - Rk[i]
    accum[0] += e_post * e_post
    accum[1] += e_prior * e_prior
    return status


@rt_njit
def ewrls_run_kernel(Y, R, QD, QDD, v_gate, a_gate, beta, floor_c, theta, P, pi0, g, counters, accum,
                     record_every, h_index, h_theta, h_rho, status_out):  # pragma: no cover - compiled
    """Run :func:`ewrls_step` over N samples in one compiled call.

    Parameters
    ----------
    Y : ndarray, shape (N, m, n)
        Regressor rows.
    R : ndarray, shape (N, m)
        Right-hand sides.
    QD, QDD : ndarray, shape (N, d)
        Gating signals [rad/s], [rad/s^2]; ``d = 0`` disables gating.
    v_gate, a_gate, beta, floor_c, theta, P, pi0, g, counters, accum
        As in :func:`ewrls_step`.
    record_every : int
        Store the state every this many samples (0: never).
    h_index : ndarray of int64, shape (K,)
        Out: global sample count at each record.
    h_theta : ndarray, shape (K, n)
        Out: estimates.
    h_rho : ndarray, shape (K, 2)
        Out: ``[rho_rms (a-posteriori), rho_rms (a-priori)]`` at each record [row units].
    status_out : ndarray of int8, shape (N,) or (0,)
        Out: per-sample status when it has N entries.

    Returns
    -------
    int
        Number of records written.
    """
    N = Y.shape[0]
    n = theta.shape[0]
    keep_status = status_out.shape[0] == N
    kmax = h_index.shape[0]
    krec = 0
    for k in range(N):
        st = ewrls_step(Y[k], R[k], QD[k], QDD[k], v_gate, a_gate, beta, floor_c,
                        theta, P, pi0, g, counters, accum)
        if keep_status:
            status_out[k] = st
        if record_every > 0 and (k + 1) % record_every == 0 and krec < kmax:
            h_index[krec] = counters[0]
            for j in range(n):
                h_theta[krec, j] = theta[j]
            ns = counters[0] - counters[2]
            if ns > 0:
                h_rho[krec, 0] = math.sqrt(accum[0] / ns)
                h_rho[krec, 1] = math.sqrt(accum[1] / ns)
            else:
                h_rho[krec, 0] = np.nan
                h_rho[krec, 1] = np.nan
            krec += 1
    return krec


# --------------------------------------------------------------------------------------
# Python-level estimator
# --------------------------------------------------------------------------------------


@dataclass
class RunHistory:
    """What :meth:`EWRLS.run` recorded.

    Attributes
    ----------
    index : ndarray of int64, shape (K,)
        Total samples seen by the estimator at each record (warm starts included).
    t : ndarray, shape (K,)
        ``index * ts`` [s].
    theta : ndarray, shape (K, n)
        Estimate at each record.
    rho_rms : ndarray, shape (K,)
        Running residual of eq. 49 with the a-posteriori estimate [row units, N m].
    rho_rms_prior : ndarray, shape (K,)
        Same with the a-priori estimate [N m].
    status : ndarray of int8, shape (N,) or None
        Per-sample status (1 updated, 0 gated out, -1 rejected) when requested.
    """

    index: np.ndarray
    t: np.ndarray
    theta: np.ndarray
    rho_rms: np.ndarray
    rho_rms_prior: np.ndarray
    status: np.ndarray | None = None


def _as_f64(x: Any) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _check_finite(a: np.ndarray, name: str) -> None:
    if not np.isfinite(a).all():
        bad = np.argwhere(~np.isfinite(a))
        raise ValueError(
            f"{name} contains {len(bad)} non-finite value(s) (NaN or inf); first at index "
            f"{tuple(int(i) for i in bad[0])}"
        )


class EWRLS(EWRLSProtocol):
    """Exponentially weighted, regularized recursive least squares (paper eq. 14).

    Configure in the constructor, feed samples with :meth:`update` (one) or :meth:`run`
    (many, compiled loop), or ``fit`` / ``partial_fit`` (the estimator protocol,
    :mod:`paperlib.estimation.ewrls_protocol`); the learnt state is in :attr:`theta`, :attr:`P`
    and the counters. See the module docstring for the cost minimized and the design choices.

    Parameters
    ----------
    n_params : int
        Number of parameters ``n_pi``.
    pi0 : array_like, shape (n_params,), optional
        Initial guess and regularization target (default zeros). For the paper's model
        use ``pi_pds = 1, pi_F = 0``.
    lam : float, default 1e-3
        Regularization ``lambda`` (paper: 0.001); ``P_0 = I / lambda``.
    t_half : float, default 600.0
        Weighting half-life ``T_HL`` [s] (paper: 600 s); ``inf``: no forgetting.
    ts : float, default 1/4000
        Sample time ``Ts`` [s] (paper: 4 kHz).
    v_gate : float, default 0.02
        Velocity gate [rad/s] (our choice; the paper says "a small threshold").
    a_gate : float, default 0.2
        Acceleration gate [rad/s^2] (our choice).
    lambda_floor : float, optional
        Regularization floor bounding covariance wind-up (default ``lam``; 0 gives eq. 14
        exactly, with unbounded ``P`` in unexcited directions).

    Attributes
    ----------
    theta : ndarray, shape (n_params,)
        Current estimate (updated in place).
    P : ndarray, shape (n_params, n_params)
        Inverse (weighted, regularized) information matrix, symmetric.
    pi0 : ndarray, shape (n_params,)
        Regularization target.
    beta : float
        Forgetting factor.
    floor_c : float
        Weight of the cyclic regularization row.
    counters : ndarray of int64, shape (3,)
        ``[n_samples, n_updates, n_rejected]``.
    accum : ndarray, shape (2,)
        Sums of squared summed-row residuals ``[a-posteriori, a-priori]`` [N^2 m^2].
    """

    def __init__(
        self,
        n_params: int,
        *,
        pi0: np.ndarray | None = None,
        lam: float = 1e-3,
        t_half: float = 600.0,
        ts: float = 1.0 / 4000.0,
        v_gate: float = 0.02,
        a_gate: float = 0.2,
        lambda_floor: float | None = None,
    ) -> None:
        n_params = int(n_params)
        if n_params < 1:
            raise ValueError(f"n_params must be >= 1, got {n_params}")
        if not (lam > 0.0 and math.isfinite(lam)):
            raise ValueError(f"lam must be finite and > 0, got {lam!r}")
        if lambda_floor is None:
            lambda_floor = lam
        if not (lambda_floor >= 0.0 and math.isfinite(lambda_floor)):
            raise ValueError(f"lambda_floor must be finite and >= 0, got {lambda_floor!r}")
        if not (v_gate >= 0.0 and a_gate >= 0.0):
            raise ValueError(f"gates must be >= 0, got v_gate={v_gate!r}, a_gate={a_gate!r}")
        self.n_params = n_params
        self.lam = float(lam)
        self.t_half = float(t_half)
        self.ts = float(ts)
        self.v_gate = float(v_gate)
        self.a_gate = float(a_gate)
        self.lambda_floor = float(lambda_floor)
        self.beta = forgetting_factor(self.t_half, self.ts)
        self.floor_c = floor_coefficient(n_params, self.beta, self.lambda_floor)
        if pi0 is None:
            pi0 = np.zeros(n_params)
        pi0 = np.array(pi0, dtype=np.float64).reshape(-1)
        if pi0.shape != (n_params,):
            raise ValueError(f"pi0 must have shape ({n_params},), got {pi0.shape}")
        _check_finite(pi0, "pi0")
        self.pi0 = pi0
        self.theta = np.empty(n_params)
        self.P = np.empty((n_params, n_params))
        self._g = np.zeros(n_params)
        self.counters = np.zeros(3, dtype=np.int64)
        self.accum = np.zeros(2)
        self.reset()

    @classmethod
    def from_config(cls, config: Any, n_params: int, ts: float, pi0: np.ndarray | None = None) -> "EWRLS":
        """An estimator with the settings of an :class:`paperlib.estimation.config.EstimatorConfig`
        (half-life, regularisation, gates) for samples ``ts`` [s] apart."""
        return cls(n_params, pi0=pi0, lam=config.lambda_reg, t_half=config.half_life_s, ts=ts,
                   v_gate=config.gate_velocity, a_gate=config.gate_acceleration)

    # -- state -------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the initial state ``theta = pi0, P = I / lambda``, counters zero (in place)."""
        self.theta[:] = self.pi0
        self.P[:] = 0.0
        np.fill_diagonal(self.P, 1.0 / self.lam)
        self._g[:] = 0.0
        self.counters[:] = 0
        self.accum[:] = 0.0

    @property
    def n_samples(self) -> int:
        """Samples seen (informative or not, rejected included)."""
        return int(self.counters[C_SAMPLES])

    @property
    def n_updates(self) -> int:
        """Samples that passed the gate and updated the estimate."""
        return int(self.counters[C_UPDATES])

    @property
    def n_rejected(self) -> int:
        """Samples rejected by the compiled core (non-finite data or a broken update)."""
        return int(self.counters[C_REJECTED])

    @property
    def rho_rms(self) -> float:
        """Running residual of eq. 49 with the a-posteriori estimate [N m] (NaN before data)."""
        ns = self.n_samples - self.n_rejected
        return math.sqrt(self.accum[A_SSE_POST] / ns) if ns > 0 else math.nan

    @property
    def rho_rms_prior(self) -> float:
        """Running residual of eq. 49 with the a-priori estimate [N m] (NaN before data)."""
        ns = self.n_samples - self.n_rejected
        return math.sqrt(self.accum[A_SSE_PRIOR] / ns) if ns > 0 else math.nan

    def config(self) -> dict[str, float | int]:
        """Constructor arguments (scalars) that reproduce this estimator."""
        return {"n_params": self.n_params, "lam": self.lam, "t_half": self.t_half, "ts": self.ts,
                "v_gate": self.v_gate, "a_gate": self.a_gate, "lambda_floor": self.lambda_floor}

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to continue exactly where this estimator is (copies).

        Returns
        -------
        dict
            ``theta``, ``P``, ``pi0``, ``counters``, ``accum`` arrays, the config scalars as
            0-d arrays, ``beta`` and ``floor_stride`` (checked on load) and ``format``.
        """
        out: dict[str, np.ndarray] = {
            "format": np.array(STATE_FORMAT),
            "theta": self.theta.copy(),
            "P": self.P.copy(),
            "pi0": self.pi0.copy(),
            "counters": self.counters.copy(),
            "accum": self.accum.copy(),
            "beta": np.array(self.beta),
            "floor_stride": np.array(FLOOR_STRIDE),
        }
        for k, v in self.config().items():
            out[k] = np.array(v)
        return out

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "EWRLS":
        """Rebuild an estimator from :meth:`state` (or a loaded ``.npz``) to continue exactly.

        Raises
        ------
        ValueError
            On an unknown format, missing keys or inconsistent shapes.
        """
        fmt = str(np.asarray(state.get("format", "")))
        if fmt != STATE_FORMAT:
            raise ValueError(f"not an EWR-RLS state (format {fmt!r}, expected {STATE_FORMAT!r})")
        missing = [k for k in ("theta", "P", "pi0", "counters", "accum", "n_params", "lam", "t_half",
                               "ts", "v_gate", "a_gate", "lambda_floor") if k not in state]
        if missing:
            raise ValueError(f"EWR-RLS state is missing {missing}")
        est = cls(int(state["n_params"]), pi0=np.asarray(state["pi0"]), lam=float(state["lam"]),
                  t_half=float(state["t_half"]), ts=float(state["ts"]), v_gate=float(state["v_gate"]),
                  a_gate=float(state["a_gate"]), lambda_floor=float(state["lambda_floor"]))
        n = est.n_params
        theta = np.asarray(state["theta"], dtype=np.float64)
        P = np.asarray(state["P"], dtype=np.float64)
        if theta.shape != (n,) or P.shape != (n, n):
            raise ValueError(f"state shapes theta {theta.shape}, P {P.shape} do not match n_params={n}")
        est.theta[:] = theta
        est.P[:] = P
        est.counters[:] = np.asarray(state["counters"], dtype=np.int64)
        est.accum[:] = np.asarray(state["accum"], dtype=np.float64)
        if "floor_stride" in state and int(state["floor_stride"]) != FLOOR_STRIDE:
            raise ValueError(f"state was made with FLOOR_STRIDE={int(state['floor_stride'])}, "
                             f"this code uses {FLOOR_STRIDE}: cannot continue exactly")
        if "beta" in state and float(state["beta"]) != est.beta:
            raise ValueError(f"state beta {float(state['beta'])!r} != recomputed {est.beta!r}")
        return est

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`state` to an ``.npz`` file (uncompressed, exact)."""
        with open(path, "wb") as fh:
            np.savez(fh, **self.state())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "EWRLS":
        """Read a file written by :meth:`save` and rebuild the estimator."""
        with np.load(path, allow_pickle=False) as z:
            return cls.from_state({k: z[k] for k in z.files})

    # -- data --------------------------------------------------------------------------

    def _rows(self, Y: np.ndarray, R: np.ndarray, batch: bool) -> tuple[np.ndarray, np.ndarray]:
        n = self.n_params
        lead = 1 if batch else 0
        if Y.ndim == 1 + lead:
            if Y.shape[-1] != n:
                raise ValueError(f"regressor rows have {Y.shape[-1]} columns, expected n_params={n}")
            Y = Y.reshape(Y.shape[:lead] + (1, n))
            R = R.reshape(R.shape[:lead] + (1,)) if R.ndim == lead else R
        elif Y.ndim == 2 + lead:
            if Y.shape[-1] != n:
                raise ValueError(f"regressor rows have {Y.shape[-1]} columns, expected n_params={n}")
        else:
            what = "(N, n) or (N, m, n)" if batch else "(n,) or (m, n)"
            raise ValueError(f"regressor must have shape {what}, got {Y.shape}")
        if R.shape != Y.shape[:-1]:
            raise ValueError(f"right-hand side has shape {R.shape}, expected {Y.shape[:-1]} for regressor {Y.shape}")
        if Y.shape[-2] < 1:
            raise ValueError("regressor has no rows")
        return np.ascontiguousarray(Y), np.ascontiguousarray(R)

    def update(self, y_row: np.ndarray, r: float | np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> bool:
        """Process one sample.

        Parameters
        ----------
        y_row : array_like, shape (n,) or (m, n)
            Summed regressor row ``Y_sum`` or per-joint rows ``Y``.
        r : float or array_like, shape (m,)
            ``R_sum`` or ``R`` [N m].
        qd : array_like, shape (d,)
            Measured joint velocities for gating [rad/s].
        qdd : array_like, shape (d,)
            Measured joint accelerations for gating [rad/s^2].

        Returns
        -------
        bool
            True if the sample passed the gate and updated the estimate.

        Raises
        ------
        ValueError
            On wrong shapes or non-finite inputs.
        """
        Y = _as_f64(y_row)
        R = _as_f64(r)
        Y, R = self._rows(Y, R, batch=False)
        qd = _as_f64(qd).reshape(-1)
        qdd = _as_f64(qdd).reshape(-1)
        if qd.shape != qdd.shape:
            raise ValueError(f"qd {qd.shape} and qdd {qdd.shape} must have the same shape")
        st = ewrls_step(Y, R, qd, qdd, self.v_gate, self.a_gate, self.beta, self.floor_c,
                        self.theta, self.P, self.pi0, self._g, self.counters, self.accum)
        if st == REJECTED:
            # the core checks finiteness for free; name the culprit here, on the rare path
            arrays = (("y_row", Y), ("r", R), ("qd", qd), ("qdd", qdd))
            bad = [name for name, a in arrays if not np.isfinite(a).all()]
            if bad:
                # non-finite data leave theta, P and the residual sums untouched: undo the count
                self.counters[C_SAMPLES] -= 1
                self.counters[C_REJECTED] -= 1
                for name in bad:
                    _check_finite(dict(arrays)[name], name)
        return st == UPDATED

    def run(
        self,
        Y: np.ndarray,
        R: np.ndarray,
        qd: np.ndarray | None,
        qdd: np.ndarray | None,
        *,
        record_every: int = 0,
        return_status: bool = False,
    ) -> RunHistory:
        """Process N samples in one compiled loop.

        Parameters
        ----------
        Y : array_like, shape (N, n) or (N, m, n)
            Summed rows or per-joint rows.
        R : array_like, shape (N,) or (N, m)
            Right-hand sides [N m].
        qd, qdd : array_like, shape (N, d) or (N,), or None
            Measured velocities [rad/s] and accelerations [rad/s^2] for gating; both None:
            no gating (every sample informative).
        record_every : int, default 0
            Record ``theta`` and the residuals every this many samples (0: never).
        return_status : bool, default False
            Also return the per-sample status (1 updated, 0 gated out, -1 rejected).

        Returns
        -------
        RunHistory

        Raises
        ------
        ValueError
            On wrong shapes or non-finite inputs (nothing is processed then).
        """
        Y, R = self._rows(_as_f64(Y), _as_f64(R), batch=True)
        N = Y.shape[0]
        if (qd is None) != (qdd is None):
            raise ValueError("pass both qd and qdd for gating, or neither")
        if qd is None:
            QD = np.empty((N, 0))
            QDD = QD
        else:
            QD = _as_f64(qd)
            QDD = _as_f64(qdd)
            if QD.ndim == 1:
                QD = QD.reshape(-1, 1)
            if QDD.ndim == 1:
                QDD = QDD.reshape(-1, 1)
            if QD.ndim != 2 or QD.shape != QDD.shape or QD.shape[0] != N:
                raise ValueError(f"qd {np.shape(qd)} and qdd {np.shape(qdd)} must both have shape (N={N}, d)")
            _check_finite(QD, "qd")
            _check_finite(QDD, "qdd")
        _check_finite(Y, "Y")
        _check_finite(R, "R")
        record_every = int(record_every)
        if record_every < 0:
            raise ValueError(f"record_every must be >= 0, got {record_every}")
        K = N // record_every if record_every > 0 else 0
        h_index = np.zeros(K, dtype=np.int64)
        h_theta = np.zeros((K, self.n_params))
        h_rho = np.zeros((K, 2))
        status = np.zeros(N if return_status else 0, dtype=np.int8)
        ewrls_run_kernel(Y, R, QD, QDD, self.v_gate, self.a_gate, self.beta, self.floor_c,
                         self.theta, self.P, self.pi0, self._g, self.counters, self.accum,
                         record_every, h_index, h_theta, h_rho, status)
        return RunHistory(
            index=h_index,
            t=h_index * self.ts,
            theta=h_theta,
            rho_rms=h_rho[:, 0].copy(),
            rho_rms_prior=h_rho[:, 1].copy(),
            status=status if return_status else None,
        )

    def predict(self, Y: np.ndarray) -> np.ndarray:
        """Model prediction ``Y theta`` for rows of shape (..., n) [N m] (after a first sample)."""
        self._check_fitted()
        return np.asarray(Y, dtype=np.float64) @ self.theta

    def __repr__(self) -> str:
        return (f"EWRLS(n_params={self.n_params}, lam={self.lam:g}, t_half={self.t_half:g} s, "
                f"ts={self.ts:g} s, n_updates={self.n_updates}/{self.n_samples})")
