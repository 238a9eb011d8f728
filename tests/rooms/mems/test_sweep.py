"""Sweeps (paperlib.sweeps, rules/sweep.smk): files, statistics, the mems runner, the table wiring.

The end-to-end checks run real twin campaigns: one job twice (same bytes: what makes a resumed
or a cluster sweep equal to a local one), and, marked slow, a Snakemake sweep interrupted
half-way and restarted. The SLURM run is in tests/layers/sweeps/test_sweep_slurm.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from paperlib import comparison
from paperlib.experiments.mems import comparison as mems_comparison
from paperlib.experiments.mems import pipeline as mems_pipeline
from paperlib.experiments.mems import sweep as mems_sweep
from paperlib.sweeps import aggregate, config, run
from paperlib.provenance import REPO_ROOT

ROOT = REPO_ROOT
PY = sys.executable


def _write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# -- sweep files ---------------------------------------------------------------------------------

def test_sweep_file_seeds_factors_and_paths(tmp_path):
    p = _write(tmp_path, "name: t1\npaper: mems\nseeds: {start: 3, count: 4}\n"
                         "factors: {half_life_s: [300, 600], lambda_reg: 0.001}\n")
    sw = config.load_sweep(p)
    assert sw.seeds == [3, 4, 5, 6]
    assert set(sw.combos) == {"half_life_s=300.0__lambda_reg=0.001", "half_life_s=600.0__lambda_reg=0.001"}
    assert len(sw.run_files("R")) == 8
    assert sw.run_file("base", 7, "R") == "R/mems/sweeps/t1/runs/base/seed_0007.json"
    job = json.loads(sw.job_settings("half_life_s=600.0__lambda_reg=0.001"))
    assert job["factors"] == {"half_life_s": 600.0, "lambda_reg": 0.001} and job["paper"] == "mems"
    assert config.load_sweep(_write(tmp_path, "name: a\npaper: mems\nseeds: 5\n")).seeds == [1, 2, 3, 4, 5]


def test_sweep_file_explicit_points_are_combos_in_order(tmp_path):
    sw = config.load_sweep(_write(tmp_path, "name: p\npaper: mems\nseeds: [1]\n"
                                            "points: [{kp_scale: 1.2, friction_scale: 0.7}, {}, {kd_scale: 0.8}]\n"))
    assert sw.combos == {"p0000": {"kp_scale": 1.2, "friction_scale": 0.7}, "p0001": {}, "p0002": {"kd_scale": 0.8}}
    assert sw.run_file("p0002", 1, "R") == "R/mems/sweeps/p/runs/p0002/seed_0001.json"
    assert json.loads(sw.job_settings("p0000"))["factors"] == {"kp_scale": 1.2, "friction_scale": 0.7}


def test_mems_assumptions_change_a_copy_of_the_twin_only_where_given():
    from paperlib.experiments.mems.assumptions import ASSUMPTIONS, varied_twin
    from paperlib.robots.five_bar import FiveBar
    from paperlib.twin import drives

    assert varied_twin({}) is None and varied_twin({"half_life_s": 300.0}) is None  # not an assumption
    stated = drives.load_twin_params()
    v = varied_twin({"friction_scale": 1.5, "kp_scale": 0.8})
    assert v["twin_params"].friction[0] != pytest.approx(stated.friction[0])  # the arrays the twin runs on
    assert v["twin_params"].friction[2:] == pytest.approx(stated.friction[2:])  # passive hinges as stated
    raw, raw0 = v["twin_params"].raw["friction"]["joint1"], stated.raw["friction"]["joint1"]
    assert raw["coulomb_Nm"] == pytest.approx(1.5 * raw0["coulomb_Nm"])
    assert raw["static_Nm"] - raw["coulomb_Nm"] == pytest.approx(1.5 * (raw0["static_Nm"] - raw0["coulomb_Nm"]))
    assert v["twin_params"].raw["imu"] == stated.raw["imu"]  # not given: the file's, bit for bit
    kp0 = FiveBar.default().description["control"]["kp_Nm_per_rad"]
    assert v["robot"].description["control"]["kp_Nm_per_rad"] == pytest.approx([0.8 * k for k in kp0])
    assert FiveBar.default().description["control"]["kp_Nm_per_rad"] == kp0  # the stated robot untouched
    assert drives.load_twin_params().raw["friction"]["joint1"] == raw0
    with pytest.raises(ValueError, match="outside its stated range"):
        varied_twin({"friction_scale": ASSUMPTIONS["friction_scale"].high * 2})


@pytest.mark.parametrize("text, words", [
    ("name: a\npaper: mems\nseeds: 3\nbogus: 1\n", "unknown key"),
    ("name: a b\npaper: mems\nseeds: 3\n", "name"),
    ("name: a\npaper: nosuch\nseeds: 3\n", "no sweep runner"),
    ("name: a\npaper: mems\nseeds: [1, 1]\n", "repeat"),
    ("name: a\npaper: mems\nseeds: 0\n", "at least one seed"),
    ("name: a\npaper: mems\nseeds: 3\nfactors: {gear_backlash_rad: [1.0]}\n", "unknown factor"),
    ("name: a\npaper: mems\nseeds: 3\nfactors: {half_life_s: []}\n", "non-empty list"),
    ("name: a\npaper: mems\nseeds: 3\nresources: {mem_mb: -1}\n", "positive int"),
    ("name: a\npaper: mems\n", "missing 'seeds'"),
    ("name: [a\n", "not valid YAML"),
    ("name: a\npaper: mems\nseeds: 1\npoints: [{gear_backlash_rad: 1.0}]\n", "point 0: unknown factor"),
    ("name: a\npaper: mems\nseeds: 1\npoints: [{kp_scale: 1.0}, {kp_scale: high}]\n", "point 1: every value"),
    ("name: a\npaper: mems\nseeds: 1\npoints: []\n", "non-empty list"),
    ("name: a\npaper: mems\nseeds: 1\nfactors: {half_life_s: [300]}\npoints: [{kp_scale: 1.0}]\n", "not both"),
])
def test_bad_sweep_files_name_the_file_and_the_problem(tmp_path, text, words):
    p = _write(tmp_path, text)
    with pytest.raises(config.SweepConfigError) as exc:
        config.load_sweep(p)
    assert str(p) in str(exc.value) and words in str(exc.value)


def test_missing_sweep_file_is_a_clear_cli_error(tmp_path):
    proc = subprocess.run([PY, "-m", "paperlib", "sweep", str(tmp_path / "nope.yaml")], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert "nope.yaml not found" in proc.stderr and "Traceback" not in proc.stderr


def test_dry_run_plans_one_job_per_seed_with_the_partition(tmp_path):
    proc = subprocess.run([PY, "-m", "paperlib", "sweep", "config/sweeps/ci.yaml", "--dry-run", "--partition", "p7",
                           "--results-dir", str(tmp_path / "r"), "--figures-dir", str(tmp_path / "f")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    counts = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
              if line.strip().startswith(("sweep_run ", "sweep_aggregate "))}
    assert counts == {"sweep_run": 4, "sweep_aggregate": 1}
    res_lines = [line for line in out.splitlines() if line.strip().startswith("resources:")]
    assert len(res_lines) == 5 and all("slurm_partition=p7" in line for line in res_lines)


# -- statistics ----------------------------------------------------------------------------------

def test_distribution_is_numpy_percentiles_of_finite_values():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 0.5, 101)
    d = aggregate.distribution(list(x) + [None, float("nan")])
    assert d["n"] == 101 and d["n_missing"] == 2
    assert d["median"] == pytest.approx(float(np.median(x)), abs=0)
    # 5 % of 101 values, linear: order statistic 5 exactly (index 0.05 * 100 = 5)
    assert d["p5"] == float(np.sort(x)[5]) and d["p95"] == float(np.sort(x)[95])
    b = aggregate.distribution([True, False, True, True])
    assert b["mean"] == 0.75 and b["median"] == 1.0
    assert aggregate.distribution([None])["n"] == 0


def _runs(values_by_seed):
    return [{"seed": s, "factors": {}, "values": v, "source": "twin"} for s, v in values_by_seed.items()]


def test_summary_rows_apply_the_table_rule_per_seed():
    heads = [h for h in mems_comparison.HEADLINES if h.key in ("CTC_vs_PD_rms_j1", "model_order_knee",
                                                                "friction_falls_j1", "share_feedback_j1")]
    runs = _runs({1: {"CTC_vs_PD_rms_j1": 2.40, "model_order_knee": 3, "friction_falls_j1": True, "share_feedback_j1": 5.0},
                  2: {"CTC_vs_PD_rms_j1": 1.20, "model_order_knee": 4, "friction_falls_j1": True, "share_feedback_j1": 16.0},
                  3: {"CTC_vs_PD_rms_j1": 2.60, "model_order_knee": 3, "friction_falls_j1": False, "share_feedback_j1": 4.0},
                  4: {"CTC_vs_PD_rms_j1": None, "model_order_knee": 4, "friction_falls_j1": True, "share_feedback_j1": 3.0}})
    rows = {r["key"]: r for r in aggregate.summarise_runs(runs, heads)}
    r = rows["CTC_vs_PD_rms_j1"]  # paper 2.44: 2.40 and 2.60 agree ([0.8, 1.25]), 1.20 does not
    assert r["n"] == 3 and r["n_missing"] == 1 and r["median"] == 2.40
    assert r["agree_fraction"] == pytest.approx(2 / 3)
    assert rows["model_order_knee"]["agree_fraction"] == 0.5          # 3 is the paper's choice
    assert rows["friction_falls_j1"]["mean"] == 0.75
    assert rows["share_feedback_j1"]["agree_fraction"] == 0.25        # within 5 points of 15 % in one seed of four
    assert r["seeds"] == [1, 2, 3, 4]
    md = aggregate.to_markdown(list(rows.values()), "t")
    assert "| 2.4 | [" in md and "yes in 75 %" in md
    csv = aggregate.to_csv(list(rows.values()))
    assert csv.splitlines()[0].startswith("combo,key,quantity")


def _figure_rows():
    keys = ("CTC_vs_PD_rms_j1", "share_feedback_j1", "conv_pds_cold", "model_order_knee", "friction_falls_j1")
    heads = [h for h in mems_comparison.HEADLINES if h.key in keys]
    rng = np.random.default_rng(5)
    runs = _runs({s: {"CTC_vs_PD_rms_j1": float(rng.normal(1.4, 0.1)), "share_feedback_j1": float(rng.normal(5.0, 0.3)),
                      "conv_pds_cold": float(rng.uniform(0.4, 1.2)), "model_order_knee": 3 + s % 2,
                      "friction_falls_j1": True} for s in range(1, 21)})
    runs[-1]["values"]["conv_pds_cold"] = 40.0                       # one outlier, beyond the 95th percentile
    return aggregate.summarise_runs(runs, heads)


@pytest.mark.parametrize("draw", [aggregate.interval_figure, aggregate.violin_figure])
def test_sweep_figures_in_the_compendium_style(draw):
    """One legend below the panels, a letter per panel, the paper's values in the "paper" role, labels
    from the table's quantities, whole-number ticks for the model choice, limits holding every value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paperlib.figures import style

    rows = _figure_rows()
    fig = draw(rows, "a title")
    try:
        fig.canvas.draw()
        axes = fig.axes
        assert len(axes) == 4                                        # ratio, %, s, model; yes/no left out
        assert all(ax.get_legend() is None for ax in axes) and len(fig.legends) == 1
        leg = fig.legends[0].get_window_extent()
        assert all(leg.y1 <= ax.get_tightbbox().y0 + 1.0 for ax in axes), "legend not below the panels"
        letters = [t.get_text() for ax in axes for t in ax.texts if t.get_text() in "ABCD"]
        assert letters == ["A", "B", "C", "D"]
        for ax, letter in zip(axes, letters):                       # above its panel, left of the tick labels
            t = next(t for t in ax.texts if t.get_text() == letter).get_window_extent()
            assert t.y0 >= ax.get_window_extent().y1 and t.x0 <= ax.get_window_extent().x0
            assert not any(t.overlaps(tl.get_window_extent()) for a in axes for tl in a.get_yticklabels())
            assert not any(t.overlaps(a.xaxis.label.get_window_extent()) for a in axes)
        paper = [ln for ax in axes for ln in ax.lines if ln.get_label().startswith("paper's")]
        assert len(paper) == 4 and {ln.get_color() for ln in paper} == {style.role("paper")["color"]}
        assert all(ln.get_markerfacecolor() == "none" for ln in paper)
        assert {ln.get_marker() for ln in paper} == {"D", "<"}       # conv_pds: an upper bound
        labels = [t.get_text() for ax in axes for t in ax.get_yticklabels()]
        assert "RMS joint error, CTC vs PD, joint 1" in labels and not any("times lower" in x for x in labels)
        model_ax = axes[3]
        assert all(float(t) == round(float(t)) for t in model_ax.get_xticks())
        for ax, r in zip(axes, [r for r in rows if r["key"] != "friction_falls_j1"]):
            lo, hi = ax.get_xlim()                                   # what is drawn, and the paper's value
            drawn = [r["p5"], r["median"], r["p95"]] if draw is aggregate.interval_figure else r["values"]
            vals = [v for v in drawn if v is not None] + [float(r["paper_value"])]
            assert lo < min(vals) and max(vals) < hi
        conv_hi = axes[2].get_xlim()[1]                              # the outlier: drawn by the violins only
        assert (conv_hi < 40.0) if draw is aggregate.interval_figure else (conv_hi > 40.0)
        assert "a title" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def test_sweep_figure_title_says_what_how_many_and_where_from(tmp_path):
    sw = config.load_sweep(_write(tmp_path, "name: t9\npaper: mems\nseeds: 7\ndescription: spread of things\n"))
    t = aggregate.figure_title(sw, "twin", "median and 5-95 % interval")
    assert t.startswith("Spread of things") and "7 seeds" in t and "digital twin" in t and "t9" in t


