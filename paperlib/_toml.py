"""TOML files read once per process and version of the file.

A twin run reads its robot file and its twin parameter file; a sweep or a notebook makes many
runs in one process, and parsing the same few-kB file with the standard library's pure-Python
parser each time cost ~5 ms a file (about a tenth of a 40-s twin run's own bookkeeping).
:func:`read_toml` keeps the parsed document keyed by the file's path, modification time and
size, so an edited file is read again, and hands every caller its own deep copy, so a caller
that changes what it got cannot change what the next caller gets.
"""

from __future__ import annotations

import copy
import functools
import os
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["read_toml"]


@functools.lru_cache(maxsize=64)
def _parsed(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed TOML document of ``path`` (a fresh copy; parsed again when the file changed).

    Parameters
    ----------
    path : str or path-like
        The TOML file.

    Returns
    -------
    dict
        What :func:`tomllib.load` returns for the file.

    Raises
    ------
    OSError
        If the file cannot be read.
    tomllib.TOMLDecodeError
        If it is not valid TOML.
    """
    p = Path(path).resolve()
    st = p.stat()
    return copy.deepcopy(_parsed(str(p), st.st_mtime_ns, st.st_size))
