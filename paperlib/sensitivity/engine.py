"""Run a sensitivity study in two stages on the sweep engine and write its summary.

Stage 1 (``morris``): the Morris sample of every studied assumption, plus one point at the stated
values (the twin as its files say), written as a sweep file of explicit points
(``<out>/morris.sweep.yaml``) and run by ``paperlib sweep``'s machinery (Snakemake: local cores
or a SLURM profile; a rerun runs only the points without a result). Stage 2 (``sobol``): the
Saltelli sample of the ``top_k`` assumptions by Morris' mu* (:func:`~paperlib.sensitivity.analysis.rank_assumptions`),
the others at their stated values. Both samples are fixed by the study's seeds, so a rerun asks
for the same points.

``summary.json`` holds no time, host or path beyond the study's own: the same runs give the same
bytes. The stages' wall time and runs per minute go to ``timing.json`` beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import yaml

from paperlib.sensitivity import analysis as an
from paperlib.sensitivity.reach import agrees, reachability
from paperlib.sensitivity.study import Study, runner_module

__all__ = ["stage_points", "write_stage_sweep", "run_stage", "stage_values", "summarise", "run_study"]


def _sweep_doc(study: Study, stage: str, points: Sequence[Mapping[str, float]]) -> dict[str, Any]:
    res = {"mem_mb": 2000, "runtime_min": 10, "cpus": 1, **study.resources, "seeds_per_job": len(study.seeds)}
    return {"name": study.sweep_name(stage), "paper": study.paper, "seeds": list(study.seeds),
            "description": f"sensitivity study '{study.name}', stage {stage} ({study.path})",
            "points": [dict(p) for p in points], "settings": dict(study.settings), "resources": res,
            "slurm": {"partition": None, "account": None, **study.slurm}}


def write_stage_sweep(study: Study, stage: str, points: Sequence[Mapping[str, float]], results: str = "results") -> Path:
    """Write a stage's sweep file of explicit points (``<out>/<stage>.sweep.yaml``); returns its path."""
    path = Path(study.out_dir(results)) / f"{stage}.sweep.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(_sweep_doc(study, stage, points), sort_keys=False)
    if not path.is_file() or path.read_text() != text:  # unchanged file: Snakemake sees nothing new
        path.write_text(text)
    return path


def stage_points(study: Study, stage: str, top: Sequence[str] = ()) -> tuple[dict[str, Any], np.ndarray, list[dict[str, float]]]:
    """(SALib problem, sample in sampling space, points as factor dicts) of a stage.

    ``morris``: every studied assumption, the stated twin appended as the last point (``{}``);
    ``sobol``: the assumptions ``top``.
    """
    assumptions = runner_module(study.paper).ASSUMPTIONS
    if stage == "morris":
        prob = an.problem(study.assumptions, assumptions)
        X = an.morris_sample(prob, study.morris["trajectories"], study.morris["levels"], study.morris["seed"])
        return prob, X, an.to_values(X, study.assumptions, assumptions) + [{}]
    if stage == "sobol":
        prob = an.problem(list(top), assumptions)
        X = an.sobol_sample(prob, study.sobol["base_n"], study.sobol["seed"])
        return prob, X, an.to_values(X, list(top), assumptions)
    raise ValueError(f"unknown stage {stage!r} (morris or sobol)")


def run_stage(sweep_file: Path, args: argparse.Namespace) -> int:
    """Run a stage's sweep (its jobs only) through ``paperlib sweep``'s machinery; Snakemake's exit code."""
    from paperlib.sweeps import cli as sweep_cli

    ns = argparse.Namespace(sweep_file=str(sweep_file.resolve()), cores=args.cores, profile=args.profile,
                            partition=args.partition, account=args.account, jobs=args.jobs,
                            results_dir=args.results_dir, figures_dir=args.figures_dir, dry_run=args.dry_run,
                            no_progress=args.no_progress, runs_only=True, unlock=args.unlock)
    return sweep_cli.run(ns)


def _number(v: Any) -> float:
    if v is None:
        return float("nan")
    try:
        x = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return x if math.isfinite(x) else float("nan")


