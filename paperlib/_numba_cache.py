"""Point numba's on-disk cache at a directory keyed by the package's source.

numba invalidates a cached function when *its own* file changes, not when a function it
calls (and compiles into itself) changes in another file: a stale cache then silently runs
old code. Keying the cache directory on a hash of every ``.py`` file of the package makes
any source change start from a fresh cache. Respects a ``NUMBA_CACHE_DIR`` set by the user.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def source_digest(package_dir: Path) -> str:
    """Short sha256 of the package's Python sources (paths and contents)."""
    h = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        h.update(str(path.relative_to(package_dir)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    """Set ``NUMBA_CACHE_DIR`` unless the user already did.

    Numba reads the variable when it is imported; if it already was (e.g. a script that imports
    numba before paperlib), its loaded configuration is updated too, which works because numba
    looks the directory up when a ``cache=True`` function is decorated, i.e. when paperlib's
    modules are imported after this.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    package_dir = Path(__file__).resolve().parent
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "paperlib" / "numba"
    os.environ["NUMBA_CACHE_DIR"] = str(base / source_digest(package_dir))
    if "numba" in sys.modules:
        from numba.core import config

        config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


def cache_dir() -> Path:
    """The numba cache directory in use (``NUMBA_CACHE_DIR``; :func:`configure` sets it on import)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        configure()
    return Path(os.environ["NUMBA_CACHE_DIR"])


def _marker(tag: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in tag)
    return cache_dir() / f".warm-{safe}"


def is_warm(tag: str) -> bool:
    """Whether the command ``tag`` already ran to the end with this cache (so its kernels are compiled)."""
    return _marker(tag).exists()


def mark_warm(tag: str) -> None:
    """Note that the command ``tag`` ran with this cache (best effort: a read-only cache is left alone)."""
    try:
        path = _marker(tag)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:
        pass
