"""Base (identifiable) parameters of a linear-in-parameters model, by QR factorization.

Gautier's numerical method (Gautier 1990; Khalil & Dombre, *Modeling, Identification and
Control of Robots*, Sec. 12.3): stack the regressor ``W`` (rows, p) over random states,

1. the rank ``r`` from a QR factorization **with column pivoting** of the column-normalised
   ``W``: the diagonal ``|R_ii|`` falls by many orders of magnitude after ``r`` (on a 6-DOF
   industrial arm, ~1e-3 relative, then ~1e-13); the tolerance ``tol`` (relative to ``|R_00|``) sits in the gap;
2. the base columns in the natural order: a column is kept when it is not a combination of the
   columns *before* it (QR without pivoting, ``|R_ii| > tol ||W_i||``), so that later parameters
   are regrouped into earlier ones (``ZZ1R = ZZ1 + YY2 + ...``, ``XX2R = XX2 - YY2``), Khalil's
   convention; the count is checked against the pivoted rank;
3. the regrouping ``W_d = W_b K_d`` by least squares, so ``beta = pi_b + K_d pi_d`` and
   ``W pi = W_b beta`` for every parameter vector ``pi``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.linalg as sla

__all__ = ["BaseParameters", "base_parameters"]


@dataclass(frozen=True)
class BaseParameters:
    """The base parameters of a regressor.

    Attributes
    ----------
    names : tuple of str
        Base parameter names: the kept column's name, with ``R`` appended when others are
        regrouped into it.
    index : ndarray of int, shape (r,)
        Kept (base) columns of the full regressor.
    K : ndarray, shape (r, p)
        ``beta = K @ pi`` (identity on the kept columns).
    full_names : tuple of str
        Names of the full parameter vector (``p``).
    rank : int
    diag : ndarray
        ``|R_ii| / |R_00|`` of the pivoted QR (descending), for the gap.
    tol : float
        Relative tolerance used.
    """

    names: tuple[str, ...]
    index: np.ndarray
    K: np.ndarray
    full_names: tuple[str, ...]
    rank: int
    diag: np.ndarray
    tol: float

    @property
    def n_base(self) -> int:
        return len(self.names)

    def project(self, params: np.ndarray) -> np.ndarray:
        """Base parameter values ``K @ params`` of full parameter vector(s) (..., p) -> (..., r)."""
        return np.asarray(params) @ self.K.T

    def columns(self, Y: np.ndarray) -> np.ndarray:
        """The base columns of a full regressor (..., p) -> (..., r)."""
        return np.asarray(Y)[..., self.index]

    def regroupings(self, digits: int = 6, drop: float = 1e-10) -> list[tuple[str, str, list[tuple[float, str]]]]:
        """``(base name, kept parameter, [(coefficient, regrouped parameter), ...])`` per regrouped parameter.

        Coefficients are rounded to ``digits`` significant digits; entries below ``drop``
        (relative to the row's largest) are left out; the regrouped parameters come in the
        full vector's order. Base parameters with nothing regrouped into them are not listed.
        """
        out = []
        for k, j in enumerate(self.index):
            row = self.K[k]
            others = [i for i in np.flatnonzero(np.abs(row) > drop * np.max(np.abs(row))) if i != j]
            if others:
                out.append((self.names[k], self.full_names[j],
                            [(float(f"{row[i]:.{digits}g}"), self.full_names[i]) for i in others]))
        return out

    def relations(self, digits: int = 6, drop: float = 1e-10) -> list[str]:
        """The regrouping relations as text, e.g. ``'XX2R = XX2 - YY2 - 0.050625*m3'``.

        The kept parameter first, then the regrouped ones in the full vector's order; a
        coefficient of +-1 is written as a sign only. See :meth:`regroupings` for ``digits`` and
        ``drop``. (Plain text, no sympy: the command line answers without importing it.)
        """
        lines = []
        for name, kept, terms in self.regroupings(digits, drop):
            rhs = kept
            for c, p in terms:
                sign = "-" if c < 0 else "+"
                mag = abs(c)
                rhs += f" {sign} {p}" if mag == 1.0 else f" {sign} {mag:.{digits}g}*{p}"
            lines.append(f"{name} = {rhs}")
        return lines

    def relations_sympy(self, digits: int = 6, drop: float = 1e-10) -> list[tuple[object, object]]:
        """``(Symbol('ZZ1R'), ZZ1 + YY2 + ...)`` pairs (sympy) for each regrouped parameter."""
        import sympy as sp

        out = []
        for name, kept, terms in self.regroupings(digits, drop):
            expr = sp.Symbol(kept)
            for c, p in terms:
                expr = expr + sp.Float(c, digits) * sp.Symbol(p)
            out.append((sp.Symbol(name), expr))
        return out


def base_parameters(W: np.ndarray, names: Sequence[str], tol: float = 1e-6) -> BaseParameters:
    """Base parameters of the stacked regressor ``W``.

    Parameters
    ----------
    W : ndarray, shape (rows, p)
        Regressor rows stacked over many (random) states.
    names : sequence of str, length p
        Parameter names.
    tol : float
        Relative tolerance on the QR diagonal (see the module docstring).

    Returns
    -------
    BaseParameters

    Raises
    ------
    ValueError
        On a shape mismatch, fewer rows than columns, or when the natural-order selection
        disagrees with the pivoted rank (no gap at ``tol``).
    """
    W = np.asarray(W, dtype=np.float64)
    names = tuple(names)
    if W.ndim != 2 or W.shape[1] != len(names):
        raise ValueError(f"W must be (rows, {len(names)}); got {W.shape}")
    if W.shape[0] < W.shape[1]:
        raise ValueError(f"need at least as many rows as parameters ({W.shape[1]}); got {W.shape[0]}")
    norms = np.linalg.norm(W, axis=0)
    # a column of rounding noise only (a parameter with no effect, computed as 1e-16's) is zero
    norms = np.where(norms > 1e-10 * norms.max(), norms, 0.0)
    W = np.where(norms > 0, W, 0.0)
    scale = np.where(norms > 0, norms, 1.0)
    Wn = W / scale
    _, Rp, _ = sla.qr(Wn, mode="economic", pivoting=True)
    d = np.abs(np.diag(Rp))
    diag = d / d[0] if d[0] > 0 else d
    rank = int(np.sum(diag > tol))
    _, Ru = sla.qr(Wn, mode="economic")
    keep = np.flatnonzero((np.abs(np.diag(Ru)) > tol) & (norms > 0))
    if keep.size != rank:
        raise ValueError(
            f"base parameters: {keep.size} columns independent of their predecessors but pivoted rank {rank} "
            f"at tol={tol:g}; choose a tolerance in the gap of |R_ii| (diag = {np.array2string(diag[:rank + 2], precision=2)})"
        )
    dep = np.setdiff1d(np.arange(W.shape[1]), keep)
    K = np.zeros((keep.size, W.shape[1]))
    K[np.arange(keep.size), keep] = 1.0
    if dep.size:
        Kd, *_ = np.linalg.lstsq(W[:, keep], W[:, dep], rcond=None)
        Kd[np.abs(Kd) < 1e-12 * max(1.0, np.max(np.abs(Kd)))] = 0.0
        K[:, dep] = Kd
    base_names = []
    for k, j in enumerate(keep):
        regrouped = np.any(np.abs(np.delete(K[k], j)) > 1e-10)
        base_names.append(names[j] + ("R" if regrouped else ""))
    return BaseParameters(tuple(base_names), keep, K, names, rank, diag, tol)