def stage_values(sweep_file: Path, headlines: Sequence[str], results: str = "results") -> dict[str, np.ndarray]:
    """Headline key -> value at every point of a stage (mean over the study's seeds; NaN: no value)."""
    from paperlib.sweeps.config import load_sweep

    sw = load_sweep(sweep_file)
    out = {h: np.full(len(sw.combos), np.nan) for h in headlines}
    for i, (combo, factors) in enumerate(sw.combos.items()):
        runs = [json.loads(Path(sw.run_file(combo, s, results)).read_text()) for s in sw.seeds]
        for s, r in zip(sw.seeds, runs):  # a result of another design under the same point name is never read
            if {k: float(v) for k, v in r.get("factors", {}).items()} != {k: float(v) for k, v in factors.items()}:
                raise RuntimeError(f"{sw.run_file(combo, s, results)}: made with factors {r.get('factors')}, not this "
                                   f"stage's point {dict(factors)}; rerun the study (its sweep reruns changed points)")
        for h in headlines:
            vals = [_number(r["values"].get(h)) for r in runs]
            out[h][i] = float(np.mean(vals)) if all(math.isfinite(v) for v in vals) else float("nan")
    return out


def _top(morris: Mapping[str, Any], sobol: Mapping[str, Any] | None) -> list[tuple[str, str, float, float]]:
    """(name, index, value, conf) of the assumptions in order of influence.

    Sobol' ST (of the assumptions that went on to stage 2) when computed and the headline's
    largest-mu* assumption is among them; else Morris mu* of every screened assumption (so an
    assumption left out of stage 2 is never hidden behind the ones that were not).
    """
    mrows = [(n, "mu_star", m, c) for n, m, c in zip(morris["names"], morris["mu_star"], morris["mu_star_conf"])
             if m is not None]
    mrows.sort(key=lambda r: -r[2])
    if sobol and sobol.get("ST") and sobol["ST"][0] is not None and (not mrows or mrows[0][0] in sobol["names"]):
        rows = [(n, "ST", st, c) for n, st, c in zip(sobol["names"], sobol["ST"], sobol["ST_conf"])]
        return sorted(rows, key=lambda r: -r[2])
    return mrows


def summarise(study: Study, morris_vals: Mapping[str, np.ndarray], morris_points: Sequence[Mapping[str, float]],
              morris_X: np.ndarray, morris_prob: Mapping[str, Any], top: Sequence[str],
              sobol_vals: Mapping[str, np.ndarray] | None, sobol_points: Sequence[Mapping[str, float]],
              sobol_prob: Mapping[str, Any] | None) -> dict[str, Any]:
    """The study's summary dict (module docstring; written as ``summary.json``)."""
    from paperlib import provenance

    mod = runner_module(study.paper)
    assumptions = mod.ASSUMPTIONS
    baseline = {n: float(a.baseline) for n, a in assumptions.items()}
    heads = {h.key: h for h in mod.headlines()}
    rows = []
    for key in study.headlines:
        h = heads[key]
        ym = np.asarray(morris_vals[key], float)
        mo = an.morris_indices(morris_prob, morris_X, ym[:-1], study.morris["levels"], study.morris["seed"])
        so = None
        if sobol_vals is not None and sobol_prob is not None:
            so = an.sobol_indices(sobol_prob, np.asarray(sobol_vals[key], float), seed=study.sobol["seed"])
        ranked = _top(mo, so)
        top2 = [r[0] for r in ranked[:2]]
        values = list(ym) + (list(sobol_vals[key]) if sobol_vals is not None else [])
        points = list(morris_points) + list(sobol_points)
        finite = [v for v in values if math.isfinite(v)]
        paper = h.paper if isinstance(h.paper, (bool, int, float)) else None
        rows.append({"key": key, "quantity": h.quantity, "joint": h.joint, "unit": h.unit, "kind": h.kind,
                     "paper": paper, "twin_stated": None if not math.isfinite(ym[-1]) else float(ym[-1]),
                     "agrees_stated": agrees(h.kind, h.paper, float(ym[-1])),
                     "range": [min(finite), max(finite)] if finite else None,
                     "morris": mo, "sobol": so,
                     "ranking": [{"name": n, "index": i, "value": v, "conf": c} for n, i, v, c in ranked],
                     **reachability(values, points, h, top2, baseline)})
    return {"schema": "paperlib.sensitivity/1", "study": study.name, "paper": study.paper,
            "study_file": str(study.path), "description": study.description, "seeds": study.seeds,
            "settings": study.settings, "morris_config": study.morris, "sobol_config": study.sobol,
            "assumptions": {n: {"baseline": a.baseline, "low": a.low, "high": a.high, "unit": a.unit, "log": a.log,
                                "meaning": a.meaning, "reason": a.reason} for n, a in assumptions.items()
                            if n in study.assumptions},
            "top": list(top), "n_runs": {"morris": len(morris_points) * len(study.seeds),
                                         "sobol": len(sobol_points) * len(study.seeds)},
            "samples": {"morris": [dict(p) for p in morris_points], "sobol": [dict(p) for p in sobol_points],
                        "values_morris": {k: [_json_num(v) for v in morris_vals[k]] for k in study.headlines},
                        "values_sobol": ({k: [_json_num(v) for v in sobol_vals[k]] for k in study.headlines}
                                         if sobol_vals is not None else {})},
            "git_commit": provenance.git_commit(), "rows": rows}


