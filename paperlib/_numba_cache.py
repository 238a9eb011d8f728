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
