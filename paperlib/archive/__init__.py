"""Data releases: the recordings a build used, packed with their checksums, citation and licences.

``paperlib archive pack [PAPER ...] --output DIR`` copies, byte for byte, every recording the
build of the given papers used (each room's ``results/<slug>/recordings/`` and every recording a
figure sidecar or result JSON names with its sha256) into ``DIR``, under the path it had
relative to the repository (``results/<slug>/recordings/<name>.nc``), and writes beside them:

``registry.toml``
    one ``[[recording]]`` per file with its sha256, in the format of the archived-recordings
    registry ``data/recordings/registry.toml`` (:func:`paperlib.recordings.load_recording_registry`), so
    ``paperlib recordings verify --registry DIR/registry.toml`` checks a release too;
``CITATION.cff``
    Citation File Format 1.2.0;
``.zenodo.json``
    the deposition metadata for Zenodo (DataCite's mandatory fields: creators, title,
    publication date, resource type ``dataset``; related identifiers where known);
``LICENSE-data.md``, ``LICENSE-code.md``
    CC-BY-4.0 for the recordings (a recording imported from third-party data keeps its own
    licence, named in the file and in the README), MIT for the code that made them;
``README.md``
    what each file is: paper, experiment, source (twin = simulated | hardware = measured), robot,
    rate, samples, duration, channels, licence, sha256.

``paperlib archive verify DIR`` checks a release (:func:`verify`), and :func:`resolve` turns a
``--archive DIR|URL`` into a verified local folder (a URL through pooch, sha256-checked against
the release's registry, cached under ``~/.cache/paperlib/archive``). See ``docs/archive.md``.
"""

from __future__ import annotations

from paperlib.archive.errors import ArchiveError
from paperlib.archive.layout import CODE_LICENSE, DATA_LICENSE, METADATA_FILES, REGISTRY_FILE
from paperlib.archive.writer import pack
from paperlib.archive.fetch import default_cache_dir, resolve
from paperlib.archive.checks import verify

__all__ = ["ArchiveError", "METADATA_FILES", "REGISTRY_FILE", "DATA_LICENSE", "CODE_LICENSE", "pack", "verify",
           "resolve", "default_cache_dir"]
