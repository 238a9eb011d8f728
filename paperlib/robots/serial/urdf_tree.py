"""A URDF's link tree as published, and the serial chain chosen in it.

:func:`parse_urdf` reads the whole tree (every link's inertial, every joint's placement, axis,
limits and ``<mimic>``) and checks that it is one: one root, each link the child of at most one
joint, every named link defined. :func:`select_chain` picks the path from a base link to a tip
link whose joints become the arm's coordinates:

- the base defaults to the root link; the tip, when not given, is found by walking down from the
  base through the only child branch that holds a *chain joint* (revolute or continuous, not a
  mimic): branches without one (fixed frames, tool frames, a table, a gripper's prismatic fingers)
  are not candidates. More than one such branch is ambiguous: the error names the tip links of
  the movable branches and the option that picks one (``--tip-link`` / ``tip_link=``).
- between the base and the tip only revolute, continuous and fixed joints may lie; a prismatic,
  floating or planar joint, or a mimic joint, there is refused with the links that avoid it.
  (A mimic joint's position is ``multiplier * q_master + offset``: it is not an independent
  coordinate. pinocchio's ``buildModelFromUrdf(..., mimic=True)`` models it as a dependent joint;
  this serial-arm model has one coordinate per moving body and does not, so the chain stops before it.)

Every joint not on the chosen chain is *locked* at its zero position (a mimic joint at its
``offset``, its master being locked at zero too), as pinocchio's ``buildReducedModel`` locks
joints at a reference configuration: its links are carried rigidly by the chain body they hang
from (:mod:`paperlib.robots.serial.urdf` merges their inertials).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperlib.robots.serial.spatial import inertial_from_com, rpy_matrix

__all__ = ["UrdfJoint", "UrdfTree", "parse_urdf", "select_chain", "CHAIN_TYPES", "URDF_TYPES"]

#: joint types URDF defines
URDF_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
#: joint types a serial arm's chain may move about
CHAIN_TYPES = ("revolute", "continuous")


@dataclass(frozen=True)
class UrdfJoint:
    """One ``<joint>`` of a URDF.

    Attributes
    ----------
    name, type, parent, child : str
    R : ndarray, shape (3, 3)
        Rotation of the joint's ``<origin>`` (parent link frame <- joint frame at zero).
    p : ndarray, shape (3,)
        Translation of the joint's ``<origin>`` [m].
    axis : ndarray, shape (3,)
        ``<axis xyz>`` (default ``1 0 0``), as written.
    lower, upper : float
        Position limits [rad or m] (``-inf``/``inf`` when absent, always for continuous joints).
    velocity, effort : float
        [rad/s or m/s], [N m or N] (``inf`` when absent).
    mimic : tuple (str, float, float) or None
        ``(master joint, multiplier, offset)`` of a ``<mimic>`` element.
    """

    name: str
    type: str
    parent: str
    child: str
    R: np.ndarray
    p: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity: float
    effort: float
    mimic: tuple[str, float, float] | None

    def is_chain_joint(self) -> bool:
        """A joint that can be a coordinate of the serial chain (revolute or continuous, not a mimic)."""
        return self.type in CHAIN_TYPES and self.mimic is None


@dataclass(frozen=True)
class UrdfTree:
    """A URDF's link tree.

    Attributes
    ----------
    name : str
        ``<robot name>`` (``"urdf_arm"`` if absent).
    label : str
        The file name (or ``<urdf text>``) for messages.
    links : dict of str to ndarray, shape (10,)
        Each link's standard inertial parameters in its own frame (zeros for a link without
        ``<inertial>``), in document order.
    joints : dict of str to UrdfJoint
        In document order.
    root : str
        The one link that is no joint's child.
    """

    name: str
    label: str
    links: dict[str, np.ndarray]
    joints: dict[str, UrdfJoint]
    root: str

    def __post_init__(self) -> None:
        kids: dict[str, list[UrdfJoint]] = {}
        for j in self.joints.values():
            kids.setdefault(j.parent, []).append(j)
        object.__setattr__(self, "_kids", kids)
        object.__setattr__(self, "_up", {j.child: j for j in self.joints.values()})
        object.__setattr__(self, "_movable", {})

    def children(self, link: str) -> list[UrdfJoint]:
        """Joints whose parent is ``link`` (document order)."""
        return list(self._kids.get(link, []))

    def parent_joint(self, link: str) -> UrdfJoint | None:
        """The joint whose child is ``link`` (None for the root)."""
        return self._up.get(link)

    def path(self, link: str) -> list[UrdfJoint]:
        """Joints from the root down to ``link``."""
        out = []
        j = self.parent_joint(link)
        while j is not None:
            out.append(j)
            j = self.parent_joint(j.parent)
        return out[::-1]

    def has_chain_joint(self, link: str) -> bool:
        """Whether the subtree below ``link`` holds a chain joint."""
        if link not in self._movable:
            self._movable[link] = any(j.is_chain_joint() or self.has_chain_joint(j.child) for j in self.children(link))
        return self._movable[link]

    def movable_tips(self, link: str) -> list[str]:
        """Tip links of the movable branches below ``link`` (where each stops holding chain joints)."""
        kids = [j for j in self.children(link) if j.is_chain_joint() or self.has_chain_joint(j.child)]
        if not kids:
            return [link]
        return [t for j in kids for t in self.movable_tips(j.child)]


def _floats(label: str, el: ET.Element | None, attr: str, default: str, n: int) -> np.ndarray:
    s = default if el is None else el.get(attr, default)
    try:
        v = np.array([float(t) for t in s.split()])
    except ValueError:
        raise ValueError(f"{label}: bad numbers {s!r} in <{el.tag if el is not None else '?'} {attr}>") from None
    if v.shape != (n,):
        raise ValueError(f"{label}: {attr}={s!r} must hold {n} number{'s' if n > 1 else ''}")
    return v


def _link_inertial(label: str, link: ET.Element) -> np.ndarray:
    inert = link.find("inertial")
    if inert is None:
        return np.zeros(10)
    org = inert.find("origin")
    mass, I = inert.find("mass"), inert.find("inertia")
    if mass is None or I is None:
        raise ValueError(f"{label}: link {link.get('name')!r} has an <inertial> without <mass> or <inertia>")
    m = _floats(label, mass, "value", "", 1)[0]
    g = {k: _floats(label, I, k, "0", 1)[0] for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    Ic = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
    Rc = rpy_matrix(_floats(label, org, "rpy", "0 0 0", 3))
    return inertial_from_com(m, _floats(label, org, "xyz", "0 0 0", 3), Rc @ Ic @ Rc.T)


def _joint(label: str, j: ET.Element, links: dict[str, np.ndarray]) -> UrdfJoint:
    name, jtype = j.get("name"), j.get("type")
    if jtype not in URDF_TYPES:
        raise ValueError(f"{label}: joint {name!r} has type {jtype!r}, which URDF does not define "
                         f"(use one of {', '.join(URDF_TYPES)})")
    ends = {}
    for tag in ("parent", "child"):
        el = j.find(tag)
        if el is None or not el.get("link"):
            raise ValueError(f"{label}: joint {name!r} has no <{tag} link=...>")
        ends[tag] = el.get("link")
        if ends[tag] not in links:
            raise ValueError(f"{label}: joint {name!r} names link {ends[tag]!r}, which is not defined (add a <link name=\"{ends[tag]}\"/>)")
    org = j.find("origin")
    lim = j.find("limit")

    def limit(attr: str, default: float) -> float:
        return float(lim.get(attr, default)) if lim is not None else default

    mim = j.find("mimic")
    mimic = None
    if mim is not None:
        mimic = (str(mim.get("joint")), float(mim.get("multiplier", "1")), float(mim.get("offset", "0")))
    continuous = jtype == "continuous"
    return UrdfJoint(
        name=name, type=jtype, parent=ends["parent"], child=ends["child"], R=rpy_matrix(_floats(label, org, "rpy", "0 0 0", 3)),
        p=_floats(label, org, "xyz", "0 0 0", 3), axis=_floats(label, j.find("axis"), "xyz", "1 0 0", 3),
        lower=-np.inf if continuous else limit("lower", -np.inf), upper=np.inf if continuous else limit("upper", np.inf),
        velocity=limit("velocity", np.inf), effort=limit("effort", np.inf), mimic=mimic)


def parse_urdf(path: str | Path) -> UrdfTree:
    """Read a URDF's whole link tree and check that it is a tree.

    Parameters
    ----------
    path : str or Path
        URDF file (or its XML text if it starts with ``<``).

    Returns
    -------
    UrdfTree

    Raises
    ------
    ValueError
        Naming the file and what to change: not XML, a joint type URDF does not define, a
        missing or duplicated link, a link that is the child of two joints (a closed loop),
        no single root, a mimic joint naming no joint.
    """
    text = str(path)
    label = "<urdf text>" if text.lstrip().startswith("<") else text
    try:
        root = ET.fromstring(text) if label == "<urdf text>" else ET.parse(text).getroot()
    except (ET.ParseError, OSError) as exc:
        raise ValueError(f"{label}: cannot read URDF ({exc})") from None
    if root.tag != "robot":
        raise ValueError(f"{label}: root element is <{root.tag}>, not <robot>")
    links: dict[str, np.ndarray] = {}
    for link in root.findall("link"):
        name = link.get("name")
        if not name:
            raise ValueError(f"{label}: a <link> has no name")
        if name in links:
            raise ValueError(f"{label}: link {name!r} is defined twice (rename one)")
        links[name] = _link_inertial(label, link)
    joints: dict[str, UrdfJoint] = {}
    parent_of: dict[str, str] = {}
    for el in root.findall("joint"):
        j = _joint(label, el, links)
        if j.name in joints:
            raise ValueError(f"{label}: joint {j.name!r} is defined twice (rename one)")
        if j.child in parent_of:
            raise ValueError(f"{label}: link {j.child!r} is the child of joints {parent_of[j.child]!r} and {j.name!r}: "
                             "a URDF is a tree, a closed loop cannot be read (keep one of the two joints)")
        parent_of[j.child] = j.name
        joints[j.name] = j
    for j in joints.values():
        if j.mimic is not None and j.mimic[0] not in joints:
            raise ValueError(f"{label}: joint {j.name!r} mimics {j.mimic[0]!r}, which is not a joint of the file")
    roots = [ln for ln in links if ln not in parent_of]
    if len(roots) != 1:
        what = "none (the joints close a loop)" if not roots else ", ".join(repr(r) for r in roots)
        raise ValueError(f"{label}: expected one root link (the one that is no joint's child), found {what}; "
                         "join the parts with a fixed joint or remove the loop")
    # a cycle away from the root leaves links unreachable from it
    reached, todo = set(), [roots[0]]
    while todo:
        ln = todo.pop()
        reached.add(ln)
        todo += [j.child for j in joints.values() if j.parent == ln and j.child not in reached]
    if len(reached) != len(links):
        lost = sorted(set(links) - reached)
        loop = [j.name for j in joints.values() if j.child in lost]
        raise ValueError(f"{label}: links {lost} cannot be reached from the root {roots[0]!r}: joints {loop} close a loop "
                         f"(remove one of them and join the links to the tree)")
    return UrdfTree(name=root.get("name", "urdf_arm"), label=label, links=links, joints=joints, root=roots[0])


def _name_link(tree: UrdfTree, link: str, option: str) -> None:
    if link not in tree.links:
        names = list(tree.links)
        shown = ", ".join(names[:30]) + (f", ... ({len(names)} links)" if len(names) > 30 else "")
        raise ValueError(f"{tree.label}: {option} {link!r} is not a link of the file (its links: {shown})")


def select_chain(tree: UrdfTree, base_link: str | None = None, tip_link: str | None = None) -> tuple[list[UrdfJoint], int, str]:
    """The joints from the root to the chosen tip, and where the chain's coordinates start.

    Parameters
    ----------
    tree : UrdfTree
    base_link : str, optional
        Link the arm is mounted on (default: the root). Joints above it are locked.
    tip_link : str, optional
        Last link of the chain (default: found when one movable branch leaves the base).

    Returns
    -------
    path : list of UrdfJoint
        Root to tip.
    start : int
        Index in ``path`` of the first joint below the base link.
    tip : str
        The tip link.

    Raises
    ------
    ValueError
        An unknown link, a base that is not above the tip, several movable branches (their tip
        links named, with the option that picks one), a joint on the chain that cannot be a
        coordinate, no chain joint at all.
    """
    base = tree.root if base_link is None else base_link
    _name_link(tree, base, "base link (--base-link / base_link=)")
    if tip_link is None:
        tips = tree.movable_tips(base)
        if len(tips) > 1:
            raise ValueError(
                f"{tree.label}: {len(tips)} movable branches leave {base!r}, ending at links "
                f"{', '.join(repr(t) for t in tips)}; pick the arm with --tip-link LINK (tip_link=) "
                "(and --base-link LINK if it starts further up than the root)")
        tip = tips[0]
    else:
        _name_link(tree, tip_link, "tip link (--tip-link / tip_link=)")
        tip = tip_link
    path = tree.path(tip)
    above = [j.parent for j in path]
    if base != tip and base not in above:
        raise ValueError(f"{tree.label}: base link {base!r} is not on the way from the root {tree.root!r} to the tip "
                         f"{tip!r} (that way passes {', '.join(repr(x) for x in above)}); choose one of those as --base-link")
    start = above.index(base) if base != tip else len(path)
    for j in path[start:]:
        if j.type == "fixed" or j.is_chain_joint():
            continue
        why = (f"mimics {j.mimic[0]!r} (position = {j.mimic[1]:g} q + {j.mimic[2]:g}), so it is no independent coordinate"
               if j.mimic is not None else f"is {j.type}; a serial arm's chain moves about revolute and continuous joints only")
        raise ValueError(f"{tree.label}: joint {j.name!r} on the chain from {base!r} to {tip!r} {why}; "
                         f"end the chain before it (--tip-link {j.parent}) or start it after it (--base-link {j.child})")
    if not any(j.is_chain_joint() for j in path[start:]):
        others = [f"{j.name!r} ({j.type}{', mimic' if j.mimic else ''})" for j in tree.joints.values() if j.type != "fixed"]
        found = f"the file's moving joints: {', '.join(others)}" if others else "the file has fixed joints only"
        raise ValueError(f"{tree.label}: no revolute or continuous joint between {base!r} and {tip!r} ({found}); "
                         "a serial arm needs at least one: choose other --base-link / --tip-link")
    return path, start, tip
