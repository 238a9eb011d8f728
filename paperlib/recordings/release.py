"""Taking recordings back out of a data release (``paperlib archive pack``), checked by sha256.

A release folder holds the recordings a build used under the path they had in the repository
(``results/<slug>/recordings/<name>.nc``) and a ``registry.toml`` listing each with its sha256
(:func:`paperlib.recordings.load_recording_registry`). A build from the release
(``paperlib reproduce --source archive --archive DIR``) copies each recording it needs out of the
folder with :func:`copy_from_release`: the file must be registered, its bytes must have the
registered sha256, and so must the copy. Whatever the results folder of the new build
(``results/smoke/<slug>/...``), a room's recording is looked up under the standard layout
:func:`release_file` gives.

Command line (used by the rooms' recording rules when the source is an archive)::

    python -m paperlib.recordings.release --release DIR --results-root RESULTS OUTPUT.nc [...]

copies, for each ``OUTPUT`` under ``RESULTS/<slug>/``, the release's ``results/<slug>/...`` file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path, PurePosixPath

from paperlib.recordings.registry import RegistryEntry, load_recording_registry, sha256_file
from paperlib.recordings.schema import RecordingError

__all__ = ["REGISTRY_NAME", "release_file", "release_entries", "copy_from_release", "output_in_release"]

#: The registry file of a release folder.
REGISTRY_NAME = "registry.toml"


def release_file(slug: str, name: str) -> str:
    """Path inside a release of room ``slug``'s recording ``name`` (no suffix): ``results/<slug>/recordings/<name>.nc``."""
    return f"results/{slug}/recordings/{name}.nc"


def output_in_release(output: str | os.PathLike[str], results_root: str | os.PathLike[str]) -> str:
    """Release path of a build's file ``output`` under ``results_root`` (``<root>/<slug>/x`` -> ``results/<slug>/x``).

    Raises
    ------
    RecordingError
        If ``output`` is not inside ``results_root``.
    """
    out, root = Path(os.path.abspath(output)), Path(os.path.abspath(results_root))
    if not out.is_relative_to(root):
        raise RecordingError(f"{output}: not inside the results folder {results_root}; cannot say where a release keeps it")
    return str(PurePosixPath("results", *out.relative_to(root).parts))


def release_entries(release: str | os.PathLike[str]) -> dict[str, RegistryEntry]:
    """The release's registered recordings by their path in the release (``file``)."""
    reg = Path(release) / REGISTRY_NAME
    if not reg.is_file():
        raise RecordingError(f"{release}: no {REGISTRY_NAME}; not a data release (make one with `paperlib archive pack`)")
    return {str(PurePosixPath(e.file)): e for e in load_recording_registry(reg)}


def copy_from_release(release: str | os.PathLike[str], file: str, dest: str | os.PathLike[str],
                      entries: dict[str, RegistryEntry] | None = None) -> Path:
    """Copy the release's recording ``file`` to ``dest``, checking its sha256 before and after.

    Parameters
    ----------
    release : path-like
        The release folder (a URL is resolved to one first: ``paperlib archive resolve``).
    file : str
        Its path in the release, e.g. ``results/<slug>/recordings/<name>.nc``.
    dest : path-like
        Where the copy goes (its folder is made).
    entries : dict, optional
        :func:`release_entries` of the release, if already read.

    Returns
    -------
    Path
        ``dest``.

    Raises
    ------
    RecordingError
        If the release does not list ``file`` (the message names what it does list for the same
        folder), the file is missing, or its bytes or the copy's are not the registered ones.
    """
    entries = release_entries(release) if entries is None else entries
    entry = entries.get(str(PurePosixPath(file)))
    if entry is None:
        folder = str(PurePosixPath(file).parent)
        near = sorted(f for f in entries if str(PurePosixPath(f).parent) == folder)
        raise RecordingError(
            f"{release}: the release has no recording {file} (it holds {', '.join(near) if near else 'nothing'} in "
            f"{folder}/); pack it from a build that made it (`paperlib archive pack`), or build from another source")
    if not entry.path.is_file():
        raise RecordingError(f"{release}: {file} is registered but missing")
    got = sha256_file(entry.path)
    if got != entry.sha256:
        raise RecordingError(f"{release}: {file} has sha256 {got}, the registry says {entry.sha256} (changed or damaged)")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    shutil.copyfile(entry.path, tmp)
    if sha256_file(tmp) != entry.sha256:
        tmp.unlink()
        raise RecordingError(f"{dest}: the copy of {file} does not have the registered sha256")
    os.replace(tmp, dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m paperlib.recordings.release``: copy a build's recordings out of a release."""
    p = argparse.ArgumentParser(prog="python -m paperlib.recordings.release", description=__doc__.split("\n\n")[0])
    p.add_argument("--release", required=True, help="release folder (paperlib archive pack / resolve)")
    p.add_argument("--results-root", required=True, help="the build's results root (e.g. results)")
    p.add_argument("outputs", nargs="+", help="recordings to make, each under RESULTS/<slug>/")
    args = p.parse_args(argv)
    try:
        entries = release_entries(args.release)
        for out in args.outputs:
            copy_from_release(args.release, output_in_release(out, args.results_root), out, entries)
            print(f"{out}: from the release {args.release}")
    except RecordingError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
