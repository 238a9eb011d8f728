"""Start and stop the live page of a run (``paperlib run --live``).

:class:`LivePage` makes the run's live-mirror folder (in ``/dev/shm`` where there is one, so the
shared chunks never wait on a disk) and starts the page's server as a separate program,
``python -m paperlib.live`` (:mod:`paperlib.live.server`), in its own session (a Ctrl-C that stops
the run does not kill the page) at a lower priority. The run process does not import the page:
the two share only the mirror's files.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["LivePage", "free_port", "remove_orphaned_mirrors"]

#: The page's program (a higher layer, run as its own process, never imported here).
LIVE_PROGRAM = "paperlib.live"
#: Prefix of a run's live folder, and the file in it naming the run's process.
FOLDER_PREFIX = "paperlib-live-"
OWNER_FILE = "owner.pid"


def free_port(address: str = "127.0.0.1") -> int:
    """A TCP port free on ``address`` now (the system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def _scratch() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def remove_orphaned_mirrors(scratch: str | Path | None = None) -> list[Path]:
    """Remove the live folders of runs that no longer exist; return what was removed.

    A run stopped normally removes its own folder (:meth:`LivePage.stop`); a run killed with SIGKILL
    cannot, and its chunks would stay in ``/dev/shm`` (memory) until the machine restarts. Each folder
    names its run's process in ``owner.pid``; a folder whose process is gone is removed when the next
    live run starts. Folders without that file (another program's, or an older paperlib's) are left.

    Parameters
    ----------
    scratch : path-like, optional
        Where the folders are (default: where :class:`LivePage` makes them).
    """
    base = Path(scratch) if scratch is not None else Path(_scratch() or tempfile.gettempdir())
    removed: list[Path] = []
    for d in base.glob(FOLDER_PREFIX + "*"):
        try:
            pid = int((d / OWNER_FILE).read_text().strip())
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    return removed


class LivePage:
    """A run's live mirror folder and the page serving it, as a context manager.

    Parameters
    ----------
    port : int
        TCP port of the page (0: a free one).
    interval_s : float
        The page's redraw interval [s].
    stride : int
        The page plots every ``stride``-th sample.
    address : str
        Interface the page listens on (default: loopback only).

    Attributes
    ----------
    mirror : Path
        The (empty) folder to give the recording writer (``run_session(live_mirror=...)``).
    url : str
        The page's address.
    log : Path
        The server's output.
    """

    def __init__(self, port: int = 0, *, interval_s: float = 1.0, stride: int = 40,
                 address: str = "127.0.0.1") -> None:
        self.address = address
        self.port = int(port) or free_port(address)
        self.interval_s = float(interval_s)
        self.stride = int(stride)
        self.url = f"http://{'localhost' if address == '127.0.0.1' else address}:{self.port}/"
        self._base: Path | None = None
        self._proc: subprocess.Popen | None = None

    @property
    def mirror(self) -> Path:
        assert self._base is not None, "LivePage not started"
        return self._base / "mirror"

    @property
    def log(self) -> Path:
        assert self._base is not None, "LivePage not started"
        return self._base / "server.log"

    def start(self) -> "LivePage":
        """Make the mirror folder and start the page's server (returns at once; the page comes up in seconds)."""
        remove_orphaned_mirrors()
        self._base = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=_scratch()))
        (self._base / OWNER_FILE).write_text(f"{os.getpid()}\n")
        self.mirror.mkdir()
        cmd = [sys.executable, "-m", LIVE_PROGRAM, "--mirror", str(self.mirror), "--port", str(self.port),
               "--address", self.address, "--interval", repr(self.interval_s), "--stride", str(self.stride),
               "--parent", str(os.getpid())]
        with open(self.log, "wb") as out:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)
        return self

    def wait_ready(self, timeout_s: float = 120.0, every_s: float = 0.2) -> bool:
        """Wait until the page's server accepts connections (its imports are done); False on timeout or exit.

        Called before the loop starts, so that the server's start-up (importing Panel, holoviews
        and bokeh: seconds of CPU) does not compete with the loop.
        """
        end = time.monotonic() + timeout_s
        while self.running():
            try:
                with socket.create_connection((self.address, self.port), timeout=1.0):
                    return True
            except OSError:
                pass
            if time.monotonic() > end:
                return False
            time.sleep(every_s)
        return False

    def running(self) -> bool:
        """True while the page's server runs."""
        return self._proc is not None and self._proc.poll() is None

    def stop(self, linger_s: float = 0.0) -> None:
        """Keep the page up ``linger_s`` more seconds, then stop its server and remove the mirror."""
        try:
            if linger_s > 0 and self.running():
                time.sleep(linger_s)
        finally:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            if self._base is not None:
                shutil.rmtree(self._base, ignore_errors=True)
                self._base = None

    def __enter__(self) -> "LivePage":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
