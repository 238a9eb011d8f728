"""The one JSON encoder of the rooms' results: numpy values as Python numbers, NaN and inf as null.

Every results file a notebook or a room's command writes goes through :func:`dumps`: keys
sorted, one-space indent, floats written by Python's ``repr`` (they read back bit for bit).
JSON has no NaN or infinity, so a non-finite number is written as ``null`` (``None``), never
as the bare ``NaN`` / ``Infinity`` that :mod:`json` emits by default and strict readers refuse.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["jsonable", "dumps", "write_json"]

_NATIVE_KEYS = (str, int, float, bool, type(None))


def _key(k: Any) -> Any:
    """A mapping key :mod:`json` can write (numpy scalars as Python ones; anything else as ``str``)."""
    if isinstance(k, np.generic):
        k = k.item()
    if isinstance(k, float) and not math.isfinite(k):
        return str(k)
    return k if isinstance(k, _NATIVE_KEYS) else str(k)


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON values.

    Mappings (keys kept when :mod:`json` can write them, so they sort as before; other keys as
    ``str``), lists, tuples and numpy arrays become dicts and lists; numpy scalars Python
    numbers or bools; :class:`~pathlib.Path` a string; a non-finite float ``None``.

    Raises
    ------
    TypeError
        For an object JSON cannot hold (named in the message).
    """
    if isinstance(x, Mapping):
        out = {_key(k): jsonable(v) for k, v in x.items()}
        try:
            sorted(out)
        except TypeError:  # keys of mixed kinds (1 and "a") cannot be sorted: all written as strings
            out = {str(k): v for k, v in out.items()}
        return out
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if x is None or isinstance(x, (str, int, bool)):
        return x
    if isinstance(x, os.PathLike):
        return os.fspath(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def dumps(obj: Any) -> str:
    """JSON text of ``obj`` (:func:`jsonable`, keys sorted, indent 1, strict: no NaN literal)."""
    return json.dumps(jsonable(obj), sort_keys=True, indent=1, allow_nan=False)


def write_json(path: str | os.PathLike[str], obj: Any) -> Path:
    """Write :func:`dumps` of ``obj`` and a newline to ``path`` (parent folders made); returns the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(obj) + "\n")
    return p
