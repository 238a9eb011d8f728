"""``paperlib archive verify DIR``: a release holds exactly what its registry lists, unchanged."""

from __future__ import annotations

import os
from pathlib import Path

from paperlib.archive.layout import CITATION_FILE, METADATA_FILES, README_FILE, REGISTRY_FILE, ZENODO_FILE

__all__ = ["verify"]


def verify(directory: str | os.PathLike[str]) -> list[str]:
    """Every fault of a release folder; empty when it verifies.

    Checked: the metadata files are there; every recording of ``registry.toml`` is there with its
    sha256, is a valid recording, and its source and robot are those the registry states
    (:func:`paperlib.recordings.verify_registry`); no file is in the folder that the registry and the
    metadata do not list; ``CITATION.cff`` and ``.zenodo.json`` are well-formed; README.md has a row
    for every recording stating its source.

    Parameters
    ----------
    directory : path-like
        The release folder.

    Returns
    -------
    list of str
        One message per fault, each naming the file.
    """
    from paperlib.archive.citation import check_citation, check_zenodo
    from paperlib.archive.readme import row_prefix
    from paperlib.recordings import RecordingError, load_recording_registry, verify_registry

    top = Path(directory)
    if not top.is_dir():
        return [f"{top}: not a folder"]
    faults = [f"{top / name}: missing" for name in METADATA_FILES if not (top / name).is_file()]
    registry = top / REGISTRY_FILE
    entries = []
    if registry.is_file():
        try:
            entries = load_recording_registry(registry)
        except RecordingError as exc:
            faults += list(exc.problems)
        else:
            if not entries:
                faults.append(f"{registry}: lists no recording")
            faults += verify_registry(registry)
    listed = {Path(name) for name in METADATA_FILES} | {Path(e.file) for e in entries}
    for path in sorted(top.rglob("*")):
        if path.is_file() or path.is_symlink():
            rel = path.relative_to(top)
            if rel not in listed:
                faults.append(f"{path}: extra file, not in {REGISTRY_FILE} (a release holds its recordings and "
                              f"{', '.join(METADATA_FILES)} only)")
    if (top / CITATION_FILE).is_file():
        faults += check_citation(top / CITATION_FILE)
    if (top / ZENODO_FILE).is_file():
        faults += check_zenodo(top / ZENODO_FILE)
    readme = top / README_FILE
    if readme.is_file():
        text = readme.read_text(encoding="utf-8", errors="replace")
        for e in entries:
            if row_prefix(e.file, e.source) not in text:
                faults.append(f"{readme}: no row for {e.file} stating source = {e.source}")
    return faults
