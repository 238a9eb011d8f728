"""The bearing room's notebooks and plan: thin, parameterized, committed clean, in step with the rules."""

import ast
import io
import subprocess
import sys
import tokenize

import nbformat
import pytest

from paperlib.experiments.bearing import pipeline as P
from paperlib.experiments.bearing.comparison import HEADLINES
from paperlib.provenance import REPO_ROOT


def _parameters(nb):
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    src = cells[0].source
    names = {}
    for node in ast.parse(src).body:
        assert isinstance(node, ast.Assign), "the parameters cell holds assignments only"
        names[node.targets[0].id] = ast.literal_eval(node.value)
    # no inline comments: a comment token never shares its line with code
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            assert tok.line.strip().startswith("#"), f"inline comment in the parameters cell: {tok.line!r}"
    return names


@pytest.mark.parametrize("name", sorted(P.NOTEBOOKS))
def test_notebooks_are_thin_parameterized_and_clean(name):
    nb = nbformat.read(REPO_ROOT / "notebooks" / "bearing" / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "paperlib"
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None
            assert len(c.source.splitlines()) <= 30
    params = _parameters(nb)
    assert params["results_file"] == f"scratch/bearing/{name}.json"  # by hand: scratch; the pipeline passes results/bearing
    cfg = P.load_config()
    assert set(P.notebook_params(name, cfg, "results/bearing", "figures/bearing")) <= set(params)
    assert {h.notebook for h in HEADLINES} <= set(P.NOTEBOOKS)


def test_config_and_smoke_section():
    cfg = P.load_config()
    assert cfg["n_per_grade"] >= 50 and cfg["tune_seed"] != cfg["test_seed"]
    import yaml

    smoke = yaml.safe_load((REPO_ROOT / "config" / "smoke.yaml").read_text())
    assert P.load_config(smoke)["n_per_grade"] < cfg["n_per_grade"]
    with pytest.raises(ValueError, match="unknown key 'n_per_grad'.*"):
        P.load_config({"bearing": {"n_per_grad": 3}})


@pytest.mark.slow  # ~15 s: parses every room's rules; tests/rooms/mems/test_pipeline.py dry-runs the whole Snakefile in CI
def test_snakefile_plans_the_room(tmp_path):
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "bearing", "--config",
                        f"results_dir={tmp_path}/res", f"figures_dir={tmp_path}/fig"], cwd=REPO_ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:]
    for rule in ("bearing_recording", "bearing_fit", "bearing_inspect", "bearing_notebook_01_intrinsic_identification",
                 "bearing_notebook_02_bearing_inspection", "bearing_paper_comparison"):
        assert rule in r.stdout
