"""Power drive systems of the twin (flagship eqs. 19-22) and the twin parameter loader.

Per axis (Copley Accelnet BE2-090-20 in cyclic synchronous torque mode driving a Mavilor
BLS55 motor through a gearbox of ratio iota)::

    target torque 0x6071   tau_tgt, int16 per mille of the rated torque, clipped to the
                           max torque 0x6072
    current target         i_tgt = tau_tgt / kT_bar, clipped to the drive's current limit
    current loop           measured current y = k_S i + offset follows i_tgt through a
                           second-order low pass (omega_n, zeta) set by the -3 dB bandwidth,
                           integrated exactly (zero-order hold of i_tgt over the step)
    actual motor torque    tau_m = kT i = kT (y - offset) / k_S
    torque actual 0x6077   tau_m_check = kT_bar y, int16 per mille of the rated torque

At steady state y = i_tgt, hence tau_m_check = tau_tgt and
``tau_m = pi_pds tau_m_check - kT offset / k_S`` with ``pi_pds = kT / (kT_bar k_S)`` (eq. 22).
Torques here are motor-side [N m]; the joint receives ``iota tau_m`` (:func:`joint_torque`).

Parameter row per axis, ``params[a, DR_*]`` (float64), built for one integration step ``dt``
by :func:`drive_array`; state per axis ``state[a, DS_*]``.

The module also holds :func:`load_twin_params`, which reads, checks and converts a robot's whole
twin file ``data/twin/<robot>_twin.toml`` (friction, thermal, drives, IMUs; as many numbered
tables of each as the robot has) into :class:`TwinParams`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import scipy.linalg

from paperlib._toml import read_toml
from paperlib._jit import rt_njit
from paperlib.friction import lugre as fr
from paperlib.twin import calibration
from paperlib.twin import imu as im
from paperlib.twin import thermal as th

__all__ = [
    "DR_KT", "DR_KT_BAR", "DR_KS", "DR_I_OFFSET", "DR_GEAR", "DR_RATED", "DR_TAU_MAX",
    "DR_I_MAX", "DR_WN", "DR_ZETA", "DR_DT", "DR_PHI", "DR_GAM", "DR_AVG", "DR_AVG_U",
    "DR_QUANT", "N_DRIVE_PARAMS", "DS_I", "DS_DI", "N_DRIVE_STATE",
    "DriveCommon", "DriveAxis", "DRIVE_COMMON_RANGES", "DRIVE_AXIS_RANGES",
    "natural_frequency", "drive_array", "drive_initial_state", "pi_pds",
    "quantize_permille", "drive_step", "joint_torque",
    "TwinParams", "TWIN_DIR", "twin_params_path", "load_twin_params", "twin_params_from_doc", "TwinConfigError",
]

DR_KT = 0          #: true torque constant kT [N m/A]
DR_KT_BAR = 1      #: nominal (datasheet) torque constant kT_bar [N m/A]
DR_KS = 2          #: current-sensing gain k_S [-]
DR_I_OFFSET = 3    #: current-sensing offset [A]
DR_GEAR = 4        #: gear ratio iota [-]
DR_RATED = 5       #: rated motor torque (0x6076) [N m]
DR_TAU_MAX = 6     #: max target torque (0x6072) [N m]
DR_I_MAX = 7       #: current limit on the measured current [A]
DR_WN = 8          #: current-loop natural frequency [rad/s]
DR_ZETA = 9        #: current-loop damping ratio [-]
DR_DT = 10         #: step the coefficients below were built for [s]
DR_PHI = 11        #: 4 entries: expm(A dt), row-major
DR_GAM = 15        #: 2 entries: ZOH input vector [-, 1/s]
DR_AVG = 17        #: 2 entries: step-average of y from the state [-, s]
DR_AVG_U = 19      #: step-average of y from the input [-]
DR_QUANT = 20      #: 1.0: quantize target and reported torque to int16 per mille
N_DRIVE_PARAMS = 21

DS_I = 0           #: measured current y [A]
DS_DI = 1          #: its rate dy/dt [A/s]
N_DRIVE_STATE = 2


class TwinConfigError(ValueError):
    """The twin TOML is missing a key, has an unknown key, or a value out of range."""


# --- Python-level parameters ----------------------------------------------------------------
@dataclass(frozen=True)
class DriveCommon:
    """Settings shared by both axes (keys of ``[drives]``)."""

    drive_peak_current_A: float
    drive_continuous_current_A: float
    current_loop_bandwidth_Hz: float
    current_loop_damping: float
    bus_voltage_V: float
    quantize_torque_permille: float
    joint_max_speed_rad_per_s: float
    joint_peak_torque_required_Nm: float

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "DriveCommon":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})


@dataclass(frozen=True)
class DriveAxis:
    """One drive-motor-gearbox axis (keys of ``[drives.axisN]``)."""

    gear_ratio: float
    torque_constant_nominal_Nm_per_A: float
    torque_constant_true_Nm_per_A: float
    current_sense_gain: float
    current_sense_offset_A: float
    rated_torque_Nm: float
    motor_peak_torque_Nm: float
    max_torque_permille: float
    motor_max_speed_rpm: float

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "DriveAxis":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})

    @property
    def pi_pds(self) -> float:
        """True PDS gain kT / (kT_bar k_S) [-] (flagship eq. 20)."""
        return self.torque_constant_true_Nm_per_A / (
            self.torque_constant_nominal_Nm_per_A * self.current_sense_gain)


DRIVE_COMMON_RANGES: dict[str, tuple[float, float]] = {
    "drive_peak_current_A": (0.1, 200.0),
    "drive_continuous_current_A": (0.1, 200.0),
    "current_loop_bandwidth_Hz": (50.0, 10000.0),
    "current_loop_damping": (0.3, 2.0),
    "bus_voltage_V": (5.0, 1000.0),
    "quantize_torque_permille": (0.0, 1.0),
    "joint_max_speed_rad_per_s": (0.0, 100.0),
    "joint_peak_torque_required_Nm": (0.0, 1000.0),
}
DRIVE_AXIS_RANGES: dict[str, tuple[float, float]] = {
    "gear_ratio": (1.0, 200.0),
    "torque_constant_nominal_Nm_per_A": (0.01, 10.0),
    "torque_constant_true_Nm_per_A": (0.01, 10.0),
    "current_sense_gain": (0.5, 1.5),
    "current_sense_offset_A": (-1.0, 1.0),
    "rated_torque_Nm": (0.01, 100.0),
    "motor_peak_torque_Nm": (0.01, 500.0),
    "max_torque_permille": (1.0, 32767.0),
    "motor_max_speed_rpm": (10.0, 50000.0),
}


def natural_frequency(bandwidth_hz: float, zeta: float) -> float:
    """omega_n [rad/s] of a 2nd-order low pass whose -3 dB frequency is ``bandwidth_hz``."""
    b = 1.0 - 2.0 * zeta * zeta
    return 2.0 * math.pi * bandwidth_hz / math.sqrt(b + math.sqrt(b * b + 1.0))


def drive_array(common: DriveCommon, axes: list[DriveAxis], dt: float) -> np.ndarray:
    """Numba rows for a step ``dt`` [s] (the integrator's sub-step).

    Returns
    -------
    ndarray, shape (len(axes), N_DRIVE_PARAMS)
        ``DR_*`` layout; the discrete coefficients are exact for a ZOH current target.
    """
    wn = natural_frequency(common.current_loop_bandwidth_Hz, common.current_loop_damping)
    z = common.current_loop_damping
    # augmented state [y, yd, u, integral of y]; u constant over the step
    M = np.zeros((4, 4))
    M[0, 1] = 1.0
    M[1, 0], M[1, 1], M[1, 2] = -wn * wn, -2.0 * z * wn, wn * wn
    M[3, 0] = 1.0
    E = scipy.linalg.expm(M * dt)
    out = np.zeros((len(axes), N_DRIVE_PARAMS))
    for a, ax in enumerate(axes):
        r = out[a]
        r[DR_KT] = ax.torque_constant_true_Nm_per_A
        r[DR_KT_BAR] = ax.torque_constant_nominal_Nm_per_A
        r[DR_KS] = ax.current_sense_gain
        r[DR_I_OFFSET] = ax.current_sense_offset_A
        r[DR_GEAR] = ax.gear_ratio
        r[DR_RATED] = ax.rated_torque_Nm
        r[DR_TAU_MAX] = min(ax.max_torque_permille * 1e-3 * ax.rated_torque_Nm,
                            ax.motor_peak_torque_Nm)
        r[DR_I_MAX] = min(common.drive_peak_current_A,
                          ax.motor_peak_torque_Nm / ax.torque_constant_nominal_Nm_per_A)
        r[DR_WN] = wn
        r[DR_ZETA] = z
        r[DR_DT] = dt
        r[DR_PHI:DR_PHI + 4] = E[:2, :2].ravel()
        r[DR_GAM:DR_GAM + 2] = E[:2, 2]
        r[DR_AVG:DR_AVG + 2] = E[3, :2] / dt
        r[DR_AVG_U] = E[3, 2] / dt
        r[DR_QUANT] = common.quantize_torque_permille
    return out


def drive_initial_state(n_axes: int = 2) -> np.ndarray:
    """Drives at rest, ndarray shape (n_axes, N_DRIVE_STATE)."""
    return np.zeros((n_axes, N_DRIVE_STATE))


# --- numba kernels ----------------------------------------------------------------------------
@rt_njit
def pi_pds(p: np.ndarray) -> float:
    """True PDS gain kT / (kT_bar k_S) of an axis row [-]."""
    return p[DR_KT] / (p[DR_KT_BAR] * p[DR_KS])


@rt_njit
def quantize_permille(tau: float, rated: float) -> float:
    """Round a torque [N m] to an int16 count of rated/1000 (CiA 402 0x6071/0x6077) [N m]."""
    lsb = 1e-3 * rated
    c = math.floor(tau / lsb + 0.5)
    return min(max(c, -32768.0), 32767.0) * lsb


@rt_njit
def drive_step(state: np.ndarray, tau_tgt: float, params: np.ndarray) -> tuple[float, float]:
    """Advance one axis by the step its row was built for (``params[DR_DT]``), in place.

    Parameters
    ----------
    state : ndarray, shape (N_DRIVE_STATE,)
        Current-loop state at the step's start; overwritten with the state at its end.
    tau_tgt : float
        Target motor torque written this cycle [N m] (held over the step).
    params : ndarray, shape (N_DRIVE_PARAMS,)
        Axis row from :func:`drive_array`.

    Returns
    -------
    tau_actual : float
        Actual motor torque averaged exactly over the step [N m]: apply it (times the gear
        ratio, :func:`joint_torque`) as a constant over this step.
    tau_reported : float
        Torque the drive reports (0x6077) at the step's end [N m], quantized if enabled.
    """
    tgt = tau_tgt
    if params[DR_QUANT] > 0.5:
        tgt = quantize_permille(tgt, params[DR_RATED])
    tmax = params[DR_TAU_MAX]
    tgt = min(max(tgt, -tmax), tmax)
    imax = params[DR_I_MAX]
    u = min(max(tgt / params[DR_KT_BAR], -imax), imax)
    y0 = state[DS_I]
    d0 = state[DS_DI]
    y_avg = params[DR_AVG] * y0 + params[DR_AVG + 1] * d0 + params[DR_AVG_U] * u
    state[DS_I] = params[DR_PHI] * y0 + params[DR_PHI + 1] * d0 + params[DR_GAM] * u
    state[DS_DI] = params[DR_PHI + 2] * y0 + params[DR_PHI + 3] * d0 + params[DR_GAM + 1] * u
    tau_actual = params[DR_KT] * (y_avg - params[DR_I_OFFSET]) / params[DR_KS]
    tau_rep = params[DR_KT_BAR] * state[DS_I]
    if params[DR_QUANT] > 0.5:
        tau_rep = quantize_permille(tau_rep, params[DR_RATED])
    return tau_actual, tau_rep


@rt_njit
def joint_torque(tau_motor: float, params: np.ndarray) -> float:
    """Torque delivered to the joint by the gearbox, iota tau_m [N m] (losses are friction)."""
    return params[DR_GEAR] * tau_motor


# --- the twin parameter file --------------------------------------------------------------------
TWIN_DIR = Path(__file__).resolve().parents[2] / "data" / "twin"
"""The repository's twin parameter files, ``data/twin/<robot>_twin.toml``."""


def twin_params_path(robot: str) -> Path:
    """The twin parameter file of robot ``robot``: ``data/twin/<robot>_twin.toml``."""
    return TWIN_DIR / f"{robot}_twin.toml"

_TEXT_KEYS = {"reason", "status", "role", "name", "note", "robot", "model", "source"}


@dataclass
class TwinParams:
    """Every true value of the twin, checked, in SI and as numba arrays.

    Attributes
    ----------
    path : Path
        File read.
    friction_joints : list of FrictionJoint
        One per ``[friction.jointN]`` table, N = 1, 2, ... in order (the robot's friction joints).
    friction : ndarray, shape (n_friction, N_FRICTION_PARAMS)
        ``paperlib.friction.lugre`` rows.
    gearboxes : list of GearboxThermal
        One per ``[thermal.gearboxN]`` table: the gearboxes of the first ``len(gearboxes)`` joints.
    thermal : ndarray, shape (n_gearbox, N_THERMAL_PARAMS)
        ``paperlib.twin.thermal`` rows.
    ambient_degC : float
        Room temperature [degC].
    design_power_W : ndarray, shape (2,)
        Constant friction power equivalent to the warm-up motion (for ``thermal.warm_up``) [W].
    warmup_minutes, warmup_velocity_amplitude_rad_per_s, warmup_target_case_degC : float
        The robot's warm-up, as its file states it.
    drive_common : DriveCommon
    drive_axes : list of DriveAxis
        One per ``[drives.axisN]`` table.
    imu_common : ImuCommon
    imu_sensors : list of ImuSensor
        One per ``[imu.imuN]`` table.
    imu_link : ImuLink
    imu : ndarray, shape (n_imu, N_IMU_PARAMS)
        ``paperlib.twin.imu`` rows.
    link : ndarray, shape (N_LINK_PARAMS,)
    raw : dict
        The parsed TOML (reasons included).
    """

    path: Path
    friction_joints: list[fr.FrictionJoint]
    friction: np.ndarray
    gearboxes: list[th.GearboxThermal]
    thermal: np.ndarray
    ambient_degC: float
    design_power_W: np.ndarray
    warmup_minutes: float
    warmup_velocity_amplitude_rad_per_s: float
    warmup_target_case_degC: float
    drive_common: DriveCommon
    drive_axes: list[DriveAxis]
    imu_common: im.ImuCommon
    imu_sensors: list[im.ImuSensor]
    imu_link: im.ImuLink
    imu: np.ndarray
    link: np.ndarray
    raw: dict[str, Any] = field(repr=False)

    def drive_array(self, dt: float) -> np.ndarray:
        """Drive rows for an integration step ``dt`` [s], shape (2, N_DRIVE_PARAMS)."""
        return drive_array(self.drive_common, self.drive_axes, dt)

    def thermal_discrete(self, dt: float) -> np.ndarray:
        """Thermal ZOH rows for a step ``dt`` [s], shape (2, N_THERMAL_DISC)."""
        return th.thermal_discrete_array(self.thermal, dt)

    @property
    def actuated_joints(self) -> tuple[int, ...]:
        """Rows of the friction joints whose ``role`` is ``actuated`` (geared, driven)."""
        return tuple(j for j, r in enumerate(self.friction_roles) if r == "actuated")

    @property
    def passive_joints(self) -> tuple[int, ...]:
        """Rows of the friction joints whose ``role`` is ``passive`` (unactuated hinges)."""
        return tuple(j for j, r in enumerate(self.friction_roles) if r == "passive")

    @property
    def friction_roles(self) -> tuple[str, ...]:
        """``role`` of each ``[friction.jointN]`` table, in row order."""
        ft = self.raw["friction"]
        return tuple(str(ft[name]["role"]) for name in _numbered(ft, "joint", "friction"))

    @property
    def pi_pds(self) -> np.ndarray:
        """True PDS gains of the axes, shape (n_axes,)."""
        return np.array([a.pi_pds for a in self.drive_axes])

    @property
    def robot_name(self) -> str:
        """The robot file this twin belongs to (``[meta] robot_name``)."""
        return str(self.raw["meta"]["robot_name"])

    @property
    def q0(self) -> np.ndarray:
        """Initial joint angles of a twin plant [rad] (``[meta] q0_deg``)."""
        return np.radians(np.asarray(self.raw["meta"]["q0_deg"], dtype=float))


def _table(parent: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    t = parent.get(key)
    if not isinstance(t, Mapping):
        raise TwinConfigError(f"{where}: missing table [{key}]")
    return t


def _numbered(parent: Mapping[str, Any], prefix: str, where: str) -> tuple[str, ...]:
    """The sub-table names ``<prefix>1``, ``<prefix>2``, ... of ``parent``: at least one, numbered without gaps."""
    found = sorted((int(k[len(prefix):]), k) for k, v in parent.items()
                   if isinstance(v, Mapping) and k.startswith(prefix) and k[len(prefix):].isdigit())
    names = tuple(k for _, k in found)
    if not names:
        raise TwinConfigError(f"[{where}] needs at least one table [{where}.{prefix}1]")
    want = tuple(f"{prefix}{i + 1}" for i in range(len(names)))
    if names != want:
        raise TwinConfigError(f"[{where}] tables must be numbered {', '.join(want)} without gaps; got {', '.join(names)}")
    return names


def _check(table: Mapping[str, Any], ranges: Mapping[str, tuple[float, float]], where: str,
           subtables: tuple[str, ...] = ()) -> None:
    """Every range key present, numeric and in range; no unknown key; a non-empty reason."""
    for key, value in table.items():
        if key in ranges or key in subtables:
            continue
        if key in _TEXT_KEYS:
            if not isinstance(value, str) or not value.strip():
                raise TwinConfigError(f"[{where}] {key} must be a non-empty string")
            continue
        raise TwinConfigError(f"[{where}] unknown key {key!r} (typo, or a unit missing?)")
    if not str(table.get("reason", "")).strip():
        raise TwinConfigError(f"[{where}] needs a reason string")
    if str(table.get("status", "assumed")) != "assumed":
        raise TwinConfigError(f"[{where}] status must be 'assumed' (the paper gives no values)")
    for key, (lo, hi) in ranges.items():
        if key not in table:
            raise TwinConfigError(f"[{where}] missing {key}")
        v = table[key]
        if isinstance(v, bool):
            v = float(v)
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise TwinConfigError(f"[{where}] {key} must be a finite number")
        if not lo <= v <= hi:
            raise TwinConfigError(f"[{where}] {key} = {v} outside [{lo}, {hi}]")


def _friction(doc: Mapping[str, Any], ripples: Mapping[str, tuple[float, float]]
              ) -> tuple[list[fr.FrictionJoint], np.ndarray]:
    ft = _table(doc, "friction", "twin")
    names = _numbered(ft, "joint", "friction")
    _check(ft, {"reference_temperature_degC": (-20.0, 80.0)}, "friction", names)
    joints = []
    for name in names:
        t = _table(ft, name, "friction")
        _check(t, fr.FRICTION_JOINT_RANGES, f"friction.{name}")
        if t.get("role") not in ("actuated", "passive"):
            raise TwinConfigError(f"[friction.{name}] role must be 'actuated' or 'passive'")
        joints.append(fr.FrictionJoint.from_mapping(t, ft["reference_temperature_degC"]))
    joints = [replace(j, ripple_relative=ripples[n][0], ripple_cycles_per_rev=ripples[n][1]) if n in ripples else j
              for n, j in zip(names, joints)]
    arr = fr.friction_array(joints)
    return joints, arr


def _thermal(doc: Mapping[str, Any]) -> dict[str, Any]:
    tt = _table(doc, "thermal", "twin")
    _check(tt, {"ambient_degC": (-20.0, 60.0), "warmup_minutes": (0.0, 1e4),
                "warmup_velocity_amplitude_rad_per_s": (0.0, 20.0),
                "warmup_target_case_degC": (-20.0, 120.0)}, "thermal",
           _numbered(tt, "gearbox", "thermal"))
    gbs, power = [], []
    for name in _numbered(tt, "gearbox", "thermal"):
        t = _table(tt, name, "thermal")
        _check(t, th.GEARBOX_THERMAL_RANGES, f"thermal.{name}")
        gbs.append(th.GearboxThermal.from_mapping(t))
        power.append(float(t["design_power_W"]))
    return {"gearboxes": gbs, "thermal": th.thermal_array(gbs),
            "ambient_degC": float(tt["ambient_degC"]), "design_power_W": np.array(power),
            "warmup_minutes": float(tt["warmup_minutes"]),
            "warmup_velocity_amplitude_rad_per_s":
                float(tt["warmup_velocity_amplitude_rad_per_s"]),
            "warmup_target_case_degC": float(tt["warmup_target_case_degC"])}


def _drives(doc: Mapping[str, Any]) -> tuple[DriveCommon, list[DriveAxis]]:
    dt_ = _table(doc, "drives", "twin")
    _check(dt_, DRIVE_COMMON_RANGES, "drives", _numbered(dt_, "axis", "drives"))
    common = DriveCommon.from_mapping(dt_)
    axes = []
    for name in _numbered(dt_, "axis", "drives"):
        t = _table(dt_, name, "drives")
        _check(t, DRIVE_AXIS_RANGES, f"drives.{name}")
        ax = DriveAxis.from_mapping(t)
        _check_axis(common, ax, name)
        axes.append(ax)
    return common, axes


def _check_axis(c: DriveCommon, ax: DriveAxis, name: str) -> None:
    """Physical consistency: the gear ratio must reach the paper's speeds and torques."""
    if not 0.75 <= ax.pi_pds <= 1.25:
        raise TwinConfigError(f"[drives.{name}] pi_pds = {ax.pi_pds:.3f} implausible")
    w_motor = ax.gear_ratio * c.joint_max_speed_rad_per_s
    w_max = ax.motor_max_speed_rpm * 2 * math.pi / 60
    if w_motor > w_max:
        raise TwinConfigError(f"[drives.{name}] joint speed needs {w_motor:.0f} rad/s at the "
                              f"motor > its max {w_max:.0f} rad/s: lower the gear ratio")
    tau_motor = min(ax.motor_peak_torque_Nm, ax.max_torque_permille * 1e-3 * ax.rated_torque_Nm,
                    c.drive_peak_current_A * ax.torque_constant_nominal_Nm_per_A)
    tau_joint = ax.gear_ratio * tau_motor * ax.pi_pds
    if tau_joint < c.joint_peak_torque_required_Nm:
        raise TwinConfigError(f"[drives.{name}] peak joint torque {tau_joint:.1f} N m < required "
                              f"{c.joint_peak_torque_required_Nm} N m: raise the gear ratio")


def _imus(doc: Mapping[str, Any]) -> dict[str, Any]:
    it = _table(doc, "imu", "twin")
    _check(it, im.IMU_COMMON_RANGES, "imu", (*_numbered(it, "imu", "imu"), "link"))
    common = im.ImuCommon.from_mapping(it)
    sensors = []
    for name in _numbered(it, "imu", "imu"):
        t = _table(it, name, "imu")
        _check(t, im.IMU_SENSOR_RANGES, f"imu.{name}")
        sensors.append(im.ImuSensor.from_mapping(t))
    lt = _table(it, "link", "imu")
    _check(lt, im.IMU_LINK_RANGES, "imu.link")
    link = im.ImuLink.from_mapping(lt)
    try:
        link_arr = im.link_array(link)
    except ValueError as e:
        raise TwinConfigError(str(e)) from None
    return {"imu_common": common, "imu_sensors": sensors, "imu_link": link,
            "imu": im.imu_array(common, sensors), "link": link_arr}


def load_twin_params(path: str | Path | None = None, *, robot: str | None = None) -> TwinParams:
    """Read, check and convert a twin's true parameters.

    Parameters
    ----------
    path : str or Path, optional
        TOML file.
    robot : str, optional
        Without ``path``: the robot whose file :func:`twin_params_path` names (default: the
        default twin's robot, :data:`paperlib.twin.robots.DEFAULT_TWIN`).

    Returns
    -------
    TwinParams

    Raises
    ------
    TwinConfigError
        Missing/unknown key, value out of range, missing reason, or an axis whose gear
        ratio cannot reach the paper's joint speed or torque.
    """
    if path is None:
        from paperlib.twin.robots import DEFAULT_TWIN

        path = twin_params_path(robot or DEFAULT_TWIN)
    path = Path(path)
    return twin_params_from_doc(read_toml(path), path)


def twin_params_from_doc(doc: Mapping[str, Any], path: str | Path) -> TwinParams:
    """Check and convert a twin's parsed TOML (the checks of :func:`load_twin_params`).

    For a study that varies a stated value: edit a copy of ``TwinParams.raw`` and build it again
    here, so a varied value passes the same key, range and reason checks as the file's.

    Parameters
    ----------
    doc : mapping
        The parsed file (``TwinParams.raw`` layout).
    path : str or Path
        The file it came from (kept as ``TwinParams.path``).

    Returns
    -------
    TwinParams
    """
    path = Path(path)
    meta = _table(doc, "meta", "twin")
    if meta.get("status") != "assumed":
        raise TwinConfigError("[meta] status must be 'assumed'")
    try:
        eff, ripples = calibration.apply(doc)
    except calibration.CalibrationError as exc:
        raise TwinConfigError(str(exc)) from exc
    joints, farr = _friction(eff, ripples)
    common, axes = _drives(eff)
    return TwinParams(path=path, friction_joints=joints, friction=farr, **_thermal(eff),
                      drive_common=common, drive_axes=axes, **_imus(doc), raw=dict(doc))
