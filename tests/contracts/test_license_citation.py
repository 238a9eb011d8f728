"""The repository's LICENSE and CITATION.cff: present, well-formed, and saying what the package and the
data releases say (code MIT, recordings CC-BY-4.0).

No validator with the full CFF 1.2.0 schema is installed (cffconvert is not a dependency); the file is
checked for the keys the format requires and the formats of the keys it has
(:func:`paperlib.archive.citation.check_citation`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from paperlib.archive.citation import CFF_SPEC_REQUIRED, check_citation
from paperlib.archive.layout import CODE_LICENSE, DATA_LICENSE
from paperlib.archive.readme import code_license_text
from paperlib.archive.writer import DEFAULT_AUTHORS

ROOT = Path(__file__).resolve().parents[2]


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9\"().,;:-]+", text)


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_license_is_the_mit_text_the_data_releases_ship():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert _project()["license"] == {"text": CODE_LICENSE} and CODE_LICENSE == "MIT"
    year = re.search(r"Copyright \(c\) (\d{4}) ", text).group(1)
    released = code_license_text(DEFAULT_AUTHORS, year)
    # the same words as a release's LICENSE-code.md from "MIT License" on (line breaks aside)
    assert _words(text) == _words(released[released.index("MIT License"):])


def test_citation_cff_is_well_formed_and_agrees_with_the_package():
    path = ROOT / "CITATION.cff"
    assert check_citation(path, required=CFF_SPEC_REQUIRED) == []
    doc = yaml.safe_load(path.read_text())
    assert doc["cff-version"] == "1.2.0" and doc["type"] == "software"
    assert doc["license"] == CODE_LICENSE
    assert str(doc["version"]) == _project()["version"]
    assert [a.get("name") for a in doc["authors"]] == list(DEFAULT_AUTHORS)


def test_the_citation_check_finds_what_is_wrong(tmp_path):
    good = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    bad = dict(good, authors=[{"given-names": "Ada"}], doi="doi:10.1234/x", keywords=["ok", 3],
               license="MIT License")
    bad.pop("message")
    bad["date-released"] = "2026-13-01"
    path = tmp_path / "CITATION.cff"
    path.write_text(yaml.safe_dump(bad))
    faults = "\n".join(check_citation(path, required=CFF_SPEC_REQUIRED))
    for what in ("missing key 'message'", "author #1 has neither", "doi 'doi:10.1234/x'", "'keywords'",
                 "license 'MIT License'", "date-released '2026-13-01'"):
        assert what in faults


def test_readme_states_both_licences():
    head = (ROOT / "README.md").read_text()
    section = head[head.index("## Licence"):]
    assert "[LICENSE](LICENSE)" in section and CODE_LICENSE in section and DATA_LICENSE in section
