"""A rig file (TOML; ``config/rig.example.toml`` documents the keys) and the settings it gives.

:func:`load_rig_settings` reads it into :class:`RigSettings` for
:class:`paperlib.hardware.rig.HardwareRig` (which re-exports these names): what the rig is (its
robot, its EtherCAT chain and the drives' axes: :data:`IDENTITY_FIELDS`), how it is connected (interfaces, addresses),
its thresholds, safety limits, zeroing and loop settings.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paperlib.hardware.analog_terminals import AnalogChannel
from paperlib.hardware.ethercat_config import DriveAxis, SlaveIdentity, chain_from_tables

__all__ = ["ZeroingSettings", "RigSettings", "IDENTITY_FIELDS", "load_rig_settings", "chain_toml"]


@dataclass
class ZeroingSettings:
    """Zeroing with the proximity sensors (see the module docstring). Angles in degrees here.

    Attributes
    ----------
    enabled : bool
        Run :meth:`HardwareRig.zero` before a run.
    inputs : tuple of int
        DI bit of each joint's sensor (e.g. a coupler's DI1/DI2 = bits 0/1).
    switch_angle_deg : tuple of float
        Joint angle at which each sensor switches on when approached in ``direction`` [deg].
    direction : tuple of int
        +1 or -1 per joint.
    velocity_deg_s : float
        Approach speed [deg/s].
    max_torque_Nm : float
        Motor torque limit during zeroing [N m].
    travel_max_deg : float
        Give up after this travel [deg].
    timeout_s : float
        Give up after this time per joint [s].
    rate_hz : float
        Cycle rate of the (non-real-time) zeroing loop [Hz].
    """

    enabled: bool = False
    inputs: tuple[int, ...] = (0, 1)
    switch_angle_deg: tuple[float, ...] = (0.0, 0.0)
    direction: tuple[int, ...] = (1, 1)
    velocity_deg_s: float = 5.0
    max_torque_Nm: float = 1.0
    travel_max_deg: float = 20.0
    timeout_s: float = 10.0
    rate_hz: float = 1000.0


@dataclass
class RigSettings:
    """Everything :class:`HardwareRig` needs (from a rig TOML, see ``config/rig.example.toml``).

    Units: SI unless the name says otherwise (``_deg``).
    """

    interface: str
    robot: str  # a name paperlib.robots.load knows
    chain: tuple[SlaveIdentity, ...]  # the expected slaves in wiring order ([[ethercat.slave]])
    name: str = "rig"
    emulated: bool = False
    netns: str | None = None
    cycle_hz: float | None = None  # default: the robot description's control rate
    coupler_index: int | None = None  # position of the slave whose DIs carry the proximity sensors
    axes: tuple[DriveAxis, ...] = ()  # the drives' CiA 402 axes in wiring order (axis k: the robot's drive k)
    terminals: tuple[AnalogChannel, ...] = ()  # analog terminal channels (bridges, RTDs) -> recording channels
    twin: str | None = None  # [rig] twin: the twin the self-test's emulated rig runs (None: the robot's own)
    imu_enabled: bool = True  # [imu] enabled = false: a rig without the IMU board
    joint: dict[str, Any] | None = None  # [joint]: a single-joint rig's drive train (paperlib.hardware.joint_rig)
    arm: dict[str, Any] | None = None  # [arm]: a position-controlled arm's drive train (paperlib.hardware.arm_rig)
    max_lost_frames: int = 20
    receive_timeout_s: float = 1e-4
    pd_watchdog_s: float | None = None
    use_dc: bool = True
    gear_ratio: tuple[float, float] | None = None
    position_offset_deg: tuple[float, float] = (0.0, 0.0)
    udp_port: int = 5005
    bind_address: str = "0.0.0.0"
    source_address: str | None = None
    max_imu_age_s: float = 0.005
    imu_wait_s: float = 2.0
    bringup_attempts: int = 2
    lever_arm_m: tuple[float, float] | None = None
    imu_of_joint: tuple[int, int] = (0, 1)
    imu_calibration_file: str | None = None
    max_torque_Nm: tuple[float, float] | None = None
    q_min_deg: tuple[float, float] | None = None
    q_max_deg: tuple[float, float] | None = None
    zeroing: ZeroingSettings = field(default_factory=ZeroingSettings)
    rt_priority: int = 0
    cpu: int | None = None
    sleep_margin_s: float | None = None
    inject_nan_qd: tuple[float, int] | None = None
    source_file: str | None = None


#: The :class:`RigSettings` fields that say what the rig *is* (its robot and its EtherCAT chain), as
#: opposed to how it is connected and run: what a self-test takes from a rig file.
IDENTITY_FIELDS = ("robot", "chain", "coupler_index", "axes", "terminals", "twin", "imu_enabled", "joint", "arm")


def _tuple(v: Any, n: int | None = None, kind: type = float) -> tuple:
    t = tuple(kind(x) for x in (v if isinstance(v, (list, tuple)) else [v]))
    if n is not None and len(t) == 1 and n > 1:
        t = t * n
    if n is not None and len(t) != n:
        raise ValueError(f"expected {n} values, got {list(v)}")
    return t


def _nan_qd(v: Any) -> tuple[float, int] | None:
    """``[faults] nan_qd = [t_s, joint]`` (joint 1-based) as ``(t_s, joint)``, or None."""
    if v is None:
        return None
    t_s, joint = _tuple(v, 2)
    if not (math.isfinite(t_s) and t_s >= 0.0 and joint in (1.0, 2.0)):
        raise ValueError(f"[faults] nan_qd must be [t_s >= 0, joint 1 or 2], got {v}")
    return t_s, int(joint)


#: ``[ethercat]`` keys of earlier rig files, replaced by the ``[[ethercat.slave]]`` tables.
_OLD_CHAIN_KEYS = ("drive_vendor_id", "drive_product_code", "coupler", "axis_b_object_offset")


def load_rig_settings(path: str | Path, **overrides: Any) -> RigSettings:
    """Read a rig TOML (``config/rig.example.toml`` documents the keys) into :class:`RigSettings`.

    Raises
    ------
    ValueError
        Missing required keys (``[rig] robot``, ``[ethercat] interface``, the
        ``[[ethercat.slave]]`` chain, ``[imu] udp_port`` unless ``[imu] enabled = false``) or bad
        values, naming the file and key.
    """
    p = Path(path)
    with p.open("rb") as fh:
        raw = tomllib.load(fh)
    rig, ec, imu = raw.get("rig", {}), raw.get("ethercat", {}), raw.get("imu", {})
    safety, zero, loop = raw.get("safety", {}), raw.get("zeroing", {}), raw.get("loop", {})
    faults = raw.get("faults", {})
    try:
        if "robot" not in rig:
            raise ValueError("[rig] robot is required (a robot description, e.g. data/robots/<name>.toml)")
        if "interface" not in ec:
            raise ValueError("[ethercat] interface is required")
        old = [k for k in _OLD_CHAIN_KEYS if k in ec]
        if old:
            raise ValueError(f"[ethercat] {old}: the chain is now spelled out in [[ethercat.slave]] tables "
                             "(see config/rig.example.toml)")
        chain = chain_from_tables(ec.get("slave", []))
        imu_enabled = bool(imu.get("enabled", True))
        if imu_enabled and "udp_port" not in imu:
            raise ValueError("[imu] udp_port is required (or [imu] enabled = false for a rig without the IMU board)")
        z = ZeroingSettings(
            enabled=bool(zero.get("enabled", False)),
            inputs=_tuple(zero.get("inputs", (0, 1)), 2, int),
            switch_angle_deg=_tuple(zero.get("switch_angle_deg", (0.0, 0.0)), 2),
            direction=_tuple(zero.get("direction", (1, 1)), 2, int),
            velocity_deg_s=float(zero.get("velocity_deg_s", 5.0)),
            max_torque_Nm=float(zero.get("max_torque_Nm", 1.0)),
            travel_max_deg=float(zero.get("travel_max_deg", 20.0)),
            timeout_s=float(zero.get("timeout_s", 10.0)),
        )
        if any(d not in (-1, 1) for d in z.direction):
            raise ValueError(f"[zeroing] direction must be +1 or -1 per joint, got {z.direction}")
        s = RigSettings(
            interface=str(ec["interface"]),
            robot=str(rig["robot"]),
            name=str(rig.get("name", p.stem)),
            emulated=bool(rig.get("emulated", False)),
            netns=ec.get("netns"),
            cycle_hz=None if ec.get("cycle_hz") is None else float(ec["cycle_hz"]),
            **chain,
            max_lost_frames=int(ec.get("max_lost_frames", 20)),
            receive_timeout_s=float(ec.get("receive_timeout_s", 1e-4)),
            pd_watchdog_s=None if ec.get("pd_watchdog_s") is None else float(ec["pd_watchdog_s"]),
            use_dc=bool(ec.get("use_dc", True)),
            gear_ratio=None if "gear_ratio" not in ec else _tuple(ec["gear_ratio"], 2),
            position_offset_deg=_tuple(ec.get("position_offset_deg", (0.0, 0.0)), 2),
            udp_port=int(imu.get("udp_port", 5005)),
            imu_enabled=imu_enabled,
            joint=dict(raw["joint"]) if "joint" in raw else None,
            arm=dict(raw["arm"]) if "arm" in raw else None,
            twin=None if rig.get("twin") is None else str(rig["twin"]),
            bind_address=str(imu.get("bind_address", "0.0.0.0")),
            source_address=imu.get("source_address"),
            max_imu_age_s=float(imu.get("max_age_s", 0.005)),
            imu_wait_s=float(imu.get("wait_s", 2.0)),
            bringup_attempts=int(ec.get("bringup_attempts", 2)),
            lever_arm_m=None if "lever_arm_m" not in imu else _tuple(imu["lever_arm_m"], 2),
            imu_of_joint=_tuple(imu.get("imu_of_joint", (0, 1)), 2, int),
            imu_calibration_file=imu.get("calibration_file"),
            max_torque_Nm=None if "max_torque_Nm" not in safety else _tuple(safety["max_torque_Nm"], 2),
            q_min_deg=None if "q_min_deg" not in safety else _tuple(safety["q_min_deg"], 2),
            q_max_deg=None if "q_max_deg" not in safety else _tuple(safety["q_max_deg"], 2),
            zeroing=z,
            rt_priority=int(loop.get("rt_priority", 0)),
            cpu=None if loop.get("cpu") is None else int(loop["cpu"]),
            sleep_margin_s=None if loop.get("sleep_margin_s") is None else float(loop["sleep_margin_s"]),
            inject_nan_qd=_nan_qd(faults.get("nan_qd")),
            source_file=str(p),
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"rig configuration {p}: {exc}") from None
    if s.imu_calibration_file and not Path(s.imu_calibration_file).is_absolute():
        s.imu_calibration_file = str((p.parent / s.imu_calibration_file).resolve())
    return replace(s, **overrides) if overrides else s


def chain_toml(path: str | Path) -> str:
    """A rig file's ``[[ethercat.slave]]`` tables as TOML text, to append to another rig file.

    For a rig file written for other interfaces (a test's, a namespace's) that keeps the chain of
    ``path``: the text is valid at the end of any rig file (after its ``[ethercat]`` table).
    """
    with Path(path).open("rb") as fh:
        slaves = tomllib.load(fh).get("ethercat", {}).get("slave", [])
    return "".join("\n[[ethercat.slave]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in s.items())
                   for s in slaves)


def _toml_value(v: Any) -> str:
    """A TOML value (string, number, boolean, array or inline table) as text."""
    import json

    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v)
