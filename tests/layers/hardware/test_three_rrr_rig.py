"""The 3-RRR's rig (config/rigs/three_rrr.toml): three single-axis drives moving one plant.

Pure tests of the rig file (its chain and drive train against the twin's description), of the
shared plant (one plant, several drives: it advances once per frame, with every drive's torque,
and every drive then reports the same instant) and of the 3-RRR twin stepped cycle by cycle
(against the closed-loop simulation it shares its compiled period with); then, as root,
``paperlib hardware selftest --rig config/rigs/three_rrr.toml`` in lock step (one twin cycle per
process-data frame: nothing here depends on the host's speed).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from paperlib.hardware.rig_settings import load_rig_settings
from paperlib.provenance import REPO_ROOT

RIG = REPO_ROOT / "config" / "rigs" / "three_rrr.toml"


def test_the_three_rrr_rig_file_is_the_twins_drive_train():
    from paperlib.hardware.emulators.rig_chain import emulated_chain
    from paperlib.hardware.joint_rig import JointRig
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin

    s = load_rig_settings(RIG)
    assert s.robot == "three_rrr" and s.twin == "three_rrr" and not s.imu_enabled and s.cycle_hz == 1000.0
    assert [c.role for c in s.chain] == ["drive"] * 3
    assert [(a.slave, a.offset) for a in s.axes] == [(0, 0), (1, 0), (2, 0)]  # one axis per drive, in drive order
    assert [spec["type"] for spec in emulated_chain(s.chain, s.axes, s.terminals)] == ["cst_drive"] * 3
    rig = JointRig(s)
    twin, robot = ThreeRRRTwin.default(), ThreeRRR.default()
    tr = rig.train
    assert rig.n_joints == 3 and rig.channels == ("q", "qd", "tau_m")
    assert tr.gear_ratio == robot.gear_ratio
    assert tr.encoder_counts_per_motor_rev * tr.gear_ratio == twin.counts_per_joint_rev
    assert tr.max_motor_torque_Nm == robot.description["drives"]["motor_torque_max_Nm"]
    assert tr.max_motor_torque_Nm * tr.gear_ratio == pytest.approx(twin.torque_limit_Nm)
    # the self-test's gains are the twin's drive loops (rounded in the file)
    assert np.allclose(twin.kp, tr.kp_Nm_per_rad, rtol=1e-3) and np.allclose(twin.kd, tr.kd_Nm_s_per_rad, rtol=1e-3)
    assert rig.ethercat_config().gear_ratio == (100.0, 100.0, 100.0)


class _Drive:
    """What a shared plant pushes to a drive that ran before the plant moved."""

    def __init__(self) -> None:
        self.actuals: list[tuple[np.ndarray, ...]] = []

    def set_actuals(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> None:
        self.actuals.append((q.copy(), qd.copy(), tau.copy()))


def test_a_shared_plant_moves_once_per_frame_with_every_drives_torque():
    from paperlib.hardware.emulators.devices import InertiaPlant
    from paperlib.hardware.emulators.shared_plant import SharedPlant

    def plant() -> InertiaPlant:
        return InertiaPlant(inertia=(1e-3, 2e-3, 3e-3), viscous=(1e-2, 2e-2, 3e-2), coulomb=(0.0, 0.0, 0.0),
                            q0=(0.0, 0.1, 0.2))

    shared, alone = SharedPlant(plant(), [1, 2]), plant()  # a single-axis drive, then a dual-axis one
    drives = [_Drive(), _Drive()]
    for view, d in zip(shared.views, drives):
        view.drive = d
    rng = np.random.default_rng(5)
    dt = 1e-3
    for k in range(50):
        tau = rng.normal(0.0, 0.05, 3)
        first = shared.views[0].step(tau[:1], dt)  # the first drive's application: the plant has not moved yet
        assert shared.advances == k
        q, qd, _ = shared.views[1].step(tau[1:], dt)  # the last one: the plant moves, with both drives' torques
        assert shared.advances == k + 1
        q_ref, qd_ref, tau_ref = alone.step(tau, dt)
        assert np.array_equal(q, q_ref[1:]) and np.array_equal(qd, qd_ref[1:])
        # the first drive got the same instant pushed to its process image, not the state its own step returned
        pushed = drives[0].actuals[-1]
        assert np.array_equal(pushed[0], q_ref[:1]) and np.array_equal(pushed[2], tau_ref[:1])
        assert k == 0 or not np.array_equal(first[0], q_ref[:1])
    assert len(drives[1].actuals) == 0  # the drive that moved the plant gets its values from its own step


def test_the_stepped_3rrr_twin_is_the_closed_loops_plant():
    """Cycle by cycle under the torques the twin's drive loops commanded, the platform moves as simulate's."""
    from paperlib.experiments.rrr import sampling
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin, simulate
    from paperlib.twin.robots.three_rrr_plant import ThreeRRRPlant

    robot, twin = ThreeRRR.default(), ThreeRRRTwin.default()
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=sampling.A_MAX_SAMPLING_M_S2)
    n = 3000  # the run dwells 2 s at the centre, then moves to the first position
    ref = {k: (v[:n] if isinstance(v, np.ndarray) and v.shape[:1] == ref["t"].shape else v) for k, v in ref.items()}
    run = simulate(robot, twin, ref)
    plant = ThreeRRRPlant(twin, robot, p0=run["p_true"][0])
    p, th = np.empty((n, 2)), np.empty((n, 3))
    for k in range(n):
        p[k], th[k] = plant.p, plant.th
        q_m, _, tau_m = plant.step(run["tau_m"][k] / plant.gear, plant.dt)
        assert np.array_equal(tau_m, run["tau_m"][k] / plant.gear)  # the drives report what they were commanded
        assert np.array_equal(q_m, plant.th * plant.gear)
    assert np.ptp(p, axis=0).max() > 0.05  # the platform moved (centimetres)
    assert np.abs(p - run["p_true"]).max() < 1e-12
    # the encoders of the loop are the same angles, quantized (half a count of 13107200 per turn)
    assert np.abs(th - run["q"]).max() <= 0.5 * 2 * math.pi / twin.counts_per_joint_rev + 1e-12
    s = plant.drive_settings()
    assert s["rated_torque_mNm"] == [640] and s["counts_per_rev"] == 131072
    assert s["max_torque_permille"][0] * 0.64e-3 * plant.gear <= twin.torque_limit_Nm


def test_a_twin_without_a_stepped_plant_is_named():
    from paperlib.twin.robots import stepped_plant_factory

    assert stepped_plant_factory("three_rrr") == "paperlib.twin.robots.three_rrr_plant:plant_from_config"
    assert stepped_plant_factory("torque_joint").endswith("torque_joint_plant:plant_from_config")
    with pytest.raises(ValueError, match="no stepped plant.*three_rrr"):
        stepped_plant_factory("five_bar")


# --------------------------------------------------------------------------------------------
# network: the self-test of the 3-RRR rig, in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")

from paperlib.hardware.selftest import LOCKSTEP_LINK  # noqa: E402

LINK = {k: v for k, v in LOCKSTEP_LINK.items() if k != "max_imu_age_s"}  # the 3-RRR rig has no IMU


@pytest.mark.root
def test_three_rrr_selftest_passes_in_lockstep(netns_available, tmp_path):
    from paperlib.hardware.selftest import selftest
    from paperlib.recordings import read_recording

    out = tmp_path / "selftest.json"
    s = selftest(4.0, rig_file=RIG, lockstep=True, workdir=tmp_path, json_out=out, **LINK)
    assert json.loads(out.read_text())["robot"] == s["robot"] == "three_rrr"
    assert s["fault"] is None and s["stop_reason"] == "completed" and s["recording_valid"], s
    assert s["cycles"] == 4000 and s["source"] == "twin" and s["rig"] == "emulated-hardware"
    assert s["slaves_found"] == 3 and [d["product"] for d in s["slaves"]] == ["0x00000B31"] * 3
    ds = read_recording(s["recording"])
    assert ds.attrs["robot"] == "three_rrr" and ds.sizes["joint"] == 3 and ds["tau_m"].attrs["side"] == "motor"
    src = json.loads(ds.attrs["channel_sources"])
    assert [src["q"][str(j)]["drive"] for j in (1, 2, 3)] == ["drive D1", "drive D2", "drive D3"]
    q, q_sp = ds["q"].values, ds["q_sp"].values
    # each drive in turn: 3 degrees out and back (the others hold, so the closed chain resists it)
    move = math.radians(3.0)
    assert np.allclose(np.ptp(q_sp, axis=0)[:2], move)
    assert np.all(np.ptp(q, axis=0)[:2] > 0.2 * move)
    # the twin's plant ran one period per frame: its clock is the frames', not the host's
    twin = s["emulator"]["twin"]
    assert twin["cycles"] >= s["cycles"] and abs(twin["t_s"] - twin["cycles"] * 1e-3) < 1e-9
