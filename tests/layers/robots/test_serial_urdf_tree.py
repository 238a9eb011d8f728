"""SerialArm.from_urdf on URDFs as published (trees, fixed frames, wheels, mimic grippers) against pinocchio.

Three URDFs in the shape their makers publish them, written from the published kinematics (no file fetched).

- :func:`ur5e_on_table`: a UR5e as the ROS-Industrial ``ur_description`` lays it out (``base_link`` ->
  ``base_link_inertia`` turned by pi, six revolute joints, ``flange`` and ``tool0`` as fixed frames),
  placements and masses from Universal Robots' published DH table for the UR5e (d1 = 0.1625,
  a2 = -0.425, a3 = -0.3922, d4 = 0.1333, d5 = 0.0997, d6 = 0.0996 m; masses 3.761, 8.058, 2.846,
  1.37, 1.3, 0.365 kg), on a root ``world`` link carrying a table and a wall, with a 0.8 kg tool on ``tool0``.
- :func:`mobile_manipulator`: a differential-drive base (two continuous wheel joints, a caster with
  a continuous swivel and wheel) carrying a 6-joint arm laid out as Kinova's ``kortex_description``
  Gen3 6-DoF (continuous joints 1, 4, 6; link lengths and masses from its published model).
- :func:`panda`: a Franka Emika Panda as ``franka_description`` lays it out (7 revolute joints,
  ``panda_link8`` and ``panda_hand`` fixed, two prismatic fingers, ``panda_finger_joint2``
  mimicking ``panda_finger_joint1``); kinematics from Franka's published table, masses and centres
  of mass after the published identification (Gaz et al., 2019), inertias rounded.

Inertias are given about each link's centre of mass in a frame turned by the inertial ``rpy`` (as
URDF does); where a maker publishes none, a solid box of plausible size stands in (physically
consistent, which is all the comparison with pinocchio needs).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from paperlib.robots.serial import SerialArm, snap

PI = np.pi


def _f(v) -> str:
    return " ".join(repr(float(x)) for x in np.atleast_1d(v))


def link(name: str, mass: float | None = None, com=(0, 0, 0), size=(0.1, 0.1, 0.1), rpy=(0, 0, 0)) -> str:
    """A ``<link>``; with ``mass``, an inertial of a solid box of ``size`` [m] at ``com``, turned by ``rpy``."""
    if mass is None:
        return f'<link name="{name}"/>'
    a, b, c = size
    ixx, iyy, izz = mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12
    # a small product of inertia keeps the test honest about the inertia's frame
    ixy = 0.1 * min(ixx, iyy)
    return (f'<link name="{name}"><inertial><origin xyz="{_f(com)}" rpy="{_f(rpy)}"/><mass value="{mass!r}"/>'
            f'<inertia ixx="{ixx!r}" ixy="{ixy!r}" ixz="0" iyy="{iyy!r}" iyz="0" izz="{izz!r}"/></inertial></link>')


def joint(name: str, jtype: str, parent: str, child: str, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=(0, 0, 1),
          limits: tuple[float, float] | None = (-PI, PI), mimic: tuple[str, float, float] | None = None) -> str:
    """A ``<joint>`` (limits and axis left out of fixed joints; continuous joints get velocity and effort only)."""
    out = [f'<joint name="{name}" type="{jtype}"><origin xyz="{_f(xyz)}" rpy="{_f(rpy)}"/>',
           f'<parent link="{parent}"/><child link="{child}"/>']
    if jtype != "fixed":
        out.append(f'<axis xyz="{_f(axis)}"/>')
        if jtype == "continuous":
            out.append('<limit effort="39" velocity="1.39"/>')
        elif limits is not None:
            out.append(f'<limit lower="{limits[0]!r}" upper="{limits[1]!r}" effort="150" velocity="3.14"/>')
    if mimic is not None:
        out.append(f'<mimic joint="{mimic[0]}" multiplier="{mimic[1]!r}" offset="{mimic[2]!r}"/>')
    out.append("</joint>")
    return "".join(out)


def robot(name: str, parts: list[str]) -> str:
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n' + "\n".join(parts) + "\n</robot>\n"


def ur5e_on_table() -> str:
    """UR5e on a table in a world with a wall (the chain: shoulder_pan_joint .. wrist_3_joint)."""
    p = [link("world"), link("table", 40.0, (0, 0, 0.4), (1.2, 0.8, 0.05)), link("wall", 80.0, (0, 0, 1.0), (0.1, 3, 2)),
         joint("world_table", "fixed", "world", "table", (0.5, 0.2, 0)),
         joint("world_wall", "fixed", "world", "wall", (-1.0, 0, 0), (0, 0, 0.3)),
         joint("table_base", "fixed", "table", "base_link", (0.1, -0.1, 0.8), (0, 0, 0.7)),
         link("base_link"), link("base_link_inertia", 4.0, (0, 0, 0.05), (0.15, 0.15, 0.1)),
         joint("base_link-base_link_inertia", "fixed", "base_link", "base_link_inertia", rpy=(0, 0, 3.14159)),
         link("base"), joint("base_link-base_fixed_joint", "fixed", "base_link", "base", rpy=(0, 0, PI)),
         link("shoulder_link", 3.761, (0, -0.02561, 0.00193), (0.12, 0.12, 0.15)),
         joint("shoulder_pan_joint", "revolute", "base_link_inertia", "shoulder_link", (0, 0, 0.1625), limits=(-2 * PI, 2 * PI)),
         link("upper_arm_link", 8.058, (-0.2125, 0, 0.138), (0.5, 0.1, 0.1), rpy=(0, PI / 2, 0)),
         joint("shoulder_lift_joint", "revolute", "shoulder_link", "upper_arm_link", rpy=(1.570796327, 0, 0), limits=(-2 * PI, 2 * PI)),
         link("forearm_link", 2.846, (-0.2422, 0, 0.007), (0.45, 0.08, 0.08), rpy=(0, PI / 2, 0)),
         joint("elbow_joint", "revolute", "upper_arm_link", "forearm_link", (-0.425, 0, 0), limits=(-PI, PI)),
         link("wrist_1_link", 1.37, (0, -0.0018, 0.01634), (0.08, 0.08, 0.1)),
         joint("wrist_1_joint", "revolute", "forearm_link", "wrist_1_link", (-0.3922, 0, 0.1333), limits=(-2 * PI, 2 * PI)),
         link("wrist_2_link", 1.3, (0, 0.0018, 0.01634), (0.08, 0.08, 0.1)),
         joint("wrist_2_joint", "revolute", "wrist_1_link", "wrist_2_link", (0, -0.0997, -2.044881182297852e-11),
               (1.570796327, 0, 0), limits=(-2 * PI, 2 * PI)),
         link("wrist_3_link", 0.365, (0, 0, -0.001159), (0.07, 0.07, 0.03)),
         joint("wrist_3_joint", "revolute", "wrist_2_link", "wrist_3_link", (0, 0.0996, -2.042830148012698e-11),
               (1.570796326589793, 3.141592653589793, 3.141592653589793), limits=(-2 * PI, 2 * PI)),
         link("flange"), joint("wrist_3-flange", "fixed", "wrist_3_link", "flange", rpy=(0, -1.5707963, -1.5707963)),
         link("tool0"), joint("flange-tool0", "fixed", "flange", "tool0", rpy=(1.5707963, 0, 1.5707963)),
         link("gripper", 0.8, (0.0, 0.01, 0.06), (0.08, 0.12, 0.1), rpy=(0.2, 0, 0.1)),
         joint("tool0-gripper", "fixed", "tool0", "gripper", (0, 0, 0.005), (0, 0, 0.4))]
    return robot("ur5e", p)


def mobile_manipulator() -> str:
    """A differential-drive base with a Gen3-like 6-joint arm; tip link of the arm: ``bracelet_link``."""
    p = [link("base_footprint"), link("base_link", 45.0, (0, 0, 0.15), (0.6, 0.5, 0.25)),
         joint("base_footprint_joint", "fixed", "base_footprint", "base_link", (0, 0, 0.08)),
         link("left_wheel_link", 2.6, size=(0.2, 0.06, 0.2)), link("right_wheel_link", 2.6, size=(0.2, 0.06, 0.2)),
         joint("left_wheel_joint", "continuous", "base_link", "left_wheel_link", (0, 0.28, 0), axis=(0, 1, 0)),
         joint("right_wheel_joint", "continuous", "base_link", "right_wheel_link", (0, -0.28, 0), axis=(0, 1, 0)),
         link("caster_swivel_link", 0.3, (0, 0, -0.02), (0.05, 0.05, 0.05)), link("caster_wheel_link", 0.4, size=(0.08, 0.03, 0.08)),
         joint("caster_swivel_joint", "continuous", "base_link", "caster_swivel_link", (-0.25, 0, -0.02)),
         joint("caster_wheel_joint", "continuous", "caster_swivel_link", "caster_wheel_link", (-0.03, 0, -0.04), axis=(0, 1, 0)),
         link("lidar_link", 0.17, size=(0.07, 0.07, 0.05)), joint("lidar_joint", "fixed", "base_link", "lidar_link", (0.25, 0, 0.3)),
         link("arm_mount"), joint("arm_mount_joint", "fixed", "base_link", "arm_mount", (0.15, 0, 0.3), (0, 0, 0.2)),
         link("arm_base_link", 1.14, (-0.000648, -0.000166, 0.084487), (0.1, 0.1, 0.16)),
         joint("arm_mount_to_base", "fixed", "arm_mount", "arm_base_link"),
         link("shoulder_link", 1.377, (-2.3e-05, -0.010364, -0.07336), (0.1, 0.1, 0.15)),
         joint("joint_1", "continuous", "arm_base_link", "shoulder_link", (0, 0, 0.15643), (PI, 0, 0)),
         link("bicep_link", 1.262, (3.5e-05, -0.208207, -0.01889), (0.08, 0.41, 0.08)),
         joint("joint_2", "revolute", "shoulder_link", "bicep_link", (0, 0.005375, -0.12838), (PI / 2, 0, 0), limits=(-2.41, 2.41)),
         link("forearm_link", 0.93, (1.8e-05, 0.076168, -0.01397), (0.07, 0.2, 0.07)),
         joint("joint_3", "revolute", "bicep_link", "forearm_link", (0, -0.41, 0), (PI, 0, 0), limits=(-2.66, 2.66)),
         link("spherical_wrist_1_link", 0.678, (-1e-06, 0.008486, -0.062937), (0.06, 0.06, 0.1)),
         joint("joint_4", "continuous", "forearm_link", "spherical_wrist_1_link", (0, 0.20843, -0.006375), (PI / 2, 0, 0)),
         link("spherical_wrist_2_link", 0.678, (-1e-06, 0.046429, -0.008704), (0.06, 0.1, 0.06)),
         joint("joint_5", "revolute", "spherical_wrist_1_link", "spherical_wrist_2_link", (0, -0.00017505, -0.10593),
               (-PI / 2, 0, 0), limits=(-2.23, 2.23)),
         link("bracelet_link", 0.5, (-9.3e-05, 0.000132, -0.022905), (0.07, 0.07, 0.05)),
         joint("joint_6", "continuous", "spherical_wrist_2_link", "bracelet_link", (0, 0.10593, -0.00017505), (PI / 2, 0, 0)),
         link("end_effector_link"),
         joint("end_effector", "fixed", "bracelet_link", "end_effector_link", (0, 0, -0.0615250000000001), (PI, 0, 0)),
         link("camera_link", 0.06, size=(0.02, 0.09, 0.02)),
         joint("camera_joint", "fixed", "bracelet_link", "camera_link", (0, 0.05639, -0.00305), (PI, PI, 0))]
    return robot("mobile_gen3", p)


def panda(finger_offset: float = 0.0) -> str:
    """A Panda with its hand; ``panda_finger_joint2`` mimics ``panda_finger_joint1`` (offset ``finger_offset`` [m])."""
    m = [4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555, 0.735522]
    c = [(0.003875, 0.002081, -0.04762), (-0.003141, -0.02872, 0.003495), (0.027518, 0.039252, -0.066502),
         (-0.05317, 0.104419, 0.027454), (-0.011953, 0.041065, -0.038437), (0.060149, -0.014117, -0.010517),
         (0.010517, -0.004252, 0.061597)]
    xyz = [(0, 0, 0.333), (0, 0, 0), (0, -0.316, 0), (0.0825, 0, 0), (-0.0825, 0.384, 0), (0, 0, 0), (0.088, 0, 0)]
    rpy = [(0, 0, 0), (-PI / 2, 0, 0), (PI / 2, 0, 0), (PI / 2, 0, 0), (-PI / 2, 0, 0), (PI / 2, 0, 0), (PI / 2, 0, 0)]
    lim = [(-2.8973, 2.8973), (-1.7628, 1.7628), (-2.8973, 2.8973), (-3.0718, -0.0698), (-2.8973, 2.8973),
           (-0.0175, 3.7525), (-2.8973, 2.8973)]
    p = [link("panda_link0", 2.92, (-0.041018, -0.00014, 0.049974), (0.2, 0.15, 0.12))]
    for i in range(7):
        p.append(link(f"panda_link{i + 1}", m[i], c[i], (0.12, 0.12, 0.2), rpy=(0.1 * i, 0, 0)))
        p.append(joint(f"panda_joint{i + 1}", "revolute", f"panda_link{i}", f"panda_link{i + 1}", xyz[i], rpy[i], limits=lim[i]))
    p += [link("panda_link8"), joint("panda_joint8", "fixed", "panda_link7", "panda_link8", (0, 0, 0.107)),
          link("panda_hand", 0.73, (-0.01, 0, 0.03), (0.05, 0.2, 0.07)),
          joint("panda_hand_joint", "fixed", "panda_link8", "panda_hand", rpy=(0, 0, -PI / 4)),
          link("panda_leftfinger", 0.015, (0, 0.01, 0.02), (0.02, 0.02, 0.05)),
          link("panda_rightfinger", 0.015, (0, -0.01, 0.02), (0.02, 0.02, 0.05)),
          joint("panda_finger_joint1", "prismatic", "panda_hand", "panda_leftfinger", (0, 0, 0.0584), axis=(0, 1, 0),
                limits=(0.0, 0.04)),
          joint("panda_finger_joint2", "prismatic", "panda_hand", "panda_rightfinger", (0, 0, 0.0584), axis=(0, -1, 0),
                limits=(0.0, 0.04), mimic=("panda_finger_joint1", 1.0, finger_offset)),
          link("panda_hand_tcp"), joint("panda_hand_tcp_joint", "fixed", "panda_hand", "panda_hand_tcp", (0, 0, 0.1034))]
    return robot("panda", p)


# ------------------------------------------------------------------------------ the oracle
REL = 1e-9


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def pinocchio_chain(path, arm: SerialArm, locked_at: dict[str, float] | None = None, snapped: bool = False):
    """pinocchio's model of the same file, every joint off the arm's chain locked (at zero, or ``locked_at``).

    ``snapped``: the joint placements' rotation entries within ``SNAP_TOL`` of -1, 0, 1 set to
    them, as paperlib reads a URDF (a printed pi/2 such as UR's ``1.570796327`` is pi/2).
    """
    model = pin.buildModelFromUrdf(str(path))
    keep = set(arm.joint_names)
    lock = [model.getJointId(nm) for nm in list(model.names)[1:] if nm not in keep]
    qref = pin.neutral(model)
    for nm, value in (locked_at or {}).items():
        qref[model.joints[model.getJointId(nm)].idx_q] = value
    red = pin.buildReducedModel(model, lock, qref)
    assert list(red.names)[1:] == list(arm.joint_names)
    if snapped:
        for i in range(1, red.njoints):
            M = red.jointPlacements[i]
            red.jointPlacements[i] = pin.SE3(snap(M.rotation), M.translation)
    return red


def _pin_q(model, q: np.ndarray) -> np.ndarray:
    """pinocchio's configuration of joint angles: a continuous joint takes (cos, sin)."""
    out = []
    for j, qi in zip(list(model.joints)[1:], q):
        out += [np.cos(qi), np.sin(qi)] if j.nq == 2 else [qi]
    return np.array(out)


def max_deviation(path, arm: SerialArm, locked_at: dict[str, float] | None = None, snapped: bool = False,
                  n_states: int = 25, seed: int = 0) -> dict:
    """Largest relative deviation from pinocchio of the regressor, the torques and the inertials."""
    model = pinocchio_chain(path, arm, locked_at, snapped)
    data = model.createData()
    q, qd, qdd = arm.random_states(n_states, seed=seed, v_max=3.0, a_max=20.0)
    Y = arm.regressor(q, qd, qdd)
    tau = arm.inverse_dynamics(q, qd, qdd)
    dev = {"regressor": 0.0, "torque": 0.0}
    for s in range(n_states):
        qp = _pin_q(model, q[s])
        Yp = pin.computeJointTorqueRegressor(model, data, qp, qd[s], qdd[s])
        dev["regressor"] = max(dev["regressor"], _rel_err(Y[s, :, : 10 * arm.n], Yp))
        dev["torque"] = max(dev["torque"], _rel_err(tau[s], pin.rnea(model, data, qp, qd[s], qdd[s])))
    pin_params = np.concatenate([model.inertias[i + 1].toDynamicParameters() for i in range(arm.n)])
    dev["inertials"] = _rel_err(arm.inertial.ravel(), pin_params)
    return dev


def _write(tmp_path, name: str, text: str):
    f = tmp_path / name
    f.write_text(text)
    return f


# ------------------------------------------------------------------------------ the three robots
def test_industrial_arm_with_base_flange_tool_frames_on_a_table(tmp_path) -> None:
    f = _write(tmp_path, "ur5e.urdf", ur5e_on_table())
    arm = SerialArm.from_urdf(f)  # world -> table -> base_link: one movable chain, found by itself
    assert arm.joint_names == ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
                               "wrist_2_joint", "wrist_3_joint")
    dev = max_deviation(f, arm)
    # UR prints pi/2 as 1.570796327 (cos = -2.1e-10): paperlib reads it as pi/2 (snap), pinocchio
    # literally; with pinocchio's placements snapped alike the two agree to rounding
    assert max(max_deviation(f, arm, snapped=True).values()) < REL
    assert dev["inertials"] < REL and dev["regressor"] < 10 * REL and dev["torque"] < 10 * REL, dev
    # the table, the wall and the base's own inertia are the base's: no body carries them; the tool
    # (0.8 kg behind flange and tool0) rides on the last body
    assert np.isclose(arm.inertial[:, 0].sum(), 3.761 + 8.058 + 2.846 + 1.37 + 1.3 + 0.365 + 0.8, rtol=1e-12)
    assert np.isclose(arm.inertial[5, 0], 0.365 + 0.8, rtol=1e-12)
    # naming the tip beyond the last joint, or the base the arm stands on, picks the same chain
    same = SerialArm.from_urdf(f, base_link="base_link", tip_link="tool0")
    assert np.array_equal(same.inertial, arm.inertial) and np.array_equal(same.p0, arm.p0)


