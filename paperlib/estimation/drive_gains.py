"""Drive gains identified with the base parameters, from a second run carrying a known payload.

A drive logs its motor current ``i``; the joint torque is ``tau = C(i) k`` with one gain per
drive (:func:`paperlib.estimation.serial_inputs.current_columns`: ``tau_j = k_j i_j`` for
joint-side gains [N m per A], ``tau = R^T diag(k) i`` for motor-side ones through the gear
matrix ``R``). The inverse dynamic model is linear in the base parameters ``beta``:
``Y_b(q, qd, qdd) beta = C(i) k``. On one run this is homogeneous in ``(beta, k)``: any common
scale fits, so the gains are not observable. A second run with a payload of *known* inertial
parameters ``pi_L`` (mass, centre of mass, inertia; rigidly fixed to the last link) adds the
known torque ``p = Y_L(q, qd, qdd) pi_L`` (the last link's ten inertial columns of the full
regressor), which fixes the scale.

Derivation. Write the model in the space of the measurement, the currents, with the inverse
gains ``g = 1 / k`` and ``T = I`` (joint-side gains) or ``T = R^-T`` (motor-side):

    i_m = g_m  T_m (Y_b beta + p)        (p = 0 on the run without payload)

Every noise of the log (current noise, resampling error) is then in the left-hand side, as in
ordinary IDIM. The model is bilinear in ``(beta, g)``; it is solved by Gauss-Newton on the
stacked rows of both runs, with the Jacobian ``[g_m T_m Y_b, T_m (Y_b beta + p)]`` and per-row
WLS weights (one noise level per drive), started from the linear solution of the homogeneous
form ``Y_b beta - C(i) k = -p`` (rows ``[Y_b, -C(i)]``: linear, but with the noisy currents
inside the regressor, an errors-in-variables problem whose gains are biased towards zero; on a
twin log with an industrial arm's noise level this bias was 20-60 % on the gain of the vertical first
axis, whose only scale information is the payload's inertia about it). The covariance of
``(beta, g)`` is that of the last linearised WLS step; the gains' standard deviations follow by
``std(k_m) = std(g_m) / g_m^2``.

Every gain is observable as long as the payload's torque excites its drive (the payload's mass
away from the joint's axis or its inertia about it), which the result's condition number and
the gains' standard deviations show.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from paperlib.robots.serial.spatial import inertial_from_com

__all__ = ["KnownPayload", "parse_payload", "payload_torque", "gain_rows", "gain_names", "fit_gains", "GainRun"]


@dataclass(frozen=True)
class KnownPayload:
    """A payload of known inertial parameters on the last link (SI, last joint frame).

    Attributes
    ----------
    mass_kg : float
    com_m : tuple of 3 float
        Centre of mass [m] in the last joint's frame.
    inertia_kg_m2 : tuple of 6 float
        ``ixx, ixy, ixz, iyy, iyz, izz`` about the centre of mass [kg m^2] (zeros: a point mass).
    """

    mass_kg: float
    com_m: tuple[float, float, float]
    inertia_kg_m2: tuple[float, ...] = (0.0,) * 6

    def standard(self) -> np.ndarray:
        """The 10 standard parameters about the last joint frame's origin, shape (10,)."""
        ixx, ixy, ixz, iyy, iyz, izz = self.inertia_kg_m2
        Ic = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        return inertial_from_com(self.mass_kg, self.com_m, Ic)

    def to_dict(self) -> dict[str, Any]:
        return {"mass_kg": self.mass_kg, "com_m": list(self.com_m), "inertia_kg_m2": list(self.inertia_kg_m2)}


def parse_payload(text: str) -> KnownPayload:
    """A payload from ``MASS_KG,CX,CY,CZ[,IXX,IXY,IXZ,IYY,IYZ,IZZ]`` or a TOML file.

    The TOML file holds ``mass_kg``, ``com_m = [cx, cy, cz]`` and optionally
    ``inertia_kg_m2 = [ixx, ixy, ixz, iyy, iyz, izz]`` (about the centre of mass), at top level
    or in a ``[payload]`` table; all in the last joint's frame.

    Raises
    ------
    ValueError
        Naming the expected form.
    """
    form = ("give --payload MASS_KG,CX,CY,CZ[,IXX,IXY,IXZ,IYY,IYZ,IZZ] (kg, m in the last joint's frame, kg m^2 "
            "about the centre of mass) or a TOML file with mass_kg, com_m and inertia_kg_m2")
    if text.endswith(".toml"):
        try:
            d = tomllib.loads(Path(text).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"--payload {text}: cannot read ({exc}); {form}") from None
        d = d.get("payload", d)
        try:
            vals = [float(d["mass_kg"]), *map(float, d["com_m"]), *map(float, d.get("inertia_kg_m2", [0.0] * 6))]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"--payload {text}: {type(exc).__name__} {exc}; {form}") from None
    else:
        try:
            vals = [float(x) for x in text.split(",")]
        except ValueError:
            raise ValueError(f"--payload {text!r} is not a list of numbers; {form}") from None
    if len(vals) not in (4, 10):
        raise ValueError(f"--payload has {len(vals)} values; {form}")
    if not np.all(np.isfinite(vals)) or vals[0] <= 0:
        raise ValueError(f"--payload mass must be positive and every value finite; got {vals}; {form}")
    inertia = tuple(vals[4:]) if len(vals) == 10 else (0.0,) * 6
    return KnownPayload(vals[0], (vals[1], vals[2], vals[3]), inertia)


def payload_torque(arm: Any, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, payload: KnownPayload) -> np.ndarray:
    """Joint torques (N, n) [N m] of the payload alone: the last link's inertial columns times ``pi_L``."""
    n = arm.n
    Yi = arm.inertial_regressor(q, qd, qdd)
    return Yi[:, :, 10 * (n - 1): 10 * n] @ payload.standard()


