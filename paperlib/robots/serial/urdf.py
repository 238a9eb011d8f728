"""URDF in and out for the serial arms: reading a revolute chain (fixed joints merged), writing an arm."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from paperlib.robots.serial.spatial import _inertia_matrix, _transform_inertial, inertial_from_com, rpy_matrix, snap

__all__ = ["read_urdf", "arm_urdf"]


def read_urdf(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The :class:`~paperlib.robots.serial.SerialArm` fields of a URDF: one chain of revolute joints; fixed joints merged.

    Links behind a fixed joint are merged into their parent body (inertia transformed) and
    the fixed transform folds into the next joint's placement, as pinocchio's
    ``buildModelFromUrdf`` does. The root link's own inertia is the base's and is dropped.

    Parameters
    ----------
    path : str or Path
        URDF file (or its XML text if it starts with ``<``).

    Returns
    -------
    fields : dict
        ``name`` (the URDF's ``robot name``, ``"urdf_arm"`` if absent), ``joint_names``, ``R0``,
        ``p0`` [m], ``axes``, ``inertial`` (SI).
    limits : dict
        ``lower``, ``upper`` [rad], ``velocity_limit`` [rad/s], ``effort_limit`` [N m], each
        shape (n,) (``-inf``/``inf`` where the URDF gives none).

    Raises
    ------
    ValueError
        Naming the file and the problem: not XML, a joint type other than revolute/fixed,
        a branching tree, a missing link.
    """
    text = str(path)
    label = "<urdf text>" if text.lstrip().startswith("<") else text
    try:
        root = ET.fromstring(text) if label == "<urdf text>" else ET.parse(text).getroot()
    except (ET.ParseError, OSError) as exc:
        raise ValueError(f"{label}: cannot read URDF ({exc})") from None
    if root.tag != "robot":
        raise ValueError(f"{label}: root element is <{root.tag}>, not <robot>")

    def vec(el: ET.Element | None, attr: str, default: str = "0 0 0") -> np.ndarray:
        s = default if el is None else el.get(attr, default)
        try:
            v = np.array([float(t) for t in s.split()])
        except ValueError:
            raise ValueError(f"{label}: bad numbers {s!r} in <{el.tag if el is not None else '?'} {attr}>") from None
        if v.shape != (3,):
            raise ValueError(f"{label}: {attr}={s!r} must hold 3 numbers")
        return v

    links: dict[str, np.ndarray] = {}
    for link in root.findall("link"):
        inert = link.find("inertial")
        if inert is None:
            links[link.get("name")] = np.zeros(10)
            continue
        org = inert.find("origin")
        m = float(inert.find("mass").get("value"))
        I = inert.find("inertia")
        g = {k: float(I.get(k, 0.0)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        Ic = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
        Rc = rpy_matrix(vec(org, "rpy"))
        links[link.get("name")] = inertial_from_com(m, vec(org, "xyz"), Rc @ Ic @ Rc.T)
    joints = root.findall("joint")
    children: dict[str, list[ET.Element]] = {}
    child_links = set()
    for j in joints:
        jtype = j.get("type")
        if jtype not in ("revolute", "fixed"):
            raise ValueError(f"{label}: joint {j.get('name')!r} is {jtype!r}; only revolute and fixed joints are supported")
        parent = j.find("parent").get("link")
        child = j.find("child").get("link")
        for ln in (parent, child):
            if ln not in links:
                raise ValueError(f"{label}: joint {j.get('name')!r} names link {ln!r}, which is not defined")
        children.setdefault(parent, []).append(j)
        child_links.add(child)
    roots = [ln for ln in links if ln not in child_links]
    if len(roots) != 1:
        raise ValueError(f"{label}: expected one root link, found {roots}")
    names, R0, p0, axes, inert, lo, hi, vel, eff = [], [], [], [], [], [], [], [], []
    # walk the chain; T_acc = transform from the current body frame to the frame where the
    # next joint's origin is given (accumulates fixed joints)
    link = roots[0]
    R_acc, p_acc = np.eye(3), np.zeros(3)
    body = -1  # index of the moving body that the current link belongs to
    while True:
        kids = children.get(link, [])
        if len(kids) > 1:
            raise ValueError(f"{label}: link {link!r} has {len(kids)} child joints; only serial chains are supported")
        if not kids:
            break
        j = kids[0]
        org = j.find("origin")
        Rj = rpy_matrix(vec(org, "rpy"))
        pj = vec(org, "xyz")
        R_new = R_acc @ Rj
        p_new = R_acc @ pj + p_acc
        child = j.find("child").get("link")
        if j.get("type") == "fixed":
            R_acc, p_acc = R_new, p_new
            if body >= 0:
                inert[body] = inert[body] + _transform_inertial(links[child], R_new, p_new)
        else:
            names.append(j.get("name"))
            R0.append(snap(R_new))
            p0.append(p_new)
            axes.append(vec(j.find("axis"), "xyz", "1 0 0"))
            inert.append(links[child].copy())
            lim = j.find("limit")
            lo.append(float(lim.get("lower", "-inf")) if lim is not None else -np.inf)
            hi.append(float(lim.get("upper", "inf")) if lim is not None else np.inf)
            vel.append(float(lim.get("velocity", "inf")) if lim is not None else np.inf)
            eff.append(float(lim.get("effort", "inf")) if lim is not None else np.inf)
            R_acc, p_acc = np.eye(3), np.zeros(3)
            body += 1
        link = child
    if not names:
        raise ValueError(f"{label}: no revolute joint")
    limits = {"lower": np.array(lo), "upper": np.array(hi), "velocity_limit": np.array(vel), "effort_limit": np.array(eff)}
    fields = dict(name=root.get("name", "urdf_arm"), joint_names=tuple(names), R0=np.array(R0), p0=np.array(p0),
                  axes=np.array(axes), inertial=np.array(inert))
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
