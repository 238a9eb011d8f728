"""The reproduced headline numbers beside the paper's: ``results/paper_comparison.csv`` and ``.md``.

Every headline number of ``/work/shared/papers/README.md`` (flagship paper) is one row, plus a
few numbers of the paper's text (Fig. 4). Each row carries the ``source`` of the recordings
the reproduced value comes from (``twin`` or ``hardware``; ``model`` for values computed from
the robot model and the trajectory planner alone), the ratio reproduced / paper and an
agreement verdict by a fixed rule (:data:`AGREEMENT_RULES`). Nothing is adjusted to agree:
where the twin differs, both values stand side by side.

Command line (used by the Snakefile)::

    python -m paperlib.experiments.comparison --results results/0*.json \
        --csv results/paper_comparison.csv --md results/paper_comparison.md
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

__all__ = ["Headline", "HEADLINES", "AGREEMENT_RULES", "agreement", "build_comparison", "to_csv", "to_markdown", "main"]

#: How the verdict is reached, by kind of claim.
AGREEMENT_RULES: dict[str, str] = {
    "factor": "improvement factor: 'agrees' if reproduced/paper is in [0.8, 1.25]; 'same direction' if the "
              "reproduced factor is > 1 (an improvement) but outside that band; otherwise 'differs'",
    "percent": "share: 'agrees' if within 5 percentage points; 'roughly' if within 15; otherwise 'differs'",
    "upper_bound": "the paper gives an upper bound ('< x'): 'satisfied' or 'not satisfied'",
    "approx": "the paper gives an approximate value ('about x'): 'agrees' if reproduced/paper is in "
              "[0.5, 2]; otherwise 'differs'",
    "lower_bound": "the paper gives a lower bound ('> x'): 'satisfied' or 'not satisfied'",
    "choice": "a discrete choice or a yes/no finding: 'same' or 'differs'",
}


@dataclass(frozen=True)
class Headline:
    """One number of the paper and where its reproduction is found in the notebooks' results.

    Attributes
    ----------
    key : str
        Stable identifier.
    quantity : str
        What it is, in words.
    joint : str
        "1", "2", or "-" (not per joint).
    paper : float or str or bool
        The paper's value.
    kind : str
        One of :data:`AGREEMENT_RULES`.
    unit : str
    notebook : str
        Results file stem (e.g. "04_controller_comparison").
    get : callable
        results dict -> reproduced value (None when absent).
    """

    key: str
    quantity: str
    joint: str
    paper: Any
    kind: str
    unit: str
    notebook: str
    get: Callable[[Mapping[str, Any]], Any]


def _dig(*path: Any) -> Callable[[Mapping[str, Any]], Any]:
    def get(r: Mapping[str, Any]) -> Any:
        cur: Any = r
        for p in path:
            if isinstance(cur, Mapping) and p in cur:
                cur = cur[p]
            elif isinstance(cur, (list, tuple)) and isinstance(p, int) and -len(cur) <= p < len(cur):
                cur = cur[p]
            else:
                return None
        return cur
    return get


def _headlines() -> list[Headline]:
    rows: list[Headline] = []
    nb4 = "04_controller_comparison"
    for label, key, paper in (("RMS joint error, CTC vs PD (times lower)", "CTC_vs_PD_rms", (2.44, 2.04)),
                              ("peak joint error, CTC vs PD (times lower)", "CTC_vs_PD_peak", (3.88, 3.78)),
                              ("RMS joint error, AC vs CTC (times lower)", "AC_vs_CTC_rms", (5.05, 3.68)),
                              ("peak joint error, AC vs CTC (times lower)", "AC_vs_CTC_peak", (1.40, 1.97))):
        for j in (0, 1):
            rows.append(Headline(f"{key}_j{j + 1}", label, str(j + 1), paper[j], "factor", "1", nb4,
                                 _dig("ratios", key, j)))
    for part, label, paper, kind in (("dynamic_ff", "torque share under AC: dynamic feed-forward", (45.0, 48.0), "percent"),
                                     ("friction_ff", "torque share under AC: friction feed-forward", (40.0, 33.0), "percent"),
                                     ("feedback", "torque share under AC: feedback", (15.0, 20.0), "upper_bound")):
        for j in (0, 1):
            rows.append(Headline(f"share_{part}_j{j + 1}", label, str(j + 1), paper[j], kind, "%", nb4,
                                 _dig("torque_shares_percent", part, j)))
    nb5 = "05_temperature_convergence"
    for state in ("cold", "warm"):
        rows += [
            Headline(f"conv_pds_{state}", f"drive-gain convergence time ({state} run)", "-", 5.0, "upper_bound", "s",
                     nb5, _dig("convergence", state, "pi_pds")),
            Headline(f"conv_friction_{state}", f"friction-parameter convergence time, orders 0-1 ({state} run)", "-",
                     15.0, "approx", "s", nb5, _dig("convergence", state, "pi_F_low")),
            Headline(f"conv_residual_{state}", f"fitting-residual convergence time ({state} run)", "-", 10.0, "approx",
                     "s", nb5, _dig("convergence", state, "rho_rms")),
        ]
    rows.append(Headline("model_order_knee", "model at the knee of the residual curve (Table 4)", "-", 3, "choice",
                         "model", "02_model_order", _dig("choice", "chosen")))
    for j in ("1", "2"):
        rows.append(Headline(f"friction_falls_j{j}", "friction lower at 39 C than at 22 C", j, True, "choice", "yes/no",
                             nb5, _dig("temperature", "friction_lower_when_warm", j)))
    for state in ("cold", "warm"):
        rows.append(Headline(f"quadratic_negative_{state}", f"quadratic friction coefficients negative ({state} run)", "-",
                             True, "choice", "yes/no", nb5, _dig("temperature", "quadratic_negative", state)))
    nb1 = "01_workspace_trajectories"
    rows.append(Headline("peak_tcp_speed", "peak end-point speed of the test motions (Fig. 4b)", "-", 1.0,
                         "lower_bound", "m/s", nb1, _dig("summary", "peak_end_point_speed_m_s")))
    rows.append(Headline("longest_motion", "longest point-to-point motion in the polygon", "-", 0.82, "approx", "s",
                         nb1, _dig("summary", "longest_motion_s")))
    return rows


#: The rows of the comparison table.
HEADLINES: list[Headline] = _headlines()


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v


def agreement(kind: str, paper: Any, value: Any) -> tuple[float | None, str]:
    """(ratio reproduced/paper or None, verdict) by :data:`AGREEMENT_RULES`."""
    if value is None:
        return None, "not reproduced"
    if kind == "choice":
        return None, "same" if value == paper else "differs"
    v, p = _num(value), _num(paper)
    if v is None or p is None or not math.isfinite(v):
        return None, "not reproduced (not finite)"
    ratio = v / p if p != 0 else None
    if kind == "factor":
        if ratio is not None and 0.8 <= ratio <= 1.25:
            return ratio, "agrees"
        return ratio, "same direction" if v > 1.0 else "differs"
    if kind == "percent":
        d = abs(v - p)
        return ratio, "agrees" if d <= 5.0 else "roughly" if d <= 15.0 else "differs"
    if kind == "upper_bound":
        return ratio, "satisfied" if v < p else "not satisfied"
    if kind == "lower_bound":
        return ratio, "satisfied" if v > p else "not satisfied"
    if kind == "approx":
        return ratio, "agrees" if ratio is not None and 0.5 <= ratio <= 2.0 else "differs"
    raise ValueError(f"unknown kind {kind!r}")


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if not math.isfinite(x):
            return "nan"
        return f"{x:.3g}"
    return str(x)


def _paper_text(h: Headline) -> str:
    if h.kind == "upper_bound":
        return f"< {_fmt(h.paper)}"
    if h.kind == "lower_bound":
        return f"> {_fmt(h.paper)}"
    if h.kind == "approx":
        return f"about {_fmt(h.paper)}"
    return _fmt(h.paper)


def build_comparison(results: Mapping[str, Mapping[str, Any]], headlines: Sequence[Headline] = HEADLINES) -> list[dict[str, Any]]:
    """One row per headline number.

    Parameters
    ----------
    results : mapping notebook stem -> results dict
        Each results dict has a ``source`` (str: "twin", "hardware", "model", or "twin+hardware")
        and the values the headlines point to.

    Returns
    -------
    list of dict
        Keys: key, quantity, joint, paper, reproduced, unit, source, ratio, agreement, rule.
    """
    rows = []
    for h in headlines:
        r = results.get(h.notebook, {})
        value = h.get(r) if r else None
        if isinstance(value, float) and not math.isfinite(value):
            value_f: Any = value
        else:
            value_f = value
        ratio, verdict = agreement(h.kind, h.paper, value_f)
        rows.append({
            "key": h.key, "quantity": h.quantity, "joint": h.joint, "paper": _paper_text(h),
            "reproduced": value_f, "unit": h.unit, "source": r.get("source", "") if r else "",
            "ratio": ratio, "agreement": verdict, "rule": h.kind,
        })
    return rows


CSV_COLUMNS = ("key", "quantity", "joint", "paper", "reproduced", "unit", "source", "ratio", "agreement", "rule")


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """CSV text (numbers with full precision, booleans as yes/no)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("yes" if r[k] is True else "no" if r[k] is False else "" if r[k] is None else
                        repr(r[k]) if isinstance(r[k], float) else r[k]) for k in CSV_COLUMNS})
    return buf.getvalue()