def gain_names(n: int) -> list[str]:
    """Names of the gain unknowns, ``K1..Kn``."""
    return [f"K{j + 1}" for j in range(n)]


def gain_rows(Y: np.ndarray, current: np.ndarray, mask: np.ndarray, R: np.ndarray | None,
              rhs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacked rows ``[Y_b, -C(i)]`` and right-hand side of one run (see the module docstring).

    Parameters
    ----------
    Y : ndarray, shape (N, n, r)
        Base regressor.
    current : ndarray, shape (N, n)
        Filtered currents [A].
    mask : ndarray of bool, shape (N, n)
        Rows used.
    R : ndarray, shape (n, n), or None
        Gear matrix for motor-side gains; None for joint-side ones.
    rhs : ndarray, shape (N, n), optional
        ``-Y_L pi_L`` of the payload run (default 0).

    Returns
    -------
    A : ndarray, shape (m, r + n)
    b : ndarray, shape (m,)
    joint : ndarray of int, shape (m,)
    """
    from paperlib.estimation.serial_inputs import current_columns

    C = current_columns(current, R)
    A = np.concatenate([Y, -C], axis=2)[mask]
    b = np.zeros(A.shape[0]) if rhs is None else rhs[mask]
    joint = np.broadcast_to(np.arange(Y.shape[1]), mask.shape)[mask]
    return A, b, joint


def stack(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of several runs, one after the other."""
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


@dataclass
class GainRun:
    """One run of a drive-gain fit: base regressor (N, n, r), filtered currents (N, n) [A], rows
    used (N, n) bool, and the payload's torque (N, n) [N m] or None."""

    Y: np.ndarray
    current: np.ndarray
    mask: np.ndarray
    payload: np.ndarray | None = None


def fit_gains(runs: Sequence[GainRun], R: np.ndarray | None, names: Sequence[str], method: str = "wls",
              max_iter: int = 30, tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]:
    """Base parameters and drive gains from runs of which at least one carries a known payload.

    Parameters
    ----------
    runs : sequence of GainRun
    R : ndarray, shape (n, n), or None
        Gear matrix for motor-side gains (None: joint-side gains).
    names : sequence of str
        Base parameter names (r of them).
    method : {"ols", "wls"}
    max_iter, tol : int, float
        Gauss-Newton iterations and relative step tolerance.

    Returns
    -------
    beta, beta_std : ndarray, shape (r,)
    k, k_std : ndarray, shape (n,)
        Drive gains [N m per A] and their standard deviations.
    ls : LinearLeastSquares
        The last linearised fit (its ``sigma_`` per drive in A, ``cond_``).
    """
    from paperlib.estimation.least_squares import LinearLeastSquares

    if not any(r.payload is not None for r in runs):
        raise ValueError("drive gains need a run with a known payload (--payload-run, --payload)")
    n = runs[0].Y.shape[1]
    r = runs[0].Y.shape[2]
    T = np.eye(n) if R is None else np.linalg.inv(R).T
    kind = "ols" if method == "ols" else "wls"
    # rows per run in current space: TY (N, n, r), Tp (N, n), masks per drive row
    prepared = []
    for run in runs:
        TY = np.einsum("mj,sjr->smr", T, run.Y) if R is not None else run.Y
        Tp = np.zeros(run.current.shape) if run.payload is None else run.payload @ T.T
        # a drive's row is used when every joint it moves passes the gate
        mk = run.mask if R is None else np.all(run.mask[:, None, :] | (np.abs(T)[None, :, :] == 0), axis=2)
        prepared.append((TY[mk], Tp[mk], run.current[mk], np.broadcast_to(np.arange(n), mk.shape)[mk]))
    TY = np.concatenate([p[0] for p in prepared])
    Tp = np.concatenate([p[1] for p in prepared])
    cur = np.concatenate([p[2] for p in prepared])
    drive = np.concatenate([p[3] for p in prepared])
    # start: the linear homogeneous form, rows [T Y, -diag(i)] k-space written with g: i = g (TY beta + Tp)
    A0 = np.concatenate([TY, -cur[:, None] * (drive[:, None] == np.arange(n)[None, :])], axis=1)
    ls = LinearLeastSquares(kind, list(names) + [f"K{m + 1}" for m in range(n)]).fit(A0, -Tp, drive)
    beta, k = ls.theta_[:r], ls.theta_[r:]
    if np.any(k == 0):
        raise ValueError("the linear start gives a zero drive gain: the payload run does not excite that drive")
    g = 1.0 / k
    gn = [f"g{m + 1}" for m in range(n)]
    for _ in range(max_iter):
        tau_hat = TY @ beta + Tp
        J = np.concatenate([g[drive][:, None] * TY, tau_hat[:, None] * (drive[:, None] == np.arange(n)[None, :])], axis=1)
        # linearised: i = J theta_new - g tau_hat + g (TY beta) + tau_hat g ... i.e. rhs = i + g[drive] * (TY @ beta)
        rhs = cur + g[drive] * (TY @ beta)
        ls = LinearLeastSquares(kind, list(names) + gn).fit(J, rhs, drive)
        new_beta, new_g = ls.theta_[:r], ls.theta_[r:]
        step = np.linalg.norm(np.r_[new_beta - beta, new_g - g]) / max(np.linalg.norm(np.r_[new_beta, new_g]), 1e-300)
        beta, g = new_beta, new_g
        if step < tol:
            break
    k = 1.0 / g
    k_std = ls.std_[r:] / g ** 2
    return beta, ls.std_[:r], k, k_std, ls
