"""Every parameters file a pipeline run left in ``results/`` (any room, any configuration) passes
only parameters its notebook declares (what papermill would otherwise warn about as
``Passed unknown parameter``). The same check on the parameters each pipeline would pass, without
a build: ``tests/contracts/test_notebooks_parameters.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from paperlib.experiments.kit import parameters
from paperlib.provenance import REPO_ROOT

from built_results import parameter_files

pytestmark = pytest.mark.results

PARAM_FILES = parameter_files()


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_parameter_files_written_by_the_pipeline_match_their_notebook(path: Path) -> None:
    room = path.parent.parent.name
    nb = REPO_ROOT / "notebooks" / room / f"{path.stem}.ipynb"
    passed = set(yaml.safe_load(path.read_text()) or {})
    names = set(parameters.declared(nb))
    assert passed <= names, f"{path.name}: unknown to {room}/{nb.stem}: {sorted(passed - names)}"
