"""What a release folder holds besides its recordings, and the licences it states."""

from __future__ import annotations

#: The registry of the release's recordings (format of ``data/recordings/registry.toml``).
REGISTRY_FILE = "registry.toml"
CITATION_FILE = "CITATION.cff"
ZENODO_FILE = ".zenodo.json"
README_FILE = "README.md"
DATA_LICENSE_FILE = "LICENSE-data.md"
CODE_LICENSE_FILE = "LICENSE-code.md"

#: Every file of a release that is not a recording; a release holds exactly these and its recordings.
METADATA_FILES: tuple[str, ...] = (REGISTRY_FILE, CITATION_FILE, ZENODO_FILE, README_FILE, DATA_LICENSE_FILE,
                                   CODE_LICENSE_FILE)

#: SPDX identifiers. The recordings: CC-BY-4.0 (the repository states no data licence); the code: MIT
#: (``license`` in pyproject.toml). A recording imported from third-party data keeps the licence named
#: in its ``licence`` attribute (e.g. the TX40 files, Apache-2.0).
DATA_LICENSE = "CC-BY-4.0"
CODE_LICENSE = "MIT"

#: Where each licence's full text is published.
LICENSE_URLS = {
    "CC-BY-4.0": "https://creativecommons.org/licenses/by/4.0/legalcode",
    "MIT": "https://opensource.org/license/mit",
    "Apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
}

#: Zenodo's licence ids for the SPDX ids we write (Zenodo uses lower case).
ZENODO_LICENSE = {"CC-BY-4.0": "cc-by-4.0", "MIT": "mit", "Apache-2.0": "apache-2.0"}
