"""The bearing room's ``--source hardware``: refused without a rig; on the emulated rig (root, lock-step) its
recordings are the experiment's motion through the real master and the one real-time loop, labelled simulated
(``source = twin``, ``rig = emulated-hardware``), and their physics is the twin's.

Lock-step as ``tests/layers/hardware/test_bearing_rig.py``: the emulated joint advances one cycle per
process-data frame, the link thresholds are wide, and nothing about the host's timing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
import pytest

from paperlib.experiments.bearing import pipeline
from paperlib.experiments.kit.rig_config import RigUnavailable
from paperlib.provenance import REPO_ROOT

RIG = REPO_ROOT / "config" / "rigs" / "bearing.toml"


def _args(**kw):
    base = {"source": "hardware", "rig_config": None, "emulate_rig": False, "config": None, "results_dir": None,
            "figures_dir": None, "archive": None}
    return argparse.Namespace(**{**base, **kw})


def test_hardware_without_a_rig_file_is_refused():
    with pytest.raises(RigUnavailable, match="needs a rig configuration file.*not made by the twin"):
        pipeline.reproduce_check({}, _args())
    from paperlib.experiments.cli import check_rooms

    msg = check_rooms(["bearing"], _args())
    assert msg is not None and msg.startswith("reproduce: bearing: source 'hardware' needs a rig configuration")


def test_a_real_rig_needs_its_interface_and_the_room_its_keys(tmp_path):
    text = RIG.read_text().replace('interface = "enp3s0"', 'interface = "paperlib-absent0"')
    rig = tmp_path / "rig.toml"
    rig.write_text(text)
    with pytest.raises(RigUnavailable, match="'paperlib-absent0' is not present"):
        pipeline.reproduce_check({}, _args(rig_config=str(rig)))
    no_joint = tmp_path / "no_joint.toml"
    no_joint.write_text(text.replace("[joint]", "[joint_unused]"))
    with pytest.raises(RigUnavailable, match=r"lacks \[joint\] gear_ratio"):
        pipeline.reproduce_check({}, _args(rig_config=str(no_joint), emulate_rig=True))
    from paperlib.experiments.cli import check_rooms

    assert "needs --source hardware" in check_rooms(["bearing"], _args(source="twin", emulate_rig=True))


def test_populations_stay_on_the_twin_and_say_so():
    cfg = pipeline.load_config({"bearing": {"n_per_grade": 2}})
    p = pipeline.notebook_params("02_bearing_inspection", cfg, "results/bearing", "figures/bearing", source="hardware")
    assert p["source"] == "twin"


def test_the_rig_runs_the_twins_motions():
    from paperlib.experiments.bearing import runs, study
    from paperlib.experiments.bearing.rig_runs import emulator_config, session_kwargs
    from paperlib.twin.robots.torque_joint import trapezoidal_torque_profile

    plan = study.recording_plan()
    dur, kw = session_kwargs(plan["no_load_1"], 1000.0)
    np.testing.assert_array_equal(kw["tau_ff"], trapezoidal_torque_profile(duration_s=30.0, fs=1000.0))
    assert dur == 30.0 and emulator_config(plan["no_load_1"])["load"] is None
    dur, kw = session_kwargs(plan["trial_2"], 1000.0)
    q_sp, _, _ = runs.BearingProfile().setpoints(1000.0)
    assert dur * 1000.0 == q_sp.shape[0] and kw["distances_rad"] == (4 * np.pi, -4 * np.pi)
    emu = emulator_config(plan["trial_2"])
    assert emu["seed"] == plan["trial_2"]["seed"] and emu["load"] == {
        "grade": "good", "index": plan["trial_2"]["bearing_index"], "seed": plan["trial_2"]["bearing_seed"]}


# --------------------------------------------------------------------------------------------
# root: the emulated rig
# --------------------------------------------------------------------------------------------


@pytest.mark.root
def test_a_short_no_load_run_on_the_emulated_rig(netns_available, tmp_path):
    from paperlib.experiments.bearing import runs
    from paperlib.experiments.bearing.rig_runs import record_on_rig
    from paperlib.recordings import read_recording, truth, validate

    out = tmp_path / "no_load.nc"
    record_on_rig({"kind": "no-load", "seed": 3, "duration_s": 2.5}, RIG, out, emulated=True)
    ds = read_recording(out)
    validate(ds, str(out))
    assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "emulated-hardware"
    assert ds.attrs["robot"] == runs.ROBOT and ds.attrs["controller"] == "torque profile"
    assert ds.sizes["time"] == 2500 and ds.attrs["stop_reason"] == "completed"
    assert truth(ds)["kind"] == "no_load" and "intrinsic" in truth(ds)
    assert {"q", "tau_s", "tau_m", "tau_tgt"} <= set(ds.data_vars) and "qd" not in ds  # kinematics from q, as the twin's
    # the same torque profile on the twin moves the joint the same way (friction and inertia are the twin's)
    tw = runs.no_load_recording(seed=3, duration_s=2.5)
    q_rig, q_twin = ds["q"].values[:, 0], tw["q"].values[:, 0]
    travel = np.ptp(q_twin)
    assert travel > 0.1
    assert abs(np.ptp(q_rig) - travel) < 0.05 * travel
    # the sensor reads the same transmitted torque (its offset shift and noise are each run's own draws)
    s_rig, s_twin = ds["tau_s"].values[:, 0], tw["tau_s"].values[:, 0]
    assert abs(np.std(s_rig) - np.std(s_twin)) < 0.1 * np.std(s_twin)


@pytest.mark.root
@pytest.mark.build
def test_the_room_builds_from_the_emulated_rig(netns_available, tmp_path):
    cfg = tmp_path / "run.yaml"
    cfg.write_text("bearing:\n  n_per_grade: 2\n  formats: [png]\n")
    res, fig = tmp_path / "results", tmp_path / "figures"
    r = subprocess.run([sys.executable, "-m", "paperlib", "reproduce", "bearing", "--source", "hardware", "--rig-config",
                        str(RIG), "--emulate-rig", "--cores", "1", "--config", str(cfg), "--results-dir", str(res),
                        "--figures-dir", str(fig), "--quiet"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    from paperlib.recordings import read_recording

    for role in ("no_load_1", "no_load_2", "trial_1", "trial_2", "trial_3"):
        ds = read_recording(res / "bearing" / "recordings" / f"{role}.nc")
        assert (ds.attrs["source"], ds.attrs["rig"]) == ("twin", "emulated-hardware"), role
    table = (res / "bearing" / "paper_comparison.csv").read_text()
    assert "rms_after" in table and "offset" in table
