"""Digital twin of paper 002's 3-RRR robot: plant, drives, encoders and joint PD loops.

What the simulated rig is (values in ``data/twin/three_rrr_twin.toml``, all assumed):

* **Plant**: the generic plant layer (:mod:`paperlib.twin.plant`) over the robot's kernel set
  (``THREE_RRR`` of :mod:`paperlib.robots.kernel_sets`, the generated
  :mod:`paperlib.kernels.three_rrr`) with the platform point as state,
  ``M_s p_dd = J_a^T (gamma tau - F) - C_s p_dot``, integrated by RK4 at ``plant_substeps`` x
  the control rate. The net drive torques ``gamma tau - F`` are held over each RK4 step and
  mapped by the actuated Jacobian of every stage (:func:`~paperlib.twin.plant.plant_rk4_mapped`).
  Inertia = the a priori model's.
* **Friction** on the three drives: the LuGre law of :mod:`paperlib.friction.lugre` (bristle
  state per drive, Stribeck exponent != 2, shear-thinning viscous term): not of the Kostic
  form the identification fits. Evaluated at each RK4 step's start with the bristles advanced
  by the law's exact frozen-velocity update (:func:`~paperlib.twin.plant.friction_torques`),
  at the twin's constant temperature. Passive joints are frictionless.
* **Drives**: apply ``drive_gain`` x the commanded torque, report the commanded torque,
  quantized to ``torque_quantum_Nm`` and clipped at ``torque_limit_Nm`` (joint side). The
  identification's ``k_f`` is therefore ``1 / drive_gain`` (reported = k_f (E + F)).
* **Encoders**: joint angle quantized to ``counts_per_joint_rev``.
* **Controller**: independent joint PD loops at the control rate (the robot's industrial
  position loops), velocity by a filtered backward difference of the encoder, plus an
  optional feed-forward torque computed from the reference (the compensation of the paper).

Shared with the 5R twin: the plant layer and the friction laws. Specific to this rig (this
module's drive loop): the redundant drives' command path and the joint PD loops.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numba as nb
import numpy as np
import xarray as xr

from paperlib import provenance
from paperlib.friction import lugre as fr
from paperlib.kernels import three_rrr as K
from paperlib.robots.kernel_sets import robot_state_terms
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.plant import friction_torques, mapped_accel_from, plant_rk4_mapped
from paperlib.twin.guard import twin_run

DEFAULT_TWIN_TOML = provenance.REPO_ROOT / "data" / "twin" / "three_rrr_twin.toml"

__all__ = ["ThreeRRRTwin", "simulate", "run_inputs", "to_recording", "plant_period", "DEFAULT_TWIN_TOML"]


@dataclass(frozen=True)
class ThreeRRRTwin:
    """The twin's true parameters (see the module docstring).

    Attributes
    ----------
    friction : tuple of FrictionJoint
        True friction of drives 1-3 (joint side).
    drive_gain : float
        Applied / commanded torque [-] (the identification's k_f is its inverse).
    torque_quantum_Nm, torque_limit_Nm : float
        Command resolution and limit at the joint [N m].
    counts_per_joint_rev : int
        Encoder resolution.
    control_rate_hz : float
        Controller and recording rate [Hz].
    plant_substeps : int
        RK4 steps per control period.
    temperature_degC : float
        Joint temperature (constant).
    kp, kd : ndarray, shape (3,)
        Joint PD gains [N m/rad, N m s/rad].
    velocity_filter_s : float
        Time constant of the velocity filter [s].
    description : dict
        The parsed TOML.
    """

    friction: tuple[fr.FrictionJoint, ...]
    drive_gain: float
    torque_quantum_Nm: float
    torque_limit_Nm: float
    counts_per_joint_rev: int
    control_rate_hz: float
    plant_substeps: int
    temperature_degC: float
    kp: np.ndarray
    kd: np.ndarray
    velocity_filter_s: float
    description: dict = field(repr=False, default_factory=dict)

    @classmethod
    def default(cls) -> "ThreeRRRTwin":
        """The twin of ``data/twin/three_rrr_twin.toml``."""
        return cls.from_toml(DEFAULT_TWIN_TOML)

    @classmethod
    def from_toml(cls, path: str | Path) -> "ThreeRRRTwin":
        """Read a twin description; a missing or out-of-range key raises ValueError naming the file."""
        path = Path(path)
        with path.open("rb") as fh:
            d = tomllib.load(fh)
        try:
            tw, dv, en, ct = d["twin"], d["drives"], d["encoder"], d["controller"]
            T = float(tw["temperature_degC"])
            joints = []
            for k in (1, 2, 3):
                tab = d["friction"][f"joint{k}"]
                for key, (lo, hi) in fr.FRICTION_JOINT_RANGES.items():
                    if not lo <= float(tab[key]) <= hi:
                        raise ValueError(f"friction.joint{k}.{key} = {tab[key]} outside [{lo}, {hi}]")
                joints.append(fr.FrictionJoint.from_mapping(tab, T))
            w_v = 2 * np.pi * float(ct["velocity_bandwidth_hz"])
            w_p = 2 * np.pi * float(ct["position_bandwidth_hz"])
            J = float(ct["joint_inertia_kg_m2"])
            out = cls(
                friction=tuple(joints), drive_gain=float(dv["drive_gain"]),
                torque_quantum_Nm=float(dv["torque_quantum_Nm"]), torque_limit_Nm=float(dv["torque_limit_Nm"]),
                counts_per_joint_rev=int(en["counts_per_joint_rev"]), control_rate_hz=float(tw["control_rate_hz"]),
                plant_substeps=int(tw["plant_substeps"]), temperature_degC=T,
                kp=np.full(3, J * w_v * w_p), kd=np.full(3, J * w_v),
                velocity_filter_s=float(ct["velocity_filter_s"]), description=d,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}: missing or malformed twin parameter: {exc!r}") from exc
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
        if not (out.drive_gain > 0 and out.torque_quantum_Nm >= 0 and out.torque_limit_Nm > 0
                and out.counts_per_joint_rev > 0 and out.control_rate_hz > 0 and out.plant_substeps >= 1):
            raise ValueError(f"{path}: drive, encoder and rate values must be positive")
        return out

    @property
    def k_f(self) -> float:
        """True ratio reported torque / (E + friction) = 1 / drive_gain."""
        return 1.0 / self.drive_gain

    @property
    def friction_rows(self) -> np.ndarray:
        """(3, N_FRICTION_PARAMS) parameter rows of :mod:`paperlib.friction.lugre`."""
        return fr.friction_array(list(self.friction))

    def steady_friction(self, v: np.ndarray, drive: int) -> np.ndarray:
        """True steady-state friction [N m] of drive ``drive`` (0-based) at joint rates v [rad/s]."""
        return fr.steady_friction_curve(np.asarray(v, dtype=float), self.friction_rows[drive], self.temperature_degC)

    def truth(self) -> dict[str, Any]:
        """What a recording's ``truth`` attribute holds."""
        return {
            "k_f": self.k_f, "drive_gain": self.drive_gain,
            "friction_law": "paperlib.friction.lugre LuGre (steady state: Stribeck + shear-thinning viscous)",
            "friction": [dict(vars(j)) for j in self.friction],
            "temperature_degC": self.temperature_degC,
            "passive_joint_friction": "none",
            "inertia": "equal to data/robots/three_rrr.toml",
            "kp_Nm_per_rad": self.kp.tolist(), "kd_Nm_s_per_rad": self.kd.tolist(),
        }


@nb.njit(cache=True)
def _run(p0, pd0, th_ref, thd_ref, tau_ff, kp, kd, gain, quantum, limit, rad_per_count, vel_alpha,
         fric, T, kid, prm, dt, substeps, q_out, tau_out, p_out, pd_out, qd_true_out):  # pragma: no cover - compiled
    """The closed loop: per control period the drive loop (encoders, PD, torque quantum and limit,
    drive gain), then ``substeps`` plant steps of the plant layer (friction at each step's start,
    joint torques held, RK4 with the actuated Jacobian of each stage). Returns (samples done, status)."""
    n = th_ref.shape[0]
    n_drv = fric.shape[0]
    p = p0.copy()
    pd = pd0.copy()
    z = np.zeros(n_drv)
    phi = np.zeros(n_drv)  # the drives' angles travelled (a position ripple's phase) [rad]
    Tj = np.full(n_drv, T)
    M = np.empty((2, 2))
    hb = np.empty(2)
    D = np.empty((n_drv, 2))
    qd = np.empty(n_drv)
    qd0 = np.empty(n_drv)
    F = np.empty(n_drv)
    tau_net = np.empty(n_drv)
    Q = np.empty(2)
    k1v = np.empty(2)
    work = np.empty((10, 2))
    dp = np.empty(2)
    chi = np.empty(K.N_CHI)
    tau = np.zeros(n_drv)
    th_prev = th_ref[0].copy()
    th_meas_prev = th_ref[0].copy()
    v_est = np.zeros(n_drv)
    h = dt / substeps
    for k in range(n):
        # the drive loop of the control period (not physics: sensing, control, the drives' command path)
        s = K.positions(p, prm, chi)
        if s != 0:
            return k, s
        for i in range(n_drv):
            raw = chi[i]
            d = raw - th_prev[i]
            d = (d + math.pi) % (2.0 * math.pi) - math.pi
            th = th_prev[i] + d
            th_prev[i] = th
            th_m = math.floor(th / rad_per_count + 0.5) * rad_per_count
            if k > 0:
                v_raw = (th_m - th_meas_prev[i]) / dt
                v_est[i] += vel_alpha * (v_raw - v_est[i])
            th_meas_prev[i] = th_m
            q_out[k, i] = th_m
            u = tau_ff[k, i] + kp[i] * (th_ref[k, i] - th_m) + kd[i] * (thd_ref[k, i] - v_est[i])
            if u > limit:
                u = limit
            elif u < -limit:
                u = -limit
            if quantum > 0.0:
                u = math.floor(u / quantum + 0.5) * quantum
            tau[i] = u
            tau_out[k, i] = u
        p_out[k, 0] = p[0]
        p_out[k, 1] = p[1]
        pd_out[k, 0] = pd[0]
        pd_out[k, 1] = pd[1]
        # the plant (paperlib.twin.plant): the drives' torques and the friction held over each step
        s = plant_period(p, pd, z, phi, Tj, tau, gain, fric, kid, prm, h, substeps, M, hb, D, qd, qd0, F, tau_net, Q, k1v,
                         work, dp, qd_true_out[k])
        if s != 0:
            return k, s
    return n, 0


@nb.njit(cache=True)
def plant_period(p, pd, z, phi, Tj, tau, gain, fric, kid, prm, h, substeps, M, hb, D, qd, qd0, F, tau_net, Q, k1v, work, dp,
                 qd_start):  # pragma: no cover - compiled
    """One control period of the 3-RRR plant: ``substeps`` RK4 steps of ``h`` [s] under the commanded torques.

    The drives apply ``gain`` x ``tau`` (n_drv,) [N m, joint side]; the friction of each step is the
    LuGre law at the step's start (bristles ``z`` advanced exactly), the net torques ``gain tau - F``
    are held over the step and mapped by each stage's actuated Jacobian. Updates the platform
    point ``p``, ``pd`` (2,) [m, m/s] and ``z`` in place; writes the drives' rates at the period's
    start to ``qd_start`` (n_drv,) [rad/s]; the rest are scratch arrays. Returns the kernel status
    (0: fine). Shared by the closed loop (:func:`simulate`) and the stepped plant
    (:mod:`paperlib.twin.robots.three_rrr_plant`).
    """
    n_drv = fric.shape[0]
    for sub in range(substeps):
        s = robot_state_terms(kid, p, pd, prm, M, hb, D, qd)
        if s != 0:
            return s
        if sub == 0:
            for i in range(n_drv):
                qd_start[i] = qd[i]
        friction_torques(1.0, z, phi, Tj, fric, h, qd, qd0, F)
        for i in range(n_drv):
            tau_net[i] = gain * tau[i] - F[i]
        mapped_accel_from(M, hb, D, tau_net, Q, k1v, work[8:])
        s = plant_rk4_mapped(kid, p, pd, tau_net, k1v, prm, h, M, hb, D, qd, Q, work, dp)
        if s != 0:
            return s
    return 0


def reference_joints(robot: ThreeRRR, p: np.ndarray, pd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drive-angle references (n, 3) [rad] (continuous, unwrapped) and rates (n, 3) [rad/s] of a platform path."""
    th = np.unwrap(robot.ik(p), axis=0)
    J = robot.actuated_jacobian(p)
    return th, np.einsum("nij,nj->ni", J, pd)


def run_inputs(robot: ThreeRRR, twin: ThreeRRRTwin, ref: Mapping[str, np.ndarray], tau_ff: np.ndarray | None = None
               ) -> tuple[np.ndarray, ...]:
    """A closed-loop run's checked inputs: ``t`` (n,) [s], ``p``, ``pd`` (n, 2) [m, m/s], the drive-angle
    references ``th_ref``, ``thd_ref`` (n, 3) [rad, rad/s] and the feed-forward ``ff`` (n, 3) [N m] (zeros
    when ``tau_ff`` is None). Raises ValueError when the reference is off the control grid or ``tau_ff``
    has the wrong shape."""
    t = np.asarray(ref["t"], dtype=float)
    n = t.size
    dt = 1.0 / twin.control_rate_hz
    if n < 2 or not np.allclose(np.diff(t), dt, rtol=1e-6, atol=1e-12):
        raise ValueError(f"simulate: the reference must be sampled at the control rate {twin.control_rate_hz} Hz")
    p, pd = np.asarray(ref["p"], dtype=float), np.asarray(ref["pd"], dtype=float)
    th_ref, thd_ref = reference_joints(robot, p, pd)
    ff = np.zeros((n, 3)) if tau_ff is None else np.ascontiguousarray(tau_ff, dtype=float)
    if ff.shape != (n, 3):
        raise ValueError(f"simulate: tau_ff must have shape ({n}, 3); got {ff.shape}")
    return t, p, pd, th_ref, thd_ref, ff


@twin_run
def simulate(robot: ThreeRRR, twin: ThreeRRRTwin, ref: Mapping[str, np.ndarray], tau_ff: np.ndarray | None = None
             ) -> dict[str, np.ndarray]:
    """Run the closed loop along a platform reference sampled at the twin's control rate.

    Parameters
    ----------
    robot : ThreeRRR
        The plant's model (the twin's truth; the a priori model in this compendium).
    twin : ThreeRRRTwin
        Drives, friction, encoders, gains.
    ref : mapping
        ``t`` (n,) [s] on the control grid, ``p``, ``pd``, ``pdd`` (n, 2) platform reference [m, m/s, m/s^2].
    tau_ff : ndarray, shape (n, 3), optional
        Feed-forward torque command [N m] added to the PD loops (default none: "before compensation").

    Returns
    -------
    dict
        ``t``, ``q`` (encoder, n x 3) [rad], ``tau_m`` (reported = commanded, n x 3) [N m], ``q_sp``,
        ``qd_sp`` (n x 3), ``p_true``, ``pd_true`` (n x 2) and ``qd_true`` (n x 3) of the plant.

    Raises
    ------
    ValueError
        When the reference is off the control grid, or the platform leaves the workspace.
    """
    t, p, pd, th_ref, thd_ref, ff = run_inputs(robot, twin, ref, tau_ff)
    n = t.size
    dt = 1.0 / twin.control_rate_hz
    q, tau = np.empty((n, 3)), np.empty((n, 3))
    p_out, pd_out, qd_true = np.empty((n, 2)), np.empty((n, 2)), np.empty((n, 3))
    alpha = dt / (twin.velocity_filter_s + dt)
    k, status = _run(np.ascontiguousarray(p[0]), np.ascontiguousarray(pd[0]), np.ascontiguousarray(th_ref),
                     np.ascontiguousarray(thd_ref), ff, twin.kp, twin.kd, twin.drive_gain, twin.torque_quantum_Nm,
                     twin.torque_limit_Nm, 2 * np.pi / twin.counts_per_joint_rev, alpha, twin.friction_rows,
                     twin.temperature_degC, robot.kernels.kid, robot.params, dt, twin.plant_substeps, q, tau, p_out, pd_out, qd_true)
    if status:
        raise ValueError(f"simulate: the platform left the workspace at t = {t[min(k, n - 1)]:.3f} s (status {status})")
    return {"t": t, "q": q, "tau_m": tau, "q_sp": th_ref, "qd_sp": thd_ref, "p_true": p_out, "pd_true": pd_out,
            "qd_true": qd_true}


def to_recording(run: Mapping[str, np.ndarray], twin: ThreeRRRTwin, *, controller: str, config: Mapping[str, Any],
                 seed: int | None = None) -> xr.Dataset:
    """A ``paperlib.recording/2`` dataset (``source = twin``) of a :func:`simulate` run.

    Channels: ``q`` (encoder), ``tau_m`` (joint side, the drives' reported torque), ``q_sp``,
    ``qd_sp``; the plant's true platform point as extra variables ``p_true`` / ``pd_true``
    (the "sensor" of the paper's position and velocity errors), the twin's truth in attributes.
    """
    from paperlib.recordings import from_arrays

    t = np.asarray(run["t"])
    extra = {
        "p_true": (("time", "axis"), np.asarray(run["p_true"]), {"units": "m", "long_name": "true platform point (plant)"}),
        "pd_true": (("time", "axis"), np.asarray(run["pd_true"]),
                    {"units": "m/s", "long_name": "true platform velocity (plant)"}),
    }
    ds = from_arrays(
        np.asarray(run["q"]), sample_rate_hz=twin.control_rate_hz, robot="three_rrr", source="twin",
        channels={"tau_m": np.asarray(run["tau_m"]), "q_sp": np.asarray(run["q_sp"]), "qd_sp": np.asarray(run["qd_sp"])},
        torque_side="joint", truth=twin.truth(), seed=seed, config=dict(config), controller=controller,
        writer="paperlib.twin.robots.three_rrr", time=t, extra_vars=extra,
    )
    ds = ds.assign_coords(axis=("axis", np.array(["x", "y"])))
    ds.attrs["twin_description"] = json.dumps({"file": str(DEFAULT_TWIN_TOML.name)})
    return ds
