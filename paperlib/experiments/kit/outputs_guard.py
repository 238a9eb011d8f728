"""Refuse a pipeline output made with other parameters than the pipeline's (before a comparison table).

A notebook records the parameters it ran with in its results (``provenance.parameters``) and in
its figures' sidecars (``parameters``). The pipeline passes each notebook a parameters file
(``results/<slug>/params/<nb>.yaml``, made from ``config/<slug>.yaml``); what the notebook ran
with should be those values, and the notebook's own defaults for the rest. A results file that
says otherwise was not made by the pipeline (e.g. a notebook run by hand with ``-p cutoff_hz 10``
and its outputs pointed into ``results/``), and a table made from it would publish numbers for a
configuration nobody asked for. :func:`check` finds every such parameter;
``rules/common.smk``'s comparison rule runs it first::

    python -m paperlib.experiments.kit.outputs_guard --results R.json ... --params P.yaml ... --notebooks N.ipynb ...

Results, parameters files and notebooks are paired by file stem (``01_identification.json``,
``01_identification.yaml``, ``01_identification.ipynb``). An output that records no parameters
cannot be checked and passes (the count is printed).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

__all__ = ["OutputMismatch", "notebook_defaults", "expected_parameters", "recorded_parameters", "differences",
           "check", "main"]

REPO_ROOT = Path(__file__).resolve().parents[3]


class OutputMismatch(ValueError):
    """A pipeline output records a parameter value other than the one the pipeline passes."""


def notebook_defaults(notebook: str | Path) -> dict[str, Any]:
    """Names and literal values assigned in the notebook's cell tagged ``parameters`` (empty if none)."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or "parameters" not in cell.get("metadata", {}).get("tags", []):
            continue
        src = cell.get("source", "")
        for node in ast.parse("".join(src) if isinstance(src, list) else src).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    out[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return out


def expected_parameters(notebook: str | Path, params_file: str | Path) -> dict[str, Any]:
    """What the pipeline runs the notebook with: its defaults, overridden by the parameters file."""
    passed = yaml.safe_load(Path(params_file).read_text(encoding="utf-8")) or {}
    return {**notebook_defaults(notebook), **passed}


def recorded_parameters(output: str | Path) -> dict[str, Any] | None:
    """The parameters an output JSON says it was made with (``provenance.parameters`` or ``parameters``), or None."""
    data = json.loads(Path(output).read_text(encoding="utf-8"))
    if not isinstance(data, Mapping):
        return None
    for block in (data.get("provenance"), data):
        if isinstance(block, Mapping) and isinstance(block.get("parameters"), Mapping):
            return dict(block["parameters"])
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, str) and isinstance(b, str) and a != b:
        # a path may be recorded absolute and passed relative to the repository root
        return (REPO_ROOT / a).resolve() == (REPO_ROOT / b).resolve()
    return a == b


def differences(recorded: Mapping[str, Any], expected: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any, Any]]:
    """``(name, recorded, expected)`` for every parameter both name with different values.

    Nested mappings are compared key by key (``tolerances.pi_pds``); a name only one side has is
    not a difference (a recorded value that is no notebook parameter, or one the notebook does not record).
    """
    out = []
    for k in sorted(set(recorded) & set(expected)):
        r, e = recorded[k], expected[k]
        if isinstance(r, Mapping) and isinstance(e, Mapping):
            out += differences(r, e, prefix=f"{prefix}{k}.")
        elif not _same(r, e):
            out.append((f"{prefix}{k}", r, e))
    return out


def _by_stem(paths: Iterable[str | Path], what: str) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for p in map(Path, paths):
        if p.stem in out:
            raise ValueError(f"two {what} named {p.stem}: {out[p.stem]} and {p}")
        out[p.stem] = p
    return out


def check(results: Iterable[str | Path], params: Iterable[str | Path], notebooks: Iterable[str | Path]) -> dict[str, int]:
    """Check every results file against its notebook's parameters file and defaults.

    Returns
    -------
    dict
        ``{"checked": n, "unrecorded": m}``: outputs compared, outputs that record no parameters.

    Raises
    ------
    OutputMismatch
        Some output records a parameter value other than the pipeline's; the message names every
        such parameter, both values and the files.
    ValueError
        A results file without a parameters file or notebook of the same stem.
    """
    pfiles, nbs = _by_stem(params, "parameters files"), _by_stem(notebooks, "notebooks")
    problems, counts = [], {"checked": 0, "unrecorded": 0}
    for res in map(Path, results):
        if res.stem not in pfiles or res.stem not in nbs:
            raise ValueError(f"{res}: no parameters file or notebook named {res.stem} to check it against")
        recorded = recorded_parameters(res)
        if recorded is None:
            counts["unrecorded"] += 1
            continue
        counts["checked"] += 1
        for name, r, e in differences(recorded, expected_parameters(nbs[res.stem], pfiles[res.stem])):
            problems.append(f"{res}: made with {name} = {r!r}, but the pipeline runs {nbs[res.stem]} with "
                            f"{name} = {e!r} ({pfiles[res.stem]}, from the configuration)")
    if problems:
        raise OutputMismatch(
            "refusing to build the comparison table from outputs the pipeline did not make:\n  "
            + "\n  ".join(problems)
            + "\n(a notebook run by hand with other parameters wrote into the pipeline's folders? delete those files,"
              " or rerun with --forceall, and the pipeline makes them again)")
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.kit.outputs_guard",
                                 description="refuse notebook results made with other parameters than the pipeline's")
    ap.add_argument("--results", nargs="+", required=True, help="results JSON files of the notebooks")
    ap.add_argument("--params", nargs="+", required=True, help="the parameters files the pipeline passed them")
    ap.add_argument("--notebooks", nargs="+", required=True, help="the notebooks (for their default parameters)")
    a = ap.parse_args(argv)
    try:
        counts = check(a.results, a.params, a.notebooks)
    except (ValueError, OSError) as exc:
        print(f"outputs guard: {exc}", file=sys.stderr)
        return 1
    print(f"outputs guard: {counts['checked']} results match the pipeline's parameters"
          + (f"; {counts['unrecorded']} record no parameters (not checked)" if counts["unrecorded"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
