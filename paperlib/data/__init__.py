"""Public external data: a registry (``registry.toml``: source, licence, sha256 per file), fetching
through pooch or from a local mirror, and importers into the recording schema.

>>> from paperlib.data import fetch
>>> files = fetch("tx40")                       # {file name: local path}, checksums verified
>>> from paperlib.data.tx40 import import_tx40
>>> ds = import_tx40(files)                     # schema-2 recording, source = hardware

``paperlib data fetch tx40 [--mirror DIR] [--output FILE.nc]`` does both from the command line.
"""

from paperlib.data.registry import DataError, Dataset, fetch, find_mirror, load_dataset_registry

__all__ = ["DataError", "Dataset", "fetch", "find_mirror", "load_dataset_registry"]
