"""Twin of paper 001's warm-up campaign on a 6-DOF arm (the Staubli TX40).

The robot follows prescribed joint trajectories, as a position-controlled industrial arm does, so
the drive torque is ``tau = inverse dynamics(q, qd, qdd) + friction(qd, T) + noise``: nothing of
the arm is integrated, only the gearboxes' thermal networks are (two nodes each,
:mod:`paperlib.twin.thermal`, heated by their own friction power ``|tau_f qd|``, ambient 20 C).
Friction is the steady law of :mod:`paperlib.friction.lugre` (Stribeck, shear-thinning viscous,
Coulomb falling linearly and viscous exponentially with the inner gearbox temperature).

One cycle (Section 2.2 of the paper, ~4.5 min of motion in a 5-min period):

1. Fourier excitation (eq. 7, N = 5, two periods of 10 s, all joints);
2. friction segments, one joint at a time, in a pose where its axis is vertical (joints 1, 4, 5,
   6) or where eq. 11 removes gravity (joints 2, 3): trapezoidal velocity profiles with
   constant-velocity plateaus at 5, 20, 40, 60, 80, 100 % of the joint's maximum speed, both
   signs, equal plateau durations; moves between poses are cycloidal (eqs. 8-10);
3. warming: all joints at once, ``q = c + A (1 - cos(w t))`` with speed amplitude a fraction of
   the maximum (the day's ``warming_fraction``);
4. rest until the next cycle.

A day is 24 cycles from rest (the gearboxes at the day's start temperature, the room at its
ambient); the campaign is two robots (a robot-to-robot spread of friction and thermal values) x
four days (a day-to-day spread of friction level and room temperature; the days' warming
fractions differ so that they are warm-up runs of different W_f,rms), plus a faulty day (friction
step on one joint at a given time). Everything assumed is in
``data/twin/tx40_thermal_campaign.toml``; the gearboxes' start temperature (``[campaign.start]``)
is calibrated to the paper's cold temperature.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import scipy.optimize

from paperlib import provenance
from paperlib._jit import rt_njit
from paperlib.friction.lugre import (FR_ALPHA_C, FR_BETA_V, FR_DELTA, FR_DV, FR_FC, FR_FS, FR_FV,
                                    FR_SIGMA0, FR_SIGMA1, FR_TREF, FR_VD, FR_VS, FR_VTHIN,
                                    N_FRICTION_PARAMS, steady_friction)
from paperlib.twin.thermal import (GearboxThermal, modal_form, thermal_array, thermal_discrete_array,
                                   thermal_step)
from paperlib.twin.guard import twin_run
from paperlib.twin.thermal_three_node import (N_T3_STATE, ThreeNodeDesign, design_three_node,
                                              linear_time_constants, load_three_node_designs,
                                              three_node_step)

__all__ = [
    "DEFAULT_PARAMS", "TX40_URDF", "CampaignParams", "DaySpec", "CycleProgram",
    "load_campaign_params", "design_two_node", "friction_rows", "cycle_program", "campaign_days",
    "simulate_day", "day_recording", "tx40_rigid_body", "FRICTION_POSES", "THERMAL_MODELS",
    "load_three_node",
]

DEFAULT_PARAMS = provenance.REPO_ROOT / "data" / "twin" / "tx40_thermal_campaign.toml"
THREE_NODE_PARAMS = provenance.REPO_ROOT / "data" / "twin" / "tx40_thermal_three_node.toml"
#: Thermal models a day can be simulated with (``[thermal] thermal_model`` or ``DaySpec.thermal_model``):
#: the twin's two-node network (:mod:`paperlib.twin.thermal`, the default) and the three-node chain
#: of :mod:`paperlib.twin.thermal_three_node`.
THERMAL_MODELS = ("two_node", "three_node")
TX40_URDF = provenance.REPO_ROOT.parent / "shared" / "external" / "staubli_tx40" / "tx40_mdh_modified.urdf"
N_JOINTS = 6

#: Pose of each joint's friction segment (TX40 URDF angles [rad]; the moving joint's entry is the
#: centre of its sweep). q2 + q3 = 0 puts the forearm (joint 4 and, with q5 = 0, joint 6 axis)
#: vertical; q2 + q3 = pi/2 with q4 = pi/2 puts joint 5's axis vertical; joint 1's is always.
FRICTION_POSES = np.array([
    [0.0, -0.4, 1.2, 0.0, 0.5, 0.0],                    # joint 1 (vertical axis)
    [0.0, 0.0, 1.0, 0.0, 0.5, 0.0],                     # joint 2 (gravity: eq. 11)
    [0.0, -0.6, 0.0, 0.0, 0.5, 0.0],                    # joint 3 (gravity: eq. 11)
    [0.0, -0.5, 0.5, 0.0, 0.5, 0.0],                    # joint 4 (forearm vertical)
    [0.0, 0.0, math.pi / 2, math.pi / 2, 0.12, 0.0],    # joint 5 (axis vertical)
    [0.0, -0.5, 0.5, 0.0, 0.0, 0.0],                    # joint 6 (tool axis vertical)
])
HOME = np.array([0.0, -0.5, 1.2, 0.0, 0.5, 0.0])
JOINT_RANGE = np.array([[-3.14, 3.14], [-2.18, 2.18], [-2.40, 2.40], [-4.71, 4.71],
                        [-2.09, 2.33], [-4.71, 4.71]])


# ------------------------------------------------------------------------------------------------
# parameters
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CampaignParams:
    """Everything the campaign twin needs (SI inside; see the TOML for reasons)."""

    sample_rate_hz: float
    ambient_degC: float
    cycles_per_day: int
    cycle_period_s: float
    max_speed: np.ndarray
    acceleration: np.ndarray
    levels: np.ndarray
    max_plateau_s: float
    warming_fraction: tuple[float, ...]
    robot_friction_rel: float
    robot_thermal_rel: float
    day_friction_rel: float
    day_ambient_K: float
    torque_noise: np.ndarray
    encoder_resolution: float
    fault_joint: int
    fault_factor: float
    fault_onset_s: float
    fault_robot: int
    friction: dict[str, np.ndarray]
    friction_T_ref: float
    tau1_s: np.ndarray
    tau2_s: np.ndarray
    inner_rise_K: np.ndarray
    fast_share: np.ndarray
    path: str = ""
    thermal_model: str = "two_node"
    three_node_file: str = ""
    gearbox_start_degC: float | None = None  # None: the gearboxes start at the room temperature


def load_campaign_params(path: str | Path | None = None) -> CampaignParams:
    """Read ``data/twin/tx40_thermal_campaign.toml`` (or ``path``).

    Optional key ``[campaign.start] gearbox_degC``: the gearboxes' temperature when a day starts
    [degC] (default: the room's, ``ambient_degC``). Optional keys of ``[thermal]``:
    ``thermal_model`` (one of :data:`THERMAL_MODELS`, default ``two_node``) and
    ``three_node_file`` (the three-node network's TOML, next to this file; default
    ``tx40_thermal_three_node.toml``).

    Raises
    ------
    ValueError
        Naming the file and the key when a key is missing or has the wrong length.
    """
    p = Path(path) if path else DEFAULT_PARAMS
    with open(p, "rb") as fh:
        d = tomllib.load(fh)

    def get(*keys: str, n: int | None = None) -> Any:
        x: Any = d
        for k in keys:
            if not isinstance(x, dict) or k not in x:
                raise ValueError(f"{p}: missing key {'.'.join(keys)}")
            x = x[k]
        if n is not None:
            arr = np.asarray(x, dtype=float)
            if arr.shape != (n,):
                raise ValueError(f"{p}: {'.'.join(keys)} must have {n} values, got {arr.shape}")
            return arr
        return x

    fr_keys = ("coulomb_Nm", "static_Nm", "stribeck_velocity_rad_per_s", "stribeck_exponent",
               "viscous_Nm_s_per_rad", "viscous_thinning_velocity_rad_per_s", "viscous_exponent",
               "coulomb_temp_coeff_per_K", "viscous_temp_decay_per_K")
    return CampaignParams(
        sample_rate_hz=float(get("campaign", "sample_rate_hz")),
        ambient_degC=float(get("campaign", "ambient_degC")),
        cycles_per_day=int(get("campaign", "cycles_per_day")),
        cycle_period_s=float(get("campaign", "cycle_period_s")),
        max_speed=get("campaign", "speeds", "max_speed_rad_per_s", n=N_JOINTS),
        acceleration=get("campaign", "speeds", "acceleration_rad_per_s2", n=N_JOINTS),
        levels=np.asarray(get("campaign", "speeds", "levels_percent"), dtype=float) / 100.0,
        max_plateau_s=float(get("campaign", "speeds", "max_plateau_s")),
        warming_fraction=tuple(float(x) for x in get("campaign", "days", "warming_fraction")),
        robot_friction_rel=float(get("spread", "robot_friction_rel")),
        robot_thermal_rel=float(get("spread", "robot_thermal_rel")),
        day_friction_rel=float(get("spread", "day_friction_rel")),
        day_ambient_K=float(get("spread", "day_ambient_K")),
        torque_noise=get("noise", "torque_Nm", n=N_JOINTS),
        encoder_resolution=float(get("noise", "encoder_resolution_rad")),
        fault_joint=int(get("fault", "joint")),
        fault_factor=float(get("fault", "factor")),
        fault_onset_s=60.0 * float(get("fault", "onset_min")),
        fault_robot=int(get("fault", "robot")),
        friction={k: get("friction", k, n=N_JOINTS) for k in fr_keys},
        friction_T_ref=float(get("friction", "reference_temperature_degC")),
        tau1_s=60.0 * get("thermal", "tau1_min", n=N_JOINTS),
        tau2_s=60.0 * get("thermal", "tau2_min", n=N_JOINTS),
        inner_rise_K=get("thermal", "inner_rise_K", n=N_JOINTS),
        fast_share=get("thermal", "fast_share", n=N_JOINTS),
        path=str(p),
        thermal_model=_thermal_model_name(d.get("thermal", {}).get("thermal_model", "two_node"), p),
        three_node_file=str(p.parent / d.get("thermal", {}).get("three_node_file", THREE_NODE_PARAMS.name)),
        gearbox_start_degC=_start_temperature(d, p),
    )


def _start_temperature(d: Mapping[str, Any], where: object) -> float | None:
    """``[campaign.start] gearbox_degC`` [degC], or None when the file has no such table."""
    start = d.get("campaign", {}).get("start")
    if start is None:
        return None
    if not isinstance(start, Mapping) or "gearbox_degC" not in start:
        raise ValueError(f"{where}: [campaign.start] needs gearbox_degC (the gearboxes' start temperature, degC)")
    value = float(start["gearbox_degC"])
    if not math.isfinite(value) or not -40.0 <= value <= 80.0:
        raise ValueError(f"{where}: [campaign.start] gearbox_degC = {value} is not a gearbox's temperature in degC "
                         "(expected -40 to 80; a value in kelvin?)")
    return value


def _thermal_model_name(name: object, where: object) -> str:
    if name not in THERMAL_MODELS:
        raise ValueError(f"{where}: thermal_model must be one of {', '.join(THERMAL_MODELS)}, got {name!r}")
    return str(name)


def load_three_node(params: CampaignParams) -> list[ThreeNodeDesign]:
    """Per-joint three-node designs of ``params.three_node_file`` (``[three_node]`` table).

    Raises
    ------
    ValueError
        Naming the file when the table or one of its keys is missing or misshapen.
    """
    path = Path(params.three_node_file or THREE_NODE_PARAMS)
    with open(path, "rb") as fh:
        d = tomllib.load(fh)
    if "three_node" not in d:
        raise ValueError(f"{path}: missing table [three_node]")
    try:
        return load_three_node_designs(d["three_node"], N_JOINTS)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def friction_rows(params: CampaignParams, scale: np.ndarray | float = 1.0) -> np.ndarray:
    """True friction rows (``paperlib.friction.lugre`` layout), levels times ``scale``: (6, 13)."""
    f = params.friction
    s = np.broadcast_to(np.asarray(scale, dtype=float), (N_JOINTS,))
    rows = np.zeros((N_JOINTS, N_FRICTION_PARAMS))
    rows[:, FR_FC] = f["coulomb_Nm"] * s
    rows[:, FR_FS] = f["static_Nm"] * s
    rows[:, FR_VS] = f["stribeck_velocity_rad_per_s"]
    rows[:, FR_DELTA] = f["stribeck_exponent"]
    rows[:, FR_FV] = f["viscous_Nm_s_per_rad"] * s
    rows[:, FR_VTHIN] = f["viscous_thinning_velocity_rad_per_s"]
    rows[:, FR_DV] = f["viscous_exponent"]
    rows[:, FR_SIGMA0] = 1e4   # LuGre values unused: the campaign twin uses the steady law
    rows[:, FR_SIGMA1] = 0.0
    rows[:, FR_VD] = 0.1
    rows[:, FR_TREF] = params.friction_T_ref
    rows[:, FR_ALPHA_C] = f["coulomb_temp_coeff_per_K"]
    rows[:, FR_BETA_V] = f["viscous_temp_decay_per_K"]
    return np.ascontiguousarray(rows)


def design_two_node(tau1_s: float, tau2_s: float, rise_per_W: float, fast_share: float
                    ) -> GearboxThermal:
    """Two-node network (no inner-ambient path) with given eq. 12 modes at the inner node.

    Parameters
    ----------
    tau1_s, tau2_s : float
        Wanted time constants [s], tau1 < tau2.
    rise_per_W : float
        Steady inner rise per watt, ``c1 tau1 + c2 tau2`` [K/W].
    fast_share : float
        ``c1 tau1 / (c1 tau1 + c2 tau2)`` in (0, 1).

    Returns
    -------
    GearboxThermal
    """
    target = np.log([tau1_s, tau2_s, fast_share * rise_per_W, (1 - fast_share) * rise_per_W])

    def net(x: np.ndarray) -> GearboxThermal:
        ci, cc, gic, gca = np.exp(x)
        return GearboxThermal(ci, cc, gic, gca, 0.0)

    def resid(x: np.ndarray) -> np.ndarray:
        m = modal_form(net(x).row())
        vals = [m["tau1_s"], m["tau2_s"], m["c1_inner"] * m["tau1_s"], m["c2_inner"] * m["tau2_s"]]
        return np.log(np.maximum(vals, 1e-300)) - target

    # start: inner capacity from the fast mode, case from the slow one
    g_ic = 1.0 / (fast_share * rise_per_W)
    g_ca = 1.0 / ((1 - fast_share) * rise_per_W)
    x0 = np.log([tau1_s * g_ic, tau2_s * g_ca, g_ic, g_ca])
    sol = scipy.optimize.least_squares(resid, x0, xtol=1e-14, ftol=1e-14, gtol=1e-14, max_nfev=2000)
    if np.max(np.abs(sol.fun)) > 1e-6:
        raise ValueError(f"two-node network: no solution for tau=({tau1_s}, {tau2_s}) s, "
                         f"share {fast_share}")
    return net(sol.x)


# ------------------------------------------------------------------------------------------------
# trajectories of one cycle
# ------------------------------------------------------------------------------------------------
@dataclass
class CycleProgram:
    """Prescribed joint motion of one cycle, sampled.

    Attributes
    ----------
    q, qd, qdd : ndarray, shape (n, 6)
        [rad], [rad/s], [rad/s^2]; n = cycle_period * fs.
    segments : list of dict
        ``{"kind": "fourier"|"friction"|"warming"|"rest", "joint": int|None, "start": i0, "stop": i1}``.
    v_max : ndarray, shape (6,)
        Fastest plateau of each joint [rad/s].
    """

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    segments: list = field(default_factory=list)
    v_max: np.ndarray = field(default_factory=lambda: np.zeros(N_JOINTS))


class _Builder:
    def __init__(self, fs: float, q0: np.ndarray) -> None:
        self.fs = fs
        self.dt = 1.0 / fs
        self.q = [np.asarray(q0, dtype=float)[None, :]]
        self.qd = [np.zeros((1, N_JOINTS))]
        self.qdd = [np.zeros((1, N_JOINTS))]
        self.n = 1
        self.segments: list[dict] = []

    @property
    def last(self) -> np.ndarray:
        return self.q[-1][-1].copy()

    def add(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> None:
        self.q.append(q)
        self.qd.append(qd)
        self.qdd.append(qdd)
        self.n += q.shape[0]

    def hold(self, seconds: float) -> None:
        m = max(int(round(seconds * self.fs)), 0)
        if m:
            self.add(np.repeat(self.last[None, :], m, 0), np.zeros((m, N_JOINTS)), np.zeros((m, N_JOINTS)))

    def cycloidal(self, target: np.ndarray, td: float) -> None:
        """Eqs. 8-10 from the current pose to ``target`` in ``td`` seconds (all joints).

        The acceleration is the derivative of eq. 9, ``2 pi dq / td^2 sin(2 pi t / td)``: the
        paper's eq. 10 as printed lacks the factor pi.
        """
        q0 = self.last
        dq = np.asarray(target, dtype=float) - q0
        m = max(int(round(td * self.fs)), 1)
        t = (np.arange(1, m + 1) * self.dt)[:, None]
        ph = 2 * np.pi * t / td
        self.add(q0 + dq * (t / td - np.sin(ph) / (2 * np.pi)), dq / td * (1 - np.cos(ph)),
                 2 * np.pi * dq / td ** 2 * np.sin(ph))

    def trapezoid(self, j: int, h: float, v: float, a: float) -> None:
        """Joint ``j`` moves by ``h`` (sign = direction) cruising at ``v``, accelerating at ``a``."""
        q0 = self.last
        s = math.copysign(1.0, h)
        ta = v / a
        tc = (abs(h) - v * ta) / v
        T = 2 * ta + tc
        m = int(math.ceil(T * self.fs))
        t = np.arange(1, m + 1) * self.dt
        t = np.minimum(t, T)
        pos = np.where(t < ta, 0.5 * a * t ** 2,
                       np.where(t < ta + tc, 0.5 * a * ta ** 2 + v * (t - ta),
                                abs(h) - 0.5 * a * np.maximum(T - t, 0.0) ** 2))
        vel = np.where(t < ta, a * t, np.where(t < ta + tc, v, a * np.maximum(T - t, 0.0)))
        acc = np.where(t < ta, a, np.where(t < ta + tc, 0.0, -a))
        acc[t >= T] = 0.0
        q = np.repeat(q0[None, :], m, 0)
        qd = np.zeros((m, N_JOINTS))
        qdd = np.zeros((m, N_JOINTS))
        q[:, j] = q0[j] + s * pos
        qd[:, j] = s * vel
        qdd[:, j] = s * acc
        self.add(q, qd, qdd)

    def fourier(self, amp: np.ndarray, period: float, repeats: int, rng: np.random.Generator) -> None:
        """Eq. 7 (N = 5) around the current pose, zero velocity and acceleration at the ends."""
        q0 = self.last
        wf = 2 * np.pi / period
        l = np.arange(1, 6)[:, None]
        a = rng.uniform(-1, 1, (5, N_JOINTS))
        b = rng.uniform(-1, 1, (5, N_JOINTS))
        a[-1] -= a.sum(axis=0)            # qd(0) = sum a_l = 0
        b[-1] -= (l[:, 0, None] * b).sum(axis=0) / 5.0  # qdd(0) = wf sum l b_l = 0
        m = int(round(period * repeats * self.fs))
        t = (np.arange(1, m + 1) * self.dt)[:, None, None]
        arg = wf * l[None] * t
        qf = (a / (wf * l) * np.sin(arg) - b / (wf * l) * np.cos(arg)).sum(axis=1)
        qf0 = (-b / (wf * l)).sum(axis=0)
        qdf = (a * np.cos(arg) + b * np.sin(arg)).sum(axis=1)
        qddf = (-a * wf * l * np.sin(arg) + b * wf * l * np.cos(arg)).sum(axis=1)
        # scale each joint to its amplitude
        peak = np.max(np.abs(qf - qf0), axis=0)
        k = amp / np.maximum(peak, 1e-12)
        self.add(q0 + k * (qf - qf0), k * qdf, k * qddf)

    def warming(self, amp: np.ndarray, speed: np.ndarray, duration: float) -> None:
        """All joints ``c + A (1 - cos(w t))``, whole periods, speed amplitude ``A w``."""
        q0 = self.last
        m = int(round(duration * self.fs))
        t = np.arange(1, m + 1) * self.dt
        q = np.repeat(q0[None, :], m, 0)
        qd = np.zeros((m, N_JOINTS))
        qdd = np.zeros((m, N_JOINTS))
        for j in range(N_JOINTS):
            w = speed[j] / amp[j]
            n_per = max(int(duration * w / (2 * np.pi)), 1)
            Tj = n_per * 2 * np.pi / w
            tj = np.minimum(t, Tj)
            on = t <= Tj
            q[:, j] = q0[j] + amp[j] * (1 - np.cos(w * tj))
            qd[:, j] = np.where(on, amp[j] * w * np.sin(w * tj), 0.0)
            qdd[:, j] = np.where(on, amp[j] * w * w * np.cos(w * tj), 0.0)
        self.add(q, qd, qdd)

    def mark(self, kind: str, joint: int | None, start: int) -> None:
        self.segments.append({"kind": kind, "joint": joint, "start": int(start), "stop": int(self.n)})

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.concatenate(self.q), np.concatenate(self.qd), np.concatenate(self.qdd)


def cycle_program(params: CampaignParams, warming_fraction: float, seed: int = 0) -> CycleProgram:
    """The prescribed motion of one cycle (same Fourier coefficients for a given seed).

    Parameters
    ----------
    params : CampaignParams
    warming_fraction : float
        Speed amplitude of the warming segment as a fraction of each joint's maximum speed.
    seed : int
        Seed of the Fourier coefficients.

    Returns
    -------
    CycleProgram
        Exactly ``cycle_period_s * sample_rate_hz`` samples.
    """
    fs = params.sample_rate_hz
    rng = np.random.default_rng(seed)
    b = _Builder(fs, HOME)
    i0 = b.n
    b.fourier(np.array([0.8, 0.4, 0.4, 0.8, 0.6, 1.0]), 10.0, 2, rng)
    b.mark("fourier", None, i0)
    vmax = params.max_speed
    for j in range(N_JOINTS):
        pose = FRICTION_POSES[j]
        span = 0.85 * (JOINT_RANGE[j, 1] - JOINT_RANGE[j, 0])
        centre = pose[j]
        tp = min(params.max_plateau_s, (span - vmax[j] ** 2 / params.acceleration[j]) / vmax[j])
        i0 = b.n
        start = pose.copy()
        for lv in params.levels:
            v = lv * vmax[j]
            h = v * tp + v * v / params.acceleration[j]
            start[j] = centre - h / 2
            b.cycloidal(start, 2.5 if lv == params.levels[0] else 1.0)
            b.hold(0.3)
            b.trapezoid(j, h, v, params.acceleration[j])
            b.hold(0.3)
            b.trapezoid(j, -h, v, params.acceleration[j])
            b.hold(0.3)
        b.mark("friction", j + 1, i0)
    b.cycloidal(HOME, 2.5)
    i0 = b.n
    b.warming(np.array([0.8, 0.5, 0.6, 0.8, 0.6, 0.9]), warming_fraction * vmax, 60.0)
    b.mark("warming", None, i0)
    b.cycloidal(HOME, 2.0)
    n_period = int(round(params.cycle_period_s * fs))
    if b.n > n_period:
        raise ValueError(f"cycle motion lasts {b.n / fs:.1f} s, longer than the period "
                         f"{params.cycle_period_s} s")
    i0 = b.n
    b.hold((n_period - b.n) / fs)
    b.mark("rest", None, i0)
    q, qd, qdd = b.arrays()
    return CycleProgram(q=q[:n_period], qd=qd[:n_period], qdd=qdd[:n_period], segments=b.segments,
                        v_max=vmax * params.levels.max())


# ------------------------------------------------------------------------------------------------
# days
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DaySpec:
    """One test day.

    Attributes
    ----------
    robot : int
        1 or 2.
    day : int
        1-based; day 5 of the fault robot is the faulty day.
    warming_fraction : float
    fault : tuple or None
        (joint label, factor, onset [s]) of a friction step.
    seed : int
    thermal_model : str or None
        One of :data:`THERMAL_MODELS`; None: the campaign file's (``two_node`` unless it says).
    """

    robot: int
    day: int
    warming_fraction: float
    fault: tuple[int, float, float] | None = None
    seed: int = 0
    thermal_model: str | None = None

    @property
    def name(self) -> str:
        return (f"r{self.robot}_d{self.day}" + ("_fault" if self.fault else "")
                + ("_3n" if self.thermal_model == "three_node" else ""))


def campaign_days(params: CampaignParams, robots: Sequence[int] = (1, 2), include_fault: bool = True,
                  thermal_model: str | None = None) -> list[DaySpec]:
    """The 2 robots x 4 days (warming fractions from the TOML) and the faulty day.

    ``thermal_model`` (default: the campaign file's) other than ``two_node`` is written into each
    spec (and its name, suffix ``_3n``); the two-node days' specs are those of the original campaign.
    """
    model = _thermal_model_name(thermal_model or params.thermal_model, "campaign_days")
    tm = None if model == "two_node" else model
    out = [DaySpec(robot=r, day=d + 1, warming_fraction=f, seed=100 * r + d + 1, thermal_model=tm)
           for r in robots for d, f in enumerate(params.warming_fraction)]
    if include_fault:
        out.append(DaySpec(robot=params.fault_robot, day=len(params.warming_fraction) + 1,
                           warming_fraction=params.warming_fraction[0],
                           fault=(params.fault_joint, params.fault_factor, params.fault_onset_s),
                           seed=100 * params.fault_robot + 99, thermal_model=tm))
    return out


def _robot_spread(params: CampaignParams, robot: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-joint friction and thermal-resistance factors of a robot (robot 1 = nominal)."""
    if robot == 1:
        return np.ones(N_JOINTS), np.ones(N_JOINTS)
    rng = np.random.default_rng(7919 * robot)
    return (1 + params.robot_friction_rel * rng.uniform(-1, 1, N_JOINTS),
            1 + params.robot_thermal_rel * rng.uniform(-1, 1, N_JOINTS))


def _mean_power(rows: np.ndarray, prog: CycleProgram, T: float) -> np.ndarray:
    step = 5
    qd = prog.qd[::step]
    out = np.zeros(N_JOINTS)
    for j in range(N_JOINTS):
        out[j] = np.mean([abs(steady_friction(float(v), rows[j], T) * v) for v in qd[:, j]])
    return out


@rt_njit
def _simulate(qd, rows, three_node, disc, th, dt, T_amb, x, fault_joint, fault_factor, fault_onset, tau, T_log,
              dec):  # pragma: no cover - compiled
    """Friction torques and gearbox heat of a day: the two-node networks (``disc``) or, with ``three_node``,
    the three-node ones (rows ``th[j]``, Euler step ``dt``); the unused parameter array is a placeholder."""
    n, nj = qd.shape
    for i in range(n):
        for j in range(nj):
            v = qd[i, j]
            f = steady_friction(v, rows[j], x[j, 0])
            if j == fault_joint and i >= fault_onset:
                f *= fault_factor
            tau[i, j] += f
            if three_node:
                three_node_step(x[j], abs(f * v), th[j], T_amb, dt)
            else:
                thermal_step(x[j], abs(f * v), disc[j], T_amb)
        if i % dec == 0:
            for j in range(nj):
                T_log[i // dec, j] = x[j, 0]


@dataclass
class DayResult:
    """A simulated day: arrays and the truth."""

    spec: DaySpec
    time: np.ndarray
    q: np.ndarray
    tau: np.ndarray
    truth: dict
    sample_rate_hz: float
    program: CycleProgram


_CACHE: dict[tuple, Any] = {}


def tx40_rigid_body() -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """Inverse dynamics of the TX40 (``data/robots/tx40.toml``: URDF inertials, no friction).

    Returns
    -------
    callable
        ``(Q, QD, QDD) -> tau``, shapes (N, 6) [rad, rad/s, rad/s^2] -> (N, 6) [N m].
    """
    from paperlib.robots.serial import SerialArm

    arm = SerialArm.named("tx40")
    return lambda Q, QD, QDD: np.asarray(arm.inverse_dynamics(Q, QD, QDD))


@twin_run
def simulate_day(params: CampaignParams, spec: DaySpec,
                 rigid_body: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
                 cycles: int | None = None, temperature_log_s: float = 10.0) -> DayResult:
    """Simulate one test day from rest: the room at the day's ambient temperature, the gearboxes at
    the day's start temperature (``params.gearbox_start_degC`` moved by the day's ambient spread, or
    the ambient itself when the file gives none).

    Parameters
    ----------
    params : CampaignParams
    spec : DaySpec
    rigid_body : callable, optional
        ``(Q, QD, QDD) -> tau`` of the arm, shape (N, 6) each; default :func:`tx40_rigid_body`.
    cycles : int, optional
        Number of cycles (default: the TOML's 24).
    temperature_log_s : float
        Step of the true inner temperatures kept in the truth [s].

    Returns
    -------
    DayResult
    """
    fs = params.sample_rate_hz
    n_cycles = int(cycles or params.cycles_per_day)
    key = (params.path, spec.warming_fraction)
    if key not in _CACHE:
        prog = cycle_program(params, spec.warming_fraction)
        rb = rigid_body or tx40_rigid_body()
        tau_rb = rb(prog.q, prog.qd, prog.qdd)
        _CACHE[key] = (prog, np.asarray(tau_rb, dtype=float))  # a few programs of 75,000 samples
    prog, tau_rb = _CACHE[key]
    rng = np.random.default_rng(spec.seed)
    f_robot, th_robot = _robot_spread(params, spec.robot)
    f_day = 1 + params.day_friction_rel * rng.uniform(-1, 1, N_JOINTS)
    T_amb = params.ambient_degC + params.day_ambient_K * rng.uniform(-1, 1)
    T_start = T_amb if params.gearbox_start_degC is None else params.gearbox_start_degC + (T_amb - params.ambient_degC)
    rows = friction_rows(params, f_robot * f_day)
    # thermal network: rise targets at the nominal robot's day-1 mean power, hot friction
    nominal_rows = friction_rows(params)
    key_p = ("power", params.path)
    if key_p not in _CACHE:
        prog1 = cycle_program(params, params.warming_fraction[0])
        _CACHE[key_p] = _mean_power(nominal_rows, prog1, params.ambient_degC + 0.6 * float(np.mean(params.inner_rise_K)))
    p_design = _CACHE[key_p]
    model = _thermal_model_name(spec.thermal_model or params.thermal_model, f"day {spec.name}")
    rise_per_W = params.inner_rise_K / p_design * th_robot
    n = prog.q.shape[0] * n_cycles
    q = np.tile(prog.q, (n_cycles, 1))
    qd = np.tile(prog.qd, (n_cycles, 1))
    tau = np.tile(tau_rb, (n_cycles, 1))
    dec = max(int(round(temperature_log_s * fs)), 1)
    T_log = np.zeros(((n + dec - 1) // dec, N_JOINTS))
    fj, ff, fo = (-1, 1.0, n + 1) if spec.fault is None else (spec.fault[0] - 1, spec.fault[1], int(round(spec.fault[2] * fs)))
    if model == "two_node":
        nets = [design_two_node(params.tau1_s[j], params.tau2_s[j], rise_per_W[j], params.fast_share[j])
                for j in range(N_JOINTS)]
        th = thermal_array(nets)
        disc = thermal_discrete_array(th, 1.0 / fs)
        x = np.full((N_JOINTS, 2), float(T_start))
        _simulate(np.ascontiguousarray(qd), rows, False, disc, disc, 1.0 / fs, float(T_amb), x, fj, ff, fo, tau, T_log,
                  dec)
        thermal_truth = {"thermal_params": th.tolist(), "thermal_layout": "paperlib.twin.thermal TH_*",
                         "eq12": [modal_form(r) for r in th]}
    else:
        designs = load_three_node(params)
        th = np.ascontiguousarray(np.stack([design_three_node(designs[j], rise_per_W[j])
                                            for j in range(N_JOINTS)]))
        x = np.full((N_JOINTS, N_T3_STATE), float(T_start))
        _simulate(np.ascontiguousarray(qd), rows, True, th, th, 1.0 / fs, float(T_amb), x, fj, ff, fo, tau, T_log, dec)
        thermal_truth = {"thermal_model": model, "thermal_params": th.tolist(),
                         "thermal_layout": "paperlib.twin.thermal_three_node T3_*",
                         "three_node_file": Path(params.three_node_file).name,
                         "time_constants_linear_s": [linear_time_constants(r).tolist() for r in th]}
    tau += rng.standard_normal(tau.shape) * params.torque_noise
    res = params.encoder_resolution
    q = np.round(q / res) * res
    truth = {
        "robot_index": spec.robot, "day": spec.day, "warming_fraction": spec.warming_fraction,
        "ambient_degC": T_amb, "gearbox_start_degC": T_start, "friction_rows": rows.tolist(), "friction_row_layout": "paperlib.friction.lugre FR_*",
        "friction_scale_robot": f_robot.tolist(), "friction_scale_day": f_day.tolist(),
        **thermal_truth,
        "fault": None if spec.fault is None else {"joint": spec.fault[0], "factor": spec.fault[1],
                                                  "onset_min": spec.fault[2] / 60.0},
        "temperature_inner_step_s": dec / fs, "temperature_inner_degC": np.round(T_log, 4).tolist(),
        "torque_noise_Nm": params.torque_noise.tolist(), "v_max_rad_per_s": prog.v_max.tolist(),
        "cycle_segments": prog.segments, "cycle_period_s": params.cycle_period_s,
        "gravity_joints": [2, 3],
        "params_file": Path(params.path).name,
    }
    time = np.arange(n) / fs
    return DayResult(spec=spec, time=time, q=q, tau=tau, truth=truth, sample_rate_hz=fs, program=prog)


def day_recording(day: DayResult, writer: str = "paperlib.twin.robots.campaign"):
    """The day as a recording (``source = twin``, truth in the attributes): ``q`` and ``tau_m``.

    """
    from paperlib import recordings as R

    spec = dict(day.spec.__dict__)
    model = day.truth.get("thermal_model", "two_node")
    if spec.get("thermal_model") is None:  # the original campaign's days: config and attributes as before
        spec.pop("thermal_model", None)
    config = {"twin": "tx40 thermal campaign", "spec": spec, "params_file": day.truth["params_file"]}
    attrs = {"description": f"TX40 twin, thermal campaign, robot {day.spec.robot} day {day.spec.day}"
             + (" (faulty)" if day.spec.fault else "")
             + ("" if model == "two_node" else f", {model.replace('_', '-')} thermal model")}
    if model != "two_node":
        attrs["thermal_model"] = model
    return R.from_arrays(day.q, sample_rate_hz=day.sample_rate_hz, robot="tx40", source="twin",
                         channels={"tau_m": day.tau}, torque_side="joint", truth=day.truth,
                         seed=day.spec.seed, config=config, controller="position",
                         writer=writer, attrs=attrs)
