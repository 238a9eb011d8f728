"""Friction models side by side: Coulomb, viscous, Coulomb + viscous, polynomial, Stribeck, Kostic, LuGre.

The truth is the twins' richest law, LuGre (a Stribeck steady curve, bristle dynamics with
presliding and hysteresis). Two experiments on one joint:

1. **steady**: constant-velocity plateaus (as in paper 001), the torque averaged at each
   velocity: the steady friction curve, with noise;
2. **dynamic**: a slow sinusoidal motion through zero velocity: LuGre's presliding and
   hysteresis, which no static curve can follow.

Each static model is fitted to experiment 1 by a stated rule -- linear least squares for the
models linear in their parameters (the per-joint columns of :func:`paperlib.robots.serial.joint_columns`:
Coulomb ``sign(v)``, viscous ``v``, the polynomial of paper 001 eq. 4 ``sign, v, v^2 sign, v^3``),
nonlinear least squares (:func:`scipy.optimize.least_squares`, stated starting point) for
Stribeck and Kostic -- and then judged on both experiments.

The laws themselves come from the friction layer (``paperlib.friction``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from paperlib.friction.kostic import KosticLaw
from paperlib.robots.serial import JointColumns, joint_columns

import paperlib.friction.lugre as _lg

__all__ = ["truth_row", "steady_data", "lugre_response", "Model", "fit_models", "LINEAR_MODELS", "curves_figure"]

T_REF = 25.0

#: Linear models: name -> which per-joint columns.
LINEAR_MODELS: dict[str, JointColumns] = {
    "Coulomb": JointColumns(viscous=False, coulomb=True, polynomial=False, actuator_inertia=False, offset=False),
    "viscous": JointColumns(viscous=True, coulomb=False, polynomial=False, actuator_inertia=False, offset=False),
    "Coulomb + viscous": JointColumns(viscous=True, coulomb=True, polynomial=False, actuator_inertia=False, offset=False),
    "polynomial (eq. 4 of paper 001)": JointColumns(viscous=True, coulomb=True, polynomial=True, actuator_inertia=False, offset=False),
}


def truth_row(coulomb_Nm: float = 0.8, static_Nm: float = 1.2, stribeck_velocity: float = 0.05,
              viscous: float = 0.3, sigma0: float = 2000.0, sigma1: float = 20.0) -> np.ndarray:
    """A LuGre parameter row (layout of the friction layer) with linear viscous friction and no temperature effect."""
    fj = _lg.FrictionJoint(
        coulomb_Nm=coulomb_Nm, static_Nm=static_Nm, stribeck_velocity_rad_per_s=stribeck_velocity,
        stribeck_exponent=2.0, viscous_Nm_s_per_rad=viscous, viscous_thinning_velocity_rad_per_s=1e6,
        viscous_exponent=1.0, bristle_stiffness_Nm_per_rad=sigma0, bristle_damping_Nm_s_per_rad=sigma1,
        bristle_damping_velocity_rad_per_s=0.05, coulomb_temp_coeff_per_K=0.0, viscous_temp_decay_per_K=0.0,
        reference_temperature_degC=T_REF)
    return fj.row()


def steady_curve(row: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The LuGre law's steady (sliding) friction at velocities ``v`` [rad/s] -> [N m]."""
    return np.array([_lg.steady_friction(float(x), row, T_REF) for x in np.ravel(v)]).reshape(np.shape(v))


