"""Provenance stamps shared by recordings, figures and results."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
from pathlib import Path

from paperlib import __version__

REPO_ROOT = Path(__file__).resolve().parent.parent


def repo_path(path: str | Path) -> Path:
    """``path`` taken from the repository root (an absolute path is returned unchanged).

    Notebooks give their inputs and outputs relative to the root, so they find the pipeline's
    recordings and write where the pipeline writes whether they run from JupyterLab (cwd the
    notebook's folder) or from papermill (cwd the root).
    """
    p = Path(path)
    return p if p.is_absolute() else REPO_ROOT / p


def git_commit() -> str:
    """Return the commit of the working tree (with ``-dirty`` when modified), or ``unknown``.

    Without a git checkout (the container image leaves ``.git`` out) the commit the image was
    built from, ``$PAPERLIB_COMMIT`` (set by ``container/build``), or ``unknown``.
    """
    built_from = os.environ.get("PAPERLIB_COMMIT") or "unknown"
    try:  # one git call (a recording is stamped per run): the head commit and whether tracked files changed
        out = subprocess.run(
            ["git", "status", "--porcelain=v2", "--branch", "--untracked-files=no"],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=5,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return built_from
    sha, dirty = "", False
    for line in out.splitlines():
        if line.startswith("# branch.oid "):
            sha = line.split()[2]
        elif line and not line.startswith("#"):
            dirty = True
    if not sha or sha == "(initial)":
        return built_from
    return sha + ("-dirty" if dirty else "")


def now_utc() -> str:
    """ISO-8601 UTC timestamp (seconds)."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def stamp() -> dict[str, str]:
    """Attributes every produced artefact carries: package version, commit, creation time."""
    return {"paperlib_version": __version__, "git_commit": git_commit(), "created": now_utc()}
