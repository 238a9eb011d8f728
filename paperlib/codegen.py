"""Generate the numba kernels from the symbolic models: ``python -m paperlib.codegen``.

``python -m paperlib.codegen``          writes ``paperlib/kernels/<robot>.py``
``python -m paperlib.codegen --check``  exits 1 when a kernel file is missing or stale

A kernel file is a pure function of the symbolic sources (and the sympy version), so
``--check`` regenerates in memory and compares text. Never edit a generated file.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path
from typing import Callable

import sympy as sp

PACKAGE = Path(__file__).resolve().parent
KERNEL_DIR = PACKAGE / "kernels"


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(PACKAGE.parent))
    except ValueError:
        return str(path)


def _source_digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _generate(model, sym_file: str, about: list[str], constants: list[str], doc: str) -> str:
    """Kernel module text: header (generator, sources, digest, ``about``), ``constants``, kernels."""
    from paperlib.symbolic.emit import emit_kernel

    sources = [PACKAGE / "symbolic" / n for n in (sym_file, "closed_chain.py", "emit.py")]
    sources.append(Path(__file__))
    body: list[str] = []
    counts: list[str] = []
    for spec in model.kernels():
        src, n_ops = emit_kernel(spec, model.preamble_symbols(spec))
        body.append(src)
        counts.append(f"#   {spec.name:22s} {n_ops:5d} operations after CSE")
    rel = [str(p.relative_to(PACKAGE.parent)) for p in sources]
    header = [
        "# GENERATED FILE - DO NOT EDIT.",
        "# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)",
        "# Source:    " + ", ".join(rel),
        f"# sympy {sp.__version__}; source digest {_source_digest(sources)}",
        "# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.",
        "#",
        *about,
        *counts,
        f'"""{doc}"""',
        "",
        "import math",
        "",
        "import numba as nb",
        "",
        *constants,
        "",
    ]
    return "\n".join(header) + "\n\n" + "\n\n".join(body)


def generate_five_bar() -> str:
    """Source text of ``paperlib/kernels/five_bar.py``."""
    from paperlib.symbolic import five_bar as sym

    about = [
        "# 5R planar parallel robot (flagship paper, eqs. 24-46): implicit differentiation of the",
        "# loop closure, solved as 2x2 systems inside each kernel; trigonometric functions once.",
        "# Every kernel writes into preallocated arrays and returns a status (0 valid,",
        "# 1 outside the workspace, 2 parallel singularity). Compiled without numba's reference",
        "# counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py for why).",
    ]
    constants = [
        f"PARAM_NAMES = {tuple(sym.PARAM_NAMES)!r}",
        f"N_PARAMS = {len(sym.PARAM_NAMES)}",
        f"N_CHI = {sym.N_CHI}",
        f"N_PSI = {sym.N_PSI}",
        f"SINGULARITY_TOL = {sym.SINGULARITY_TOL!r}",
        "STATUS_OK = 0",
        "STATUS_OUTSIDE = 1",
        "STATUS_SINGULAR = 2",
    ]
    return _generate(sym.FiveBarModel(), "five_bar.py", about, constants,
                     "Generated numba kernels of the 5R planar parallel robot (see header).")


def generate_three_rrr() -> str:
    """Source text of ``paperlib/kernels/three_rrr.py``."""
    from paperlib.symbolic import three_rrr as sym

    about = [
        "# 3-RRR redundantly actuated planar parallel robot (paper 002, eqs. 1-37): the platform",
        "# point p is the independent coordinate; the three RR chains' loop closures are",
        "# differentiated implicitly and solved as three 2x2 blocks inside each kernel.",
        "# Every kernel writes into preallocated arrays and returns a status (0 valid,",
        "# 1 outside the workspace, 2 serial singularity of a chain). Compiled without numba's",
        "# reference counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py).",
    ]
    constants = [
        f"PARAM_NAMES = {tuple(sym.PARAM_NAMES)!r}",
        f"N_PARAMS = {len(sym.PARAM_NAMES)}",
        f"N_CHI = {sym.N_CHI}",
        f"N_DRIVES = {sym.N_DRIVES}",
        f"SINGULARITY_TOL = {sym.SINGULARITY_TOL!r}",
        "STATUS_OK = 0",
        "STATUS_OUTSIDE = 1",
        "STATUS_SINGULAR = 2",
    ]
    return _generate(sym.ThreeRRRModel(), "three_rrr.py", about, constants,
                     "Generated numba kernels of the 3-RRR planar parallel robot (see header).")


def generate_serial(robot: str) -> str:
    """Source text of ``paperlib/kernels/<robot>.py`` for a serial arm of ``data/robots/<robot>.toml``.

    One straight-line kernel of the inertial regressor for that fixed geometry (the arm's
    placements, axes and gravity are constants; the module stores them so that
    :class:`paperlib.robots.serial.SerialArm` uses it only for the same geometry), plus a loop
    over many states.
    """
    from paperlib.robots.serial import ROBOTS_DIR, SerialArm
    from paperlib.symbolic.emit import emit_kernel
    from paperlib.symbolic.serial import SerialRegressorModel, geometry_literals

    toml = ROBOTS_DIR / f"{robot}.toml"
    arm = SerialArm.from_toml(toml, kernel=None)
    sources = [PACKAGE / "symbolic" / "serial.py", PACKAGE / "symbolic" / "emit.py",
               *sorted((PACKAGE / "robots" / "serial").glob("*.py")), toml, Path(__file__)]
    model = SerialRegressorModel(arm)
    src, n_ops = emit_kernel(model.kernel_spec("inertial_regressor"), model.preamble_symbols())
    n = arm.n
    header = [
        "# GENERATED FILE - DO NOT EDIT.",
        "# Generator: `python -m paperlib.codegen` (paperlib/codegen.py)",
        "# Source:    " + ", ".join(_rel(p) for p in sources),
        f"# sympy {sp.__version__}; source digest {_source_digest(sources)}",
        "# Regenerate with `make codegen`; `python -m paperlib.codegen --check` fails when stale.",
        "#",
        f"# {arm.name}: joint torque regressor of the {10 * n} standard inertial parameters (pinocchio's order",
        "# and convention), Newton-Euler with the geometry as constants, one CSE over all stages.",
        f"#   inertial_regressor     {n_ops:5d} operations after CSE",
        f'"""Generated numba kernel of the {arm.name} inertial regressor (see header)."""',
        "",
        "import math",
        "",
        "import numba as nb",
        "import numpy as np",
        "",
        f"N_JOINTS = {n}",
        *geometry_literals(arm),
        "",
    ]
    loop = (
        "@nb.njit(cache=True, nogil=True)\n"
        "def regressor_many(Q, QD, QDD, Y):\n"
        f'    """:func:`inertial_regressor` for N states: Q, QD, QDD (N, {n}); Y (N, {n}, {10 * n})."""\n'
        "    for s in range(Q.shape[0]):\n"
        "        inertial_regressor(Q[s], QD[s], QDD[s], Y[s])\n"
    )
    return "\n".join(header) + "\n\n" + src + "\n\n" + loop


def generate_step_call() -> str:
    """Source text of ``paperlib/control/_step_call.py`` (from the control step's array table)."""
    from paperlib.control.step_arrays import generate_step_call as gen

    return gen()


#: robot name -> generator of its kernel module's text
GENERATORS: dict[str, Callable[[], str]] = {"five_bar": generate_five_bar, "three_rrr": generate_three_rrr,
                                           "tx40": lambda: generate_serial("tx40")}
#: other generated modules: name -> (path, generator)
OTHER_GENERATED: dict[str, tuple[Path, Callable[[], str]]] = {
    "control_step_call": (PACKAGE / "control" / "_step_call.py", generate_step_call),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperlib.codegen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is missing or stale")
    known = sorted(GENERATORS) + sorted(OTHER_GENERATED)
    parser.add_argument("robots", nargs="*", default=known,
                        help="robots (kernel modules) or other generated modules to write (default: all)")
    args = parser.parse_args(argv)
    stale = []
    for robot in args.robots:
        if robot not in known:
            parser.error(f"unknown robot {robot!r}; known: {known}")
        t0 = time.perf_counter()
        if robot in GENERATORS:
            text = GENERATORS[robot]()
            path = KERNEL_DIR / f"{robot}.py"
        else:
            path, gen = OTHER_GENERATED[robot]
            text = gen()
        took = time.perf_counter() - t0
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
                print(f"STALE   {_rel(path)} (regenerate with `make codegen`)", file=sys.stderr)
            else:
                print(f"ok      {_rel(path)} ({took:.1f} s to derive)")
        else:
            path.write_text(text)
            print(f"wrote   {_rel(path)} ({took:.1f} s to derive)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
