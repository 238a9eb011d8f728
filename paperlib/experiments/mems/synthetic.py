"""Small idealized recordings for tests and examples -- NOT the digital twin.

:func:`synthetic_recording` builds a schema-valid recording whose measured torques follow the
estimator's own model exactly (rigid-body dynamics of the a priori model + a Table-4
polynomial friction law + drive gains ``pi_pds``), along a random point-to-point trajectory,
with a tracking error of a prescribed, controller-dependent shape. It is labelled
``source = "twin"`` (the schema admits only twin/hardware) and carries
``attrs["synthetic"] = 1`` and its truth, so it is never mistaken for a twin run: the
pipeline never uses it; tests do, to check the experiment code against known answers.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import xarray as xr

from paperlib.friction import table4_model

__all__ = ["TEST_POLYGON_DEG", "DEFAULT_PI_F", "ERROR_SHAPES", "synthetic_recording"]

#: A small well-conditioned convex polygon of the 5R joint space [deg] (q1, q2).
TEST_POLYGON_DEG = np.array([[90.0, 45.0], [105.0, 50.0], [150.0, 95.0], [140.0, 105.0]])

#: Model (3) friction coefficients per joint, orders 0..3 [N m, N m s/rad, ...] (made up, plausible).
DEFAULT_PI_F = (1.2, 0.9, -0.12, 0.01, 1.0, 0.8, -0.10, 0.008)

#: Tracking-error shape per controller: (acceleration gain [rad per rad/s^2], velocity gain [rad per rad/s]).
ERROR_SHAPES: dict[str, tuple[float, float]] = {"PD": (1.5e-4, 8e-4), "CTC": (2e-5, 4e-4), "AC": (1.5e-5, 8e-5),
                                                "OPEN": (2e-4, 1e-3)}


def synthetic_recording(duration_s: float = 6.0, *, seed: int = 0, controller: str = "AC", fs_hz: float = 1000.0,
                        pi_pds: Sequence[float] = (1.08, 0.94), pi_F: Sequence[float] | None = None, model: int = 3,
                        temperature_C: float = 22.0, torque_noise_Nm: float = 0.0, error_scale: float = 1.0,
                        robot: Any = None) -> xr.Dataset:
    """An idealized recording (module docstring).

    Parameters
    ----------
    duration_s : float
        Length [s].
    seed : int
        Trajectory (and noise) seed.
    controller : str
        Label and tracking-error shape (:data:`ERROR_SHAPES`).
    fs_hz : float
        Sample rate [Hz].
    pi_pds : sequence of float
        True drive gains (measured torque = true torque / pi_pds).
    pi_F : sequence of float, optional
        True friction coefficients of Table-4 ``model`` (default :data:`DEFAULT_PI_F` for model 3).
    model : int
        Table-4 model of the true friction.
    temperature_C : float
        Constant gearbox temperature [degC].
    torque_noise_Nm : float
        Std of white noise added to the measured motor torques [N m].
    error_scale : float
        Multiplies the tracking error.

    Returns
    -------
    xarray.Dataset
        Recording with ``tau_parts``, ``tau_F_true``, ``Q_F_true`` and attrs ``synthetic = 1``,
        ``truth`` (pi_pds, pi_F, model), ``converged_s = 0``.
    """
    from paperlib.control.planning import motion_bounds
    from paperlib.control.trajectories import Polygon, random_point_to_point
    from paperlib.estimation.replay import regressor_rows
    from paperlib.recordings import make_recording
    from paperlib.robots.five_bar import FiveBar

    robot = robot or FiveBar.default()
    fm = table4_model(model)
    if pi_F is None:
        if model != 3:
            raise ValueError("give pi_F for models other than 3")
        pi_F = DEFAULT_PI_F
    pi_F = np.asarray(pi_F, dtype=float)
    pi_pds = np.asarray(pi_pds, dtype=float)
    poly = Polygon(np.radians(TEST_POLYGON_DEG))
    traj = random_point_to_point(poly, duration_s, seed, motion_bounds(robot), dwell_s=0.05)
    n = int(round(duration_s * fs_hz))
    t = np.arange(n) / fs_hz
    q_sp, qd_sp, qdd_sp = traj.sample(t)
    ka, kv = ERROR_SHAPES.get(controller, ERROR_SHAPES["PD"])
    e = error_scale * (ka * qdd_sp + kv * qd_sp)
    q = q_sp - e
    qd = np.gradient(q, t, axis=0)
    qdd = np.gradient(qd, t, axis=0)
    ones = np.ones_like(q)
    Y, R = regressor_rows(robot, fm, q, qd, qdd, ones)
    DmT = -Y[:, :, :2]                      # D_m^T (N, 2, 2)
    Y_F = Y[:, :, 2:]
    Q_F = -np.einsum("njc,c->nj", Y_F, pi_F)
    Q_m = -R - Q_F                         # eq. 5 with Q_G = 0
    tau_true = np.linalg.solve(DmT, Q_m[..., None])[..., 0]
    rng = np.random.default_rng(seed + 1)
    tau_m = tau_true / pi_pds + torque_noise_Nm * rng.standard_normal(tau_true.shape)
    # command parts from the set-points (as the controller would compute them)
    Ysp, Rsp = regressor_rows(robot, fm, q_sp, qd_sp, qdd_sp, np.ones_like(q_sp))
    DmT_sp = -Ysp[:, :, :2]
    dyn = np.linalg.solve(DmT_sp, (-Rsp)[..., None])[..., 0] if controller in ("CTC", "AC") else np.zeros_like(q)
    fric = (np.linalg.solve(DmT_sp, np.einsum("njc,c->nj", Ysp[:, :, 2:], pi_F)[..., None])[..., 0]
            if controller == "AC" else np.zeros_like(q))
    fb = tau_true - dyn - fric
    parts = np.stack([dyn, fric, fb], axis=1)
    data = {"q": q, "qd": qd, "qdd": qdd, "tau_m": tau_m, "tau_tgt": tau_true / pi_pds, "q_sp": q_sp, "qd_sp": qd_sp,
            "qdd_sp": qdd_sp, "temperature": np.full_like(q, temperature_C)}
    extra = {
        "tau_parts": (("time", "part", "joint"), parts, {"units": "N m", "long_name": "torque command parts"}),
        "tau_F_true": (("time", "joint"), Q_F, {"units": "N m", "long_name": "true friction Lagrangian component (synthetic)"}),
        "Q_F_true": (("time", "joint"), Q_F, {"units": "N m", "long_name": "true friction Lagrangian components (synthetic)"}),
    }
    truth = {"pi_pds": pi_pds.tolist(), "pi_F": pi_F.tolist(), "model": model}
    ds = make_recording(t, [1, 2], data, robot="five_bar", source="twin", sample_rate_hz=fs_hz, controller=controller,
                        config={"synthetic": True, "duration_s": duration_s, "seed": seed}, seed=seed, truth=truth,
                        origins={"qd": "model", "qdd": "model"}, torque_side="motor",
                        extra_vars=extra, attrs={"synthetic": 1, "converged_s": 0.0})
    return ds.assign_coords(part=["dynamic_ff", "friction_ff", "feedback"])
