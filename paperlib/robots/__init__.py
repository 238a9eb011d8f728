"""Robot descriptions (values in data/robots/*.toml) over their generated kernels.

A robot is a data file: :func:`load` reads ``data/robots/<name>.toml`` and builds the model of
the file's ``kind`` through the registry :data:`paperlib.robots.kinds.KINDS` (no list of robots
here). Compiled-kernel models satisfy :class:`paperlib.robots.model.RobotModel`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def load(name: str) -> Any:
    """The default model of a robot named in a recording's ``robot`` attribute (or a ``.urdf`` path).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known robots) or a file of an unknown kind.
    """
    from paperlib.robots.kinds import loader_of

    if Path(name).suffix == ".urdf":
        from paperlib.robots.serial import SerialArm

        return SerialArm.named(name)
    return loader_of(name)()
