"""Symbolic model of the 5R planar parallel robot (flagship paper, Section 3.1, eqs. 24-46).

Symbols follow the paper: actuated angles ``q1, q2``; distal angles ``phi1, phi2``
(dependent coordinates); end point ``p``; elbows ``e1, e2`` (eqs. 24-25); internal
angles ``psi1..psi5``; ``chi`` of eq. 42; ``M* = diag(I_p1, I_p2, I_d1, I_d2, m_d1,
m_d1, m_d2, m_d2, m_p, m_p)`` (eq. 44); ``M = D_chi^T M* D_chi`` (eq. 45);
``C = D_chi^T M* dD_chi/dt`` (eq. 46); ``Q_I = -D_chi^T M* (D_chi qdd + dD_chi/dt qd)``;
drive Jacobian ``D_m = diag(iota1, iota2)`` (``Q_m = diag(iota) tau_m``, Section 3.1 end).
The plane is horizontal, so ``Q_G = 0``.

The loop closure is written in the distal angles, ``e1 + l_d1 u(phi1) = e2 + l_d2 u(phi2)``
(equivalent to eqs. 26-27), and differentiated implicitly (:mod:`.closed_chain`).
The numeric preamble solves the position problem once per call: the circle
intersection of eqs. 26-27 on the branch with the larger ``p_y`` (the paper's choice;
the sign of the root follows ``e2x - e1x`` so the branch is right when the elbows swap).
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from paperlib.symbolic.closed_chain import ClosedChain, trig_partials
from paperlib.symbolic.emit import KernelSpec

#: Parameter vector layout of the generated kernels (names are Python identifiers).
PARAM_NAMES: tuple[str, ...] = (
    "l_f", "l_p1", "l_p2", "l_d1", "l_d2",
    "r_d1x", "r_d1y", "r_d2x", "r_d2y",
    "I_p1", "I_p2", "I_d1", "I_d2", "m_d1", "m_d2", "m_p",
    "iota1", "iota2",
)

#: Relative |sin(phi1 - phi2)| below which a configuration counts as parallel-singular.
SINGULARITY_TOL = 1e-6

N_CHI = 10
N_PSI = 5

_PREAMBLE_POSITION = f"""
c1 = math.cos(q1)
s1 = math.sin(q1)
c2 = math.cos(q2)
s2 = math.sin(q2)
e1x = l_p1*c1 - 0.5*l_f
e1y = l_p1*s1
e2x = l_p2*c2 + 0.5*l_f
e2y = l_p2*s2
dx = e2x - e1x
dy = e2y - e1y
dd = dx*dx + dy*dy
if dd <= 0.0:
    return 1
ln = math.sqrt(dd)
a = (l_d1*l_d1 - l_d2*l_d2 + dd)/(2.0*ln)
hh = l_d1*l_d1 - a*a
if hh < 0.0:
    return 1  # the distal links cannot close the loop: outside the workspace
h_int = math.sqrt(hh)
sgn = 1.0 if dx >= 0.0 else -1.0  # root with the larger p_y (eqs. 26-27), also when e2x < e1x
p1 = e1x + (a*dx - sgn*h_int*dy)/ln
p2 = e1y + (a*dy + sgn*h_int*dx)/ln
cf1 = (p1 - e1x)/l_d1
sf1 = (p2 - e1y)/l_d1
cf2 = (p1 - e2x)/l_d2
sf2 = (p2 - e2y)/l_d2
det = l_d1*l_d2*(sf1*cf2 - cf1*sf2)  # det(Phi_z) = l_d1 l_d2 sin(phi1 - phi2)
if abs(det) < {SINGULARITY_TOL!r}*l_d1*l_d2:
    return 2  # parallel singularity: distal links aligned
