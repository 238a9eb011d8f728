"""One build of a room against another: every row of a comparison table graded by its own rule, with
the reference build's number in the place of the paper's.

A lab that rebuilds a room from its rig (``paperlib reproduce PAPER --source hardware --rig-config
RIG``) wants to know whether its numbers are the twin build's, row by row, by the same rules the
room's table applies to the paper (:data:`paperlib.comparison.AGREEMENT_RULES`). A verdict against
the paper can flip between two builds whose numbers hardly differ, when the twin build sits at the
edge of a grade; grading the rig's number against the twin's number by that grade says what
changed. The rules between builds, by the kind of row:

- ``approx``, ``factor`` and ``beyond`` (numbers): other/reference graded by
  :data:`paperlib.comparison.GRADES`; "within the rule" at the grade the kind needs
  (:data:`paperlib.comparison.NEEDS`; a number beyond the paper is held to the ``approx`` need);
- ``percent`` (shares): within 5 percentage points;
- ``upper_bound``, ``lower_bound``: both builds on the same side of the paper's bound;
- ``choice`` (discrete choices, yes/no findings): the same answer.

Command line::

    paperlib compare --reference results/rrr/paper_comparison.csv \\
        --other rig/results/rrr/paper_comparison.csv --md rrr_rig_vs_twin.md

Exit status 0 when every row is within its rule, 1 when a row is outside it or in one build only,
2 when a table cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from paperlib.comparison import NEEDS, agreement, rule_text

__all__ = ["BETWEEN_BUILDS", "read_table", "kind_of", "between_builds", "counts", "to_markdown", "add_parser", "main"]

#: The rule between two builds, by kind of row (the module's docstring says why).
BETWEEN_BUILDS: dict[str, str] = {
    "approx": f"other/reference {NEEDS['approx']} or closer",
    "factor": f"other/reference {NEEDS['factor']} or closer",
    "beyond": f"other/reference {NEEDS['approx']} or closer (held to the 'about x' need)",
    "percent": "within 5 percentage points",
    "upper_bound": "the same side of the paper's bound",
    "lower_bound": "the same side of the paper's bound",
    "choice": "the same answer",
}

#: Verdicts of :func:`between_builds`.
WITHIN, OUTSIDE, MISSING = "within the rule", "outside the rule", "missing"


def read_table(path: str | Path) -> dict[str, dict[str, str]]:
    """Read a room's ``paper_comparison.csv``: key -> row (strings as written).

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    ValueError
        The file has no ``key``, ``reproduced`` or ``rule`` column, or a key twice.
    """
    path = Path(path)
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"key", "reproduced", "rule", "paper"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: not a comparison table (no column {', '.join(sorted(missing))})")
        rows: dict[str, dict[str, str]] = {}
        for r in reader:
            if r["key"] in rows:
                raise ValueError(f"{path}: row {r['key']!r} appears twice")
            rows[r["key"]] = r
    return rows


def kind_of(row: Mapping[str, str]) -> str:
    """The row's kind of claim, from its ``rule`` cell (``"approx: within 10 % reached, ..."`` -> ``approx``)."""
    kind = row["rule"].split(":", 1)[0].strip()
    if kind not in BETWEEN_BUILDS:
        raise ValueError(f"row {row.get('key')!r}: unknown kind of rule {row['rule']!r}")
    return kind


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _paper_bound(text: str) -> float | None:
    return _number(text.lstrip("<> ").split()[0]) if text.strip() else None


def _grade_between(kind: str, ref: str, other: str, paper: str) -> tuple[float | None, str, str]:
    """(ratio other/reference or None, verdict, what was compared) of one row."""
    if kind == "choice":
        return None, WITHIN if ref == other else OUTSIDE, f"{ref} / {other}"
    r, o = _number(ref), _number(other)
    if r is None or o is None:
        return None, MISSING, "a build gives no finite number"
    ratio = o / r if r != 0 else None
    if kind == "percent":  # the room's own rule, the reference in the paper's place
        return ratio, WITHIN if agreement("percent", r, o)[1] == "agrees" else OUTSIDE, f"{abs(o - r):.3g} points apart"
    if kind in ("upper_bound", "lower_bound"):
        p = _paper_bound(paper)
        if p is None:
            return ratio, MISSING, f"no bound in the paper's cell {paper!r}"
        sides = [agreement(kind, p, v)[1] for v in (r, o)]
        return ratio, WITHIN if sides[0] == sides[1] else OUTSIDE, " / ".join(sides)
    graded = "factor" if kind == "factor" else "approx"  # a number beyond the paper is held to the 'about x' need
    reached = agreement(graded, r, o)[1].startswith("agrees")
    return ratio, WITHIN if reached else OUTSIDE, rule_text(graded, r, o).split(": ", 1)[1]


