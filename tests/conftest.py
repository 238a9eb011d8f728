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

import os
import shutil
from pathlib import Path

import pytest

from paperlib.provenance import REPO_ROOT

#: Small committed fixture files (``tests/data/``).
FIXTURES = REPO_ROOT / "tests" / "data"

#: The test files that take longest (CI rehearsal of 2026-12-07: the mems smoke build alone is ~135 s of
#: pytest's ~590 s on one process), longest first. ``make test`` runs pytest on two workers, one file at a
#: time per worker (``-n 2 --dist loadfile --no-loadscope-reorder``: a file's module fixtures are built
#: once); collected first, these start at once instead of ending the run alone on one worker. Only the
#: order changes: nothing is skipped, and a file missing from the list is merely collected in its place.
LONG_FIRST = (
    "tests/rooms/mems/test_pipeline.py",
    "tests/layers/hardware/test_hardware_rig.py",
    "tests/contracts/test_rules.py",
    "tests/layers/symbolic/test_codegen.py",
    "tests/layers/cli/test_cli_identify.py",
    "tests/layers/hardware/test_loop.py",
    "tests/rooms/mems/test_mems_hardware_source.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Move the files of :data:`LONG_FIRST` to the front, in that order (a stable sort: the rest keep theirs)."""
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


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


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """The browser tests' Chromium: ``PAPERLIB_CHROMIUM``, else Debian's ``chromium``; the test fails without one."""
    exe = os.environ.get("PAPERLIB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.fail("no chromium binary: install Debian's chromium (apt-get install -y chromium) "
                    "or set PAPERLIB_CHROMIUM")
    return exe


@pytest.fixture(scope="session")
def netns_available() -> None:
    """The emulated rigs' tests: pysoem and network namespaces (root); skipped, naming why, without them."""
    pytest.importorskip("pysoem")
    from paperlib.hardware import netns

    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(reason)
