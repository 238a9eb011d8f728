"""Point numba's on-disk cache at a directory keyed by the package's source.

numba invalidates a cached function when *its own* file changes, not when a function it
calls (and compiles into itself) changes in another file: a stale cache then silently runs
old code. Keying the cache directory on a hash of every ``.py`` file of the package makes
any source change start from a fresh cache. Respects a ``NUMBA_CACHE_DIR`` set by the user.

A cold cache is filled once, not once per process: :func:`install_compile_lock` makes the
compilation of a cached function hold a file lock named for the function in the cache directory,
so processes that start together (Snakemake's notebooks, pytest's workers, a sweep's jobs) compile
each function once; the others wait for the lock and then load what the first one saved.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
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


def compile_lock_path(name: str) -> Path:
    """The lock file of the function ``name`` (``module.qualname``) in the cache directory's ``.compile-locks``."""
    return cache_dir() / ".compile-locks" / f"{hashlib.sha256(name.encode()).hexdigest()[:20]}.lock"


_HELD: set[str] = set()   # compile locks this process holds (callees of a function being compiled re-enter)
_INSTALLED = threading.Lock()


def install_compile_lock() -> None:
    """Make numba compile each cached function under a file lock in the cache directory (idempotent).

    ``numba``'s dispatcher compiles a signature it has not seen by first trying the on-disk cache and
    otherwise compiling and saving it. Wrapped here: for a function with ``cache=True``, that step runs
    holding an exclusive ``flock`` on ``<cache dir>/.compile-locks/<function>.lock``, taken inside
    numba's own (process-wide) compiler lock. A second process asking for the same function meanwhile
    waits, then finds the first one's result in the cache and loads it: a cold cache costs one
    compilation per function, not one per process. Callees compile under their own locks while the
    caller's is held; as calls form no cycle, no two processes wait on each other. A cache directory
    that cannot be written, or a function without ``cache=True``, compiles as before.
    """
    with _INSTALLED:
        from numba.core.caching import NullCache
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.dispatcher import Dispatcher

        original = Dispatcher.compile
        if getattr(original, "_paperlib_compile_lock", False):
            return

        def compile(self, sig):  # type: ignore[no-untyped-def]
            if isinstance(getattr(self, "_cache", None), NullCache):
                return original(self, sig)
            name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
            with global_compiler_lock:
                if name in _HELD:
                    return original(self, sig)
                try:
                    path = compile_lock_path(name)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    fh = open(path, "a")
                except OSError:
                    return original(self, sig)
                with fh:
                    import fcntl

                    try:
                        fcntl.flock(fh, fcntl.LOCK_EX)  # released when fh closes
                    except OSError:  # a file system without locks: compile as numba would
                        return original(self, sig)
                    _HELD.add(name)
                    try:
                        return original(self, sig)
                    finally:
                        _HELD.discard(name)

        compile._paperlib_compile_lock = True  # type: ignore[attr-defined]
        compile.__doc__ = original.__doc__
        Dispatcher.compile = compile
