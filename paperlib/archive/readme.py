"""The human-readable files of a release: README.md (what each file is) and the licences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from paperlib.archive.describe import RecordingInfo
from paperlib.archive.layout import (CITATION_FILE, CODE_LICENSE, CODE_LICENSE_FILE, DATA_LICENSE, DATA_LICENSE_FILE,
                                     LICENSE_URLS, README_FILE, REGISTRY_FILE, ZENODO_FILE)

__all__ = ["FileRow", "readme_text", "data_license_text", "code_license_text", "row_prefix"]


@dataclass(frozen=True)
class FileRow:
    """One recording of the release, as the README lists it."""

    file: str  # release path (POSIX)
    papers: tuple[str, ...]  # room slugs
    experiment: str  # what the build used it for (notebooks and outputs naming it), or what the file says
    info: RecordingInfo
    licence: str  # SPDX id
    sha256: str
    size: int  # [bytes]


def row_prefix(file: str, source: str) -> str:
    """How a README row starts: the file, then its source (verify finds each recording's row by it)."""
    return f"| `{file}` | {source} |"


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).replace("|", "/").split())


def readme_text(title: str, *, papers: Sequence[tuple[str, str]], rows: Sequence[FileRow], version: str,
                date: str, commits: Sequence[str], doi_missing: Sequence[str]) -> str:
    """README.md of a release.

    Parameters
    ----------
    title : str
        The release's title.
    papers : sequence of (slug, title)
        The papers packed.
    rows : sequence of FileRow
        Every recording.
    version, date : str
        Release version and date (YYYY-MM-DD).
    commits : sequence of str
        The git commits the outputs naming the recordings were built at.
    doi_missing : sequence of str
        Slugs of the papers whose DOI the compendium does not know.
    """
    twins = sum(r.info.source == "twin" for r in rows)
    lines = [f"# {title}", "",
             f"Version {version}, {date}. Packed by `paperlib archive pack` from the outputs of the compendium's "
             "build (figure sidecars and result files name each recording with its sha256; the files are "
             "copied byte for byte, as the build stored them).", ""]
    if commits:
        lines += ["Built at commit(s): " + ", ".join(f"`{c}`" for c in commits) + ".", ""]
    lines += ["## Where the data came from", ""]
    if twins:
        lines += [f"**{twins} of the {len(rows)} recording(s) are `source = twin`: simulated by a digital twin of "
                  "the robot, not measured.** The files say so themselves (global attribute `source`), and so "
                  "do the registry and this table. A twin recording carries the twin's true parameters "
                  "(attribute `truth`); a `source = hardware` recording was measured.", ""]
    else:
        lines += ["Every recording is `source = hardware` (measured).", ""]
    lines += ["## Papers", "", "| slug | paper |", "| --- | --- |"]
    lines += [f"| `{slug}` | {_cell(ptitle)} |" for slug, ptitle in papers]
    if doi_missing:
        lines += ["", "No DOI is recorded in the compendium for: " + ", ".join(f"`{s}`" for s in doi_missing) +
                  " (so `.zenodo.json` relates the release to no publication for them)."]
    lines += ["", "## Recordings", "",
              "One row per file (path relative to this folder, as it was relative to the repository that built "
              "it). Rate, samples and duration (first to last sample) are read from the file; channels are its "
              "variables on the time axis (a storage copy keeps only those its notebooks read).", "",
              "| file | source | paper | experiment (used by) | robot | rate [Hz] | samples | duration [s] | "
              "joints | channels | licence | bytes | sha256 |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        i = r.info
        chans = ", ".join(i.channels) + (" (storage copy)" if i.reduced else "")
        lines.append(f"{row_prefix(r.file, i.source)} {', '.join(r.papers)} | {_cell(r.experiment)} | {_cell(i.robot)} | "
                     f"{_fmt(i.sample_rate_hz)} | {i.n_samples} | {_fmt(i.duration_s)} | {i.joints} | {chans} | "
                     f"{r.licence} | {r.size} | `{r.sha256}` |")
    lines += ["", "## The other files", "", "| file | what it is |", "| --- | --- |",
              f"| `{REGISTRY_FILE}` | every recording with its sha256, source and robot, in the format of the "
              "compendium's `data/recordings/registry.toml` (`paperlib recordings verify --registry` reads it) |",
              f"| `{CITATION_FILE}` | how to cite this release (Citation File Format 1.2.0) |",
              f"| `{ZENODO_FILE}` | deposition metadata for Zenodo / DataCite |",
              f"| `{DATA_LICENSE_FILE}` | the recordings' licence ({DATA_LICENSE}, unless a row above names another) |",
              f"| `{CODE_LICENSE_FILE}` | the licence of the code that made and reads them ({CODE_LICENSE}) |",
              f"| `{README_FILE}` | this file |",
              "", "## Check and use", "",
              "```bash",
              "paperlib archive verify DIR        # every sha256 against registry.toml, nothing missing or extra",
              "paperlib archive resolve URL       # fetch a published release (sha256-checked, cached), verify it",
              "```", ""]
    return "\n".join(lines)


def data_license_text(authors: Sequence[str], year: str, third_party: Sequence[tuple[str, str, str]]) -> str:
    """LICENSE-data.md: CC-BY-4.0 for the recordings, the third-party licences named per file.

    Parameters
    ----------
    authors : sequence of str
        The release's authors (the licensors).
    year : str
        Year of the release.
    third_party : sequence of (file, licence, origin)
        Recordings imported from others' data, which keep their licence.
    """
    lines = ["# Licence of the recordings", "",
             f"Copyright (c) {year} {'; '.join(authors)}.", "",
             f"The recordings of this release are licensed under the Creative Commons Attribution 4.0 "
             f"International licence ({DATA_LICENSE}), except those listed below. The licence's legal code: "
             f"{LICENSE_URLS[DATA_LICENSE]}. You may share and adapt them for any purpose, giving appropriate "
             "credit (see CITATION.cff), a link to the licence, and saying whether you changed them.", ""]
    if third_party:
        lines += ["Recordings imported from third-party data keep the licence of their source:", "",
                  "| file | licence | source |", "| --- | --- | --- |"]
        lines += [f"| `{f}` | {lic} ({LICENSE_URLS.get(lic, 'see the source')}) | {origin} |"
                  for f, lic, origin in third_party]
        lines.append("")
    return "\n".join(lines)


def code_license_text(authors: Sequence[str], year: str) -> str:
    """LICENSE-code.md: the MIT licence of paperlib, the code that made and reads the recordings."""
    return "\n".join([
        "# Licence of the code (paperlib)", "",
        "The recordings were made and are read by paperlib, licensed under the MIT licence "
        f"({LICENSE_URLS[CODE_LICENSE]}):", "",
        "MIT License", "",
        f"Copyright (c) {year} {'; '.join(authors)}", "",
        "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
        "associated documentation files (the \"Software\"), to deal in the Software without restriction, including "
        "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell "
        "copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the "
        "following conditions:", "",
        "The above copyright notice and this permission notice shall be included in all copies or substantial "
        "portions of the Software.", "",
        "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT "
        "LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO "
        "EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER "
        "IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR "
        "THE USE OR OTHER DEALINGS IN THE SOFTWARE.", ""])
