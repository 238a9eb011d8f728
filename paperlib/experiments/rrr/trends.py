"""The trends paper 002 reads from its Table 5, checked metric by metric on a reproduced table.

The paper states three trends (Table 5 and its text, Fig. 14): the speed error grows with the path
speed; compensation cuts it; the Kostic model beats Coulomb + viscous at high speed. Table 5 has two
kinds of columns, the peaks (largest and smallest speed error) and the mean magnitude, and a trend
may hold in one and not in the other. :func:`trend_checks` checks each claim on each metric and
returns one row per (claim, metric, controller), so a table shows exactly which hold.

"High speed" is 300 and 400 mm/s: the paper's text names 400 mm/s and "high speed", and its Fig. 14
comparison shows 300 and 400 mm/s apart from the two slower paths.

An ordering is read only where the paper's table could show it: Table 5 prints its speed errors to
0.01 mm/s (:data:`RESOLUTION_MM_S`), so two errors less than that apart are the same number there, and
neither "grows", "cuts" nor "beats" the other (:func:`below`). Without it a trend could turn on a
difference of a few thousandths of a mm/s, which a rig's torque quantization alone moves.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence


#: Table 5's metrics: key -> how to read it from a row of :func:`paperlib.experiments.rrr.tracking.table5`.
METRICS: dict[str, str] = {"mean": "mean speed-error magnitude", "peak": "largest speed-error magnitude (either sign)"}
#: Speeds the paper calls high [m/s].
HIGH_SPEEDS_M_S = (0.3, 0.4)
#: The resolution of Table 5's speed errors as the paper prints them [mm/s]: two decimals.
RESOLUTION_MM_S = 0.01


def below(a: float, b: float, resolution: float = RESOLUTION_MM_S) -> bool:
    """True when ``a`` is below ``b`` by more than ``resolution`` [mm/s]: an ordering the paper's table could show."""
    return bool(b - a > resolution)


def metric(row: Mapping[str, Any], name: str) -> float:
    """``mean``: ``mean_abs_mm_s``; ``peak``: the larger of ``|max_peak_mm_s|`` and ``|min_peak_mm_s|`` [mm/s]."""
    if name == "mean":
        return float(row["mean_abs_mm_s"])
    if name == "peak":
        return float(max(abs(row["max_peak_mm_s"]), abs(row["min_peak_mm_s"])))
    raise ValueError(f"unknown Table 5 metric {name!r}; choose one of {sorted(METRICS)}")


def value(rows: Sequence[Mapping[str, Any]], speed: float, controller: str, name: str) -> float:
    """Metric ``name`` of the row of ``controller`` at ``speed`` [m/s]; KeyError if there is none."""
    for r in rows:
        if abs(r["speed"] - speed) < 1e-9 and r["controller"] == controller:
            return metric(r, name)
    raise KeyError(f"no Table 5 row for {controller!r} at {speed * 1e3:.0f} mm/s")


def trend_checks(rows: Sequence[Mapping[str, Any]], speeds: Iterable[float],
                 compensated: tuple[str, ...] = ("kostic", "coulomb-viscous")) -> list[dict[str, Any]]:
    """Each of the paper's trends on each metric.

    Parameters
    ----------
    rows : sequence of mapping
        Table 5 rows (``speed`` [m/s], ``controller``, ``max_peak_mm_s``, ``min_peak_mm_s``, ``mean_abs_mm_s``).
    speeds : iterable of float
        The speeds of the table [m/s], ascending.
    compensated : tuple of str
        Controllers checked for "compensation cuts it" and "grows with speed" besides ``"none"``.

    Returns
    -------
    list of dict
        ``claim``, ``metric``, ``controller``, ``values`` (the numbers compared, [mm/s]), ``compared``
        (what the values are) and ``holds`` (bool).
        "grows": increasing over ``speeds``, step by step; "cuts": below ``none`` at every speed;
        "kostic beats": below Coulomb + viscous at every speed of :data:`HIGH_SPEEDS_M_S` in the table;
        each "below" by more than :data:`RESOLUTION_MM_S` (:func:`below`).
    """
    speeds = sorted(float(v) for v in speeds)
    out: list[dict[str, Any]] = []
    for m in METRICS:
        for c in ("none",) + compensated:
            vals = [value(rows, v, c, m) for v in speeds]
            out.append({"claim": "errors grow with speed", "metric": m, "controller": c, "values": vals,
                        "compared": " -> ".join(f"{v * 1e3:.0f}" for v in speeds) + " mm/s",
                        "holds": all(below(a, b) for a, b in zip(vals[:-1], vals[1:]))})
        for c in compensated:
            pairs = [(value(rows, v, "none", m), value(rows, v, c, m)) for v in speeds]
            out.append({"claim": "compensation cuts them", "metric": m, "controller": c, "values": pairs,
                        "compared": "before vs after, at each speed",
                        "holds": all(below(a, b) for b, a in pairs)})
        high = [v for v in speeds if any(abs(v - h) < 1e-9 for h in HIGH_SPEEDS_M_S)]
        pairs = [(value(rows, v, "kostic", m), value(rows, v, "coulomb-viscous", m)) for v in high]
        out.append({"claim": "Kostic beats Coulomb + viscous at high speed", "metric": m, "controller": "kostic",
                    "values": pairs, "compared": "Kostic vs C+V at " + ", ".join(f"{v * 1e3:.0f}" for v in high) + " mm/s",
                    "holds": bool(pairs) and all(below(k, c) for k, c in pairs)})
    return out


def summary(checks: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, bool]]:
    """``{claim: {metric: holds for every controller checked}}``."""
    out: dict[str, dict[str, bool]] = {}
    for c in checks:
        d = out.setdefault(c["claim"], {})
        d[c["metric"]] = bool(d.get(c["metric"], True) and c["holds"])
    return out


def to_markdown(checks: Sequence[Mapping[str, Any]], labels: Mapping[str, str] | None = None) -> str:
    """A Markdown table of :func:`trend_checks` (values in mm/s)."""
    labels = labels or {}
    lines = ["| paper's trend | metric | controller | compared | values [mm/s] | holds |", "|---|---|---|---|---|---|"]
    for c in checks:
        vals = c["values"]
        if vals and isinstance(vals[0], tuple | list):
            txt = ", ".join(f"{a:.2f} vs {b:.2f}" for a, b in vals)
        else:
            txt = " -> ".join(f"{x:.2f}" for x in vals)
        lines.append(f"| {c['claim']} | {c['metric']} | {labels.get(c['controller'], c['controller'])} | {c['compared']} | {txt} | "
                     f"{'yes' if c['holds'] else '**no**'} |")
    return "\n".join(lines)


__all__ = ["METRICS", "HIGH_SPEEDS_M_S", "RESOLUTION_MM_S", "below", "metric", "value", "trend_checks", "summary", "to_markdown"]
