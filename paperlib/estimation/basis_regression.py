"""Linear regression of a joint's intrinsic torque on the basis of paper 004 (eqs. 3-16).

:class:`BasisRegression` fits ``tau = Phi(q, qd, qdd) w`` (eq. 3) with the columns of
:class:`~paperlib.friction.basis.JointTorqueBasis` and chooses its two free choices by a stated
rule instead of by hand:

* **alpha** (sigmoid sharpness, eq. 9) from a grid, and
* **the ripple orders** ``1..n`` (eq. 12), ``n`` from ``0..max_order``,

by *blocked* K-fold cross-validation (contiguous blocks of time, so that neighbouring,
correlated samples never sit on both sides of a split): the pair with the least mean held-out
squared error is found, then ``n`` is reduced to the smallest one whose error is within one
standard error of that minimum (the one-standard-error rule), at the chosen alpha.
``selection="bic"`` uses the Bayesian information criterion of the full-data fit instead
(``N ln(RSS/N) + rank ln N``).

Non-integer and high ripple orders (the wave generator of a harmonic drive turns at the gear
ratio): with ``detect_orders=True`` the residual of the integer-order fit is binned over the
joint angle and its amplitude spectrum over the order (:func:`angle_periodogram`) is searched
for peaks above a noise floor (:func:`find_ripple_orders`); each peak order is added to the
basis if it lowers the blocked-CV error by more than one standard error.

The solve is rank-revealing: the column-scaled design is decomposed by SVD, singular values
below ``rcond`` times the largest are dropped, and the numerical rank is reported. The basis
has one exact null direction (``phi_+ + phi_- = 1`` with the offset, see
:mod:`paperlib.friction.basis`); the minimum-norm solution is moved along it to the stated
**standstill convention**: ``coulomb_pos = coulomb_neg``, i.e. the friction component is zero at
``qd = 0`` and ``offset`` is the model's torque at standstill without ripple. Only the
per-direction levels ``offset + coulomb_pos`` and ``offset - coulomb_neg`` are determined by
data; they are reported as ``level_pos`` and ``level_neg``. Standard deviations come from
``sigma^2 (Phi^T Phi)^+`` mapped through the same convention.

The estimator follows :mod:`paperlib.estimation.protocol` (``params_`` are the weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from scipy import linalg as _scipy_linalg

from paperlib.estimation.protocol import EstimatorMixin, from_json_float, is_recording, recording_channels
from paperlib.friction.basis import JointTorqueBasis, SigmoidCoulomb

__all__ = ["BasisRegression", "angle_periodogram", "find_ripple_orders", "DEFAULT_ALPHA_GRID"]

#: Default grid of sigmoid sharpness alpha [s/rad].
DEFAULT_ALPHA_GRID: tuple[float, ...] = tuple(float(a) for a in np.round(np.geomspace(3.0, 3000.0, 13), 3))


# ---------------------------------------------------------------------------------------------
# periodogram over the joint angle
# ---------------------------------------------------------------------------------------------

def angle_periodogram(q: np.ndarray, r: np.ndarray, *, max_order: float = 400.0,
                      pad: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Amplitude spectrum of a signal over the joint angle, per order (cycles per revolution).

    The samples ``r`` are averaged in bins of the unwrapped angle ``q`` (width ``pi / (2 max_order)``,
    so the highest order has four bins per period); bins without samples are left at zero
    (after the mean is removed) and count in the normalisation only where they hold data.
    The binned function is zero-padded by ``pad`` and Fourier-transformed.

    Parameters
    ----------
    q : ndarray, shape (N,)
        Joint angle [rad] (any direction of motion; revisited angles average).
    r : ndarray, shape (N,)
        Signal [N m], e.g. a fit residual.
    max_order : float
        Highest order of interest [1/rev].
    pad : int
        Zero-padding factor (finer order grid for peak location).

    Returns
    -------
    orders : ndarray, shape (F,)
        Orders [1/rev].
    amplitude : ndarray, shape (F,)
        Amplitude [N m] a sinusoid ``A cos(k q + p)`` of that order would show as ``A``.
    """
    q = np.asarray(q, dtype=float).ravel()
    r = np.asarray(r, dtype=float).ravel()
    width = np.pi / (2.0 * max_order)
    lo = q.min()
    idx = np.floor((q - lo) / width).astype(np.int64)
    nb = int(idx.max()) + 1
    s = np.bincount(idx, weights=r, minlength=nb)
    c = np.bincount(idx, minlength=nb).astype(float)
    filled = c > 0
    f = np.zeros(nb)
    f[filled] = s[filled] / c[filled]
    f[filled] -= f[filled].mean()
    n_fft = int(2 ** np.ceil(np.log2(nb * max(pad, 1))))
    spec = np.fft.rfft(f, n=n_fft)
    # order k = cycles per 2 pi rad; bin spacing 'width' rad
    orders = np.fft.rfftfreq(n_fft, d=width) * 2.0 * np.pi
    amp = 2.0 * np.abs(spec) / max(filled.sum(), 1)
    keep = orders <= max_order
    return orders[keep], amp[keep]


