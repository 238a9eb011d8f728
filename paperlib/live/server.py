"""The live page's server: a Bokeh/Panel server on localhost, one page per browser session.

It runs as its own program (``python -m paperlib.live``), started by ``paperlib run --live``,
at a lower scheduling priority (``nice``) than the run, and stops when its parent goes away.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Sequence

__all__ = ["serve", "main", "DEFAULT_INTERVAL_S", "DEFAULT_STRIDE"]

#: Redraw interval of the page [s] and the plotted sample stride (40 at 4 kHz: 100 points per second).
DEFAULT_INTERVAL_S = 1.0
DEFAULT_STRIDE = 40


def _exit_with_parent(parent: int, every_s: float = 2.0) -> None:
    """Leave the process when ``parent`` is gone (the run that started the page was killed)."""
    def watch() -> None:
        while True:
            time.sleep(every_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="live-parent-watch", daemon=True).start()


def serve(folder: str, port: int, *, address: str = "127.0.0.1", interval_s: float = DEFAULT_INTERVAL_S,
          stride: int = DEFAULT_STRIDE) -> None:
    """Serve the live page of the mirror ``folder`` on ``http://address:port/`` until stopped (blocks).

    Parameters
    ----------
    folder : str
        The run's :class:`~paperlib.recordings.LiveMirror` folder.
    port : int
        TCP port.
    address : str
        Interface to listen on (default: loopback only).
    interval_s : float
        Redraw interval [s].
    stride : int
        Plot every ``stride``-th sample.
    """
    import panel as pn

    from paperlib.live.page import PAGE_TITLE, make_page

    origins = [f"localhost:{port}", f"127.0.0.1:{port}", f"{address}:{port}"]
    pn.serve({"/": lambda: make_page(folder, interval_s=interval_s, stride=stride)}, port=port, address=address,
             websocket_origin=origins, show=False, title=PAGE_TITLE, threaded=False, start=True,
             print_url=False)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m paperlib.live",
                                description="Serve the live page of a run from its recording writer's live mirror.")
    p.add_argument("--mirror", required=True, help="the run's live mirror folder")
    p.add_argument("--port", type=int, required=True, help="TCP port")
    p.add_argument("--address", default="127.0.0.1", help="interface (default 127.0.0.1)")
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL_S, help="redraw interval [s] (default 1)")
    p.add_argument("--stride", type=int, default=DEFAULT_STRIDE, help="plot every N-th sample (default 40)")
    p.add_argument("--nice", type=int, default=10, help="lower this process's priority by N (default 10)")
    p.add_argument("--parent", type=int, default=None, help="exit when this process is no longer the parent")
    args = p.parse_args(argv)
    if not args.interval > 0 or args.stride < 1:
        print("python -m paperlib.live: --interval must be > 0 and --stride >= 1", file=sys.stderr)
        return 2
    if args.nice:
        try:
            os.nice(args.nice)
        except OSError:
            pass
    if args.parent is not None:
        _exit_with_parent(args.parent)
    serve(args.mirror, args.port, address=args.address, interval_s=args.interval, stride=args.stride)
    return 0
