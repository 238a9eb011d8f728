"""Reproduced numbers beside the published ones: the comparison table of every paper.

Each paper's room lists its headline numbers as :class:`Headline` rows
(``paperlib/experiments/<slug>/comparison.py``, ``HEADLINES``); this module turns the notebooks'
results into ``results/<slug>/paper_comparison.{csv,md}`` by fixed agreement rules
(:data:`AGREEMENT_RULES`) and builds the index of all papers, ``results/paper_comparison.md``.
Nothing is adjusted to agree: where a reproduction differs, both values stand side by side.

Numbers the paper gives as "about x", and improvement factors, are graded by reproduced/paper
(:data:`GRADES`: within 10 %, within 25 %, within a factor 1.5, within a factor 2, else "differs");
they agree only at the grade their kind needs (:data:`NEEDS`), and each row's ``rule`` says the grade
reached and the grade needed. A row the grading moved off "agrees" (it agreed under the old
factor-2 rule) is marked "re-graded" and must carry its room's reason (:func:`unexplained`).

Each row carries the ``source`` of the data the reproduced value comes from (``twin``,
``hardware``, or ``model`` for values computed from a robot model alone).

Command line (used by the rules)::

    python -m paperlib.comparison --paper SLUG --results results/SLUG/0*.json \
        --csv results/SLUG/paper_comparison.csv --md results/SLUG/paper_comparison.md
    python -m paperlib.comparison index --results-root results --md results/paper_comparison.md
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

__all__ = ["Headline", "AGREEMENT_RULES", "AGREEING", "GRADES", "NEEDS", "grade", "rule_text", "old_agreement",
           "regraded", "unexplained", "dig", "agreement", "build_comparison", "add_sweep", "to_csv", "to_markdown",
           "load_results", "headlines_of", "write_index", "main"]

#: Closeness grades of a numeric comparison, tightest first: (name, f). A grade is reached when
#: 1/f <= reproduced/paper <= f (symmetric in the ratio: "within 10 %" is [1/1.1, 1.1] = [0.909, 1.1]).
#: A ratio beyond the loosest grade, or of the opposite sign, is "differs".
GRADES: tuple[tuple[str, float], ...] = (
    ("within 10 %", 1.10),
    ("within 25 %", 1.25),
    ("within a factor 1.5", 1.5),
    ("within a factor 2", 2.0),
)

#: The grade each graded kind needs for its verdict to count as agreeing. An "about x" of a paper is
#: read as within 25 %; before issue 27 the ``approx`` rule accepted a factor 2 (:data:`OLD_APPROX_FACTOR`).
NEEDS: dict[str, str] = {"approx": "within 25 %", "factor": "within 25 %"}

#: The ``approx`` rule before issue 27 ('agrees' when reproduced/paper was in [1/2, 2]); kept to flag re-graded rows.
OLD_APPROX_FACTOR = 2.0

_GRADE_F = dict(GRADES)
_AGREEING_GRADES = tuple(g for g, f in GRADES if f <= max(_GRADE_F[n] for n in NEEDS.values()))

#: Verdicts that need no explanation (any other verdict, and every calibrated row, carries a note).
#: A graded row agrees when it reaches the grade its kind needs (:data:`NEEDS`): "agrees (within 10 %)"
#: or "agrees (within 25 %)"; "within a factor 1.5 only" and "within a factor 2 only" do not agree.
#: Plain "agrees" is kept for tables built before the grading.
AGREEING = frozenset({"agrees", "same", "satisfied", "beyond the paper"} | {f"agrees ({g})" for g in _AGREEING_GRADES})


def _band_text(g: str) -> str:
    f = _GRADE_F[g]
    return f"{g} ([{1 / f:.3g}, {f:g}])"


#: How the verdict is reached, by kind of claim.
AGREEMENT_RULES: dict[str, str] = {
    "factor": "improvement factor: graded by reproduced/paper; 'agrees (grade)' if it is "
              f"{_band_text(NEEDS['factor'])} or closer; 'same direction' if the reproduced factor is > 1 (an "
              "improvement) but farther; otherwise 'differs'",
    "percent": "share: 'agrees' if within 5 percentage points; 'roughly' if within 15; otherwise 'differs'",
    "upper_bound": "the paper gives an upper bound ('< x'): 'satisfied' or 'not satisfied'",
    "approx": "the paper gives an approximate value ('about x'): graded by reproduced/paper; 'agrees (grade)' "
              f"if it is {_band_text(NEEDS['approx'])} or closer; '<grade> only' if it is within a looser grade "
              "(not agreeing: the row says why); 'differs' beyond a factor 2 or of the opposite sign. Before "
              "issue 27 this rule said 'agrees' anywhere within a factor 2",
    "lower_bound": "the paper gives a lower bound ('> x'): 'satisfied' or 'not satisfied'",
    "choice": "a discrete choice or a yes/no finding: 'same' or 'differs'",
    "beyond": "a study beyond the paper (no published value): the number is reported, not judged ('beyond the paper')",
}


def grade(ratio: float | None) -> str:
    """The tightest grade of :data:`GRADES` that ``ratio`` (reproduced/paper) reaches, else "differs".

    Parameters
    ----------
    ratio : float or None
        reproduced / paper (dimensionless); None when the paper's value is 0.

    Returns
    -------
    str
        A grade name ("within 10 %", ..., "within a factor 2") or "differs" (beyond the loosest grade,
        opposite sign, zero, None or not finite).
    """
    if ratio is None or not math.isfinite(ratio) or ratio <= 0.0:
        return "differs"
    spread = max(ratio, 1.0 / ratio)
    for name, f in GRADES:
        if spread <= f * (1.0 + 1e-12):
            return name
    return "differs"


def _tighter_or_same(g: str, need: str) -> bool:
    return g in _GRADE_F and _GRADE_F[g] <= _GRADE_F[need]


def rule_text(kind: str, paper: Any, value: Any) -> str:
    """The ``rule`` cell of a row: the kind, and for a graded kind the grade reached and the grade needed.

    E.g. ``"approx: within a factor 2 reached, needs within 25 %"``; for ``percent`` the distance in
    percentage points; other kinds give their name only.
    """
    v, p = _num(value), _num(paper)
    if kind in NEEDS:
        if v is None or p is None or not math.isfinite(v) or p == 0:
            return f"{kind}: needs {NEEDS[kind]}"
        g = grade(v / p)
        return f"{kind}: {'beyond a factor 2' if g == 'differs' else g + ' reached'}, needs {NEEDS[kind]}"
    if kind == "percent" and v is not None and p is not None and math.isfinite(v):
        return f"percent: {abs(v - p):.3g} points off, agrees within 5, roughly within 15"
    return kind


def old_agreement(kind: str, paper: Any, value: Any) -> tuple[float | None, str]:
    """The verdict under the rules before issue 27 (``approx``: 'agrees' within a factor 2; ``factor``:
    'agrees' in [0.8, 1.25]); used only to flag rows whose verdict the grading changed."""
    ratio, verdict = agreement(kind, paper, value)
    if kind in NEEDS and verdict not in ("not reproduced", "not reproduced (not finite)"):
        inside = ratio is not None and 1.0 / OLD_APPROX_FACTOR <= ratio <= OLD_APPROX_FACTOR if kind == "approx" \
            else ratio is not None and 0.8 <= ratio <= 1.25
        if inside:
            return ratio, "agrees"
        if kind == "approx":
            return ratio, "differs"
        return ratio, "same direction" if _num(value) is not None and _num(value) > 1.0 else "differs"
    return ratio, verdict


def regraded(kind: str, paper: Any, value: Any) -> str:
    """'' when the grading leaves the row on the same side of agreeing; else the old verdict and the new
    grade in words (the start of the row's note)."""
    _, new = agreement(kind, paper, value)
    _, old = old_agreement(kind, paper, value)
    if (new in AGREEING) == (old in AGREEING):
        return ""
    ratio = _num(value) / _num(paper)  # both numeric: a graded kind that was reproduced
    return (f"re-graded: was '{old}' under the old rule (factor {OLD_APPROX_FACTOR:g}), now '{new}' "
            f"(reproduced/paper {ratio:.3g}; needs {NEEDS[kind]})")


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
    note : str
        Why the reproduction differs, or that it agrees by construction (one sentence).
    calibrated : bool
        The reproduction was calibrated to the paper by construction: the note is always shown.
    """

    key: str
    quantity: str
    joint: str
    paper: Any
    kind: str
    unit: str
    notebook: str
    get: Callable[[Mapping[str, Any]], Any]
    note: str = ""
    calibrated: bool = False


def dig(*path: Any) -> Callable[[Mapping[str, Any]], Any]:
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
    if kind == "beyond":
        return None, "beyond the paper"
    v, p = _num(value), _num(paper)
    if v is None or p is None or not math.isfinite(v):
        return None, "not reproduced (not finite)"
    ratio = v / p if p != 0 else None
    if kind == "factor":
        g = grade(ratio)
        if _tighter_or_same(g, NEEDS["factor"]):
            return ratio, f"agrees ({g})"
        return ratio, "same direction" if v > 1.0 else "differs"
    if kind == "percent":
        d = abs(v - p)
        return ratio, "agrees" if d <= 5.0 else "roughly" if d <= 15.0 else "differs"
    if kind == "upper_bound":
        return ratio, "satisfied" if v < p else "not satisfied"
    if kind == "lower_bound":
        return ratio, "satisfied" if v > p else "not satisfied"
    if kind == "approx":
        g = grade(ratio)
        if _tighter_or_same(g, NEEDS["approx"]):
            return ratio, f"agrees ({g})"
        return ratio, "differs" if g == "differs" else f"{g} only"
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


def build_comparison(results: Mapping[str, Mapping[str, Any]], headlines: Sequence[Headline]) -> list[dict[str, Any]]:
    """One row per headline number.

    Parameters
    ----------
    results : mapping notebook stem -> results dict
        Each results dict has a ``source`` (str: "twin", "hardware", "model", or "twin+hardware")
        and the values the headlines point to.

    Returns
    -------
    list of dict
        Keys: key, quantity, joint, paper, reproduced, unit, source, ratio, agreement, rule (the kind,
        and for a graded kind the grade reached and the grade needed: :func:`rule_text`), note (why it
        differs or is calibrated; "unknown" when the room gives no reason; a row whose verdict the
        grading changed starts with "re-graded: ..."), grade (:data:`GRADES` reached, graded kinds
        only), needs (:data:`NEEDS`), old_agreement (the verdict under the rules before issue 27).
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
        note = (h.note or "unknown") if (h.calibrated or verdict not in AGREEING) else ""
        change = regraded(h.kind, h.paper, value_f)
        if change:
            note = f"{change}; {h.note or 'unknown'}"
        rows.append({
            "key": h.key, "quantity": h.quantity, "joint": h.joint, "paper": _paper_text(h),
            "reproduced": value_f, "unit": h.unit, "source": r.get("source", "") if r else "",
            "ratio": ratio, "agreement": verdict, "rule": rule_text(h.kind, h.paper, value_f), "note": note,
            "grade": grade(ratio) if h.kind in NEEDS and ratio is not None else "",
            "needs": NEEDS.get(h.kind, ""), "old_agreement": old_agreement(h.kind, h.paper, value_f)[1],
        })
    return rows


def unexplained(rows: Sequence[Mapping[str, Any]], headlines: Sequence[Headline]) -> list[str]:
    """Rows that need a note of their room's and have none: "key (verdict)".

    A row needs one when it does not agree (:data:`AGREEING`), when it is calibrated, and when the
    grading changed its verdict (its ``old_agreement`` agreed, its verdict does not: the key is listed
    as "key (re-graded: old -> new)"). A note of just "unknown" counts as none.
    """
    by_key = {h.key: h for h in headlines}
    out = []
    for r in rows:
        h = by_key[r["key"]]
        if h.note.strip() not in ("", "unknown"):
            continue
        old = r.get("old_agreement", r["agreement"])
        if old in AGREEING and r["agreement"] not in AGREEING:
            out.append(f"{r['key']} (re-graded: {old} -> {r['agreement']})")
        elif h.calibrated or r["agreement"] not in AGREEING:
            out.append(f"{r['key']} ({r['agreement']})")
    return out


#: The note says why a row differs (or how it was calibrated); empty where the row agrees.
CSV_COLUMNS = ("key", "quantity", "joint", "paper", "reproduced", "unit", "source", "ratio", "agreement", "rule", "note",
               "grade", "needs", "old_agreement")

#: Columns added by :func:`add_sweep` (distribution over a sweep's seeds, ``paperlib sweep``).
SWEEP_COLUMNS = ("sweep_median", "sweep_p5", "sweep_p95", "sweep_n", "sweep_agree_fraction")


def add_sweep(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], combo: str = "base") -> list[dict[str, Any]]:
    """The rows with the distribution over a sweep's seeds beside the single run's number.

    Parameters
    ----------
    rows : sequence of dict
        From :func:`build_comparison`.
    summary : mapping
        A sweep's ``summary.json`` (:mod:`paperlib.sweeps.aggregate`): ``rows`` with ``key``,
        ``combo``, ``median``, ``p5``, ``p95``, ``n``, ``agree_fraction``, ``mean``.
    combo : str
        Which factor combination (``base`` for a sweep without factors).

    Returns
    -------
    list of dict
        Each row with :data:`SWEEP_COLUMNS` (None where the sweep has no value) and ``sweep``
        (the sweep's name); yes/no rows carry the share of seeds answering yes as the median.
    """
    by_key = {r["key"]: r for r in summary.get("rows", []) if r.get("combo") == combo}
    out = []
    for r in rows:
        d = dict(r)
        s = by_key.get(r["key"])
        d["sweep"] = summary.get("sweep", "")
        if s is None:
            d.update({k: None for k in SWEEP_COLUMNS})
        elif isinstance(s.get("paper_value"), bool):
            d.update({"sweep_median": s["mean"], "sweep_p5": None, "sweep_p95": None, "sweep_n": s["n"],
                      "sweep_agree_fraction": s["agree_fraction"], "sweep_yes_share": True})
        else:
            d.update({"sweep_median": s["median"], "sweep_p5": s["p5"], "sweep_p95": s["p95"], "sweep_n": s["n"],
                      "sweep_agree_fraction": s["agree_fraction"]})
        out.append(d)
    return out