def to_markdown(rows: Sequence[Mapping[str, Any]], notes: Sequence[str] = ()) -> str:
    """Markdown table with the agreement rules and any notes."""
    lines = ["# Reproduced vs published headline numbers (flagship paper)", "",
             "Source: `twin` = digital twin (simulated, with its own assumed friction and drive parameters), "
             "`hardware` = measured on the robot, `model` = robot model and trajectory planner only.", "",
             "| quantity | joint | paper | reproduced | unit | source | reproduced/paper | agreement |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['quantity']} | {r['joint']} | {r['paper']} | {_fmt(r['reproduced'])} | {r['unit']} | "
                     f"{r['source']} | {_fmt(r['ratio'])} | {r['agreement']} |")
    lines += ["", "## Agreement rules", ""]
    lines += [f"- **{k}**: {v}" for k, v in AGREEMENT_RULES.items()]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["agreement"]] = counts.get(r["agreement"], 0) + 1
    lines += ["", "## Summary", "", ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + "."]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def load_results(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Results files by stem (``results/04_controller_comparison.json`` -> ``04_controller_comparison``)."""
    out = {}
    for p in paths:
        p = Path(p)
        with p.open() as fh:
            out[p.stem] = json.load(fh)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build results/paper_comparison.csv and .md from notebook results")
    ap.add_argument("--results", nargs="+", required=True, help="notebook results JSON files")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--md", required=True)
    a = ap.parse_args(argv)
    results = load_results(a.results)
    rows = build_comparison(results)
    notes = []
    for stem, r in sorted(results.items()):
        for n in r.get("notes", []):
            notes.append(f"{stem}: {n}")
    Path(a.csv).parent.mkdir(parents=True, exist_ok=True)
    Path(a.csv).write_text(to_csv(rows))
    Path(a.md).write_text(to_markdown(rows, notes))
    print(f"wrote {a.csv} and {a.md} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
