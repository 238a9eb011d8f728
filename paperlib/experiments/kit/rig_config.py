"""A room's ``--source hardware`` rig: read its rig file and refuse when there is no usable rig.

Every room with a live-hardware path takes its rig file from ``paperlib reproduce --rig-config
FILE`` (a copy of ``config/rig.example.toml`` filled in for the rig, or one of ``config/rigs/``).
:func:`load_rig_config` reads it and checks the keys the room needs; :func:`require_rig` also
checks that the rig's EtherCAT interface exists on this machine. Without a rig both raise
:class:`RigUnavailable` (a ``RuntimeError``: ``paperlib reproduce`` prints it and builds nothing):
the twin is **never** used silently in place of the hardware.
"""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["RigUnavailable", "BASE_REQUIRED_KEYS", "load_rig_config", "interface_present", "require_rig"]

#: Keys every rig file must have (section, key); a room adds its own (the 5R: ``[imu] udp_port``).
BASE_REQUIRED_KEYS: tuple[tuple[str, str], ...] = (("rig", "robot"), ("ethercat", "interface"))


class RigUnavailable(RuntimeError):
    """``source = "hardware"`` was requested but no usable rig is configured or present."""


def load_rig_config(path: str | os.PathLike[str] | None, required: Sequence[tuple[str, str]] = BASE_REQUIRED_KEYS,
                    *, error: type[RigUnavailable] = RigUnavailable) -> dict[str, Any]:
    """Read a rig file and check its required keys.

    Parameters
    ----------
    path : path-like or None
        The rig file (TOML).
    required : sequence of (section, key)
        Keys that must be present.
    error : type
        The :class:`RigUnavailable` subclass to raise (a room's own).

    Returns
    -------
    dict
        The parsed file.

    Raises
    ------
    RigUnavailable
        No path, missing file, not TOML, or a required key missing.
    """
    if path is None or str(path).strip() in ("", "None", "null"):
        raise error(
            "source 'hardware' needs a rig configuration file (e.g. a copy of config/rig.example.toml "
            "filled in for your robot, or one of config/rigs/), passed as rig_config / --rig-config; none was "
            "given. Refusing: recordings are not made by the twin in place of the hardware. Use source 'twin' "
            "to simulate or 'archive' to analyse existing recordings.")
    p = Path(path)
    if not p.is_file():
        raise error(f"rig configuration {p} not found (source 'hardware' needs it). Refusing; "
                    "nothing was simulated in its place.")
    try:
        with p.open("rb") as fh:
            cfg = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"rig configuration {p} is not valid TOML: {exc}") from None
    missing = [f"[{s}] {k}" for s, k in required if k not in cfg.get(s, {})]
    if missing:
        raise error(f"rig configuration {p} lacks {', '.join(missing)} (see config/rig.example.toml)")
    return cfg


def interface_present(name: str, netns: str | None = None) -> bool:
    """Whether the network interface ``name`` exists here (inside the network namespace ``netns`` if given)."""
    if netns:  # an interface inside a named network namespace (the emulated rig's veth end)
        if not Path("/var/run/netns", netns).exists():
            return False
        r = subprocess.run(["ip", "-n", netns, "link", "show", name], capture_output=True)
        return r.returncode == 0
    return Path("/sys/class/net", name).exists()


def require_rig(path: str | os.PathLike[str] | None, required: Sequence[tuple[str, str]] = BASE_REQUIRED_KEYS,
                present: Callable[..., bool] = interface_present, *,
                error: type[RigUnavailable] = RigUnavailable) -> dict[str, Any]:
    """The rig file, if the rig can be used from this machine; otherwise refuse.

    Checks: the file exists and has the ``required`` keys; its EtherCAT interface exists here
    (``present(interface)``, or ``present(interface, netns)`` when the file names a namespace).

    Raises
    ------
    RigUnavailable
        With a message saying what is missing and that nothing was simulated instead.
    """
    cfg = load_rig_config(path, required, error=error)
    ifname = str(cfg["ethercat"]["interface"])
    netns = cfg["ethercat"].get("netns")
    ok = present(ifname, netns) if netns else present(ifname)
    if not ok:
        where = f" in network namespace {netns!r}" if netns else ""
        raise error(
            f"rig configuration {path}: EtherCAT interface {ifname!r} is not present{where} on this machine "
            "(no rig attached). Refusing source 'hardware'; the twin is not used in its place.")
    return cfg
