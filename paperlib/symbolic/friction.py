"""Symbolic friction regressor Y_F (eqs. 8-12) for any joint subset, order and symmetry.

This is the derivation the compiled assembler :func:`paperlib.friction.friction_regressor`
implements column by column; the tests compare the two. Relative-velocity signs are
explicit symbols ``sgn_j`` (sign of upsilon_dot_j) and ``pos_j``/``neg_j`` (Heaviside
indicators), so the result is a polynomial matrix in the Jacobian entries and |v|.
"""

from __future__ import annotations

import sympy as sp

from paperlib.friction import SIDE_NEGATIVE, SIDE_POSITIVE, SIDE_SYMMETRIC, FrictionModel


def friction_regressor(model: FrictionModel, D_ups: sp.Matrix, v: list[sp.Expr]) -> sp.Matrix:
    """Y_F (n, n_params) with ``Q_F = -Y_F pi_F``.

    Parameters
    ----------
    model : FrictionModel
        Joints, order and symmetry.
    D_ups : Matrix, shape (n_v, n)
        Jacobians of the relative joint coordinates (row j for joint j+1).
    v : list of Expr
        Relative joint velocities upsilon_dot_j.
    """
    cols = []
    for j, k, side in model.columns():
        vj = v[j]
        mag = sp.Abs(vj) ** int(k)
        if side == SIDE_SYMMETRIC:
            s = sp.sign(vj) * mag
        elif side == SIDE_POSITIVE:
            s = sp.Heaviside(vj, 0) * mag
        elif side == SIDE_NEGATIVE:
            s = -sp.Heaviside(-vj, 0) * mag
        else:  # pragma: no cover
            raise ValueError(side)
        cols.append(D_ups[j, :].T * s)
    return sp.Matrix.hstack(*cols)
