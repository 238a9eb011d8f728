"""Network-namespace and veth helpers for running the EtherCAT master against emulated slaves.

:class:`NetnsPair` creates two network namespaces (unique names with a random suffix and the
creating PID) joined by a veth pair, brings the links up and, for UDP tests, gives the two
ends link-local IPv4 addresses (a /30 in 169.254.0.0/16, assigned only inside these private
namespaces).  EtherCAT itself is raw L2 (EtherType 0x88A4) and needs no address.

Ways to run something "on" one end:

* a subprocess: :meth:`NetnsPair.popen` / :meth:`NetnsPair.run` (``ip netns exec NS ...``);
  tracked and killed on teardown;
* in the current thread: ``with pair.entered("master"): ...`` switches this thread's network
  namespace with ``setns(2)`` (through ctypes; ``os.setns`` is Python >= 3.12) and back.
  Sockets created inside stay in that namespace afterwards -- that is how pysoem opens the
  master's interface from a test process;
* a Python function in a forked child: :func:`run_in_netns`.

Teardown (:meth:`NetnsPair.close`, also on exceptions and KeyboardInterrupt through the
context manager, and at interpreter exit) is idempotent: it terminates the tracked
processes, deletes the namespaces (which destroys the veth pair) and ignores what is already
gone.  Everything needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN); :func:`unavailable_reason` says
why it cannot work here, for ``pytest.skip``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import pickle
import secrets
import shutil
import signal
import subprocess
import sys
import time
from typing import Any, Callable, Iterator, Sequence

__all__ = [
    "NetnsError",
    "NetnsPair",
    "enter_netns",
    "run_in_netns",
    "unavailable_reason",
    "cleanup_stale",
    "NETNS_PREFIX",
]

NETNS_PREFIX = "plk"
CLONE_NEWNET = 0x40000000
_NETNS_DIR = "/run/netns"


class NetnsError(RuntimeError):
    """A namespace or veth operation failed."""


def _ip(args: Sequence[str], check: bool = True, timeout: float = 10.0) -> subprocess.CompletedProcess[str]:
    ip = shutil.which("ip") or "/usr/sbin/ip"
    proc = subprocess.run([ip, *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise NetnsError(f"'ip {' '.join(args)}' failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc


def unavailable_reason() -> str | None:
    """Why network namespaces cannot be used here (None if they can).

    Checks for root, the ``ip`` tool and that a namespace can actually be created.
    """
    if os.name != "posix" or not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "needs root (network namespaces, raw sockets)"
    if shutil.which("ip") is None and not os.path.exists("/usr/sbin/ip"):
        return "the 'ip' tool (iproute2) is not installed"
    name = f"{NETNS_PREFIX}-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        _ip(["netns", "add", name])
    except (NetnsError, OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot create a network namespace: {exc}"
    finally:
        _ip(["netns", "del", name], check=False)
    return None


_libc: ctypes.CDLL | None = None


def _setns(fd: int) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise NetnsError(f"setns failed: {os.strerror(err)}")


@contextlib.contextmanager
def enter_netns(name: str) -> Iterator[None]:
    """Run the body with the *current thread* in network namespace ``name``; switch back after.

    Sockets opened inside keep belonging to ``name``.  Other threads are not affected.
    """
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(os.path.join(_NETNS_DIR, name), os.O_RDONLY)
    except FileNotFoundError:
        os.close(own)
        raise NetnsError(f"network namespace {name!r} does not exist") from None
    try:
        _setns(target)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(target)
        os.close(own)


def run_in_netns(name: str, func: Callable[..., Any], *args: Any, timeout: float = 60.0, **kwargs: Any) -> Any:
    """Call ``func(*args, **kwargs)`` in a forked child inside namespace ``name``; return its result.

    The result (or exception) travels back pickled; the child is killed after ``timeout`` [s].
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        code = 0
        try:
            fd = os.open(os.path.join(_NETNS_DIR, name), os.O_RDONLY)
            _setns(fd)
            payload: tuple[bool, Any] = (True, func(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 -- sent to the parent
            payload, code = (False, exc), 1
        try:
            data = pickle.dumps(payload)
        except Exception as exc:  # noqa: BLE001
            data, code = pickle.dumps((False, NetnsError(f"result not picklable: {exc!r}"))), 1
        with os.fdopen(w, "wb") as fw:
            fw.write(data)
        os._exit(code)
    os.close(w)
    deadline = time.monotonic() + timeout
    chunks = []
    with os.fdopen(r, "rb") as fr:
        os.set_blocking(fr.fileno(), False)
        while True:
            try:
                chunk = fr.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                chunks.append(chunk)
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                try:
                    rest = fr.read()
                except BlockingIOError:
                    rest = None
                if rest:
                    chunks.append(rest)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise NetnsError(f"function in namespace {name!r} timed out after {timeout} s")
            time.sleep(0.005)
    if not chunks:
        raise NetnsError(f"function in namespace {name!r} died without a result")
    ok, value = pickle.loads(b"".join(chunks))
    if not ok:
        raise value
    return value


class NetnsPair:
    """Two network namespaces joined by a veth pair (a private L2 link).

    Parameters
    ----------
    prefix : str
        Namespace-name prefix; names are ``{prefix}-{pid}-{random}-{m|s}``.
    addresses : bool
        Assign link-local IPv4 addresses (``ip_master``/``ip_slave``, a /30) for UDP tests.

    Attributes
    ----------
    ns : dict
        ``{"master": name, "slave": name}``.
    ifname : dict
        Veth end inside each namespace, ``{"master": ..., "slave": ...}`` (<= 15 characters).
    ip : dict
        IPv4 address of each end (without prefix length), when ``addresses`` is true.

    Examples
    --------
    >>> with NetnsPair() as pair:                                   # doctest: +SKIP
    ...     emu = pair.popen("slave", [sys.executable, "-m", "paperlib.hardware.emulators.devices",
    ...                                "--ifname", pair.ifname["slave"]])
    ...     with pair.entered("master"):
    ...         master.open(pair.ifname["master"])
    """

    def __init__(self, prefix: str = NETNS_PREFIX, addresses: bool = True) -> None:
        tag = secrets.token_hex(3)
        base = f"{prefix}-{os.getpid()}-{tag}"
        self.ns = {"master": f"{base}-m", "slave": f"{base}-s"}
        self.ifname = {"master": f"ecm{tag}", "slave": f"ecs{tag}"}
        third = 1 + secrets.randbelow(254)
        fourth = 4 * secrets.randbelow(63)
        self.ip = {"master": f"169.254.{third}.{fourth + 1}", "slave": f"169.254.{third}.{fourth + 2}"}
        self.addresses = addresses
        self._procs: list[subprocess.Popen[Any]] = []
        self._created: list[str] = []
        self._closed = False

    # -- life cycle ------------------------------------------------------------------------------
    def open(self) -> "NetnsPair":
        """Create the namespaces and the veth pair, bring everything up."""
        atexit.register(self.close)
        try:
            for role in ("master", "slave"):
                _ip(["netns", "add", self.ns[role]])
                self._created.append(self.ns[role])
            m, s = self.ns["master"], self.ns["slave"]
            _ip(["-n", m, "link", "add", self.ifname["master"], "type", "veth",
                 "peer", "name", self.ifname["slave"], "netns", s])
            for role in ("master", "slave"):
                ns, dev = self.ns[role], self.ifname[role]
                self._sysctl(ns, f"net.ipv6.conf.{dev}.disable_ipv6", "1")
                _ip(["-n", ns, "link", "set", "lo", "up"])
                _ip(["-n", ns, "link", "set", dev, "up"])
                if self.addresses:
                    _ip(["-n", ns, "addr", "add", f"{self.ip[role]}/30", "dev", dev])
            self._wait_carrier()
        except BaseException:
            self.close()
            raise
        return self

    @staticmethod
    def _sysctl(ns: str, key: str, value: str) -> None:
        path = "/proc/sys/" + key.replace(".", "/")
        try:
            run_in_netns(ns, _write_file, path, value, timeout=5.0)
        except Exception:  # noqa: BLE001 -- optional (quieter link), never fatal
            pass

    def _wait_carrier(self, timeout: float = 3.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = []
            for role in ("master", "slave"):
                out = _ip(["-n", self.ns[role], "-o", "link", "show", self.ifname[role]], check=False).stdout
                states.append("LOWER_UP" in out)
            if all(states):
                return
            time.sleep(0.01)
        raise NetnsError("veth pair did not come up")

    def close(self) -> None:
        """Terminate tracked processes and delete the namespaces (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for proc in self._procs:
            stop_process(proc)
        for ns in reversed(self._created):
            _ip(["netns", "del", ns], check=False)
        self._created.clear()
        try:
            atexit.unregister(self.close)
        except Exception:  # noqa: BLE001
            pass

    def __enter__(self) -> "NetnsPair":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running things -----------------------------------------------------------------------------
    def command(self, role: str, argv: Sequence[str]) -> list[str]:
        """The argv that runs ``argv`` inside namespace ``role`` ("master" or "slave")."""
        ip = shutil.which("ip") or "/usr/sbin/ip"
        return [ip, "netns", "exec", self.ns[role], *argv]

    def popen(self, role: str, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """Start a subprocess inside ``role``'s namespace (tracked; stopped on :meth:`close`)."""
        proc = subprocess.Popen(self.command(role, argv), **kwargs)
        self._procs.append(proc)
        return proc

    def run(self, role: str, argv: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        """Run a command to completion inside ``role``'s namespace."""
        kwargs.setdefault("timeout", 60)
        return subprocess.run(self.command(role, argv), **kwargs)

    def entered(self, role: str) -> contextlib.AbstractContextManager[None]:
        """Context manager: the current thread inside ``role``'s namespace."""
        return enter_netns(self.ns[role])

    def call(self, role: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a function in a forked child inside ``role``'s namespace (see :func:`run_in_netns`)."""
        return run_in_netns(self.ns[role], func, *args, **kwargs)


def _write_file(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def stop_process(proc: subprocess.Popen[Any], timeout: float = 3.0) -> int | None:
    """Terminate a process we started (SIGTERM, then SIGKILL after ``timeout``); return its exit code."""
    if proc.poll() is None:
        try:
            proc.terminate()
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
        except ProcessLookupError:
            pass
    for stream in (proc.stdout, proc.stderr, proc.stdin):
        if stream is not None:
            try:
                stream.close()
            except Exception:  # noqa: BLE001
                pass
    return proc.returncode


def cleanup_stale(prefix: str = NETNS_PREFIX) -> list[str]:
    """Delete namespaces named ``{prefix}-{pid}-...`` whose creating process no longer exists.

    Only names made by :class:`NetnsPair` (with that prefix) are touched.

    Returns
    -------
    list of str
        The namespaces deleted.
    """
    removed = []
    try:
        names = os.listdir(_NETNS_DIR)
    except FileNotFoundError:
        return removed
    for name in names:
        parts = name.split("-")
        if len(parts) < 3 or parts[0] != prefix or not parts[1].isdigit():
            continue
        pid = int(parts[1])
        try:
            os.kill(pid, 0)
            continue  # creator alive
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        if _ip(["netns", "del", name], check=False).returncode == 0:
            removed.append(name)
    return removed
