"""The registry of public external data and how to get the files (pooch, sha256, mirrors).

A *mirror* is a local folder that holds a dataset's files themselves (same names), for
machines without network access and for tests/CI. It is found, in order, from the ``mirror``
argument, the ``PAPERLIB_DATA_MIRROR`` environment variable (either the dataset's folder or a
folder holding ``<mirror_dirname>/``), or the conventional ``../shared/external/<mirror_dirname>``
next to the repository. Files from a mirror are checked against the registry's sha256 like
downloaded ones; a mismatch is an error naming the file.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from paperlib.provenance import REPO_ROOT

REGISTRY = Path(__file__).resolve().parent / "registry.toml"
MIRROR_ENV = "PAPERLIB_DATA_MIRROR"

__all__ = ["DataError", "Dataset", "load_dataset_registry", "find_mirror", "fetch", "sha256"]


class DataError(RuntimeError):
    """A dataset cannot be found, fetched or verified (the message names the file)."""


@dataclass(frozen=True)
class Dataset:
    """One registry entry."""

    name: str
    title: str
    publisher: str
    commit: str
    folder: str
    base_url: str
    licence: str
    mirror_dirname: str
    files: dict[str, str]

    @property
    def origin(self) -> str:
        """Where the files are published, in one line."""
        return f"{self.publisher}, commit {self.commit}, folder {self.folder}/"


def load_dataset_registry(path: Path = REGISTRY) -> dict[str, Dataset]:
    """All public external datasets of the data registry (not the archived recordings' registry,
    :func:`paperlib.recordings.load_recording_registry`).

    Parameters
    ----------
    path : Path
        Registry file; default ``paperlib/data/registry.toml``.

    Returns
    -------
    dict of str to Dataset
        Dataset name -> its entry.
    """
    raw = tomllib.loads(Path(path).read_text())
    return {name: Dataset(name=name, files=dict(d.pop("files")), **d) for name, d in ((k, dict(v)) for k, v in raw.items())}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _get(name: str) -> Dataset:
    reg = load_dataset_registry()
    if name not in reg:
        raise DataError(f"no dataset named {name!r} in {REGISTRY.name} (known: {sorted(reg)})")
    return reg[name]


def _holds(folder: Path, ds: Dataset) -> bool:
    return all((folder / f).is_file() for f in ds.files)


def find_mirror(name: str, mirror: str | os.PathLike[str] | None = None) -> Path | None:
    """The local mirror folder of dataset ``name`` (see the module docstring), or None."""
    ds = _get(name)
    if mirror is not None:
        folder = Path(mirror)
        for cand in (folder, folder / ds.mirror_dirname):
            if _holds(cand, ds):
                return cand
        missing = [f for f in ds.files if not (folder / f).is_file()]
        raise DataError(f"mirror {folder}: missing {missing} of dataset {name!r}")
    env = os.environ.get(MIRROR_ENV)
    if env:
        for cand in (Path(env), Path(env) / ds.mirror_dirname):
            if _holds(cand, ds):
                return cand
    # the conventional place next to the clone (CI: ../shared/external/<dir>; here the
    # worktrees sit one level deeper, so look up a few levels)
    for up in (REPO_ROOT.parent, REPO_ROOT.parent.parent, REPO_ROOT.parent.parent.parent):
        cand = up / "shared" / "external" / ds.mirror_dirname
        if _holds(cand, ds):
            return cand
    return None


def fetch(name: str, mirror: str | os.PathLike[str] | None = None, cache_dir: str | os.PathLike[str] | None = None,
          allow_download: bool = True) -> dict[str, Path]:
    """Local paths of every file of dataset ``name``, checksums verified.

    Parameters
    ----------
    name : str
        Registry name (``"tx40"``).
    mirror : path, optional
        A folder holding the files (see :func:`find_mirror` for the other places searched).
    cache_dir : path, optional
        Where pooch stores downloads (default: pooch's per-user cache, ``paperlib``).
    allow_download : bool
        Download from the public source when no mirror holds the files.

    Raises
    ------
    DataError
        No mirror and downloading not allowed or failed, or a checksum mismatch (naming the file).
    """
    ds = _get(name)
    folder = find_mirror(name, mirror)
    out: dict[str, Path] = {}
    if folder is not None:
        for f, digest in ds.files.items():
            p = folder / f
            got = sha256(p)
            if got != digest:
                raise DataError(f"{p}: sha256 {got} does not match the registry's {digest} (dataset {name!r})")
            out[f] = p
        return out
    if not allow_download:
        raise DataError(f"dataset {name!r}: no local mirror (set {MIRROR_ENV} or pass --mirror) and downloading is off")
    import pooch

    cache = Path(cache_dir) if cache_dir is not None else Path(pooch.os_cache("paperlib")) / name
    for f, digest in ds.files.items():
        try:
            out[f] = Path(pooch.retrieve(ds.base_url + f, known_hash=f"sha256:{digest}", fname=f, path=cache,
                                         progressbar=True))
        except Exception as exc:  # network errors, hash mismatch: name the file
            raise DataError(f"{ds.base_url + f}: cannot fetch ({type(exc).__name__}: {exc})") from None
    return out
