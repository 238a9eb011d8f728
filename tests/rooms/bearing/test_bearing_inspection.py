"""Paper 004 on the twin: the regression recovers the intrinsic components, the load-cell error
drops after compensation, the classifier is judged on a population it was not tuned on, and the
command line refuses files without the channels it needs."""

import json
import subprocess
import sys

import numpy as np
import pytest

from paperlib import recordings as rec
from paperlib.experiments.bearing import classifier, inspection, runs
from paperlib.provenance import REPO_ROOT
from paperlib.twin.robots.wheel_bearing import population


@pytest.fixture(scope="module")
def no_load():
    return runs.no_load_run(seed=1)


@pytest.fixture(scope="module")
def model():
    ds = runs.no_load_recording(seed=1)
    m, info = inspection.fit_intrinsic([ds])
    assert info["kinematics"][0].startswith("Butterworth")    # derived from q: the file has none
    return m


def test_regression_recovers_the_intrinsic_components(no_load, model):
    truth = no_load.truth["intrinsic"]
    # ripple: the twin's orders and amplitudes
    amps = model.ripple_amplitudes()
    for c in truth["ripple"]:
        key = min(amps, key=lambda k: abs(float(k) - c["order"]))
        assert abs(float(key) - c["order"]) < 0.05, f"order {c['order']} not fitted"
        assert amps[key] == pytest.approx(c["amplitude_Nm"], abs=0.01)
    # per-direction levels (offset + Coulomb): what the basis can identify
    lv = model.levels()
    assert lv["level_pos"] == pytest.approx(truth["level_pos_Nm"], abs=0.03)
    assert lv["level_neg"] == pytest.approx(truth["level_neg_Nm"], abs=0.03)
    assert model.named_weights_["inertia"] == pytest.approx(truth["sensed_inertia_kg_m2"], rel=0.3)
    # the predicted intrinsic torque follows the noise-free truth to well below the sensor noise
    pred = model.predict(no_load.q_true, no_load.qd, no_load.qdd)
    err = pred - sum(no_load.intrinsic.values())
    assert np.sqrt(np.mean(err ** 2)) < 0.015
    # Fig. 3c components add up to the prediction
    comps = model.components(no_load.q_true, no_load.qd, no_load.qdd)
    np.testing.assert_allclose(sum(comps.values()), pred, atol=1e-12)


def test_rms_error_against_the_load_cell_drops_in_three_trials(model):
    b = population("good", 1, 7)[0]
    res = [inspection.inspect(runs.bearing_recording(b, seed=s), model) for s in (11, 12, 13)]
    for r in res:
        assert r["rms_error_before"] > 0.15
        assert r["rms_error_after"] < 0.5 * r["rms_error_before"]
    after = [r["rms_error_after"] for r in res]
    assert np.ptp(after) < 0.03                              # repeatable over trials


def test_classifier_rates_come_from_the_held_out_population(model):
    st = classifier.classification_study(model, n_per_grade=6, tune_seed=10, test_seed=20)
    tune, test = st["populations"]["tuning"], st["populations"]["held_out"]
    assert not set(np.round(tune["true_rms"], 12)) & set(np.round(test["true_rms"], 12))
    worn = np.array(test["grade"]) == "worn"
    for k in classifier.STATISTICS:
        t = st["own_threshold"][k]["threshold_Nm"]
        # the threshold comes from the tuning population: recomputing it there gives the same
        assert t == classifier.choose_threshold(np.array(tune[k]), np.array(tune["grade"]) == "worn")
        stat = np.array(test[k])
        assert st["own_threshold"][k]["held_out"]["false_reject_rate"] == np.mean(stat[~worn] > t)
        assert st["own_threshold"][k]["held_out"]["false_accept_rate"] == np.mean(stat[worn] <= t)
    # with a load-cell specification, the uncompensated sensor rejects good bearings
    ref = st["reference_threshold"]
    assert ref["uncompensated"]["held_out"]["false_reject_rate"] > ref["compensated"]["held_out"]["false_reject_rate"]
    with pytest.raises(ValueError):
        classifier.classification_study(model, n_per_grade=2, tune_seed=5, test_seed=5)


def test_choose_threshold_separates_separable_sets():
    t = classifier.choose_threshold(np.array([1.0, 1.1, 1.2, 2.0, 2.1]), np.array([0, 0, 0, 1, 1], bool))
    assert t == pytest.approx(1.6)


