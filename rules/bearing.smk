# Room `bearing`: paper 004 (joint intrinsic dynamics with a torque sensor, wheel-bearing inspection).
#
#   twin recordings (paperlib bearing twin) -> paperlib bearing fit -> model.json
#                                           -> paperlib bearing inspect -> inspect_trials.json
#   -> notebooks/bearing (papermill, -f params) -> figures/bearing, results/bearing -> paper_comparison.{csv,md}
#
# Configuration: config/bearing.yaml, with the run configuration's `bearing:` section merged over it.
# Every recording is made by the twin (source = twin): the paper's data are not public.

import yaml as _bearing_yaml

from paperlib.experiments.bearing import study as _BEARING_S

with open("config/bearing.yaml") as _fh:
    BEARING_CFG = _bearing_yaml.safe_load(_fh) or {}
BEARING_CFG.update((_RUN_CFG.get("bearing") or {}) if "_RUN_CFG" in globals() else {})
BEARING_RES = f"{RESULTS}/bearing"
BEARING_FIG = f"{FIGURES}/bearing"
BEARING_PLAN = _BEARING_S.recording_plan(BEARING_CFG, root=f"{BEARING_RES}/recordings")
BEARING_REC = {role: spec["path"] for role, spec in BEARING_PLAN.items()}
BEARING_TRIALS = sorted(r for r in BEARING_PLAN if r.startswith("trial"))
BEARING_TWIN_CODE = ["paperlib/twin/torque_joint.py", "paperlib/twin/wheel_bearing.py", "paperlib/friction/stribeck.py",
                     "paperlib/experiments/bearing/runs.py", "paperlib/recordings.py"]
BEARING_CODE = BEARING_TWIN_CODE + ["paperlib/friction/basis.py", "paperlib/estimation/basis_regression.py",
                                    "paperlib/signals.py", "paperlib/figures/bearing.py"] + sorted(
    glob.glob("paperlib/experiments/bearing/*.py"))
BEARING_FORMATS = BEARING_CFG.get("formats", ["png", "svg"])
BEARING_NOTEBOOKS = {
    "01_intrinsic_identification": {
        "figures": ["fig03a_sensed_torque_time", "fig03b_sensed_torque_angle", "fig03c_components",
                    "fig03d_residual", "periodogram_orders"],
        "recordings": ["no_load_1", "no_load_2"],
        "inputs": [],
        "params": {"cutoff_hz": BEARING_CFG["cutoff_hz"], "display_lowpass_hz": BEARING_CFG["display_lowpass_hz"]},
    },
    "02_bearing_inspection": {
        "figures": ["fig05a_trial_time", "fig05b_velocity", "classifier_histograms"],
        "recordings": BEARING_TRIALS + ["no_load_1"],
        "inputs": [f"{BEARING_RES}/model.json", f"{BEARING_RES}/inspect_trials.json"],
        "params": {"cutoff_hz": BEARING_CFG["cutoff_hz"], "n_per_grade": BEARING_CFG["n_per_grade"],
                   "tune_seed": BEARING_CFG["tune_seed"], "test_seed": BEARING_CFG["test_seed"],
                   "model_file": f"{BEARING_RES}/model.json"},
    },
}


def _bearing_nb_outputs(nb):
    figs = [f"{BEARING_FIG}/{f}.{ext}" for f in BEARING_NOTEBOOKS[nb]["figures"] for ext in BEARING_FORMATS + ["json"]]
    return {"executed": f"{BEARING_RES}/notebooks/{nb}.ipynb", "results": f"{BEARING_RES}/{nb}.json", "figures": figs}


PAPER_TARGETS["bearing"] = (
    list(BEARING_REC.values()) + [f"{BEARING_RES}/model.json", f"{BEARING_RES}/inspect_trials.json"]
    + [o for nb in BEARING_NOTEBOOKS for k, v in _bearing_nb_outputs(nb).items() for o in ([v] if isinstance(v, str) else v)]
    + [f"{BEARING_RES}/paper_comparison.csv", f"{BEARING_RES}/paper_comparison.md"])
COMPARISONS["bearing"] = f"{BEARING_RES}/paper_comparison.csv"


