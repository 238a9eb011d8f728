"""What a build left behind, found once for the checks of ``tests/results/`` (imported by them:
pytest puts this folder on ``sys.path``)."""

from __future__ import annotations

import json
from pathlib import Path

from paperlib import comparison as C
from paperlib.experiments.kit import registry
from paperlib.provenance import REPO_ROOT

#: Where a build writes: a full build, and the smoke configuration's build.
RESULT_ROOTS = (REPO_ROOT / "results", REPO_ROOT / "results" / "smoke")
FIGURE_ROOTS = (REPO_ROOT / "figures", REPO_ROOT / "results" / "smoke" / "figures")

#: Rooms with a comparison table.
ROOMS = [s for s in registry.slugs() if (REPO_ROOT / "paperlib" / "experiments" / s / "comparison.py").is_file()]


def built_rooms() -> list[tuple[str, Path]]:
    """(slug, folder) of every room whose results folder holds a notebook result its table reads."""
    out = []
    for slug in ROOMS:
        headlines, _ = C.headlines_of(slug)
        stems = {h.notebook for h in headlines}
        for root in RESULT_ROOTS:
            d = root / slug
            if d.is_dir() and any(p.stem in stems for p in d.glob("*.json")):
                out.append((slug, d))
    return out


def figure_sidecars() -> list[Path]:
    """Sidecars of the saved figures (a sidecar naming a PNG; a view's names none)."""
    out = []
    for root in FIGURE_ROOTS:
        for p in sorted(root.glob("*/*.json")):
            side = json.loads(p.read_text())
            if any(k.endswith(".png") for k in side.get("files", {})):
                out.append(p)
    return out


def parameter_files() -> list[Path]:
    """The papermill parameters files a pipeline run wrote for a notebook."""
    return [p for p in sorted((REPO_ROOT / "results").glob("**/params/*.yaml"))
            if (REPO_ROOT / "notebooks" / p.parent.parent.name / f"{p.stem}.ipynb").is_file()]
