"""Whether a sample reaches the paper's value: the comparison row's own agreement rule, applied to samples."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

__all__ = ["agrees", "reachability"]


def agrees(kind: str, paper: Any, v: float) -> bool:
    """Whether a sample's value ``v`` (a float; a mean over seeds) passes a comparison row's rule.

    A yes/no row takes ``v >= 0.5`` as yes (the majority of seeds), a model-choice row the nearest
    integer; the verdict is :func:`paperlib.comparison.agreement`'s, agreeing when in ``AGREEING``.
    """
    from paperlib.comparison import AGREEING, agreement

    if not math.isfinite(v):
        return False
    value: Any = float(v)
    if kind == "choice":
        value = bool(v >= 0.5) if isinstance(paper, bool) else int(round(v))
    return agreement(kind, paper, value)[1] in AGREEING


def reachability(values: Sequence[float], points: Sequence[Mapping[str, float]], headline: Any,
                 top2: Sequence[str], baseline: Mapping[str, float]) -> dict[str, Any]:
    """Whether any sample passes the comparison row's agreement rule, and where.

    Parameters
    ----------
    values : sequence of float
        The headline at each sample (NaN: no value).
    points : sequence of dict
        The samples' assumption values (missing names: the stated value, ``baseline``).
    headline : paperlib.comparison.Headline
        The row (its ``kind`` and ``paper`` value: the rule).
    top2 : sequence of str
        The two most influential assumptions: the region is their range over the reaching samples.

    Returns
    -------
    dict
        ``reachable`` (bool), ``n_reaching``, ``n_samples``, ``region`` (name -> [low, high]) or None.
    """
    hits = [p for v, p in zip(values, points) if agrees(headline.kind, headline.paper, v)]
    region = None
    if hits:
        region = {n: [min(float(p.get(n, baseline[n])) for p in hits), max(float(p.get(n, baseline[n])) for p in hits)]
                  for n in top2}
    return {"reachable": bool(hits), "n_reaching": len(hits), "n_samples": int(sum(math.isfinite(v) for v in values)),
            "region": region}
