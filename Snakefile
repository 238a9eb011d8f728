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
# A rules/<slug>.smk holds only what is its paper's own:
#   PAPER_TARGETS["<slug>"]   every output (the target `<slug>` asks for them: this file defines that rule);
#   room_notebook(...)        each notebook: its parameters, what it reads and writes (its rules, from the
#                             templates of rules/common.smk, are made here: `<slug>_notebook_<nb>`,
#                             `<slug>_notebook_params`);
#   room_table(...)           its comparison table (`<slug>_paper_comparison`, from the notebooks' results);
#   rules of its own          recordings, fits, ...: code inputs from CODE_INPUTS(modules) (the static
#                             import closure, paperlib.experiments.kit.code_inputs), never hand lists.
# Targets of `all` that are no paper's (the whole-site book) go into SITE_TARGETS.

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
# Where the recordings come from: --config source= (paperlib reproduce --source; None: each room's config) and,
# for source archive, archive= the release folder (paperlib reproduce --archive DIR|URL resolves a URL first).
SOURCE = config.get("source")
ARCHIVE = config.get("archive")


def RECORDING_SHELL(cmd):
    """The shell command of a rule that makes recordings (its outputs): ``cmd``, or with ``--source archive``
    the checked copies of the same files from the release (paperlib.recordings.release)."""
    if SOURCE != "archive":
        return cmd
    if not ARCHIVE:
        return "echo 'source archive: this recording needs the release folder (--archive DIR|URL)' >&2; exit 1"
    return f"{PY} -m paperlib.recordings.release --release '{ARCHIVE}' --results-root '{RESULTS}' {{output}}"

PAPER_TARGETS = {}
COMPARISONS = {}
SITE_TARGETS = []
ROOM_NOTEBOOKS = {}  # slug -> {nb: {"res", "notebook", "params", "input", "output"}}, in registration order
ROOM_TABLES = {}  # slug -> {"res", "extra", "input"}


def room_notebook(slug, nb, *, res, params, outputs, inputs=None, notebook=None):
    """Register notebook ``nb`` of room ``slug``; its rules are made below from rules/common.smk.

    res: the room's results folder: the notebook writes ``{res}/notebooks/{nb}.ipynb`` (executed) and
        ``{res}/{nb}.json``, logs to ``{res}/logs/{nb}.log``, gets ``{res}/params/{nb}.yaml``.
    params: the papermill parameters (dict): every output root is in it, so that the notebook's own
        defaults (a scratch folder) are never what the pipeline writes to.
    outputs: name -> file or files it writes beside those two (figures, views).
    inputs: name -> file or files it reads (recordings, data files). Its code inputs are added: the
        import closure of the notebook's imports.
    notebook: the notebook (default ``notebooks/<slug>/<nb>.ipynb``).
    """
    notebook = notebook or f"notebooks/{slug}/{nb}.ipynb"
    ROOM_NOTEBOOKS.setdefault(slug, {})[nb] = {
        "res": res, "notebook": notebook, "params": dict(params),
        "input": {"notebook": notebook, "params": f"{res}/params/{nb}.yaml", **(inputs or {}),
                  "code": CODE_INPUTS(notebooks=[notebook])},
        "output": {"executed": f"{res}/notebooks/{nb}.ipynb", "results": f"{res}/{nb}.json", **outputs},
    }


def room_table(slug, *, res, extra="", inputs=None):
    """Register room ``slug``'s comparison table ``{res}/paper_comparison.{csv,md}``, made from its notebooks' results.

    extra: more ``paperlib.comparison`` options (e.g. ``--sweep FILE``); inputs: name -> files those read.
    """
    ROOM_TABLES[slug] = {"res": res, "extra": extra, "input": dict(inputs or {})}
    COMPARISONS[slug] = f"{res}/paper_comparison.csv"


# The templates every room's rules are made from (a module: its rules exist only where they are used).
module common:
    snakefile:
        f"{workflow.basedir}/rules/common.smk"
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


# Each room's notebooks, parameters files and comparison table, from the templates of rules/common.smk.
def _room_params(slug):
    return lambda wc: ROOM_NOTEBOOKS[slug][wc.nb]["params"]


for _slug, _nbs in ROOM_NOTEBOOKS.items():
    _res = {s["res"] for s in _nbs.values()}
    if len(_res) != 1:
        raise ValueError(f"room {_slug}: its notebooks write into several results folders {sorted(_res)}")
    _res = _res.pop()
    for _nb, _spec in _nbs.items():
        _name = f"{_slug}_notebook_{_nb}"

        use rule notebook from COMMON as _name with:
            input:
                **_spec["input"],
            output:
                **_spec["output"],
            log:
                f"{_res}/logs/{_nb}.log",

    _name = f"{_slug}_notebook_params"

    # rewritten only when the parameters change (they are the rule's params)
    use rule notebook_params from COMMON as _name with:
        output:
            f"{_res}/params/{{nb}}.yaml",
        wildcard_constraints:
            nb="|".join(_nbs),
        params:
            p=_room_params(_slug),

for _slug, _table in ROOM_TABLES.items():
    _nbs = list(ROOM_NOTEBOOKS[_slug].values())
    _name = f"{_slug}_paper_comparison"

    use rule paper_comparison from COMMON as _name with:
        input:
            results=[s["output"]["results"] for s in _nbs],
            params=[s["input"]["params"] for s in _nbs],
            notebooks=[s["notebook"] for s in _nbs],
            **_table["input"],
        output:
            csv=f"{_table['res']}/paper_comparison.csv",
            md=f"{_table['res']}/paper_comparison.md",
        params:
            paper=_slug,
            extra=_table["extra"],


# One target per paper: `snakemake <slug>` (`paperlib reproduce <slug>`) builds PAPER_TARGETS[<slug>].
def _paper_targets(slug):
    return lambda wc: PAPER_TARGETS[slug]


for _slug in PAPER_TARGETS:

    rule:
        name:
            _slug
        input:
            _paper_targets(_slug),


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
