"""docs/robots.md, recipe 2, end to end: a robot the compendium has never seen, brought in by its URDF.

A 2-joint arm moving in a vertical plane (so gravity matters): its URDF written as a user would, its
data written with plain xarray as docs/recordings.md shows (simulated here from the URDF's own
dynamics plus known friction, so the truth is known), then `paperlib validate` and `paperlib serial
identify --robot my_arm.urdf` as a user would run them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

from paperlib.cli import main
from paperlib.control.excitation import FourierTrajectory
from paperlib.robots.serial import SerialArm

URDF = """<?xml version="1.0"?>
<robot name="my_2dof">
  <link name="base"/>
  <joint name="shoulder" type="revolute">
    <origin xyz="0 0 0.3" rpy="0 0 0"/>
    <parent link="base"/><child link="upper_arm"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="40" velocity="4"/>
  </joint>
  <link name="upper_arm">
    <inertial><origin xyz="0.15 0 0" rpy="0 0 0"/><mass value="2.0"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="elbow" type="revolute">
    <origin xyz="0.3 0 0" rpy="0 0 0"/>
    <parent link="upper_arm"/><child link="forearm"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="20" velocity="5"/>
  </joint>
  <link name="forearm">
    <inertial><origin xyz="0.12 0 0.01" rpy="0 0 0"/><mass value="1.2"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.008" iyz="0" izz="0.008"/></inertial>
  </link>
  <joint name="tool" type="fixed">
    <origin xyz="0.25 0 0" rpy="0 0 0"/><parent link="forearm"/><child link="gripper"/>
  </joint>
  <link name="gripper">
    <inertial><origin xyz="0 0 0" rpy="0 0 0"/><mass value="0.3"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
  </link>
</robot>
"""

TRUE = {"fv1": 0.8, "fv2": 0.4, "fs1": 0.9, "fs2": 0.5, "Ia1": 0.05, "Ia2": 0.02, "off1": 0.1, "off2": -0.05}


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    d = tmp_path_factory.mktemp("my_robot")
    urdf = d / "my_arm.urdf"
    urdf.write_text(URDF)
    arm = SerialArm.from_urdf(urdf)
    rng = np.random.default_rng(7)
    wf = 2 * np.pi * 0.1
    tr = FourierTrajectory(wf, np.zeros(2), 0.35 * rng.uniform(-1, 1, (5, 2)), 0.35 * rng.uniform(-1, 1, (5, 2)))
    fs = 500.0
    t = np.arange(int(2 * tr.period * fs)) / fs
    q, qd, qdd = tr(t)
    tau = arm.regressor(q, qd, qdd) @ arm.nominal_params(**TRUE)
    q = np.round(q / 2e-5) * 2e-5  # an encoder of 2e-5 rad
    tau = tau + rng.normal(0.0, 0.01, tau.shape)  # torque noise [N m]
    # docs/recordings.md, "With plain xarray"
    ds = xr.Dataset(
        {"q": (("time", "joint"), q, {"units": "rad", "long_name": "joint angle"}),
         "tau_m": (("time", "joint"), tau, {"units": "N m", "long_name": "joint torque from the drive",
                                             "side": "joint"})},
        coords={"time": ("time", t, {"units": "s", "long_name": "time"}),
                "joint": ("joint", np.arange(1, 3), {"units": "1", "long_name": "joint"})},
        attrs={"schema": "paperlib.recording/2", "robot": "my_2dof", "source": "twin",
               "sample_rate_hz": fs, "created": "2026-12-01T10:00:00+00:00", "writer": "lab_sim 0.1",
               "truth": json.dumps(TRUE)})
    path = d / "run.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    return urdf, path


def test_plain_xarray_file_validates_first_time(recording, capsys) -> None:
    _, path = recording
    assert main(["validate", str(path)]) == 0
    assert "OK" in capsys.readouterr().out


def test_urdf_robot_is_identified(recording, tmp_path, capsys) -> None:
    urdf, path = recording
    out = tmp_path / "out.json"
    assert main(["serial", "identify", str(path), "--robot", str(urdf), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    print({k: res[k] for k in ("fv", "fs", "rms_validation_relative")}, "truth", TRUE)
    assert res["robot"] == "my_2dof" and res["source"] == "twin"
    for j in (1, 2):
        assert res["fv"][j - 1] == pytest.approx(TRUE[f"fv{j}"], rel=0.05)
        assert res["fs"][j - 1] == pytest.approx(TRUE[f"fs{j}"], rel=0.05)
    assert max(res["rms_validation_relative"]) < 0.05


# the same arm on a wheeled base, as a mobile manipulator's URDF holds it: two continuous wheel joints
# beside the arm make the tree ambiguous until --tip-link names the arm's last moving link
WHEELS = "".join(
    f'<link name="wheel_{s}"><inertial><origin xyz="0 0 0"/><mass value="1.5"/>'
    f'<inertia ixx="0.004" ixy="0" ixz="0" iyy="0.007" iyz="0" izz="0.004"/></inertial></link>'
    f'<joint name="wheel_{s}_joint" type="continuous"><origin xyz="0 {y} -0.1"/><parent link="base"/>'
    f'<child link="wheel_{s}"/><axis xyz="0 1 0"/></joint>' for s, y in (("left", 0.2), ("right", -0.2)))
MOBILE_URDF = URDF.replace('<link name="base"/>', '<link name="base"/>' + WHEELS)


def test_tip_link_picks_the_arm_on_a_wheeled_base(recording, tmp_path, capsys) -> None:
    urdf, path = recording
    mobile = tmp_path / "my_mobile_arm.urdf"
    mobile.write_text(MOBILE_URDF)
    assert main(["serial", "identify", str(path), "--robot", str(mobile)]) == 2
    err = capsys.readouterr().err
    assert all(f"'{t}'" in err for t in ("wheel_left", "wheel_right", "forearm")) and "--tip-link" in err
    outs = []
    for robot, extra in ((urdf, []), (mobile, ["--tip-link", "forearm", "--base-link", "base"])):
        out = tmp_path / f"{robot.stem}.json"
        assert main(["serial", "identify", str(path), "--robot", str(robot), "--json", str(out), *extra]) == 0
        outs.append(json.loads(out.read_text()))
    for key in ("fv", "fs", "rms_validation"):
        assert outs[1][key] == outs[0][key]
    # the chain options belong to URDFs: a robot file says so
    assert main(["serial", "identify", str(path), "--robot", "tx40", "--tip-link", "link_6"]) == 2
    assert "pick a chain in a URDF" in capsys.readouterr().err
