# Room `bearing`: paper 004 (joint intrinsic dynamics with a torque sensor, wheel-bearing inspection).
#
#   twin recordings (paperlib bearing twin) -> paperlib bearing fit -> model.json
#                                           -> paperlib bearing inspect -> inspect_trials.json
#   -> notebooks/bearing (papermill, -f params) -> figures/bearing, results/bearing -> paper_comparison.{csv,md}
#
# Configuration: config/bearing.yaml, with the run configuration's `bearing:` section merged over it
# (paperlib/experiments/bearing/pipeline.py holds the plan). Every recording is made by the twin
# (source = twin): the paper's data are not public.
#
# Sources: twin (default) or archive (`paperlib reproduce bearing --archive DIR`): the recording rule copies the
# no-load runs and trials from the release (RECORDING_SHELL), and notebook 02 obtains each inspection of its
# bearing populations (recordings/populations/<seed>/bearing_<i>.nc) through the kit's RecordingSource, from
# the release with no twin run.
# hardware (`paperlib reproduce bearing --source hardware --rig-config RIG [--emulate-rig]`): each no-load run and
# trial is the experiment's motion on the rig (`paperlib bearing rig`: the real master, the one real-time loop and
# recording writer); with --emulate-rig on paperlib's emulated devices around the joint twin, in lock-step, labelled
# source = twin, rig = emulated-hardware. Without a rig file the room's check (pipeline.reproduce_check) refuses.

from paperlib.experiments.bearing import pipeline as BEARING_P
from paperlib.experiments.bearing import study as BEARING_S

BEARING_CFG = BEARING_P.load_config(_RUN_CFG if "_RUN_CFG" in globals() else None)
BEARING_RES = f"{RESULTS}/bearing"
BEARING_FIG = f"{FIGURES}/bearing"
BEARING_FORMATS = list(BEARING_CFG.get("formats", ["png", "svg"]))
BEARING_PLAN = BEARING_S.recording_plan(BEARING_CFG, root=f"{BEARING_RES}/recordings")
BEARING_REC = {role: spec["path"] for role, spec in BEARING_PLAN.items()}
BEARING_TRIALS = sorted(r for r in BEARING_PLAN if r.startswith("trial"))
# `paperlib bearing twin|fit|inspect` run paperlib.experiments.bearing.cli: its import closure is their code.
BEARING_CLI_CODE = CODE_INPUTS(["paperlib.experiments.bearing.cli"])
BEARING_RIG = config.get("rig_config") or ""
BEARING_EMULATE = str(config.get("emulate_rig", "")).lower() in ("1", "true", "yes")
if SOURCE == "hardware":
    BEARING_CLI_CODE = CODE_INPUTS(["paperlib.experiments.bearing.cli", "paperlib.experiments.bearing.rig_runs",
                                    "paperlib.hardware.joint_selftest", "paperlib.hardware.joint_rig",
                                    "paperlib.hardware.emulators.joint_rig"])
    BEARING_RECORD = ("{PY} -m paperlib bearing rig --rig-config " + f"'{BEARING_RIG}'"
                      + (" --emulated" if BEARING_EMULATE else ""))
else:
    BEARING_RECORD = "{PY} -m paperlib bearing twin"

PAPER_TARGETS["bearing"] = BEARING_P.targets(BEARING_CFG, BEARING_RES, BEARING_FIG)
room_table("bearing", res=BEARING_RES)


def _bearing_twin_args(wc):
    spec = BEARING_PLAN[wc.role]
    if spec["kind"] == "no-load":
        return f"--kind no-load --seed {spec['seed']}"
    return (f"--kind bearing --seed {spec['seed']} --grade good --bearing-seed {spec['bearing_seed']} "
            f"--bearing-index {spec['bearing_index']}")


# The no-load runs and the bearing trials: twin recordings (schema 2, source = twin), their copies from the release,
# or (source hardware) runs on the rig.
rule bearing_recording:
    input:
        code=BEARING_CLI_CODE,
    output:
        f"{BEARING_RES}/recordings/{{role}}.nc",
    wildcard_constraints:
        role=r"no_load_\d+|trial_\d+",
    params:
        args=_bearing_twin_args,
    log:
        f"{BEARING_RES}/logs/recording_{{role}}.log",
    shell:
        RECORDING_SHELL(BEARING_RECORD + " {params.args} --output {output} > {log} 2>&1")


# The intrinsic model, through the command line a user would call.
rule bearing_fit:
    input:
        recording=BEARING_REC["no_load_1"],
        code=BEARING_CLI_CODE,
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
        code=BEARING_CLI_CODE,
    output:
        f"{BEARING_RES}/inspect_trials.json",
    log:
        f"{BEARING_RES}/logs/bearing_inspect.log",
    params:
        cutoff=BEARING_CFG["cutoff_hz"],
    shell:
        "{PY} -m paperlib bearing inspect --model {input.model} {input.recordings} --cutoff {params.cutoff} "
        "--json {output} > {log} 2>&1"


# The notebooks read the recordings (and notebook 02 the fitted model and the trials' inspection).
for _bnb, _bspec in BEARING_P.NOTEBOOKS.items():
    room_notebook("bearing", _bnb, res=BEARING_RES,
                  params=BEARING_P.notebook_params(_bnb, BEARING_CFG, BEARING_RES, BEARING_FIG,
                                                   source=SOURCE or "twin", archive=ARCHIVE),
                  outputs={"figures": BEARING_P.notebook_outputs(_bnb, BEARING_RES, BEARING_FIG, BEARING_FORMATS)["figures"],
                           "recordings": BEARING_P.notebook_recordings(_bnb, BEARING_CFG, BEARING_RES)},
                  inputs={"recordings": [BEARING_REC[r] for r in _bspec["recordings"]],
                          "files": [f"{BEARING_RES}/{f}" for f in _bspec["files"]]})
