"""The example robots' dynamics in sympy (kinds ``toy_pendulum`` and ``toy_tridrive``).

* pendulum (``data/robots/toy_pendulum.toml``): ``M = J``, ``h = m l g sin q``; the inertia ``J``
  is an unknown inertial parameter (``Y_I = qdd``), the gravity torque is known (``R``); one
  direct drive, the joint its friction joint;
* tridrive (``data/robots/toy_tridrive.toml``): constant mass matrix ``[[m1, m12], [m12, m2]]``,
  no gravity, a constant 3x2 drive map from the parameters; the joints are the friction joints.

Codegen writes ``paperlib/kernels/<robot>.py`` (three kernels of the kernel-set interface:
``terms``, ``dynamics``, ``state_terms``) and the robot's branch of the dispatch from here.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import sympy as sp

from paperlib.symbolic.emit import KernelSpec

#: kernel parameter names of each kind, in the kernels' order
PARAM_NAMES = {"toy_pendulum": ("J", "m_l"),
               "toy_tridrive": ("m1", "m2", "m12", "d00", "d01", "d10", "d11", "d20", "d21")}
#: names of the unknown inertial parameters (columns of Y_I)
INERTIAL_NAMES = {"toy_pendulum": ("J",), "toy_tridrive": ()}


def _desc(toml: Path) -> dict:
    with Path(toml).open("rb") as fh:
        return tomllib.load(fh)


def _vec(name: str, n: int) -> list[sp.Symbol]:
    return [sp.Symbol(f"{name}{i}", real=True) for i in range(n)]


def _eye(n: int) -> sp.Matrix:
    return sp.eye(n)


class ToyModel:
    """The three kernel specs of one example robot (``kind`` ``toy_pendulum`` or ``toy_tridrive``)."""

    def __init__(self, kind: str, toml: Path) -> None:
        d = _desc(toml)
        self.kind = kind
        self.prm = [sp.Symbol(n, real=True) for n in PARAM_NAMES[kind]]
        self.n = 1 if kind == "toy_pendulum" else 2
        self.q, self.qd, self.qdd = _vec("q", self.n), _vec("qd", self.n), _vec("qdd", self.n)
        n = self.n
        if kind == "toy_pendulum":
            J, m_l = self.prm
            g = sp.Float(float(d["robot"]["gravity_m_s2"]))
            self.M = sp.Matrix([[J]])
            self.h = sp.Matrix([m_l * g * sp.sin(self.q[0])])
            # Q_I + Q_G (known part) = -m l g sin(q); unknown inertial part -J qdd -> column +qdd
            self.R = -self.h
            self.Y_I = sp.Matrix([[self.qdd[0]]])
            self.D_m = sp.Matrix([[1]])
        else:
            m1, m2, m12 = self.prm[:3]
            self.M = sp.Matrix([[m1, m12], [m12, m2]])
            self.h = sp.zeros(2, 1)
            self.R = -(self.M * sp.Matrix(self.qdd))
            self.Y_I = sp.zeros(2, 0)
            self.D_m = sp.Matrix(3, 2, self.prm[3:])
        self.D_ups = _eye(n)
        self.ups_d = sp.Matrix(self.qd)

    def kernels(self) -> list[KernelSpec]:
        q, qd, qdd, prm = ("q", self.q), ("qd", self.qd), ("qdd", self.qdd), ("prm", self.prm)
        vec = {"R", "h", "ups_d"}
        outs_terms = [("R", self.R), ("D_m", self.D_m), ("D_ups", self.D_ups), ("ups_d", self.ups_d)]
        if self.Y_I.shape[1]:
            outs_terms.append(("Y_I", self.Y_I))
        return [
            KernelSpec("terms", "Known part R of Q_I + Q_G, drive map, friction Jacobian and rates, inertial columns.",
                       [q, qd, qdd, prm], "", [], outs_terms, vector_outputs=vec),
            KernelSpec("dynamics", "Mass matrix M and bias forces h (M qdd + h = Q).", [q, qd, prm], "", [],
                       [("M", self.M), ("h", self.h)], vector_outputs=vec),
            KernelSpec("state_terms", "M, h and the friction joints' Jacobian and rates (the joints themselves).",
                       [q, qd, prm], "", [], [("M", self.M), ("h", self.h), ("D_ups", self.D_ups),
                                             ("ups_d", self.ups_d)], vector_outputs=vec),
        ]

    def preamble_symbols(self, spec: KernelSpec) -> set[sp.Symbol]:
        return set()


def _kind(toml: Path) -> str:
    return _desc(toml)["robot"]["kind"]


# -- codegen interface of the kinds (paperlib/symbolic/module_text.py) -----------------------------
def kernel_module(robot: str, toml: Path) -> str:
    """Source text of ``paperlib/kernels/<robot>.py``."""
    from paperlib.symbolic.emit import emit_kernel
    from paperlib.symbolic.module_text import CODEGEN, header

    kind = _kind(toml)
    model = ToyModel(kind, toml)
    body, counts = [], []
    for spec in model.kernels():
        src, n_ops = emit_kernel(spec, model.preamble_symbols(spec))
        body.append(src)
        counts.append(f"#   {spec.name:22s} {n_ops:5d} operations after CSE")
    lines = [*header([Path(__file__), Path(__file__).with_name("emit.py"), Path(toml), CODEGEN]),
             f"# {robot}: example robot of kind {kind} (not a paper's); kernels of the kernel-set interface.",
             *counts, f'"""Generated numba kernels of the example robot {robot} (see header)."""', "", "import math", "",
             "import numba as nb", "", f"PARAM_NAMES = {PARAM_NAMES[kind]!r}", ""]
    return "\n".join(lines) + "\n\n" + "\n\n".join(body)


def kernel_set(robot: str, toml: Path):
    """The example robot's branch of the dispatch (calls of its three generated kernels)."""
    from paperlib.symbolic.module_text import KernelSetCode

    kind = _kind(toml)
    n = 1 if kind == "toy_pendulum" else 2
    n_drv = 1 if kind == "toy_pendulum" else 3
    n_i = len(INERTIAL_NAMES[kind])
    terms = ("return {K}.terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d, Y_I)" if n_i else
             "return {K}.terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)")
    return KernelSetCode(n_joints=n, n_drives=n_drv, n_ups=n, n_inertial=n_i, n_params=len(PARAM_NAMES[kind]),
                         terms=terms, dynamics="return {K}.dynamics(q, qd, prm, M, h)",
                         state_terms="return {K}.state_terms(q, qd, prm, M, h, D_ups, ups_d)",
                         inertial_names=INERTIAL_NAMES[kind])
