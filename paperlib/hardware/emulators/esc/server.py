"""Serving an emulated chain on a raw ``AF_PACKET`` socket, with frame-level fault injection.

Part of the ESC emulator (:mod:`paperlib.hardware.emulators.esc`).
"""

from __future__ import annotations

import dataclasses
import gc
import os
import signal
import socket
import time
from typing import Any, Callable

from .chain import EscChain
from .frames import ETHERTYPE_ECAT, Cmd

__all__ = ["FrameFaults", "serve", "serve_until_signalled", "slave_reports"]

@dataclasses.dataclass
class FrameFaults:
    """Frame-level fault injection (counted on process-data frames, i.e. frames with LRD/LWR/LRW).

    Attributes
    ----------
    drop_every_n : int
        Drop every n-th process-data frame (0 = never): sporadic frame loss.
    drop_after_n_pd : int or None
        After this many process-data frames, drop every frame ...
    drop_count : int or None
        ... this many frames (None = forever, i.e. a cable pulled).
    exit_after_n_pd : int or None
        After this many process-data frames the emulator process exits abruptly (crash).
    pause_after_n_pd : int or None
        After this many process-data frames the emulator stops serving for ``pause_s`` (once):
        a slave or link that goes quiet for a while.
    pause_s : float
        Length of that pause [s].
    queue_frames : bool
        Answer every frame that queued up during a pause, oldest first, like a store-and-forward
        device would (default False: a real ESC never queues; only the newest process-data frame
        is answered). With True the master receives late replies to frames it gave up on: the
        stale-reply case of :mod:`paperlib.hardware.ethercat`.
    withhold_after_n_pd : int or None
        After this many process-data frames, the next ``withhold_count`` process-data frames are
        processed (the devices act on them) but their replies are held back; with the next
        process-data frame every held reply is sent, oldest first, before that frame's own reply.
        The master has given up on the held frames by then (each one lost after its receive
        timeout), so it receives late replies to frames it no longer waits for: the stale-reply
        case of :mod:`paperlib.hardware.ethercat`, made by the count of frames rather than by a
        pause of this process, so that it does not depend on the host's speed (lock-step tests).
    withhold_count : int
        How many replies are held back (more than SOEM's 16 frame indices, for a held reply to
        carry the index of the frame that releases them).
    """

    drop_every_n: int = 0
    drop_after_n_pd: int | None = None
    drop_count: int | None = None
    exit_after_n_pd: int | None = None
    pause_after_n_pd: int | None = None
    pause_s: float = 0.01
    queue_frames: bool = False
    withhold_after_n_pd: int | None = None
    withhold_count: int = 40
    dropped: int = 0
    _burst_dropped: int = 0

    def should_drop(self, is_pd: bool, pd_count: int) -> bool:
        """Decide on one received frame.

        Parameters
        ----------
        is_pd : bool
            Whether the frame carries process data.
        pd_count : int
            Process-data frames received so far, this one included.
        """
        burst = self.drop_after_n_pd is not None and pd_count > self.drop_after_n_pd
        if burst and (self.drop_count is None or self._burst_dropped < self.drop_count):
            self._burst_dropped += 1
            self.dropped += 1
            return True
        if is_pd and self.drop_every_n and pd_count % self.drop_every_n == 0:
            self.dropped += 1
            return True
        return False

    def withholds(self, pd_count: int) -> bool:
        """Whether the reply to process-data frame ``pd_count`` (1-based) is held back."""
        n = self.withhold_after_n_pd
        return n is not None and n < pd_count <= n + self.withhold_count


def _is_pd(frame: bytes) -> bool:
    # first datagram command is at offset 16
    return len(frame) > 16 and frame[16] in (Cmd.LRD, Cmd.LWR, Cmd.LRW)


