"""--model auto (paperlib.estimation.model_selection) on data of known friction order, and the identify CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperlib.estimation.model_selection import select_friction_model
from paperlib.experiments.mems.synthetic import synthetic_recording

#: True coefficients per joint, orders 0..w (N m, N m s/rad, ...).
TRUE = {4: (1.2, 0.9, -0.15, 1.0, 0.8, -0.12), 5: (1.2, 0.9, 1.0, 0.8)}


@pytest.mark.parametrize("model", [4, 5])
def test_auto_picks_the_known_order(model: int) -> None:
    ds = synthetic_recording(6.0, seed=5, controller="CTC", model=model, pi_F=TRUE[model], torque_noise_Nm=0.02)
    sel = select_friction_model(ds)
    assert sel["chosen"] == str(model), {k: (v["n_params"], v["bic_eff"]) for k, v in sel["candidates"].items()}
    assert set(sel["candidates"]) == {"1", "2", "3", "4", "5"}
    # a model that cannot hold the truth is clearly worse on every criterion's scale
    if model == 4:
        c = sel["candidates"]
        assert c["5"]["rms_Nm"] > 1.1 * c["4"]["rms_Nm"] and c["5"]["bic_eff"] > c["4"]["bic_eff"] + 100
        assert sel["picks"]["cv"] in ("2", "3", "4")


def test_identify_cli_auto_encoder_and_std(tmp_path: Path) -> None:
    from paperlib.cli import main
    from paperlib.recordings import write_recording

    ds = synthetic_recording(4.0, seed=2, controller="CTC", model=5, pi_F=TRUE[5], torque_noise_Nm=0.02)
    rec = write_recording(ds, tmp_path / "syn.nc")
    out = tmp_path / "out.json"
    assert main(["identify", str(rec), "--model", "auto", "--kinematics", "encoder:kalman", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["kinematics"]["source"] == "encoder" and "Kalman" in d["kinematics"]["design"]
    assert d["model"] == int(d["model_selection"]["chosen"])
    assert set(d["model_selection"]["candidates"]) == {"1", "2", "3", "4", "5"}
    assert len(d["pi_pds_std"]) == 2 and [len(x) for x in d["pi_F_std"]] == [len(x) for x in d["pi_F"]]
    assert all(s > 0 for s in d["pi_pds_std"])
    assert main(["identify", str(rec), "--model", "3", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["kinematics"]["source"] == "imu" and "model_selection" not in d
    assert main(["identify", str(rec), "--kinematics", "lidar"]) == 1
