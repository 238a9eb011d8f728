"""Unpublished assumptions of a twin, as a room's sweep runner declares them for sensitivity studies.

A paper leaves numbers out (gear ratios, loop gains, friction levels, noise); the twin fills them
with stated values. A room's sweep runner (:mod:`paperlib.sweeps`) that lets a study vary them
declares::

    ASSUMPTIONS: dict[str, Assumption]     # name -> its stated value and the range a study may use

and accepts every name as a factor of ``run_seed(seed, factors, settings)`` (a float, in the unit
named here, SI), applied to the twin before its runs. The range is what the field would call
plausible for the paper's robot, stated with its reason; it is never chosen to reach a paper's
number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Assumption", "check_factors"]


@dataclass(frozen=True)
class Assumption:
    """One unpublished parameter of a twin and the range a sensitivity study may vary it over.

    Parameters
    ----------
    name : str
        Factor name (letters, digits, ``_``); the unit suffix is part of it (``_Nm``, ``_hz``, ``_s``).
    baseline : float
        The twin's stated value, in ``unit``.
    low, high : float
        The range a study samples (uniformly, or log-uniformly when ``log`` is true), in ``unit``;
        ``low <= baseline <= high``.
    unit : str
        SI unit of the value (``"1"`` for a ratio or factor).
    meaning : str
        What it is, where the twin states it (file and key).
    reason : str
        Why this range (what bounds it physically or in practice).
    log : bool
        Sample the range on a log scale (for scale factors spanning a decade or more).
    """

    name: str
    baseline: float
    low: float
    high: float
    unit: str
    meaning: str
    reason: str
    log: bool = False

    def __post_init__(self) -> None:
        vals = (self.baseline, self.low, self.high)
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"assumption {self.name!r}: baseline, low and high must be finite, got {vals}")
        if not self.low < self.high:
            raise ValueError(f"assumption {self.name!r}: low ({self.low}) must be below high ({self.high})")
        if not self.low <= self.baseline <= self.high:
            raise ValueError(f"assumption {self.name!r}: baseline {self.baseline} outside its range "
                             f"[{self.low}, {self.high}] {self.unit}")
        if self.log and self.low <= 0:
            raise ValueError(f"assumption {self.name!r}: a log range needs low > 0, got {self.low}")

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the stated range (ends included)."""
        return self.low <= value <= self.high


def check_factors(factors: Mapping[str, Any], assumptions: Mapping[str, Assumption]) -> dict[str, float]:
    """The factors that are assumptions, as floats, each checked against its range.

    Raises
    ------
    ValueError
        A value is not a finite number or lies outside its assumption's stated range.
    """
    out: dict[str, float] = {}
    for k, v in factors.items():
        if k not in assumptions:
            continue
        a = assumptions[k]
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"factor {k!r}: {v!r} is not a number ({a.unit})") from None
        if not math.isfinite(x) or not a.contains(x):
            raise ValueError(f"factor {k!r} = {v!r} {a.unit} is outside its stated range [{a.low}, {a.high}]")
        out[k] = x
    return out
