"""The one outputs writer of the rooms: results JSON and figures, each with its provenance.

:func:`write_results` writes a results file through the one encoder
(:func:`paperlib.experiments.kit.jsonio.dumps`: keys sorted, NaN as null); :func:`save_figure`
saves a figure in every format with its JSON sidecar through :func:`paperlib.figures.io.save`.
:class:`Outputs` is the context of one notebook run that reads its recordings from files: it
records which recordings each figure and result used (source, seed, sha256), the code commit,
the notebook and its parameters, and notes (e.g. where the twin was calibrated to the paper).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from paperlib import __version__
from paperlib.provenance import git_commit, repo_path
from paperlib.experiments.kit.jsonio import write_json

__all__ = ["Outputs", "write_results", "save_figure"]


def write_results(path: str | os.PathLike[str], results: Mapping[str, Any], *,
                  provenance: Mapping[str, Any] | None = None, source: str | None = None,
                  notes: Sequence[str] | None = None) -> Path:
    """Write a results JSON: ``results`` with ``source``, ``provenance`` and ``notes`` set when given.

    Parameters
    ----------
    path : path-like
        Relative paths are taken from the repository root.
    results : mapping
        The numbers (numpy values allowed; NaN and inf are written as null).
    provenance : mapping, optional
        Stored under ``provenance``.
    source : str, optional
        Stored as ``source`` (``twin`` | ``hardware`` | ``model`` | ...), replacing one in ``results``.
    notes : sequence of str, optional
        Stored as ``notes``, replacing one in ``results``.

    Returns
    -------
    Path
        The file written.
    """
    out = dict(results)
    if source is not None:
        out["source"] = source
    if provenance is not None:
        out["provenance"] = dict(provenance)
    if notes is not None:
        out["notes"] = list(notes)
    return write_json(repo_path(path), out)


def save_figure(obj: Any, path_stem: str | os.PathLike[str], formats: Sequence[str],
                provenance: Mapping[str, Any]) -> list[Path]:
    """Save a figure in every format with its provenance sidecar (:func:`paperlib.figures.io.save`).

    ``path_stem`` is taken from the repository root when relative; returns the files written.
    """
    from paperlib.figures.io import save

    return save(obj, repo_path(path_stem), tuple(formats), provenance=dict(provenance))


class Outputs:
    """Recordings, figures and results of one notebook run.

    Parameters
    ----------
    notebook : str
        Path of the notebook from the repository root (e.g. ``notebooks/<slug>/01_x.ipynb``).
    recordings : mapping role -> path, optional
        Files the notebook may read.
    output_dir : path-like
        Figure directory (from the repository root when relative).
    results_file : path-like
        Results JSON (from the repository root when relative).
    formats : sequence of str
    parameters : mapping, optional
        The notebook's parameters (recorded in sidecars and results).
    """

    def __init__(self, notebook: str, *, recordings: Mapping[str, Any] | None = None,
                 output_dir: str | os.PathLike[str] = "figures", results_file: str | os.PathLike[str],
                 formats: Sequence[str] = ("png", "svg"), parameters: Mapping[str, Any] | None = None) -> None:
        self.notebook = notebook
        self.paths = {k: Path(v) for k, v in (recordings or {}).items()}
        self.output_dir = repo_path(output_dir)
        self.results_file = repo_path(results_file)
        self.formats = tuple(formats)
        self.parameters = dict(parameters or {})
        self.recs: dict[str, Any] = {}
        self.notes: list[str] = []
        self.commit = git_commit()

    # -- recordings -----------------------------------------------------------------------------
    def load(self, roles: Iterable[str]) -> dict[str, Any]:
        """The recordings of ``roles``, read once from their files."""
        from paperlib import recordings as rec

        roles = list(roles)
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
        """Provenance of the recordings used: file, source, robot, seed, creation, sha256, and the commit that
        made each where the file names one (``recording_git_commit``; absent for another program's data)."""
        from paperlib import recordings as rec

        out = []
        for r in roles:
            ds, p = self.recs[r], self.paths[r]
            item = {"name": r, "file": str(p), "source": ds.attrs.get("source"), "robot": ds.attrs.get("robot"),
                    "seed": int(ds.attrs["seed"]) if "seed" in ds.attrs else None,
                    "recording_created": ds.attrs.get("created"), "sha256": rec.sha256_file(p) if p.is_file() else None}
            if ds.attrs.get("git_commit"):  # the commit that made it, where the file says (not another program's data)
                item["recording_git_commit"] = ds.attrs["git_commit"]
            if ds.attrs.get("rig"):  # recorded through a rig (e.g. the emulated one: real master, emulated devices)
                item["rig"] = ds.attrs["rig"]
            out.append(item)
        return out

    # -- outputs --------------------------------------------------------------------------------
    def provenance(self, used: Iterable[str] | None = None, source: str | None = None, **extra: Any) -> dict[str, Any]:
        """Sidecar / results provenance block (notebook, commit, version, source, recordings, parameters)."""
        used = list(self.recs) if used is None else list(used)
        return {"notebook": self.notebook, "git_commit": self.commit, "paperlib_version": __version__,
                "source": source or self.source_label(used), "recordings": self.describe(used),
                "parameters": self.parameters, **extra}

    def save(self, obj: Any, stem: str, used: Iterable[str] | None = None, source: str | None = None,
             **extra: Any) -> list[Path]:
        """Save a figure in every format with its provenance sidecar; returns the files written."""
        return save_figure(obj, self.output_dir / stem, self.formats,
                           self.provenance(used, source=source, figure=stem, **extra))

    def note(self, text: str) -> None:
        """A note for the results (e.g. where the twin was calibrated to the paper)."""
        self.notes.append(text)

    def write_results(self, results: Mapping[str, Any], used: Iterable[str] | None = None,
                      source: str | None = None) -> Path:
        """Write the notebook's numbers with ``source`` (unless ``results`` has one), provenance and notes."""
        prov = self.provenance(used, source=source)
        return write_results(self.results_file, results, provenance=prov, source=results.get("source", prov["source"]),
                             notes=list(self.notes) + list(results.get("notes", [])))