def test_comparison_table_gains_the_sweep_columns():
    heads = [h for h in mems_comparison.HEADLINES if h.key in ("CTC_vs_PD_rms_j1", "friction_falls_j1")]
    results = {"04_controller_comparison": {"source": "twin", "ratios": {"CTC_vs_PD_rms": [1.37, 1.5]}},
               "05_temperature_convergence": {"source": "twin",
                                              "temperature": {"friction_lower_when_warm": {"1": True}}}}
    rows = comparison.build_comparison(results, heads)
    runs = _runs({s: {"CTC_vs_PD_rms_j1": v, "friction_falls_j1": s != 2} for s, v in
                  zip(range(1, 6), (1.1, 1.2, 1.3, 1.4, 1.5))})
    summary = {"sweep": "x", "rows": aggregate.summarise_runs(runs, heads)}
    rows2 = comparison.add_sweep(rows, summary)
    r = next(x for x in rows2 if x["key"] == "CTC_vs_PD_rms_j1")
    assert r["reproduced"] == 1.37 and r["sweep_median"] == 1.3 and r["sweep_n"] == 5
    assert r["sweep_p5"] == pytest.approx(1.12) and r["sweep_p95"] == pytest.approx(1.48)
    md = comparison.to_markdown(rows2)
    assert "over seeds" in md and "1.3 [1.12, 1.48]" in md and "yes in 80 %" in md
    assert "sweep_median" in comparison.to_csv(rows2).splitlines()[0]
    assert "sweep_median" not in comparison.to_csv(rows).splitlines()[0]


