"""The pipeline: notebooks, configuration, plan, Snakefile, hardware refusal, and a CI smoke run.

The smoke run (``paperlib reproduce --config config/smoke.yaml``, ~1-2 min on 2 cores) is part of
the default suite; set ``PAPERLIB_SKIP_SMOKE=1`` to leave it out. A paperlib module that fails to
import fails the test (it is never a reason to skip).
"""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from paperlib.experiments.mems import pipeline as P
from paperlib.experiments.mems import sources
from paperlib.provenance import REPO_ROOT

NOTEBOOK_DIR = REPO_ROOT / "notebooks" / "mems"


# -- notebooks ----------------------------------------------------------------------------------

def _parameters_cell(nb) -> dict:
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    names = {}
    for node in ast.parse(cells[0].source).body:
        assert isinstance(node, ast.Assign), "the parameters cell holds assignments only"
        names[node.targets[0].id] = ast.literal_eval(node.value)
    return names


@pytest.mark.parametrize("name", sorted(P.NOTEBOOKS))
def test_notebooks_are_thin_parameterized_and_clean(name: str) -> None:
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "paperlib"
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, "notebooks are committed without outputs"
            assert len(c.source.splitlines()) <= 30, "logic belongs in paperlib.experiments, not the notebook"
    params = _parameters_cell(nb)
    if name == P.CALIBRATED_NOTEBOOK:  # no recording of the plan: it makes (or reads from a release) runs of its own
        for key in ("runs_source", "runs_results_dir", "runs_store", "output_dir", "results_file", "formats",
                    "pipeline_source"):
            assert key in params, key
        assert params["runs_source"] in ("twin", "archive") and not {"source", "recordings"} & set(params)
    else:
        for key in ("source", "rig_config", "recordings", "output_dir", "results_file", "formats", "pipeline_source"):
            assert key in params, key
        assert params["source"] in sources.SOURCES
    assert params["results_file"] == f"scratch/mems/{name}.json"  # by hand: scratch; the pipeline passes results/mems
    # every parameter the pipeline passes exists in the notebook
    cfg = P.load_config()
    plan = P.recording_plan(cfg)
    assert set(P.notebook_params(cfg, plan, name)) <= set(params)
    # and the standalone defaults ask for every role the notebook loads
    src = "\n".join(c.source for c in nb.cells)
    if "run.load(" in src:
        roles = ast.literal_eval(src.split("run.load(")[1].split(")")[0])
        assert set(roles) <= set(params["specs"])


# -- configuration and plan ------------------------------------------------------------------------

def test_default_and_smoke_configs() -> None:
    cfg = P.load_config()
    assert cfg["source"] == "twin" and cfg["results_dir"] == "results/mems" and cfg["figures_dir"] == "figures/mems"
    smoke = P.load_config(REPO_ROOT / "config" / "smoke.yaml")
    assert smoke["results_dir"] == "results/smoke/mems" and smoke["figures_dir"] == "results/smoke/figures/mems"
    assert all(s["duration_s"] <= 10.0 for s in smoke["recordings"].values())
    # merged key by key: the smoke file keeps the default's controllers and seeds
    assert smoke["recordings"]["ac"]["controller"] == "AC" and smoke["recordings"]["ac"]["warm_start"] == "identification"
    assert smoke["notebooks"]["05_temperature_convergence"]["tolerances"]["pi_pds"] == 0.02
    plan = P.recording_plan(cfg)
    assert set(plan) == {"identification", "pd", "ctc", "ac", "cold", "warm"}
    assert plan["ac"]["warm_from"] == "identification" and plan["ac"]["path"] == "results/mems/recordings/ac.nc"
    assert "warm_start" not in plan["ac"]["spec"]
    p = P.notebook_params(cfg, plan, "04_controller_comparison")
    assert p["source"] == "archive" and p["recordings"] == {"PD": "results/mems/recordings/pd.nc",
                                                           "CTC": "results/mems/recordings/ctc.nc",
                                                           "AC": "results/mems/recordings/ac.nc"}
    targets = P.final_targets(cfg)
    assert "figures/mems/fig05_model_order.png" in targets and "figures/mems/fig05_model_order.svg" in targets
    assert "results/mems/paper_comparison.csv" in targets and "results/mems/notebooks/02_model_order.ipynb" in targets


def test_config_errors() -> None:
    cfg = P.load_config()
    with pytest.raises(ValueError, match="source must be one of"):
        P.normalise_config(dict(cfg, source="sim"))
    with pytest.raises(sources.RigUnavailable, match="needs a rig configuration"):
        P.normalise_config(dict(cfg, source="hardware"))
    bad = P.merge(cfg, {"notebooks": {"02_model_order": {"recording": "nope"}}})
    with pytest.raises(ValueError, match="not under 'recordings'"):
        P.normalise_config(bad)
    with pytest.raises(ValueError, match="unknown key"):
        P.normalise_config(P.merge(cfg, {"recordings": {"ac": {"speed": 3}}}))
    # archive: every recording must be registered
    arch = P.normalise_config(dict(cfg, source="archive", registry="tests/no_such_registry.toml"))
    with pytest.raises(ValueError, match="not listed"):
        P.recording_plan(arch)


