"""URDF in and out for the serial arms: the chain of a published URDF (other links merged), writing an arm."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from paperlib.robots.serial.spatial import _inertia_matrix, _transform_inertial, rotation_about, snap
from paperlib.robots.serial.urdf_tree import parse_urdf, select_chain

__all__ = ["read_urdf", "arm_urdf"]


def read_urdf(path: str | Path, base_link: str | None = None,
              tip_link: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The :class:`~paperlib.robots.serial.SerialArm` fields of a URDF as published: the chain from base to tip.

    The whole link tree is read (:func:`~paperlib.robots.serial.urdf_tree.parse_urdf`) and the
    chain chosen in it (:func:`~paperlib.robots.serial.urdf_tree.select_chain`: the only movable
    branch, or the one ``tip_link`` names). Its revolute and continuous joints are the arm's
    joints. Every other link is carried rigidly by the chain body it hangs from, as pinocchio's
    ``buildModelFromUrdf`` (fixed joints) and ``buildReducedModel`` (locked joints) do: links
    behind fixed joints, tool and flange frames, and branches whose joints are locked at zero
    (wheels, gripper fingers, a second arm), their inertials moved into the body's joint frame
    (parallel axis theorem); a fixed transform folds into the next joint's placement. Links
    carried by the base (the root and everything not moved by the chain) are dropped; massless
    frames add nothing. The world frame is the root link's frame (gravity ``-z`` there).

    Parameters
    ----------
    path : str or Path
        URDF file (or its XML text if it starts with ``<``).
    base_link : str, optional
        Link the arm is mounted on (default: the root link).
    tip_link : str, optional
        Last link of the chain (default: found when the tree holds one movable branch).

    Returns
    -------
    fields : dict
        ``name`` (the URDF's ``robot name``, ``"urdf_arm"`` if absent), ``joint_names``, ``R0``,
        ``p0`` [m], ``axes``, ``inertial`` (SI).
    limits : dict
        ``lower``, ``upper`` [rad], ``velocity_limit`` [rad/s], ``effort_limit`` [N m], each
        shape (n,) (``-inf``/``inf`` where the URDF gives none, and for continuous joints).

    Raises
    ------
    ValueError
        Naming the file, the problem and what to pass or change (see
        :mod:`paperlib.robots.serial.urdf_tree`): not XML, an undefined joint type or link, a
        loop, several movable branches, a prismatic or mimic joint on the chain, a mimic joint
        off the chain whose master is on it.
    """
    tree = parse_urdf(path)
    chain, start, _ = select_chain(tree, base_link, tip_link)
    coord = {j.name: k for k, j in enumerate(jj for jj in chain[start:] if jj.is_chain_joint())}
    joints = [j for j in chain[start:] if j.name in coord]
    n = len(joints)

    def locked_value(j: Any) -> float:
        if j.mimic is None:
            return 0.0
        master = tree.joints[j.mimic[0]]
        if master.name in coord:
            raise ValueError(f"{tree.label}: joint {j.name!r} mimics chain joint {master.name!r} but hangs off the chain, "
                             f"so it would move with it; end the chain before {master.name!r} (--tip-link {master.parent}) "
                             "or remove the <mimic> element")
        return j.mimic[1] * locked_value(master) + j.mimic[2]

    R0, p0 = [np.eye(3)] * n, [np.zeros(3)] * n
    inert: list[np.ndarray] = [np.zeros(10)] * n
    # depth first from the root; per link: the chain body carrying it (-1: the base) and its frame
    # in that body's joint frame (x_body = R x_link + p)
    todo = [(tree.root, -1, np.eye(3), np.zeros(3))]
    while todo:
        link, body, R_acc, p_acc = todo.pop()
        for j in reversed(tree.children(link)):
            R_new = R_acc @ j.R
            p_new = R_acc @ j.p + p_acc
            if j.name in coord:
                k = coord[j.name]
                R0[k], p0[k], inert[k] = snap(R_new), p_new, tree.links[j.child].copy()
                todo.append((j.child, k, np.eye(3), np.zeros(3)))
                continue
            if j.type != "fixed":  # locked at its zero position (a mimic joint at its offset)
                theta = locked_value(j)
                if theta != 0.0 and j.type in ("revolute", "continuous"):
                    R_new = R_new @ rotation_about(j.axis, theta)
                elif theta != 0.0 and j.type == "prismatic":
                    p_new = p_new + R_new @ (j.axis / np.linalg.norm(j.axis) * theta)
            if body >= 0:
                inert[body] = inert[body] + _transform_inertial(tree.links[j.child], R_new, p_new)
            todo.append((j.child, body, R_new, p_new))
    limits = {"lower": np.array([j.lower for j in joints]), "upper": np.array([j.upper for j in joints]),
              "velocity_limit": np.array([j.velocity for j in joints]), "effort_limit": np.array([j.effort for j in joints])}
    fields = dict(name=tree.name, joint_names=tuple(j.name for j in joints), R0=np.array(R0), p0=np.array(p0),
                  axes=np.array([j.axis for j in joints]), inertial=np.array(inert))
    return fields, limits


def arm_urdf(arm: Any) -> str:
    """URDF text of a :class:`~paperlib.robots.serial.SerialArm` (for other tools, e.g. pinocchio as a test oracle)."""
    def rpy(R: np.ndarray) -> tuple[float, float, float]:
        pitch = -np.arcsin(np.clip(R[2, 0], -1, 1))
        if abs(np.cos(pitch)) > 1e-9:
            roll = np.arctan2(R[2, 1], R[2, 2])
            yaw = np.arctan2(R[1, 0], R[0, 0])
        else:
            roll, yaw = np.arctan2(-R[1, 2], R[1, 1]), 0.0
        return roll, pitch, yaw

    def f(v: Sequence[float]) -> str:
        return " ".join(repr(float(x)) for x in v)

    out = [f'<robot name="{arm.name}">', '  <link name="base"/>']
    parent = "base"
    for i in range(arm.n):
        pi = arm.inertial[i]
        m = pi[0]
        c = pi[1:4] / m if m > 0 else np.zeros(3)
        Ic = _inertia_matrix(pi) - m * (c @ c * np.eye(3) - np.outer(c, c))
        out.append(f'  <joint name="{arm.joint_names[i]}" type="revolute">')
        out.append(f'    <origin xyz="{f(arm.p0[i])}" rpy="{f(rpy(arm.R0[i]))}"/>')
        out.append(f'    <parent link="{parent}"/><child link="body_{i + 1}"/>')
        out.append(f'    <axis xyz="{f(arm.axes[i])}"/>')
        out.append('    <limit lower="-10" upper="10" effort="1000" velocity="100"/>')
        out.append("  </joint>")
        ic = {k: repr(float(Ic[a, b])) for k, (a, b) in
              {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2), "izz": (2, 2)}.items()}
        out.append(f'  <link name="body_{i + 1}"><inertial><origin xyz="{f(c)}" rpy="0 0 0"/><mass value="{float(m)!r}"/>')
        out.append("    <inertia " + " ".join(f'{k}="{v}"' for k, v in ic.items()) + "/></inertial></link>")
        parent = f"body_{i + 1}"
    out.append("</robot>")
    return "\n".join(out) + "\n"
