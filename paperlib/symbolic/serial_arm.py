"""The ``serial_arm`` kind: a serial arm that runs on the compiled controller step and twin runner.

A robot file ``data/robots/<name>.toml`` with ``kind = "serial_arm"`` describes a serial arm by a
URDF (``[robot] urdf``, relative to the TOML) plus its drives and gains. Codegen writes its kernel
module from the Newton-Euler derivation of :mod:`paperlib.symbolic.serial` (the geometry as
constants, one CSE):

* ``inertial_regressor`` / ``regressor_many`` (as for every serial arm: identification);
* the kernel-set interface, with the kernel parameters ``prm`` = the 10 n standard inertial
  parameters (pinocchio's order) then the n gear ratios ``iota``:
  ``terms`` (``R = -Y(q, qd, qdd) pi``, drive map ``diag(iota)``, friction joints = joints),
  ``mass_bias`` (``M = d(Y pi)/d qdd`` by forward differentiation through the stages, and
  ``h = Y(q, qd, 0) pi``) and ``state_terms`` (both, with the friction joints).
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from paperlib.symbolic.emit import KernelSpec


def _arm(toml: Path):
    from paperlib.robots.serial_arm import read_arm

    return read_arm(Path(toml))


def _derivatives(stages: list[tuple[sp.Symbol, sp.Expr]], var: sp.Symbol, tag: str
                 ) -> tuple[list[tuple[sp.Symbol, sp.Expr]], dict[sp.Symbol, sp.Expr]]:
    """Forward derivatives of every stage by ``var``: new stages ``d<tag>_<stage>`` and the map stage -> derivative."""
    d: dict[sp.Symbol, sp.Expr] = {}
    out: list[tuple[sp.Symbol, sp.Expr]] = []
    for sym, expr in stages:
        e = _total(expr, var, d)
        if e == 0:
            d[sym] = sp.Integer(0)
            continue
        if e.is_Number or e.is_Symbol:
            d[sym] = e
            continue
        ds = sp.Symbol(f"d{tag}_{sym}")
        out.append((ds, e))
        d[sym] = ds
    return out, d


def _total(expr: sp.Expr, var: sp.Symbol, d: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    """d expr / d var, through the stages whose derivatives ``d`` holds (chain rule)."""
    e = sp.diff(expr, var)
    for t in expr.free_symbols:
        dt = d.get(t)
        if dt is not None and dt != 0:
            e += sp.diff(expr, t) * dt
    return sp.expand(e)


class SerialArmTwinModel:
    """The kernel-set kernels of one serial arm (see the module docstring)."""

    def __init__(self, arm) -> None:
        from paperlib.symbolic.serial import SerialRegressorModel

        self.arm = arm
        self.base = SerialRegressorModel(arm)
        n = arm.n
        self.n = n
        self.pi = list(sp.symbols(f"pi0:{10 * n}"))
        self.iota = list(sp.symbols(f"iota0:{n}"))
        b = self.base
        Y = b.Y
        self.tau = sp.Matrix([sp.expand(sum((Y[j, c] * self.pi[c] for c in range(10 * n)), sp.Integer(0)))
                              for j in range(n)])
        # h = tau at qdd = 0: the stages with qdd substituted, renamed
        zero = {v: 0 for v in b.qdd}
        ren: dict[sp.Symbol, sp.Expr] = {}
        self.h_stages: list[tuple[sp.Symbol, sp.Expr]] = []
        for sym, expr in b.stages:
            e = sp.expand(expr.subs(zero).xreplace(ren))
            if e.is_Number or e.is_Symbol:
                ren[sym] = e
                continue
            hs = sp.Symbol(f"h_{sym}")
            self.h_stages.append((hs, e))
            ren[sym] = hs
        self.h = self.tau.subs(zero).xreplace(ren).applyfunc(sp.expand)
        # M columns: d tau / d qdd_i through the stages
        self.M_stages: list[tuple[sp.Symbol, sp.Expr]] = []
        cols = []
        for i, v in enumerate(b.qdd):
            st, d = _derivatives(b.stages, v, f"m{i}")
            self.M_stages += st
            cols.append([_total(self.tau[j], v, d) for j in range(n)])
        self.M = sp.Matrix(n, n, lambda r, c: cols[c][r])

    def _qdd_free(self) -> list[tuple[sp.Symbol, sp.Expr]]:
        """Stages of the kernels without ``qdd``: the base stages they need, the M and h stages."""
        stages = self.base.stages + self.M_stages + self.h_stages
        spec = KernelSpec("check", "", [], "", stages, [("M", self.M), ("h", self.h)])
        qdd = set(self.base.qdd)
        bad = [str(s) for s, e in spec.used_stages() if e.free_symbols & qdd]
        if bad or (self.M.free_symbols | self.h.free_symbols) & qdd:
            raise RuntimeError(f"{self.arm.name}: M or h depends on qdd through {bad[:5]}")  # pragma: no cover
        return stages

    def preamble_symbols(self, spec: KernelSpec | None = None) -> set[sp.Symbol]:
        return self.base.preamble_symbols()

    def kernels(self) -> list[KernelSpec]:
        b, n = self.base, self.n
        q, qd, qdd = ("q", b.q), ("qd", b.qd), ("qdd", b.qdd)
        prm = ("prm", self.pi + self.iota)
        D_m = sp.diag(*self.iota)
        eye = sp.eye(n)
        ups = sp.Matrix(b.qd)
        vec = {"R", "h", "ups_d"}
        return [
            KernelSpec("terms", "Known Q_I + Q_G = -Y(q, qd, qdd) pi (R), drive map diag(iota), friction joints.",
                       [q, qd, qdd, prm], b.preamble(), b.stages,
                       [("R", -self.tau), ("D_m", D_m), ("D_ups", eye), ("ups_d", ups)], vector_outputs=vec),
            KernelSpec("mass_bias", "Mass matrix M = d(Y pi)/d qdd and bias forces h = Y(q, qd, 0) pi.",
                       [q, qd, prm], b.preamble(), self._qdd_free(), [("M", self.M), ("h", self.h)],
                       vector_outputs=vec),
            KernelSpec("state_terms", "M, h and the friction joints (the joints: D_ups = I, ups_d = qd).",
                       [q, qd, prm], b.preamble(), self._qdd_free(),
                       [("M", self.M), ("h", self.h), ("D_ups", eye), ("ups_d", ups)], vector_outputs=vec),
        ]


# -- codegen interface of the kind (paperlib/symbolic/module_text.py) ------------------------------
def kernel_module(robot: str, toml: Path) -> str:
    """Source text of ``paperlib/kernels/<robot>.py``: the serial kernels and the kernel-set ones."""
    from paperlib.robots.serial_arm import urdf_path
    from paperlib.symbolic import serial as sym_serial
    from paperlib.symbolic.emit import emit_kernel
    from paperlib.symbolic.module_text import CODEGEN, PACKAGE, header

    arm = _arm(toml)
    model = SerialArmTwinModel(arm)
    n = arm.n
    sources = [Path(__file__), PACKAGE / "symbolic" / "serial.py", PACKAGE / "symbolic" / "emit.py",
               PACKAGE / "robots" / "serial_arm.py", Path(toml), urdf_path(Path(toml)), CODEGEN]
    body, counts = [], []
    src, n_ops = emit_kernel(model.base.kernel_spec("inertial_regressor"), model.base.preamble_symbols())
    body.append(src)
    counts.append(f"#   {'inertial_regressor':22s} {n_ops:5d} operations after CSE")
    for spec in model.kernels():
        src, n_ops = emit_kernel(spec, model.preamble_symbols(spec))
        body.append(src)
        counts.append(f"#   {spec.name:22s} {n_ops:5d} operations after CSE")
    names = tuple(arm.inertial_names) + tuple(f"iota{j + 1}" for j in range(n))
    lines = [*header(sources),
             f"# {robot}: serial arm of kind serial_arm, {n} revolute joints: the inertial regressor (pinocchio's",
             "# order) and the kernel-set kernels (prm = 10 n inertial parameters, then n gear ratios).",
             *counts, f'"""Generated numba kernels of the serial arm {robot} (see header)."""', "", "import math", "",
             "import numba as nb", "import numpy as np", "", f"N_JOINTS = {n}", *sym_serial.geometry_literals(arm),
             f"PARAM_NAMES = {names!r}", ""]
    loop = (
        "@nb.njit(cache=True, nogil=True)\n"
        "def regressor_many(Q, QD, QDD, Y):\n"
        f'    """:func:`inertial_regressor` for N states: Q, QD, QDD (N, {n}); Y (N, {n}, {10 * n})."""\n'
        "    for s in range(Q.shape[0]):\n"
        "        inertial_regressor(Q[s], QD[s], QDD[s], Y[s])\n"
    )
    return "\n".join(lines) + "\n\n" + "\n\n".join(body) + "\n\n" + loop


def kernel_set(robot: str, toml: Path):
    """The arm's branch of the dispatch: n joints, n geared drives, the joints as friction joints."""
    from paperlib.symbolic.module_text import KernelSetCode

    n = _arm(toml).n
    return KernelSetCode(n_joints=n, n_drives=n, n_ups=n, n_inertial=0, n_params=11 * n,
                         terms="return {K}.terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)",
                         dynamics="return {K}.mass_bias(q, qd, prm, M, h)",
                         state_terms="return {K}.state_terms(q, qd, prm, M, h, D_ups, ups_d)")
