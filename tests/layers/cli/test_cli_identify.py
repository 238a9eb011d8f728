"""`paperlib identify` says when its estimate is implausible, and how far a twin's estimate is from the truth."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperlib.cli import main
from paperlib.estimation.plausibility import DRIVE_GAIN_BAND
from paperlib.recordings import truth, write_recording
from paperlib.twin.robots.five_bar import simulate


@pytest.fixture(scope="module")
def ctc(tmp_path_factory):
    """A 15-s CTC run of the twin, from the paper's worst-case start (pi_pds = 1, pi_F = 0)."""
    ds = simulate(controller="CTC", duration_s=15.0, seed=3)
    path = tmp_path_factory.mktemp("identify") / "ctc.nc"
    write_recording(ds, path)
    return ds, path


def _identify(path, tmp_path, capsys):
    out = tmp_path / "out.json"
    capsys.readouterr()
    assert main(["identify", str(path), "--json", str(out)]) == 0
    err = capsys.readouterr().err
    return json.loads(out.read_text()), err


def test_twin_run_gives_errors_against_the_truth_and_no_warning(ctc, tmp_path, capsys) -> None:
    ds, path = ctc
    res, err = _identify(path, tmp_path, capsys)
    true_pds = truth(ds)["pi_pds"]
    errs = res["truth_errors"]
    print(json.dumps(errs, indent=1), res["converged_s"])
    for k, row in enumerate(errs["pi_pds"]):
        assert row["true"] == pytest.approx(true_pds[k])
        assert row["estimate"] == pytest.approx(res["pi_pds"][k])
        assert row["relative_error_percent"] == pytest.approx(100 * (res["pi_pds"][k] / true_pds[k] - 1))
        assert abs(row["relative_error_percent"]) < 1.0  # the estimator recovers the twin's gains
        assert f"{row['name']}: {row['estimate']:.4f} against the twin's {row['true']:.4f}" in err
    for row in errs["friction"]:
        assert 0 < row["rms_error_Nm"] < 0.10 * row["rms_true_Nm"]  # ~4 % seen: the model lumps passive joints in
        assert f"friction, joint {row['joint']}" in err
    assert res["warnings"] == [] and "warning" not in err


def test_random_torques_warn(ctc, tmp_path, capsys) -> None:
    """Torques that do not drive the motion (white noise of the same size): the drive gains leave the band
    and the user is told, in the JSON and on stderr."""
    ds, _ = ctc
    bad = ds.copy(deep=True)
    rng = np.random.default_rng(0)
    bad["tau_m"].values[:] = rng.normal(0.0, float(ds["tau_m"].std()), ds["tau_m"].shape)
    path = write_recording(bad, tmp_path / "random.nc")
    res, err = _identify(path, tmp_path, capsys)
    print(res["pi_pds"], res["converged_s"], res["warnings"])
    lo, hi = DRIVE_GAIN_BAND
    assert any(not lo <= g <= hi for g in res["pi_pds"])
    assert any("drive gain" in w and "outside the plausible band" in w for w in res["warnings"])
    assert "paperlib identify: warning: drive gain" in err


def test_torque_in_wrong_unit_warns(ctc, tmp_path, capsys) -> None:
    """Drive torque logged in N cm but labelled N m: every gain is ~100x too small."""
    ds, _ = ctc
    bad = ds.copy(deep=True)
    bad["tau_m"].values[:] *= 100.0
    path = write_recording(bad, tmp_path / "ncm.nc")
    res, err = _identify(path, tmp_path, capsys)
    assert all(g < DRIVE_GAIN_BAND[0] for g in res["pi_pds"])
    assert "outside the plausible band" in err


def test_hardware_recording_has_no_truth(ctc, tmp_path, capsys) -> None:
    ds, _ = ctc
    hw = ds.copy(deep=True)
    hw.attrs["source"] = "hardware"
    del hw.attrs["truth"]
    path = write_recording(hw, tmp_path / "hw.nc")
    res, err = _identify(path, tmp_path, capsys)
    assert "truth_errors" not in res and "against the twin's truth" not in err