def test_plan_takes_registered_recordings_from_the_archive(tmp_path: Path) -> None:
    from paperlib.experiments.mems.synthetic import synthetic_recording
    from paperlib.recordings import registry_entry, write_recording

    f = write_recording(synthetic_recording(1.0, fs_hz=200.0), tmp_path / "ident.nc")
    reg = tmp_path / "registry.toml"
    reg.write_text("")
    reg.write_text(registry_entry(f, name="identification", description="synthetic", registry=reg))
    cfg = P.normalise_config(dict(P.load_config(), registry=str(reg)))
    plan = P.recording_plan(cfg)
    assert plan["identification"]["origin"] == "archive" and plan["identification"]["path"] == str(f)
    assert plan["pd"]["origin"] == "twin"
    inputs = P.notebook_recording_inputs(cfg, plan, "02_model_order")
    assert inputs == [str(f), "results/mems/checks/archive_identification.ok"]
    out = tmp_path / "check.ok"
    assert P.main(["verify", "--name", "identification", "--registry", str(reg), "--output", str(out)]) == 0
    assert "sha256=" in out.read_text()


def test_params_file_is_stable(tmp_path: Path) -> None:
    cfg = P.load_config()
    plan = P.recording_plan(cfg)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    P.write_params(a, P.notebook_params(cfg, plan, "05_temperature_convergence"))
    P.write_params(b, P.notebook_params(P.load_config(), P.recording_plan(P.load_config()), "05_temperature_convergence"))
    assert a.read_bytes() == b.read_bytes()


# -- Snakefile and command line -------------------------------------------------------------------

def _snakemake(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO_ROOT / "Snakefile"),
                           "--directory", str(REPO_ROOT), "--cores", "2", *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout)


def test_snakefile_dry_run_plans_every_step(tmp_path: Path) -> None:
    r = _snakemake("--dry-run", "--config", f"config_file={REPO_ROOT / 'config' / 'smoke.yaml'}",
                   f"results_dir={tmp_path}/res", f"figures_dir={tmp_path}/fig")
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout + r.stderr
    for rule in ("codegen_check", "mems_recording", "mems_notebook_params", "mems_notebook_02_model_order",
                 "mems_paper_comparison", "paper_index"):
        assert rule in out, rule


