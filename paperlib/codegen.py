"""Generate the numba kernels from the symbolic models: ``python -m paperlib.codegen``.

``python -m paperlib.codegen``          writes ``paperlib/kernels/<robot>.py`` and the dispatch
``python -m paperlib.codegen --check``  exits 1 when a generated file is missing or stale

The generators are discovered, not listed: every robot file ``data/robots/<robot>.toml`` (and
those of ``$PAPERLIB_ROBOT_PATH``, :mod:`paperlib.robots.kinds`) names its ``kind``, and the kind's
symbolic module gives the robot's kernel module and its branch of the kernel-set dispatch
(``kernel_module`` / ``kernel_set``, :mod:`paperlib.symbolic.module_text`).
``paperlib/kernels/dispatch.py`` (``robot_terms``, ``robot_dynamics``, ``robot_state_terms`` and
the kernel-set ids) is written from those branches, so adding a robot adds no branch by hand.

A generated file is a pure function of its sources (and the sympy version), so ``--check``
regenerates in memory and compares text. Never edit a generated file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

PACKAGE = Path(__file__).resolve().parent
KERNEL_DIR = PACKAGE / "kernels"
DISPATCH = "dispatch"


def _rel(path: Path) -> str:
    from paperlib.symbolic.module_text import rel

    return rel(path)


def robot_generators() -> dict[str, tuple[Path, object]]:
    """Robot name -> (its TOML file, its kind's symbolic module), from the robot files."""
    from paperlib.robots.kinds import KINDS, kind_of, robot_files

    return {name: (path, KINDS[kind_of(path)].symbolic_module()) for name, path in robot_files().items()}


def generate_dispatch() -> str:
    """Source text of ``paperlib/kernels/dispatch.py``: the kernel-set branches of every robot."""
    from paperlib.robots import kinds
    from paperlib.symbolic.module_text import header

    sets = []
    for name, (toml, sym) in robot_generators().items():
        code = sym.kernel_set(name, toml)
        if code is not None:
            sets.append((name, toml, sym, code))
    sources = [Path(kinds.__file__), *sorted({Path(s.__file__) for _, _, s, _ in sets}), *[t for _, t, _, _ in sets],
               PACKAGE / "symbolic" / "module_text.py", Path(__file__)]
    out = [*header(sources),
           "# The kernel-set dispatch of every robot with compiled kernels, one integer id each (see",
           "# paperlib/robots/kernel_sets.py for the interface and why it branches on an integer).",
           '"""Generated kernel-set dispatch (see header)."""', "", "import numba as nb", ""]
    out += [f"from paperlib.kernels import {name} as K_{name}" for name, *_ in sets]
    out.append("")
    for kid, (name, *_) in enumerate(sets):
        out.append(f"KID_{name.upper()} = {kid}")
    out += ["", "#: robot -> (kid, n_joints, n_drives, n_ups, n_inertial, n_params, inertial_names)", "KERNEL_SETS = {"]
    for kid, (name, _, _, code) in enumerate(sets):
        out.append(f"    {name!r}: {(kid, *code.sizes())!r},")
    out += ["}"]
    funcs = [("robot_terms", "kid, q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I", "terms",
              "Right-hand side, drive map, friction Jacobian and inertial columns at one state."),
             ("robot_dynamics", "kid, q, qd, prm, M, h", "dynamics", "Mass matrix and bias forces (Coriolis, gravity)."),
             ("robot_state_terms", "kid, q, qd, prm, M, h, D_ups, ups_d", "state_terms",
              "Mass matrix, bias forces and the friction joints' Jacobian and velocities at one state.")]
    for fname, args, attr, doc in funcs:
        out += ["", "", '@nb.njit(cache=True, nogil=True, _nrt=False, inline="always")',
                f"def {fname}({args}):  # pragma: no cover - compiled", f'    """{doc}"""']
        for name, _, _, code in sets:
            out.append(f"    if kid == KID_{name.upper()}:")
            body = getattr(code, attr).replace("{K}", f"K_{name}")
            out += ["        " + ln if ln.strip() else "" for ln in body.splitlines()]
        out.append("    return -1")
    return "\n".join(out) + "\n"


def generate_step_call() -> str:
    """Source text of ``paperlib/control/_step_call.py`` (from the control step's array table)."""
    from paperlib.control.step_arrays import generate_step_call as gen

    return gen()


def generators() -> dict[str, tuple[Path, Callable[[], str]]]:
    """Every generated module: name -> (path, generator). Robots' kernel modules, the dispatch, others."""
    out: dict[str, tuple[Path, Callable[[], str]]] = {}
    for name, (toml, sym) in robot_generators().items():
        out[name] = (KERNEL_DIR / f"{name}.py", (lambda s=sym, n=name, t=toml: s.kernel_module(n, t)))
    out[DISPATCH] = (KERNEL_DIR / f"{DISPATCH}.py", generate_dispatch)
    out.update(OTHER_GENERATED)
    return out


#: other generated modules: name -> (path, generator)
OTHER_GENERATED: dict[str, tuple[Path, Callable[[], str]]] = {
    "control_step_call": (PACKAGE / "control" / "_step_call.py", generate_step_call),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperlib.codegen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is missing or stale")
    gens = generators()
    known = list(gens)
    parser.add_argument("robots", nargs="*", default=known,
                        help="robots (kernel modules), 'dispatch' or other generated modules to write (default: all)")
    args = parser.parse_args(argv)
    stale = []
    for robot in args.robots:
        if robot not in gens:
            parser.error(f"unknown robot {robot!r}; known: {known}")
        path, gen = gens[robot]
        if path.parent == PACKAGE / "kernels":
            path = KERNEL_DIR / path.name
        t0 = time.perf_counter()
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