def _json_num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def run_study(study: Study, args: argparse.Namespace, log: Any = print) -> int:
    """Both stages, the summary and the figures (``paperlib sensitivity run``); an exit code."""
    from paperlib.sweeps.aggregate import dumps

    results = args.results_dir
    timing: dict[str, Any] = {}
    prob1, X1, pts1 = stage_points(study, "morris")
    f1 = write_stage_sweep(study, "morris", pts1, results)
    log(f"sensitivity {study.name}: stage 1 (Morris) of {len(study.assumptions)} assumptions, "
        f"{study.morris['trajectories']} trajectories: {len(pts1)} points x {len(study.seeds)} seed(s)")
    t0 = time.perf_counter()
    rc = run_stage(f1, args)
    timing["morris"] = {"wall_s": time.perf_counter() - t0, "points": len(pts1)}
    if rc != 0 or args.dry_run:
        return rc
    y1 = stage_values(f1, study.headlines, results)
    morris = {k: an.morris_indices(prob1, X1, y1[k][:-1], study.morris["levels"], study.morris["seed"])
              for k in study.headlines}
    top = an.rank_assumptions(morris, study.sobol["top_k"])
    left_out = [n for n in an.leaders(morris) if n not in top]
    if left_out:
        log(f"sensitivity {study.name}: warning: {', '.join(left_out)} lead(s) some headline's Morris ranking but "
            f"get no Sobol' index (sobol.top_k = {study.sobol['top_k']}; those rows' notes give Morris mu* only): "
            f"raise top_k to {study.sobol['top_k'] + len(left_out)} to include them")
    prob2, _, pts2 = stage_points(study, "sobol", top)
    f2 = write_stage_sweep(study, "sobol", pts2, results)
    log(f"sensitivity {study.name}: stage 2 (Sobol') of {top}, N = {study.sobol['base_n']}: {len(pts2)} points")
    t0 = time.perf_counter()
    rc = run_stage(f2, args)
    timing["sobol"] = {"wall_s": time.perf_counter() - t0, "points": len(pts2)}
    if rc != 0:
        return rc
    y2 = stage_values(f2, study.headlines, results)
    summary = summarise(study, y1, pts1, X1, prob1, top, y2, pts2, prob2)
    out = Path(study.summary_file(results))
    out.write_text(dumps(summary) + "\n")
    (out.parent / "timing.json").write_text(json.dumps(timing, indent=1, sort_keys=True) + "\n")
    if not getattr(args, "no_figures", False):
        from paperlib.sensitivity import figures

        figures.write_figures(summary, study, args.figures_dir)
    from paperlib.sensitivity.notes import summary_lines

    for line in summary_lines(summary):
        log(line)
    log(f"sensitivity {study.name}: {out}")
    return 0
