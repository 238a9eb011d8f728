# paperlib: reproduce the flagship paper's figures and numbers.
#
#   codegen check -> recordings -> notebooks (papermill, -f params) -> figures/, results/*.json
#                                                                    -> results/paper_comparison.{csv,md}
#
# Run through `paperlib reproduce [--cores 2] [--config FILE] [--dry-run]` (or `make reproduce`), or
# directly: `python -m snakemake --cores 2 [--config config_file=config/smoke.yaml]`.
# The plan (which recordings, from where, notebook parameters, outputs) comes from
# paperlib/experiments/pipeline.py; the configuration from config/default.yaml with an optional
# file merged over it. Nothing here changes from run to run, so a second run does nothing.

import json
import sys

from paperlib.experiments import pipeline as P

# Overrides accepted on the command line (--config key=value): config_file, source, rig_config,
# results_dir, figures_dir.
_overrides = {k: config[k] for k in ("source", "rig_config", "results_dir", "figures_dir") if k in config}
CFG = P.normalise_config(P.merge(P.load_config(config.get("config_file")), _overrides))
PLAN = P.recording_plan(CFG)
PY = sys.executable
RES = CFG["results_dir"]
SOURCE = CFG["source"]
RIG = CFG["rig_config"] or ""
CODE = P.code_inputs()
CODEGEN_OK = f"{RES}/checks/codegen.ok"

wildcard_constraints:
    name=r"[A-Za-z0-9_\-]+",
    nb=r"\d\d_[a-z_]+",


rule all:
    input:
        P.final_targets(CFG),


# The generated kernels must match the symbolic model (input-tracked: reruns only when they change).
rule codegen_check:
    input:
        P.codegen_inputs(),
    output:
        CODEGEN_OK,
    log:
        f"{RES}/logs/codegen_check.log",
    shell:
        "{PY} -m paperlib.codegen --check > {log} 2>&1 && cp {log} {output}"


def _warm_input(wc):
    w = PLAN[wc.name]["warm_from"]
    return [PLAN[w]["path"]] if w else []


# Recordings made now: by the twin (source: twin) or on the robot (source: hardware).
rule recording:
    input:
        codegen=CODEGEN_OK,
        warm=_warm_input,
        code=P.recording_code_inputs(),
    output:
        f"{RES}/recordings/{{name}}.nc",
    params:
        spec=lambda wc: json.dumps(PLAN[wc.name]["spec"], sort_keys=True),
        source=lambda wc: PLAN[wc.name]["origin"],
        warm=lambda wc: PLAN[PLAN[wc.name]["warm_from"]]["path"] if PLAN[wc.name]["warm_from"] else "",
        rig=RIG,
    log:
        f"{RES}/logs/recording_{{name}}.log",
    shell:
        "{PY} -m paperlib.experiments.pipeline record --name {wildcards.name} --spec {params.spec:q} "
        "--source {params.source} --rig-config={params.rig:q} --warm-from={params.warm:q} --output {output} > {log} 2>&1"


# Archived recordings (data/recordings/, listed in the registry): checksum and schema check.
rule verify_archive:
    input:
        lambda wc: PLAN[wc.name]["path"],
    output:
        f"{RES}/checks/archive_{{name}}.ok",
    params:
        registry_name=lambda wc: PLAN[wc.name].get("archive_name", wc.name),
        registry=CFG["registry"],
    shell:
        "{PY} -m paperlib.experiments.pipeline verify --name {params.registry_name} --registry {params.registry} "
        "--output {output}"


# Papermill parameters of each notebook (rewritten only when the configuration changes them).
rule notebook_params:
    output:
        f"{RES}/params/{{nb}}.yaml",
    params:
        p=lambda wc: P.notebook_params(CFG, PLAN, wc.nb),
    run:
        P.write_params(output[0], params.p)


for _nb in P.NOTEBOOKS:
    _out = P.notebook_outputs(CFG, _nb)

    rule:
        name:
            f"notebook_{_nb}"
        input:
            notebook=f"notebooks/{_nb}.ipynb",
            params=f"{RES}/params/{_nb}.yaml",
            recordings=P.notebook_recording_inputs(CFG, PLAN, _nb),
            codegen=CODEGEN_OK,
            code=CODE,
        output:
            executed=_out["executed"],
            results=_out["results"],
            figures=_out["figures"],
        log:
            f"{RES}/logs/{_nb}.log",
        shell:
            "MPLBACKEND=Agg {PY} -m papermill {input.notebook} {output.executed} -f {input.params} -k paperlib "
            "--cwd . --no-progress-bar --log-output > {log} 2>&1"


rule paper_comparison:
    input:
        [P.notebook_outputs(CFG, nb)["results"] for nb in P.NOTEBOOKS],
    output:
        csv=f"{RES}/paper_comparison.csv",
        md=f"{RES}/paper_comparison.md",
    shell:
        "{PY} -m paperlib.experiments.comparison --results {input} --csv {output.csv} --md {output.md}"
