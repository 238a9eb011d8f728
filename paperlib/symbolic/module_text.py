"""Text of a generated kernel module: the header every generated file carries, and the kernel-set code.

Each robot *kind* has a symbolic module (``paperlib/symbolic/<kind>.py``, named in the kind
registry :data:`paperlib.robots.kinds.KINDS`) with two functions codegen calls for every robot
of that kind in ``data/robots/*.toml``:

``kernel_module(robot, toml) -> str``
    the source text of ``paperlib/kernels/<robot>.py``;
``kernel_set(robot, toml) -> KernelSetCode | None``
    the robot's branch of the kernel-set dispatch (sizes and the code of the three branches),
    or ``None`` for a robot the compiled controller and plant do not run.

Codegen (:mod:`paperlib.codegen`) writes the dispatch ``paperlib/kernels/dispatch.py`` from the
``KernelSetCode`` of every robot, so adding a robot adds no branch by hand.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

PACKAGE = Path(__file__).resolve().parents[1]
CODEGEN = PACKAGE / "codegen.py"


def rel(path: Path) -> str:
    """``path`` relative to the repository root when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(PACKAGE.parent))
    except ValueError:
        return str(path)


def source_digest(paths: list[Path]) -> str:
    """First 16 hex digits of the sha256 over the files' names and bytes (the header's digest)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).name.encode())
        h.update(Path(p).read_bytes())
    return h.hexdigest()[:16]


def header(sources: list[Path]) -> list[str]:
    """The first lines of every generated file: generator, sources, sympy version and digest."""
    return [
        "# GENERATED FILE - DO NOT EDIT.",
        "# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)",
        "# Source:    " + ", ".join(rel(p) for p in sources),
        f"# sympy {sp.__version__}; source digest {source_digest(sources)}",
        "# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.",
        "#",
    ]


def closed_chain_module(model, sym_file: Path, about: list[str], constants: list[str], doc: str) -> str:
    """Kernel module text of a symbolic model with ``kernels()`` and ``preamble_symbols(spec)``.

    Header (generator, sources, digest, ``about``), ``constants``, then every kernel of the model.
    """
    from paperlib.symbolic.emit import emit_kernel

    sources = [Path(sym_file), PACKAGE / "symbolic" / "closed_chain.py", PACKAGE / "symbolic" / "emit.py", CODEGEN]
    body: list[str] = []
    counts: list[str] = []
    for spec in model.kernels():
        src, n_ops = emit_kernel(spec, model.preamble_symbols(spec))
        body.append(src)
        counts.append(f"#   {spec.name:22s} {n_ops:5d} operations after CSE")
    lines = [*header(sources), *about, *counts, f'"""{doc}"""', "", "import math", "", "import numba as nb", "",
             *constants, ""]
    return "\n".join(lines) + "\n\n" + "\n\n".join(body)


@dataclass(frozen=True)
class KernelSetCode:
    """One robot's branch of the generated kernel-set dispatch.

    The three code snippets are the bodies of the robot's branch in ``robot_terms``,
    ``robot_dynamics`` and ``robot_state_terms`` (arguments as in
    :mod:`paperlib.robots.kernel_sets`); ``{K}`` stands for the robot's kernel module. Each
    snippet returns the kernel status.

    Attributes
    ----------
    n_joints, n_drives, n_ups, n_inertial, n_params : int
        Degrees of freedom, drives, friction joints, unknown inertial parameters, kernel parameters.
    terms, dynamics, state_terms : str
        Branch bodies (unindented Python).
    inertial_names : tuple of str
        Names of the unknown inertial parameters (columns of ``Y_I``).
    """

    n_joints: int
    n_drives: int
    n_ups: int
    n_inertial: int
    n_params: int
    terms: str
    dynamics: str
    state_terms: str
    inertial_names: tuple[str, ...] = field(default=())

    def sizes(self) -> tuple:
        """(n_joints, n_drives, n_ups, n_inertial, n_params, inertial_names)."""
        return (self.n_joints, self.n_drives, self.n_ups, self.n_inertial, self.n_params, tuple(self.inertial_names))