def find_ripple_orders(q: np.ndarray, r: np.ndarray, *, min_order: float, max_order: float = 400.0,
                       snr: float = 8.0, max_peaks: int = 4, exclude: Sequence[float] = (),
                       exclude_width: float = 0.5) -> list[dict[str, float]]:
    """Peaks of :func:`angle_periodogram` above a noise floor: candidate ripple orders.

    A peak is the largest amplitude above ``min_order`` that exceeds ``snr`` times the median
    amplitude of the spectrum (the noise floor), away from ``exclude`` (orders already fitted);
    its order is refined by a parabola through the three neighbouring grid points. Before the
    next peak is sought, +/- 3 order resolutions (``2 pi / angle range``) around it are blanked,
    so side lobes are not reported as orders.

    Parameters
    ----------
    q, r : ndarray, shape (N,)
        Joint angle [rad] and residual [N m].
    min_order, max_order : float
        Search band [1/rev].
    snr : float
        Peak-to-floor amplitude ratio required.
    max_peaks : int
        At most this many peaks, largest first.
    exclude : sequence of float
        Orders to skip (within ``exclude_width``).

    Returns
    -------
    list of dict
        ``{"order", "amplitude_Nm", "snr"}`` per peak, largest first.
    """
    orders, amp = angle_periodogram(q, r, max_order=max_order)
    band = (orders >= min_order) & (orders <= max_order)
    if band.sum() < 3:
        return []
    floor = float(np.median(amp[band]))
    q = np.asarray(q, dtype=float)
    resolution = 2.0 * np.pi / max(float(np.ptp(q)), 1e-12)  # order resolution of the covered angle
    found: list[dict[str, float]] = []
    a = amp.copy()
    for _ in range(max_peaks):
        cand = np.where(band, a, 0.0)
        i = int(np.argmax(cand))
        if cand[i] <= snr * floor or i == 0 or i == len(a) - 1:
            break
        y0, y1, y2 = amp[i - 1], amp[i], amp[i + 1]
        den = y0 - 2 * y1 + y2
        shift = 0.5 * (y0 - y2) / den if den != 0 else 0.0
        k = float(orders[i] + shift * (orders[1] - orders[0]))
        # blank the main lobe and first side lobes (+/- 3 resolution widths) before the next search
        half = 3.0 * resolution
        a[np.abs(orders - orders[i]) < half] = 0.0
        if any(abs(k - e) < exclude_width for e in exclude):
            continue
        found.append({"order": round(k, 3), "amplitude_Nm": float(y1), "snr": float(y1 / floor)})
    return found


# ---------------------------------------------------------------------------------------------
# rank-revealing solve
# ---------------------------------------------------------------------------------------------

def _pinv_solve(G: np.ndarray, h: np.ndarray, rtol: float) -> np.ndarray:
    """Minimum-norm solution of the (scaled) normal equations ``G u = h`` by eigen-decomposition."""
    lam, V = _scipy_linalg.eigh(G)  # numpy's eigh costs ~20x more per small matrix here
    keep = lam > rtol * lam.max()
    return V[:, keep] @ ((V[:, keep].T @ h) / lam[keep])


@dataclass
class _Grams:
    G: np.ndarray   # (K, M, M)
    h: np.ndarray   # (K, M)
    yy: np.ndarray  # (K,)
    n: np.ndarray   # (K,)


