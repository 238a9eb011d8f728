"""Two example robots that exercise the generic layers where the 5R does not.

* :class:`Pendulum` (``data/robots/toy_pendulum.toml``): one revolute joint under gravity, driven
  directly (no gearbox) and measured by a joint torque sensor (the shape of paper 004's joint).
  Its inertia about the axis is an *unknown* inertial parameter (an inertial column block of the
  regressor); its gravity torque is known and enters the right-hand side.
* :class:`TriDrive` (``data/robots/toy_tridrive.toml``): two degrees of freedom moved by three
  drives (redundant actuation, the shape of the 3-RRR's drive map): a constant 3x2 drive map, so
  the controller distributes the torque by the minimum-norm solution.

Each is a robot data file of its own kind, with generated kernels (``paperlib/symbolic/toys.py``
-> ``paperlib/kernels/toy_*.py``): the smallest worked examples of a robot kind (docs/robots.md).
They are for tests, not papers. SI units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paperlib.robots.kernel_sets import KernelSet, kernel_set
from paperlib.robots.kinds import ROBOTS_DIR, read_description

#: Pendulum parameters: inertia about the axis [kg m^2], mass times centre-of-mass distance [kg m].
PENDULUM_PARAM_NAMES = ("J", "m_l")
#: TriDrive parameters: masses of the two axes [kg], coupling inertia [kg], then the 3x2 drive map.
TRIDRIVE_PARAM_NAMES = ("m1", "m2", "m12", "d00", "d01", "d10", "d11", "d20", "d21")


def _description(d: dict) -> dict:
    """The gains and torque limits the controller reads (the file's ``control`` and ``drives``)."""
    return {"control": {k: list(d["control"][k]) for k in ("kp_Nm_per_rad", "kd_Nm_s_per_rad")},
            "drives": {"max_torque_Nm": list(d["drives"]["max_torque_Nm"])}}


def _pendulum(path: Path) -> tuple[np.ndarray, dict]:
    d = read_description(path)
    return np.array([float(d["params"]["J_kg_m2"]), float(d["params"]["m_l_kg_m"])]), _description(d)


def _tridrive(path: Path) -> tuple[np.ndarray, dict]:
    d = read_description(path)
    p = d["params"]
    D = np.asarray(p["drive_map"], dtype=float)
    if D.shape != (3, 2):
        raise ValueError(f"{path}: params.drive_map must be 3 x 2, not {D.shape}")
    return np.concatenate([[float(p["m1_kg"]), float(p["m2_kg"]), float(p["m12_kg"])], D.ravel()]), _description(d)


@dataclass(frozen=True)
class Pendulum:
    """One joint under gravity with a joint torque sensor (the drive's torque is measured there)."""

    params: np.ndarray = field(default_factory=lambda: _pendulum(ROBOTS_DIR / "toy_pendulum.toml")[0])
    description: dict = field(default_factory=lambda: _pendulum(ROBOTS_DIR / "toy_pendulum.toml")[1], repr=False)
    n_joints: int = 1
    name: str = "toy_pendulum"

    @classmethod
    def from_toml(cls, path: str | Path) -> "Pendulum":
        params, desc = _pendulum(Path(path))
        return cls(params=params, description=desc, name=Path(path).stem)

    @property
    def kernels(self) -> KernelSet:
        return kernel_set(self.name)

    @property
    def n_drives(self) -> int:
        return self.kernels.n_drives

    @property
    def param_names(self) -> tuple[str, ...]:
        return PENDULUM_PARAM_NAMES


@dataclass(frozen=True)
class TriDrive:
    """Two degrees of freedom, three drives (redundant): drive map rows (1, 0), (0, 1), (0.5, 0.5)."""

    params: np.ndarray = field(default_factory=lambda: _tridrive(ROBOTS_DIR / "toy_tridrive.toml")[0])
    description: dict = field(default_factory=lambda: _tridrive(ROBOTS_DIR / "toy_tridrive.toml")[1], repr=False)
    n_joints: int = 2
    name: str = "toy_tridrive"

    @classmethod
    def from_toml(cls, path: str | Path) -> "TriDrive":
        params, desc = _tridrive(Path(path))
        return cls(params=params, description=desc, name=Path(path).stem)

    @property
    def kernels(self) -> KernelSet:
        return kernel_set(self.name)

    @property
    def n_drives(self) -> int:
        return self.kernels.n_drives

    @property
    def param_names(self) -> tuple[str, ...]:
        return TRIDRIVE_PARAM_NAMES
