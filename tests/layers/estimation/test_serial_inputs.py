"""serial identify's inputs chosen from the recording: torque source, rates, velocities; every refusal names the fix."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from paperlib.cli import main
from paperlib.estimation.serial_inputs import choose_rates, excitation_bandwidth, gear_matrix
from paperlib.recordings import from_arrays, write_recording
from paperlib.robots.serial import SerialArm
from paperlib.twin.robots import serial_log as sl


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    arm = SerialArm.named("tx40")
    fr = sl.tx40_friction()
    pi = sl.true_params(arm, fr["fv"], fr["fs"])
    tr = sl.exciting_trajectory(arm, seed=0)
    fs = 100.0
    t = np.arange(6000) / fs
    q, qd, qdd = tr(t)
    tau = arm.regressor(q, qd, qdd) @ pi + np.random.default_rng(0).normal(size=q.shape) * 0.02
    return arm, fr, t, q, qd, tau, tmp_path_factory.mktemp("inputs")


def _write(tmp, name, q, channels, **kw):
    p = tmp / f"{name}.nc"
    write_recording(from_arrays(q, sample_rate_hz=100.0, robot="tx40", source="twin", channels=channels,
                                truth={"withheld": "test"}, **kw), p)
    return str(p)


def _identify(args, tmp, capsys):
    out = tmp / "o" / f"r{abs(hash(tuple(args)))}.json"
    rc = main(["serial", "identify", *args, "--robot", "tx40", "--json", str(out)])
    cap = capsys.readouterr()
    return rc, (json.loads(out.read_text()) if rc == 0 else None), cap.err


def test_bandwidth_and_rates_from_the_recording(twin) -> None:
    _, _, t, q, *_ = twin
    bw = excitation_bandwidth(q, 100.0)
    assert 0.3 <= bw <= 0.55  # 5 harmonics of 0.1 Hz
    cutoff, k, why = choose_rates(q, 100.0)
    assert cutoff == pytest.approx(5 * bw, rel=0.01) and 100.0 / k >= 8 * cutoff and "bandwidth" in why
    assert choose_rates(q, 100.0, cutoff_hz=20.0)[1] == 1  # an explicit cut-off wins; decimation follows it


def test_impossible_rates_are_refused_with_a_setting_that_works(twin) -> None:
    q = twin[3]
    with pytest.raises(ValueError, match=r"use --decimate 2 or less, or --cutoff-hz below 10"):
        choose_rates(q, 100.0, cutoff_hz=20.0, decimate=5)
    with pytest.raises(ValueError, match="--decimate must be >= 1"):
        choose_rates(q, 100.0, decimate=0)


def test_motor_side_torque_uses_the_gear_ratios_and_measured_qd_is_used(twin, capsys) -> None:
    arm, fr, t, q, qd, tau, tmp = twin
    R = gear_matrix(arm)
    tau_motor = tau @ np.linalg.inv(R)  # tau = R^T tau_m  <=>  tau_m (row) = tau R^-1
    p = _write(tmp, "motor", q, {"tau_m": tau_motor, "qd": qd}, torque_side="motor", origins={"qd": "tachometer"})
    rc, res, err = _identify([p], tmp, capsys)
    assert rc == 0, err
    assert "motor side" in res["choices"]["torque"] and "origin 'tachometer'" in res["choices"]["kinematics"]
    assert np.all(np.abs(np.array(res["fv_total"]) / fr["fv"] - 1) < 0.02)
    assert np.all(np.abs(np.array(res["fs"]) / fr["fs"] - 1) < 0.02)


def test_tau_s_is_taken_when_it_is_the_only_torque(twin, capsys) -> None:
    arm, fr, t, q, qd, tau, tmp = twin
    rc, res, err = _identify([_write(tmp, "sensor", q, {"tau_s": tau})], tmp, capsys)
    assert rc == 0 and res["config"]["torque"] == "tau_s" and "first of" in res["choices"]["torque"]


@pytest.mark.parametrize("channels, extra, match", [
    ({}, [], r"no torque channel.*add tau_m"),
    ({"tau_s": "tau"}, ["--torque", "tau_m"], r"channel 'tau_m' missing.*use --torque tau_s"),
    ({"current": "tau"}, [], r"needs drive gains: give --drive-gains"),
    ({"current": "tau"}, ["--drive-gains", "1,1,1"], r"--drive-gains has 3 values; robot 'tx40' has 6"),
    ({"current": "tau"}, ["--payload-run", "x.nc"], r"--payload-run and --payload go together"),
    ({"tau_s": "tau"}, ["--payload-run", "PAY", "--payload", "1,0,0,0.1"], r"give --torque current"),
    ({"current": "tau"}, ["--payload-run", "PAY", "--payload", "1,0,0"], r"--payload has 3 values; give --payload MASS"),
    ({"tau_s": "tau"}, ["--kinematics", "measured"], r"no qd: leave --kinematics out"),
    ({"tau_s": "tau"}, ["--cutoff-hz", "30", "--decimate", "4"], r"use --decimate 1 or less"),
    ({"tau_s": "tau"}, ["--v-gate", "100"], r"never pass the velocity gate.*lower --v-gate"),
])
def test_every_refusal_names_what_to_change(twin, capsys, channels, extra, match) -> None:
    arm, fr, t, q, qd, tau, tmp = twin
    p = _write(tmp, f"r{abs(hash(str(channels)))}", q, {k: tau for k in channels})
    extra = [str(tmp / "sensor_pay.nc") if x == "PAY" else x for x in extra]
    if "PAY" in str(extra) or any("sensor_pay" in x for x in extra):
        _write(tmp, "sensor_pay", q, {"current": tau})
    rc, _, err = _identify([p, *extra], tmp, capsys)
    assert rc == 2 and re.search(match, err), err


def test_wrong_joint_count_is_refused_naming_the_robot_option(twin, capsys) -> None:
    arm, fr, t, q, qd, tau, tmp = twin
    p = _write(tmp, "three", q[:, :3], {"tau_s": tau[:, :3]})
    rc, _, err = _identify([p], tmp, capsys)
    assert rc == 2 and "3 joints, but robot 'tx40' has 6 (joint_1" in err and "give the robot of this recording" in err


def test_paperlib_identify_on_a_users_arm_names_serial_identify(twin, capsys) -> None:
    arm, fr, t, q, qd, tau, tmp = twin
    p = tmp / "my_arm.nc"
    write_recording(from_arrays(q, sample_rate_hz=100.0, robot="my_arm", source="hardware", channels={"tau_s": tau}), p)
    assert main(["identify", str(p)]) == 1
    err = capsys.readouterr().err
    assert f"paperlib serial identify {p} --robot ARM.urdf" in err
    p2 = tmp / "tx40_run.nc"
    write_recording(from_arrays(q, sample_rate_hz=100.0, robot="tx40", source="hardware", channels={"tau_s": tau}), p2)
    assert main(["identify", str(p2)]) == 1
    assert "a serial arm: identify it with `paperlib serial identify" in capsys.readouterr().err
