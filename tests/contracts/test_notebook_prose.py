"""The papers' notebooks read as documents: more prose than code, by characters.

A paper notebook (every room's ``notebooks/<slug>/*.ipynb`` except the course's lessons, which
have a standard of their own: equations and exercises) opens with the question it answers and the
paper's equations, says what each figure shows and ends with a summary; its plumbing lives in
``paperlib/experiments/<slug>/``. The measure is the characters of the Markdown cells against those
of the code cells.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from paperlib.provenance import REPO_ROOT

#: The course (its lessons are held to their own standard).
COURSE = "textbook"

NOTEBOOKS = sorted(p for p in (REPO_ROOT / "notebooks").glob("*/*.ipynb") if p.parent.name != COURSE)


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def characters(path: Path) -> tuple[int, int]:
    """(Markdown, code) characters of a notebook's cell sources."""
    nb = nbformat.read(path, as_version=4)
    md = sum(len(c.source) for c in nb.cells if c.cell_type == "markdown")
    code = sum(len(c.source) for c in nb.cells if c.cell_type == "code")
    return md, code


def test_there_are_paper_notebooks() -> None:
    assert len(NOTEBOOKS) >= 10


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_a_paper_notebook_has_more_prose_than_code(path: Path) -> None:
    md, code = characters(path)
    assert md > code, f"{_id(path)}: {md} characters of Markdown against {code} of code"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_a_paper_notebook_ends_with_prose(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[-1].cell_type == "markdown", f"{_id(path)} ends with a code cell, not a summary"
