"""A small twin for teaching: a planar 2R/3R arm in a vertical plane, on :class:`SerialArm`.

The arm (:func:`planar_arm`) is a chain of uniform rods turning about parallel horizontal
axes (modified DH: ``alpha = 0``, ``a_{i-1} = l_{i-1}``), gravity along ``-y`` of the base. Its
true parameters are stated here, not identified from anything: the point is a known truth.

:func:`simulate` moves it along a prescribed joint trajectory (a perfect position controller,
as the identification literature assumes) and records what sensors would give: encoder
angles (quantized, ``counts_per_rev``), no velocity or acceleration, and the joint torque
``tau_m`` (joint side) = rigid-body torque + friction + Gaussian noise. The recording is
labelled ``source = twin`` and carries the true parameters, trajectory and noise levels in
its ``truth`` attribute, so every estimate can be held against the truth.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

import numpy as np
import xarray as xr

from paperlib.robots.serial import JointColumns, SerialArm, inertial_from_com
from paperlib.twin.guard import twin_run

__all__ = ["planar_arm", "true_params", "simulate", "ROBOT"]

ROBOT = "planar_arm"


def planar_arm(n: int = 2, lengths: Sequence[float] | None = None, masses: Sequence[float] | None = None,
               radius: float = 0.02, g: float = 9.81, columns: JointColumns | None = None) -> SerialArm:
    """A planar arm of ``n`` uniform rods (2 or 3 joints typical).

    Parameters
    ----------
    n : int
        Number of joints.
    lengths, masses : sequence of float, optional
        Rod lengths [m] and masses [kg] (defaults 0.5, 0.4, 0.3 m and 4, 3, 2 kg).
    radius : float
        Rod radius [m] (inertia about the rod axis; irrelevant to the planar motion).
    g : float
        Gravity [m/s^2], along ``-y`` of the base frame.
    columns : JointColumns, optional
        Per-joint columns after the inertial ones (default: viscous and Coulomb only).
    """
    lengths = list(lengths if lengths is not None else (0.5, 0.4, 0.3)[:n])
    masses = list(masses if masses is not None else (4.0, 3.0, 2.0)[:n])
    if len(lengths) != n or len(masses) != n:
        raise ValueError(f"need {n} lengths and masses; got {len(lengths)} and {len(masses)}")
    table = [(0.0, 0.0 if i == 0 else lengths[i - 1], 0.0, 0.0) for i in range(n)]
    inert = []
    for m, L in zip(masses, lengths):
        Ic = np.diag([0.5 * m * radius**2, m * (3 * radius**2 + L**2) / 12.0, m * (3 * radius**2 + L**2) / 12.0])
        inert.append(inertial_from_com(m, (L / 2.0, 0.0, 0.0), Ic))
    cols = columns or JointColumns(viscous=True, coulomb=True, polynomial=False, actuator_inertia=False, offset=False)
    return SerialArm.from_dh(table, inertial=np.array(inert), name=f"{ROBOT}_{n}r", gravity=(0.0, -g, 0.0), columns=cols)


def true_params(arm: SerialArm, fv: Sequence[float] | float = 0.3, fc: Sequence[float] | float = 0.8) -> np.ndarray:
    """The twin's true full parameter vector: nominal inertials, viscous ``fv`` [N m s/rad] and
    Coulomb ``fc`` [N m] per joint."""
    fv = np.broadcast_to(np.asarray(fv, float), (arm.n,))
    fc = np.broadcast_to(np.asarray(fc, float), (arm.n,))
    vals = {}
    for j in range(arm.n):
        if arm.columns.viscous:
            vals[f"fv{j + 1}"] = float(fv[j])
        if arm.columns.coulomb:
            vals[f"fs{j + 1}"] = float(fc[j])
    return arm.nominal_params(**vals)


@twin_run
def simulate(arm: SerialArm, trajectory: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]], *,
             duration_s: float, sample_rate_hz: float = 500.0, params: np.ndarray | None = None,
             torque_noise_Nm: float = 0.05, counts_per_rev: int = 2**16, seed: int = 0,
             friction: Callable[[np.ndarray], np.ndarray] | None = None, describe: dict[str, Any] | None = None
             ) -> xr.Dataset:
    """Record the arm following ``trajectory`` (a schema-2 recording, ``source = twin``).

    Parameters
    ----------
    arm : SerialArm
    trajectory : callable
        ``t -> (q, qd, qdd)``, each (N, n) (e.g. :class:`paperlib.control.excitation.FourierTrajectory`).
    duration_s, sample_rate_hz : float
        Length [s] and sampling [Hz].
    params : ndarray, optional
        True full parameter vector (default :func:`true_params`).
    torque_noise_Nm : float
        Standard deviation of the white torque noise [N m].
    counts_per_rev : int
        Encoder resolution (angles are rounded to it; 0 = no quantization).
    seed : int
    friction : callable, optional
        ``qd (N, n) -> tau_f (N, n)`` added to the rigid-body torque *instead of* the linear
        friction columns of ``params`` (for a richer friction than the model: Stribeck, LuGre...).
    describe : dict, optional
        Extra entries for the ``truth`` attribute (e.g. the trajectory's coefficients).

    Returns
    -------
    xarray.Dataset
        Channels ``q`` and ``tau_m`` (joint side); ``truth`` holds the parameters, their names,
        the noise levels; ``qd``/``qdd`` are deliberately absent (the course derives them).
    """
    from paperlib.recordings import from_arrays

    p = true_params(arm) if params is None else np.asarray(params, float)
    t = np.arange(int(round(duration_s * sample_rate_hz))) / sample_rate_hz
    q, qd, qdd = trajectory(t)
    if friction is None:
        tau = arm.inverse_dynamics(q, qd, qdd, params=p)
    else:
        p_rb = p.copy()
        p_rb[10 * arm.n:] = 0.0
        tau = arm.inverse_dynamics(q, qd, qdd, params=p_rb) + friction(qd)
    rng = np.random.default_rng(seed)
    tau_meas = tau + rng.normal(0.0, torque_noise_Nm, tau.shape)
    if counts_per_rev:
        step = 2 * np.pi / counts_per_rev
        q_meas = np.round(q / step) * step
    else:
        q_meas = q.copy()
    truth = {"params": dict(zip(arm.param_names, map(float, p))), "torque_noise_Nm": torque_noise_Nm,
             "counts_per_rev": counts_per_rev, "friction": "linear columns of params" if friction is None else "custom law",
             **(describe or {})}
    return from_arrays(q_meas, sample_rate_hz=sample_rate_hz, robot=arm.name, source="twin",
                       channels={"tau_m": tau_meas}, torque_side="joint", truth=truth, seed=seed,
                       writer="paperlib.twin.robots.planar_arm")


def truth_of(ds: xr.Dataset) -> dict[str, Any]:
    """The ``truth`` attribute of a twin recording as a dict."""
    t = ds.attrs.get("truth")
    return json.loads(t) if isinstance(t, str) else dict(t or {})
