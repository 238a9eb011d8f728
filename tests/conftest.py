"""Shared fixtures of the test tree.

The tree mirrors the package: ``tests/layers/<package>/`` tests one generic layer
(``paperlib/<package>/``), ``tests/rooms/<slug>/`` one paper's room (``paperlib/experiments/<slug>/``,
its notebooks and rules), ``tests/contracts/`` what holds across the project (pins, notebooks'
parameters, comparison notes, conformance of every estimator), ``tests/results/`` the checks of a
build's results (marked ``results``; ``make check-results`` after ``make reproduce``). Fixtures used
by one room's tests live in that room's ``conftest.py``; ``tests/data/`` holds small committed fixture
files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperlib.provenance import REPO_ROOT

#: Small committed fixture files (``tests/data/``).
FIXTURES = REPO_ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """``tests/data/``: small committed recordings (e.g. a schema-1 file)."""
    return FIXTURES


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the clone (papers, public recordings); the test is skipped where it is absent."""
    d = REPO_ROOT.parent / "shared"
    if not d.is_dir():
        pytest.skip(f"{d} is not here (the shared folder beside the clone)")
    return d
