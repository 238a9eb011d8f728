"""Which recordings a build used: each room's recordings folder and what its sidecars name.

A room writes its recordings under ``results/<slug>/recordings/``; its figures' JSON sidecars
(:func:`paperlib.figures.io.save`) and its result JSON files name the recordings they were made
from with their sha256 (a ``{"file" | "path": ..., "sha256": ...}`` entry anywhere in the
document). Both are collected, so a recording the room reads from elsewhere (the archived
recordings of ``data/recordings/``) is found too. A named recording whose bytes no longer match the
sidecar's sha256 is a fault: the release would not hold what the build used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from paperlib.archive.errors import ArchiveError

__all__ = ["UsedRecording", "Reference", "collect", "references"]


@dataclass(frozen=True)
class Reference:
    """A recording named by an output: where it is named, what sha256 it had then."""

    output: str  # the sidecar / result file, relative to the root
    notebook: str  # the notebook that wrote it ('' when the output does not say)
    sha256: str


@dataclass
class UsedRecording:
    """One recording of the build and where it goes in the release."""

    path: Path  # absolute path of the file the build used
    release_path: PurePosixPath  # relative path in the release
    papers: set[str] = field(default_factory=set)
    references: list[Reference] = field(default_factory=list)
    commits: set[str] = field(default_factory=set)  # git commits the outputs naming it were built at


def references(doc: Any) -> Iterator[tuple[str, str]]:
    """(file, sha256) of every recording a JSON document names: each mapping anywhere in it with a
    string ``sha256`` and a ``file`` or ``path`` ending in ``.nc``."""
    if isinstance(doc, dict):
        sha = doc.get("sha256")
        for key in ("file", "path"):
            name = doc.get(key)
            if isinstance(sha, str) and isinstance(name, str) and name.endswith(".nc"):
                yield name, sha.lower()
                break
        for value in doc.values():
            yield from references(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from references(value)


def _stamp(doc: Any, key: str) -> str:
    """A document's ``key`` (``notebook``, ``git_commit``) at its top or in its ``provenance`` block, or ''."""
    if not isinstance(doc, dict):
        return ""
    value = doc.get(key)
    if not value and isinstance(doc.get("provenance"), dict):
        value = doc["provenance"].get(key)
    return value if isinstance(value, str) else ""


def _release_path(path: Path, results_root: Path, root: Path) -> PurePosixPath | None:
    """``results/<rel>`` inside the results root, ``<rel>`` inside the repository root, else None."""
    if path.is_relative_to(results_root):
        return PurePosixPath("results", *path.relative_to(results_root).parts)
    if path.is_relative_to(root):
        return PurePosixPath(*path.relative_to(root).parts)
    return None


def _locate(name: str, root: Path) -> Path:
    """A recording named by an output: absolute as written, else relative to the repository root."""
    p = Path(name)
    return (p if p.is_absolute() else root / p).resolve()


def collect(papers: list[str], results_root: Path, figures_root: Path, root: Path) -> list[UsedRecording]:
    """Every recording the build of ``papers`` used, found on disk, checked against the outputs naming it.

    Parameters
    ----------
    papers : list of str
        Room slugs; each must have ``results_root/<slug>/``.
    results_root, figures_root : Path
        The build's ``results/`` and ``figures/`` folders (absolute).
    root : Path
        The folder relative paths in the outputs start from (the repository root, absolute).

    Returns
    -------
    list of UsedRecording
        Sorted by release path.

    Raises
    ------
    ArchiveError
        Naming every fault: a paper without results, a named recording missing or changed since
        the output was written, a recording outside the repository, a JSON output that does not parse.
    """
    from paperlib.recordings import sha256_file

    faults: list[str] = []
    found: dict[Path, UsedRecording] = {}
    digests: dict[Path, str] = {}

    def use(path: Path, paper: str) -> UsedRecording | None:
        rel = _release_path(path, results_root, root)
        if rel is None:
            faults.append(f"{path}: a recording of {paper} outside {root}: cannot be placed in the release")
            return None
        rec = found.setdefault(path, UsedRecording(path=path, release_path=rel))
        rec.papers.add(paper)
        return rec

    for paper in papers:
        res = results_root / paper
        if not res.is_dir():
            faults.append(f"{res}: no results for paper {paper!r} (build it first: paperlib reproduce {paper})")
            continue
        for nc in sorted((res / "recordings").rglob("*.nc")):
            use(nc.resolve(), paper)
        outputs = sorted(res.rglob("*.json")) + sorted((figures_root / paper).rglob("*.json"))
        for out in outputs:
            label = str(out.relative_to(root)) if out.is_relative_to(root) else str(out)
            try:
                doc = json.loads(out.read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                faults.append(f"{label}: cannot read it as JSON ({exc})")
                continue
            notebook, commit = _stamp(doc, "notebook"), _stamp(doc, "git_commit")
            for name, sha in references(doc):
                path = _locate(name, root)
                if not path.is_file():
                    faults.append(f"{label}: names recording {name} (sha256 {sha}), which is not there")
                    continue
                if path not in digests:
                    digests[path] = sha256_file(path)
                if digests[path] != sha:
                    faults.append(f"{label}: names recording {name} with sha256 {sha}, but the file now has "
                                  f"{digests[path]}: it changed after the build (rebuild, then pack)")
                    continue
                rec = use(path, paper)
                if rec is not None:
                    rec.references.append(Reference(output=label, notebook=notebook, sha256=sha))
                    if commit:
                        rec.commits.add(commit)
    clash: dict[PurePosixPath, Path] = {}
    for rec in found.values():
        other = clash.setdefault(rec.release_path, rec.path)
        if other != rec.path:
            faults.append(f"{rec.path} and {other}: both would be {rec.release_path} in the release")
    if faults:
        raise ArchiveError(faults)
    return sorted(found.values(), key=lambda r: str(r.release_path))