#: Columns added by :func:`add_calibrated` (the same row on a twin calibrated to a published quantity).
CALIBRATED_COLUMNS = ("calibrated", "calibrated_agreement")


def add_calibrated(rows: Sequence[Mapping[str, Any]], results: Mapping[str, Mapping[str, Any]],
                   headlines: Sequence[Headline]) -> list[dict[str, Any]]:
    """The rows with the same numbers on a calibrated twin beside them, where a room computed them.

    A room whose twin can be calibrated to a published quantity, but does not adopt the
    calibration, computes its headline numbers on the calibrated twin too (issue 28; e.g. the
    flagship's notebook ``07_calibrated_twin``). That notebook's results carry a block
    ``calibrated_twin`` with ``results`` (notebook stem -> numbers, in the shape that notebook writes
    them, so each row reads them by its own path), ``calibrated_to`` (the keys of the rows the
    calibration was solved to meet) and ``label`` (what the calibrated twin is).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`build_comparison` (and :func:`add_sweep`).
    results : mapping notebook stem -> results dict
        The room's results; at most one holds a ``calibrated_twin`` block.
    headlines : sequence of Headline

    Returns
    -------
    list of dict
        The rows unchanged when no result has the block; otherwise each with
        :data:`CALIBRATED_COLUMNS` (None and "" where the calibrated twin has no number) and
        ``calibrated_label``. A target row's verdict reads "calibrated to it (...)": it is not evidence.

    Raises
    ------
    ValueError
        More than one result carries a ``calibrated_twin`` block, or the block has no ``results``.
    """
    blocks = [(stem, r["calibrated_twin"]) for stem, r in results.items() if isinstance(r.get("calibrated_twin"), Mapping)]
    if not blocks:
        return [dict(r) for r in rows]
    if len(blocks) > 1:
        raise ValueError(f"more than one calibrated twin in the results: {sorted(stem for stem, _ in blocks)}")
    stem, block = blocks[0]
    if not isinstance(block.get("results"), Mapping):
        raise ValueError(f"{stem}: the calibrated_twin block has no 'results' (notebook stem -> numbers)")
    cal = {r["key"]: r for r in build_comparison(block["results"], headlines)}
    targets = set(block.get("calibrated_to", ()))
    out = []
    for r in rows:
        d = dict(r)
        c = cal.get(r["key"])
        if c is None or c["reproduced"] is None:
            d.update({"calibrated": None, "calibrated_agreement": ""})
        else:
            verdict = f"calibrated to it ({c['agreement']})" if r["key"] in targets else c["agreement"]
            d.update({"calibrated": c["reproduced"], "calibrated_agreement": verdict})
        d["calibrated_label"] = str(block.get("label", "calibrated twin"))
        d["calibrated_notebook"] = stem
        out.append(d)
    return out


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """CSV text (numbers with full precision, booleans as yes/no; sweep and calibrated columns when present)."""
    cols = CSV_COLUMNS + (SWEEP_COLUMNS if any("sweep_n" in r for r in rows) else ()) + \
        (CALIBRATED_COLUMNS if any("calibrated_agreement" in r for r in rows) else ())
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("yes" if r[k] is True else "no" if r[k] is False else "" if r[k] is None else
                        repr(r[k]) if isinstance(r[k], float) else r[k]) for k in cols})
    return buf.getvalue()


