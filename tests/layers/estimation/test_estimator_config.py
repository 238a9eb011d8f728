"""One estimator configuration, whole, through every path: serialisation, twin, replay, run command line."""

import json

import numpy as np
import pytest

from paperlib.control.controllers import ControllerConfig
from paperlib.estimation.config import EstimatorConfig
from paperlib.estimation.replay import replay
from paperlib.friction import FrictionModel
from paperlib.twin.robots.five_bar import simulate


def test_round_trip_and_unknown_keys(tmp_path):
    cfg = EstimatorConfig(model=FrictionModel(joints=(1, 2), order=2, symmetric=False, name="x"), half_life_s=120.0,
                          gate_all_joints=False, pi_pds0=[0.9, 1.1], pi_F0=np.arange(12.0), P0=np.eye(14).ravel(),
                          closed_from_start=True, conv_window_s=0.5)
    assert EstimatorConfig.from_json(cfg.to_json()) == cfg
    assert EstimatorConfig.read(cfg.write(tmp_path / "e.json")) == cfg
    with pytest.raises(ValueError, match=r"e2.json: unknown estimator setting\(s\) \['half_life'\]"):
        (tmp_path / "e2.json").write_text('{"half_life": 3}')
        EstimatorConfig.read(tmp_path / "e2.json")
    with pytest.raises(ValueError, match="closed_from_start needs a warm start"):
        EstimatorConfig(closed_from_start=True)
    c = ControllerConfig.from_estimator("CTC", cfg)
    assert c.estimator_config() == cfg and ControllerConfig.from_dict(c.to_dict()) == c


def test_twin_takes_and_records_the_whole_configuration():
    est = EstimatorConfig(model=4, half_life_s=300.0, lambda_reg=2e-3, gate_velocity=0.15)
    a = simulate(controller="AC", duration_s=1.0, seed=3, imu_calibration="none", estimator=est)
    b = simulate(controller="AC", duration_s=1.0, seed=3, imu_calibration="none", model=4, half_life_s=300.0,
                 lambda_reg=2e-3, controller_overrides={"gate_velocity": 0.15})
    np.testing.assert_array_equal(a.pi_hat.values, b.pi_hat.values)
    rec = EstimatorConfig.from_recording(a)
    assert rec == est.replace(imu_delay_cycles=rec.imu_delay_cycles)
    with pytest.raises(ValueError, match="one place"):
        simulate(controller="AC", duration_s=0.1, imu_calibration="none", estimator=est, half_life_s=10.0)
    # replay with the recording's own configuration uses its settings (gate, half-life, model)
    res = replay(a, config=rec)
    assert res.config.half_life_s == 300.0 and res.model.order == 2 and res.config.gate_velocity == 0.15


def test_run_command_line_takes_a_warm_start_with_its_covariance(tmp_path):
    """The warm start that `--closed-from-start` alone could not express (it needs P0)."""
    from paperlib.cli import main
    from paperlib.recordings import read_recording

    first = simulate(controller="AC", duration_s=1.0, seed=4, imu_calibration="none")
    pi = first.pi_hat.values[-1]
    warm = EstimatorConfig(pi_pds0=pi[:2], pi_F0=pi[2:], P0=json.loads(first.attrs["estimator_P"]),
                           closed_from_start=True)
    path = warm.write(tmp_path / "warm.json")
    out = tmp_path / "run.nc"
    rc = main(["run", "--rig", "twin", "--controller", "AC", "--duration", "0.3", "--output", str(out),
               "--estimator-config", str(path)])
    assert rc == 0
    ds = read_recording(out)
    got = EstimatorConfig.from_recording(ds)
    assert got.closed_from_start and np.allclose(got.P0, warm.P0) and np.allclose(got.pi_pds0, pi[:2])
    assert float(ds.attrs["converged_s"]) == 0.0  # switches closed from the start
    assert main(["run", "--rig", "twin", "--duration", "0.1", "--output", str(out), "--estimator-config",
                 str(path), "--closed-from-start"]) == 2
