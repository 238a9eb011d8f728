"""The 5R as an MJCF model (MuJoCo's XML), built from the robot file alone.

The mechanism of the flagship paper (Section 3.1; ``data/robots/five_bar.toml``) as MuJoCo sees it:
two open chains from the base joints ``s1 = (-l_f/2, 0)`` and ``s2 = (+l_f/2, 0)``, each a
proximal body on an actuated hinge and a distal body on a passive hinge at the elbow ``e_i``; the
loop closes at the end point ``p`` by an equality constraint of type ``connect`` between a site at
the tip of each distal link (the passive hinge psi_4 is that point constraint: it leaves the
relative rotation free). Every hinge turns about the world z axis; the plane is horizontal.

Inertia, as the paper's ``M* = diag(I_p1, I_p2, I_d1, I_d2, m_d1, m_d1, m_d2, m_d2, m_p, m_p)``
(eq. 44) states it:

* proximal link i: a body whose centre of mass lies on its (fixed) hinge axis, with the moment
  of inertia ``I_p,i`` about z. The paper's ``I_p`` already holds the motor, gearbox and the
  masses at the elbow (Table 2), so the reflected rotor inertia is NOT added again as MuJoCo
  ``armature`` (the twin does not add it either). The body's mass (:data:`PROXIMAL_MASS_KG`)
  sits on the fixed axis and cannot move: it changes no motion in the plane;
* distal link i: mass ``m_d,i`` at ``r_d,i`` in the link frame, barycentric ``I_d,i`` about z;
* the end point: a point mass ``m_p`` welded to the tip of distal link 1 (the paper puts it at
  ``p = e1 + l_d1 u(phi1)``), with a vanishing rotational inertia (:data:`POINT_INERTIA_KG_M2`).

Out-of-plane inertias (x, y) are set equal to the z value: they satisfy MuJoCo's triangle
inequality and play no role, since nothing turns about x or y.

Coordinates of the MuJoCo model (``qpos``, :data:`JOINTS`): ``q1``, ``r1 = phi1 - q1``, ``q2``,
``r2 = phi2 - q2`` [rad]. The paper's internal angles are linear in them, ``psi = PSI_CONST +
PSI_JACOBIAN qpos`` (:data:`PSI_JACOBIAN`), which is how friction torques of the five joints become
generalized forces (``qfrc = -PSI_JACOBIAN^T F``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.crosscheck.mjcf import POINT_INERTIA_KG_M2, MjcfOptions, closure_attrs, header
from paperlib.crosscheck.mjcf import fmt as _f

__all__ = ["JOINTS", "PSI_JACOBIAN", "PSI_CONST", "PROXIMAL_MASS_KG", "POINT_INERTIA_KG_M2", "MjcfOptions",
           "five_bar_mjcf", "qpos_qvel"]

#: MuJoCo joint names, in ``qpos`` order: actuated q1, passive elbow r1 = phi1 - q1, actuated q2, r2 = phi2 - q2.
JOINTS = ("q1", "r1", "q2", "r2")

#: d psi / d qpos (5, 4): psi1 = q1, psi2 = pi - q2, psi3 = pi - phi2 + q2 = pi - r2,
#: psi4 = phi2 - phi1 = q2 + r2 - q1 - r1, psi5 = pi - q1 + phi1 = pi + r1 (the paper's internal angles).
PSI_JACOBIAN = np.array([
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, -1.0, 0.0],
    [0.0, 0.0, 0.0, -1.0],
    [-1.0, -1.0, 1.0, 1.0],
    [0.0, 1.0, 0.0, 0.0],
])
#: psi at qpos = 0 [rad] (psi = PSI_CONST + PSI_JACOBIAN qpos).
PSI_CONST = np.array([0.0, np.pi, np.pi, 0.0, np.pi])

#: Mass of each proximal body [kg]: on its fixed hinge axis, so it has no effect on the motion
#: (the paper's I_p holds everything that turns with the link).
PROXIMAL_MASS_KG = 1.0
def five_bar_mjcf(robot: Any, options: MjcfOptions | None = None) -> str:
    """MJCF text of the 5R described by ``robot`` (a :class:`paperlib.robots.five_bar.FiveBar`).

    Parameters
    ----------
    robot : FiveBar
        Geometry, inertia, gear ratios and gravity are read from its parameters and description.
    options : MjcfOptions, optional
        Step, integrator and constraint settings (default :class:`MjcfOptions`).

    Returns
    -------
    str
        The model, with two motor actuators ``m1``, ``m2`` on q1, q2 whose gear is the reduction
        ``iota`` (``ctrl`` = motor torque [N m]) and a ``connect`` constraint ``closure``.
    """
    o = options or MjcfOptions()
    P = {n: robot.param(n) for n in robot.param_names}
    tc, zeta = (float(x) for x in o["solref"])

    floss = [float(x) for x in o["frictionloss_Nm"]]
    damp = [float(x) for x in o["damping_Nm_s_per_rad"]]
    if len(floss) != 4 or len(damp) != 4 or min(floss + damp) < 0:
        raise ValueError("frictionloss_Nm and damping_Nm_s_per_rad need 4 values >= 0 (joints q1, r1, q2, r2)")

    def joint(name: str) -> str:
        k = JOINTS.index(name)
        return (f'<joint name="{name}" type="hinge" axis="0 0 1" frictionloss="{_f(floss[k])}" '
                f'damping="{_f(damp[k])}" solreffriction="{_f(tc)} {_f(zeta)}"/>')

    def link(i: int) -> str:
        s = -1.0 if i == 1 else 1.0
        I_p, I_d, m_d = P[f"I_p{i}"], P[f"I_d{i}"], P[f"m_d{i}"]
        r = (P[f"r_d{i}x"], P[f"r_d{i}y"])
        tip = ""
        if i == 1:
            tip = (f'<body name="end" pos="{_f(P["l_d1"])} 0 0">'
                   f'<inertial pos="0 0 0" mass="{_f(P["m_p"])}" diaginertia="{_f(POINT_INERTIA_KG_M2)} '
                   f'{_f(POINT_INERTIA_KG_M2)} {_f(POINT_INERTIA_KG_M2)}"/></body>')
        return (
            f'<body name="proximal{i}" pos="{_f(s * 0.5 * P["l_f"])} 0 0">'
            f'{joint(f"q{i}")}'
            f'<inertial pos="0 0 0" mass="{_f(PROXIMAL_MASS_KG)}" diaginertia="{_f(I_p)} {_f(I_p)} {_f(I_p)}"/>'
            f'<body name="distal{i}" pos="{_f(P[f"l_p{i}"])} 0 0">'
            f'{joint(f"r{i}")}'
            f'<inertial pos="{_f(r[0])} {_f(r[1])} 0" mass="{_f(m_d)}" diaginertia="{_f(I_d)} {_f(I_d)} {_f(I_d)}"/>'
            f'<site name="tip{i}" pos="{_f(P[f"l_d{i}"])} 0 0"/>{tip}</body></body>')

    return (
        f'{header(robot, o)}<worldbody>{link(1)}{link(2)}</worldbody>'
        f'<equality><connect name="closure" site1="tip1" site2="tip2" {closure_attrs(o)}/></equality>'
        f'<actuator><motor name="m1" joint="q1" gear="{_f(P["iota1"])}"/>'
        f'<motor name="m2" joint="q2" gear="{_f(P["iota2"])}"/></actuator>'
        '</mujoco>')


def qpos_qvel(robot: Any, q: Any, qd: Any) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo coordinates (4,) and rates (4,) of the closed 5R at actuated angles q [rad], rates qd [rad/s].

    The distal angles and their rates come from the robot's forward kinematics (the paper's branch).
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    _, phi = robot.fk(q)
    D_chi, _ = robot.jacobians(q)
    phid = D_chi[2:4] @ qd
    qpos = np.array([q[0], phi[0] - q[0], q[1], phi[1] - q[1]])
    qvel = np.array([qd[0], phid[0] - qd[0], qd[1], phid[1] - qd[1]])
    return qpos, qvel
