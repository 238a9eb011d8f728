"""Symbolic joint torque regressor of a serial arm (Newton-Euler, linear in the 10 standard
parameters per link), for code generation.

The derivation follows the same recursion as the compiled generic path
(:func:`paperlib.robots.serial.inertial_regressor`), but with the arm's geometry as constants:
zeros and ones of the joint placements vanish from the expressions, every intermediate
quantity (joint rotation entries, angular velocity and acceleration, the origin's acceleration,
the wrench columns carried from link to link) becomes a *stage* symbol, and one
common-subexpression elimination over everything (:mod:`paperlib.symbolic.emit`) gives
straight-line code for one fixed robot. Conventions (pinocchio's) are those of
:mod:`paperlib.robots.serial`.

:func:`regressor_expressions` gives the closed-form entries (stages substituted) for small
arms, e.g. a planar 2R in teaching material.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from paperlib.robots.serial import INERTIAL_NAMES, SerialArm
from paperlib.symbolic.emit import KernelSpec

__all__ = ["SerialRegressorModel", "regressor_expressions"]


def _const(x: float) -> sp.Expr:
    """Exact 0, +-1 for those values (the geometry is snapped), else a float constant."""
    x = float(x)
    if x == 0.0:
        return sp.Integer(0)
    if x in (1.0, -1.0):
        return sp.Integer(int(x))
    return sp.Float(repr(x), 17)


def _cross(a: list[sp.Expr], b: list[sp.Expr]) -> list[sp.Expr]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


class SerialRegressorModel:
    """Symbolic inertial regressor of one arm.

    Parameters
    ----------
    arm : SerialArm
        Geometry (placements, axes, gravity) taken as constants.

    Attributes
    ----------
    q, qd, qdd : list of Symbol
        Joint coordinates.
    s, c : list of Symbol
        ``sin q_i`` and ``cos q_i``, defined by the kernel's preamble.
    stages : list of (Symbol, Expr)
        Intermediate assignments in dependency order.
    Y : Matrix, shape (n, 10 n)
        Regressor entries in terms of stages and inputs.
    """

    def __init__(self, arm: SerialArm) -> None:
        self.arm = arm
        n = arm.n
        self.q = list(sp.symbols(f"q0:{n}"))
        self.qd = list(sp.symbols(f"qd0:{n}"))
        self.qdd = list(sp.symbols(f"qdd0:{n}"))
        self.s = list(sp.symbols(f"s0:{n}"))
        self.c = list(sp.symbols(f"c0:{n}"))
        self.stages: list[tuple[sp.Symbol, sp.Expr]] = []
        self._derive()

    def _stage(self, expr: sp.Expr, name: str) -> sp.Expr:
        expr = sp.sympify(expr)
        if expr.is_Number or expr.is_Symbol or (expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1 and expr.args[1].is_Symbol):
            return expr
        sym = sp.Symbol(name)
        self.stages.append((sym, expr))
        return sym

    def _rotation(self, i: int) -> list[list[sp.Expr]]:
        """Entries of R0[i] @ Rot(axis_i, q_i) as stage symbols or constants."""
        ax = [_const(v) for v in self.arm.axes[i]]
        c, s = self.c[i], self.s[i]
        x, y, z = ax
        C = 1 - c
        rot = sp.Matrix([
            [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
        ])
        R0 = sp.Matrix(3, 3, [_const(v) for v in self.arm.R0[i].ravel()])
        R = (R0 * rot).applyfunc(sp.expand)
        return [[self._stage(R[r, k], f"R{i}_{r}{k}") for k in range(3)] for r in range(3)]

    def _derive(self) -> None:
        arm, n = self.arm, self.arm.n
        zero = [sp.Integer(0)] * 3
        w_p, wd_p = zero, zero
        a_p = [-_const(g) for g in arm.gravity]
        Rs, W, WD, A = [], [], [], []
        for i in range(n):
            R = self._rotation(i)
            Rs.append(R)
            z = [_const(v) for v in arm.axes[i]]
            p = [_const(v) for v in arm.p0[i]]
            a_lin = [a_p[k] + _cross(wd_p, p)[k] + _cross(w_p, _cross(w_p, p))[k] for k in range(3)]
            RT = [[R[k][r] for k in range(3)] for r in range(3)]  # transpose

            def mul(M: list[list[sp.Expr]], v: list[sp.Expr]) -> list[sp.Expr]:
                return [sum((M[r][k] * v[k] for k in range(3)), sp.Integer(0)) for r in range(3)]

            w_in = [self._stage(e, f"wi{i}_{k}") for k, e in enumerate(mul(RT, w_p))]
            zq = [zk * self.qd[i] for zk in z]
            w = [self._stage(w_in[k] + zq[k], f"w{i}_{k}") for k in range(3)]
            wd_raw = mul(RT, wd_p)
            wxz = _cross(w_in, zq)
            wd = [self._stage(wd_raw[k] + wxz[k] + z[k] * self.qdd[i], f"wd{i}_{k}") for k in range(3)]
            a = [self._stage(e, f"a{i}_{k}") for k, e in enumerate(mul(RT, [sp.expand(x) for x in a_lin]))]
            W.append(w)
            WD.append(wd)
            A.append(a)
            w_p, wd_p, a_p = w, wd, a
        Y = sp.zeros(n, 10 * n)
        for k in range(n):
            F, N = self._body_block(W[k], WD[k], A[k], k)
            j = k
            while True:
                z = [_const(v) for v in arm.axes[j]]
                for col in range(10):
                    Y[j, 10 * k + col] = sp.expand(z[0] * N[0][col] + z[1] * N[1][col] + z[2] * N[2][col])
                if j == 0:
                    break
                R = Rs[j]
                p = [_const(v) for v in arm.p0[j]]
                F2 = [[self._stage(sp.expand(sum((R[r][m] * F[m][col] for m in range(3)), sp.Integer(0))), f"F{k}_{j - 1}_{r}_{col}")
                       for col in range(10)] for r in range(3)]
                N2 = []
                for r in range(3):
                    row = []
                    for col in range(10):
                        rn = sum((R[r][m] * N[m][col] for m in range(3)), sp.Integer(0))
                        pxf = _cross(p, [F2[0][col], F2[1][col], F2[2][col]])[r]
                        row.append(self._stage(sp.expand(rn + pxf), f"N{k}_{j - 1}_{r}_{col}"))
                    N2.append(row)
                F, N = F2, N2
                j -= 1
        self.Y = Y

    def _body_block(self, w: list, wd: list, a: list, k: int) -> tuple[list[list[sp.Expr]], list[list[sp.Expr]]]:
        """Force and moment (about the origin) columns of body k, in its frame."""
        wx, wy, wz = w
        n2 = wx * wx + wy * wy + wz * wz
        Kh = [[w[r] * w[c] - (n2 if r == c else 0) for c in range(3)] for r in range(3)]
        Swd = [[0, -wd[2], wd[1]], [wd[2], 0, -wd[0]], [-wd[1], wd[0], 0]]
        F = [[a[r]] + [Kh[r][c] + Swd[r][c] for c in range(3)] + [sp.Integer(0)] * 6 for r in range(3)]
        # h x a
        Sa = [[0, a[2], -a[1]], [-a[2], 0, a[0]], [a[1], -a[0], 0]]

        def L(v: list) -> list[list[sp.Expr]]:
            return [[v[0], v[1], 0, v[2], 0, 0], [0, v[0], v[1], 0, v[2], 0], [0, 0, 0, v[0], v[1], v[2]]]

        Lwd, Lw = L(wd), L(w)
        NI = [[Lwd[r][c] + _cross(w, [Lw[0][c], Lw[1][c], Lw[2][c]])[r] for c in range(6)] for r in range(3)]
        N = [[sp.Integer(0)] + [Sa[r][c] for c in range(3)] + NI[r] for r in range(3)]
        F = [[self._stage(sp.expand(e), f"B{k}_{r}_{c}") for c, e in enumerate(row)] for r, row in enumerate(F)]
        N = [[self._stage(sp.expand(e), f"B{k}_{3 + r}_{c}") for c, e in enumerate(row)] for r, row in enumerate(N)]
        return F, N

    # ------------------------------------------------------------------ code generation
    def preamble(self) -> str:
        return "\n".join(f"{self.s[i]} = math.sin({self.q[i]})\n{self.c[i]} = math.cos({self.q[i]})" for i in range(self.arm.n))

    def preamble_symbols(self) -> set[sp.Symbol]:
        return set(self.s) | set(self.c)

    def kernel_spec(self, name: str = "inertial_regressor") -> KernelSpec:
        n = self.arm.n
        doc = (
            f"Joint torque regressor of the {10 * n} inertial parameters of {self.arm.name} for one state.\n\n"
            "    Parameters\n    ----------\n"
            f"    q, qd, qdd : ndarray, shape ({n},)\n"
            "        Joint angles [rad], velocities [rad/s], accelerations [rad/s^2].\n"
            f"    Y : ndarray, shape ({n}, {10 * n})\n"
            "        Output [N m per parameter unit]; columns m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ per link\n"
            "        (pinocchio's order; inertia about the joint frame's origin).\n    "
        )
        return KernelSpec(
            name=name, doc=doc, inputs=[("q", self.q), ("qd", self.qd), ("qdd", self.qdd)], preamble=self.preamble(),
            stages=self.stages, outputs=[("Y", self.Y)],
        )


def regressor_expressions(arm: SerialArm) -> sp.Matrix:
    """Closed-form regressor entries (n, 10 n) in ``q_i, qd_i, qdd_i`` (for small arms).

    ``sin``/``cos`` of the joint angles appear as functions; intended for teaching-size arms
    (2-3 joints): substitution grows quickly with the number of joints.
    """
    model = SerialRegressorModel(arm)
    subs = {model.s[i]: sp.sin(model.q[i]) for i in range(arm.n)} | {model.c[i]: sp.cos(model.q[i]) for i in range(arm.n)}
    values: dict[sp.Symbol, sp.Expr] = {}
    for sym, expr in model.stages:
        values[sym] = expr.xreplace(values).xreplace(subs)
    Y = model.Y.applyfunc(lambda e: sp.simplify(e.xreplace(values).xreplace(subs)))
    return Y


def parameter_symbols(arm: SerialArm) -> list[sp.Symbol]:
    """Symbols of the inertial parameters, ``m1, mx1, ..., ZZn``."""
    return [sp.Symbol(f"{p}{i + 1}") for i in range(arm.n) for p in INERTIAL_NAMES]


def geometry_literals(arm: SerialArm) -> list[str]:
    """Lines defining the geometry constants of a generated module (to check it is used for the right arm)."""
    def arr(a: np.ndarray) -> str:
        return "np.array(" + repr(np.asarray(a).tolist()) + ")"

    return [f"R0 = {arr(arm.R0)}", f"P0 = {arr(arm.p0)}", f"AXES = {arr(arm.axes)}", f"GRAVITY = {arr(arm.gravity)}"]


# -- codegen interface of the kind (paperlib/symbolic/module_text.py) ------------------------------
def kernel_module(robot: str, toml) -> str:
    """Source text of ``paperlib/kernels/<robot>.py`` for the serial arm of ``toml``.

    One straight-line kernel of the inertial regressor for that fixed geometry (the arm's
    placements, axes and gravity are constants; the module stores them so that
    :class:`paperlib.robots.serial.SerialArm` uses it only for the same geometry), plus a loop
    over many states.
    """
    from pathlib import Path

    from paperlib.symbolic.emit import emit_kernel
    from paperlib.symbolic.module_text import CODEGEN, PACKAGE, header

    toml = Path(toml)
    arm = SerialArm.from_toml(toml, kernel=None)
    sources = [PACKAGE / "symbolic" / "serial.py", PACKAGE / "symbolic" / "emit.py",
               *sorted((PACKAGE / "robots" / "serial").glob("*.py")), toml, CODEGEN]
    model = SerialRegressorModel(arm)
    src, n_ops = emit_kernel(model.kernel_spec("inertial_regressor"), model.preamble_symbols())
    n = arm.n
    lines = [
        *header(sources),
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
    return "\n".join(lines) + "\n\n" + src + "\n\n" + loop


def kernel_set(robot: str, toml):
    """None: serial arms of this kind run no compiled controller (see the ``serial_arm`` kind)."""
    return None
