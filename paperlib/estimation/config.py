"""One estimator configuration: frozen, serialisable, used by every path that runs EWR-RLS.

:class:`EstimatorConfig` holds every setting of the identification (friction model, forgetting
half-life, regularisation, gating, row form, IMU delay, the convergence criterion, a warm start).
The real-time step (:class:`paperlib.control.controllers.ControllerConfig` extends it with the
controller's name), the offline :func:`paperlib.estimation.replay.replay`, the twin
(the twins under ``paperlib/twin/robots/``), the hardware session and command line
(``paperlib run --estimator-config FILE``) and the recordings (``config["estimator"]``) all take
or write this one object, whole: a setting cannot be dropped on the way.

Serialisation: :meth:`EstimatorConfig.to_dict` gives plain JSON types (a Table 4 model as its
number, another friction model as a dict); :meth:`EstimatorConfig.from_dict` refuses unknown
keys, naming them.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from paperlib.friction import FrictionModel, table4_model

__all__ = ["EstimatorConfig", "ConvergenceCriterion", "WINDOW_CRITERION"]

#: The convergence criterion of the identification (online in the control step, offline in replay).
WINDOW_CRITERION = (
    "window criterion: at the end of every window of {window_s:g} s, once t >= {t_min_s:g} s, every drive-gain "
    "(and inertial) estimate moved by less than {tol_pds:.1%} of itself over the window, and every identified "
    "friction curve, at 8 velocities up to {v_max:g} rad/s, moved by less than {tol_friction:.0%} of its peak"
)


@dataclass(frozen=True)
class ConvergenceCriterion:
    """The window criterion (:data:`WINDOW_CRITERION`) with its numbers."""

    window_s: float = 1.0
    tol_pds: float = 0.005
    tol_friction: float = 0.03
    t_min_s: float = 2.0
    v_max: float = 3.0

    def describe(self) -> str:
        return WINDOW_CRITERION.format(**dataclasses.asdict(self))


def _tuple(x: Any) -> tuple[float, ...] | None:
    return None if x is None else tuple(float(v) for v in np.ravel(np.asarray(x, dtype=float)))


@dataclass(frozen=True)
class EstimatorConfig:
    """EWR-RLS settings (SI units; defaults are the paper's where it gives them).

    Attributes
    ----------
    model : int or FrictionModel
        Friction model (Table 4 number, default 3, the paper's choice).
    half_life_s : float
        Weighting half-life T_HL (paper: 600 s).
    lambda_reg : float
        Regularization lambda (paper: 0.001).
    gate_velocity, gate_acceleration : float
        Gating thresholds [rad/s], [rad/s^2] (:mod:`paperlib.estimation.gating`).
    gate_all_joints : bool
        Our gating rule (every joint slides) instead of the paper's any-joint rule.
    per_joint_rows : bool
        Per-joint rows instead of the paper's summed row.
    imu_delay_cycles : int
        Control cycles by which the IMU samples lag the encoder and the drive.
    conv_window_s, conv_tol_pds, conv_tol_friction, conv_t_min_s, conv_v_max : float
        The convergence criterion (:attr:`convergence`).
    pi_pds0, pi_I0, pi_F0 : tuple of float, optional
        Initial estimate (default: drive gains 1, inertial and friction 0, the paper's worst case).
    P0 : tuple of float, optional
        Flattened initial covariance (n_pi x n_pi) of a warm start (default ``I / lambda``).
    closed_from_start : bool
        Close the switches (b), (c) at once: a warm start from a converged estimate (needs
        ``pi_pds0`` and ``P0``).
    """

    model: Any = 3
    half_life_s: float = 600.0
    lambda_reg: float = 1e-3
    gate_velocity: float = 0.1
    gate_acceleration: float = 0.2
    gate_all_joints: bool = True
    per_joint_rows: bool = False
    imu_delay_cycles: int = 0
    conv_window_s: float = 1.0
    conv_tol_pds: float = 0.005
    conv_tol_friction: float = 0.03
    conv_t_min_s: float = 2.0
    conv_v_max: float = 3.0
    pi_pds0: tuple[float, ...] | None = None
    pi_F0: tuple[float, ...] | None = None
    pi_I0: tuple[float, ...] | None = None
    P0: tuple[float, ...] | None = None
    closed_from_start: bool = False

    def __post_init__(self) -> None:
        for name in ("pi_pds0", "pi_F0", "pi_I0", "P0"):
            object.__setattr__(self, name, _tuple(getattr(self, name)))
        if not self.half_life_s > 0 or not self.lambda_reg > 0:
            raise ValueError(f"half_life_s and lambda_reg must be > 0, got {self.half_life_s}, {self.lambda_reg}")
        if self.gate_velocity < 0 or self.gate_acceleration < 0:
            raise ValueError("gating thresholds must be >= 0")
        if self.closed_from_start and (self.pi_pds0 is None or self.P0 is None):
            raise ValueError("closed_from_start needs a warm start: pi_pds0, pi_F0 and P0 from a previous run")

    # -- views ------------------------------------------------------------------------------------
    @property
    def friction_model(self) -> FrictionModel:
        return self.model if isinstance(self.model, FrictionModel) else table4_model(self.model)

    @property
    def convergence(self) -> ConvergenceCriterion:
        return ConvergenceCriterion(self.conv_window_s, self.conv_tol_pds, self.conv_tol_friction, self.conv_t_min_s,
                                    self.conv_v_max)

    def estimator_config(self) -> "EstimatorConfig":
        """The estimator settings alone (drops a subclass's other fields)."""
        return EstimatorConfig(**{f.name: getattr(self, f.name) for f in dataclasses.fields(EstimatorConfig)})

    def replace(self, **changes: Any) -> "EstimatorConfig":
        return dataclasses.replace(self, **changes)

    # -- serialisation ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types; the estimator fields only (a subclass adds its own)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(EstimatorConfig):
            v = getattr(self, f.name)
            if f.name == "model":
                v = _model_to_json(v)
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, source: str = "estimator configuration") -> "EstimatorConfig":
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError`` naming them and ``source``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"{source}: unknown estimator setting(s) {unknown}; known: {sorted(names)}")
        kw = dict(d)
        if "model" in kw:
            kw["model"] = _model_from_json(kw["model"])
        return cls(**kw)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, source: str = "estimator configuration") -> "EstimatorConfig":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: not JSON ({exc})") from None
        if not isinstance(d, dict):
            raise ValueError(f"{source}: expected a JSON object of estimator settings")
        return cls.from_dict(d, source=source)

    def write(self, path: str | Path) -> Path:
        p = Path(path)
        p.write_text(self.to_json() + "\n")
        return p

    @classmethod
    def read(cls, path: str | Path) -> "EstimatorConfig":
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise ValueError(f"{p}: cannot read the estimator configuration ({exc.strerror})") from None
        return cls.from_json(text, source=str(p))

    @classmethod
    def from_recording(cls, ds: Any) -> "EstimatorConfig":
        """The configuration a recording was made with (``config["estimator"]``; older files:
        what ``config["controller_config"]`` holds of it; defaults otherwise)."""
        try:
            cfg = json.loads(ds.attrs.get("config", "{}"))
        except (TypeError, ValueError):
            return cls()
        if isinstance(cfg.get("estimator"), dict):
            return cls.from_dict(cfg["estimator"], source="recording config['estimator']")
        old = cfg.get("controller_config", {}) or {}
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in old.items() if k in names and k not in ("closed_from_start", "pi_pds0", "pi_F0", "P0")}
        if "model" in cfg:
            kw["model"] = _model_from_json(cfg["model"])
        return cls.from_dict(kw, source="recording config['controller_config']")


def _model_to_json(m: Any) -> Any:
    if isinstance(m, FrictionModel):
        return {"joints": list(m.joints), "order": m.order, "symmetric": m.symmetric, "name": m.name}
    return int(m)


def _model_from_json(v: Any) -> Any:
    if isinstance(v, Mapping):
        return FrictionModel(joints=tuple(int(j) for j in v["joints"]), order=int(v["order"]),
                             symmetric=bool(v.get("symmetric", True)), name=str(v.get("name", "")))
    return int(v)
