# Monte-Carlo sweeps (paperlib.sweeps): one job per (factor combination, seed) writing a small JSON
# result, one aggregation job per sweep (median and 5-95 % interval of every headline number
# beside the paper's value: table + figures).
#
#   paperlib sweep config/sweeps/mems.yaml [--cores 2 | --profile config/profiles/slurm]
#   python -m snakemake -s rules/sweep.smk --config sweeps=config/sweeps/mems.yaml --cores 2
#
# Standalone (-s rules/sweep.smk: a cluster run parses nothing of the paper pipeline) or included
# by the Snakefile (then PY, RESULTS and FIGURES are the Snakefile's). Sweep files come from
# config["sweeps"] (a path or a comma-separated list) and from ROOM_SWEEPS, the list a room's
# rules/<slug>.smk fills when its comparison table shows a sweep's distributions. Outputs:
#   {RESULTS}/<paper>/sweeps/<name>/runs/<combo>/seed_NNNN.json   one per job (+ benchmarks/, logs/)
#   {RESULTS}/<paper>/sweeps/<name>/summary.{csv,md,json}
#   {FIGURES}/<paper>/sweep_<name>_{intervals,violins}.{png,svg,json}
# `--config slurm_partition=NAME slurm_account=NAME` override the sweep files' `slurm:` section.
# A job reruns only when its result is missing, its settings (params) or its code change, so an
# interrupted sweep restarted runs only the jobs without a result.

import importlib as _importlib
import re
import sys as _sys

from paperlib.experiments.kit.code_inputs import code_inputs as _code_inputs
from paperlib.sweeps import RUNNERS as _RUNNERS
from paperlib.sweeps.config import load_sweep as _load_sweep

if "PY" not in globals():
    PY = _sys.executable
if "RESULTS" not in globals():
    RESULTS = config.get("results_dir", "results")
if "FIGURES" not in globals():
    FIGURES = config.get("figures_dir", "figures")

_sweep_files = config.get("sweeps") or []
if isinstance(_sweep_files, str):
    _sweep_files = [f for f in _sweep_files.split(",") if f]
SWEEPS = {}
for _f in list(_sweep_files) + list(globals().get("ROOM_SWEEPS", [])):
    _s = _load_sweep(_f)
    if _s.name in SWEEPS and SWEEPS[_s.name].path.resolve() != _s.path.resolve():
        raise ValueError(f"sweep name {_s.name!r} is used by {SWEEPS[_s.name].path} and {_f}")
    SWEEPS[_s.name] = _s


_SWEEP_RUN_CODE = _code_inputs(["paperlib.sweeps.run"])  # the runner module is named at run time: see _sweep_code


def _sweep_code(s):
    """Sources whose change reruns a sweep's jobs: what the job runner imports and what the paper's runner names."""
    return sorted(set(_SWEEP_RUN_CODE) | set(_importlib.import_module(_RUNNERS[s.paper]).code_inputs(s.settings)))


def _sweep_targets():
    out = []
    for s in SWEEPS.values():
        out += list(s.summary_files(RESULTS).values())
        out += [f"{stem}.{ext}" for stem in s.figure_stems(FIGURES) for ext in ("png", "svg", "json")]
    return out


_SWEEP_WILDCARDS = {"paper": r"[a-z0-9_]+", "sweep": r"[A-Za-z0-9_\-]+", "combo": r"[A-Za-z0-9_.=+\-]+",
                    "seed": r"\d\d\d\d+"}


# Every sweep's table and figures (`snakemake -s rules/sweep.smk sweep_all --config sweeps=FILE`).
rule sweep_all:
    input:
        _sweep_targets(),


# Sweeps of one seed per job: one job per result file. A sweep whose file sets resources.seeds_per_job > 1
# gets one rule per group of seeds below instead (excluded here, so no file has two rules).
_SINGLE_SEED_SWEEPS = [re.escape(n) for n, s in SWEEPS.items() if s.seeds_per_job == 1]


