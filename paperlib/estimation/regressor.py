"""The regressor row of the identification, from column blocks: drive gains | inertial | friction.

``Y = [-D_m^T diag(tau) | Y_I | Y_F]`` and ``R = Q_I + Q_G`` (known part), so that
``Y pi = R`` with ``pi = [pi_pds, pi_I, pi_F]`` (flagship paper, eq. 13, with gravity and unknown
inertial parameters added for robots that have them). The friction block is
:func:`paperlib.friction.polynomial.friction_regressor`. Used by the real-time step and by the
offline replay alike.
"""

from __future__ import annotations

from paperlib._jit import rt_njit
from paperlib.friction.polynomial import friction_regressor


@rt_njit(inline="always")
def assemble_row(Q_IG, D_m, tau, Y_I, D_ups, ups_d, cols, Y, R):  # pragma: no cover - compiled
    """Regressor rows ``Y`` (n, n_drv + n_I + n_F) and right-hand sides ``R`` (n,) of one sample.

    Parameters
    ----------
    Q_IG : ndarray, shape (n,)
        Known part of ``Q_I + Q_G`` [N m].
    D_m : ndarray, shape (n_drv, n)
        Drive map (``Q_m = D_m^T tau``).
    tau : ndarray, shape (n_drv,)
        Measured drive torques [N m].
    Y_I : ndarray, shape (n, n_I)
        Inertial columns (may have no columns).
    D_ups, ups_d : ndarray
        Friction joints' Jacobian (n_ups, n) and velocities (n_ups,).
    cols : ndarray, shape (n_F, 3), int64
        Friction model columns.
    """
    n = Q_IG.shape[0]
    n_drv = D_m.shape[0]
    n_i = Y_I.shape[1]
    for i in range(n):
        R[i] = Q_IG[i]
        for d in range(n_drv):
            Y[i, d] = -D_m[d, i] * tau[d]
        for c in range(n_i):
            Y[i, n_drv + c] = Y_I[i, c]
    friction_regressor(D_ups, ups_d, cols, Y, n_drv + n_i)
