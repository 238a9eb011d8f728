"""Campaign days through the thermal arm's emulated rig, in the campaign's recording format.

``python -m paperlib.experiments.industrial.thermal record --day D --rig-config config/rigs/tx40_thermal.toml
--emulate-rig`` runs the day's program through the real master, loop and recording writer against
the emulated arm (lock step) and writes what the campaign's analysis reads. A whole day is 1.8 million
cycles; the test records the first 4 s of a day (1000 cycles) and checks the format, the labels, the
truth and the torques against the twin's own simulation of the same day.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.provenance import REPO_ROOT

RIG_FILE = REPO_ROOT / "config" / "rigs" / "tx40_thermal.toml"


def test_the_rig_path_is_refused_without_emulation(tmp_path, capsys):
    from paperlib.experiments.industrial.thermal import _main

    with pytest.raises(SystemExit):
        _main(["record", "--day", "r1_d1", "--output", str(tmp_path / "x.nc"), "--rig-config", str(RIG_FILE)])
    assert "--emulate-rig" in capsys.readouterr().err
    from paperlib.experiments.industrial.rig_days import record_day_on_rig

    with pytest.raises(ValueError, match="not 'tx40_campaign'"):
        record_day_on_rig(REPO_ROOT / "config" / "rigs" / "bearing.toml", "r1_d1", tmp_path / "x.nc", duration_s=1.0)
    with pytest.raises(ValueError, match="unknown campaign day 'r3_d1'"):
        record_day_on_rig(RIG_FILE, "r3_d1", tmp_path / "x.nc", duration_s=1.0)


pysoem = pytest.importorskip("pysoem")


#: The attribute in which a free-running run says its deadlines were not measured.
NOTE_ATTR = "deadline_statistics"


@pytest.mark.root
@pytest.mark.parametrize("free_run", [True, False], ids=["free-running", "paced"])
def test_a_campaign_day_through_the_emulated_rig(tmp_path, free_run):
    from paperlib.hardware import netns

    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(reason)
    from paperlib.experiments.industrial.rig_days import record_day_on_rig
    from paperlib.experiments.industrial.thermal import load_campaign
    from paperlib.hardware.loop import FreeRunClock
    from paperlib.recordings import truth as rec_truth
    from paperlib.twin.robots import campaign as C

    out = tmp_path / "r2_d1.nc"
    summary = record_day_on_rig(RIG_FILE, "r2_d1", out, duration_s=4.0, workdir=tmp_path, free_run=free_run)
    assert summary["cycles"] == 1000 and summary["fault"] is None
    ds = load_campaign([out])["r2_d1"]
    assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "emulated-hardware" and ds.attrs["robot"] == "tx40"
    assert ds["tau_m"].attrs["side"] == "joint" and float(ds.attrs["sample_rate_hz"]) == 250.0
    assert ds.sizes["time"] == 1000 and "temperature" in ds
    # free-running: the loop's deadlines were simulated, so the recording and the summary carry none of the
    # loop's timing keys and say why (the note's text); paced: the keys are there. Which keys are written is
    # the code's doing; their values, the host's, are not looked at.
    timing_keys = ("deadline_misses", "lateness_p99_us")
    written = {k: summary[k] is not None for k in timing_keys}
    assert written == {k: not free_run for k in timing_keys}  # which keys the summary fills, not their values
    if free_run:
        assert not set(timing_keys) & set(ds.attrs) and ds.attrs[NOTE_ATTR] == FreeRunClock.NOTE
        assert ds.attrs["loop_clock"].startswith("free-running")
    else:
        assert NOTE_ATTR not in ds.attrs
        assert ds.attrs["loop_clock"] == "host"
    # the truth is the twin's day (robot 2's spread, day 1's ambient and friction)
    params = C.load_campaign_params()
    spec = {d.name: d for d in C.campaign_days(params)}["r2_d1"]
    day = C.simulate_day(params, spec, cycles=1)
    truth = rec_truth(ds)
    np.testing.assert_allclose(truth["friction_rows"], day.truth["friction_rows"])
    assert truth["ambient_degC"] == day.truth["ambient_degC"]
    # the arm followed the day's program, and its drives' torques (joint side) are the twin's torque model
    q, tau = ds["q"].values, ds["tau_m"].values
    n = q.shape[0]
    assert np.max(np.abs(q[1:] - day.q[: n - 1])) < np.radians(3.0)
    # judged after the first second: the twin's day starts on its program with the weight carried, the
    # rig's drives first take the arm's weight over from the hold of the bring-up (a pull-in of up to
    # ~1 deg, whose length depends on how many hold frames the preparation of the run took)
    k0 = 250
    err = np.sqrt(np.mean((tau[1 + k0:] - day.tau[k0: n - 1]) ** 2, axis=0))
    scale = np.sqrt(np.mean(day.tau[k0: n - 1] ** 2, axis=0))
    print("\ntorque error RMS [N m]", err.round(3), "of RMS", scale.round(3))
    assert np.all(err < 0.5 * scale + 3.0 * np.asarray(params.torque_noise))
