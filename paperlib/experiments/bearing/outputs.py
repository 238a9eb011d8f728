"""What the room's notebooks do besides their science: read recordings, save figures, write results.

A minimal counterpart of the flagship room's ``NotebookRun`` for recordings read from files
(this room makes its twin recordings through the pipeline, not inside the notebooks). Figures
get a provenance sidecar (the recordings used with source, seed and sha256; the code commit; the
notebook; its parameters); results get the same and a top-level ``source``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib import __version__, provenance
from paperlib import recordings as rec

__all__ = ["Outputs"]


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


class Outputs:
    """Recordings, figures and results of one notebook run.

    Parameters
    ----------
    notebook : str
        Path of the notebook from the repository root (e.g. ``notebooks/bearing/01_x.ipynb``).
    recordings : mapping role -> path
        Files the notebook may read.
    output_dir, results_file : path-like
        Figure directory and results JSON.
    formats : sequence of str
    parameters : mapping
        The notebook's parameters (recorded in sidecars and results).
    """

    def __init__(self, notebook: str, *, recordings: Mapping[str, Any], output_dir: str | Path,
                 results_file: str | Path, formats: Sequence[str] = ("png", "svg"),
                 parameters: Mapping[str, Any] | None = None) -> None:
        self.notebook = notebook
        self.paths = {k: Path(v) for k, v in recordings.items()}
        self.output_dir = Path(output_dir)
        self.results_file = Path(results_file)
        self.formats = tuple(formats)
        self.parameters = dict(parameters or {})
        self.recs: dict[str, xr.Dataset] = {}
        self.notes: list[str] = []
        self.commit = provenance.git_commit()

    def load(self, roles: Iterable[str]) -> dict[str, xr.Dataset]:
        """The recordings of ``roles`` (read once)."""
        for r in roles:
            if r not in self.paths:
                raise KeyError(f"{self.notebook}: no recording file for role {r!r} (parameter 'recordings')")
            if r not in self.recs:
                self.recs[r] = rec.read_recording(self.paths[r])
        return {r: self.recs[r] for r in roles}

    def source_label(self, roles: Iterable[str] | None = None) -> str:
        """``twin``, ``hardware`` or ``twin+hardware`` for the recordings used; ``model`` if none."""
        roles = list(self.recs) if roles is None else list(roles)
        labels = sorted({str(self.recs[r].attrs.get("source", "?")) for r in roles})
        return "+".join(labels) if labels else "model"

    def describe(self, roles: Iterable[str]) -> list[dict[str, Any]]:
        out = []
        for r in roles:
            ds, p = self.recs[r], self.paths[r]
            out.append({"name": r, "file": str(p), "source": ds.attrs.get("source"), "robot": ds.attrs.get("robot"),
                        "seed": int(ds.attrs["seed"]) if "seed" in ds.attrs else None,
                        "recording_created": ds.attrs.get("created"), "recording_git_commit": ds.attrs.get("git_commit"),
                        "sha256": rec.sha256_file(p) if p.is_file() else None})
        return out

    def provenance(self, used: Iterable[str] | None = None, source: str | None = None, **extra: Any) -> dict[str, Any]:
        used = list(self.recs) if used is None else list(used)
        return {"notebook": self.notebook, "git_commit": self.commit, "paperlib_version": __version__,
                "source": source or self.source_label(used), "recordings": self.describe(used),
                "parameters": self.parameters, **extra}

    def save(self, obj: Any, stem: str, used: Iterable[str] | None = None, source: str | None = None,
             **extra: Any) -> list[Path]:
        """Save a figure in every format with its provenance sidecar."""
        from paperlib.figures.io import save

        return save(obj, self.output_dir / stem, self.formats,
                    provenance=self.provenance(used, source=source, figure=stem, **extra))

    def note(self, text: str) -> None:
        """A note for the results (e.g. where the twin was calibrated to the paper)."""
        self.notes.append(text)

    def write_results(self, results: Mapping[str, Any], used: Iterable[str] | None = None,
                      source: str | None = None) -> Path:
        """Write the notebook's numbers (JSON, sorted keys) with ``source`` and provenance."""
        out = dict(results)
        prov = self.provenance(used, source=source)
        out.setdefault("source", prov["source"])
        out["provenance"] = prov
        out["notes"] = list(self.notes) + list(results.get("notes", []))
        self.results_file.parent.mkdir(parents=True, exist_ok=True)
        self.results_file.write_text(json.dumps(out, default=_jsonable, sort_keys=True, indent=1) + "\n")
        return self.results_file