def _sweep_cell(r: Mapping[str, Any]) -> tuple[str, str]:
    if r.get("sweep_n") in (None, 0):
        return "", ""
    agree = r.get("sweep_agree_fraction")
    agree_s = f"{100 * agree:.0f} % of {r['sweep_n']}" if isinstance(agree, float) and math.isfinite(agree) else ""
    if r.get("sweep_yes_share"):
        return f"yes in {100 * r['sweep_median']:.0f} %", agree_s
    return f"{_fmt(r['sweep_median'])} [{_fmt(r['sweep_p5'])}, {_fmt(r['sweep_p95'])}]", agree_s


#: The Markdown table's statement of the grading (before the table).
_GRADING_PREAMBLE = (
    "Agreement is graded, not one wide 'agrees': a number the paper gives as 'about x', and an improvement "
    "factor, is graded by reproduced/paper: " + "; ".join(_band_text(g) for g, _ in GRADES) + "; beyond a "
    "factor 2 (or of the opposite sign) it 'differs'. A row agrees only when it reaches "
    + " / ".join(sorted(set(NEEDS.values()))) + " ('agrees (within 10 %)', 'agrees (within 25 %)'); "
    "'within a factor 1.5 only' and 'within a factor 2 only' do not agree, and say why in the note. The "
    "'rule' column gives each row's kind, the grade reached and the grade it needs. Rows marked 're-graded' "
    f"agreed under the rule before issue 27 ('about x' agreed anywhere within a factor {OLD_APPROX_FACTOR:g}).")