def test_mobile_manipulator_tip_link_picks_the_arm(tmp_path) -> None:
    f = _write(tmp_path, "mobile.urdf", mobile_manipulator())
    with pytest.raises(ValueError, match="--tip-link") as info:
        SerialArm.from_urdf(f)
    for tip in ("left_wheel_link", "right_wheel_link", "caster_wheel_link", "bracelet_link"):
        assert repr(tip) in str(info.value)
    arm = SerialArm.from_urdf(f, tip_link="bracelet_link")
    assert arm.joint_names == tuple(f"joint_{i}" for i in range(1, 7))
    # continuous joints carry no position limits
    assert np.all(np.isinf(arm.lower[[0, 3, 5]])) and np.all(np.isfinite(arm.lower[[1, 2, 4]]))
    dev = max_deviation(f, arm)
    assert max(dev.values()) < REL, dev
    # the camera behind the bracelet rides on body 6
    assert np.isclose(arm.inertial[5, 0], 0.5 + 0.06, rtol=1e-12)


@pytest.mark.parametrize("finger_offset", [0.0, 0.01])
def test_arm_with_mimic_gripper(tmp_path, finger_offset: float) -> None:
    f = _write(tmp_path, "panda.urdf", panda(finger_offset))
    # the prismatic fingers (one a mimic) hold no chain joint: the 7 revolute joints are found by themselves
    arm = SerialArm.from_urdf(f)
    assert arm.joint_names == tuple(f"panda_joint{i}" for i in range(1, 8))
    # fingers locked shut: finger 1 at 0, its mimic at multiplier * 0 + offset
    dev = max_deviation(f, arm, locked_at={"panda_finger_joint2": finger_offset})
    assert max(dev.values()) < REL, dev
    assert np.isclose(arm.inertial[6, 0], 0.735522 + 0.73 + 0.03, rtol=1e-12)
    # the hand's first moment sees where the mimic finger sits: the offset moves it
    if finger_offset:
        shut = SerialArm.from_urdf(panda(0.0))
        assert not np.allclose(shut.inertial[6, 1:4], arm.inertial[6, 1:4], rtol=0, atol=1e-6)
    assert np.array_equal(SerialArm.from_urdf(f, tip_link="panda_hand_tcp").inertial, arm.inertial)


