"""Figs. 9 and 12 of paper 001: base parameters identified cycle by cycle during the warm-up.

Each cycle's Fourier segment (eq. 7) is identified by ordinary least squares on the TX40's base
parameters (the industrial room's :class:`~paperlib.robots.serial.SerialArm` regressor with
viscous and Coulomb columns per joint, base parameters by pivoted QR), with velocities and
accelerations derived from ``q``. Friction changes with temperature while the model's friction is
constant within a cycle, so the estimates drift with the cycles and settle as the gearboxes do;
the faulty day's friction step shows in joint 1's friction parameters (Fig. 12, bottom).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib.robots.base_parameters import base_parameters
from paperlib.estimation.plateaus import derive_kinematics
from paperlib.recordings import truth as rec_truth
from paperlib.robots.serial import JointColumns, SerialArm

__all__ = ["cycle_arm", "base_of", "per_cycle_parameters", "fig09_fig12"]


def cycle_arm() -> SerialArm:
    """The TX40 with viscous and Coulomb columns per joint (no rotor inertia, offset or coupling)."""
    return SerialArm.named("tx40").with_columns(JointColumns(viscous=True, coulomb=True, polynomial=False,
                                                             actuator_inertia=False, offset=False), couplings=())


def base_of(arm: SerialArm, seed: int = 0, n: int = 400):
    """Base parameters of the arm's regressor from random states."""
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(arm.lower), arm.lower, -np.pi)
    hi = np.where(np.isfinite(arm.upper), arm.upper, np.pi)
    Q = rng.uniform(lo, hi, (n, arm.n))
    W = arm.regressor(Q, rng.uniform(-2, 2, (n, arm.n)), rng.uniform(-5, 5, (n, arm.n))).reshape(-1, arm.n_params)
    return base_parameters(W, arm.param_names)


def per_cycle_parameters(ds: xr.Dataset, arm: SerialArm, bp, *, window_s: tuple[float, float] = (0.5, 19.5),
                         decimate: int = 5, cutoff_hz: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """OLS base parameters of each cycle's Fourier segment.

    Parameters
    ----------
    ds : Dataset
        A campaign day (``q``, ``tau_m``; the cycle period from its truth or 300 s).
    arm, bp
        :func:`cycle_arm` and :func:`base_of`.
    window_s : tuple of float
        Part of each cycle used [s from the cycle start] (the Fourier segment).
    decimate : int
        Keep every ``decimate``-th sample.
    cutoff_hz : float
        Derivation filter cut-off [Hz].

    Returns
    -------
    t_min : ndarray, shape (n_cycles,)
        Cycle mid-window times [min].
    beta : ndarray, shape (n_cycles, n_base)
    """
    fs = float(ds.attrs["sample_rate_hz"])
    try:
        period = float(rec_truth(ds)["cycle_period_s"])
    except Exception:  # measured data: the campaign's period
        period = 300.0
    q = ds["q"].values
    tau = ds["tau_m"].values
    n_cycles = int(q.shape[0] // round(period * fs))
    pad = int(fs)
    ts, betas = [], []
    for c in range(n_cycles):
        a = int(round((c * period + window_s[0]) * fs))
        b = int(round((c * period + window_s[1]) * fs))
        lo, hi = max(a - pad, 0), min(b + pad, q.shape[0])
        qd, qdd = derive_kinematics(q[lo:hi], fs, cutoff_hz)
        sl = slice(a - lo, b - lo, decimate)
        Q, QD, QDD = q[a:b:decimate], qd[sl], qdd[sl]
        Y = bp.columns(arm.regressor(Q, QD, QDD)).reshape(-1, bp.n_base)
        x, *_ = np.linalg.lstsq(Y, tau[a:b:decimate].reshape(-1), rcond=None)
        ts.append((c * period + 0.5 * sum(window_s)) / 60.0)
        betas.append(x)
    return np.array(ts), np.array(betas)


def fig09_fig12(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], names: Sequence[str], pick: Sequence[str],
                title: str, nominal: Mapping[str, float] | None = None,
                paper: tuple[str, float, float] | None = None):
    """Base parameters over the cycles, one panel per parameter, one line per day.

    Parameters
    ----------
    curves : mapping
        Day -> (cycle times [min], shape (n_cycles,); base parameters, shape (n_cycles, n_base))
        (:func:`per_cycle_parameters`).
    names : sequence of str
        Names of the base parameters (columns of the second array).
    pick : sequence of str
        The parameters drawn, one panel each (lettered A, B, ...).
    title : str
        The figure's one title.
    nominal : mapping, optional
        Twin truth (URDF value) of the inertial parameters, drawn as a line.
    paper : (label, first cycle, last cycle), optional
        What the paper says of the cycles (a line when both are equal, a band otherwise), e.g.
        Fig. 9's steady state after about 15 cycles.

    Returns
    -------
    matplotlib.figure.Figure
        The panels side by side; one legend below them.
    """
    from paperlib.experiments.industrial.plotting import SERIES_COLORS, legend_below, panel_letters, pyplot
    from paperlib.figures import style

    plt = pyplot()
    idx = [list(names).index(p) for p in pick]
    fig, axes = plt.subplots(1, len(pick), figsize=(3.0 * len(pick), 4.0))
    healthy = [d for d in sorted(curves) if not d.endswith("fault")]
    for ax, i, p in zip(np.atleast_1d(axes), idx, pick):
        for day, (t, b) in sorted(curves.items()):
            color = SERIES_COLORS[5] if day.endswith("fault") else SERIES_COLORS[healthy.index(day) % 5]
            ax.plot(t / 5.0, b[:, i], ".-", ms=3, lw=0.8, label=day, color=color)
        friction = p.startswith(("fv", "fs"))
        if paper is not None:
            lab, c0, c1 = paper
            if c0 == c1:
                ax.axvline(c0, label=lab, **style.role("paper"))
            else:
                ax.axvspan(c0, c1, color=style.ROLES["paper"]["color"], alpha=0.15, label=lab)
        if nominal and p in nominal and not friction:
            ax.axhline(nominal[p], label="twin truth (URDF)", **style.role("truth", linestyle=":"))
        unit = ("N m s/rad" if p.startswith("fv") else "N m" if p.startswith("fs")
                else "kg m" if p.startswith("m") else "kg m^2")
        ax.set_title(p + ("\n(friction, temperature-dependent)" if friction else "\n(inertial)"), fontsize=8)
        ax.set_ylabel(f"{p} [{unit}]", fontsize=8)
        ax.set_xlabel("cycle")
    fig.suptitle(title, fontsize=10)
    legend_below(fig, axes, ncol=6, bottom=0.13)
    panel_letters(axes, x=-0.2)
    return fig