def _block_grams(Phi: np.ndarray, y: np.ndarray, k: int) -> _Grams:
    edges = np.linspace(0, len(y), k + 1).astype(int)
    G = np.empty((k, Phi.shape[1], Phi.shape[1]))
    h = np.empty((k, Phi.shape[1]))
    yy = np.empty(k)
    for b in range(k):
        P, t = Phi[edges[b]:edges[b + 1]], y[edges[b]:edges[b + 1]]
        G[b] = P.T @ P
        h[b] = P.T @ t
        yy[b] = t @ t
    return _Grams(G, h, yy, np.diff(edges).astype(float))


def _cv_errors(gr: _Grams, cols: np.ndarray, rtol: float) -> np.ndarray:
    """Held-out mean squared error [N^2 m^2] of each block for the columns ``cols``."""
    G = gr.G[:, cols][:, :, cols]
    h = gr.h[:, cols]
    Gt, ht = G.sum(0), h.sum(0)
    scale = np.sqrt(np.clip(np.diag(Gt), 1e-300, None))
    out = np.empty(len(gr.n))
    for b in range(len(gr.n)):
        Gb = (Gt - G[b]) / np.outer(scale, scale)
        u = _pinv_solve(Gb, (ht - h[b]) / scale, rtol) / scale
        out[b] = (gr.yy[b] - 2 * u @ h[b] + u @ G[b] @ u) / gr.n[b]
    return out


# ---------------------------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------------------------

