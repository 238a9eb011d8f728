"""Robot descriptions (values in data/robots/*.toml) over their generated kernels."""

from __future__ import annotations

from typing import Any


def load(name: str) -> Any:
    """The default model of a robot named in a recording's ``robot`` attribute."""
    if name == "five_bar":
        from paperlib.robots.five_bar import FiveBar

        return FiveBar.default()
    if name == "three_rrr":
        from paperlib.robots.three_rrr import ThreeRRR

        return ThreeRRR.default()
    raise ValueError(f"no robot model named {name!r} (known: five_bar, three_rrr)")
