"""Paper 002's 3-RRR as an MJCF model, built from its robot file alone.

Three open RR chains from the grounded drive joints ``D_i`` (``data/robots/three_rrr.toml``): a
driving link on an actuated hinge ``th_i`` and a passive link on a hinge at its far end; the
passive links meet at the platform point ``p``. MuJoCo closes the mechanism by two equality
constraints of type ``connect``, tip 2 and tip 3 on tip 1. The three passive joints at ``p`` share
one axis, so these point constraints leave every relative rotation there free, as in the paper.

Inertia, as the symbolic model's ``M* = diag(I_D + I_r, I_B, m_D, m_B, m_p)``
(:mod:`paperlib.symbolic.three_rrr`): link masses at ``r_D``, ``r_B`` along their links with
barycentric ``I_D``, ``I_B``; the drive's reflected rotor and gearbox inertia ``I_r`` as MuJoCo's
``armature`` of the actuated hinge (an inertia on the joint coordinate itself, which is what
``I_r`` is); the platform's ``m_p`` as a point mass at the tip of chain 1.

Coordinates (``qpos``, :data:`JOINTS`): ``th1``, ``b1 = thb1 - th1``, ``th2``, ``b2``, ``th3``, ``b3`` [rad].
Motors ``m1..m3`` act on ``th_i`` with gear 1 (joint-side torques, as the twin's drives).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.crosscheck.mjcf import POINT_INERTIA_KG_M2, MjcfOptions, closure_attrs, header
from paperlib.crosscheck.mjcf import fmt as _f

__all__ = ["JOINTS", "ACTUATED", "three_rrr_mjcf", "qpos_qvel"]

#: MuJoCo joint names in ``qpos`` order.
JOINTS = ("th1", "b1", "th2", "b2", "th3", "b3")
#: Places of the actuated angles th_1..th_3 in ``qpos``.
ACTUATED = (0, 2, 4)


def three_rrr_mjcf(robot: Any, options: MjcfOptions | None = None) -> str:
    """MJCF text of the 3-RRR described by ``robot`` (a :class:`paperlib.robots.three_rrr.ThreeRRR`).

    ``options``: :class:`~paperlib.crosscheck.mjcf.MjcfOptions` (step, integrator, the
    closures' solref/solimp; the joint-friction entries are not used here).
    """
    o = options or MjcfOptions()
    P = {n: robot.param(n) for n in robot.param_names}
    pin = _f(POINT_INERTIA_KG_M2)

    def chain(i: int) -> str:
        tip = ""
        if i == 1:
            tip = (f'<body name="platform" pos="{_f(P["lB1"])} 0 0"><inertial pos="0 0 0" mass="{_f(P["m_p"])}" '
                   f'diaginertia="{pin} {pin} {pin}"/></body>')
        ID, IB = P[f"ID{i}"], P[f"IB{i}"]
        return (
            f'<body name="driving{i}" pos="{_f(P[f"xD{i}"])} {_f(P[f"yD{i}"])} 0">'
            f'<joint name="th{i}" type="hinge" axis="0 0 1" armature="{_f(P[f"Ir{i}"])}"/>'
            f'<inertial pos="{_f(P[f"rD{i}"])} 0 0" mass="{_f(P[f"mD{i}"])}" diaginertia="{_f(ID)} {_f(ID)} {_f(ID)}"/>'
            f'<body name="passive{i}" pos="{_f(P[f"lD{i}"])} 0 0">'
            f'<joint name="b{i}" type="hinge" axis="0 0 1"/>'
            f'<inertial pos="{_f(P[f"rB{i}"])} 0 0" mass="{_f(P[f"mB{i}"])}" diaginertia="{_f(IB)} {_f(IB)} {_f(IB)}"/>'
            f'<site name="tip{i}" pos="{_f(P[f"lB{i}"])} 0 0"/>{tip}</body></body>')

    eq = "".join(f'<connect name="closure{i}" site1="tip1" site2="tip{i}" {closure_attrs(o)}/>' for i in (2, 3))
    motors = "".join(f'<motor name="m{i}" joint="th{i}" gear="1"/>' for i in (1, 2, 3))
    return (f'{header(robot, o)}<worldbody>{chain(1)}{chain(2)}{chain(3)}</worldbody>'
            f'<equality>{eq}</equality><actuator>{motors}</actuator></mujoco>')


def qpos_qvel(robot: Any, p: Any, pd: Any) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo coordinates (6,) and rates (6,) of the closed 3-RRR at platform point p [m], velocity pd [m/s]."""
    p = np.asarray(p, dtype=float)
    th = robot.ik(p)
    thb = robot.passive_angles(p)
    D_chi = robot.jacobians(p)
    rates = D_chi[:6] @ np.asarray(pd, dtype=float)
    qpos, qvel = np.empty(6), np.empty(6)
    qpos[0::2], qpos[1::2] = th, thb - th
    qvel[0::2], qvel[1::2] = rates[:3], rates[3:6] - rates[:3]
    return qpos, qvel