def serve(
    chain: EscChain,
    ifname: str,
    *,
    faults: FrameFaults | None = None,
    stop: Callable[[], bool] = lambda: False,
    on_ready: Callable[[], None] | None = None,
    tick_period_s: float = 0.002,
) -> dict[str, int]:
    """Serve a chain on a raw socket bound to ``ifname`` until ``stop()`` is true.

    Parameters
    ----------
    chain : EscChain
        The emulated slaves.
    ifname : str
        Interface (in the current network namespace) the master's frames arrive on.
    faults : FrameFaults, optional
        Frame-level fault injection.
    stop : callable
        Polled at least every ``tick_period_s``.
    on_ready : callable, optional
        Called once the socket is bound.
    tick_period_s : float
        Housekeeping period [s] (watchdogs, idle plant steps).

    Returns
    -------
    dict
        Counters: frames received, answered, dropped, process-data frames, superseded process-data
        frames (queued behind a newer one after a pause of this process: not answered), ...
    """
    faults = faults or FrameFaults()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE_ECAT))
    stats: dict[str, Any] = {"received": 0, "answered": 0, "dropped": 0, "pd_frames": 0, "superseded": 0, "stalls": 0,
                             "max_reply_us": 0.0, "slow_replies": 0, "max_app_us": 0.0, "slow_apps": 0,
                             "max_wake_gap_ms": 0.0, "withheld": 0, "released": 0}
    stall_limit = max(0.02, 10 * tick_period_s)
    peek: socket.socket | None = None
    try:
        sock.bind((ifname, ETHERTYPE_ECAT))
        sock.settimeout(tick_period_s)
        # the same socket without a timeout, to look ahead in its queue without waiting
        peek = socket.socket(fileno=os.dup(sock.fileno()))
        peek.setblocking(False)
        if on_ready is not None:
            on_ready()
        last_tick = last_wake = time.monotonic()
        outgoing = socket.PACKET_OUTGOING
        pending_frames: list[bytes] = []  # a non-process-data frame read while looking ahead
        held_replies: list[bytes] = []  # replies held back by FrameFaults.withhold_after_n_pd
        while not stop():
            if pending_frames:
                frame, addr = pending_frames.pop(0), (ifname, 0, socket.PACKET_HOST)
            else:
                try:
                    frame, addr = sock.recvfrom(2048)
                except (socket.timeout, InterruptedError):
                    frame = None
            now = time.monotonic()
            # the loop wakes at least every tick period; a longer gap means this process was
            # descheduled (CPU contention), not that the master went silent
            gap = now - last_wake - tick_period_s
            if gap + tick_period_s > stats["max_wake_gap_ms"] * 1e-3:
                stats["max_wake_gap_ms"] = (gap + tick_period_s) * 1e3
            last_wake = now
            if gap > stall_limit:
                stats["stalls"] += 1
                chain.stalled(gap)
            if frame is None:
                chain.tick(now)
                last_tick = now
                continue
            if addr[2] == outgoing:
                continue
            stats["received"] += 1
            is_pd = _is_pd(frame)
            if is_pd and not faults.queue_frames:
                # A real ESC processes a frame as it passes and never queues one: after this
                # process was descheduled, process-data frames that waited in the socket are
                # superseded by a newer one behind them, and only the newest is answered (the
                # master counts the others as lost, as it would on a wire that dropped them).
                while True:
                    try:
                        nxt, naddr = peek.recvfrom(2048)
                    except (BlockingIOError, InterruptedError):
                        break
                    if naddr[2] == outgoing:
                        continue
                    stats["received"] += 1
                    if _is_pd(nxt):
                        stats["superseded"] += 1
                        stats["pd_frames"] += 1
                        frame = nxt
                    else:
                        pending_frames.append(nxt)
                        break
            if is_pd:
                stats["pd_frames"] += 1
                if faults.exit_after_n_pd is not None and stats["pd_frames"] > faults.exit_after_n_pd:
                    os._exit(3)
                if (faults.pause_after_n_pd is not None and "paused_s" not in stats
                        and stats["pd_frames"] >= faults.pause_after_n_pd):
                    time.sleep(faults.pause_s)
                    stats["paused_s"] = faults.pause_s
            if faults.should_drop(is_pd, stats["pd_frames"]):
                stats["dropped"] += 1
                if now - last_tick >= tick_period_s:  # the devices go on while frames are lost
                    chain.tick(now)
                    last_tick = now
                continue
            reply = chain.process_frame(frame)
            if reply is not None and is_pd and faults.withholds(stats["pd_frames"]):
                held_replies.append(reply)
                stats["withheld"] += 1
                reply = None
            elif is_pd and held_replies:
                for late in held_replies:  # oldest first, before this frame's own reply
                    sock.send(late)
                stats["released"] += len(held_replies)
                held_replies.clear()
            if reply is not None:
                sock.send(reply)
                stats["answered"] += 1
            t_rx = now
            now = time.monotonic()
            dt_reply = now - t_rx  # receive -> reply sent (timing statistics of the emulator itself)
            if dt_reply > 250e-6:
                stats["slow_replies"] += 1
            if dt_reply * 1e6 > stats["max_reply_us"]:
                stats["max_reply_us"] = dt_reply * 1e6
            chain.run_pending(now)
            if now - last_tick >= tick_period_s:
                chain.tick(now)
                last_tick = now
            dt_app = time.monotonic() - now
            if dt_app > 250e-6:
                stats["slow_apps"] += 1
            if dt_app * 1e6 > stats["max_app_us"]:
                stats["max_app_us"] = dt_app * 1e6
    finally:
        if peek is not None:
            peek.close()
        sock.close()
    return stats


def serve_until_signalled(chain: EscChain, ifname: str, *, faults: FrameFaults | None = None,
                          ready_line: Callable[[], str] = lambda: "READY", tick_period_s: float = 0.002,
                          gc_threshold: tuple[int, int, int] | None = None) -> dict[str, int]:
    """An emulator process's :func:`serve`: until SIGTERM or SIGINT, the start-up heap frozen first.

    The objects built before serving are frozen out of the garbage collector (``gc.freeze``: no
    collector pass walks them during the run); ``gc_threshold`` optionally spaces the passes out
    further. Once the socket is bound, ``ready_line()`` is printed (flushed) for the parent
    process, which waits for it (``READY`` and, e.g., a JSON of what the parent should know).

    Returns
    -------
    dict
        :func:`serve`'s counters.
    """
    stopping = {"flag": False}

    def _stop(signum: int, frame: Any) -> None:
        stopping["flag"] = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    gc.collect()
    gc.freeze()
    if gc_threshold is not None:
        gc.set_threshold(*gc_threshold)
    return serve(chain, ifname, faults=faults, stop=lambda: stopping["flag"],
                 on_ready=lambda: print(ready_line(), flush=True), tick_period_s=tick_period_s)


def slave_reports(chain: EscChain) -> list[dict[str, Any]]:
    """Each slave's name, AL state and code, and its counters (an emulator process's final report)."""
    return [{"name": s.name, "al_state": s.al_state, "al_code": s.al_code, **s.counters} for s in chain.slaves]
