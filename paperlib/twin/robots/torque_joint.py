"""Twin of a cobot joint with a harmonic drive and an integrated joint torque sensor (paper 004's rig).

The rig of paper 004 is joint 7 of a Kinova Gen3 arm; the paper gives no drive data, so every
number here is **assumed** (chosen to be physically plausible) unless said otherwise, and the
sensed intrinsic levels (offset, ripple, friction) are **calibrated to the paper's Fig. 3c by
construction** (offset -0.12 N m, ripple about +/-0.2 N m, sensed friction about -0.3..+0.1 N m).

Model (1 DOF joint, angle ``q`` [rad], optionally a grasped wheel-bearing ring ``phi``)::

    J_m qdd     = tau_cmd - F_m(qd) - tau_tr                   motor + wave generator side
    tau_tr      = J_s qdd + F_s(qd) + mu |tau_g| s(qd) + R(q) + tau_g    transmitted through the sensor
    tau_g       = k_g (q - phi) + c_g (qd - phid)              compliant grasp (finger pads)
    J_b phidd   = tau_g - T_b(phid, phi)                       bearing ring + adapter (wheel_bearing)
    tau_s       = tau_tr + o + d(t) + noise                    joint torque sensor reading
    tau_ref     = tau_g - J_a phidd + noise, quantized         external load cell (ATI mini40-like)

``F_m`` and ``F_s`` are asymmetric Stribeck laws (:class:`paperlib.friction.stribeck.StribeckLaw`;
the basis of the paper has no Stribeck dip, so the twin is richer than the model fitted to it).
``mu |tau_g| s(qd)`` (``s`` the smoothed sign of F_s) is friction of the output bearing that
grows with the load the grasp puts on it: a no-load identification cannot see it.
``R(q)`` holds ripple at low orders of the joint angle (output-side run-out, sensor
misalignment) and at the wave generator's orders ``2 N`` (``N`` = gear ratio; the elliptical
wave generator deflects the flexspline twice per turn) reflected to the joint angle.
``d(t)`` is the sensor's offset drift: a shift per run (thermal) plus a linear drift.
``tau_cmd`` is either a torque profile (no-load identification, paper Sec. 3.1.1) or joint
impedance control ``K (q_sp - q) + D (qd_sp - qd)`` tracking a trapezoidal-velocity move
(bearing turning, Sec. 3.1.2).

The plant is integrated by semi-implicit Euler at ``substeps`` times the 1 kHz output rate
(compiled with numba); sample ``k`` is the state at ``t = k / 1000 s`` with the torques and
accelerations evaluated at that state.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numba as nb
import numpy as np

from paperlib.friction.stribeck import StribeckLaw, stribeck_torque
from paperlib.twin.guard import twin_run

__all__ = ["RippleComponent", "TorqueJointTwin", "JointRun", "trapezoidal_torque_profile",
           "trapezoidal_moves", "NO_LOAD_PEAKS_NM", "simulate_joint", "advance_joint", "run_joint"]

#: Peaks [N m] of the no-load profile's trapezoids, alternating in sign (paper: 1-3 N m, alternating).
NO_LOAD_PEAKS_NM: tuple[float, ...] = (1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 2.5, -2.5, 3.0, -3.0)


@dataclass(frozen=True)
class RippleComponent:
    """One harmonic of the sensed ripple: ``amplitude cos(order q + phase)``.

    Attributes
    ----------
    order : float
        Cycles per joint revolution (need not be an integer).
    amplitude_Nm : float
        [N m].
    phase_rad : float
        [rad].
    source : str
        Where it comes from (documentation).
    """

    order: float
    amplitude_Nm: float
    phase_rad: float
    source: str = ""


def _default_ripple(gear_ratio: float) -> tuple[RippleComponent, ...]:
    return (
        RippleComponent(1.0, 0.13, 0.4, "output run-out / sensor misalignment (1 per rev)"),
        RippleComponent(2.0, 0.06, -1.1, "output ovality (2 per rev)"),
        RippleComponent(3.0, 0.025, 2.0, "output (3 per rev)"),
        RippleComponent(2.0 * gear_ratio, 0.05, 0.7, "wave generator, 2 per wave-generator turn"),
    )


@dataclass(frozen=True)
class TorqueJointTwin:
    """Parameters of the joint twin (all assumed; see the module docstring).

    Attributes
    ----------
    gear_ratio : float
        Harmonic-drive ratio N (wave-generator turns per joint turn); assumed 100.
    ripple : tuple of RippleComponent
        Sensed ripple; ``None`` gives the default (orders 1, 2, 3 and ``2 N``).
    sensor_friction : StribeckLaw
        Friction between the sensor and the output (sensed) [N m].
    drive_friction : StribeckLaw
        Friction of motor, wave generator and gear mesh (not sensed) [N m].
    motor_inertia : float
        Motor + wave generator inertia reflected to the joint [kg m^2].
    sensed_inertia : float
        Inertia between the sensor and the flange, incl. gripper and finger adapters [kg m^2].
    sensor_offset_Nm : float
        Calibration offset of the torque sensor [N m].
    sensor_noise_Nm : float
        White noise std of the sensor at 1 kHz [N m].
    sensor_shift_std_Nm : float
        Std of the offset shift from one run to the next (thermal) [N m].
    sensor_drift_std_Nm_per_s : float
        Std of the linear drift rate within a run [N m/s].
    encoder_counts : int
        Counts per joint revolution of the absolute encoder.
    load_friction_coefficient : float
        mu [-]: extra sensed friction per N m transmitted to a load (output bearing loaded by the grasp).
    grasp_stiffness, grasp_damping : float
        Torsional stiffness [N m/rad] and damping [N m s/rad] of the compliant grasp.
    kp, kd : float
        Joint impedance gains [N m/rad], [N m s/rad] while turning the bearing.
    load_cell_noise_Nm, load_cell_resolution_Nm, load_cell_range_Nm : float
        ATI mini40 (SI-40-2-like calibration) torque-about-z noise std, resolution and range [N m].
    sample_rate_hz : float
        Output rate (1 kHz, the paper's rig).
    substeps : int
        Integration steps per sample.
    """

    gear_ratio: float = 100.0
    ripple: tuple[RippleComponent, ...] | None = None
    sensor_friction: StribeckLaw = field(default_factory=lambda: StribeckLaw(
        coulomb_pos_Nm=0.055, coulomb_neg_Nm=0.15, static_pos_Nm=0.085, static_neg_Nm=0.2,
        stribeck_velocity=0.08, stribeck_exponent=2.0, viscous=0.03, smoothing_velocity=2e-3))
    drive_friction: StribeckLaw = field(default_factory=lambda: StribeckLaw(
        coulomb_pos_Nm=0.45, coulomb_neg_Nm=0.5, static_pos_Nm=0.65, static_neg_Nm=0.7,
        stribeck_velocity=0.05, stribeck_exponent=2.0, viscous=1.2, smoothing_velocity=2e-3))
    motor_inertia: float = 0.08
    sensed_inertia: float = 0.004
    sensor_offset_Nm: float = -0.12
    sensor_noise_Nm: float = 0.02
    sensor_shift_std_Nm: float = 0.01
    sensor_drift_std_Nm_per_s: float = 2e-4
    encoder_counts: int = 2 ** 20
    load_friction_coefficient: float = 0.04
    grasp_stiffness: float = 60.0
    grasp_damping: float = 0.4
    kp: float = 60.0
    kd: float = 6.0
    load_cell_noise_Nm: float = 1.5e-3
    load_cell_resolution_Nm: float = 1.0 / 4000.0
    load_cell_range_Nm: float = 2.0
    sample_rate_hz: float = 1000.0
    substeps: int = 10

    @property
    def ripple_components(self) -> tuple[RippleComponent, ...]:
        return self.ripple if self.ripple is not None else _default_ripple(self.gear_ratio)

    def ripple_torque(self, q: np.ndarray) -> np.ndarray:
        """True sensed ripple R(q) [N m]."""
        q = np.asarray(q, dtype=float)
        out = np.zeros_like(q)
        for c in self.ripple_components:
            out += c.amplitude_Nm * np.cos(c.order * q + c.phase_rad)
        return out

    def intrinsic_truth(self) -> dict[str, Any]:
        """The true sensed intrinsic model, with the combinations a regression can identify."""
        sf = self.sensor_friction
        return {
            "sensor_offset_Nm": self.sensor_offset_Nm,
            "sensed_inertia_kg_m2": self.sensed_inertia,
            "sensor_friction": asdict(sf),
            "ripple": [asdict(c) for c in self.ripple_components],
            "level_pos_Nm": self.sensor_offset_Nm + sf.coulomb_pos_Nm,
            "level_neg_Nm": self.sensor_offset_Nm - sf.coulomb_neg_Nm,
            "gear_ratio": self.gear_ratio,
            "note": "level_pos/neg = offset + Coulomb level of each direction (Stribeck dip excluded): "
                    "what the paper's basis can identify",
        }

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ripple"] = [asdict(c) for c in self.ripple_components]
        return d

    def with_(self, **changes: Any) -> "TorqueJointTwin":
        return replace(self, **changes)


# ---------------------------------------------------------------------------------------------
# profiles
# ---------------------------------------------------------------------------------------------

def trapezoidal_torque_profile(peaks_Nm: tuple[float, ...] = NO_LOAD_PEAKS_NM, *, duration_s: float = 30.0,
                               ramp_fraction: float = 0.2, fs: float = 1000.0) -> np.ndarray:
    """Torque command of the no-load run: one trapezoid per peak, back to back.

    Parameters
    ----------
    peaks_Nm : tuple of float
        Signed plateau torques [N m].
    duration_s : float
        Total duration [s], shared equally by the trapezoids.
    ramp_fraction : float
        Fraction of each trapezoid spent on each ramp.
    fs : float
        Sample rate [Hz].

    Returns
    -------
    ndarray, shape (round(duration_s fs),)
        Torque [N m] at ``t = k / fs``.
    """
    n = int(round(duration_s * fs))
    t = np.arange(n) / fs
    seg = duration_s / len(peaks_Nm)
    k = np.minimum((t // seg).astype(int), len(peaks_Nm) - 1)
    u = (t - k * seg) / seg
    shape = np.clip(np.minimum(u, 1.0 - u) / ramp_fraction, 0.0, 1.0)
    return np.asarray(peaks_Nm)[k] * shape


def trapezoidal_moves(distances_rad: tuple[float, ...], *, v_max: float, a_max: float, dwell_s: float,
                      fs: float = 1000.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Back-to-back point-to-point moves with trapezoidal velocity, a dwell before each.

    Parameters
    ----------
    distances_rad : tuple of float
        Signed move lengths [rad] (e.g. two revolutions each way: ``(4 pi, -4 pi, ...)``).
    v_max, a_max : float
        Cruise velocity [rad/s] and acceleration [rad/s^2].
    dwell_s : float
        Rest before each move and at the end [s].
    fs : float
        Sample rate [Hz].

    Returns
    -------
    q_sp, qd_sp, qdd_sp : ndarray, shape (n,)
        Setpoints [rad], [rad/s], [rad/s^2] from 0.
    """
    acc: list[np.ndarray] = []
    dt = 1.0 / fs
    for d in distances_rad:
        acc.append(np.zeros(int(round(dwell_s * fs))))
        L = abs(d)
        ta = v_max / a_max
        if a_max * ta * ta >= L:  # triangular
            ta = math.sqrt(L / a_max)
            tc = 0.0
        else:
            tc = (L - a_max * ta * ta) / v_max
        na, nc = int(round(ta * fs)), int(round(tc * fs))
        a_eff = L / ((na * dt) * (na * dt + nc * dt))  # exact distance on the sampled grid
        acc.append(math.copysign(a_eff, d) * np.r_[np.ones(na), np.zeros(nc), -np.ones(na)])
    acc.append(np.zeros(int(round(dwell_s * fs))))
    qdd = np.concatenate(acc)
    qd = np.concatenate([[0.0], np.cumsum(qdd[:-1]) * dt])
    q = np.concatenate([[0.0], np.cumsum(qd[:-1] + 0.5 * qdd[:-1] * dt) * dt])
    return q, qd, qdd


# ---------------------------------------------------------------------------------------------
# the compiled plant
# ---------------------------------------------------------------------------------------------

@nb.njit(cache=True, nogil=True)
def _rates(q, w, phi, nu, tau_cmd, J, J_s, p_drive, p_sens, r_order, r_amp, r_phase, load, mu, k_g, c_g, J_b,
           p_bear, b_order, b_amp, b_phase):  # pragma: no cover - compiled
    """Accelerations and torques at one state: (qdd, phidd, F_s, R, tau_g, T_b)."""
    R = 0.0
    for i in range(r_order.shape[0]):
        R += r_amp[i] * math.cos(r_order[i] * q + r_phase[i])
    Fs = stribeck_torque(w, p_sens)
    Fm = stribeck_torque(w, p_drive)
    tg = 0.0
    Tb = 0.0
    nud = 0.0
    if load:
        tg = k_g * (q - phi) + c_g * (w - nu)
        Tb = stribeck_torque(nu, p_bear)
        rough = 0.0
        for i in range(b_order.shape[0]):
            rough += b_amp[i] * (1.0 + math.cos(b_order[i] * phi + b_phase[i]))
        if p_bear[7] > 0.0:
            Tb += rough * math.tanh(nu / p_bear[7])
        nud = (tg - Tb) / J_b
        if p_sens[7] > 0.0:
            Fs += mu * abs(tg) * math.tanh(w / p_sens[7])
    wd = (tau_cmd - Fm - Fs - R - tg) / J
    return wd, nud, Fs, R, tg, Tb


@nb.njit(cache=True, nogil=True)
def simulate_joint(fs, substeps, tau_ff, q_sp, qd_sp, kp, kd, J_m, J_s, p_drive, p_sens,
                   r_order, r_amp, r_phase, load, mu, k_g, c_g, J_b, J_a, p_bear, b_order, b_amp, b_phase,
                   q0):  # pragma: no cover - compiled
    """Integrate the joint (and the grasped bearing when ``load``); returns sampled true signals.

    The command of sample k is held over the ``substeps`` semi-implicit Euler steps that follow
    it; each sample is the state at ``t = k / fs`` with the rates and torques evaluated there.

    Returns
    -------
    out : ndarray, shape (n, 8)
        Columns: q, qd, qdd, tau_tr (transmitted, noise-free), tau_g (grasp), tau_lc (load-cell
        true torque), F_s incl. the load-dependent part (sensed friction), T_b (bearing friction).
    """
    n = tau_ff.shape[0]
    h = 1.0 / (fs * substeps)
    out = np.zeros((n, 8))
    q = q0
    w = 0.0
    phi = q0
    nu = 0.0
    J = J_m + J_s
    for k in range(n):
        tau_cmd = tau_ff[k] + kp * (q_sp[k] - (q - q0)) + kd * (qd_sp[k] - w)
        wd, nud, Fs, R, tg, Tb = _rates(q, w, phi, nu, tau_cmd, J, J_s, p_drive, p_sens, r_order, r_amp, r_phase,
                                        load, mu, k_g, c_g, J_b, p_bear, b_order, b_amp, b_phase)
        out[k, 0] = q
        out[k, 1] = w
        out[k, 2] = wd
        out[k, 3] = J_s * wd + Fs + R + tg
        out[k, 4] = tg
        out[k, 5] = tg - J_a * nud
        out[k, 6] = Fs
        out[k, 7] = Tb
        for s in range(substeps):
            if s > 0:
                tau_cmd = tau_ff[k] + kp * (q_sp[k] - (q - q0)) + kd * (qd_sp[k] - w)
                wd, nud, Fs, R, tg, Tb = _rates(q, w, phi, nu, tau_cmd, J, J_s, p_drive, p_sens, r_order, r_amp,
                                                r_phase, load, mu, k_g, c_g, J_b, p_bear, b_order, b_amp, b_phase)
            w += h * wd
            q += h * w
            if load:
                nu += h * nud
                phi += h * nu
    return out


@nb.njit(cache=True, nogil=True)
def advance_joint(state, n_sub, h, tau_cmd, J_m, J_s, p_drive, p_sens, r_order, r_amp, r_phase, load, mu, k_g, c_g,
                  J_b, J_a, p_bear, b_order, b_amp, b_phase, out):  # pragma: no cover - compiled
    """Advance the joint (and the grasped bearing when ``load``) by ``n_sub`` steps of ``h`` [s].

    The same semi-implicit Euler and rates as :func:`simulate_joint`, for a caller that steps the
    joint cycle by cycle (the emulated drive) with the joint-side command ``tau_cmd`` [N m] held.
    ``state`` = (q, qd, phi, phid) is updated in place; ``out`` (6,) receives, at the *new* state
    with ``tau_cmd``: qdd, tau_tr (transmitted through the sensor, noise-free), tau_g (grasp),
    tau_lc (load-cell true torque), F_s (sensed friction), T_b (bearing friction).
    """
    J = J_m + J_s
    for _ in range(n_sub):
        wd, nud, Fs, R, tg, Tb = _rates(state[0], state[1], state[2], state[3], tau_cmd, J, J_s, p_drive, p_sens,
                                        r_order, r_amp, r_phase, load, mu, k_g, c_g, J_b, p_bear, b_order, b_amp,
                                        b_phase)
        state[1] += h * wd
        state[0] += h * state[1]
        if load:
            state[3] += h * nud
            state[2] += h * state[3]
    wd, nud, Fs, R, tg, Tb = _rates(state[0], state[1], state[2], state[3], tau_cmd, J, J_s, p_drive, p_sens,
                                    r_order, r_amp, r_phase, load, mu, k_g, c_g, J_b, p_bear, b_order, b_amp, b_phase)
    out[0] = wd
    out[1] = J_s * wd + Fs + R + tg
    out[2] = tg
    out[3] = tg - J_a * nud
    out[4] = Fs
    out[5] = Tb


@dataclass
class JointRun:
    """One simulated run: true signals and the sensor readings at 1 kHz.

    Attributes
    ----------
    t : ndarray (n,)
        [s]
    q_true, qd, qdd : ndarray (n,)
        True joint angle [rad], velocity [rad/s], acceleration [rad/s^2].
    q : ndarray (n,)
        Encoder reading [rad] (quantized).
    tau_s : ndarray (n,)
        Joint torque sensor reading [N m].
    tau_ref : ndarray (n,) or None
        Load-cell torque [N m] (bearing runs).
    intrinsic : dict of str -> ndarray (n,)
        True noise-free sensed components: ``offset`` (incl. drift), ``ripple``, ``friction``, ``inertia``.
    bearing_torque : ndarray (n,) or None
        True bearing friction [N m].
    truth : dict
        Parameters and the run's random draws.
    """

    t: np.ndarray
    q_true: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    q: np.ndarray
    tau_s: np.ndarray
    tau_ref: np.ndarray | None
    intrinsic: dict[str, np.ndarray]
    tau_grasp: np.ndarray | None
    bearing_torque: np.ndarray | None
    truth: dict[str, Any]
    setpoint: np.ndarray | None = None


@twin_run
def run_joint(twin: TorqueJointTwin, *, tau_ff: np.ndarray | None = None,
              setpoint: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              bearing: Any | None = None, q0: float = 0.0, seed: int = 0) -> JointRun:
    """Simulate one run of the joint: a torque profile (no load) or impedance moves with a bearing.

    Parameters
    ----------
    twin : TorqueJointTwin
    tau_ff : ndarray (n,), optional
        Torque command [N m] of a no-load run (joint impedance off).
    setpoint : (q_sp, qd_sp, qdd_sp), optional
        Impedance-control setpoints relative to ``q0`` [rad, rad/s, rad/s^2].
    bearing : paperlib.twin.robots.wheel_bearing.WheelBearing, optional
        The grasped bearing (requires ``setpoint``).
    q0 : float
        Start angle [rad] (the ripple's phase depends on it).
    seed : int
        Seed of the sensor noise, drift and load-cell noise.

    Returns
    -------
    JointRun
    """
    rng = np.random.default_rng(seed)
    fs = twin.sample_rate_hz
    if setpoint is not None:
        q_sp, qd_sp, _ = (np.asarray(a, float) for a in setpoint)
        n = q_sp.size
        ff = np.zeros(n) if tau_ff is None else np.asarray(tau_ff, float)
        kp, kd = twin.kp, twin.kd
    elif tau_ff is not None:
        ff = np.asarray(tau_ff, float)
        n = ff.size
        q_sp = qd_sp = np.zeros(n)
        kp = kd = 0.0
    else:
        raise ValueError("run_joint: give tau_ff (no-load run) or setpoint (impedance moves)")
    if bearing is not None and setpoint is None:
        raise ValueError("run_joint: turning a bearing needs impedance setpoints")
    rip = twin.ripple_components
    r_o = np.array([c.order for c in rip], float)
    r_a = np.array([c.amplitude_Nm for c in rip], float)
    r_p = np.array([c.phase_rad for c in rip], float)
    if bearing is not None:
        p_b = bearing.friction_law().as_array()
        b_o, b_a, b_p = bearing.roughness_arrays()
        J_b, J_a = bearing.ring_inertia + bearing.adapter_inertia, bearing.adapter_inertia
    else:
        p_b = np.zeros(8)
        b_o = b_a = b_p = np.zeros(0)
        J_b, J_a = 1.0, 0.0
    out = simulate_joint(fs, int(twin.substeps), ff, q_sp, qd_sp, kp, kd, twin.motor_inertia, twin.sensed_inertia,
                         twin.drive_friction.as_array(), twin.sensor_friction.as_array(), r_o, r_a, r_p,
                         bearing is not None, twin.load_friction_coefficient, twin.grasp_stiffness, twin.grasp_damping, J_b, J_a, p_b,
                         b_o, b_a, b_p, float(q0))
    q_true, qd, qdd, tau_tr, tau_g, tau_lc, F_sensed, Tb = out.T
    t = np.arange(n) / fs
    shift = rng.normal(0.0, twin.sensor_shift_std_Nm)
    rate = rng.normal(0.0, twin.sensor_drift_std_Nm_per_s)
    offset = twin.sensor_offset_Nm + shift + rate * t
    tau_s = tau_tr + offset + rng.normal(0.0, twin.sensor_noise_Nm, n)
    step = 2.0 * np.pi / twin.encoder_counts
    q_enc = np.round(q_true / step) * step
    intrinsic = {"offset": offset, "ripple": twin.ripple_torque(q_true),
                 "friction": F_sensed, "inertia": twin.sensed_inertia * qdd}
    truth: dict[str, Any] = {"twin": twin.as_dict(), "intrinsic": twin.intrinsic_truth(),
                             "run": {"sensor_offset_shift_Nm": shift, "sensor_drift_Nm_per_s": rate,
                                     "q0_rad": float(q0), "seed": int(seed)}}
    tau_ref = None
    if bearing is not None:
        lc = tau_lc + rng.normal(0.0, twin.load_cell_noise_Nm, n)
        lc = np.clip(np.round(lc / twin.load_cell_resolution_Nm) * twin.load_cell_resolution_Nm,
                     -twin.load_cell_range_Nm, twin.load_cell_range_Nm)
        tau_ref = lc
        truth["wheel_bearing"] = bearing.as_dict()
        truth["run"]["bearing_torque_rms_Nm"] = float(np.sqrt(np.mean(Tb ** 2)))
        truth["run"]["load_cell_saturated_samples"] = int(np.sum(np.abs(tau_lc) >= twin.load_cell_range_Nm))
    return JointRun(t=t, q_true=q_true, qd=qd, qdd=qdd, q=q_enc, tau_s=tau_s, tau_ref=tau_ref,
                    intrinsic=intrinsic, tau_grasp=tau_g if bearing is not None else None,
                    bearing_torque=Tb if bearing is not None else None, truth=truth,
                    setpoint=q_sp if setpoint is not None else None)
