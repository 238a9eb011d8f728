"""The thermal-campaign arm's rig: six CSP drives and RTD terminals, against the campaign twin behind emulated devices.

Pure tests of the rig file (its chain, modes, channels, ``[arm]`` table and its refusals) and of the
campaign arm as a plant (at rest it holds under gravity only with the drives' torque; heated
gearboxes warm up); then, as root, ``paperlib hardware selftest --rig config/rigs/tx40_thermal.toml``
in lock step: the real master brings the nine slaves up with every axis in CSP, the arm follows the
start of a campaign day's program, and the recording (``source = twin``, ``rig = emulated-hardware``)
carries the drives' torques and the RTDs' gearbox temperatures with their sources.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.hardware.rig_settings import load_rig_settings
from paperlib.provenance import REPO_ROOT

RIG_FILE = REPO_ROOT / "config" / "rigs" / "tx40_thermal.toml"


def test_the_rig_file_describes_six_csp_axes_and_six_gearbox_rtds():
    s = load_rig_settings(RIG_FILE)
    assert s.robot == "tx40" and s.twin == "tx40_campaign" and s.cycle_hz == 250.0 and not s.imu_enabled
    assert [a.mode for a in s.axes] == ["csp"] * 6 and len({a.slave for a in s.axes}) == 6
    assert [(c.signal, c.joint) for c in s.terminals] == [("temperature", j) for j in range(6)]
    from paperlib.hardware.arm_rig import ArmRig, ArmTrain

    train = ArmTrain.from_settings(s)
    assert train.gear_ratio == (32.0, 32.0, 45.0, -48.0, 45.0, 32.0)
    rig = ArmRig(s)
    assert rig.n_joints == 6 and rig.channels == ("q", "qd", "tau_m", "temperature")
    cfg = rig.ethercat_config()
    assert cfg.gear_ratio == train.gear_ratio and abs(cfg.cycle_time_s - 0.004) < 1e-12


@pytest.mark.parametrize("arm, match", [
    ({}, r"needs \[arm\] gear_ratio"),
    ({"gear_ratio": [1.0] * 5}, r"gear_ratio has 5 values for 6 axes"),
    ({"gear_ratio": [1.0] * 6, "speed": 1}, r"unknown key\(s\) \['speed'\]"),
    ({"gear_ratio": [1.0] * 6, "q_min_deg": [10.0] * 6, "q_max_deg": [0.0] * 6}, "q_min_deg < q_max_deg"),
])
def test_a_bad_arm_table_is_refused_naming_the_rig(arm, match):
    from dataclasses import replace

    from paperlib.hardware.arm_rig import ArmTrain

    s = replace(load_rig_settings(RIG_FILE), arm=arm)
    with pytest.raises(ValueError, match=match) as info:
        ArmTrain.from_settings(s)
    assert "tx40_thermal.toml" in str(info.value)


def _arm(**truth_overrides):
    from paperlib.twin.robots.campaign import load_campaign_params, friction_rows, design_two_node
    from paperlib.twin.robots.campaign_plant import CampaignArmPlant
    from paperlib.twin.thermal import thermal_array

    params = load_campaign_params()
    rise = params.inner_rise_K / 20.0  # [K/W]: a design power of 20 W per gearbox
    nets = [design_two_node(params.tau1_s[j], params.tau2_s[j], rise[j], params.fast_share[j]) for j in range(6)]
    truth = {"friction_rows": friction_rows(params).tolist(), "ambient_degC": 20.0,
             "thermal_params": thermal_array(nets).tolist(), "fault": None, **truth_overrides}
    q0 = np.array([0.0, -0.5, 1.2, 0.0, 0.5, 0.0])
    return CampaignArmPlant(truth, q0, (32.0, 32.0, 45.0, -48.0, 45.0, 32.0), 0.004, np.zeros(6)), params


def test_the_plant_holds_only_with_the_gravity_torque_and_heats_a_moving_gearbox():
    arm, params = _arm()
    q0 = arm.q.copy()
    g = arm._rb(q0, np.zeros(6), np.zeros(6))  # the arm's gravity torques at the start pose [N m]
    assert abs(g[1]) > 5.0  # the shoulder carries the arm
    arm.tau_motor[:] = g / arm.gear
    for _ in range(250):
        arm.advance(0.004)
    np.testing.assert_allclose(arm.q, q0, atol=1e-9)  # held (friction never drives)
    np.testing.assert_allclose(arm.report * arm.gear, g, rtol=1e-12)  # reported: what the drives apply
    # the same arm left without torque sags under gravity
    arm2, _ = _arm()
    for _ in range(50):
        arm2.advance(0.004)
    assert abs(arm2.q[1] - q0[1]) > 0.01
    # joint 1 (vertical axis) turned at constant torque: friction power heats its gearbox, not the others
    arm3, _ = _arm()
    arm3.tau_motor[:] = g / arm3.gear
    arm3.tau_motor[0] = 3.0 * params.friction["coulomb_Nm"][0] / 32.0
    for _ in range(2500):
        arm3.advance(0.004)
    assert arm3.qd[0] > 0.1
    assert arm3.x[0, 0] > 20.01 and np.all(arm3.x[1:, 0] == pytest.approx(20.0, abs=1e-3))


def _loop_frame(code: int, n: int = 6, **per_axis: float) -> dict:
    from paperlib.hardware.emulators.axis_loop import AxisLoop

    base = AxisLoop(kp_pos=30.0, kp_vel=0.05, ki_vel=1.5)
    f = {k: np.zeros(n) for k in ("hold", "q_ref", "v_ff", "limit", "kp_pos", "kp_vel", "ki_vel", "integral", "applied")}
    f["code"] = np.full(n, code, dtype=np.int64)
    f["kp_pos"][:], f["kp_vel"][:], f["ki_vel"][:], f["limit"][:] = base.kp_pos, base.kp_vel, base.ki_vel, 10.0
    for k, v in per_axis.items():
        f[k][:] = v
    return f


def test_one_inner_step_closes_the_loop_as_the_drive_does_once_per_frame():
    """n_steps = 1: the torque is AxisLoop.torque's at the frame's start, the step advance()'s."""
    from paperlib.hardware.cia402 import MODE_CSP
    from paperlib.hardware.emulators.axis_loop import LOOP_CSP, AxisLoop

    arm, _ = _arm()
    ref = arm.q * arm.gear + 0.01  # motor-side targets a little ahead
    loops = [AxisLoop(kp_pos=30.0, kp_vel=0.05, ki_vel=1.5) for _ in range(6)]
    tau = np.array([lp.torque(MODE_CSP, r, qm, 0.0, 0.004, 10.0) for lp, r, qm in zip(loops, ref, arm.q * arm.gear)])
    twin, _ = _arm()
    twin.tau_motor[:] = tau
    twin.advance(0.004)
    arm.loops.update(_loop_frame(LOOP_CSP, q_ref=ref))
    arm.advance_loops(0.004, 1)
    np.testing.assert_allclose(arm.tau_motor, tau, rtol=1e-12)
    np.testing.assert_allclose(arm.q, twin.q, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(arm.qd, twin.qd, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(arm.loops["integral"], [lp.integral for lp in loops], rtol=1e-12)
    np.testing.assert_allclose(arm.x, twin.x, rtol=1e-12)  # the same friction heat


def test_inner_steps_hold_the_arm_where_one_step_per_frame_rings():
    """The drives' loops closed 16 times per 4-ms frame hold the start pose against gravity far closer."""
    from paperlib.hardware.emulators.axis_loop import LOOP_CSP
    from paperlib.hardware.emulators.arm_rig import loop_gains

    def run(n_steps: int, bandwidth: float) -> float:
        arm, _ = _arm()
        ref = arm.q * arm.gear
        gains = loop_gains(float(np.mean(arm.motor_inertia())), bandwidth)
        worst = 0.0
        for k in range(500):
            frame = _loop_frame(LOOP_CSP, q_ref=ref, limit=50.0, **gains)
            frame["integral"][:] = arm.loops["integral"] if k else 0.0
            arm.loops.update({key: v for key, v in frame.items() if key != "applied"})
            arm.advance_loops(0.004, n_steps)
            worst = max(worst, float(np.max(np.abs(arm.q * arm.gear - ref))) if k > 250 else 0.0)
        return worst

    one, sixteen = run(1, 120.0), run(16, 1000.0)
    assert sixteen < 0.2 * one, (one, sixteen)  # motor-side [rad], measured in the second second


@pytest.mark.parametrize("n_steps", [0, 1, 16])
def test_a_joint_held_by_its_stiction_does_not_move_the_others(n_steps):
    """Joint 2 turns at constant speed under exactly its bias and friction torque, the other joints held at
    rest by their friction with a drive torque off balance (within breakaway): whatever that torque, it is
    the held joints' friction that takes it, so joint 2 keeps its speed and the held joints stay put.
    ``n_steps`` 0: :meth:`advance` (the torque held over the frame), else :meth:`advance_loops` (CST)."""
    from paperlib.friction.lugre import FR_FS
    from paperlib.hardware.emulators.axis_loop import LOOP_CST

    runs = []
    for sign in (1.0, -1.0):
        arm, _ = _arm()
        q0 = arm.q.copy()
        arm.qd[1] = 1.0
        h = arm._rb(arm.q, arm.qd, np.zeros(6))  # C qd + g [N m]
        off = sign * 0.5 * arm.rows[:, FR_FS] * np.array([1.0, 0.0, -1.0, 1.0, -1.0, 1.0])  # half the breakaway
        joint = h + off
        joint[1] = h[1] + arm.friction(1, 1.0)
        if n_steps:
            arm.loops.update(_loop_frame(LOOP_CST, hold=0.0))
            arm.loops["hold"][:] = joint / arm.gear
            arm.advance_loops(0.004, n_steps)
        else:
            arm.tau_motor[:] = joint / arm.gear
            arm.advance(0.004)
        held = [0, 2, 3, 4, 5]
        np.testing.assert_array_equal(arm.qd[held], 0.0)
        np.testing.assert_array_equal(arm.q[held], q0[held])
        runs.append(arm.qd[1])
    # joint 2's speed does not depend on the held joints' off-balance torques (before: ~1e-3 rad/s apart)
    assert runs[0] == pytest.approx(1.0, abs=1e-9) and runs[1] == pytest.approx(runs[0], abs=1e-9), runs


def test_a_drive_refuses_inner_steps_without_a_plant_that_runs_them():
    from paperlib.hardware.emulators.devices import Cia402Drive, InertiaPlant

    with pytest.raises(ValueError, match="InertiaPlant has not"):
        Cia402Drive(InertiaPlant(), inner_steps=4, modes=("csp",))
    assert Cia402Drive(InertiaPlant(), inner_steps=1, modes=("csp",)).inner_steps == 1


# --------------------------------------------------------------------------------------------
# network test: the self-test in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")


@pytest.mark.root
def test_selftest_of_the_thermal_arm_in_lockstep(tmp_path):
    from paperlib.hardware import netns
    from paperlib.hardware.selftest import LOCKSTEP_LINK, selftest

    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(reason)
    link = {k: v for k, v in LOCKSTEP_LINK.items() if k != "max_imu_age_s"}
    s = selftest(8.0, rig_file=RIG_FILE, workdir=tmp_path, json_out=tmp_path / "st.json", lockstep=True, **link)
    assert s["fault"] is None and s["stop_reason"] == "completed" and s["recording_valid"], s.get("fault")
    assert s["robot"] == "tx40" and s["source"] == "twin" and s["rig"] == "emulated-hardware"
    assert s["slaves_found"] == 9 and s["cycles"] == 2000
    sig = s["signals"]
    # the arm follows the program (the drives' own loops, one 4-ms frame late)
    assert max(sig["tracking_error_rms_deg"]) < 0.5, sig["tracking_error_rms_deg"]
    # every gearbox has its RTD; they start at the day's ambient and lag the twin's inner nodes
    T = sig["temperature"]
    assert T["joints_with_rtd"] == [1, 2, 3, 4, 5, 6]
    assert all(a <= b + 0.05 for a, b in zip(T["last_degC"], T["twin_last_degC"]))
    assert all(b > f for f, b in zip(T["first_degC"], T["twin_last_degC"]))
    src = s["channel_sources"]
    assert src["temperature"]["3"]["terminal"] == "EL3202 gearboxes 3-4" and src["tau_m"]["6"]["mode"] == "csp"
    # the drives were left disabled, the twin's gearboxes warmed
    assert all(st == ["switch on disabled"] for st in (d["axis_states"] for d in s["emulator"]["drives"]))
    from paperlib.recordings import read_recording

    ds = read_recording(s["recording"])
    assert ds.attrs["rig"] == "emulated-hardware" and ds.attrs["source"] == "twin" and ds.attrs["robot"] == "tx40"
    assert ds["temperature"].attrs.get("units") == "degC" and np.isfinite(ds["temperature"].values).all()
