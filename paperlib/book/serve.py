"""Serve a built site on localhost (a thread, for the browser test; or ``paperlib book serve``)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

__all__ = ["serve", "QuietHandler"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A static file handler that does not print one line per request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def serve(site: str | Path, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``site`` in a background thread; yields the base URL (``http://host:port/``).

    Parameters
    ----------
    site : path-like
        A built site (a folder with ``index.html``).
    host : str
        Interface (default loopback only).
    port : int
        0 picks a free port.
    """
    root = Path(site)
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root}: no index.html (build the site first: paperlib reproduce book, or paperlib book build)")
    handler = functools.partial(QuietHandler, directory=str(root))
    srv = http.server.ThreadingHTTPServer((host, port), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://{host}:{srv.server_address[1]}/"
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(timeout=5)