def between_builds(reference: Mapping[str, Mapping[str, str]], other: Mapping[str, Mapping[str, str]]
                   ) -> list[dict[str, Any]]:
    """Grade every row of ``other`` against the same row of ``reference`` by the row's own rule.

    Parameters
    ----------
    reference, other : mapping
        Two builds' tables of one room (:func:`read_table`), e.g. the twin build and a rig build.

    Returns
    -------
    list of dict
        One per row of either table, in the reference's order, then rows only the other has:
        ``key``, ``quantity``, ``kind``, ``paper``, ``reference``, ``other`` (the reproduced cells),
        ``ratio`` (other/reference, or None), ``between`` (:data:`WITHIN`, :data:`OUTSIDE` or
        :data:`MISSING`), ``compared`` (the grade reached, the points apart or the answers),
        ``agreement_reference`` and ``agreement_other`` (each build's verdict against the paper),
        ``verdict_kept`` (bool).

    Raises
    ------
    ValueError
        A row's kind differs between the builds, or is unknown.
    """
    out: list[dict[str, Any]] = []
    for key in list(reference) + [k for k in other if k not in reference]:
        a, b = reference.get(key), other.get(key)
        row = a if a is not None else b
        assert row is not None
        if a is None or b is None:
            out.append({"key": key, "quantity": row["quantity"], "kind": kind_of(row), "paper": row["paper"],
                        "reference": a["reproduced"] if a else "", "other": b["reproduced"] if b else "",
                        "ratio": None, "between": MISSING, "compared": "the row is in one build only",
                        "agreement_reference": a["agreement"] if a else "", "agreement_other": b["agreement"] if b else "",
                        "verdict_kept": False})
            continue
        kind = kind_of(a)
        if kind_of(b) != kind:
            raise ValueError(f"row {key!r}: kind {kind!r} in the reference build, {kind_of(b)!r} in the other")
        ratio, verdict, compared = _grade_between(kind, a["reproduced"], b["reproduced"], a["paper"])
        out.append({"key": key, "quantity": a["quantity"], "kind": kind, "paper": a["paper"],
                    "reference": a["reproduced"], "other": b["reproduced"], "ratio": ratio, "between": verdict,
                    "compared": compared, "agreement_reference": a["agreement"], "agreement_other": b["agreement"],
                    "verdict_kept": a["agreement"] == b["agreement"]})
    return out


def counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Rows by verdict between the builds, and how many kept their verdict against the paper."""
    c = {WITHIN: 0, OUTSIDE: 0, MISSING: 0}
    for r in rows:
        c[r["between"]] += 1
    c["verdict kept"] = sum(bool(r["verdict_kept"]) for r in rows)
    c["rows"] = len(rows)
    return c


def _cell(text: str) -> str:
    v = _number(text)
    return f"{v:.4g}" if v is not None else text.replace("|", "/")


def to_markdown(rows: Sequence[Mapping[str, Any]], reference_name: str = "reference", other_name: str = "other") -> str:
    """The rows as a Markdown table, with the counts and the rules above it."""
    c = counts(rows)
    lines = [f"Rows of the {other_name} graded against the {reference_name} by each row's own rule "
             f"(the {reference_name}'s number in the place of the paper's): {c[WITHIN]} of {c['rows']} within the "
             f"rule, {c[OUTSIDE]} outside, {c[MISSING]} missing; {c['verdict kept']} of {c['rows']} keep their verdict "
             "against the paper.", "",
             "Rules between builds: " + "; ".join(f"{k}: {v}" for k, v in BETWEEN_BUILDS.items()) + ".", "",
             f"| row | paper | {reference_name} | {other_name} | {other_name}/{reference_name} | between builds | "
             f"verdict against the paper, {reference_name} / {other_name} |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.4g}"
        verdict = r["between"] if r["between"] != OUTSIDE else f"**{r['between']}**"
        kept = r["agreement_reference"] if r["verdict_kept"] else f"{r['agreement_reference']} / **{r['agreement_other']}**"
        lines.append(f"| {r['key']} | {r['paper']} | {_cell(r['reference'])} | {_cell(r['other'])} | {ratio} | "
                     f"{verdict} ({r['compared']}) | {kept} |")
    return "\n".join(lines) + "\n"


def add_parser(subparsers) -> None:
    """Register ``paperlib compare``."""
    p = subparsers.add_parser("compare", help="grade one build's comparison table against another's, row by row, by each row's rule",
                              description=__doc__.split("\n\n")[0])
    _arguments(p)
    p.set_defaults(func=_run)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reference", required=True, help="the reference build's paper_comparison.csv (e.g. the twin build's)")
    p.add_argument("--other", required=True, help="the other build's paper_comparison.csv (e.g. a rig build's)")
    p.add_argument("--names", nargs=2, default=("twin build", "rig build"), metavar=("REFERENCE", "OTHER"),
                   help="what to call the two builds in the table (default: 'twin build' 'rig build')")
    p.add_argument("--md", default=None, help="write the table to this Markdown file (default: print it)")


def _run(args: argparse.Namespace) -> int:
    try:
        rows = between_builds(read_table(args.reference), read_table(args.other))
    except (OSError, ValueError) as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return 2
    md = to_markdown(rows, *args.names)
    if args.md:
        Path(args.md).write_text(md)
        c = counts(rows)
        print(f"wrote {args.md}: {c[WITHIN]} of {c['rows']} rows within the rule, {c[OUTSIDE]} outside, {c[MISSING]} missing")
    else:
        print(md, end="")
    return 1 if any(r["between"] != WITHIN for r in rows) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paperlib.comparison_builds``: the same as ``paperlib compare``."""
    p = argparse.ArgumentParser(prog="python -m paperlib.comparison_builds", description=__doc__.split("\n\n")[0])
    _arguments(p)
    return _run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
