"""A seventh robot is data: a planar 3-DOF serial arm added by a URDF and a TOML file alone.

In a temporary copy of the package and its data, the arm's two files go into ``data/robots/``,
``python -m paperlib.codegen`` derives its kernels and the kernel-set dispatch, and the arm
records on the twin runner under the PD controller (the same compiled control step and plant as
the 5R). Every file that changed is listed: only the two data files and generated kernels.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from paperlib.provenance import REPO_ROOT

REPO = REPO_ROOT

URDF = """<robot name="planar3">
  <link name="base"/>
  <joint name="j1" type="revolute"><origin xyz="0 0 0" rpy="0 0 0"/><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <link name="l1"><inertial><origin xyz="0.15 0 0" rpy="0 0 0"/><mass value="1.0"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.0085" iyz="0" izz="0.0085"/></inertial></link>
  <joint name="j2" type="revolute"><origin xyz="0.3 0 0" rpy="0 0 0"/><parent link="l1"/><child link="l2"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <link name="l2"><inertial><origin xyz="0.125 0 0" rpy="0 0 0"/><mass value="0.8"/>
    <inertia ixx="0.0008" ixy="0" ixz="0" iyy="0.0045" iyz="0" izz="0.0045"/></inertial></link>
  <joint name="j3" type="revolute"><origin xyz="0.25 0 0" rpy="0 0 0"/><parent link="l2"/><child link="l3"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <link name="l3"><inertial><origin xyz="0.1 0 0" rpy="0 0 0"/><mass value="0.5"/>
    <inertia ixx="0.0004" ixy="0" ixz="0" iyy="0.0018" iyz="0" izz="0.0018"/></inertial></link>
</robot>
"""

TOML = """# A planar 3-DOF arm in the horizontal plane (test robot): kinematics and inertials in planar3.urdf.
[robot]
name = "planar3"
kind = "serial_arm"
urdf = "planar3.urdf"

[drives]
gear_ratio = [1.0, 1.0, 1.0]
max_torque_Nm = [40.0, 40.0, 40.0]