def test_repo_arms_unchanged_through_the_tree_loader() -> None:
    """The TX40's URDF (written by the arm) reads back as the same arm."""
    tx = SerialArm.named("tx40")
    back = SerialArm.from_urdf(tx.to_urdf())
    assert np.allclose(back.R0, tx.R0, atol=1e-15) and np.allclose(back.p0, tx.p0, atol=1e-15)
    assert np.allclose(back.inertial, tx.inertial, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------ refusals
def _refusal(tmp_path, text: str, **kw) -> str:
    f = _write(tmp_path, "r.urdf", text)
    with pytest.raises(ValueError) as info:
        SerialArm.from_urdf(f, **kw)
    msg = str(info.value)
    assert str(f) in msg
    return msg


def test_ambiguous_chain_names_the_branches_and_the_option(tmp_path) -> None:
    torso = [link("torso", 10.0), link("l1", 1.0), link("l2", 1.0), link("r1", 1.0), link("r2", 1.0),
             joint("left_1", "revolute", "torso", "l1", (0, 0.2, 0)), joint("left_2", "revolute", "l1", "l2", (0.3, 0, 0)),
             joint("right_1", "revolute", "torso", "r1", (0, -0.2, 0)), joint("right_2", "revolute", "r1", "r2", (0.3, 0, 0))]
    msg = _refusal(tmp_path, robot("two_arms", torso))
    assert "'l2'" in msg and "'r2'" in msg and "--tip-link" in msg
    assert SerialArm.from_urdf(robot("two_arms", torso), tip_link="r2").joint_names == ("right_1", "right_2")


def test_unknown_link_names_the_links(tmp_path) -> None:
    msg = _refusal(tmp_path, panda(), tip_link="panda_link9")
    assert "'panda_link9'" in msg and "tip link" in msg and "panda_hand_tcp" in msg
    msg = _refusal(tmp_path, panda(), base_link="panda_base")
    assert "base link" in msg and "panda_link0" in msg
    # a base that is not above the tip: the links on the way are named
    msg = _refusal(tmp_path, mobile_manipulator(), base_link="lidar_link", tip_link="bracelet_link")
    assert "'arm_mount'" in msg and "--base-link" in msg


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (robot("loop", [link("a"), link("b", 1.0), link("c", 1.0), joint("j1", "revolute", "a", "b"),
                        joint("j2", "revolute", "b", "c"), joint("j3", "revolute", "a", "c")]),
         "child of joints 'j2' and 'j3'"),
        (robot("cycle", [link("a"), link("b", 1.0), link("c", 1.0), link("d", 1.0), joint("j1", "revolute", "a", "b"),
                         joint("j2", "revolute", "c", "d"), joint("j3", "revolute", "d", "c")]), "joints ['j2', 'j3'] close a loop"),
        (robot("two", [link("a"), link("b", 1.0), link("c", 1.0), joint("j1", "revolute", "a", "b")]), "one root link"),
        (robot("nochild", [link("a"), '<joint name="j" type="revolute"><parent link="a"/></joint>']), "no <child link"),
        ('<robot name="x"><link name="a"/><joint name="j" type="revolute"><parent link="a"/>'
         '<child link="zz"/></joint></robot>', "add a <link name=\"zz\"/>"),
        ("<robot><link", "cannot read URDF"),
    ],
)
def test_malformed_or_looped_file(tmp_path, text: str, needle: str) -> None:
    assert needle in _refusal(tmp_path, text)