rule sweep_run:
    wildcard_constraints:
        **{**_SWEEP_WILDCARDS, "sweep": "(?:" + "|".join(_SINGLE_SEED_SWEEPS) + ")" if _SINGLE_SEED_SWEEPS else "(?!)"},
    input:
        code=lambda wc: _sweep_code(SWEEPS[wc.sweep]),
    output:
        f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/runs/{{combo}}/seed_{{seed}}.json",
    params:
        job=lambda wc: SWEEPS[wc.sweep].job_settings(wc.combo),
        seed=lambda wc: int(wc.seed),
    log:
        f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/logs/{{combo}}/seed_{{seed}}.log",
    benchmark:
        f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/benchmarks/{{combo}}/seed_{{seed}}.tsv"
    threads: 1
    resources:
        mem_mb=lambda wc: SWEEPS[wc.sweep].resources["mem_mb"],
        runtime=lambda wc: SWEEPS[wc.sweep].resources["runtime_min"],
        cpus_per_task=lambda wc: SWEEPS[wc.sweep].resources["cpus"],
        slurm_partition=lambda wc: config.get("slurm_partition") or SWEEPS[wc.sweep].slurm["partition"] or "",
        slurm_account=lambda wc: config.get("slurm_account") or SWEEPS[wc.sweep].slurm["account"] or "",
    shell:
        "NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "
        "{PY} -m paperlib.sweeps.run --job {params.job:q} --seed {params.seed} --output {output} > {log} 2>&1"


# Sweeps of several seeds per job (resources.seeds_per_job): one job per group of consecutive seeds, one
# process running them in turn (start-up paid once), writing the same per-seed result files (the same
# bytes) as jobs of one seed. A killed job leaves its group incomplete: Snakemake reruns the whole group.
_batch_k = 0
for _bs in [s for s in SWEEPS.values() if s.seeds_per_job > 1]:
    _bs_dir = _bs.out_dir(RESULTS)
    for _bcombo in _bs.combos:
        for _bseeds in _bs.seed_batches():
            _btag = f"{_bcombo}/seeds_{_bseeds[0]:04d}-{_bseeds[-1]:04d}"
            _batch_k += 1

            rule:
                name:
                    f"sweep_run_group_{_batch_k}"
                input:
                    code=_sweep_code(_bs),
                output:
                    [_bs.run_file(_bcombo, seed, RESULTS) for seed in _bseeds],
                params:
                    job=_bs.job_settings(_bcombo),
                    seeds=" ".join(str(int(seed)) for seed in _bseeds),
                log:
                    f"{_bs_dir}/logs/{_btag}.log",
                benchmark:
                    f"{_bs_dir}/benchmarks/{_btag}.tsv"
                threads: 1
                resources:
                    mem_mb=_bs.resources["mem_mb"],
                    runtime=_bs.resources["runtime_min"] * len(_bseeds),
                    cpus_per_task=_bs.resources["cpus"],
                    slurm_partition=config.get("slurm_partition") or _bs.slurm["partition"] or "",
                    slurm_account=config.get("slurm_account") or _bs.slurm["account"] or "",
                shell:
                    "NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "
                    "{PY} -m paperlib.sweeps.run --job {params.job:q} --seed {params.seeds} --output {output} > {log} 2>&1"


rule sweep_aggregate:
    wildcard_constraints:
        paper=_SWEEP_WILDCARDS["paper"],
        sweep=_SWEEP_WILDCARDS["sweep"],
    input:
        runs=lambda wc: SWEEPS[wc.sweep].run_files(RESULTS),
        code=_code_inputs(["paperlib.sweeps.aggregate"]),
    output:
        csv=f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/summary.csv",
        md=f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/summary.md",
        json=f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/summary.json",
        figures=[f"{FIGURES}/{{paper}}/sweep_{{sweep}}_{kind}.{ext}" for kind in ("intervals", "violins")
                 for ext in ("png", "svg", "json")],
    resources:
        slurm_partition=lambda wc: config.get("slurm_partition") or SWEEPS[wc.sweep].slurm["partition"] or "",
        slurm_account=lambda wc: config.get("slurm_account") or SWEEPS[wc.sweep].slurm["account"] or "",
    params:
        sweep_file=lambda wc: str(SWEEPS[wc.sweep].path),
        figures=FIGURES,
        results=RESULTS,
    log:
        f"{RESULTS}/{{paper}}/sweeps/{{sweep}}/logs/aggregate.log",
    shell:
        "MPLBACKEND=Agg {PY} -m paperlib.sweeps.aggregate {params.sweep_file:q} --results-dir {params.results:q} "
        "--figures-dir {params.figures:q} > {log} 2>&1"
