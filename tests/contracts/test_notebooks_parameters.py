"""Every notebook of every room: papermill reads its parameters cell without a warning.

Papermill infers a notebook's parameters from the cell tagged ``parameters``. A line it cannot
parse (an inline comment holding ``=``, two assignments on one line, ...) is logged as
``Unable to parse line N`` and the parameter is then unknown to it; a parameter the pipeline
passes that it did not infer is logged as ``Passed unknown parameter`` (the value is still
injected, but the warning says otherwise). Both are checked here for every notebook under
``notebooks/<room>/`` and for the parameters each room's pipeline passes.
"""

from __future__ import annotations

import logging
from pathlib import Path

import nbformat
import pytest
import yaml

from paperlib.experiments.kit import parameters, registry
from paperlib.provenance import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _cell_names(path: Path) -> dict:
    """Names and literal values assigned in the notebook's one ``parameters`` cell (the kit's check)."""
    return parameters.declared(path)


def _inferred(path: Path, caplog) -> tuple[set, list[str]]:
    import papermill as pm

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        inferred = pm.inspect_notebook(str(path))
    return set(inferred), [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_every_room_has_notebooks():
    rooms = {p.parent.name for p in NOTEBOOKS}
    built = {r.slug for r in registry.rooms() if r.paper.status != "planned"}
    assert built <= rooms, f"rooms without notebooks: {sorted(built - rooms)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_papermill_parses_the_parameters_cell_without_warning(path: Path, caplog) -> None:
    inferred, warnings = _inferred(path, caplog)
    assert not warnings, f"{_id(path)}: papermill warned: {warnings}"
    assert inferred == set(_cell_names(path)), f"{_id(path)}: papermill and Python disagree on the parameters"


def test_the_kit_refuses_a_parameter_the_notebook_does_not_declare() -> None:
    nb = REPO_ROOT / "notebooks" / "bearing" / "01_intrinsic_identification.ipynb"
    with pytest.raises(parameters.ParameterError, match="cutof_hz"):
        parameters.check(nb, {"cutof_hz": 10.0})


def test_a_bad_parameters_cell_is_caught(tmp_path: Path, caplog) -> None:
    """The check above can fail: an inline comment with '=' is what papermill cannot parse."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    cell = nbformat.v4.new_code_cell("a = 1\nb = 2  # default = 2\n")
    cell.metadata["tags"] = ["parameters"]
    nb.cells.append(cell)
    p = tmp_path / "bad.ipynb"
    nbformat.write(nb, p)
    inferred, warnings = _inferred(p, caplog)
    assert any("Unable to parse" in w for w in warnings) and inferred != set(_cell_names(p))


def _pipeline_parameters() -> list[tuple[str, dict]]:
    """(notebook id, parameters) the rooms' pipelines pass, from the rooms' own planning code."""
    out = []
    from paperlib.experiments.bearing import pipeline as B

    cfg = B.load_config(None, REPO_ROOT / "config" / "bearing.yaml")
    for nb in B.NOTEBOOKS:
        out.append((f"bearing/{nb}", B.notebook_params(nb, cfg, "results/bearing", "figures/bearing")))
    from paperlib.experiments.textbook import pipeline as T

    tcfg = T.load_config(str(REPO_ROOT / "config" / "textbook.yaml"), None)
    for nb in T.notebooks(tcfg):
        out.append((f"textbook/{nb}", T.notebook_params(tcfg, nb, results_dir="results/textbook",
                                                         figures_dir="figures/textbook")))
    icfg = yaml.safe_load((REPO_ROOT / "config" / "industrial.yaml").read_text())
    out.append(("industrial/01_tx40_identification", icfg["tx40_identification"]))
    from paperlib.experiments.rrr import pipeline as R

    rcfg = R.load_config()
    for nb in R.NOTEBOOKS:
        out.append((f"rrr/{nb}", R.notebook_params(nb, rcfg, "results/rrr", "figures/rrr",
                                                   "results/rrr/recordings/sampling_pd.nc")))
    from paperlib.experiments.mems import pipeline as M

    mcfg = M.load_config()
    plan = M.recording_plan(mcfg)
    for nb in M.NOTEBOOKS:
        out.append((f"mems/{nb}", M.notebook_params(mcfg, plan, nb)))
    return out


@pytest.mark.parametrize("nb,params", _pipeline_parameters(), ids=[n for n, _ in _pipeline_parameters()])
def test_the_pipeline_passes_only_parameters_the_notebook_declares(nb: str, params: dict) -> None:
    names = set(_cell_names(REPO_ROOT / "notebooks" / f"{nb}.ipynb"))
    assert set(params) <= names, f"{nb}: papermill would warn 'Passed unknown parameter' for {sorted(set(params) - names)}"