class BasisRegression(EstimatorMixin):
    """Paper 004's intrinsic-torque regression with alpha and the ripple orders chosen by rule.

    Parameters
    ----------
    alpha : float, optional
        Fix the sigmoid sharpness [s/rad]; ``None`` selects it from ``alpha_grid``.
    orders : sequence of float, optional
        Fix the ripple orders; ``None`` selects ``1..n`` with ``n <= max_order``.
    alpha_grid : sequence of float
        Candidates for alpha [s/rad].
    max_order : int
        Largest integer ripple order tried.
    selection : {"blocked_cv", "bic"}
        The selection rule (module docstring).
    n_folds : int
        Number of contiguous blocks for blocked cross-validation.
    detect_orders : bool
        Search the residual's angle periodogram for further (non-integer, high) orders.
    search_max_order : float
        Upper end of that search [1/rev].
    rcond : float
        Relative singular-value cut-off of the rank-revealing solve.

    Attributes
    ----------
    basis_ : JointTorqueBasis
    weights_, std_ : ndarray, shape (n_columns,)
        Weights (standstill convention) and their standard deviations.
    params_ : ndarray, shape (n_columns,)
        ``weights_`` (the protocol's name).
    alpha_ : float
    orders_ : tuple of float
    rank_ : int
        Numerical rank of the design (``n_columns - 1`` for the paper's basis).
    singular_values_ : ndarray
        Of the column-scaled design, descending.
    residual_rms_ : float
        RMS of the full-data residual [N m].
    selection_ : dict
        The table of the rule: candidates, their score, the chosen ones.
    detected_orders_ : list of dict
        Periodogram peaks found, and whether each was kept.
    """

    _fitted_attr = "weights_"

    def __init__(self, *, alpha: float | None = None, orders: Sequence[float] | None = None,
                 alpha_grid: Sequence[float] = DEFAULT_ALPHA_GRID, max_order: int = 12,
                 selection: str = "blocked_cv", n_folds: int = 5, detect_orders: bool = True,
                 search_max_order: float = 400.0, rcond: float = 1e-9) -> None:
        if selection not in ("blocked_cv", "bic"):
            raise ValueError(f"BasisRegression: selection must be 'blocked_cv' or 'bic', got {selection!r}")
        if n_folds < 2:
            raise ValueError("BasisRegression: n_folds must be >= 2")
        self.alpha = alpha
        self.orders = None if orders is None else tuple(float(k) for k in orders)
        self.alpha_grid = tuple(float(a) for a in alpha_grid)
        self.max_order = int(max_order)
        self.selection = selection
        self.n_folds = int(n_folds)
        self.detect_orders = bool(detect_orders)
        self.search_max_order = float(search_max_order)
        self.rcond = float(rcond)

    # -- selection ---------------------------------------------------------------------------
    def _score(self, Phi: np.ndarray, y: np.ndarray, gr: _Grams | None, cols: np.ndarray) -> tuple[float, float]:
        if self.selection == "blocked_cv":
            e = _cv_errors(gr, cols, self.rcond ** 2)
            return float(e.mean()), float(e.std(ddof=1) / np.sqrt(len(e)))
        w, rank, *_ = _svd_solve(Phi[:, cols], y, self.rcond)
        rss = float(np.sum((y - Phi[:, cols] @ w) ** 2))
        n = len(y)
        return float(n * np.log(rss / n) + rank * np.log(n)), 0.0

    def _select(self, q, qd, qdd, y) -> tuple[float, tuple[float, ...], dict[str, Any]]:
        alphas = (self.alpha,) if self.alpha is not None else self.alpha_grid
        ns = None if self.orders is not None else range(0, self.max_order + 1)
        table: list[dict[str, Any]] = []
        best: dict[float, list[tuple[int, float, float]]] = {}
        full_orders = self.orders if self.orders is not None else tuple(float(k) for k in range(1, self.max_order + 1))
        Phi = JointTorqueBasis(alphas[0], full_orders).columns(q, qd, qdd)
        for a in alphas:
            full = JointTorqueBasis(a, full_orders)
            Phi[:, 0:2] = SigmoidCoulomb(a).regressor(qd)  # only the sigmoid columns depend on alpha
            gr = _block_grams(Phi, y, self.n_folds) if self.selection == "blocked_cv" else None
            rows = []
            for n in (ns if ns is not None else [len(self.orders)]):
                cols = _columns_for(full.n_columns, len(full.orders), n)
                s, se = self._score(Phi, y, gr, cols)
                rows.append((n, s, se))
                table.append({"alpha": a, "n": n, "score": s, "se": se})
            best[a] = rows
        # global minimum, then the one-standard-error rule over n at that alpha
        a_best, n_min, s_min, se_min = min(((a, n, s, se) for a, rows in best.items() for n, s, se in rows),
                                          key=lambda t: t[2])
        if ns is None and self.selection == "blocked_cv":
            n_pick = min(n for n, s, se in best[a_best] if s <= s_min + se_min)
        else:
            n_pick = n_min
        orders = self.orders if self.orders is not None else tuple(float(k) for k in range(1, n_pick + 1))
        info = {"rule": ("blocked K-fold cross-validation (contiguous blocks), least mean held-out MSE, "
                         "then the smallest n within one standard error" if self.selection == "blocked_cv"
                         else "Bayesian information criterion N ln(RSS/N) + rank ln N"),
                "n_folds": self.n_folds if self.selection == "blocked_cv" else None,
                "score_unit": "N^2 m^2" if self.selection == "blocked_cv" else "1",
                "alpha": a_best, "n_at_minimum": n_min, "n": n_pick, "table": table}
        return a_best, orders, info

    # -- fit ---------------------------------------------------------------------------------
    def fit(self, q: Any, qd: np.ndarray | None = None, qdd: np.ndarray | None = None,
            tau: np.ndarray | None = None, *, joint: int | None = None) -> "BasisRegression":
        """Fit on one or more no-load runs (concatenated samples).

        Parameters
        ----------
        q, qd, qdd : ndarray, shape (N,)
            Joint angle [rad], velocity [rad/s], acceleration [rad/s^2]. Or ``q`` is a
            recording with the channels ``q``, ``qd``, ``qdd`` and ``tau_s`` (and the others
            are left out).
        tau : ndarray, shape (N,)
            Sensed joint torque [N m].
        joint : int, optional
            The joint of a several-joint recording.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Missing or non-finite samples, lengths that differ, too few samples (a missing
            recording channel: :class:`paperlib.recordings.RecordingError`, a ``ValueError``).
        """
        if is_recording(q):
            q, qd, qdd, tau = recording_channels(q, ("q", "qd", "qdd", "tau_s"), joint=joint,
                                                 who="BasisRegression.fit")
        missing = [n for n, a in (("qd", qd), ("qdd", qdd), ("tau", tau)) if a is None]
        if missing:
            raise ValueError(f"BasisRegression.fit: {', '.join(missing)} missing")
        q, qd, qdd, y = (np.asarray(a, dtype=float).ravel() for a in (q, qd, qdd, tau))
        if not (q.size == qd.size == qdd.size == y.size):
            raise ValueError("BasisRegression.fit: q, qd, qdd, tau must have one length")
        if not np.all(np.isfinite(np.concatenate([q, qd, qdd, y]))):
            raise ValueError("BasisRegression.fit: non-finite samples")
        if y.size < 10 * (5 + 2 * self.max_order):
            raise ValueError(f"BasisRegression.fit: {y.size} samples are too few for the basis")
        alpha, orders, info = self._select(q, qd, qdd, y)
        self.detected_orders_: list[dict[str, Any]] = []
        if self.detect_orders and self.orders is None:
            orders = self._add_detected(q, qd, qdd, y, alpha, orders, info)
        self._solve(q, qd, qdd, y, alpha, orders)
        self.selection_ = info
        return self

    def _add_detected(self, q, qd, qdd, y, alpha, orders, info) -> tuple[float, ...]:
        basis = JointTorqueBasis(alpha, orders)
        Phi = basis.columns(q, qd, qdd)
        w, *_ = _svd_solve(Phi, y, self.rcond)
        resid = y - Phi @ w
        peaks = find_ripple_orders(q, resid, min_order=self.max_order + 0.5, max_order=self.search_max_order,
                                   exclude=orders)
        for pk in peaks:
            trial = tuple(orders) + (pk["order"],)
            P_new = JointTorqueBasis(alpha, trial).columns(q, qd, qdd)
            gr = _block_grams(P_new, y, self.n_folds)
            e_old = _cv_errors(gr, np.r_[0:4, 4:4 + len(orders), 4 + len(trial):4 + len(trial) + len(orders),
                                          P_new.shape[1] - 1], self.rcond ** 2)
            e_new = _cv_errors(gr, np.arange(P_new.shape[1]), self.rcond ** 2)
            se = e_old.std(ddof=1) / np.sqrt(len(e_old))
            kept = bool(e_new.mean() < e_old.mean() - se)
            self.detected_orders_.append({**pk, "cv_mse_without": float(e_old.mean()),
                                          "cv_mse_with": float(e_new.mean()), "kept": kept})
            if kept:
                orders = trial
        info["detected"] = self.detected_orders_
        return tuple(orders)

    def _solve(self, q, qd, qdd, y, alpha, orders) -> None:
        basis = JointTorqueBasis(alpha, tuple(orders))
        Phi = basis.columns(q, qd, qdd)
        w0, rank, sv, cov_scaled_pinv = _svd_solve(Phi, y, self.rcond)
        resid = y - Phi @ w0
        dof = max(y.size - rank, 1)
        sigma2 = float(resid @ resid / dof)
        # move along the known null direction to the standstill convention (coulomb_pos = coulomb_neg)
        M = basis.n_columns
        nvec = basis.null_direction()
        a = np.zeros(M)
        a[0], a[1] = -0.5, 0.5                     # t = (w_neg - w_pos) / 2
        A = np.eye(M) + np.outer(nvec, a)
        self.basis_ = basis
        self.alpha_ = float(alpha)
        self.orders_ = tuple(float(k) for k in orders)
        self.weights_ = A @ w0
        cov = sigma2 * (A @ cov_scaled_pinv @ A.T)
        self.std_ = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        self.cov_ = cov
        self.rank_ = int(rank)
        self.singular_values_ = sv
        self.residual_rms_ = float(np.sqrt(np.mean(resid ** 2)))
        self.tau_rms_ = float(np.sqrt(np.mean(y ** 2)))
        self.n_samples_ = int(y.size)

    # -- use ---------------------------------------------------------------------------------
    def _check(self) -> None:
        self._check_fitted()

    @property
    def params_(self) -> np.ndarray:
        """The weights (``weights_``), shape (n_columns,)."""
        return self.weights_

    def predict(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Predicted intrinsic torque [N m] (eq. 6), shape (N,)."""
        self._check()
        return self.basis_.columns(q, qd, qdd) @ self.weights_

    def components(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> dict[str, np.ndarray]:
        """The components of Fig. 3c: ``friction``, ``inertia``, ``ripple``, ``offset`` [N m], each (N,)."""
        self._check()
        Phi = self.basis_.columns(q, qd, qdd)
        return {name: Phi[:, sl] @ self.weights_[sl] for name, sl in self.basis_.groups().items()}

    @property
    def named_weights_(self) -> dict[str, float]:
        return dict(zip(self.basis_.names, map(float, self.weights_)))

    def levels(self) -> dict[str, float]:
        """Identifiable per-direction levels [N m]: ``level_pos = offset + coulomb_pos``, ``level_neg = offset - coulomb_neg``."""
        w = self.named_weights_
        return {"level_pos": w["offset"] + w["coulomb_pos"], "level_neg": w["offset"] - w["coulomb_neg"]}

    def ripple_amplitudes(self) -> dict[str, float]:
        """Amplitude [N m] of each fitted ripple order."""
        w = self.named_weights_
        return {f"{k:g}": float(np.hypot(w[f"cos_{k:g}"], w[f"sin_{k:g}"])) for k in self.orders_}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description: weights, their std, chosen alpha and orders, fit residual."""
        self._check()
        return {
            "description": "paper004 joint intrinsic torque basis (sigmoid Coulomb +/-, viscous, inertia, ripple, offset)",
            "convention": "standstill: coulomb_pos = coulomb_neg (friction zero at qd = 0); "
                          "identifiable: level_pos = offset + coulomb_pos, level_neg = offset - coulomb_neg",
            "units": {"alpha": "s/rad", "weights": "N m per unit of each column (coulomb: N m, viscous: "
                      "N m s/rad, inertia: kg m^2, ripple and offset: N m)", "residual_rms": "N m",
                      "levels": "N m", "ripple_amplitude": "N m"},
            "alpha": self.alpha_,
            "orders": list(self.orders_),
            "names": list(self.basis_.names),
            "weights": self.named_weights_,
            "std": dict(zip(self.basis_.names, map(float, self.std_))),
            "levels": self.levels(),
            "ripple_amplitude": self.ripple_amplitudes(),
            "rank": self.rank_,
            "n_columns": self.basis_.n_columns,
            "residual_rms": self.residual_rms_,
            "tau_rms": self.tau_rms_,
            "n_samples": self.n_samples_,
            "selection": getattr(self, "selection_", None),
        }

    def _to_json(self) -> dict[str, Any]:
        return self.to_dict()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "BasisRegression":
        """Rebuild a fitted model from :meth:`to_json` output (enough to predict)."""
        return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "BasisRegression":
        """Rebuild a fitted model from :meth:`to_dict` output (enough to predict)."""
        try:
            alpha = float(d["alpha"])
            orders = tuple(float(k) for k in d["orders"])
            basis = JointTorqueBasis(alpha, orders)
            w = d["weights"]
            weights = np.array([float(w[n]) for n in basis.names])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a basis-regression model ({type(exc).__name__}: {exc})") from None
        self = cls(alpha=alpha, orders=orders, detect_orders=False)
        self.basis_, self.alpha_, self.orders_, self.weights_ = basis, alpha, orders, weights
        std = d.get("std") or {}
        self.std_ = np.array([from_json_float(std.get(n)) for n in basis.names])
        self.rank_ = int(d.get("rank", -1))
        self.residual_rms_ = from_json_float(d.get("residual_rms"))
        self.tau_rms_ = from_json_float(d.get("tau_rms"))
        self.n_samples_ = int(d.get("n_samples", 0))
        self.selection_ = d.get("selection")
        return self


def _columns_for(n_columns_full: int, n_orders_full: int, n: int) -> np.ndarray:
    """Column indices of the basis with orders ``1..n`` inside the one with ``1..n_orders_full``."""
    cos = np.arange(4, 4 + n)
    sin = np.arange(4 + n_orders_full, 4 + n_orders_full + n)
    return np.r_[0:4, cos, sin, n_columns_full - 1]


def _svd_solve(Phi: np.ndarray, y: np.ndarray, rcond: float):
    """Rank-revealing least squares on the column-scaled design.

    Returns
    -------
    w : ndarray (M,)
        Minimum-norm solution (in the scaled coordinates) mapped back.
    rank : int
    sv : ndarray
        Singular values of the scaled design, descending, normalised by the largest.
    pinv_cov : ndarray (M, M)
        ``(Phi^T Phi)^+`` in the original coordinates (rank-truncated).
    """
    scale = np.linalg.norm(Phi, axis=0)
    scale[scale == 0] = 1.0
    U, s, Vt = np.linalg.svd(Phi / scale, full_matrices=False)
    keep = s > rcond * s[0]
    rank = int(keep.sum())
    coef = (U[:, keep].T @ y) / s[keep]
    w = (Vt[keep].T @ coef) / scale
    Vk = Vt[keep].T / scale[:, None]
    pinv_cov = (Vk / s[keep] ** 2) @ Vk.T
    return w, rank, s / s[0], pinv_cov