def steady_data(row: np.ndarray, v_min: float = 0.003, v_max: float = 3.0, n_levels: int = 25,
                noise_Nm: float = 0.02, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Constant-velocity plateaus in both directions (log-spaced speeds) and the mean torque at each.

    Returns
    -------
    v : ndarray, shape (2 n_levels,)
        [rad/s]
    tau : ndarray
        Steady friction + Gaussian noise of the plateau mean [N m].
    """
    s = np.geomspace(v_min, v_max, n_levels)
    v = np.concatenate([-s[::-1], s])
    rng = np.random.default_rng(seed)
    return v, steady_curve(row, v) + rng.normal(0.0, noise_Nm, v.shape)


def lugre_response(row: np.ndarray, v: np.ndarray, dt: float) -> np.ndarray:
    """LuGre friction torque along a velocity history ``v`` (sampled every ``dt`` s), from rest."""
    z = 0.0
    out = np.empty(len(v))
    for k, vk in enumerate(v):
        out[k], z = _lg.lugre_step(float(vk), z, row, T_REF, dt)
    return out


@dataclass
class Model:
    """A fitted static friction model."""

    name: str
    params: dict[str, float]
    torque: Callable[[np.ndarray], np.ndarray]
    n_params: int


def _linear(name: str, cols: JointColumns, v: np.ndarray, tau: np.ndarray) -> Model:
    V = v.reshape(-1, 1)
    A = joint_columns(V, np.zeros_like(V), cols, ())[:, 0, :]
    theta, *_ = np.linalg.lstsq(A, tau, rcond=None)
    kinds = cols.kinds()

    def f(x: np.ndarray, theta=theta, cols=cols) -> np.ndarray:
        X = np.asarray(x, float).reshape(-1, 1)
        return (joint_columns(X, np.zeros_like(X), cols, ())[:, 0, :] @ theta).reshape(np.shape(x))
    return Model(name, dict(zip(kinds, map(float, theta))), f, len(theta))


def _stribeck(v: np.ndarray, tau: np.ndarray, template: np.ndarray) -> Model:
    from scipy.optimize import least_squares

    def curve(p: np.ndarray, x: np.ndarray) -> np.ndarray:
        r = template.copy()
        r[_lg.FR_FC], r[_lg.FR_FS], r[_lg.FR_VS], r[_lg.FR_FV] = p
        return steady_curve(r, x)
    # start: Coulomb level at the fastest point's level minus viscous, static 1.2x, vs 0.1 rad/s
    p0 = np.array([np.median(np.abs(tau)), 1.2 * np.median(np.abs(tau)), 0.1, 0.1])
    sol = least_squares(lambda p: curve(p, v) - tau, p0, bounds=([0, 0, 1e-4, 0], [np.inf, np.inf, 10.0, np.inf]))
    p = sol.x
    return Model("Stribeck", dict(zip(("Fc", "Fs", "vs", "Fv"), map(float, p))), lambda x, p=p: curve(p, np.asarray(x, float)), 4)


def _kostic(v: np.ndarray, tau: np.ndarray) -> Model:
    from scipy.optimize import least_squares

    # start: viscous 0.1, a steep Coulomb-like term and a softer opposite one (the Stribeck drop)
    p0 = np.array([0.1, float(np.median(np.abs(tau))) * 1.5, -0.5 * float(np.median(np.abs(tau))), 200.0, 20.0])
    sol = least_squares(lambda p: KosticLaw.from_params(p).torque(v) - tau, p0)
    law = KosticLaw.from_params(sol.x).canonical()
    return Model("Kostic", dict(zip(law.param_names, map(float, law.params))), law.torque, 5)


def fit_models(v: np.ndarray, tau: np.ndarray, template_row: np.ndarray) -> list[Model]:
    """Every static model fitted to steady data (see the module docstring for the rules)."""
    models = [_linear(n, c, v, tau) for n, c in LINEAR_MODELS.items()]
    models.append(_stribeck(v, tau, template_row))
    models.append(_kostic(v, tau))
    return models


def _model_line(name: str) -> dict:
    """Line options of a fitted model in :func:`curves_figure`: the Stribeck fit (the law of the truth's
    shape) and Kostic take the style's ``model`` role (solid, dotted), the linear models the style's cycle."""
    from paperlib.figures import style

    if name == "Stribeck":
        return style.role("model")
    if name == "Kostic":
        return style.role("model", linestyle=":", linewidth=2.2)
    other = {"Coulomb": (style.CYCLE[0], "--"), "viscous": (style.CYCLE[4], ":"),
             "Coulomb + viscous": (style.CYCLE[1], "-."), "polynomial (eq. 4 of paper 001)": (style.CYCLE[2], "--")}
    color, ls = other.get(name, (style.CYCLE[5], "-"))
    return {"color": color, "linestyle": ls, "linewidth": 1.3}


def curves_figure(v: np.ndarray, tau: np.ndarray, models: list[Model], v_curve: np.ndarray, truth_curve: np.ndarray,
                  v_window: float = 0.6, title: str = ""):
    """The steady experiment's figure: plateau data, the twin's true steady curve and every fitted model.

    Roles of the compendium's style (:mod:`paperlib.figures.style`): data ``measured``, truth ``truth``,
    the Stribeck and Kostic fits ``model``; the legend sits inside the axes; the axis limits come from the
    data and the truth inside the velocity window (a model that leaves that range, such as the viscous
    line, is clipped rather than stretching the axis).

    Parameters
    ----------
    v, tau : ndarray, shape (n,)
        Plateau velocities [rad/s] and mean friction torques [N m].
    models : list of Model
        The fitted models (:func:`fit_models`).
    v_curve, truth_curve : ndarray, shape (m,)
        Velocity grid [rad/s] and the true steady friction on it [N m].
    v_window : float
        Half-width of the velocity axis [rad/s].
    title : str
        The figure's title.

    Returns
    -------
    holoviews.Overlay
    """
    import holoviews as hv

    from paperlib.figures import style

    kv, kt = ("v", "joint velocity [rad/s]"), ("f", "friction torque [N m]")
    inside = np.abs(v_curve) <= v_window
    ylim = style.limits(tau[np.abs(v) <= v_window], truth_curve[inside])
    truth = style.role("truth", linewidth=3.0)
    parts = [hv.Curve((v_curve, truth_curve), kv, kt, label="LuGre truth (steady, twin)").opts(alpha=0.6, **truth)]
    parts += [hv.Curve((v_curve, m.torque(v_curve)), kv, kt, label=m.name).opts(**_model_line(m.name)) for m in models]
    parts += [hv.Scatter((v, tau), kv, kt, label="plateau data (twin)").opts(color=style.ROLES["measured"]["color"], s=14)]
    return hv.Overlay(parts).opts(title=title, fig_inches=(7.5, 4.2), aspect="auto", xlim=(-v_window, v_window), ylim=ylim,
                                  show_grid=True, **{**style.LEGEND_INSIDE, "legend_position": "top_left"})