# -- the mems runner -----------------------------------------------------------------------------

def test_campaign_specs_reseed_every_run_and_keep_shared_trajectories():
    cfg = mems_pipeline.load_config(None)
    base = mems_sweep.campaign_specs(cfg, 0)
    s7 = mems_sweep.campaign_specs(cfg, 7, {"half_life_s": 300.0}, durations_s={"cold": 60.0})
    for name, spec in cfg["recordings"].items():
        assert base[name]["seed"] == spec["seed"]                 # seed 0 is the pipeline's own run
        assert s7[name]["seed"] == spec["seed"] + 7000
        assert s7[name]["half_life_s"] == 300.0
    assert s7["pd"]["seed"] == s7["ctc"]["seed"] == s7["ac"]["seed"]    # same trajectory, as in the pipeline
    assert s7["cold"]["seed"] == s7["warm"]["seed"]
    assert s7["cold"]["duration_s"] == 60.0 and s7["warm"]["duration_s"] == cfg["recordings"]["warm"]["duration_s"]
    assert s7["ctc"]["warm_start"] == "identification"
    with pytest.raises(ValueError, match="unknown factor"):
        mems_sweep.campaign_specs(cfg, 1, {"noise": 2.0})
    with pytest.raises(ValueError, match="unknown recording"):
        mems_sweep.campaign_specs(cfg, 1, durations_s={"nosuch": 1.0})