def to_markdown(rows: Sequence[Mapping[str, Any]], notes: Sequence[str] = (),
                title: str = "Reproduced vs published headline numbers") -> str:
    """Markdown table with the agreement rules and any notes (and a sweep's columns, :func:`add_sweep`, and a
    calibrated twin's, :func:`add_calibrated`)."""
    sweep = any("sweep_n" in r for r in rows)
    cal = any("calibrated_agreement" in r for r in rows)
    lines = [f"# {title}", "",
             "Source: `twin` = digital twin (simulated, with its own assumed friction and drive parameters), "
             "`hardware` = measured on the robot, `model` = robot model and trajectory planner only.", "",
             _GRADING_PREAMBLE, ""]
    head = ["quantity", "joint", "paper", "reproduced"]
    if sweep:
        lines += [f"'reproduced' is the single run's number; 'over seeds' the median [5 %, 95 %] of sweep "
                  f"`{rows[0].get('sweep', '')}` (`paperlib sweep`; twin runs with other seeds, their lengths "
                  "in the sweep's summary), 'seeds agreeing' the share of seeds whose own value passes the rule.", ""]
        head += ["over seeds", "seeds agreeing"]
    head += ["unit", "source", "reproduced/paper", "agreement"]
    if cal:
        lines += [f"'calibrated twin' is the same number on the {rows[0].get('calibrated_label', 'calibrated twin')} "
                  f"(notebook `{rows[0].get('calibrated_notebook', '')}`: the same runs on the twin whose unpublished "
                  "parameters were calibrated to a published quantity by a stated rule), graded by the same rule. Rows "
                  "whose verdict reads 'calibrated to it' are the rule's targets: they agree by construction and are "
                  "not evidence. 'reproduced' stays the stated twin's (the notes say why it does not adopt the "
                  "calibration).", ""]
        head += ["calibrated twin", "agreement (calibrated twin)"]
    head += ["rule", "note"]
    lines += ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        seeds = "{} | {} | ".format(*_sweep_cell(r)) if sweep else ""
        calc = f"{_fmt(r['calibrated']) if r.get('calibrated') is not None else ''} | {r.get('calibrated_agreement', '')} | " \
            if cal else ""
        lines.append(f"| {r['quantity']} | {r['joint']} | {r['paper']} | {_fmt(r['reproduced'])} | {seeds}{r['unit']} | "
                     f"{r['source']} | {_fmt(r['ratio'])} | {r['agreement']} | {calc}{r.get('rule', '')} | "
                     f"{r.get('note', '')} |")
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


