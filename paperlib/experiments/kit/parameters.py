"""The one notebook-parameter check: what a notebook's ``parameters`` cell declares, and nothing else is passed.

Papermill injects the parameters a rule passes after the cell tagged ``parameters``; a name the
cell does not declare is still injected (papermill only warns), so a misspelt parameter would
silently leave the notebook's default in place. :func:`check` refuses it.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any, Mapping

from paperlib.provenance import repo_path

__all__ = ["ParameterError", "declared", "check"]


class ParameterError(ValueError):
    """A notebook's parameters cell is malformed, or a parameter it does not declare was passed."""


def declared(notebook: str | os.PathLike[str]) -> dict[str, Any]:
    """Names and literal values assigned in the notebook's one cell tagged ``parameters``.

    Parameters
    ----------
    notebook : path-like
        The ``.ipynb`` file (relative paths from the repository root).

    Raises
    ------
    ParameterError
        Not exactly one such cell, or a statement in it that is not ``name = literal``.
    """
    path = repo_path(notebook)
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", []) if "parameters" in (c.get("metadata") or {}).get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{path}: exactly one cell tagged 'parameters' expected, found {len(cells)}")
    src = cells[0]["source"]
    src = "".join(src) if isinstance(src, list) else str(src)
    out: dict[str, Any] = {}
    for node in ast.parse(src).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ParameterError(f"{path}: line {node.lineno} of the parameters cell is not a single-name assignment")
        try:
            out[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ParameterError(f"{path}: parameter {node.targets[0].id!r} is not a literal value") from exc
    return out


def check(notebook: str | os.PathLike[str], params: Mapping[str, Any]) -> None:
    """Raise :class:`ParameterError` naming every parameter in ``params`` the notebook does not declare."""
    names = declared(notebook)
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ParameterError(f"{Path(notebook)}: parameter(s) {unknown} are not declared in its parameters cell "
                             f"(declared: {', '.join(sorted(names))})")
