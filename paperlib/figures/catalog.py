"""A folder's figure catalogue: ``README.md`` written from the figures' provenance sidecars.

Every figure saved by :func:`paperlib.figures.io.save` has a sidecar ``<stem>.json`` (notebook,
code commit, data source, recordings with sha256, image files with sha256). After a build,
``paperlib reproduce`` writes ``figures/<slug>/README.md`` from them (and
``python -m paperlib.figures.catalog DIR ...`` does it for any folder), so the catalogue lists what
exists now, never what a hand-written list once promised.

    python -m paperlib.figures.catalog figures/<slug> [figures/<slug> ...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CATALOG_FILE", "figure_entries", "catalog_text", "write_catalog", "main"]

#: The catalogue's file name in a figures folder.
CATALOG_FILE = "README.md"

_PAPER_FIG = re.compile(r"^fig(\d+)([a-z]*)_")


def _short(sha: Any, n: int = 12) -> str:
    return str(sha)[:n] if sha else ""


def _recording_label(rec: Mapping[str, Any]) -> str:
    """One recording (or a group of them) as the catalogue names it: file, seed, sha256 and commit where known."""
    files = rec.get("files")
    if isinstance(files, (list, tuple)) and files:  # a group: one entry naming several files
        name = str(rec.get("name") or "recordings")
        return f"{name} ({len(files)} files, each with its sha256 in the sidecar)"
    label = Path(str(rec.get("file") or rec.get("name") or rec.get("role") or "?")).name
    bits = []
    if rec.get("seed") is not None:
        bits.append(f"seed {rec['seed']}")
    if rec.get("sha256"):
        bits.append(f"sha256 {_short(rec['sha256'])}")
    if rec.get("recording_git_commit"):
        bits.append(f"made at {_short(rec['recording_git_commit'])}")
    return f"`{label}`" + (f" ({', '.join(bits)})" if bits else "")


def figure_entries(folder: str | Path) -> list[dict[str, Any]]:
    """The figures of ``folder``, one entry per sidecar (sorted by stem).

    Parameters
    ----------
    folder : path-like
        A figures folder (``figures/<slug>/``).

    Returns
    -------
    list of dict
        ``stem``, ``paper_figure`` (``"Fig. 3c"`` for a stem ``fig03c_...``, else ``""``),
        ``formats`` (the image files' extensions present on disk), ``notebook``, ``source``,
        ``commit`` (the code's), ``recordings`` (labels), ``missing`` (image files the sidecar
        names that are not on disk).

    Raises
    ------
    ValueError
        A sidecar that is not a JSON object (named, with the file).
    """
    out = []
    for side in sorted(Path(folder).glob("*.json")):
        try:
            doc = json.loads(side.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{side}: not a figure sidecar (invalid JSON: {exc})") from exc
        if not isinstance(doc, dict) or "files" not in doc:
            continue  # not a figure's sidecar (a figure sidecar always lists its image files)
        stem = side.stem
        files = doc.get("files") or {}
        present = [Path(f).suffix.lstrip(".") for f in sorted(files) if (side.parent / f).is_file()]
        m = _PAPER_FIG.match(stem)
        recs = [r for r in doc.get("recordings") or [] if isinstance(r, Mapping)]
        out.append({"stem": stem,
                    "paper_figure": f"Fig. {int(m.group(1))}{m.group(2)}" if m else "",
                    "formats": present,
                    "notebook": str(doc.get("notebook") or ""),
                    "source": str(doc.get("source") or ""),
                    "commit": _short(doc.get("git_commit")),
                    "recordings": [_recording_label(r) for r in recs],
                    "missing": sorted(f for f in files if not (side.parent / f).is_file())})
    return out


def catalog_text(folder: str | Path, title: str | None = None) -> str:
    """The catalogue of ``folder`` as Markdown (see :func:`figure_entries`)."""
    folder = Path(folder)
    entries = figure_entries(folder)
    commits = sorted({e["commit"] for e in entries if e["commit"]})
    lines = [f"# {title or f'Figures in `{folder.name}/`'}", "",
             f"Written from the figures' sidecars (`<stem>.json`) by `python -m paperlib.figures.catalog` after a "
             f"build; do not edit. {len(entries)} figure(s), made by the code at commit "
             f"{', '.join(f'`{c}`' for c in commits) or '(not recorded)'}.", "",
             "Each sidecar holds the full provenance: the notebook and its parameters, the code's commit, the "
             "data source (`twin`: simulated; `hardware`: measured; `model`: a robot model alone), every "
             "recording with its sha256 (and the commit that made it, where the file records one), and the "
             "sha256 of each image file.", "",
             "| figure | paper | files | notebook | source | recordings |", "| --- | --- | --- | --- | --- | --- |"]
    for e in entries:
        files = ", ".join(e["formats"]) + (f" (missing: {', '.join(e['missing'])})" if e["missing"] else "")
        nb = f"`{e['notebook']}`" if e["notebook"] else ""
        recs = "; ".join(e["recordings"]) or "none"
        lines.append(f"| `{e['stem']}` | {e['paper_figure']} | {files} | {nb} | {e['source']} | {recs} |")
    return "\n".join(lines) + "\n"


def write_catalog(folder: str | Path, title: str | None = None) -> Path | None:
    """Write ``folder/README.md`` from its sidecars; None (nothing written) when the folder has no figure.

    Parameters
    ----------
    folder : path-like
        A figures folder.
    title : str, optional
        The catalogue's heading (default: the folder's name).
    """
    folder = Path(folder)
    if not folder.is_dir() or not figure_entries(folder):
        return None
    path = folder / CATALOG_FILE
    path.write_text(catalog_text(folder, title))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paperlib.figures.catalog DIR ...``: write each folder's README.md."""
    p = argparse.ArgumentParser(prog="python -m paperlib.figures.catalog", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", help="figures folders (figures/<slug>/)")
    args = p.parse_args(argv)
    rc = 0
    for f in args.folders:
        try:
            written = write_catalog(f)
        except ValueError as exc:
            print(f"catalog: {exc}", file=sys.stderr)
            rc = 1
            continue
        print(f"catalog: {written}" if written else f"catalog: {f}: no figure sidecars, nothing written")
    return rc


if __name__ == "__main__":
    sys.exit(main())