idet = 1.0/det
"""

_PREAMBLE_ANGLES = """
phi1 = math.atan2(sf1, cf1)
phi2 = math.atan2(sf2, cf2)
"""


class FiveBarModel:
    """The 5R's symbolic quantities, built once (about a second)."""

    def __init__(self) -> None:
        S = sp.Symbol
        self.params = [S(n) for n in PARAM_NAMES]
        (l_f, l_p1, l_p2, l_d1, l_d2, r_d1x, r_d1y, r_d2x, r_d2y,
         I_p1, I_p2, I_d1, I_d2, m_d1, m_d2, m_p, iota1, iota2) = self.params
        self.q = [S("q1"), S("q2")]
        self.qd = [S("qd1"), S("qd2")]
        self.qdd = [S("qdd1"), S("qdd2")]
        self.phi = [S("phi1"), S("phi2")]
        self.zd = [S("zd1"), S("zd2")]
        c1, s1, c2, s2 = S("c1"), S("s1"), S("c2"), S("s2")
        cf1, sf1, cf2, sf2 = S("cf1"), S("sf1"), S("cf2"), S("sf2")
        self.trig = [c1, s1, c2, s2, cf1, sf1, cf2, sf2]
        self.inv_det = S("idet")
        # preamble-defined numeric symbols
        self.position_symbols = {c1, s1, c2, s2, cf1, sf1, cf2, sf2, self.inv_det}

        partials: dict = {}
        partials.update(trig_partials(self.q[0], c1, s1))
        partials.update(trig_partials(self.q[1], c2, s2))
        partials.update(trig_partials(self.phi[0], cf1, sf1))
        partials.update(trig_partials(self.phi[1], cf2, sf2))

        # eqs. 24-25: elbows; eq. 38-39: distal centres of mass; p from link 1
        e1 = sp.Matrix([l_p1 * c1 - l_f / 2, l_p1 * s1])
        e2 = sp.Matrix([l_p2 * c2 + l_f / 2, l_p2 * s2])
        u1 = sp.Matrix([cf1, sf1])
        u2 = sp.Matrix([cf2, sf2])
        A1 = sp.Matrix([[cf1, -sf1], [sf1, cf1]])
        A2 = sp.Matrix([[cf2, -sf2], [sf2, cf2]])
        cd1 = e1 + A1 * sp.Matrix([r_d1x, r_d1y])
        cd2 = e2 + A2 * sp.Matrix([r_d2x, r_d2y])
        p = e1 + l_d1 * u1
        self.e1, self.e2, self.p = e1, e2, p

        self.chain = ClosedChain(
            q=self.q, qd=self.qd, z=self.phi, zd=self.zd, partials=partials,
            constraints=e1 + l_d1 * u1 - e2 - l_d2 * u2, inv_det=self.inv_det,
        )
        # The preamble's numeric det must be the symbolic det(Phi_z).
        det_numeric = l_d1 * l_d2 * (sf1 * cf2 - cf1 * sf2)
        if sp.expand(self.chain.det_phi_z() - det_numeric) != 0:
            raise AssertionError("preamble det does not match det(Phi_z)")
        self.stages = self.chain.stages()

        q1, q2 = self.q
        phi1, phi2 = self.phi
        # eq. 42
        self.chi = sp.Matrix([q1, q2, phi1, phi2, cd1[0], cd1[1], cd2[0], cd2[1], p[0], p[1]])
        # internal angles (Section 3.1): psi1 = q1, psi2 = pi - q2, psi3 = pi - phi2 + q2,
        # psi4 = phi2 - phi1, psi5 = pi - q1 + phi1
        self.psi = sp.Matrix([q1, sp.pi - q2, sp.pi - phi2 + q2, phi2 - phi1, sp.pi - q1 + phi1])
        self.M_star = sp.diag(I_p1, I_p2, I_d1, I_d2, m_d1, m_d1, m_d2, m_d2, m_p, m_p)
        self.D_chi = self.chain.jacobian(self.chi)
        self.Dd_chi = self.chain.dt_matrix(self.D_chi)
        self.D_psi = self.chain.jacobian(self.psi)
        self.Dd_psi = self.chain.dt_matrix(self.D_psi)
        self.D_m = sp.diag(iota1, iota2)
        qd = sp.Matrix(self.qd)
        qdd = sp.Matrix(self.qdd)
        MD = self.M_star * self.D_chi
        self.M = self.D_chi.T * MD
        self.C = MD.T * self.Dd_chi
        self.h = self.C * qd  # C qd, velocity-product terms
        self.Q_I = -(MD.T * (self.D_chi * qdd + self.Dd_chi * qd))
        self.psid = self.D_psi * qd

    # -- kernels -----------------------------------------------------------------------------
    def kernels(self) -> list[KernelSpec]:
        """The generated kernels for the 5R (see each docstring)."""
        q_in = ("q", self.q)
        qd_in = ("qd", self.qd)
        qdd_in = ("qdd", self.qdd)
        prm_in = ("prm", self.params)
        pre = _PREAMBLE_POSITION
        status = (
            "Returns 0 when valid, 1 outside the workspace (the loop cannot close), "
            "2 at the parallel singularity (distal links aligned)."
        )
        common = dict(stages=self.stages)
        return [
            KernelSpec(
                name="fk",
                doc=("Forward position kinematics.\n\n    Writes ``chi`` (10,) of eq. 42 "
                     "[rad, rad, rad, rad, m x 6] and the internal angles ``psi`` (5,) [rad].\n    " + status),
                inputs=[q_in, prm_in], preamble=pre + _PREAMBLE_ANGLES,
                outputs=[("chi", self.chi), ("psi", self.psi)],
                vector_outputs={"chi", "psi"}, stages=[],
            ),
            KernelSpec(
                name="jacobians",
                doc=("Jacobians ``D_chi`` (10, 2) (rows 2-3: D_phi, rows 8-9: D_p) and ``D_psi`` (5, 2) "
                     "of the internal angles, so that chi_dot = D_chi qd.\n    " + status),
                inputs=[q_in, prm_in], preamble=pre,
                outputs=[("D_chi", self.D_chi), ("D_psi", self.D_psi)], **common,
            ),
            KernelSpec(
                name="jacobian_rates",
                doc=("Time derivatives dD_chi/dt (10, 2) and dD_psi/dt (5, 2) [1/s] along qd [rad/s] (eq. 43).\n    "
                     + status),
                inputs=[q_in, qd_in, prm_in], preamble=pre,
                outputs=[("Dd_chi", self.Dd_chi), ("Dd_psi", self.Dd_psi)], **common,
            ),
            KernelSpec(
                name="mass_matrix",
                doc="Mass matrix M (2, 2) [kg m^2] of eq. 45.\n    " + status,
                inputs=[q_in, prm_in], preamble=pre,
                outputs=[("M", self.M)], symmetric_outputs={"M"}, **common,
            ),
            KernelSpec(
                name="coriolis_matrix",
                doc="Matrix C (2, 2) [kg m^2/s] of eq. 46, C = D_chi^T M* dD_chi/dt.\n    " + status,
                inputs=[q_in, qd_in, prm_in], preamble=pre,
                outputs=[("C", self.C)], **common,
            ),
            KernelSpec(
                name="inertial_lagrangian",
                doc=("Inertial Lagrangian components Q_I (2,) [N m] = -(M qdd + C qd), computed as "
                     "-D_chi^T M* (D_chi qdd + dD_chi/dt qd).\n    " + status),
                inputs=[q_in, qd_in, qdd_in, prm_in], preamble=pre,
                outputs=[("Q_I", self.Q_I)], vector_outputs={"Q_I"}, **common,
            ),
            KernelSpec(
                name="dynamics_terms",
                doc=("Forward-dynamics terms: M (2, 2) [kg m^2], Cqd = C qd (2,) [N m], D_psi (5, 2), "
                     "psi_dot (5,) [rad/s]; M qdd = Q_m + Q_F - C qd.\n    " + status),
                inputs=[q_in, qd_in, prm_in], preamble=pre,
                outputs=[("M", self.M), ("Cqd", self.h), ("D_psi", self.D_psi), ("psid", self.psid)],
                symmetric_outputs={"M"}, vector_outputs={"Cqd", "psid"}, **common,
            ),
            KernelSpec(
                name="mass_bias",
                doc=("M (2, 2) [kg m^2] and Cqd = C qd (2,) [N m] only: the inner stages of the plant's "
                     "RK4 step.\n    " + status),
                inputs=[q_in, qd_in, prm_in], preamble=pre,
                outputs=[("M", self.M), ("Cqd", self.h)],
                symmetric_outputs={"M"}, vector_outputs={"Cqd"}, **common,
            ),
            KernelSpec(
                name="row_terms",
                doc=("Everything one regressor row needs: Q_I (2,) [N m], D_m (2, 2), D_psi (5, 2) and "
                     "psi_dot (5,) [rad/s] (the friction regressor of any joint subset and order is "
                     "assembled from these).\n    " + status),
                inputs=[q_in, qd_in, qdd_in, prm_in], preamble=pre,
                outputs=[("Q_I", self.Q_I), ("D_m", self.D_m), ("D_psi", self.D_psi), ("psid", self.psid)],
                vector_outputs={"Q_I", "psid"}, **common,
            ),
        ]

    def preamble_symbols(self, kernel: KernelSpec) -> set[sp.Symbol]:
        """Symbols defined by a kernel's preamble."""
        syms = set(self.position_symbols)
        if "atan2" in kernel.preamble:
            syms |= set(self.phi)
        return syms