rule bearing:
    input:
        PAPER_TARGETS["bearing"],


def _bearing_twin_args(wc):
    spec = BEARING_PLAN[wc.role]
    if spec["kind"] == "no-load":
        return f"--kind no-load --seed {spec['seed']}"
    return (f"--kind bearing --seed {spec['seed']} --grade good --bearing-seed {spec['bearing_seed']} "
            f"--bearing-index {spec['bearing_index']}")


rule bearing_recording:
    input:
        code=BEARING_TWIN_CODE,
    output:
        f"{BEARING_RES}/recordings/{{role}}.nc",
    wildcard_constraints:
        role=r"no_load_\d+|trial_\d+",
    params:
        args=_bearing_twin_args,
    log:
        f"{BEARING_RES}/logs/recording_{{role}}.log",
    shell:
        "{PY} -m paperlib bearing twin {params.args} --output {output} > {log} 2>&1"


rule bearing_fit:
    input:
        recording=BEARING_REC["no_load_1"],
        code=BEARING_CODE,
    output:
        f"{BEARING_RES}/model.json",
    log:
        f"{BEARING_RES}/logs/bearing_fit.log",
    params:
        cutoff=BEARING_CFG["cutoff_hz"],
    shell:
        "{PY} -m paperlib bearing fit {input.recording} --cutoff {params.cutoff} --json {output} > {log} 2>&1"


rule bearing_inspect:
    input:
        model=f"{BEARING_RES}/model.json",
        recordings=[BEARING_REC[r] for r in BEARING_TRIALS],
        code=BEARING_CODE,
    output:
        f"{BEARING_RES}/inspect_trials.json",
    log:
        f"{BEARING_RES}/logs/bearing_inspect.log",
    params:
        cutoff=BEARING_CFG["cutoff_hz"],
    shell:
        "{PY} -m paperlib bearing inspect --model {input.model} {input.recordings} --cutoff {params.cutoff} "
        "--json {output} > {log} 2>&1"


def _bearing_params(nb):
    p = dict(BEARING_NOTEBOOKS[nb]["params"])
    p.update({"recordings": {r: BEARING_REC[r] for r in BEARING_NOTEBOOKS[nb]["recordings"]},
              "output_dir": BEARING_FIG, "results_file": f"{BEARING_RES}/{nb}.json", "formats": BEARING_FORMATS})
    return p


rule bearing_notebook_params:
    output:
        f"{BEARING_RES}/params/{{nb}}.yaml",
    wildcard_constraints:
        nb=r"\d\d_[a-z_]+",
    params:
        p=lambda wc: _bearing_params(wc.nb),
    run:
        import yaml as _y
        from pathlib import Path as _P

        _P(output[0]).parent.mkdir(parents=True, exist_ok=True)
        _P(output[0]).write_text(_y.safe_dump(dict(params.p), sort_keys=True))


for _bnb in BEARING_NOTEBOOKS:
    _bout = _bearing_nb_outputs(_bnb)

    rule:
        name:
            f"bearing_notebook_{_bnb}"
        input:
            notebook=f"notebooks/bearing/{_bnb}.ipynb",
            params=f"{BEARING_RES}/params/{_bnb}.yaml",
            recordings=[BEARING_REC[r] for r in BEARING_NOTEBOOKS[_bnb]["recordings"]],
            extra=BEARING_NOTEBOOKS[_bnb]["inputs"],
            code=BEARING_CODE,
        output:
            executed=_bout["executed"],
            results=_bout["results"],
            figures=_bout["figures"],
        log:
            f"{BEARING_RES}/logs/{_bnb}.log",
        shell:
            "MPLBACKEND=Agg {PY} -m papermill {input.notebook} {output.executed} -f {input.params} -k paperlib "
            "--cwd . --no-progress-bar --log-output > {log} 2>&1"


rule bearing_paper_comparison:
    input:
        [_bearing_nb_outputs(nb)["results"] for nb in BEARING_NOTEBOOKS],
    output:
        csv=f"{BEARING_RES}/paper_comparison.csv",
        md=f"{BEARING_RES}/paper_comparison.md",
    shell:
        "{PY} -m paperlib.comparison --paper bearing --results {input} --csv {output.csv} --md {output.md}"
