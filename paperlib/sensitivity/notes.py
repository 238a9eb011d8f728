"""Comparison-table notes from a sensitivity study's summary (any room).

:func:`headline_note` is the sentence a differing row's note gains: the assumption that moves the
number most (with its Sobol' ST and 95 % half-width, or Morris mu* for an assumption that did not
go on to Sobol'), the next one, and whether the paper's value is reached inside the stated ranges
(with the region of the two assumptions over the samples that reach it), stated beside the twin's
number and never used to change it. :func:`add_sensitivity` adds it to a table's rows.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

__all__ = ["headline_note", "add_sensitivity", "summary_lines"]


def _g(x: Any) -> str:
    if x is None:
        return "?"
    if isinstance(x, bool):
        return "yes" if x else "no"
    return f"{float(x):.3g}"


def _index_text(r: Mapping[str, Any]) -> str:
    if r["index"] == "ST":
        return f"Sobol' ST {r['value']:.2f} +/- {r['conf']:.2f}"
    return f"Morris mu* {_g(r['value'])} +/- {_g(r['conf'])}"


def headline_note(row: Mapping[str, Any], summary: Mapping[str, Any]) -> str:
    """The note of one studied headline (a row of ``summary["rows"]``).

    Parameters
    ----------
    row : mapping
        One of ``summary["rows"]`` (:func:`paperlib.sensitivity.engine.summarise`).
    summary : mapping
        The study's summary (its name, run counts, assumptions' units).

    Returns
    -------
    str
        One or two sentences, e.g. "sensitivity (study 'assumptions', 141 twin runs): moved most by
        kp_scale (Sobol' ST 0.71 +/- 0.20), then friction_scale (...); the paper's 2.44 is reached
        inside the stated ranges in 9 of 141 samples (kp_scale 0.6-0.8, ...)".
    """
    n_runs = sum(summary.get("n_runs", {}).values())
    head = f"sensitivity (study '{summary.get('study', '')}', {n_runs} twin runs)"
    rank = list(row.get("ranking") or [])
    if not rank:
        return f"{head}: no index computed (no value in the runs)"
    units = {n: a.get("unit", "") for n, a in (summary.get("assumptions") or {}).items()}
    rng = row.get("range")
    if rng and rng[0] == rng[1] and not row.get("reachable"):  # no assumption moves it: no ranking to give
        return (f"{head}: no assumption moves it inside the stated ranges (the same value, {_g(rng[0])}, in all "
                f"{row.get('n_samples')} samples); the paper's {_g(row.get('paper'))} is not reached; "
                "not used to change the twin")
    moved = f"moved most by {rank[0]['name']} ({_index_text(rank[0])})"
    if len(rank) > 1:
        moved += f", then {rank[1]['name']} ({_index_text(rank[1])})"
    paper = row.get("paper")
    twin = f"twin at the stated values {_g(row.get('twin_stated'))}"
    span = f"range over the samples {_g(rng[0])}-{_g(rng[1])}" if rng else "no value in the samples"
    if row.get("reachable"):
        region = "; ".join(f"{n} {_g(lo)}-{_g(hi)}{(' ' + units[n]) if units.get(n) not in ('', '1', None) else ''}"
                           for n, (lo, hi) in (row.get("region") or {}).items())
        reach = (f"the paper's {_g(paper)} is reached inside the stated ranges in {row['n_reaching']} of "
                 f"{row['n_samples']} samples ({region})")
    else:
        reach = f"the paper's {_g(paper)} is not reached inside the stated ranges ({span})"
    return f"{head}: {moved}; {twin}; {reach}; not used to change the twin"


def add_sensitivity(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                    agreeing: frozenset[str]) -> list[dict[str, Any]]:
    """The comparison rows with each differing studied row's note extended by :func:`headline_note`.

    Parameters
    ----------
    rows : sequence of dict
        :func:`paperlib.comparison.build_comparison` rows (``key``, ``agreement``, ``note``).
    summary : mapping
        A study's ``summary.json``.
    agreeing : frozenset of str
        Verdicts that agree (:data:`paperlib.comparison.AGREEING`): those rows are left alone.

    Returns
    -------
    list of dict
        Copies; a differing studied row also gets ``sensitivity`` (the note alone).
    """
    by_key = {r["key"]: r for r in summary.get("rows", [])}
    out = []
    for r in rows:
        d = dict(r)
        s = by_key.get(d.get("key"))
        if s is not None and d.get("agreement") not in agreeing:
            text = headline_note(s, summary)
            d["sensitivity"] = text
            d["note"] = f"{d['note']}; {text}" if d.get("note") else text
        out.append(d)
    return out


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """One line per studied headline (the command line's report)."""
    return [f"{r['key']}: {headline_note(r, summary)}" for r in summary.get("rows", [])]
