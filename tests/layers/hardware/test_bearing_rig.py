"""The bearing room's rig (config/rigs/bearing.toml): its self-test, and a broken bridge wire stopping it safely.

Pure tests of the rig file (its chain, terminals and drive train) and of the joint twin stepped cycle
by cycle (against the whole-run simulation it shares its physics with); then, as root, ``paperlib
hardware selftest --rig config/rigs/bearing.toml`` in lock step (the emulated joint advances one
cycle per process-data frame: nothing here depends on the host's speed), and the same with the load
cell's wire breaking during the run.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from paperlib.hardware.rig_settings import load_rig_settings
from paperlib.provenance import REPO_ROOT

RIG = REPO_ROOT / "config" / "rigs" / "bearing.toml"


def test_the_bearing_rig_file():
    from paperlib.hardware.joint_rig import JointRig

    s = load_rig_settings(RIG)
    assert s.robot == "kinova_gen3_joint7_twin" and s.twin == "torque_joint" and not s.imu_enabled
    assert [c.role for c in s.chain] == ["drive", "bridge", "bridge"] and len(s.axes) == 1
    assert [(c.signal, c.unit, c.rated_load, c.tare) for c in s.terminals] == [
        ("tau_s", "N m", 20.0, False), ("tau_ref", "N m", 2.0, True)]
    rig = JointRig(s)
    assert rig.channels == ("q", "qd", "tau_m", "tau_s", "tau_ref") and rig.train.gear_ratio == 100.0
    assert rig.ethercat_config().terminals == s.terminals


def test_the_stepped_joint_twin_is_the_whole_run_simulation():
    """Cycle by cycle under the torques of a no-load run, the joint moves as run_joint simulates it."""
    from paperlib.twin.robots.torque_joint import TorqueJointTwin, run_joint, trapezoidal_torque_profile
    from paperlib.twin.robots.torque_joint_plant import TorqueJointPlant

    twin = TorqueJointTwin()
    tau = trapezoidal_torque_profile(duration_s=3.0)
    run = run_joint(twin, tau_ff=tau, seed=4)
    plant = TorqueJointPlant(twin, seed=4, cycle_s=1e-3)
    q = np.zeros(tau.size)
    for k in range(tau.size):
        q[k] = plant.state[0]
        plant.step(np.array([tau[k] / twin.gear_ratio]), 1e-3)
    assert np.ptp(run.q_true) > 0.3  # it moved (0.37 rad in these 3 s)
    np.testing.assert_allclose(q, run.q_true, rtol=0, atol=1e-9)
    # the sensor's offset of this run: the same draws as run_joint's
    assert plant.offset_shift_Nm == run.truth["run"]["sensor_offset_shift_Nm"]


def test_the_imu_rig_refuses_a_rig_file_without_the_imu_board():
    from paperlib.hardware.rig import HardwareRig

    s = load_rig_settings(RIG)
    with pytest.raises(ValueError, match=r"no IMU board .*JointRig"):
        HardwareRig(s)


# --------------------------------------------------------------------------------------------
# network: the self-test of the bearing rig, in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")

from paperlib.hardware.selftest import LOCKSTEP_LINK  # noqa: E402

LINK = {k: v for k, v in LOCKSTEP_LINK.items() if k != "max_imu_age_s"}  # the bearing rig has no IMU


@pytest.mark.root
def test_bearing_selftest_passes_in_lockstep(netns_available, tmp_path):
    from paperlib.hardware.selftest import selftest
    from paperlib.recordings import read_recording

    out = tmp_path / "selftest.json"
    # the emulated load cell reads 0.1 N m at zero load (its zero, 0.1 mV/V at 2 mV/V per 2 N m): the tare removes it
    s = selftest(3.5, rig_file=RIG, lockstep=True, workdir=tmp_path, json_out=out, **LINK,
                 emulator={"terminals": {"EL3356 load cell": {"zero_mV_V": 0.1}}})
    assert json.loads(out.read_text())["robot"] == s["robot"] == "kinova_gen3_joint7_twin"
    assert s["fault"] is None and s["stop_reason"] == "completed" and s["recording_valid"], s
    assert s["cycles"] == 3500 and s["source"] == "twin" and s["rig"] == "emulated-hardware"
    assert [d["product"] for d in s["slaves"]] == ["0x00000B10", "0x0D1C3052", "0x0D1C3052"]
    # two identical terminals: SOEM gives both the first one's SII name; the rig file's names tell them apart
    assert [d["rig_name"] for d in s["slaves"]] == ["joint drive", "EL3356 joint torque", "EL3356 load cell"]
    ds = read_recording(s["recording"])
    src = json.loads(ds.attrs["channel_sources"])
    assert src["tau_s"]["1"]["terminal"] == "EL3356 joint torque" and src["tau_s"]["1"]["chain_position"] == 1
    assert src["tau_ref"]["1"]["terminal"] == "EL3356 load cell" and src["tau_ref"]["1"]["unit"] == "N m"
    assert ds["tau_s"].attrs["units"] == "N m" and ds["qd"].attrs["origin"] == "drive"
    q, q_sp, tau_ref = ds["q"].values[:, 0], ds["q_sp"].values[:, 0], ds["tau_ref"].values[:, 0]
    assert np.ptp(q) > 0.9 * math.pi  # the joint turned half a revolution (the first move ends at 2.84 s)
    assert np.sqrt(np.mean((q - q_sp) ** 2)) < 0.1
    # tared at bring-up, the load cell reads ~0 at rest instead of its 0.1-N m zero (what is left: the tare
    # sample's noise, 1.5 mN m, and the grasp's share of the drive's 10-mN m torque steps against the bearing's
    # stiction), and the bearing's drag in motion
    rest = tau_ref[:300]
    assert abs(rest.mean()) < 0.02 and rest.std() < 5e-3
    moving = np.abs(ds["qd"].values[:, 0]) > 1.0
    assert moving.sum() > 1000 and np.mean(np.abs(tau_ref[moving])) > 0.3
    # the drive was left disabled
    assert s["emulator"]["drive"]["axis_states"] == ["switch on disabled"]


@pytest.mark.root
def test_a_broken_bridge_wire_stops_the_bearing_rig_safely(netns_available, tmp_path):
    from paperlib.hardware.selftest import selftest
    from paperlib.recordings import read_recording

    broken_at = 2500  # the load cell terminal's sample (one per process-data frame, bring-up included)
    s = selftest(6.0, rig_file=RIG, lockstep=True, workdir=tmp_path, **LINK,
                 emulator={"terminals": {"EL3356 load cell": {"broken_wire_after_samples": broken_at}}})
    assert s["stop_reason"] == "fault" and s["recording_valid"], s
    assert "EL3356 load cell" in s["fault"] and "broken bridge wire" in s["fault"] and "tau_ref" in s["fault"]
    ds = read_recording(s["recording"])
    assert "EL3356 load cell" in ds.attrs["fault"] and ds.attrs["stop_reason"] == "fault"
    n = ds.sizes["time"]
    term = s["emulator"]["terminals"][1]
    assert term["broken_wire_at_sample"] == broken_at
    # every recorded cycle came before the break (bring-up frames are samples too) and holds a valid value
    assert 0 < n < broken_at and np.all(np.isfinite(ds["tau_ref"].values))
    assert np.all(np.abs(ds["tau_ref"].values) < 2.0)  # no rail value (the broken wire's) was recorded
    assert s["emulator"]["drive"]["axis_states"] == ["switch on disabled"]
    # the fault came in the read of the cycle after the last recorded one: every completed cycle is recorded
    assert s["cycles"] in (n, n + 1)


@pytest.mark.root
def test_an_open_rtd_stops_a_joint_rig_with_its_temperature_recorded(netns_available, tmp_path):
    """The bearing rig with an EL3202 on the joint's gearbox: temperature recorded in degC, an open sensor stops it."""
    from paperlib.hardware.selftest import selftest
    from paperlib.recordings import read_recording

    rig = tmp_path / "bearing_rtd.toml"
    rig.write_text(RIG.read_text() + '\n[[ethercat.slave]]\nname = "EL3202"\nvendor_id = 0x00000002\n'
                   'product_code = 0x0C823052\nrole = "rtd"\nchannels = [{signal = "temperature", wires = 3}]\n')
    s = selftest(4.0, rig_file=rig, lockstep=True, workdir=tmp_path, **LINK,
                 emulator={"terminals": {"EL3202": {"faults": [{"channel": 1, "kind": "open", "after_samples": 2000}]}}})
    assert s["stop_reason"] == "fault" and s["recording_valid"], s
    assert "EL3202" in s["fault"] and "temperature of joint 1" in s["fault"] and "open circuit" in s["fault"]
    ds = read_recording(s["recording"])
    assert ds["temperature"].attrs["units"] == "degC"
    np.testing.assert_allclose(ds["temperature"].values, 25.0, atol=0.05)  # the twin's joint, one count = 0.1 degC
    assert json.loads(ds.attrs["channel_sources"])["temperature"]["1"]["class"] == "EL3202"
    assert 0 < ds.sizes["time"] < 2000 and s["emulator"]["drive"]["axis_states"] == ["switch on disabled"]
