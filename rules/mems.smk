# Room `mems`: the flagship paper (5R parallel robot), Figs. 4-15 and its comparison table.
#
#   recordings (twin / hardware / archive) -> notebooks/mems (papermill, -f params) -> figures/mems, results/mems
#
# The plan (which recordings, from where, notebook parameters, outputs) comes from
# paperlib/experiments/mems/pipeline.py; the configuration from config/mems.yaml with the run
# configuration's `mems:` section merged over it. Overrides on the command line (--config key=value):
# source, archive, rig_config, recording_storage (`paperlib reproduce --full-recordings` sets it to full).
# With a data release (`paperlib reproduce mems --archive DIR`: source archive, archive DIR) every
# recording, the notebooks' own twin runs included, is copied from the release, and the 100-seed
# sweep (100 new twin runs, a study of the twin itself) is not rerun.

import json

from paperlib.experiments.mems import pipeline as MEMS_P

_mems_over = {k: config[k] for k in ("source", "archive", "rig_config", "recording_storage") if k in config}
_mems_base = MEMS_P.merge(MEMS_P.load_config(config.get("config_file"), results_root=RESULTS, figures_root=FIGURES),
                          _mems_over)
try:
    MEMS_CFG = MEMS_P.normalise_config(_mems_base)
except MEMS_P.sources.RigUnavailable:
    if not _mems_over.get("rig_config"):
        raise  # hardware without any rig file: refused for every room
    # --source hardware with another room's rig file (`paperlib reproduce bearing --source hardware --rig-config
    # config/rigs/bearing.toml`): the rules of every room are read. `paperlib reproduce mems` refuses such a rig
    # before Snakemake (pipeline.reproduce_check), and a mems hardware recording checks its rig when it is made
    # (sources.make_recording_now): nothing falls back to the twin.
    MEMS_CFG = MEMS_P.normalise_config(_mems_base, check_rig=False)
if MEMS_CFG["archive"]:  # studies of the twin make new twin runs: not part of a build from a release
    MEMS_CFG["sweep"] = None
    MEMS_CFG["sensitivity"] = None
MEMS_PLAN = MEMS_P.recording_plan(MEMS_CFG)
MEMS_RES = MEMS_CFG["results_dir"]
MEMS_RIG = MEMS_CFG["rig_config"] or ""

PAPER_TARGETS["mems"] = MEMS_P.final_targets(MEMS_CFG)

# The seed-to-seed distribution of the headline numbers (config key `sweep`: a sweep file, or null):
# rules/sweep.smk runs it, the comparison table shows its median and 5-95 % interval.
MEMS_SWEEP_SUMMARY = []
if MEMS_CFG.get("sweep"):
    from paperlib.sweeps.config import load_sweep as _mems_load_sweep

    _mems_sweep = _mems_load_sweep(MEMS_CFG["sweep"])
    ROOM_SWEEPS = list(globals().get("ROOM_SWEEPS", [])) + [MEMS_CFG["sweep"]]
    MEMS_SWEEP_SUMMARY = [_mems_sweep.summary_files(RESULTS)["json"]]
    PAPER_TARGETS["mems"] += [f"{stem}.png" for stem in _mems_sweep.figure_stems(FIGURES)]

# The sensitivity of the differing headline numbers to the twin's assumptions (config key `sensitivity`: a
# study file, or null): `paperlib sensitivity run` (Morris, then Sobol', on rules/sweep.smk's engine) writes
# its summary; the comparison table's differing rows get a note from it, notebooks/mems/sensitivity.ipynb
# draws it. A study's runs rerun only when missing or when their code or settings change (~15 min on 2 cores).
MEMS_SENS_SUMMARY = []
if MEMS_CFG.get("sensitivity"):
    from paperlib.sensitivity.study import load_study as _mems_load_study

    _mems_study = _mems_load_study(MEMS_CFG["sensitivity"])
    from paperlib.sweeps import runners as _mems_runners

    _mems_study_runner = _mems_runners()[_mems_study.paper]  # the room's sweep runner module
    MEMS_SENS_SUMMARY = [_mems_study.summary_file(RESULTS)]

    rule mems_sensitivity:
        input:
            study=MEMS_CFG["sensitivity"],
            # the room's runner too (its twin, its analysis): the study reruns the runs whose code changed
            code=CODE_INPUTS(modules=["paperlib.sensitivity.engine", "paperlib.sensitivity.cli", _mems_study_runner]),
        output:
            MEMS_SENS_SUMMARY[0],
        threads: workflow.cores
        log:
            f"{MEMS_RES}/logs/sensitivity_study.log",
        shell:
            "{PY} -m paperlib.sensitivity.cli sensitivity run {input.study:q} --cores {threads} --no-progress --no-figures "
            "--results-dir {RESULTS:q} --figures-dir {FIGURES:q} > {log} 2>&1"

    room_notebook("mems", "sensitivity", res=MEMS_RES,
                  params={"study_file": MEMS_CFG["sensitivity"], "summary_file": MEMS_SENS_SUMMARY[0],
                          "output_dir": MEMS_CFG["figures_dir"], "results_file": f"{MEMS_RES}/sensitivity.json",
                          "formats": list(MEMS_CFG["formats"])},
                  outputs={"figures": [f"{MEMS_CFG['figures_dir']}/sensitivity_{k}.{ext}" for k in ("tornado", "differing")
                                       for ext in MEMS_CFG["formats"]]},
                  inputs={"summary": MEMS_SENS_SUMMARY})
    PAPER_TARGETS["mems"] += [f"{MEMS_RES}/sensitivity.json"]

