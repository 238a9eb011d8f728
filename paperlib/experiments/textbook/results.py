"""Results files of the course notebooks: numbers, ``source`` and provenance, through the kit's one writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from paperlib import provenance
from paperlib.experiments.kit.jsonio import jsonable
from paperlib.experiments.kit.outputs import write_results as _write_results
from paperlib.provenance import repo_path

__all__ = ["repo_path", "write_results", "jsonable"]


def write_results(path: str | Path, results: Mapping[str, Any], *, notebook: str, source: str = "twin",
                  parameters: Mapping[str, Any] | None = None,
                  recordings: Sequence[Mapping[str, Any]] | None = None) -> Path:
    """Write ``results`` (:func:`paperlib.experiments.kit.outputs.write_results`) with ``source``
    (twin | hardware | model) and provenance (code stamp, notebook, parameters and, if given, the
    recordings the numbers were computed from: :attr:`paperlib.experiments.textbook.lab.Lab.used`,
    each with its file and sha256, which ``paperlib archive pack`` checks)."""
    prov = {**provenance.stamp(), "notebook": notebook, "parameters": dict(parameters or {})}
    if recordings is not None:
        prov["recordings"] = [dict(r) for r in recordings]
    return _write_results(path, results, provenance=prov, source=source)