class _Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _cli(*args, cwd):
    """``paperlib bearing ARGS`` in this process (the same entry point as the console script)."""
    import contextlib
    import io
    import os

    from paperlib.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(["bearing", *args])
            except Exception:  # a traceback is a failure of the "clear error" contract
                import traceback

                traceback.print_exc(file=err)
                rc = 99
    finally:
        os.chdir(old)
    return _Result(rc, out.getvalue(), err.getvalue())


def test_console_entry_point_runs_bearing(tmp_path):
    r = subprocess.run([sys.executable, "-m", "paperlib", "bearing", "fit", "missing.nc"], cwd=tmp_path,
                       capture_output=True, text=True, env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and "missing.nc" in r.stderr and "Traceback" not in r.stderr


def test_cli_fit_inspect_and_refusals(tmp_path, model):
    nl = runs.no_load_recording(seed=2)
    # any robot name, two joints: the bearing joint chosen with --joint
    q2 = np.c_[np.zeros(nl.sizes["time"]), nl["q"].values[:, 0]]
    ts2 = np.c_[np.zeros(nl.sizes["time"]), nl["tau_s"].values[:, 0]]
    other = rec.from_arrays(q2, sample_rate_hz=1000.0, robot="some_other_arm", source="twin",
                            channels={"tau_s": ts2}, truth={"copied_from": "bearing twin"}, seed=2, writer="test")
    rec.write_recording(other, tmp_path / "nl.nc")
    b = runs.bearing_recording(population("good", 1, 7)[0], seed=11)
    rec.write_recording(b, tmp_path / "b.nc")
    no_tau_s = rec.from_arrays(nl["q"].values, sample_rate_hz=1000.0, robot="x", source="twin",
                               channels={"tau_ref": nl["tau_s"].values}, truth={}, seed=0, writer="test")
    rec.write_recording(no_tau_s, tmp_path / "no_tau_s.nc")

    r = _cli("fit", "nl.nc", "--json", "m.json", cwd=tmp_path)
    assert r.returncode == 1 and "2 joints" in r.stderr and "--joint" in r.stderr
    r = _cli("fit", "nl.nc", "--joint", "2", "--json", "m.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "m.json").read_text())
    for key in ("weights", "alpha", "orders", "residual_rms", "source"):
        assert key in m
    r = _cli("inspect", "--model", "m.json", "b.nc", "--threshold", "1.05", "--json", "out.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path / "out.json").read_text())["files"]["b.nc"]
    for key in ("rms_error_before", "rms_error_after", "bearing_torque_rms", "verdict"):
        assert key in out
    assert out["rms_error_after"] < out["rms_error_before"] and out["verdict"] in ("pass", "fail")

    r = _cli("fit", "no_tau_s.nc", cwd=tmp_path)
    assert r.returncode == 1 and "no_tau_s.nc" in r.stderr and "'tau_s'" in r.stderr and "Traceback" not in r.stderr
    r = _cli("inspect", "--model", "m.json", "nl.nc", "--joint", "2", cwd=tmp_path)
    assert r.returncode == 1 and "nl.nc" in r.stderr and "'tau_ref'" in r.stderr and "Traceback" not in r.stderr


def test_periodogram_finds_a_non_integer_wave_generator_order_on_the_twin():
    """A ratio that is not an integer (e.g. a pre-stage before the harmonic drive) puts the wave
    generator's ripple between integer orders; the periodogram finds it and the fit keeps it."""
    from paperlib.twin.robots.torque_joint import TorqueJointTwin

    twin = TorqueJointTwin(gear_ratio=80.5)                    # wave-generator ripple at 161 per revolution
    ds = runs.to_recording(runs.no_load_run(twin, seed=4), kind="no_load", seed=4, config={})
    m, _ = inspection.fit_intrinsic([ds])
    near = [k for k in m.orders_ if abs(k - 161.0) < 0.1]
    assert near, m.detected_orders_
    assert m.ripple_amplitudes()[f"{near[0]:g}"] == pytest.approx(0.05, abs=0.01)
    m0, _ = inspection.fit_intrinsic([ds], detect_orders=False)
    assert m.residual_rms_ < 0.8 * m0.residual_rms_