def headlines_of(paper: str) -> tuple[list[Headline], str]:
    """The rows and the table title of a paper's room (``paperlib.experiments.<paper>.comparison``)."""
    import importlib

    from paperlib.experiments.kit import registry

    registry.room(paper)  # a registered room (also one found through PAPERLIB_ROOMS_PATH)
    mod = importlib.import_module(f"paperlib.experiments.{paper}.comparison")
    return list(mod.HEADLINES), getattr(mod, "TITLE", f"Reproduced vs published headline numbers ({paper})")


def _counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["agreement"]] = counts.get(r["agreement"], 0) + 1
    return counts


def write_index(results_root: str | Path, md: str | Path) -> str:
    """``results/paper_comparison.md``: one line per paper, its table and its agreement counts.

    Every registered room is listed (:func:`paperlib.experiments.papers`, in registry order);
    papers whose table has not been built are listed with their status.
    """
    from paperlib.experiments import papers

    root = Path(results_root)
    lines = ["# Reproduced vs published: all papers", "",
             "Each paper's own table lists every headline number beside the published one, with the data source "
             "(twin = simulated, hardware = measured, model = robot model only) and the rule that judged it.", "",
             "| paper | slug | status | table | rows | agreement |", "| --- | --- | --- | --- | --- | --- |"]
    for p in papers():
        csv_path = root / p["slug"] / "paper_comparison.csv"
        if csv_path.exists():
            with csv_path.open() as fh:
                rows = list(csv.DictReader(fh))
            counts = ", ".join(f"{v} {k}" for k, v in sorted(_counts(rows).items()))
            table = f"[{p['slug']}/paper_comparison.md]({p['slug']}/paper_comparison.md)"
            n = str(len(rows))
        else:
            counts, table, n = "not built", "-", "-"
        lines.append(f"| {p['title']} | `{p['slug']}` | {p['status']} | {table} | {n} | {counts} |")
    text = "\n".join(lines) + "\n"
    Path(md).parent.mkdir(parents=True, exist_ok=True)
    Path(md).write_text(text)
    return text


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["index"]:
        ap = argparse.ArgumentParser(prog="python -m paperlib.comparison index",
                                     description="Build the index of all papers' comparison tables")
        ap.add_argument("--results-root", default="results", help="folder holding results/<slug>/")
        ap.add_argument("--md", required=True, help="index file to write")
        a = ap.parse_args(argv[1:])
        write_index(a.results_root, a.md)
        print(f"wrote {a.md}")
        return 0
    ap = argparse.ArgumentParser(prog="python -m paperlib.comparison",
                                 description="Build a paper's comparison table (CSV + Markdown) from its notebooks' results")
    ap.add_argument("--paper", required=True, help="paper slug (its room lists the rows)")
    ap.add_argument("--results", nargs="+", required=True, help="notebook results JSON files")
    ap.add_argument("--csv", required=True, help="CSV file to write")
    ap.add_argument("--md", required=True, help="Markdown file to write")
    ap.add_argument("--sweep", default=None,
                    help="a sweep's summary.json (paperlib sweep): adds the median and 5-95 %% interval over its seeds")
    ap.add_argument("--sensitivity", default=None,
                    help="a sensitivity study's summary.json (paperlib sensitivity): a differing studied row's note "
                         "names the assumption that moves it most and whether the paper's value is reachable")
    a = ap.parse_args(argv)
    headlines, title = headlines_of(a.paper)
    results = load_results(a.results)
    rows = build_comparison(results, headlines)
    for path, what in ((a.sweep, "sweep"), (a.sensitivity, "sensitivity")):
        if not path:
            continue
        try:
            summary = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            print(f"comparison: cannot read the {what} summary {path}: {exc}", file=sys.stderr)
            return 2
        if what == "sweep":
            rows = add_sweep(rows, summary)
        else:
            from paperlib.sensitivity.notes import add_sensitivity

            rows = add_sensitivity(rows, summary, AGREEING)
    try:
        rows = add_calibrated(rows, results, headlines)
    except ValueError as exc:
        print(f"comparison: {exc}", file=sys.stderr)
        return 2
    notes = []
    for stem, r in sorted(results.items()):
        for n in r.get("notes", []):
            notes.append(f"{stem}: {n}")
    Path(a.csv).parent.mkdir(parents=True, exist_ok=True)
    Path(a.csv).write_text(to_csv(rows))
    Path(a.md).write_text(to_markdown(rows, notes, title=title))
    print(f"wrote {a.csv} and {a.md} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
