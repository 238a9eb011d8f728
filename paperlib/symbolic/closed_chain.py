"""Differential kinematics of closed chains by implicit differentiation.

A mechanism is described by independent coordinates ``q`` (the actuated joints),
dependent coordinates ``z`` and loop-closure constraints ``Phi(q, z) = 0``. Every
trigonometric function is a *symbol* (``c1`` for cos q1, ``sf1`` for sin phi1...)
whose partial derivatives with respect to the coordinates are declared once, so the
generated code evaluates each trigonometric function a single time.

From the constraints (the paper's eqs. 34-37 in matrix form)::

    D_z     = -Phi_z^{-1} Phi_q                                   (velocity level)
    dD_z/dt = -Phi_z^{-1} (dPhi_q/dt + dPhi_z/dt D_z)             (acceleration level)

with ``Phi_z^{-1} = adj(Phi_z) / det(Phi_z)``; ``1/det`` is one symbol computed (and
guarded against the parallel singularity ``det = 0``) by the numeric preamble. The
entries of ``D_z``, ``dz/dt`` and ``dD_z/dt`` become stage symbols: the kernels solve
these small linear systems numerically instead of expanding a closed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


@dataclass
class ClosedChain:
    """Symbolic calculus on a closed chain.

    Parameters
    ----------
    q, qd : list of Symbol
        Independent coordinates and their rates, length n.
    z, zd : list of Symbol
        Dependent coordinates and their rates, length m (``zd`` becomes a stage symbol).
    partials : dict
        For every base symbol (coordinate or trigonometric symbol) a dict mapping a
        coordinate of ``q + z`` to the explicit partial derivative of that symbol.
    constraints : Matrix
        ``Phi(q, z)``, shape (m, 1).
    inv_det : Symbol
        Symbol standing for ``1 / det(Phi_z)``, set by the numeric preamble.
    """

    q: list[sp.Symbol]
    qd: list[sp.Symbol]
    z: list[sp.Symbol]
    zd: list[sp.Symbol]
    partials: dict[sp.Symbol, dict[sp.Symbol, sp.Expr]]
    constraints: sp.Matrix
    inv_det: sp.Symbol

    def __post_init__(self) -> None:
        n, m = len(self.q), len(self.z)
        self.Dz = sp.Matrix(m, n, lambda i, j: sp.Symbol(f"Dz{i + 1}{j + 1}"))
        self.Dzd = sp.Matrix(m, n, lambda i, j: sp.Symbol(f"Dzd{i + 1}{j + 1}"))
        # stage symbols whose time derivative is another stage symbol
        self._stage_rates = {self.Dz[i, j]: self.Dzd[i, j] for i in range(m) for j in range(n)}

    # -- derivatives -------------------------------------------------------------------------
    def partial(self, expr: sp.Expr, coord: sp.Symbol) -> sp.Expr:
        """Explicit partial derivative with respect to one coordinate (others held fixed)."""
        total = sp.S.Zero
        for sym in expr.free_symbols:
            d = self.partials.get(sym, {}).get(coord)
            if d is not None:
                total += sp.diff(expr, sym) * d
        return total

    def jacobian(self, exprs: sp.Matrix) -> sp.Matrix:
        """Total Jacobian d(exprs)/dq with the dependent coordinates following the chain."""
        exprs = sp.Matrix(exprs)
        n = len(self.q)
        out = sp.zeros(exprs.rows, n)
        for r in range(exprs.rows):
            dz = [self.partial(exprs[r], zk) for zk in self.z]
            for j in range(n):
                val = self.partial(exprs[r], self.q[j])
                for k, dzk in enumerate(dz):
                    val += dzk * self.Dz[k, j]
                out[r, j] = val
        return out

    def dt(self, expr: sp.Expr) -> sp.Expr:
        """Total time derivative (coordinates move with qd and zd; D_z moves with dD_z/dt)."""
        total = sp.S.Zero
        for coord, rate in zip(self.q + self.z, self.qd + self.zd):
            total += self.partial(expr, coord) * rate
        for sym in expr.free_symbols & set(self._stage_rates):
            total += sp.diff(expr, sym) * self._stage_rates[sym]
        return total

    def dt_matrix(self, mat: sp.Matrix) -> sp.Matrix:
        """Element-wise total time derivative."""
        return mat.applyfunc(self.dt)

    # -- implicit differentiation of the constraints ----------------------------------------------
    def constraint_jacobians(self) -> tuple[sp.Matrix, sp.Matrix]:
        """``(Phi_q, Phi_z)``: explicit partial Jacobians of the constraints."""
        phi = self.constraints
        phi_q = sp.Matrix(phi.rows, len(self.q), lambda i, j: self.partial(phi[i], self.q[j]))
        phi_z = sp.Matrix(phi.rows, len(self.z), lambda i, j: self.partial(phi[i], self.z[j]))
        return phi_q, phi_z

    def det_phi_z(self) -> sp.Expr:
        """``det(Phi_z)``: zero at the parallel (constraint) singularity."""
        return sp.expand(self.constraint_jacobians()[1].det())

    def stages(self) -> list[tuple[sp.Symbol, sp.Expr]]:
        """Stage assignments for D_z, zd = D_z qd and dD_z/dt, in dependency order."""
        phi_q, phi_z = self.constraint_jacobians()
        inv = phi_z.adjugate() * self.inv_det
        dz = -inv * phi_q
        out: list[tuple[sp.Symbol, sp.Expr]] = []
        for i in range(dz.rows):
            for j in range(dz.cols):
                out.append((self.Dz[i, j], sp.expand(dz[i, j])))
        qd = sp.Matrix(self.qd)
        zd = self.Dz * qd
        for k, s in enumerate(self.zd):
            out.append((s, zd[k]))
        dzd = -inv * (self.dt_matrix(phi_q) + self.dt_matrix(phi_z) * self.Dz)
        for i in range(dzd.rows):
            for j in range(dzd.cols):
                out.append((self.Dzd[i, j], sp.expand(dzd[i, j])))
        return out


def trig_partials(angle: sp.Symbol, c: sp.Symbol, s: sp.Symbol) -> dict[sp.Symbol, dict[sp.Symbol, sp.Expr]]:
    """Partial-derivative table for ``angle`` and its cosine/sine symbols."""
    return {angle: {angle: sp.S.One}, c: {angle: -s}, s: {angle: c}}