_mems_extra = (f"--sweep {MEMS_SWEEP_SUMMARY[0]} " if MEMS_SWEEP_SUMMARY else "") + \
    (f"--sensitivity {MEMS_SENS_SUMMARY[0]}" if MEMS_SENS_SUMMARY else "")
room_table("mems", res=MEMS_RES, extra=_mems_extra.strip(), inputs={"sweep": MEMS_SWEEP_SUMMARY, "sensitivity": MEMS_SENS_SUMMARY})


def _mems_warm_input(wc):
    w = MEMS_PLAN[wc.name]["warm_from"]
    return [MEMS_PLAN[w]["path"]] if w else []


# Recordings made now: by the twin (source: twin) or on the robot (source: hardware), or copied from a
# data release (--archive).
rule mems_recording:
    input:
        codegen=CODEGEN_OK,
        warm=_mems_warm_input,
        code=MEMS_P.recording_code_inputs(),
    output:
        f"{MEMS_RES}/recordings/{{name}}.nc",
    wildcard_constraints:
        name=r"[A-Za-z0-9_\-]+",
    params:
        spec=lambda wc: json.dumps(MEMS_PLAN[wc.name]["spec"], sort_keys=True),
        source=lambda wc: MEMS_PLAN[wc.name]["origin"],
        warm=lambda wc: MEMS_PLAN[MEMS_PLAN[wc.name]["warm_from"]]["path"] if MEMS_PLAN[wc.name]["warm_from"] else "",
        rig=MEMS_RIG,
        store=lambda wc: json.dumps(MEMS_P.storage(MEMS_CFG, wc.name), sort_keys=True),
    log:
        f"{MEMS_RES}/logs/recording_{{name}}.log",
    shell:
        RECORDING_SHELL(
            "{PY} -m paperlib.experiments.mems.pipeline record --name {wildcards.name} --spec {params.spec:q} "
            "--source {params.source} --rig-config={params.rig:q} --warm-from={params.warm:q} --store {params.store:q} "
            "--output {output} > {log} 2>&1")


# Archived recordings (data/recordings/, listed in the registry): checksum and schema check.
rule mems_verify_archive:
    input:
        lambda wc: MEMS_PLAN[wc.name]["path"],
    output:
        f"{MEMS_RES}/checks/archive_{{name}}.ok",
    wildcard_constraints:
        name=r"[A-Za-z0-9_\-]+",
    params:
        registry_name=lambda wc: MEMS_PLAN[wc.name].get("archive_name", wc.name),
        registry=MEMS_CFG["registry"],
    shell:
        "{PY} -m paperlib.experiments.mems.pipeline verify --name {params.registry_name} "
        "--registry {params.registry} --output {output}"


# The notebooks read the recordings as files (parameters from the plan: MEMS_P.notebook_params).
for _nb in MEMS_P.NOTEBOOKS:
    _out = MEMS_P.notebook_outputs(MEMS_CFG, _nb)
    room_notebook("mems", _nb, res=MEMS_RES, params=MEMS_P.notebook_params(MEMS_CFG, MEMS_PLAN, _nb),
                  notebook=f"{MEMS_P.NOTEBOOK_DIR}/{_nb}.ipynb", outputs={"figures": _out["figures"]},
                  inputs={"recordings": MEMS_P.notebook_recording_inputs(MEMS_CFG, MEMS_PLAN, _nb),
                          "codegen": CODEGEN_OK, "data": MEMS_P.notebook_data(_nb),
                          "results": MEMS_P.notebook_result_inputs(MEMS_CFG, _nb)})
