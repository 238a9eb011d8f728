"""Symbolic model of the 3-RRR planar parallel robot of paper 002 (eqs. 1-37).

Three RR chains, grounded at ``D_i`` (Table 1) and actuated there (angles ``th_i``), meet
at one point ``O = p = (px, py)`` through passive joints (distal angles ``thb_i``, all angles
absolute, from the x axis, as the paper's eqs. 1-2). The mechanism has two degrees of
freedom and three drives: it is redundantly actuated.

Coordinates: the *platform point* ``p`` is the independent coordinate (the paper's
``(x_o, y_o)``; its Jacobian ``J`` of eq. 10 maps ``p_dot`` to the six joint rates). The six
angles are dependent, bound by the loop closures ``D_i + l_Di u(th_i) + l_Bi u(thb_i) - p = 0``
(eq. 1; three independent 2x2 blocks of ``Phi_z``, inverted block by block by
:class:`~paperlib.symbolic.closed_chain.ClosedChain`).

Dynamics in the 5R's form (eqs. 26-37 rewritten with absolute coordinates)::

    chi = (th_1..3, thb_1..3, c_D1..3 (x, y), c_B1..3 (x, y), p (x, y))      (20,)
    M*  = diag(I_D1 + I_r1, ..., I_B1..3, m_D1, m_D1, ..., m_B1, m_B1, ..., m_p, m_p)
    M_s = D_chi^T M* D_chi,   C_s = D_chi^T M* dD_chi/dt                     (2, 2)

``M_s`` and ``C_s`` equal the paper's ``J^T M J`` and ``J^T (M J' + C J)`` (eq. 36): the
paper's 6x6 ``M`` is this ``M*`` expressed in the joint angles. ``I_D`` and ``I_B`` are
barycentric; ``I_r`` is the drive's rotor and gearbox inertia reflected to the joint.
Rows 0-2 of ``D_chi`` are the actuated Jacobian ``J_a`` (3, 2): ``th_dot = J_a p_dot``, so
drive torques ``tau`` (3,) act on the platform as ``J_a^T tau`` and the paper's eq. 37 is
the minimum-norm distribution ``tau = (J_a^T)^+ (M_s p_dd + C_s p_dot)``.
The plane is horizontal: no gravity.

The numeric preamble solves the inverse position problem chain by chain (two-link inverse
kinematics, the elbow on the side ``sigma_i`` of the line ``D_i -> p``: ``+1`` to the
left) and guards each chain's serial singularity (link aligned, ``sin(thb_i - th_i) = 0``,
the boundary of the workspace).
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from paperlib.symbolic.closed_chain import ClosedChain, trig_partials
from paperlib.symbolic.emit import KernelSpec

#: Parameter vector layout of the generated kernels (SI units).
PARAM_NAMES: tuple[str, ...] = (
    "xD1", "yD1", "xD2", "yD2", "xD3", "yD3",
    "lD1", "lD2", "lD3", "lB1", "lB2", "lB3",
    "rD1", "rD2", "rD3", "rB1", "rB2", "rB3",
    "mD1", "mD2", "mD3", "mB1", "mB2", "mB3",
    "ID1", "ID2", "ID3", "IB1", "IB2", "IB3",
    "Ir1", "Ir2", "Ir3", "m_p",
    "sigma1", "sigma2", "sigma3",
)

#: |sin(thb_i - th_i)| below which a chain counts as stretched or folded (serial singularity).
SINGULARITY_TOL = 1e-6

N_CHI = 20
N_DRIVES = 3


def _preamble_position() -> str:
    lines = []
    for i in (1, 2, 3):
        lines += [
            f"dx{i} = px - xD{i}",
            f"dy{i} = py - yD{i}",
            f"dd{i} = dx{i}*dx{i} + dy{i}*dy{i}",
            f"if dd{i} <= 0.0:",
            "    return 1",
            f"rr{i} = math.sqrt(dd{i})",
            f"aa{i} = (lD{i}*lD{i} - lB{i}*lB{i} + dd{i})/(2.0*rr{i})",
            f"hh{i} = lD{i}*lD{i} - aa{i}*aa{i}",
            f"if hh{i} < 0.0:",
            f"    return 1  # chain {i} cannot reach p: outside the workspace",
            f"hi{i} = math.sqrt(hh{i})",
            f"bx{i} = xD{i} + (aa{i}*dx{i} - sigma{i}*hi{i}*dy{i})/rr{i}",
            f"by{i} = yD{i} + (aa{i}*dy{i} + sigma{i}*hi{i}*dx{i})/rr{i}",
            f"c{i} = (bx{i} - xD{i})/lD{i}",
            f"s{i} = (by{i} - yD{i})/lD{i}",
            f"cb{i} = (px - bx{i})/lB{i}",
            f"sb{i} = (py - by{i})/lB{i}",
            f"det{i} = lD{i}*lB{i}*(sb{i}*c{i} - s{i}*cb{i})  # det of block {i}: lD lB sin(thb - th)",
            f"if abs(det{i}) < {SINGULARITY_TOL!r}*lD{i}*lB{i}:",
            f"    return 2  # chain {i} stretched or folded: serial singularity",
            f"idet{i} = 1.0/det{i}",
        ]
    return "\n".join(lines) + "\n"


_PREAMBLE_ANGLES = "\n".join(
    [f"th{i} = math.atan2(s{i}, c{i})\nthb{i} = math.atan2(sb{i}, cb{i})" for i in (1, 2, 3)]
) + "\n"


class ThreeRRRModel:
    """The 3-RRR's symbolic quantities, built once (a few seconds)."""

    def __init__(self) -> None:
        S = sp.Symbol
        self.params = [S(n) for n in PARAM_NAMES]
        P = dict(zip(PARAM_NAMES, self.params))
        self.q = [S("px"), S("py")]
        self.qd = [S("pxd"), S("pyd")]
        self.qdd = [S("pxdd"), S("pydd")]
        th = [S(f"th{i}") for i in (1, 2, 3)]
        thb = [S(f"thb{i}") for i in (1, 2, 3)]
        self.th, self.thb = th, thb
        self.z = [a for pair in zip(th, thb) for a in pair]  # th1, thb1, th2, thb2, th3, thb3
        self.zd = [S(f"zd{k + 1}") for k in range(6)]
        c = [S(f"c{i}") for i in (1, 2, 3)]
        s = [S(f"s{i}") for i in (1, 2, 3)]
        cb = [S(f"cb{i}") for i in (1, 2, 3)]
        sb = [S(f"sb{i}") for i in (1, 2, 3)]
        self.inv_dets = [S(f"idet{i}") for i in (1, 2, 3)]
        self.position_symbols = set(c + s + cb + sb + self.inv_dets)

        partials: dict = {}
        for i in range(3):
            partials.update(trig_partials(th[i], c[i], s[i]))
            partials.update(trig_partials(thb[i], cb[i], sb[i]))
        px, py = self.q
        partials[px] = {px: sp.S.One}
        partials[py] = {py: sp.S.One}

        p = sp.Matrix([px, py])
        rows = []
        cd, cbm = [], []
        for i in range(3):
            k = i + 1
            D = sp.Matrix([P[f"xD{k}"], P[f"yD{k}"]])
            u = sp.Matrix([c[i], s[i]])
            ub = sp.Matrix([cb[i], sb[i]])
            B = D + P[f"lD{k}"] * u
            rows.append(B + P[f"lB{k}"] * ub - p)  # eq. 1
            cd.append(D + P[f"rD{k}"] * u)  # eq. 17
            cbm.append(B + P[f"rB{k}"] * ub)
        constraints = sp.Matrix.vstack(*rows)
        blocks = [([2 * i, 2 * i + 1], [2 * i, 2 * i + 1], self.inv_dets[i]) for i in range(3)]
        self.chain = ClosedChain(
            q=self.q, qd=self.qd, z=self.z, zd=self.zd, partials=partials,
            constraints=constraints, inv_det=None, blocks=blocks, prefix="Dz",
        )
        # The preamble's numeric block dets must be the symbolic ones.
        for i, det in enumerate(self.chain.block_dets()):
            k = i + 1
            num = P[f"lD{k}"] * P[f"lB{k}"] * (sb[i] * c[i] - s[i] * cb[i])
            if sp.expand(det - num) != 0:
                raise AssertionError(f"preamble det of chain {k} does not match det(Phi_z block)")
        self.stages = self.chain.stages()

        self.chi = sp.Matrix([*th, *thb, *[x for v in cd for x in v], *[x for v in cbm for x in v], px, py])
        diag = [P[f"ID{k}"] + P[f"Ir{k}"] for k in (1, 2, 3)] + [P[f"IB{k}"] for k in (1, 2, 3)]
        diag += [P[f"mD{k}"] for k in (1, 2, 3) for _ in (0, 1)]
        diag += [P[f"mB{k}"] for k in (1, 2, 3) for _ in (0, 1)]
        diag += [P["m_p"], P["m_p"]]
        self.M_star = sp.diag(*diag)
        self.D_chi = self.chain.jacobian(self.chi)
        self.Dd_chi = self.chain.dt_matrix(self.D_chi)
        pd = sp.Matrix(self.qd)
        pdd = sp.Matrix(self.qdd)
        MD = self.M_star * self.D_chi
        self.M = self.D_chi.T * MD  # M_s, eq. 36
        self.C = MD.T * self.Dd_chi  # C_s, eq. 36
        self.Cpd = self.C * pd
        self.F = MD.T * (self.D_chi * pdd + self.Dd_chi * pd)  # M_s p_dd + C_s p_dot
        self.J_a = self.D_chi[0:3, :]
        self.qd_a = self.J_a * pd

    # -- kernels -----------------------------------------------------------------------------
    def kernels(self) -> list[KernelSpec]:
        """The generated kernels for the 3-RRR (see each docstring)."""
        p_in = ("p", self.q)
        pd_in = ("pd", self.qd)
        pdd_in = ("pdd", self.qdd)
        prm_in = ("prm", self.params)
        pre = _preamble_position()
        status = (
            "Returns 0 when valid, 1 outside the workspace (a chain cannot reach p), "
            "2 at a serial singularity (a chain stretched or folded)."
        )
        common = dict(stages=self.stages)
        return [
            KernelSpec(
                name="positions",
                doc=("Inverse position kinematics at the platform point p (2,) [m].\n\n    Writes ``chi`` (20,): "
                     "actuated angles th_1..3, distal angles thb_1..3 [rad], centres of mass of the\n    driving "
                     "links, of the passive links (x, y each) and p [m].\n    " + status),
                inputs=[p_in, prm_in], preamble=pre + _PREAMBLE_ANGLES,
                outputs=[("chi", self.chi)], vector_outputs={"chi"}, stages=[],
            ),
            KernelSpec(
                name="jacobians",
                doc=("Jacobian ``D_chi`` (20, 2) of chi with respect to p; rows 0-2 are the actuated\n    "
                     "Jacobian J_a [rad/m], rows 3-5 the passive one (together the paper's J, eq. 10).\n    "
                     + status),
                inputs=[p_in, prm_in], preamble=pre,
                outputs=[("D_chi", self.D_chi)], **common,
            ),
            KernelSpec(
                name="jacobian_rates",
                doc="Time derivative dD_chi/dt (20, 2) along the platform velocity pd (2,) [m/s].\n    " + status,
                inputs=[p_in, pd_in, prm_in], preamble=pre,
                outputs=[("Dd_chi", self.Dd_chi)], **common,
            ),
            KernelSpec(
                name="mass_matrix",
                doc="Platform mass matrix M_s (2, 2) [kg] of eq. 36, D_chi^T M* D_chi.\n    " + status,
                inputs=[p_in, prm_in], preamble=pre,
                outputs=[("M", self.M)], symmetric_outputs={"M"}, **common,
            ),
            KernelSpec(
                name="coriolis_matrix",
                doc="Matrix C_s (2, 2) [kg/s] of eq. 36, D_chi^T M* dD_chi/dt.\n    " + status,
                inputs=[p_in, pd_in, prm_in], preamble=pre,
                outputs=[("C", self.C)], **common,
            ),
            KernelSpec(
                name="inverse_dynamics",
                doc=("Platform force F = M_s pdd + C_s pd (2,) [N], the actuated Jacobian J_a (3, 2)\n    "
                     "[rad/m] and the drive rates qd_a = J_a pd (3,) [rad/s]; the minimum-norm drive\n    "
                     "torques of eq. 37 are (J_a^T)^+ F.\n    " + status),
                inputs=[p_in, pd_in, pdd_in, prm_in], preamble=pre,
                outputs=[("F", self.F), ("J_a", self.J_a), ("qd_a", self.qd_a)],
                vector_outputs={"F", "qd_a"}, **common,
            ),
            KernelSpec(
                name="mass_bias",
                doc=("M_s (2, 2) [kg] and Cpd = C_s pd (2,) [N] only (the kernel set's ``robot_dynamics``:\n    "
                     "M_s pdd + C_s pd = Q, no gravity in the horizontal plane).\n    " + status),
                inputs=[p_in, pd_in, prm_in], preamble=pre,
                outputs=[("M", self.M), ("Cpd", self.Cpd)],
                symmetric_outputs={"M"}, vector_outputs={"Cpd"}, **common,
            ),
            KernelSpec(
                name="dynamics_terms",
                doc=("Forward-dynamics terms: M_s (2, 2) [kg], Cpd = C_s pd (2,) [N], J_a (3, 2) [rad/m],\n    "
                     "qd_a = J_a pd (3,) [rad/s]; M_s pdd = J_a^T (tau - tau_F) - C_s pd.\n    " + status),
                inputs=[p_in, pd_in, prm_in], preamble=pre,
                outputs=[("M", self.M), ("Cpd", self.Cpd), ("J_a", self.J_a), ("qd_a", self.qd_a)],
                symmetric_outputs={"M"}, vector_outputs={"Cpd", "qd_a"}, **common,
            ),
        ]

    def preamble_symbols(self, kernel: KernelSpec) -> set[sp.Symbol]:
        """Symbols defined by a kernel's preamble."""
        syms = set(self.position_symbols)
        if "atan2" in kernel.preamble:
            syms |= set(self.th) | set(self.thb)
        return syms