# -- codegen interface of the kind (paperlib/symbolic/module_text.py) ------------------------------
def kernel_module(robot: str, toml: Path) -> str:
    """Source text of ``paperlib/kernels/<robot>.py`` (the geometry is a parameter: one text for any 5R)."""
    from paperlib.symbolic.module_text import closed_chain_module

    about = [
        "# 5R planar parallel robot (flagship paper, eqs. 24-46): implicit differentiation of the",
        "# loop closure, solved as 2x2 systems inside each kernel; trigonometric functions once.",
        "# Every kernel writes into preallocated arrays and returns a status (0 valid,",
        "# 1 outside the workspace, 2 parallel singularity). Compiled without numba's reference",
        "# counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py for why).",
    ]
    constants = [
        f"PARAM_NAMES = {tuple(PARAM_NAMES)!r}",
        f"N_PARAMS = {len(PARAM_NAMES)}",
        f"N_CHI = {N_CHI}",
        f"N_PSI = {N_PSI}",
        f"SINGULARITY_TOL = {SINGULARITY_TOL!r}",
        "STATUS_OK = 0",
        "STATUS_OUTSIDE = 1",
        "STATUS_SINGULAR = 2",
    ]
    return closed_chain_module(FiveBarModel(), Path(__file__), about, constants,
                               "Generated numba kernels of the 5R planar parallel robot (see header).")


def kernel_set(robot: str, toml: Path):
    """The 5R's branch of the kernel-set dispatch: joints q (2,), two drives, five friction joints psi."""
    from paperlib.symbolic.module_text import KernelSetCode

    return KernelSetCode(
        n_joints=2, n_drives=2, n_ups=N_PSI, n_inertial=0, n_params=len(PARAM_NAMES),
        terms="return {K}.row_terms(q, qd, qdd, prm, R, D_m, D_ups, ups_d)",
        dynamics="return {K}.mass_bias(q, qd, prm, M, h)",
        state_terms="return {K}.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)")
