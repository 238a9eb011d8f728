"""Find what the pipeline produced for each paper: ``results/<slug>/`` and ``figures/<slug>/``.

A *room* is one paper's outputs. Any directory ``results/<slug>/`` or ``figures/<slug>/``
whose name is a slug (lower-case letters, digits, underscores) and that holds executed
notebooks, figures, results JSON or a room table (``paper_comparison.csv``) is a room, except
the pipeline's own folders (:data:`NOT_ROOMS`; ``smoke`` is the CI run's root). The paper's title and status, and how the book
shows the room (:class:`paperlib.experiments.kit.BookPage`), come from the room registry
(:mod:`paperlib.experiments.kit.registry`) when a room of that slug is registered.

Where the data came from: each results JSON carries a top-level ``source`` (``twin`` |
``hardware`` | ``model``); each figure sidecar a ``source`` (and its recordings' sources).
A room's sources are the union; the landing page shows them, so a reader sees at once
which results are the digital twin's and which were measured.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperlib.experiments.kit.room import BookPage

__all__ = ["Room", "Figure", "discover", "NOT_ROOMS", "SOURCE_LABELS"]

#: Folders under results/ that are the pipeline's, not a paper's.
NOT_ROOMS = frozenset({"book", "logs", "params", "checks", "recordings", "notebooks", "screenshots", "views", "figures",
                       "smoke"})

#: How the landing page names each source.
SOURCE_LABELS = {
    "twin": "digital twin (simulated)",
    "hardware": "measured on hardware",
    "model": "model only (no recording)",
    "archive": "archived recording",
}

_SLUG = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Figure:
    """One figure: its PNG, optional SVG and sidecar, and the source(s) named in the sidecar."""

    png: Path
    sidecar: Path | None
    sources: set[str] = field(default_factory=set)
    notebook: str | None = None

    @property
    def name(self) -> str:
        return self.png.stem


@dataclass
class Room:
    """Outputs of one paper.

    Attributes
    ----------
    slug : str
    title : str
        The paper's title (``PAPER["title"]``), or the slug when the room has no module.
    status : str
        ``reproduced`` | ``partial`` | ``planned`` | ``unknown``.
    builds : str
        One line: what the room builds.
    notebooks : list of Path
        Executed notebooks (``results/<slug>/notebooks/*.ipynb``), sorted by name.
    figures : list of Figure
        ``figures/<slug>/*.png`` (and subfolders), sorted.
    comparison_md : Path or None
        ``results/<slug>/paper_comparison.md``.
    results : dict of str -> str
        Results JSON file name -> its ``source``.
    page : BookPage
        How the book shows the room (the room's ``ROOM.book``; defaults for an unregistered one).
    """

    slug: str
    title: str
    status: str
    builds: str
    notebooks: list[Path] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    comparison_md: Path | None = None
    comparison_csv: Path | None = None
    results: dict[str, str] = field(default_factory=dict)
    page: BookPage = field(default_factory=BookPage)

    @property
    def sources(self) -> set[str]:
        out = set(self.results.values())
        for f in self.figures:
            out |= f.sources
        return {s for s in out if s}

    @property
    def empty(self) -> bool:
        """No notebook, figure, results file or room table (a folder with only an index is not a room)."""
        return not (self.notebooks or self.figures or self.comparison_csv or self.results)


def _registered(slug: str) -> Any:
    """The registered room ``slug``, or None."""
    from paperlib.experiments.kit import registry

    try:
        return registry.room(slug)
    except KeyError:
        return None


def paper_info(slug: str) -> dict[str, str]:
    """Title, status and what it builds of the registered room ``slug``, or defaults."""
    r = _registered(slug)
    if r is None:
        return {"title": slug, "status": "unknown", "builds": ""}
    return {"title": r.paper.title, "status": r.paper.status, "builds": r.paper.builds}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not readable JSON ({exc})") from exc


def _sidecar_sources(side: Any) -> set[str]:
    out: set[str] = set()
    if not isinstance(side, dict):
        return out
    s = side.get("source")
    if isinstance(s, str):
        out |= {x.strip() for x in s.replace("+", ",").split(",") if x.strip()}
    recs = side.get("recordings")
    if isinstance(recs, dict):
        recs = list(recs.values())
    if isinstance(recs, list):
        for r in recs:
            if isinstance(r, dict) and isinstance(r.get("source"), str):
                out.add(r["source"])
    prov = side.get("provenance")
    if isinstance(prov, dict):
        out |= _sidecar_sources(prov)
    return out


def _figures(fig_dir: Path) -> list[Figure]:
    out = []
    if not fig_dir.is_dir():
        return out
    for png in sorted(fig_dir.rglob("*.png")):
        if any(part.startswith(".") for part in png.relative_to(fig_dir).parts):
            continue
        side = png.with_suffix(".json")
        info = _read_json(side) if side.is_file() else None
        nb = info.get("notebook") if isinstance(info, dict) else None
        out.append(Figure(png=png, sidecar=side if side.is_file() else None, sources=_sidecar_sources(info),
                          notebook=nb if isinstance(nb, str) else None))
    return out


def _results(res_dir: Path) -> dict[str, str]:
    out = {}
    if not res_dir.is_dir():
        return out
    for f in sorted(res_dir.glob("*.json")):
        data = _read_json(f)
        if isinstance(data, dict) and isinstance(data.get("source"), str):
            out[f.name] = data["source"]
    return out


def _room(slug: str, res_dir: Path, fig_dir: Path) -> Room:
    info = paper_info(slug)
    nb_dir = res_dir / "notebooks"
    md = res_dir / "paper_comparison.md"
    csv = res_dir / "paper_comparison.csv"
    reg = _registered(slug)
    return Room(slug=slug, title=info["title"], status=info["status"], builds=info["builds"],
                page=reg.book if reg is not None else BookPage(),
                notebooks=sorted(nb_dir.glob("*.ipynb")) if nb_dir.is_dir() else [],
                figures=_figures(fig_dir), comparison_md=md if md.is_file() else None,
                comparison_csv=csv if csv.is_file() else None, results=_results(res_dir))


def discover(results_dir: str | Path = "results", figures_dir: str | Path = "figures") -> list[Room]:
    """Every room with outputs under ``results_dir`` / ``figures_dir``, by (``page.order``, slug).

    Parameters
    ----------
    results_dir, figures_dir : path-like
        The pipeline's roots.

    Returns
    -------
    list of Room
        Rooms that hold at least one notebook, figure, results file or comparison table.

    Notes
    -----
    A pipeline once wrote straight into the roots (``results/notebooks/``, ``results/*.json``,
    ``figures/*.png``); if those exist, they are collected as the registered room whose book page
    says ``flat_legacy`` (when that room has no folder of its own).
    """
    res, fig = Path(results_dir), Path(figures_dir)
    slugs: set[str] = set()
    for root in (res, fig):
        if root.is_dir():
            slugs |= {d.name for d in root.iterdir() if d.is_dir() and _SLUG.match(d.name) and d.name not in NOT_ROOMS}
    rooms = [_room(s, res / s, fig / s) for s in sorted(slugs)]
    from paperlib.experiments.kit import registry

    flat = [r.slug for r in registry.rooms() if r.book.flat_legacy]
    if flat and flat[0] not in slugs and ((res / "notebooks").is_dir() or (res / "paper_comparison.md").is_file()):
        legacy = _room(flat[0], res, fig)
        legacy.figures = [f for f in _figures(fig) if f.png.parent == fig]
        rooms.append(legacy)
    rooms = [r for r in rooms if not r.empty]
    rooms.sort(key=lambda r: (r.page.order, r.slug))
    return rooms
