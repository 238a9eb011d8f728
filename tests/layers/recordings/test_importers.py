"""Importers: a rosbag2 of JointState written by rosbags, a jittery CSV; resample_uniform; refusals name the fix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.cli import main
from paperlib.recordings import read_recording, resample_uniform
from paperlib.robots.serial import SerialArm
from paperlib.twin.robots import serial_log as sl


def _twin_run(duration_s=60.0, jitter_s=0.004):
    arm = SerialArm.named("tx40")
    fr = sl.tx40_friction()
    pi = sl.true_params(arm, fr["fv"], fr["fs"])
    run = sl.logged_run(arm, pi, duration_s=duration_s, jitter_s=jitter_s, noise_nm=fr["noise_Nm"], seed=5)
    return arm, fr, run


def test_resample_uniform_reports_jitter_and_interpolates_a_smooth_signal() -> None:
    rng = np.random.default_rng(0)
    t = np.arange(3000) * 0.01 + rng.uniform(-0.005, 0.005, 3000)
    t[0] = 0.0
    x = np.sin(2 * np.pi * 0.7 * t)
    time, out, rep = resample_uniform(t, {"x": x})
    assert rep.sample_rate_hz == 100.0 and rep.resampled
    assert rep.step_max_s > 0.015 and rep.step_min_s < 0.005
    assert np.max(np.abs(out["x"] - np.sin(2 * np.pi * 0.7 * time))) < 2e-5  # cubic: ~(w dt)^4 / 384


def test_resample_uniform_refuses_a_gap_and_says_how_to_fix_it() -> None:
    t = np.r_[np.arange(100) * 0.01, 1.5 + np.arange(100) * 0.01]
    with pytest.raises(ValueError, match="gap of 0.51 s.*cut the log"):
        resample_uniform(t, {"x": np.zeros(200)})


def test_resample_uniform_refuses_unsorted_time() -> None:
    with pytest.raises(ValueError, match="sort the log by time"):
        resample_uniform(np.array([0.0, 0.01, 0.005, 0.02, 0.03]), {"x": np.zeros(5)})


def _write_bag(path, run, names, stamps=None):
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_HUMBLE)
    JS, Header, Time = (ts.types[k] for k in ("sensor_msgs/msg/JointState", "std_msgs/msg/Header",
                                              "builtin_interfaces/msg/Time"))
    gains = np.asarray(run.truth["drive_gains"])
    with Writer(path, version=9) as w:
        conn = w.add_connection("/joint_states", JS.__msgtype__, typestore=ts)
        for k, tk in enumerate(run.t if stamps is None else stamps):
            t_abs = 1_700_000_000.0 + tk
            sec = int(t_abs)
            msg = JS(header=Header(stamp=Time(sec=sec, nanosec=int(round((t_abs - sec) * 1e9))), frame_id=""),
                     name=list(names), position=run.q[k].copy(), velocity=np.zeros(0),
                     effort=run.current[k] * gains)
            w.write(conn, int(t_abs * 1e9), ts.serialize_cdr(msg, JS.__msgtype__))


def test_rosbag2_of_joint_states_imports_and_identifies(tmp_path) -> None:
    arm, fr, run = _twin_run()
    bag = tmp_path / "bag"
    _write_bag(bag, run, arm.joint_names)
    out = tmp_path / "run.nc"
    assert main(["import", "rosbag2", str(bag), "--topic", "/joint_states", "--robot", "tx40", "-o", str(out)]) == 0
    ds = read_recording(out)
    assert ds.attrs["source"] == "hardware" and ds["tau_m"].attrs["side"] == "joint" and "qd" not in ds
    assert ds.attrs["sample_rate_hz"] == 100.0
    res_path = tmp_path / "o" / "res.json"
    assert main(["serial", "identify", str(out), "--robot", "tx40", "--json", str(res_path)]) == 0
    res = json.loads(res_path.read_text())
    assert res["config"]["torque"] == "tau_m" and res["source"] == "hardware"
    assert np.all(np.abs(np.array(res["fv_total"]) / fr["fv"] - 1) < 0.05)
    assert np.all(np.abs(np.array(res["fs"]) / fr["fs"] - 1) < 0.05)


def test_rosbag2_unknown_topic_is_refused_naming_the_topics(tmp_path, capsys) -> None:
    arm, _, run = _twin_run(duration_s=2.0)
    _write_bag(tmp_path / "bag", run, arm.joint_names)
    assert main(["import", "rosbag2", str(tmp_path / "bag"), "--topic", "/js", "--robot", "tx40",
                 "-o", str(tmp_path / "x.nc")]) == 2
    assert "topics: ['/joint_states']: give --topic" in capsys.readouterr().err


def _write_csv(path, run, stamps_ms=True):
    cols = ["stamp"] + [f"pos_{j}" for j in range(1, 7)] + [f"i_{j}" for j in range(1, 7)]
    lines = [",".join(cols)]
    for k in range(run.t.size):
        vals = [run.t[k] * 1e3] + list(np.degrees(run.q[k])) + list(run.current[k] * 1e3)
        lines.append(",".join(f"{v:.10g}" for v in vals))
    path.write_text("\n".join(lines) + "\n")


def test_csv_with_header_and_jittery_time_imports(tmp_path, capsys) -> None:
    _, _, run = _twin_run(duration_s=20.0)
    log = tmp_path / "log.csv"
    _write_csv(log, run)
    out = tmp_path / "run.nc"
    assert main(["import", "csv", str(log), "--columns", "time=stamp@ms;q=pos_{1..6}@deg;current=i_{1..6}@mA",
                 "--robot", "tx40", "-o", str(out)]) == 0
    assert "steps" in capsys.readouterr().err  # the jitter report
    ds = read_recording(out)
    assert ds.attrs["source"] == "hardware" and ds.attrs["sample_rate_hz"] == 100.0
    # the resampled angle equals the twin's trajectory on the uniform grid (to interpolation accuracy)
    tr = sl.exciting_trajectory(SerialArm.named("tx40"), seed=0)
    q_true, _, _ = tr(ds["time"].values)
    assert np.max(np.abs(ds["q"].values - q_true)) < 1e-4
    assert np.allclose(ds["current"].values.std(axis=0), run.current.std(axis=0), rtol=0.02)


@pytest.mark.parametrize("spec, match", [
    ("q=pos_{1..6}", "no 'time'"),
    ("time=stamp@ms;q=pos_{1..6}@grad", "unit 'grad' of 'q' is not one of"),
    ("time=stamp;q=pos_{1..6};current=i_{1..5}", "give every channel one column per joint"),
    ("time=stamp;q=pos_{1..6};torque=i_{1..6}", "not a channel of the schema"),
    ("time=stamp;q=p_{1..6}", "not in the header .*fix --columns"),
])
def test_csv_refusals_name_the_fix(tmp_path, capsys, spec, match) -> None:
    _, _, run = _twin_run(duration_s=1.0)
    log = tmp_path / "log.csv"
    _write_csv(log, run)
    assert main(["import", "csv", str(log), "--columns", spec, "--robot", "tx40", "-o", str(tmp_path / "x.nc")]) == 2
    import re

    assert re.search(match, capsys.readouterr().err)