def test_joint_type_not_supported(tmp_path) -> None:
    # a type URDF does not know
    msg = _refusal(tmp_path, robot("x", [link("a"), link("b", 1.0), joint("j", "ball", "a", "b")]))
    assert "'ball'" in msg and "revolute, continuous, prismatic" in msg
    # a prismatic joint on the chain (a linear axis under the arm): start the chain after it
    rail = robot("rail", [link("floor"), link("carriage", 5.0), link("l1", 1.0), link("l2", 1.0),
                          joint("rail", "prismatic", "floor", "carriage", axis=(1, 0, 0), limits=(0, 2)),
                          joint("j1", "revolute", "carriage", "l1"), joint("j2", "revolute", "l1", "l2", (0.3, 0, 0))])
    msg = _refusal(tmp_path, rail, tip_link="l2")
    assert "'rail'" in msg and "prismatic" in msg and "--base-link carriage" in msg
    assert SerialArm.from_urdf(rail, base_link="carriage").joint_names == ("j1", "j2")
    # only prismatic joints: no chain at all
    msg = _refusal(tmp_path, robot("p", [link("a"), link("b", 1.0), joint("j", "prismatic", "a", "b", limits=(0, 1))]))
    assert "no revolute or continuous joint" in msg and "'j' (prismatic)" in msg


def test_mimic_joint_on_or_hanging_off_the_chain(tmp_path) -> None:
    parts = [link("a"), link("b", 1.0), link("c", 1.0), joint("j1", "revolute", "a", "b"),
             joint("j2", "revolute", "b", "c", (0.3, 0, 0), mimic=("j1", 2.0, 0.1))]
    msg = _refusal(tmp_path, robot("m", parts), tip_link="c")
    assert "'j2'" in msg and "mimics 'j1'" in msg and "--tip-link b" in msg
    # without a tip the mimic joint is no candidate: the chain ends before it... but it would move with j1
    msg = _refusal(tmp_path, robot("m", parts))
    assert "mimics chain joint 'j1'" in msg and "--tip-link a" in msg
    # a mimic that names no joint
    msg = _refusal(tmp_path, robot("m", [link("a"), link("b", 1.0), joint("j", "revolute", "a", "b", mimic=("zz", 1.0, 0.0))]))
    assert "'zz'" in msg


def test_robot_file_refuses_chain_options() -> None:
    with pytest.raises(ValueError, match="pick a chain in a URDF"):
        SerialArm.named("tx40", tip_link="link_6")
