"""Robot descriptions (values in data/robots/*.toml) over their generated kernels."""

from __future__ import annotations

from typing import Any


def load(name: str) -> Any:
    """The default model of a robot named in a recording's ``robot`` attribute."""
    if name == "five_bar":
        from paperlib.robots.five_bar import FiveBar

        return FiveBar.default()
    from pathlib import Path

    from paperlib.robots.serial import ROBOTS_DIR, SerialArm

    if (ROBOTS_DIR / f"{name}.toml").exists() or Path(name).suffix == ".urdf":
        return SerialArm.named(name)
    raise ValueError(f"no robot model named {name!r} (known: five_bar, serial arms in data/robots/, or a .urdf path)")
