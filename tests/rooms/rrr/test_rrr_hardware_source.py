"""The rrr room's ``--source hardware``: refused without a rig; on the emulated rig (root, lock-step) its sampling
run is the experiment's motion through the real master and the one real-time loop, labelled simulated
(``source = twin``, ``rig = emulated-hardware``), and its physics is the twin's.

Lock-step as ``tests/layers/hardware/test_three_rrr_rig.py``: the emulated plant advances one period per
process-data frame, the link thresholds are wide, and nothing about the host's timing is asserted.
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from paperlib.experiments.kit.rig_config import RigUnavailable
from paperlib.experiments.rrr import rig_runs
from paperlib.provenance import REPO_ROOT

RIG = REPO_ROOT / "config" / "rigs" / "three_rrr.toml"


def _args(**kw):
    base = {"source": "hardware", "rig_config": None, "emulate_rig": False, "config": None, "results_dir": None,
            "figures_dir": None, "archive": None}
    return argparse.Namespace(**{**base, **kw})


def test_hardware_without_a_rig_is_refused(tmp_path):
    with pytest.raises(RigUnavailable, match="needs a rig configuration file.*not made by the twin"):
        rig_runs.reproduce_check({}, _args())
    from paperlib.experiments.cli import check_rooms

    msg = check_rooms(["rrr"], _args())
    assert msg is not None and msg.startswith("reproduce: rrr: source 'hardware' needs a rig configuration")
    # a real rig needs its interface; the hint names the emulated alternative
    text = RIG.read_text().replace('interface = "enp3s0"', 'interface = "paperlib-absent0"')
    rig = tmp_path / "rig.toml"
    rig.write_text(text)
    with pytest.raises(RigUnavailable, match="'paperlib-absent0' is not present.*--emulate-rig.*3-RRR twin"):
        rig_runs.reproduce_check({}, _args(rig_config=str(rig)))
    with pytest.raises(RigUnavailable, match="'paperlib-absent0' is not present"):
        rig_runs.record_sampling_on_rig(rig, tmp_path / "out.nc", emulated=False)
    assert not (tmp_path / "out.nc").exists()
    # the room's keys: a drive train
    no_joint = tmp_path / "no_joint.toml"
    no_joint.write_text(text.replace("[joint]", "[joint_unused]"))
    with pytest.raises(RigUnavailable, match=r"lacks \[joint\] gear_ratio"):
        rig_runs.reproduce_check({}, _args(rig_config=str(no_joint), emulate_rig=True))


def test_the_rig_runs_the_twins_sampling_reference_and_loops():
    from paperlib.experiments.rrr import sampling
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin

    duration, session, emulator = rig_runs.sampling_session(1000.0)
    robot, twin = ThreeRRR.default(), ThreeRRRTwin.default()
    ref = sampling.sampling_reference(robot, 1000.0, a_max=sampling.A_MAX_SAMPLING_M_S2)
    r = session["reference"]
    assert duration == ref["t"].size / 1000.0 and r.q_sp.shape == (ref["t"].size, 3) and not r.relative
    assert np.array_equal(r.kp, twin.kp) and np.array_equal(r.kd, twin.kd)
    assert r.velocity_filter_s == twin.velocity_filter_s
    assert np.allclose(robot.fk(r.q_sp), ref["p"], atol=1e-9)  # the drive-angle reference is the platform's
    assert np.allclose(emulator["p0_m"], ref["p"][0])
    with pytest.raises(RigUnavailable, match="500 Hz"):
        rig_runs.sampling_session(500.0)


pysoem = pytest.importorskip("pysoem")



@pytest.mark.root
def test_a_short_sampling_run_on_the_emulated_rig(netns_available, tmp_path):
    from paperlib.experiments.rrr import recorded
    from paperlib.experiments.rrr.run import sampling_recording
    from paperlib.recordings import read_recording, validate
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin

    out = tmp_path / "sampling_pd.nc"
    n = 3000  # 2 s at rest at the centre, then the move towards the first position
    rig_runs.record_sampling_on_rig(RIG, out, emulated=True, max_duration_s=n / 1000.0)
    ds = read_recording(out)
    validate(ds, str(out))
    assert (ds.attrs["source"], ds.attrs["rig"], ds.attrs["robot"]) == ("twin", "emulated-hardware", "three_rrr")
    assert ds.attrs["controller"] == "PD (drive loops, no compensation)" and ds.attrs["stop_reason"] == "completed"
    # the last sample's torque is reported in the cycle after it: the rig file's torque_actual_lag_cycles = 1
    m = n - 1
    assert set(ds.data_vars) >= set(rig_runs.KEPT_CHANNELS) and ds.sizes["time"] == m and ds.sizes["joint"] == 3
    assert "torque_actual_lag_cycles" in ds["tau_m"].attrs["aligned"]
    assert ds["tau_m"].attrs["side"] == "joint" and ds["tau_tgt"].attrs["side"] == "joint"
    assert recorded.twin_from_recording(ds).drive_gain == ThreeRRRTwin.default().drive_gain  # the truth travels
    # the same reference on the twin's own closed loop: the same motion and torques, up to the rig's
    # latency (a command acts one frame later than in the twin's loop) and the per-mille rounding
    tw = sampling_recording(ThreeRRR.default(), ThreeRRRTwin.default())
    q_rig, q_twin = ds["q"].values, tw["q"].values[:m]
    travel = np.ptp(q_twin, axis=0)
    assert travel.max() > 0.05
    assert np.abs(q_rig - q_twin).max() < 0.02 * travel.max()
    t_rig, t_twin = ds["tau_m"].values, tw["tau_m"].values[:m]
    rms = np.sqrt(np.mean(t_twin ** 2, axis=0))
    assert np.all(np.sqrt(np.mean((t_rig - t_twin) ** 2, axis=0)) < 0.2 * rms)
    # aligned, the torques match the twin's sample for sample better than as the drives reported them
    # (one sample later)
    aligned = np.sqrt(np.mean((t_rig[1:] - t_twin[1:]) ** 2))
    as_reported = np.sqrt(np.mean((t_rig[:-1] - t_twin[1:]) ** 2))
    print(f"torque rms difference to the twin: aligned {aligned:.4g} N m, as reported {as_reported:.4g} N m")
    assert aligned < as_reported