def test_hardware_source_is_refused_without_rig(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "paperlib", "reproduce", "mems", "--source", "hardware", "--dry-run"],
                       cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "needs a rig configuration" in r.stderr
    rig = tmp_path / "rig.toml"
    rig.write_text('[rig]\nrobot = "five_bar"\n[ethercat]\ninterface = "paperlib-no-such-if0"\n[imu]\nudp_port = 5005\n')
    r = subprocess.run([sys.executable, "-m", "paperlib", "reproduce", "mems", "--source", "hardware", "--rig-config", str(rig),
                        "--dry-run"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not present on this machine" in r.stderr
    # the Snakefile refuses too, when run directly
    r = _snakemake("--dry-run", "--config", "source=hardware", f"results_dir={tmp_path}/res")
    assert r.returncode != 0 and "needs a rig configuration" in (r.stdout + r.stderr)


def test_notebook_refuses_hardware_without_rig() -> None:
    from paperlib.experiments.mems.notebook import NotebookRun

    with pytest.raises(sources.RigUnavailable, match="never|not used|Refusing"):
        NotebookRun("02_model_order", source="hardware", specs={"main": {"controller": "CTC"}})


def test_reproduce_is_registered() -> None:
    from paperlib.cli import build_parser

    args = build_parser().parse_args(["reproduce", "--config", "config/smoke.yaml", "--dry-run"])
    assert args.cores == 2 and args.dry_run
    from paperlib.experiments.cli import snakemake_command

    cmd = snakemake_command(args)
    assert "--dry-run" in cmd and any(c.startswith("config_file=") for c in cmd)


# -- CI smoke run -----------------------------------------------------------------------------------

@pytest.mark.skipif(os.environ.get("PAPERLIB_SKIP_SMOKE") == "1", reason="PAPERLIB_SKIP_SMOKE=1")
def test_smoke_reproduce(tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    root, figroot = tmp_path / "results", tmp_path / "figures"
    res, fig = root / "mems", figroot / "mems"
    cmd = [sys.executable, "-m", "paperlib", "reproduce", "mems", "--config", "config/smoke.yaml", "--cores", "2",
           "--results-dir", str(root), "--figures-dir", str(figroot), "--quiet"]
    r = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    logs = "\n".join(p.read_text()[-2000:] for p in sorted((res / "logs").glob("*.log"))) if (res / "logs").is_dir() else ""
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:] + logs
    assert f"figures ({sum(len(v) for v in P.NOTEBOOKS.values())})" in r.stdout  # one line per figure (its PNG)
    # every figure exists in both formats, is not blank, and has its provenance sidecar
    for nb, stems in P.NOTEBOOKS.items():
        for stem in stems:
            png, svg, side = (fig / f"{stem}.{e}" for e in ("png", "svg", "json"))
            assert png.stat().st_size > 5000 and svg.stat().st_size > 5000, stem
            img = mpimg.imread(png)
            assert img[..., :3].std() > 0.02, f"{stem} looks blank"
            meta = json.loads(side.read_text())
            assert meta["git_commit"] and meta["source"] in ("twin", "model"), stem
        assert (res / "notebooks" / f"{nb}.ipynb").is_file()
    # numbers: finite and plausible
    r4 = json.loads((res / "04_controller_comparison.json").read_text())
    assert r4["source"] == "twin"
    for ctrl, errs in r4["rms_error_rad"].items():
        assert all(0 < e < 0.1 for e in errs), ctrl
    for key, ratios in r4["ratios"].items():
        assert all(math.isfinite(x) and x > 0 for x in ratios), key
    shares = np.array(list(r4["torque_shares_percent"].values()))
    np.testing.assert_allclose(shares.sum(axis=0), 100.0, rtol=1e-9)
    r2 = json.loads((res / "02_model_order.json").read_text())
    assert r2["choice"]["chosen"] in (1, 2, 3, 4, 5) and all(v > 0 for v in r2["final_rho_Nm"].values())
    r5 = json.loads((res / "05_temperature_convergence.json").read_text())
    assert 0 <= r5["convergence"]["cold"]["pi_pds"] < 10.0
    assert r5["temperature"]["temperature_C"]["warm"][0] > r5["temperature"]["temperature_C"]["cold"][0] + 5
    # the comparison table: every headline, with source and ratio columns
    csv = (res / "paper_comparison.csv").read_text().splitlines()
    assert csv[0].split(",")[:9] == ["key", "quantity", "joint", "paper", "reproduced", "unit", "source", "ratio",
                                      "agreement"]
    assert len(csv) == 1 + len(__import__("paperlib.experiments.mems.comparison", fromlist=["x"]).HEADLINES)
    assert "| twin |" in (res / "paper_comparison.md").read_text()
    # notebook 07: the same numbers on the twin calibrated to Fig. 11, in columns of their own, the shares
    # (the calibration's targets) labelled; its recordings say which calibration they ran on
    header = csv[0].split(",")
    assert header[-2:] == ["calibrated", "calibrated_agreement"]
    import csv as _csv

    rows = {r["key"]: r for r in _csv.DictReader((res / "paper_comparison.csv").open())}
    assert all(rows[f"share_{p}_j{j}"]["calibrated_agreement"].startswith("calibrated to it")
               for p in ("friction_ff", "feedback", "dynamic_ff") for j in (1, 2))
    assert rows["CTC_vs_PD_rms_j1"]["calibrated"] and not rows["CTC_vs_PD_rms_j1"]["calibrated_agreement"].startswith("cal")
    assert rows["model_order_knee"]["calibrated"] == ""  # notebook 02's number: not recomputed on the calibrated twin
    r7 = json.loads((res / "07_calibrated_twin.json").read_text())
    assert r7["calibrated_twin"]["calibration_sha256"] and r7["source"] == "twin"
    from paperlib.recordings import read_recording

    cal = read_recording(res / "recordings" / "calibrated_ac.nc")
    assert json.loads(cal.attrs["twin_calibration"])["status"] == "calibrated" and cal.attrs["source"] == "twin"
    assert "twin_calibration" not in read_recording(res / "recordings" / "ac.nc").attrs
    index = (root / "paper_comparison.md").read_text()
    assert "`mems` | reproduced | [mems/paper_comparison.md]" in index and "`rrr`" in index
    # a second run with nothing changed does nothing
    r = subprocess.run(cmd[:-1], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Nothing to be done" in (r.stdout + r.stderr), r.stdout[-2000:] + r.stderr[-2000:]


# papermill's parameter parsing of every room's notebooks: tests/contracts/test_notebooks_parameters.py


def test_standalone_notebook_finds_the_pipelines_recording(tmp_path: Path) -> None:
    from paperlib.experiments.mems.notebook import matching_recording
    from paperlib.experiments.mems.synthetic import synthetic_recording
    from paperlib.recordings import write_recording

    ds = synthetic_recording(duration_s=0.5, seed=3)
    write_recording(ds, tmp_path / "x.nc")
    assert matching_recording({"seed": 3, "duration_s": 0.5}, tmp_path) == tmp_path / "x.nc"
    assert matching_recording({"seed": 4, "duration_s": 0.5}, tmp_path) is None
    assert matching_recording({"seed": 3, "warm_start": "identification"}, tmp_path) is None
    assert matching_recording({"seed": 3}, tmp_path / "nowhere") is None
