# The rules every room reuses. A Snakemake *module* (the Snakefile: `module common: snakefile:
# "rules/common.smk"`): nothing here runs by itself; a room's rules/<slug>.smk makes its own rule
# from a template with Snakemake's
#
#     use rule notebook from common as rrr_notebook_01 with:
#         input: notebook=..., params=..., <what else the notebook reads>
#         output: executed=..., <what it writes>
#         log: ...
#
# and, for one rule per notebook in a loop, with the rule name in a variable and the module name
# in COMMON (Snakemake resolves both from the Snakefile's globals):
#
#     for _nb in NOTEBOOKS:
#         _name = f"rrr_notebook_{_nb}"
#         use rule notebook from COMMON as _name with: ...
#
# Templates (what the room gives in `with:`):
#   notebook          papermill execution. input: notebook, params (the -f file), + the notebook's
#                     inputs (recordings, code: paperlib.experiments.kit.code_inputs); output:
#                     executed, + results / figures / ...; log.
#   notebook_params   the papermill parameters file of a notebook (YAML, keys sorted; rewritten
#                     when the parameters change: they are the rule's params). output: the file
#                     (wildcard `nb`); params: p (a dict or a function of the wildcards).
#   paper_comparison  the room's paper_comparison.{csv,md}: first refuses a notebook result whose
#                     recorded parameters differ from what the pipeline passed it
#                     (paperlib.experiments.kit.outputs_guard), then paperlib.comparison. input:
#                     results (in the table's order), params, notebooks; output: csv, md;
#                     params: paper (the slug), extra (more comparison options, default none).
#   book              the whole-site book (paperlib.book): input: what it waits for; output: the
#                     site's index.html; params: results, figures (the roots); log.
#
# The notebooks' output roots (results_file, figures_dir, ...) are always passed in the params
# file: a notebook run by hand writes into scratch/<slug>/ (docs/notebooks.md), never into the
# pipeline's results/ and figures/.

import json
import sys
from pathlib import Path

import yaml

PY = sys.executable  # the Snakefile's PY too (shell commands are formatted with the including workflow's names)


def write_params(path, params):
    """Write a papermill parameters file: YAML of the JSON values, keys sorted."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(yaml.safe_dump(json.loads(json.dumps(dict(params))), sort_keys=True))


rule notebook:
    shell:
        "MPLBACKEND=Agg {PY} -m papermill {input.notebook} {output.executed} -f {input.params} -k paperlib "
        "--cwd . --no-progress-bar --log-output > {log} 2>&1"


rule notebook_params:
    run:
        write_params(output[0], params.p)


rule paper_comparison:
    params:
        extra="",
    shell:
        "{PY} -m paperlib.experiments.kit.outputs_guard --results {input.results} --params {input.params} "
        "--notebooks {input.notebooks} && "
        "{PY} -m paperlib.comparison --paper {params.paper} --results {input.results} {params.extra} "
        "--csv {output.csv} --md {output.md}"


rule book:
    shell:
        "{PY} -m paperlib.book.cli build --results {params.results} --figures {params.figures} "
        "--out {params.results}/book > {log} 2>&1"
