"""SOEM's side of the EtherCAT master: the interface and its raw sockets, AL states, probing the bus.

Functions on a pysoem ``Master`` that :class:`paperlib.hardware.ethercat.EthercatMaster` and
:func:`probe` (``paperlib hardware probe``) share.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Sequence

from paperlib.hardware.ethercat_errors import EthercatError

try:  # pysoem is a pinned dependency, but keep importing this module cheap and safe
    import pysoem
except ImportError:  # pragma: no cover - exercised only without pysoem
    pysoem = None  # type: ignore[assignment]

__all__ = ["STATE_NAMES", "require_pysoem", "open_interface", "set_nonblocking", "duplicate_sockets", "drain",
           "state_report", "probe"]

log = logging.getLogger("paperlib.hardware.ethercat")

#: AL states (low nibble of AL status 0x0130) by name.
STATE_NAMES = {0x00: "NONE", 0x01: "INIT", 0x02: "PRE-OP", 0x03: "BOOT", 0x04: "SAFE-OP", 0x08: "OP"}
AL_INIT, AL_PREOP, AL_SAFEOP, AL_OP = 0x01, 0x02, 0x04, 0x08


def require_pysoem() -> Any:
    """The pysoem module (:class:`EthercatError` without it)."""
    if pysoem is None:
        raise EthercatError("pysoem is not installed (pip install pysoem==1.1.13)")
    return pysoem


def open_interface(master: Any, ifname: str, netns: str | None) -> list[int]:
    """Open ``ifname`` (inside the network namespace ``netns`` if given) with SOEM; its raw socket(s)' descriptors."""
    before = open_fds()
    try:
        if netns:
            from paperlib.hardware.netns import enter_netns

            with enter_netns(netns):
                master.open(ifname)
        else:
            master.open(ifname)
        return packet_sockets(open_fds() - before)
    except ConnectionError as exc:
        raise EthercatError(
            f"cannot open interface {ifname!r}{f' in namespace {netns}' if netns else ''}: {exc} "
            "(does it exist? raw sockets need root or CAP_NET_RAW+CAP_NET_ADMIN)"
        ) from exc


def set_nonblocking(fds: Sequence[int]) -> bool:
    """Make SOEM's raw socket non-blocking, so a lost frame costs ``receive_timeout_s``, not a jiffy.

    SOEM reads with ``recv`` on a socket whose ``SO_RCVTIMEO`` is 1 us, which the kernel rounds
    up to one scheduler tick (4 ms at HZ = 250): every cycle whose frame is lost then blocks
    for 4-8 ms instead of the requested timeout, and the loop falls behind by that much per
    lost frame (measured: 21 lost frames took 160 ms). Non-blocking, ``recv`` returns at once
    and SOEM polls until its own timer expires. Found by the file descriptors SOEM opened.
    """
    import fcntl

    nonblocking = False
    for fd in fds:
        try:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            nonblocking = True
        except OSError as exc:  # pragma: no cover - diagnostics only
            log.warning("cannot make the EtherCAT socket non-blocking: %s", exc)
    if not nonblocking:
        log.warning("EtherCAT socket not found: lost frames will block for a scheduler tick each")
    return nonblocking


def duplicate_sockets(fds: Sequence[int]) -> list[Any]:
    """Python sockets on duplicates of SOEM's raw-socket descriptors (to empty its receive queue)."""
    import socket

    out = []
    for fd in fds:
        try:
            out.append(socket.fromfd(fd, socket.AF_PACKET, socket.SOCK_RAW))
        except OSError:  # pragma: no cover - diagnostics only
            pass
    return out


def drain(socks: Sequence[Any]) -> int:
    """Drop every frame waiting in the sockets' receive queues (without blocking); how many."""
    import socket

    n = 0
    for sock in socks:
        for _ in range(4096):
            try:
                sock.recv(2048, socket.MSG_DONTWAIT)
            except OSError:  # BlockingIOError: the queue is empty
                break
            n += 1
    return n


def state_report(master: Any, slaves: Sequence[Any]) -> str:
    """The AL state and status code of every slave, for error messages (best effort)."""
    try:
        master.read_state()
    except Exception:  # noqa: BLE001
        return "(states unreadable)"
    parts = []
    for i, s in enumerate(slaves):
        st = s.state
        code = s.al_status
        text = require_pysoem().al_status_code_to_string(code) if code else "no error"
        err = "+ERROR" if st & 0x10 else ""
        parts.append(f"{i}: {s.name} {STATE_NAMES.get(st & 0x0F, hex(st))}{err}, AL status 0x{code:04X} ({text})")
    return "; ".join(parts)


def open_fds() -> set[int]:
    try:
        return {int(x) for x in os.listdir("/proc/self/fd")}
    except OSError:  # pragma: no cover - not Linux
        return set()


def packet_sockets(fds: set[int]) -> list[int]:
    """The AF_PACKET sockets among ``fds`` (those SOEM just opened)."""
    import socket

    out = []
    for fd in sorted(fds):
        try:
            if not os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                continue
            dup = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            if dup.family == getattr(socket, "AF_PACKET", -1):
                out.append(fd)
        finally:
            dup.close()
    return out


def probe(ifname: str, netns: str | None = None) -> list[dict[str, Any]]:
    """List the slaves on an interface (for ``paperlib hardware probe --interface IF``).

    Parameters
    ----------
    ifname : str
        Network interface.
    netns : str, optional
        Network namespace holding ``ifname``.

    Returns
    -------
    list of dict
        One per slave, in wiring order: ``position`` (0-based), ``name``, ``vendor``,
        ``product``, ``revision``, ``state`` (e.g. "PRE-OP"), ``al_status_code``. Empty if no
        slave answers.

    Raises
    ------
    EthercatError
        If the interface cannot be opened.
    """
    ps = require_pysoem()
    m = ps.Master()
    open_interface(m, ifname, netns)
    try:
        n = m.config_init()
        if n <= 0:
            return []
        m.read_state()
        out = []
        for i, s in enumerate(m.slaves):
            out.append(
                {
                    "position": i,
                    "name": s.name,
                    "vendor": s.man,
                    "product": s.id,
                    "revision": s.rev,
                    "state": STATE_NAMES.get(s.state & 0x0F, hex(s.state)) + ("+ERROR" if s.state & 0x10 else ""),
                    "al_status_code": s.al_status,
                }
            )
        return out
    finally:
        try:
            m.close()
        except Exception:  # noqa: BLE001
            pass