def test_friction_curves_vectorised_equal_per_row_torque():
    from paperlib.estimation.replay import friction_curves
    from paperlib.friction import table4_model

    rng = np.random.default_rng(0)
    v = np.linspace(-3.0, 3.0, 17)
    for m in (1, 2, 3, 4, 5):
        fm = table4_model(m)
        th = rng.normal(size=(20, fm.n_params))
        joints = sorted({int(j) for j in fm.columns()[:, 0]})
        ref = np.array([[fm.torque(th[k], v, joint=j + 1) for j in joints] for k in range(20)])
        assert np.array_equal(friction_curves(fm, th, v), ref)


TINY = {"identification": 6.0, "pd": 3.0, "ctc": 3.0, "ac": 3.0, "cold": 5.0, "warm": 5.0}


def _tiny_job(tmp_path: Path) -> dict:
    cfgf = tmp_path / "tiny.yaml"
    cfgf.write_text("mems:\n  notebooks:\n    05_temperature_convergence:\n      tolerances: {final_window_s: 1.0}\n")
    return {"paper": "mems", "factors": {}, "settings": {"config": str(cfgf), "durations_s": TINY},
            "keep_recordings": False}


def test_one_job_twice_gives_the_same_bytes_and_the_pipeline_numbers(tmp_path):
    job = _tiny_job(tmp_path)
    outs = []
    for k in range(2):
        out = tmp_path / f"r{k}.json"
        run.main(["--job", json.dumps(job), "--seed", "2", "--output", str(out)])
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    res = json.loads(outs[0])
    assert res["source"] == "twin" and res["seed"] == 2
    # the values are the comparison rows read from the notebooks' results dicts
    rows = comparison.build_comparison(res["results"], mems_sweep.headlines())
    assert {r["key"]: r["reproduced"] for r in rows} == res["values"]
    v = res["values"]
    r4 = res["results"]["04_controller_comparison"]
    assert v["CTC_vs_PD_rms_j1"] == r4["rms_error_rad"]["PD"][0] / r4["rms_error_rad"]["CTC"][0]
    shares = [v[f"share_{p}_j1"] for p in ("dynamic_ff", "friction_ff", "feedback")]
    assert sum(shares) == pytest.approx(100.0)
    assert v["model_order_knee"] in (1, 2, 3, 4, 5)
    assert res["specs"]["pd"]["seed"] == 21 + 2000