# -- codegen interface of the kind (paperlib/symbolic/module_text.py) ------------------------------
def kernel_module(robot: str, toml: Path) -> str:
    """Source text of ``paperlib/kernels/<robot>.py`` (the geometry is a parameter: one text for any 3-RRR)."""
    from paperlib.symbolic.module_text import closed_chain_module

    about = [
        "# 3-RRR redundantly actuated planar parallel robot (paper 002, eqs. 1-37): the platform",
        "# point p is the independent coordinate; the three RR chains' loop closures are",
        "# differentiated implicitly and solved as three 2x2 blocks inside each kernel.",
        "# Every kernel writes into preallocated arrays and returns a status (0 valid,",
        "# 1 outside the workspace, 2 serial singularity of a chain). Compiled without numba's",
        "# reference counting (``_nrt=False``: they allocate nothing; see paperlib/_jit.py).",
    ]
    constants = [
        f"PARAM_NAMES = {tuple(PARAM_NAMES)!r}",
        f"N_PARAMS = {len(PARAM_NAMES)}",
        f"N_CHI = {N_CHI}",
        f"N_DRIVES = {N_DRIVES}",
        f"SINGULARITY_TOL = {SINGULARITY_TOL!r}",
        "STATUS_OK = 0",
        "STATUS_OUTSIDE = 1",
        "STATUS_SINGULAR = 2",
    ]
    return closed_chain_module(ThreeRRRModel(), Path(__file__), about, constants,
                               "Generated numba kernels of the 3-RRR planar parallel robot (see header).")


#: Q_I = -(M_s pdd + C_s pd) (horizontal: no gravity); the drives are the friction joints
_TERMS = """\
s = {K}.inverse_dynamics(q, qd, qdd, prm, R, D_ups, ups_d)
for i in range(R.shape[0]):
    R[i] = -R[i]
for d in range(D_ups.shape[0]):
    for i in range(D_ups.shape[1]):
        D_m[d, i] = D_ups[d, i]
return s"""


def kernel_set(robot: str, toml: Path):
    """The 3-RRR's branch of the kernel-set dispatch.

    Coordinates the platform point p (2,); drives and friction joints the three actuated joints
    (passive joints frictionless): D_m = D_ups = J_a (3, 2), ups_d = J_a p_dot.
    """
    from paperlib.symbolic.module_text import KernelSetCode

    return KernelSetCode(
        n_joints=2, n_drives=N_DRIVES, n_ups=N_DRIVES, n_inertial=0, n_params=len(PARAM_NAMES), terms=_TERMS,
        dynamics="return {K}.mass_bias(q, qd, prm, M, h)",
        state_terms="return {K}.dynamics_terms(q, qd, prm, M, h, D_ups, ups_d)")
