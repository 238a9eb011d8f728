"""A cold numba cache is filled once: a process that asks for a function another one is compiling loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = textwrap.dedent('''
    from paperlib._jit import rt_njit


    @rt_njit
    def inner(x):
        return 2.0 * x


    @rt_njit
    def outer(x):
        return inner(x) + 1.0
''')

# Process A takes outer's compile lock (as a compilation in progress would), says so, waits for a line on
# stdin, then calls outer (compiling it and its callee under their locks). Process B says it is calling,
# then calls outer. Both print their cache statistics.
HOLDER = textwrap.dedent('''
    import fcntl, json, sys
    from paperlib import _numba_cache
    import lockmod
    name = "lockmod.outer"
    path = _numba_cache.compile_lock_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a")
    fcntl.flock(fh, fcntl.LOCK_EX)
    _numba_cache._HELD.add(name)
    print("locked", flush=True)
    sys.stdin.readline()
    value = lockmod.outer(3.0)
    _numba_cache._HELD.discard(name)
    fh.close()
    print(json.dumps({"value": value, "misses": sum(lockmod.outer.stats.cache_misses.values()),
                      "hits": sum(lockmod.outer.stats.cache_hits.values())}), flush=True)
''')
CALLER = textwrap.dedent('''
    import json
    import lockmod
    print("calling", flush=True)
    value = lockmod.outer(3.0)
    print(json.dumps({"value": value, "misses": sum(lockmod.outer.stats.cache_misses.values()),
                      "hits": sum(lockmod.outer.stats.cache_hits.values())}), flush=True)
''')


def test_a_function_being_compiled_elsewhere_is_loaded_not_compiled_again(tmp_path: Path) -> None:
    (tmp_path / "lockmod.py").write_text(MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env, cwd=tmp_path)
    caller = None
    try:
        assert holder.stdout.readline().strip() == "locked"
        caller = subprocess.Popen([sys.executable, "-c", CALLER], stdout=subprocess.PIPE, text=True, env=env,
                                  cwd=tmp_path)
        assert caller.stdout.readline().strip() == "calling"
        # the caller now waits on the lock (or, if slower, finds the holder's result once it is saved)
        holder.stdin.write("go\n")
        holder.stdin.flush()
        first = json.loads(holder.stdout.readline())
        second = json.loads(caller.stdout.readline())
    finally:
        for p in (holder, caller):
            if p is not None:
                p.kill() if p.poll() is None else None
                p.wait(timeout=60)
    assert first == {"value": 7.0, "misses": 1, "hits": 0}   # compiled it
    assert second == {"value": 7.0, "misses": 0, "hits": 1}  # loaded it from the cache


def test_an_unwritable_cache_compiles_as_before(tmp_path: Path) -> None:
    (tmp_path / "lockmod.py").write_text(MODULE)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")  # the cache directory's path is a file: no lock can be made there
    env = dict(os.environ, NUMBA_CACHE_DIR=str(blocker / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", CALLER], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.splitlines()[-1])["value"] == 7.0