def test_a_job_of_several_seeds_writes_the_bytes_of_one_seed_jobs(tmp_path):
    job = _tiny_job(tmp_path)
    single = [tmp_path / f"one_{k}.json" for k in (2, 3)]
    for seed, out in zip((2, 3), single):
        assert run.main(["--job", json.dumps(job), "--seed", str(seed), "--output", str(out)]) == 0
    grouped = [tmp_path / "group" / f"seed_{k:04d}.json" for k in (2, 3)]
    assert run.main(["--job", json.dumps(job), "--seed", "2", "3", "--output", *map(str, grouped)]) == 0
    assert [f.read_bytes() for f in grouped] == [f.read_bytes() for f in single]
    assert run.main(["--job", json.dumps(job), "--seed", "2", "3", "--output", str(grouped[0])]) == 2


def test_dry_run_plans_one_job_per_group_of_seeds(tmp_path):
    sweep = _write(tmp_path, "name: grouped\npaper: mems\nseeds: 5\nresources: {seeds_per_job: 2}\n")
    sw = config.load_sweep(sweep)
    assert sw.seed_batches() == [[1, 2], [3, 4], [5]]
    proc = subprocess.run([PY, "-m", "paperlib", "sweep", str(sweep), "--dry-run", "--runs-only",
                           "--results-dir", str(tmp_path / "r"), "--figures-dir", str(tmp_path / "f")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    counts = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
              if line.strip().startswith("sweep_run") and len(line.split()) == 2 and line.split()[1].isdigit()}
    assert counts == {f"sweep_run_group_{k}": 1 for k in (1, 2, 3)}
    assert "3 jobs" in out
    # each group's job writes its seeds' result files
    for seeds in sw.seed_batches():
        files = [sw.run_file("base", k, str(tmp_path / "r")) for k in seeds]
        assert any(all(f in line for f in files) for line in out.splitlines() if line.strip().startswith("output:")), files

# -- resumable Snakemake sweep (real jobs) ---------------------------------------------------------

@pytest.mark.slow
def test_sweep_killed_half_way_reruns_only_the_missing_jobs(tmp_path):
    job = _tiny_job(tmp_path)
    sweep = _write(tmp_path, "name: resume\npaper: mems\nseeds: 4\nsettings: " + json.dumps(job["settings"]) + "\n")
    res = tmp_path / "res"
    cmd = [PY, "-m", "paperlib", "sweep", str(sweep), "--cores", "1", "--results-dir", str(res),
           "--figures-dir", str(tmp_path / "fig"), "--no-progress", "--runs-only"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sw = config.load_sweep(sweep)
    files = [Path(f) for f in sw.run_files(str(res))]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    t0 = time.monotonic()
    while sum(f.exists() for f in files) < 2 and time.monotonic() - t0 < 600:
        time.sleep(0.2)
    time.sleep(3.0)                       # let Snakemake book the second result as finished
    os.killpg(proc.pid, signal.SIGKILL)   # as a power cut would: no clean-up
    proc.wait()
    done = {f: f.stat().st_mtime_ns for f in files if f.exists()}
    assert 2 <= len(done) < 4
    # the killed run left Snakemake's lock: --unlock removes it (without it the command says so)
    out = subprocess.run(cmd + ["--unlock"], cwd=ROOT, env=env, capture_output=True, text=True)
    print(out.stdout[-3000:] + out.stderr[-3000:])
    assert out.returncode == 0, out.stdout[-3000:]
    assert all(f.exists() for f in files)
    kept = [f for f in done if f.stat().st_mtime_ns == done[f]]
    # finished jobs are not rerun; only a job killed between writing its file and Snakemake booking
    # it (then still marked incomplete) may be, at most one with one core
    assert len(kept) >= len(done) - 1
    ran = [line for line in (out.stdout + out.stderr).splitlines() if line.strip().startswith("sweep_run ")]
    assert ran and int(ran[0].split()[-1]) == 4 - len(kept)


def test_sweep_jobs_depend_on_the_analysis_and_twin_code_not_on_the_figures():
    """A figure's style change must not rerun the sweep's simulations; an analysis change must."""
    from paperlib.experiments.mems import sweep

    files = set(sweep.code_inputs())
    for needed in ("paperlib/experiments/mems/sweep.py", "paperlib/experiments/mems/model_order.py",
                   "paperlib/experiments/mems/tracking.py", "paperlib/twin/runner.py", "config/mems.yaml"):
        assert needed in files, needed
    for figure_code in ("paperlib/experiments/mems/figures.py", "paperlib/figures/style.py", "paperlib/sweeps/aggregate.py"):
        assert figure_code not in files, figure_code
