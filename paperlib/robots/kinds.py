"""The registry of robot kinds, and where the robots' data files are.

A robot is a data file: ``data/robots/<name>.toml`` whose ``[robot]`` table names its ``kind``.
A *kind* is one model class and one symbolic module (:class:`RobotKind`): every robot of the kind
is loaded by the class and gets its kernels and its branch of the kernel-set dispatch from the
symbolic module (``python -m paperlib.codegen``). Adding a robot of a known kind is therefore
one TOML file (a serial arm: a TOML file and, if you like, a URDF it names); adding a kind is one
:func:`register_kind` entry here with its model class and symbolic module (docs/robots.md).

More robot files can live outside the repository: the directories in the environment variable
``PAPERLIB_ROBOT_PATH`` (``os.pathsep``-separated) are searched before ``data/robots/``.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from paperlib._toml import read_toml

#: The repository's robot files.
ROBOTS_DIR = Path(__file__).resolve().parents[2] / "data" / "robots"
#: Environment variable of extra robot directories (searched first).
ROBOT_PATH_ENV = "PAPERLIB_ROBOT_PATH"


@dataclass(frozen=True)
class RobotKind:
    """One kind of robot.

    Attributes
    ----------
    kind : str
        The ``kind`` key of the robots' TOML files.
    loader : str
        ``"module:callable"`` taking the TOML path and returning the model.
    symbolic : str
        Module with ``kernel_module(robot, toml)`` and ``kernel_set(robot, toml)``
        (:mod:`paperlib.symbolic.module_text` describes them).
    """

    kind: str
    loader: str
    symbolic: str

    def load(self, path: Path) -> Any:
        """The model of the robot file ``path``."""
        mod, _, attr = self.loader.partition(":")
        fn: Any = importlib.import_module(mod)
        for part in attr.split("."):
            fn = getattr(fn, part)
        return fn(path)

    def symbolic_module(self) -> Any:
        return importlib.import_module(self.symbolic)


KINDS: dict[str, RobotKind] = {}


def register_kind(kind: str, loader: str, symbolic: str) -> RobotKind:
    """Add (or replace) a kind; returns it."""
    KINDS[kind] = RobotKind(kind, loader, symbolic)
    return KINDS[kind]


register_kind("five_bar", "paperlib.robots.five_bar:FiveBar.from_toml", "paperlib.symbolic.five_bar")
register_kind("three_rrr", "paperlib.robots.three_rrr:ThreeRRR.from_toml", "paperlib.symbolic.three_rrr")
register_kind("serial", "paperlib.robots.serial:SerialArm.from_toml", "paperlib.symbolic.serial")
register_kind("serial_arm", "paperlib.robots.serial_arm:SerialArmModel.from_toml", "paperlib.symbolic.serial_arm")
register_kind("toy_pendulum", "paperlib.robots.toys:Pendulum.from_toml", "paperlib.symbolic.toys")
register_kind("toy_tridrive", "paperlib.robots.toys:TriDrive.from_toml", "paperlib.symbolic.toys")


def robot_dirs() -> list[Path]:
    """Directories searched for robot files: ``$PAPERLIB_ROBOT_PATH`` entries, then ``data/robots/``."""
    extra = [Path(p) for p in os.environ.get(ROBOT_PATH_ENV, "").split(os.pathsep) if p]
    return [*extra, ROBOTS_DIR]


def read_description(path: Path) -> dict:
    """The parsed TOML of a robot file (:func:`paperlib._toml.read_toml`: parsed once per version of the file)."""
    return read_toml(path)


def kind_of(path: Path) -> str:
    """The ``[robot] kind`` of a robot file (a ``ValueError`` naming the file when missing or unknown)."""
    d = read_description(path)
    kind = d.get("robot", {}).get("kind")
    if kind is None:
        raise ValueError(f"{path}: no [robot] kind (one of {sorted(KINDS)})")
    if kind not in KINDS:
        raise ValueError(f"{path}: unknown robot kind {kind!r} (known kinds: {sorted(KINDS)}; add one with "
                         "paperlib.robots.kinds.register_kind, see docs/robots.md)")
    return kind


def robot_files() -> dict[str, Path]:
    """Every robot file by name (the file's stem; the first directory of :func:`robot_dirs` wins)."""
    out: dict[str, Path] = {}
    for d in robot_dirs():
        for p in sorted(Path(d).glob("*.toml")):
            out.setdefault(p.stem, p)
    return dict(sorted(out.items()))


def find(name: str) -> Path:
    """The robot file of ``name``; a ``ValueError`` listing the known robots otherwise."""
    files = robot_files()
    if name not in files:
        raise ValueError(f"no robot named {name!r} (known: {', '.join(files)}; or a .urdf path). "
                         "To add your robot, see docs/robots.md")
    return files[name]


def loader_of(name: str) -> Callable[[], Any]:
    """A function returning the model of robot ``name`` (found and kind-checked now)."""
    path = find(name)
    kind = KINDS[kind_of(path)]
    return lambda: kind.load(path)
