"""Results files of the course notebooks: numbers, ``source`` and provenance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from paperlib import provenance
from paperlib.provenance import repo_path

__all__ = ["repo_path", "write_results", "jsonable"]


def jsonable(x: Any) -> Any:
    """numpy scalars/arrays and nested containers as plain JSON values."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def write_results(path: str | Path, results: Mapping[str, Any], *, notebook: str, source: str = "twin",
                  parameters: Mapping[str, Any] | None = None) -> Path:
    """Write ``results`` (sorted JSON) with ``source`` (twin | hardware | model) and provenance."""
    out = dict(jsonable(results))
    out["source"] = source
    out["provenance"] = {**provenance.stamp(), "notebook": notebook, "parameters": jsonable(dict(parameters or {}))}
    target = repo_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return target
