"""``--archive DIR|URL``: a release as a verified local folder.

A folder is verified (:func:`paperlib.archive.verify`) and used in place. A URL (``https://``,
``http://``, ``ftp://``, ``file://``) is the address of a release folder: its ``registry.toml``
is fetched first, then every recording it lists through pooch with the registry's sha256 (a
cached file whose sha256 matches is not fetched again; a download that does not match is refused),
and the metadata files; the cache folder is then verified like a local release. A URL may pin
the registry itself with a fragment, ``URL#sha256=<hex>``; without one the registry is fetched
again on every call (it is small), so a cache never outlives the release it came from.

The cache is ``~/.cache/paperlib/archive/<key>/`` (pooch's per-user cache; ``PAPERLIB_ARCHIVE_CACHE``
or ``cache_dir`` override it), ``<key>`` a digest of the URL.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from paperlib.archive.errors import ArchiveError
from paperlib.archive.layout import METADATA_FILES, REGISTRY_FILE

__all__ = ["resolve", "default_cache_dir", "CACHE_ENV", "URL_SCHEMES"]

CACHE_ENV = "PAPERLIB_ARCHIVE_CACHE"
URL_SCHEMES = ("http", "https", "ftp", "file")


def default_cache_dir() -> Path:
    """``$PAPERLIB_ARCHIVE_CACHE``, else ``<pooch's cache for paperlib>/archive`` (``~/.cache/paperlib/archive``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    import pooch

    return Path(pooch.os_cache("paperlib")) / "archive"


def _file_downloader(url: str, output_file: str, pooch_obj: object) -> None:
    """pooch downloader for ``file://`` URLs (pooch knows http(s), ftp, sftp and doi only)."""
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        raise ArchiveError(f"{url}: a file:// URL must name a local path (file:///...)")
    shutil.copyfile(unquote(parts.path), output_file)


def _retrieve(url: str, target: Path, known_hash: str | None) -> Path:
    """Fetch ``url`` to ``target`` through pooch (``known_hash`` ``sha256:<hex>`` or None)."""
    import pooch

    downloader = _file_downloader if urlsplit(url).scheme == "file" else None
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)  # not pooch's per-file notes (its known_hash advice misleads here)
    try:
        return Path(pooch.retrieve(url, known_hash=known_hash, fname=target.name, path=target.parent,
                                   downloader=downloader, progressbar=False))
    except ArchiveError:
        raise
    except Exception as exc:  # network errors, hash mismatch (ValueError), missing file: name the URL
        raise ArchiveError(f"{url}: cannot fetch ({type(exc).__name__}: {exc})") from None
    finally:
        logger.setLevel(level)


def _split_pin(spec: str) -> tuple[str, str | None]:
    """(URL without fragment, pinned sha256 of the registry or None)."""
    base, _, fragment = spec.partition("#")
    pin = None
    if fragment:
        key, _, value = fragment.partition("=")
        value = value.strip().lower()
        if key != "sha256" or len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise ArchiveError(f"{spec}: the fragment must be #sha256=<64 hex digits of registry.toml>")
        pin = value
    return base, pin


def _fetch(spec: str, cache_dir: Path) -> Path:
    from paperlib.recordings import RecordingError, load_recording_registry

    base, pin = _split_pin(spec)
    base = base if base.endswith("/") else base + "/"
    folder = cache_dir / hashlib.sha256(base.encode()).hexdigest()[:16]
    registry = folder / REGISTRY_FILE
    if pin is None:
        registry.unlink(missing_ok=True)
    _retrieve(base + REGISTRY_FILE, registry, f"sha256:{pin}" if pin else None)
    try:
        entries = load_recording_registry(registry)
    except RecordingError as exc:
        raise ArchiveError([f"{base + REGISTRY_FILE}: {p}" for p in exc.problems]) from None
    for name in METADATA_FILES:
        if name != REGISTRY_FILE:
            (folder / name).unlink(missing_ok=True)
            _retrieve(base + quote(name), folder / name, None)
    for e in entries:
        _retrieve(base + quote(e.file, safe="/"), folder / e.file, f"sha256:{e.sha256}")
    keep = {folder / n for n in METADATA_FILES} | {folder / e.file for e in entries}
    for path in folder.rglob("*"):  # files of an earlier version of the release at this URL
        if path.is_file() and path not in keep:
            path.unlink()
    return folder


def resolve(spec: str | os.PathLike[str], *, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The local, verified folder of a release given as a folder or a URL.

    Parameters
    ----------
    spec : str or path-like
        A release folder, or its URL (``http(s)://``, ``ftp://``, ``file://``; optionally
        ``#sha256=<hex>`` pinning its registry.toml).
    cache_dir : path-like, optional
        Where fetched releases are kept (default :func:`default_cache_dir`).

    Returns
    -------
    Path
        The folder (``spec`` itself for a folder, the cache folder for a URL).

    Raises
    ------
    ArchiveError
        When the folder is missing or does not verify, or a file cannot be fetched or does not
        match the registry's sha256 (every fault named).
    """
    from paperlib.archive.checks import verify

    text = os.fspath(spec)
    scheme = urlsplit(text).scheme.lower() if isinstance(text, str) else ""
    if scheme in URL_SCHEMES:
        folder = _fetch(text, Path(cache_dir) if cache_dir is not None else default_cache_dir())
        where = f"{text} (cached in {folder})"
    elif "://" in str(text):
        raise ArchiveError(f"{text}: unknown URL scheme {scheme!r} (use one of {', '.join(URL_SCHEMES)}, or a folder)")
    else:
        folder = Path(text)
        if not folder.is_dir():
            raise ArchiveError(f"{folder}: no such release folder")
        where = str(folder)
    faults = verify(folder)
    if faults:
        raise ArchiveError([f"{where}: the release does not verify:"] + faults)
    return folder
