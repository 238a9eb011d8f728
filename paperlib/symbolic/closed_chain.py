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

Mechanisms with several independent loops (the 3-RRR: three RR chains closing on one
point) have a block-diagonal ``Phi_z``; ``blocks`` then names each loop's constraint rows,
dependent coordinates and its own ``1/det`` symbol, so each small block is inverted on its
own (``adj`` of one block, not of the whole matrix) and the preamble guards each loop.
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
    inv_det : Symbol or None
        Symbol standing for ``1 / det(Phi_z)``, set by the numeric preamble (None when
        ``blocks`` is given).
    blocks : list of (list of int, list of int, Symbol), optional
        For a block-diagonal ``Phi_z``: per block its constraint rows, its dependent
        coordinates (indices into ``z``) and the symbol standing for ``1 / det`` of that
        block. Default: one block, the whole matrix, with ``inv_det``.
    prefix : str
        Prefix of the stage symbols' names (``Dz11``, ``Dzd11`` by default).
    """

    q: list[sp.Symbol]
    qd: list[sp.Symbol]
    z: list[sp.Symbol]
    zd: list[sp.Symbol]
    partials: dict[sp.Symbol, dict[sp.Symbol, sp.Expr]]
    constraints: sp.Matrix
    inv_det: sp.Symbol | None
    blocks: list[tuple[list[int], list[int], sp.Symbol]] | None = None
    prefix: str = "Dz"

    def __post_init__(self) -> None:
        n, m = len(self.q), len(self.z)
        if (self.blocks is None) == (self.inv_det is None):
            raise ValueError("give either inv_det (one block) or blocks, not both")
        pre = self.prefix
        self.Dz = sp.Matrix(m, n, lambda i, j: sp.Symbol(f"{pre}{i + 1}{j + 1}"))
        self.Dzd = sp.Matrix(m, n, lambda i, j: sp.Symbol(f"{pre}d{i + 1}{j + 1}"))
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

    def block_dets(self) -> list[sp.Expr]:
        """``det`` of each diagonal block of ``Phi_z`` (one entry without ``blocks``)."""
        phi_z = self.constraint_jacobians()[1]
        if self.blocks is None:
            return [sp.expand(phi_z.det())]
        return [sp.expand(phi_z.extract(rows, cols).det()) for rows, cols, _ in self.blocks]

    def inverse_phi_z(self, phi_z: sp.Matrix) -> sp.Matrix:
        """``Phi_z^{-1}`` in terms of the ``1/det`` symbol(s): ``adj`` of each block times its symbol."""
        if self.blocks is None:
            return phi_z.adjugate() * self.inv_det
        covered_r = sorted(r for rows, _, _ in self.blocks for r in rows)
        covered_c = sorted(c for _, cols, _ in self.blocks for c in cols)
        if covered_r != list(range(phi_z.rows)) or covered_c != list(range(phi_z.cols)):
            raise ValueError("blocks must partition the constraint rows and the dependent coordinates")
        inv = sp.zeros(phi_z.cols, phi_z.rows)
        for rows, cols, idet in self.blocks:
            for r in range(phi_z.rows):
                for c in range(phi_z.cols):
                    if (r in rows) != (c in cols) and phi_z[r, c] != 0:
                        raise ValueError(f"Phi_z is not block diagonal: entry ({r}, {c}) couples two blocks")
            adj = phi_z.extract(rows, cols).adjugate() * idet
            for a, c in enumerate(cols):
                for b, r in enumerate(rows):
                    inv[c, r] = adj[a, b]
        return inv

    def stages(self) -> list[tuple[sp.Symbol, sp.Expr]]:
        """Stage assignments for D_z, zd = D_z qd and dD_z/dt, in dependency order."""
        phi_q, phi_z = self.constraint_jacobians()
        inv = self.inverse_phi_z(phi_z)
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
