"""The public TX40 recording: registry, mirrors, checksums, import (joint side), identification.

Only :func:`test_real_tx40_recording` needs the data files; it finds them through
``PAPERLIB_DATA_MIRROR`` or at ``../shared/external/staubli_tx40`` next to the clone, and is
skipped (saying so) when neither holds them. Everything else runs anywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.data import DataError, fetch, find_mirror, load_dataset_registry
from paperlib.data.tx40 import coupling_matrix, motor_to_joint
from paperlib.robots.serial import SerialArm

MIRROR = find_mirror("tx40")


def test_registry_entry_states_source_licence_and_checksums() -> None:
    ds = load_dataset_registry()["tx40"]
    assert ds.licence == "Apache-2.0" and ds.commit in ds.base_url
    assert set(ds.files) == {"pos_read_data.csv", "curr_data.csv", "tx40_mdh_modified.urdf"}
    assert all(len(h) == 64 for h in ds.files.values())


def test_mirror_with_a_wrong_file_is_refused_naming_it(tmp_path, monkeypatch) -> None:
    for name in load_dataset_registry()["tx40"].files:
        (tmp_path / name).write_text("not the published file\n")
    monkeypatch.setenv("PAPERLIB_DATA_MIRROR", str(tmp_path))
    with pytest.raises(DataError, match="sha256") as info:
        fetch("tx40", allow_download=False)
    assert str(tmp_path) in str(info.value)
    with pytest.raises(DataError, match="missing"):
        fetch("tx40", mirror=tmp_path / "empty")


def test_cli_reports_a_bad_mirror_without_traceback(tmp_path, capsys) -> None:
    from paperlib.cli import main

    assert main(["data", "fetch", "tx40", "--mirror", str(tmp_path), "--no-download"]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "Traceback" not in err


def test_motor_to_joint_conversion_balances_power() -> None:
    """tau = R^T tau_m with q_m = R q: joint and motor power agree; the wrist coupling is N6 (q5 + q6)."""
    rng = np.random.default_rng(0)
    qd = rng.normal(size=(50, 6))
    tau_m = rng.normal(size=(50, 6))
    R = coupling_matrix()
    qd_m = qd @ R.T
    assert np.allclose(qd_m[:, 5], 32.0 * (qd[:, 4] + qd[:, 5]))
    q, tau = motor_to_joint(qd_m, tau_m)  # angles convert like velocities, plus the zero offsets
    assert np.allclose(q - np.array([0, -np.pi / 2, np.pi / 2, 0, 0, 0]), qd)
    assert np.allclose(np.sum(tau * qd, axis=1), np.sum(tau_m * qd_m, axis=1))
    assert np.allclose(tau[:, 4], 45 * tau_m[:, 4] + 32 * tau_m[:, 5])


def test_serial_identify_cli_refuses_a_motor_side_recording_without_gear_ratios(tmp_path, capsys) -> None:
    """Motor-side torques are referred to the joints by the robot file's gear ratios; an arm without them (a bare
    URDF) is refused, naming what to add (tests/layers/estimation/test_serial_inputs.py: the conversion itself)."""
    from paperlib.cli import main
    from paperlib.recordings import from_arrays, write_recording
    from paperlib.robots.serial import SerialArm

    t = np.arange(2000) / 1000.0
    q = np.sin(2 * np.pi * 0.5 * t)[:, None] * np.ones(6)
    ds = from_arrays(q, sample_rate_hz=1000.0, robot="tx40", source="twin", channels={"tau_m": q}, torque_side="motor",
                     truth={"note": "zeros"}, writer="test")
    path = write_recording(ds, tmp_path / "motor_side.nc")
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(SerialArm.named("tx40").to_urdf())
    assert main(["serial", "identify", str(path), "--robot", str(urdf)]) == 2
    err = capsys.readouterr().err
    assert "no [drive] gear_ratios" in err and "add them to its robot file" in err


@pytest.mark.skipif(MIRROR is None, reason="the TX40 files are not here: set PAPERLIB_DATA_MIRROR or put them in "
                    "../shared/external/staubli_tx40 (the public files, see paperlib/data/registry.toml)")
def test_real_tx40_recording(tmp_path) -> None:
    import pinocchio as pin

    from paperlib.cli import main
    from paperlib.recordings import read_recording

    out = tmp_path / "tx40.nc"
    assert main(["data", "fetch", "tx40", "--no-download", "--output", str(out)]) == 0
    ds = read_recording(out)
    assert ds.attrs["source"] == "hardware" and ds.attrs["licence"] == "Apache-2.0"
    assert "figaroh" in ds.attrs["origin"] and ds["tau_m"].attrs["side"] == "joint"
    assert "N m" in ds["tau_m"].attrs["unit_assumption"]
    assert ds.sizes == {"time": 45000, "joint": 6} and ds.attrs["sample_rate_hz"] == 5000.0
    # the unit assumption: at rest, joint 2 holds the nominal model's gravity torque (N m, not A)
    q0 = ds["q"].values[:250]
    arm = SerialArm.named("tx40")
    g = arm.inverse_dynamics(q0, 0 * q0, 0 * q0).mean(axis=0)
    assert ds["tau_m"].values[:250, 1].mean() / g[1] == pytest.approx(1.0, abs=0.2)
    # the published URDF is the arm of data/robots/tx40.toml
    urdf = MIRROR / "tx40_mdh_modified.urdf"
    ua = SerialArm.from_urdf(urdf)
    assert np.array_equal(ua.R0, arm.R0) and np.allclose(ua.p0, arm.p0, atol=1e-15)
    assert np.allclose(ua.inertial, arm.inertial, atol=1e-12)
    # and our generated regressor matches pinocchio's on the published file itself (its pi/2 is 1.57079632679)
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    q, qd, qdd = arm.random_states(5, seed=9, v_max=5.0, a_max=30.0)
    Y = arm.inertial_regressor(q, qd, qdd)
    for s in range(5):
        Yp = pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])
        assert np.max(np.abs(Y[s] - Yp)) / np.max(np.abs(Yp)) < 1e-9
    # identification of the real record: friction positive, held-out motion predicted
    js = tmp_path / "id.json"
    assert main(["serial", "identify", str(out), "--robot", "tx40", "--method", "wls", "--json", str(js)]) == 0
    import json

    res = json.loads(js.read_text())
    # decimation chosen from the recording (cut-off 5 x the excitation's bandwidth, >= 8 samples per cut-off period)
    assert res["source"] == "hardware" and res["samples_used"] > 500 and res["config"]["decimate"] > 10
    assert all(v > 0 for v in res["fs"]) and all(v > 0 for v in res["fv"][:5]) and all(v > 0 for v in res["fv_total"])
    assert res["holdout_from_s"] < res["motion_span_s"][1] < 8.0  # hold-out is motion, not the final rest
    assert all(0 < r < 0.5 for r in res["rms_validation_relative"])
    for key in ("offset", "coupling", "base_parameters", "std", "rms_validation", "condition_number"):
        assert key in res
    assert set(res["coupling"]) == {"Iam6", "fvm6", "fsm6"}
