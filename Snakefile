# paperlib: reproduce every paper of the compendium. One rules/<slug>.smk per paper (its room).
#
#   codegen check -> recordings (twin / hardware / archive / imported public data) -> notebooks (papermill)
#                 -> figures/<slug>/, results/<slug>/ (paper_comparison.{csv,md}) -> results/paper_comparison.md
#
# Run through `paperlib reproduce [PAPER ...] [--cores 2] [--config FILE] [--dry-run]` (or `make reproduce`),
# or directly: `python -m snakemake --cores 2 [mems] [--config config_file=config/smoke.yaml]`.
# Each paper's rule file reads its own config/<slug>.yaml; a run configuration (config_file) may hold
# `results_root`, `figures_root` and one section per paper. Nothing changes from run to run, so a
# second run does nothing.
#
# A rules/<slug>.smk sets PAPER_TARGETS["<slug>"] (every output), COMPARISONS["<slug>"] (its
# paper_comparison.csv) and defines `rule <slug>` with input PAPER_TARGETS["<slug>"]; targets of
# `all` that are no paper's (the whole-site book) go into SITE_TARGETS. It makes its notebook,
# parameters and comparison rules from the templates of rules/common.smk (`use rule ... from common`,
# or `from COMMON` in a loop) and its rules' code inputs with CODE_INPUTS (the static import closure
# of the modules or notebooks a rule runs: paperlib.experiments.kit.code_inputs).

import glob
import sys

import yaml

from paperlib.experiments.kit.code_inputs import code_inputs as CODE_INPUTS

PY = sys.executable
_RUN_CFG = {}
if config.get("config_file"):
    with open(config["config_file"]) as _fh:
        _RUN_CFG = yaml.safe_load(_fh) or {}
# Output roots: --config results_dir=/figures_dir= (from `paperlib reproduce --results-dir`), else the run
# configuration's results_root / figures_root, else results/ and figures/.
RESULTS = config.get("results_dir") or _RUN_CFG.get("results_root") or "results"
FIGURES = config.get("figures_dir") or _RUN_CFG.get("figures_root") or "figures"
CODEGEN_OK = f"{RESULTS}/checks/codegen.ok"
PAPER_TARGETS = {}
COMPARISONS = {}
SITE_TARGETS = []


# The templates every room's rules are made from (a module: its rules exist only where a room uses them).
module common:
    snakefile:
        f"{workflow.basedir}/rules/common.smk"  # absolute: the room files using it live in rules/
    config:
        config


COMMON = "common"  # the module's name, for `use rule X from COMMON as <name in a variable>` inside loops


# The generated kernels must match the symbolic models (input-tracked: reruns only when they change).
rule codegen_check:
    input:
        sorted(glob.glob("paperlib/symbolic/*.py") + ["paperlib/codegen.py"] + glob.glob("paperlib/kernels/*.py")),
    output:
        CODEGEN_OK,
    log:
        f"{RESULTS}/logs/codegen_check.log",
    shell:
        "{PY} -m paperlib.codegen --check > {log} 2>&1 && cp {log} {output}"


for _rules in sorted(f for f in glob.glob("rules/*.smk") if f != "rules/common.smk"):

    include: _rules


# The index of all papers' tables with their agreement counts.
rule paper_index:
    input:
        lambda wc: list(COMPARISONS.values()),
    output:
        f"{RESULTS}/paper_comparison.md",
    shell:
        "{PY} -m paperlib.comparison index --results-root {RESULTS} --md {output}"


rule all:
    default_target: True
    input:
        lambda wc: [t for ts in PAPER_TARGETS.values() for t in ts] + [f"{RESULTS}/paper_comparison.md"] + SITE_TARGETS,
