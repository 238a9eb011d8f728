"""``paperlib archive pack``: a release folder of the recordings a build used, with its metadata."""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from pathlib import Path
from typing import Sequence

from paperlib.archive.collect import UsedRecording, collect
from paperlib.archive.errors import ArchiveError
from paperlib.archive.layout import (CITATION_FILE, CODE_LICENSE_FILE, DATA_LICENSE, DATA_LICENSE_FILE,
                                     README_FILE, REGISTRY_FILE, ZENODO_FILE)

__all__ = ["pack", "DEFAULT_AUTHORS", "release_date", "paper_meta"]

#: Who a release names when no ``--author`` is given (the repository names no person).
DEFAULT_AUTHORS = ("paperlib maintainers",)

_REGISTRY_HEADER = """\
# Registry of this release's recordings: the format of the compendium's data/recordings/registry.toml
# (paperlib.recordings.load_recording_registry; one [[recording]] per file, its path relative to this folder and
# its sha256). Check the release with `paperlib archive verify .` or
# `paperlib recordings verify --registry registry.toml`. Written by paperlib archive pack.
"""


def release_date() -> str:
    """Today (UTC) as YYYY-MM-DD, or the date of ``SOURCE_DATE_EPOCH`` when it is set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch
            else _dt.datetime.now(_dt.timezone.utc))
    return when.date().isoformat()


def paper_meta(slug: str) -> tuple[str, str | None]:
    """(title, DOI or None) of a paper as :func:`paperlib.experiments.papers` lists it (the room's ``PAPER``);
    a slug the compendium does not list is its own title."""
    from paperlib.experiments import papers

    entry = next((p for p in papers() if p["slug"] == slug), None)
    if entry is None:
        return slug, None
    doi = entry.get("doi")  # listed once the room kit's Paper metadata carries it
    return str(entry["title"]), (str(doi) if doi else None)


def _experiment(rec: UsedRecording, controller: str, description: str) -> str:
    """What the build used a recording for: the notebooks and outputs naming it, or what the file says."""
    notebooks = sorted({r.notebook for r in rec.references if r.notebook})
    outputs = sorted({Path(r.output).name for r in rec.references})
    parts = []
    if description:
        parts.append(description)
    elif controller:
        parts.append(f"controller {controller}")
    if notebooks:
        parts.append("notebook(s) " + ", ".join(Path(n).stem for n in notebooks))
    if outputs:
        shown = outputs[:6]
        parts.append("named by " + ", ".join(shown) + (f" and {len(outputs) - len(shown)} more" if len(outputs) > 6 else ""))
    else:
        parts.append("made by the build, named by no figure or result")
    return "; ".join(parts)


def _copy(src: Path, dest: Path) -> str:
    """Copy byte for byte; the sha256 of the copy, checked equal to the source's."""
    from paperlib.recordings import sha256_file

    before = sha256_file(src)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    after = sha256_file(dest)
    if after != before:
        raise ArchiveError(f"{dest}: the copy of {src} has sha256 {after}, the source {before}")
    return after


def pack(papers: Sequence[str] | None, output: str | os.PathLike[str], *, results_root: str | os.PathLike[str] = "results",
         figures_root: str | os.PathLike[str] | None = None, root: str | os.PathLike[str] | None = None,
         authors: Sequence[str] | None = None,
         title: str | None = None, version: str | None = None, date: str | None = None) -> Path:
    """Write a release of the recordings the build of ``papers`` used, and verify it.

    Parameters
    ----------
    papers : sequence of str, optional
        Room slugs; None or empty: every paper of the compendium with a ``results_root/<slug>/``.
    output : path-like
        The release folder; it must not exist or be empty.
    results_root : path-like
        The build's ``results/`` folder (a run configuration may put it elsewhere, e.g. ``results/smoke``).
    figures_root : path-like, optional
        The build's ``figures/`` folder (default: ``figures`` beside ``results_root``).
    root : path-like, optional
        Where the relative paths in the outputs start: the repository the build ran in (default: this
        repository when ``results_root`` is inside it, else the parent of ``results_root``).
    authors : sequence of str, optional
        ``"Family, Given"`` for a person, else an organisation (default :data:`DEFAULT_AUTHORS`).
    title, version, date : str, optional
        The release's title, version (default: the package version and the build's commit) and
        date YYYY-MM-DD (default :func:`release_date`).

    Returns
    -------
    Path
        ``output``.

    Raises
    ------
    ArchiveError
        When the build's outputs do not name what is on disk, nothing is found, ``output`` is not
        empty, or the written release does not verify (every fault named).
    """
    from paperlib import __version__
    from paperlib.archive.citation import ReleaseInfo, citation_text, zenodo_metadata
    from paperlib.archive.describe import describe
    from paperlib.archive.readme import FileRow, code_license_text, data_license_text, readme_text
    from paperlib.archive.checks import verify
    from paperlib.experiments import PAPER_SLUGS
    from paperlib.recordings import RecordingError, registry_entry

    from paperlib.provenance import REPO_ROOT

    results = Path(results_root).resolve()
    if root is None:
        root = REPO_ROOT if results.is_relative_to(REPO_ROOT) else results.parent
    root = Path(root).resolve()
    figures = Path(figures_root).resolve() if figures_root is not None else results.parent / "figures"
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ArchiveError(f"{out}: exists and is not an empty folder (a release is written into a new one)")
    slugs = list(papers or [s for s in PAPER_SLUGS if (results / s).is_dir()])
    if not slugs:
        raise ArchiveError(f"{results}: holds no paper's results (build one first: paperlib reproduce PAPER)")
    used = collect(slugs, results, figures, root)
    if not used:
        raise ArchiveError(f"no recordings found for {', '.join(slugs)} in {results} (nor named by their outputs)")

    out.mkdir(parents=True, exist_ok=True)
    registry = out / REGISTRY_FILE
    entries, rows, third_party, related = [], [], [], []
    licences = [DATA_LICENSE]
    for rec in used:
        dest = out / rec.release_path
        digest = _copy(rec.path, dest)
        info = describe(dest)
        lic = info.licence or DATA_LICENSE
        if lic not in licences:
            licences.append(lic)
        if info.licence and info.licence != DATA_LICENSE:
            third_party.append((str(rec.release_path), info.licence, info.origin_url or info.description))
        if info.origin_url:
            ident = {"identifier": info.origin_url, "relation": "isDerivedFrom", "scheme": "url"}
            if ident not in related:
                related.append(ident)
        experiment = _experiment(rec, info.controller, info.description)
        papers_of = tuple(sorted(rec.papers))
        description = (f"paper {', '.join(papers_of)}; {experiment}; source = {info.source_words}; "
                       f"{info.sample_rate_hz:g} Hz, {info.n_samples} samples, {info.duration_s:.6g} s, "
                       f"{info.joints} joint(s), channels {', '.join(info.channels)}")
        name = str(rec.release_path.with_suffix(""))
        try:
            entries.append(registry_entry(dest, name=name, description=description, registry=registry))
        except RecordingError as exc:
            raise ArchiveError([f"{rec.path}: {p}" for p in exc.problems]) from None
        rows.append(FileRow(file=str(rec.release_path), papers=papers_of, experiment=experiment, info=info,
                            licence=lic, sha256=digest, size=dest.stat().st_size))
    registry.write_text(_REGISTRY_HEADER + "\n" + "\n".join(entries), encoding="utf-8")

    metas = {s: paper_meta(s) for s in slugs}
    for s, (_, doi) in metas.items():
        if doi:
            related.append({"identifier": doi, "relation": "isSupplementTo", "scheme": "doi",
                            "resource_type": "publication-article"})
    commits = sorted(set().union(*(r.commits for r in used)))
    day = date or release_date()
    who = tuple(authors or DEFAULT_AUTHORS)
    twins = sum(r.info.source == "twin" for r in rows)
    paper_list = "; ".join(f"{t} ({s})" for s, (t, _) in metas.items())
    abstract = (f"The recordings (paperlib.recording schema, NetCDF4) that the paperlib compendium's build used to "
                f"reproduce: {paper_list}. Of its {len(rows)} recording(s), {twins} are source = twin: simulated by a "
                f"digital twin of the robot, not measured; {len(rows) - twins} are source = hardware (measured). Each "
                "file is described in README.md and checked by sha256 in registry.toml.")
    info = ReleaseInfo(
        title=title or f"paperlib data release: recordings of {', '.join(slugs)}",
        authors=who, version=version or (f"{__version__}+{commits[0][:12]}" if len(commits) == 1 else __version__),
        date=day, abstract=abstract, licenses=tuple(licences),
        keywords=("robot dynamics", "friction identification", "parameter identification", "digital twin",
                  "reproducible research"),
        commit=commits[0] if len(commits) == 1 else None, related=tuple(related))
    (out / CITATION_FILE).write_text(citation_text(info), encoding="utf-8")
    (out / ZENODO_FILE).write_text(json.dumps(zenodo_metadata(info, f"<p>{abstract}</p>"), indent=1) + "\n",
                                   encoding="utf-8")
    (out / DATA_LICENSE_FILE).write_text(data_license_text(who, day[:4], third_party), encoding="utf-8")
    (out / CODE_LICENSE_FILE).write_text(code_license_text(who, day[:4]), encoding="utf-8")
    (out / README_FILE).write_text(readme_text(info.title, papers=[(s, t) for s, (t, _) in metas.items()], rows=rows,
                                               version=info.version, date=day, commits=commits,
                                               doi_missing=[s for s, (_, d) in metas.items() if not d]),
                                   encoding="utf-8")
    faults = verify(out)
    if faults:
        raise ArchiveError([f"the release written to {out} does not verify:"] + faults)
    return out
