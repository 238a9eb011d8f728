"""Experiment functions on small synthetic data with known answers (paperlib.experiments)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from paperlib import comparison as cmp
from paperlib.experiments.mems.comparison import HEADLINES
from paperlib.experiments.mems import friction_fits as ff
from paperlib.experiments.mems import model_order as mo
from paperlib.experiments.mems import sources
from paperlib.experiments.mems import temperature as tp
from paperlib.experiments.mems import tracking as tr
from paperlib.friction import table4_model


@pytest.fixture(scope="module")
def synth():
    from paperlib.experiments.mems.synthetic import synthetic_recording

    return synthetic_recording(6.0, seed=3, controller="CTC")


# -- model order ------------------------------------------------------------------------------

N_PAR = {1: 27, 2: 12, 3: 10, 4: 8, 5: 6}


def test_knee_rule_picks_the_knee_on_constructed_curves() -> None:
    # models 1-3 within 2 % of the best, then a 20 % jump: the knee is model (3)
    rho = {1: 1.00, 2: 1.01, 3: 1.02, 4: 1.25, 5: 1.6}
    c = mo.choose_model(rho, N_PAR, mo.KneeRule(0.05, 0.10))
    assert c["chosen"] == 3 and c["knee_confirmed"] and c["best"] == 1 and c["next_simpler"] == 4
    assert c["gap_to_next_simpler"] == pytest.approx(1.25 / 1.02 - 1)
    assert c["qualifying"] == [1, 2, 3]
    assert "5 %" in c["rule"] and "10 %" in c["rule"]


def test_knee_rule_other_shapes() -> None:
    # only the most complex model is good: no simpler model qualifies
    c = mo.choose_model({1: 1.0, 2: 1.3, 3: 1.4, 4: 1.5, 5: 1.6}, N_PAR)
    assert c["chosen"] == 1 and c["knee_confirmed"]
    # all equal: the simplest wins, no knee (nothing simpler to compare with)
    c = mo.choose_model({m: 1.0 for m in N_PAR}, N_PAR)
    assert c["chosen"] == 5 and not c["knee_confirmed"] and c["next_simpler"] is None
    # a gentle slope: model 4 is within 5 %, model 5 only 8 % worse -> chosen 4, knee not confirmed
    c = mo.choose_model({1: 1.0, 2: 1.01, 3: 1.02, 4: 1.04, 5: 1.12}, N_PAR)
    assert c["chosen"] == 4 and not c["knee_confirmed"]
    with pytest.raises(ValueError):
        mo.choose_model({1: float("nan")}, {1: 27})


def test_model_order_study_on_exact_model3_data() -> None:
    from paperlib.experiments.mems.synthetic import synthetic_recording

    # a strongly curved cubic law, so that dropping orders 3 and 2 shows
    ds = synthetic_recording(6.0, seed=3, controller="CTC", pi_F=(1.2, 0.9, -0.6, 0.12, 1.0, 0.8, -0.5, 0.1))
    study = mo.model_order_study(ds, record_every_s=0.05)
    rho, npar = mo.final_residuals(study)
    assert npar == N_PAR
    # the data follow model (3) exactly: models 1-3 fit alike (the larger ones pay a little for their
    # extra parameters during the start-up transient), 4 and 5 are clearly worse
    assert rho[3] <= 1.01 * min(rho[1], rho[2])
    assert rho[4] > 1.2 * rho[3] and rho[5] > rho[4]
    choice = mo.choose_model(rho, npar)
    assert choice["chosen"] == 3 and choice["knee_confirmed"]
    assert study["rho_rms"].dims == ("model", "t") and np.all(np.isfinite(study["rho_rms"].values))


# -- friction fits ----------------------------------------------------------------------------

def test_replay_recovers_truth_and_eq51_matches_truth(synth) -> None:
    truth = json.loads(synth.attrs["truth"])
    hist = ff.estimate_history(synth, 3)
    assert hist.attrs["estimate_from"] == "replay"
    final = ff.steady_state(hist, 0.1)
    np.testing.assert_allclose(final[:2], truth["pi_pds"], rtol=1e-4)
    np.testing.assert_allclose(final[2:], truth["pi_F"], rtol=2e-3, atol=2e-4)
    comp = ff.lagrangian_components(synth, hist, 3, rate_hz=200.0, pi_pds_bar=np.array(truth["pi_pds"]))
    assert comp.attrs["rate_hz"] == pytest.approx(200.0)
    # eq. 51 with the true drive gains gives the true friction exactly
    np.testing.assert_allclose(comp["Q_F_meas"].values, comp["Q_F_true"].values, atol=1e-8)
    late = comp.sel(time=slice(3.0, None))
    np.testing.assert_allclose(late["Q_F_model"].values, late["Q_F_true"].values, atol=5e-3)
    # Q_m = -Q_I - Q_F (eq. 5, Q_G = 0)
    np.testing.assert_allclose(comp["Q_m"].values, -comp["Q_I"].values - comp["Q_F_meas"].values, atol=1e-9)
    q = ff.fit_quality(late)
    assert all(r > 0.999 for r in q["r2_Qm"]) and all(e < 0.01 for e in q["rms_QF_error"])


def test_model_friction_curve_matches_the_regressor() -> None:
    from paperlib.estimation.replay import regressor_rows
    from paperlib.robots.five_bar import FiveBar

    robot = FiveBar.default()
    fm = table4_model(3)
    pi_F = np.array([1.2, 0.9, -0.12, 0.01, 1.0, 0.8, -0.10, 0.008])
    v = np.array([-2.0, -0.5, 0.3, 1.7])
    q = np.tile(np.radians([120.0, 75.0]), (4, 1))
    for j in (1, 2):
        qd = np.zeros((4, 2))
        qd[:, j - 1] = v
        Y, _ = regressor_rows(robot, fm, q, qd, np.zeros((4, 2)), np.zeros((4, 2)))
        Q_F = -np.einsum("njc,c->nj", Y[:, :, 2:], pi_F)[:, j - 1]
        np.testing.assert_allclose(ff.model_friction_curve(3, pi_F, v, j), Q_F, rtol=1e-12)


def test_binned_curve() -> None:
    x = np.linspace(-1, 1, 1001)
    c, m = ff.binned_curve(x, 2 * x, np.linspace(-1, 1, 11))
    np.testing.assert_allclose(m, 2 * c, atol=5e-3)


# -- tracking ---------------------------------------------------------------------------------

def _rec(err: np.ndarray, parts: np.ndarray | None = None, converged: float = 0.0) -> xr.Dataset:
    n = err.shape[0]
    t = np.arange(n) / 100.0
    ds = xr.Dataset({"q_sp": (("time", "joint"), np.zeros((n, 2))), "q": (("time", "joint"), -err),
                     "qd_sp": (("time", "joint"), np.zeros((n, 2))), "qdd_sp": (("time", "joint"), np.zeros((n, 2)))},
                    coords={"time": t, "joint": [1, 2]}, attrs={"converged_s": converged, "source": "twin"})
    if parts is not None:
        ds["tau_parts"] = (("time", "part", "joint"), parts)
        ds = ds.assign_coords(part=["dynamic_ff", "friction_ff", "feedback"])
    return ds


def test_error_metrics_and_ratios() -> None:
    t = np.arange(400) / 100.0
    sine = np.sin(2 * np.pi * t)[:, None] * np.array([[1.0, 2.0]])
    recs = {"PD": _rec(4e-3 * sine, converged=0.5), "CTC": _rec(2e-3 * sine, converged=1.0), "AC": _rec(5e-4 * sine)}
    window = tr.evaluation_window(recs, "converged")
    assert window == (1.0, 3.99)
    e = tr.joint_errors(recs["PD"], window)
    np.testing.assert_allclose(e["rms"], 4e-3 * np.array([1.0, 2.0]) / np.sqrt(2), rtol=0.02)
    np.testing.assert_allclose(e["peak"], 4e-3 * np.array([1.0, 2.0]), rtol=1e-3)
    m = tr.compare_controllers(recs, window)
    r = tr.improvement_ratios(m)
    np.testing.assert_allclose(r["CTC_vs_PD_rms"], [2.0, 2.0], rtol=1e-9)
    np.testing.assert_allclose(r["AC_vs_CTC_peak"], [4.0, 4.0], rtol=1e-9)
    assert tr.evaluation_window(recs, 2.0) == (2.0, 3.99)
    with pytest.raises(ValueError):
        tr.evaluation_window(recs, 10.0)


def test_torque_shares_sum_to_100_percent() -> None:
    rng = np.random.default_rng(0)
    parts = rng.normal(size=(500, 3, 2)) * np.array([3.0, 2.0, 0.5])[None, :, None]
    sh = tr.torque_shares(_rec(np.zeros((500, 2)), parts))
    np.testing.assert_allclose(sh.sum("part").values, [100.0, 100.0], rtol=1e-12)
    rms = np.sqrt((parts**2).mean(axis=0))
    np.testing.assert_allclose(sh.values, 100 * rms / rms.sum(axis=0), rtol=1e-12)
    assert sh.sel(part="dynamic_ff").values[0] > sh.sel(part="feedback").values[0]
    with pytest.raises(ValueError, match="tau_parts"):
        tr.torque_shares(_rec(np.zeros((5, 2))))


def test_motion_segments_and_window(synth) -> None:
    seg = tr.motion_segments(synth)
    assert seg.shape[0] >= 3 and np.all(seg[:, 1] > seg[:, 0]) and np.all(seg[1:, 0] > seg[:-1, 1])
    w = tr.window_with_motions(synth, 2)
    assert w[0] <= seg[0, 0] and w[1] >= seg[1, 1]


# -- convergence and temperature ----------------------------------------------------------------

def test_settling_time() -> None:
    t = np.linspace(0.0, 100.0, 10001)
    x = 1.0 + np.exp(-t / 2.0)                    # 10 % band around 1.0 entered at t = 2 ln 10
    assert tp.settling_time(t, x, 0.10) == pytest.approx(2 * np.log(10), abs=0.02)
    assert tp.settling_time(t, np.ones_like(t), 0.01) == 0.0
    x2 = x.copy()
    x2[5000] = 5.0                                 # a late excursion resets the clock
    assert tp.settling_time(t, x2, 0.10) == pytest.approx(t[5001])
    assert np.isnan(tp.settling_time(t, np.full_like(t, np.nan), 0.1))


def test_convergence_times_groups(synth) -> None:
    hist = ff.estimate_history(synth, 3)
    c = tp.convergence_times(hist, 3, dict(tp.DEFAULT_TOLERANCES, final_window_s=1.0))
    assert set(c["per_parameter"]) == set(str(p) for p in hist["param"].values)
    assert 0.0 <= c["pi_pds"] < 6.0 and np.isfinite(c["pi_F_low"])
    assert "2 %" in c["criterion"]


def test_temperature_summary() -> None:
    cold = {"pi_F": [2.0, 1.0, -0.2, 0.02, 1.8, 0.9, -0.18, 0.02], "temperature_C": [22.0, 22.0]}
    warm = {"pi_F": [1.5, 0.7, -0.1, 0.01, 1.4, 0.6, -0.09, 0.01], "temperature_C": [39.0, 38.5]}
    s = tp.temperature_summary(cold, warm, 3)
    assert s["friction_lower_when_warm"] == {"1": True, "2": True}
    assert s["quadratic_negative"] == {"cold": True, "warm": True}
    assert s["quadratic_smaller_abs_when_warm"] == {"1": True, "2": True}
    assert all(0 < r < 1 for r in s["friction_ratio_warm_cold"]["1"])


# -- paper comparison -------------------------------------------------------------------------

def test_comparison_table_marks_source_and_ratios(tmp_path: Path) -> None:
    results = {
        "04_controller_comparison": {"source": "twin", "ratios": {"CTC_vs_PD_rms": [2.44, 4.0], "CTC_vs_PD_peak": [3.0, 1.0],
                                                               "AC_vs_CTC_rms": [5.05, 3.68], "AC_vs_CTC_peak": [1.4, 0.5]},
                                     "torque_shares_percent": {"dynamic_ff": [45.0, 60.0], "friction_ff": [40.0, 33.0],
                                                               "feedback": [15.0, 7.0]}},
        "02_model_order": {"source": "hardware", "choice": {"chosen": 3}},
    }
    rows = {r["key"]: r for r in cmp.build_comparison(results, HEADLINES)}
    assert len(rows) == len(HEADLINES)
    r = rows["CTC_vs_PD_rms_j1"]
    assert r["source"] == "twin" and r["ratio"] == pytest.approx(1.0) and r["agreement"] == "agrees (within 10 %)"
    assert rows["CTC_vs_PD_rms_j2"]["agreement"] == "same direction"
    assert rows["CTC_vs_PD_peak_j2"]["agreement"] == "differs"          # no improvement at all
    assert rows["share_dynamic_ff_j2"]["agreement"] == "roughly"        # 12 points off (<= 15)
    assert rows["share_feedback_j1"]["agreement"] == "agrees"           # the paper's 15 % (what 45 + 40 leave)
    assert rows["share_feedback_j2"]["agreement"] == "roughly"          # 7 against 19: 12 points off
    assert rows["model_order_knee"]["source"] == "hardware" and rows["model_order_knee"]["agreement"] == "same"
    assert rows["conv_pds_cold"]["agreement"] == "not reproduced" and rows["conv_pds_cold"]["source"] == ""
    csv = cmp.to_csv(list(rows.values()))
    assert csv.splitlines()[0] == ",".join(cmp.CSV_COLUMNS)
    md = cmp.to_markdown(list(rows.values()), ["a note"])
    assert ("| RMS joint error, CTC vs PD (times lower) | 1 | 2.44 | 2.44 | 1 | twin | 1 | agrees (within 10 %) | "
            "factor: within 10 % reached, needs within 25 % |") in md
    assert "a note" in md
    # command line
    for stem, r in results.items():
        (tmp_path / f"{stem}.json").write_text(json.dumps(r))
    assert cmp.main(["--paper", "mems", "--results", *map(str, tmp_path.glob("*.json")), "--csv", str(tmp_path / "c.csv"),
                     "--md", str(tmp_path / "c.md")]) == 0
    assert (tmp_path / "c.csv").read_text() == csv


def test_agreement_rules() -> None:
    assert cmp.agreement("approx", 15.0, 29.0) == (pytest.approx(29 / 15), "within a factor 2 only")  # 'agrees' before issue 27
    assert cmp.agreement("approx", 15.0, 18.0) == (pytest.approx(18 / 15), "agrees (within 25 %)")
    assert cmp.agreement("approx", 15.0, 31.0)[1] == "differs"
    assert cmp.agreement("upper_bound", 5.0, 4.9)[1] == "satisfied"
    assert cmp.agreement("lower_bound", 1.0, 0.9)[1] == "not satisfied"
    assert cmp.agreement("choice", True, True) == (None, "same")
    assert cmp.agreement("factor", 2.0, float("nan"))[1].startswith("not reproduced")


# -- sources ----------------------------------------------------------------------------------

def test_hardware_source_refuses_without_rig(tmp_path: Path) -> None:
    with pytest.raises(sources.RigUnavailable, match="needs a rig configuration"):
        sources.check_source("hardware", None)
    with pytest.raises(sources.RigUnavailable, match="not found"):
        sources.check_source("hardware", tmp_path / "missing.toml")
    rig = tmp_path / "rig.toml"
    rig.write_text('[rig]\nrobot = "five_bar"\n[ethercat]\ninterface = "paperlib-no-such-if0"\n[imu]\nudp_port = 5005\n')
    with pytest.raises(sources.RigUnavailable, match="not present on this machine"):
        sources.check_source("hardware", rig)
    assert sources.require_rig(rig, interface_present=lambda name: True)["imu"]["udp_port"] == 5005
    rig.write_text('[rig]\nrobot = "five_bar"\n')
    with pytest.raises(sources.RigUnavailable, match=r"\[ethercat\] interface"):
        sources.load_rig_config(rig)
    with pytest.raises(ValueError, match="source must be one of"):
        sources.check_source("simulation")
    with pytest.raises(sources.RigUnavailable):
        sources.obtain_recordings({"a": {"controller": "AC"}}, source="hardware")


def test_rig_example_documents_the_required_keys() -> None:
    from paperlib.provenance import REPO_ROOT

    cfg = sources.load_rig_config(REPO_ROOT / "config" / "rig.example.toml")
    assert cfg["ethercat"]["interface"] and cfg["imu"]["udp_port"] > 0


def test_specs_and_hardware_command(tmp_path: Path) -> None:
    kw = sources.simulate_kwargs({"controller": "AC", "duration_s": 40, "seed": 1, "friction_step": [10, 1.2]})
    assert kw == {"controller": "AC", "duration_s": 40.0, "seed": 1, "friction_step": (10.0, 1.2)}
    with pytest.raises(ValueError, match="unknown key"):
        sources.simulate_kwargs({"controler": "AC"})
    cmd = sources.hardware_command({"controller": "PD", "duration_s": 40.0, "seed": 2}, "rig.toml", tmp_path / "o.nc")
    assert cmd[cmd.index("--rig") + 1] == "hardware" and cmd[cmd.index("--config") + 1] == "rig.toml"


def test_hardware_command_carries_the_whole_warm_start(tmp_path: Path) -> None:
    """A warm-started spec (pi0 and P0 from a previous run) reaches the hardware run whole: the command
    used to pass --closed-from-start without P0, and `paperlib run` then refused the run."""
    from paperlib.estimation.config import EstimatorConfig
    from paperlib.hardware.cli import add_parser

    P0 = np.eye(10).ravel() * 3.0
    spec = {"controller": "AC", "duration_s": 5.0, "seed": 3, "model": 3, "half_life_s": 300.0,
            "pi_pds0": [0.93, 1.06], "pi_F0": list(np.arange(8.0)), "P0": P0.tolist(), "closed_from_start": True}
    cmd = sources.hardware_command(spec, "rig.toml", tmp_path / "warm.nc")
    est = EstimatorConfig.read(cmd[cmd.index("--estimator-config") + 1])
    assert est == sources.estimator_config(spec)
    assert est.closed_from_start and est.half_life_s == 300.0 and np.allclose(est.P0, P0)
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(cmd[3:])  # after "python -m paperlib": the run command parses
    assert args.estimator_config.endswith("warm.nc.estimator.json") and not args.closed_from_start


def test_archive_source_reads_files_and_warm_start_estimate(tmp_path: Path, synth) -> None:
    from paperlib.recordings import write_recording

    p = write_recording(synth, tmp_path / "s.nc")
    got = sources.obtain_recordings({"main": {}}, source="archive", paths={"main": p})
    assert got["main"].attrs["_path"] == str(p)
    with pytest.raises(sources.SourceError, match="needs a recording file"):
        sources.obtain_recordings({"main": {}, "other": {}}, source="archive", paths={"main": p})
    pds, pf = sources.final_estimate(synth, 3, tail_s=1.0)
    truth = json.loads(synth.attrs["truth"])
    np.testing.assert_allclose(pds, truth["pi_pds"], rtol=1e-3)
    np.testing.assert_allclose(pf, truth["pi_F"], rtol=1e-2, atol=1e-3)
    d = sources.describe_recording(got["main"], "main")
    assert d["source"] == "twin" and len(d["sha256"]) == 64


def test_every_row_that_differs_or_is_calibrated_says_why():
    fake = {h.notebook: {"source": "twin"} for h in HEADLINES}
    for r in cmp.build_comparison(fake, HEADLINES):
        assert r["note"], r["key"]  # nothing reproduced: nothing agrees, every row says why (or 'unknown')
    ff_shares = [h for h in HEADLINES if h.key.startswith(("share_dynamic_ff", "share_friction_ff"))]
    assert len(ff_shares) == 4 and all(h.calibrated and "calibrated by construction" in h.note for h in ff_shares)
    feedback = [h for h in HEADLINES if h.key.startswith("share_feedback")]  # not calibrated: measured, with its reason
    assert len(feedback) == 2 and not any(h.calibrated for h in feedback) and all("15 and 19 %" in h.note for h in feedback)
    md = cmp.to_markdown(cmp.build_comparison(fake, HEADLINES))
    assert "| note |" in md