[control]
sample_rate_hz = 1000.0
kp_Nm_per_rad = [60.0, 40.0, 20.0]
kd_Nm_s_per_rad = [4.0, 2.5, 1.2]
"""

# the user's run script: existing layer APIs only (robots.load, Controller, LoopArrays, run, recordings)
RUN = r'''
import json, sys
import numpy as np
from paperlib import robots
from paperlib.control import controllers as ctl
from paperlib.friction import FrictionModel
from paperlib.friction.lugre import FrictionJoint, friction_array
from paperlib.recordings import make_recording, write_recording
from paperlib.twin import drives as dr, runner, thermal as th

robot = robots.load("planar3")
n, rate = robot.n_joints, robot.sample_rate_hz
t = np.arange(int(4.0 * rate)) / rate
amp, w = np.array([0.4, 0.3, 0.5]), 2 * np.pi * np.array([0.3, 0.45, 0.6])
q_sp = np.ascontiguousarray(amp * np.sin(w * t[:, None]) + np.array([0.3, 0.8, -0.6]))
qd_sp = np.ascontiguousarray(amp * w * np.cos(w * t[:, None]))
qdd_sp = np.ascontiguousarray(-amp * w ** 2 * np.sin(w * t[:, None]))
fj = FrictionJoint(coulomb_Nm=0.2, static_Nm=0.25, stribeck_velocity_rad_per_s=0.1, stribeck_exponent=2.0,
                   viscous_Nm_s_per_rad=0.05, viscous_thinning_velocity_rad_per_s=100.0, viscous_exponent=1.0,
                   bristle_stiffness_Nm_per_rad=500.0, bristle_damping_Nm_s_per_rad=1.0,
                   bristle_damping_velocity_rad_per_s=0.05, coulomb_temp_coeff_per_K=0.0,
                   viscous_temp_decay_per_K=0.0, reference_temperature_degC=22.0)
common = dr.DriveCommon(drive_peak_current_A=50.0, drive_continuous_current_A=20.0, current_loop_bandwidth_Hz=1500.0,
                        current_loop_damping=0.8, bus_voltage_V=48.0, quantize_torque_permille=0.0,
                        joint_max_speed_rad_per_s=20.0, joint_peak_torque_required_Nm=30.0)
axes = [dr.DriveAxis(gear_ratio=float(g), torque_constant_nominal_Nm_per_A=0.5, torque_constant_true_Nm_per_A=0.5,
                     current_sense_gain=1.0, current_sense_offset_A=0.0, rated_torque_Nm=30.0, motor_peak_torque_Nm=40.0,
                     max_torque_permille=1000.0, motor_max_speed_rpm=6000.0) for g in robot.gear_ratios]
c = ctl.Controller(robot, ctl.ControllerConfig(name="PD", estimate=False, model=FrictionModel(joints=(1, 2, 3), order=1)),
                   rate)
la = runner.LoopArrays.build(robot=robot, controller=c, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp, sample_rate_hz=rate,
                             fric=friction_array([fj] * n), therm_x=np.zeros((0, th.N_THERMAL_STATE)),
                             therm_disc=np.zeros((0, th.N_THERMAL_DISC)), T_amb=22.0,
                             drv=dr.drive_array(common, axes, 1.0 / rate), D_drive=np.diag(robot.gear_ratios),
                             enc_step=np.full(n, 2 * np.pi / 2 ** 20))
status, k = runner.run(la)
assert status == 0 and k == len(t), (status, k)
f = la["log_f"]
ds = make_recording(t, [1, 2, 3], {"q": f[:, 0, :n], "tau_m": f[:, 3, :n], "q_sp": q_sp}, robot=robot.name,
                    source="twin", sample_rate_hz=rate, controller="PD", torque_side="motor", seed=0,
                    truth={"friction": friction_array([fj] * n).tolist()}, writer="tests/layers/symbolic/test_seventh_robot.py")
write_recording(ds, sys.argv[1])
diag = la["log_diag"]
np.save(sys.argv[1] + ".diag.npy", diag)
print(json.dumps({"rms": float(np.sqrt(np.mean((la["log_truth"][:, 0, :n] - q_sp) ** 2))),
                  "M": robot.mass_bias(q_sp[0], np.zeros(n))[0].tolist()}))
'''


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _run(args: list[str], root: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("PAPERLIB_ROBOT_PATH", None)
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_seventh_robot_is_a_urdf_and_a_toml(tmp_path):
    root = tmp_path / "repo"
    for d in ("paperlib", "data"):
        shutil.copytree(REPO / d, root / d, ignore=shutil.ignore_patterns("__pycache__", "*.nc"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    before = _snapshot(root)
    # -- the robot: two data files ------------------------------------------------------------
    (root / "data" / "robots" / "planar3.urdf").write_text(URDF)
    (root / "data" / "robots" / "planar3.toml").write_text(TOML)
    # -- codegen: its kernels and the dispatch --------------------------------------------------
    gen = _run(["-m", "paperlib.codegen", "planar3", "dispatch"], root, 1800)
    assert gen.returncode == 0, gen.stderr
    assert "wrote   paperlib/kernels/planar3.py" in gen.stdout
    assert _run(["-m", "paperlib.codegen", "--check", "planar3", "dispatch"], root, 1800).returncode == 0
    # -- it records on the twin runner under PD -----------------------------------------------------
    out = tmp_path / "planar3_pd.nc"
    run = _run(["-c", RUN, str(out)], root, 2400)
    assert run.returncode == 0, run.stderr[-3000:]
    res = json.loads(run.stdout.strip().splitlines()[-1])
    # -- which files changed: the two data files and generated kernels only ----------------------------
    after = _snapshot(root)
    changed = sorted(k for k in after if before.get(k) != after[k])
    assert sorted(set(before) - set(after)) == []
    assert changed == ["data/robots/planar3.toml", "data/robots/planar3.urdf", "paperlib/kernels/dispatch.py",
                       "paperlib/kernels/planar3.py"], changed
    for f in changed:
        if f.endswith(".py"):
            assert (root / f).read_text().startswith("# GENERATED FILE - DO NOT EDIT."), f
    # -- the recording and its physics -----------------------------------------------------------------
    with xr.open_dataset(out) as ds:
        assert ds.attrs["robot"] == "planar3" and ds.attrs["source"] == "twin"
        q, q_sp = ds["q"].values, ds["q_sp"].values
    assert q.shape == (4000, 3) and np.all(np.isfinite(q))
    err = np.sqrt(np.mean((q[1000:] - q_sp[1000:]) ** 2, axis=0))
    assert np.all(err < 0.1 * np.array([0.4, 0.3, 0.5])), err      # PD tracks the motion
    assert res["rms"] < 0.05
    # the generated mass matrix: symmetric positive definite, and the outer link's inertia about
    # joint 3 is its own: I_zz + m c^2 = 0.0018 + 0.5 * 0.1^2
    M = np.array(res["M"])
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    np.testing.assert_allclose(M[2, 2], 0.0018 + 0.5 * 0.1 ** 2, rtol=1e-12)
    # energy: kinetic energy gained = motor work - friction dissipation (horizontal plane: no gravity)
    diag = np.load(str(out) + ".diag.npy")
    ek, wm, wf = diag[:, 0], diag[:, 1], diag[:, 2]
    balance = (ek - ek[0]) - (wm - wf - (wm[0] - wf[0]))
    assert np.max(np.abs(balance)) < 1e-3 * max(np.max(np.abs(wm)), 1e-9), np.max(np.abs(balance))
