"""``paperlib thermal fit`` / ``monitor`` on short twin days: keys, fault alarms, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.cli import main
from paperlib.recordings import from_arrays, write_recording
from paperlib.twin.robots import campaign as C

CYCLES = 4
ONSET_S = 10 * 60.0


@pytest.fixture(scope="module")
def days(tmp_path_factory):
    params = C.load_campaign_params()
    rb = C.tx40_rigid_body()
    d = tmp_path_factory.mktemp("thermal")
    specs = [C.DaySpec(1, k + 1, f, seed=10 + k) for k, f in enumerate((1.0, 0.6))]
    specs.append(C.DaySpec(1, 5, 1.0, fault=(1, 1.32, ONSET_S), seed=20))
    paths = {}
    for s in specs:
        p = d / f"{s.name}.nc"
        write_recording(C.day_recording(C.simulate_day(params, s, rigid_body=rb, cycles=CYCLES)), p)
        paths[s.name] = p
    return d, paths


@pytest.mark.slow  # ~40-70 s here: simulates three 20-min days and fits six joints
def test_fit_and_monitor(days, capsys):
    d, paths = days
    model = d / "model.json"
    train = [str(paths[n]) for n in ("r1_d1", "r1_d2")]
    assert main(["thermal", "fit", *train, "--json", str(model), "--maxiter", "25", "--quiet"]) == 0
    m = json.loads(model.read_text())
    assert m["source"] == "twin" and sorted(m["joints"]) == [str(j) for j in range(1, 7)]
    for j, e in m["joints"].items():
        for key in ("t1_min", "t2_min", "cold_hot_ratio", "friction_ref", "k", "c1", "c2", "tau1_min",
                    "tau2_min", "alpha"):
            assert key in e, (j, key)
        assert len(e["friction_ref"]) == 2 * CYCLES and len(e["k"]) == 2 * CYCLES
        assert all(len(row) == 2 for row in e["friction_ref"]) and all(len(k) == 4 for k in e["k"])
        fr = np.array(e["friction_ref"])
        idx = np.array(e["cycle_test"])
        for t in (0, 1):  # friction falls while warming (20 min are too few to fix the hot level)
            assert fr[idx == t][0, 1] > 1.05 * fr[idx == t][-1, 1]
        assert e["gravity_removed"] == (j in ("2", "3"))
        # every failed diagnostic rule reached the user (the model JSON's warnings, stderr)
        for msg in e["diagnostics"]["messages"]:
            assert f"thermal fit, joint {j}: {msg}" in m["warnings"]
    out = d / "alarms.json"
    assert main(["thermal", "monitor", "--model", str(model), str(paths["r1_d5_fault"]), "--json", str(out)]) == 0
    a = json.loads(out.read_text())
    assert set(a) >= {"alarms", "first_alarm_min"}
    assert a["first_alarm_min"] is not None
    j1 = [x for x in a["alarms"] if x["joint"] == 1]
    assert j1 and ONSET_S / 60 <= j1[0]["time_min"] <= ONSET_S / 60 + 10  # within 10 min of the onset
    assert all(x["time_min"] >= ONSET_S / 60 for x in j1)  # joint 1 alarms only after the onset
    # (no-false-alarm on held-out healthy days is measured on the full campaign in notebook 02:
    # a model fitted on 2 x 20 min here is too weak to promise it for the other joints)
    # monitor and fit share one prediction: a training day stays under its own threshold
    out2 = d / "healthy.json"
    assert main(["thermal", "monitor", "--model", str(model), train[0], "--json", str(out2)]) == 0
    h = json.loads(out2.read_text())
    assert h["alarms"] == [] and h["first_alarm_min"] is None
    # without the thermal model the same fault is not separated from the cold start
    out3 = d / "nothermal.json"
    assert main(["thermal", "monitor", "--model", str(model), str(paths["r1_d5_fault"]), "--no-thermal",
                 "--json", str(out3)]) == 0
    b = json.loads(out3.read_text())
    r = np.array(b["joints"]["1"]["ratio"])
    t = np.array(b["joints"]["1"]["time_min"])
    assert r[t >= ONSET_S / 60].min() < m["joints"]["1"]["threshold_no_thermal"]


def test_clear_errors(tmp_path, capsys):
    with pytest.raises(SystemExit, match="no such recording"):
        main(["thermal", "fit", str(tmp_path / "missing.nc")])
    q = np.zeros((500, 1))
    ds = from_arrays(q, sample_rate_hz=250.0, robot="tx40", source="hardware", writer="test")
    p = tmp_path / "no_torque.nc"
    write_recording(ds, p)
    with pytest.raises(SystemExit, match="tau_m"):
        main(["thermal", "fit", str(p)])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit, match="cannot read the model"):
        main(["thermal", "monitor", "--model", str(bad), str(p)])
