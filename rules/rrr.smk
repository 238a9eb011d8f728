# Paper 002 (rrr): 3-RRR, Kostic friction by NLS, tracking before/after compensation.
# Needs from the Snakefile: PY, RESULTS, FIGURES, CODEGEN_OK, PAPER_TARGETS, CODE_INPUTS, room_notebook, room_table.
#
#   twin sampling run -> 01_identification (Table 2, Table 4, Fig. 4) -> 02_tracking (Table 5, Figs. 5-6, 9-14)
#                     -> results/rrr/paper_comparison.{csv,md}
#
# Sources: twin (default) or archive (`paperlib reproduce rrr --archive DIR`): the sampling run's rule copies
# it from the release (RECORDING_SHELL), and notebook 02 obtains each run it makes itself (the Table 5 paths,
# the location runs, the twin variants: recordings/tracking/...) through the kit's RecordingSource, from the
# release with no twin run.
# hardware (`paperlib reproduce rrr --source hardware --rig-config RIG [--emulate-rig]`): the sampling run is the
# experiment's motion on the rig (`python -m paperlib.experiments.rrr.rig_runs`: the real master, the one
# real-time loop and recording writer); with --emulate-rig on paperlib's emulated drives around the 3-RRR twin, in
# lock-step, labelled source = twin, rig = emulated-hardware. The runs notebook 02 makes itself (Table 5 paths, location
# runs, twin variants) are the twin's, labelled so: they compare controllers on the twin and its variants. Without a rig
# file the room's check (rig_runs.reproduce_check) refuses.

from paperlib.experiments.rrr import report as RRR_REPORT

RRR_NB = ["01_identification", "02_tracking"]
RRR_RES = f"{RESULTS}/rrr"
RRR_REC = f"{RRR_RES}/recordings/sampling_pd.nc"
RRR_FIGS = {
    "01_identification": ["fig04_sampling_positions", "fig_table2_friction_fits"],
    "02_tracking": ["fig05_location_error", "fig06_error_histogram", "fig09_joint_velocities",
                    "fig10_drive1_stages", "fig11_drive2_stages", "fig12_drive3_stages",
                    "fig13_friction_along_path", "fig14_speed_errors", "fig_peak_origin"],
}
# Data the twin and the robot model read (code inputs come from the import closure).
RRR_DATA = ["data/robots/three_rrr.toml", "data/twin/three_rrr_twin.toml"]
# What notebook 02 reads beside the recording: notebook 01's results.
RRR_READS = {"01_identification": [], "02_tracking": [f"{RRR_RES}/01_identification.json"]}
# The recordings a notebook obtains itself (RecordingSource: made by the twin, or copied from the release).
RRR_NB_RECS = {"01_identification": [],
               "02_tracking": [f"{RRR_RES}/recordings/{n}.nc" for n in RRR_REPORT.tracking_recordings()]}
RRR_RIG = config.get("rig_config") or ""
RRR_EMULATE = str(config.get("emulate_rig", "")).lower() in ("1", "true", "yes")
if SOURCE == "hardware":
    RRR_REC_CODE = CODE_INPUTS(["paperlib.experiments.rrr.rig_runs",
                                "paperlib.hardware.joint_selftest", "paperlib.hardware.joint_rig",
                                "paperlib.hardware.emulators.joint_rig", "paperlib.twin.robots.three_rrr_plant"])
    RRR_RECORD = ("{PY} -m paperlib.experiments.rrr.rig_runs --rig-config " + f"'{RRR_RIG}'"
                  + (" --emulated" if RRR_EMULATE else ""))
else:
    RRR_REC_CODE = CODE_INPUTS(["paperlib.experiments.rrr.run"])
    RRR_RECORD = "{PY} -m paperlib.experiments.rrr.run record-sampling"


def _rrr_figs(nb):
    return [f"{FIGURES}/rrr/{s}.{ext}" for s in RRR_FIGS[nb] for ext in ("png", "svg", "json")]


def _rrr_params(nb):
    p = {"results_file": f"{RRR_RES}/{nb}.json", "figures_dir": f"{FIGURES}/rrr", "formats": ["png", "svg"],
         "recording": RRR_REC, "source": "twin" if SOURCE in (None, "hardware") else SOURCE, "archive": ARCHIVE,
         "results_dir": RRR_RES}
    if nb == "02_tracking":
        p["identification_file"] = f"{RRR_RES}/01_identification.json"
    return p


PAPER_TARGETS["rrr"] = (
    [RRR_REC]
    + [f for nb in RRR_NB for f in RRR_NB_RECS[nb]]
    + [f"{RRR_RES}/{nb}.json" for nb in RRR_NB]
    + [f"{RRR_RES}/notebooks/{nb}.ipynb" for nb in RRR_NB]
    + [f for nb in RRR_NB for f in _rrr_figs(nb)]
    + [f"{RRR_RES}/paper_comparison.csv", f"{RRR_RES}/paper_comparison.md"]
)

# The sensitivity of the differing headline numbers to the twin's assumptions (config/rrr.yaml's key `sensitivity`:
# a study file, or null; a study of the twin, so not in a build from a release): `paperlib sensitivity run`
# (Morris, then Sobol', on rules/sweep.smk's engine) writes its summary; the comparison table's differing rows get
# a note from it, notebooks/rrr/sensitivity.ipynb draws it. Its runs rerun only when missing or when their code
# or settings change (~12 min on 2 cores).
from paperlib.experiments.rrr import pipeline as _RRR_P

RRR_CFG = _RRR_P.load_config(_RUN_CFG)
RRR_SENS_SUMMARY = []
if RRR_CFG.get("sensitivity") and SOURCE != "archive":
    from paperlib.sensitivity.study import load_study as _rrr_load_study

    _rrr_study = _rrr_load_study(RRR_CFG["sensitivity"])
    from paperlib.sweeps import runners as _rrr_runners

    _rrr_study_runner = _rrr_runners()[_rrr_study.paper]  # the room's sweep runner module
    RRR_SENS_SUMMARY = [_rrr_study.summary_file(RESULTS)]

    rule rrr_sensitivity:
        input:
            study=RRR_CFG["sensitivity"],
            # the room's runner too (its twin, its analysis): the study reruns the runs whose code changed
            code=CODE_INPUTS(modules=["paperlib.sensitivity.engine", "paperlib.sensitivity.cli", _rrr_study_runner]),
        output:
            RRR_SENS_SUMMARY[0],
        threads: workflow.cores
        log:
            f"{RRR_RES}/logs/sensitivity_study.log",
        shell:
            "{PY} -m paperlib.sensitivity.cli sensitivity run {input.study:q} --cores {threads} --no-progress --no-figures "
            "--results-dir {RESULTS:q} --figures-dir {FIGURES:q} > {log} 2>&1"

    room_notebook("rrr", "sensitivity", res=RRR_RES,
                  params={"study_file": RRR_CFG["sensitivity"], "summary_file": RRR_SENS_SUMMARY[0],
                          "output_dir": f"{FIGURES}/rrr", "results_file": f"{RRR_RES}/sensitivity.json",
                          "formats": list(RRR_CFG["formats"])},
                  outputs={"figures": [f"{FIGURES}/rrr/sensitivity_{k}.{ext}" for k in ("tornado", "differing")
                                       for ext in RRR_CFG["formats"]]},
                  inputs={"summary": RRR_SENS_SUMMARY})
    PAPER_TARGETS["rrr"] += [f"{RRR_RES}/sensitivity.json"]

room_table("rrr", res=RRR_RES, extra=f"--sensitivity {RRR_SENS_SUMMARY[0]}" if RRR_SENS_SUMMARY else "",
           inputs={"sensitivity": RRR_SENS_SUMMARY})


# The identification data: the 21-point sampling run on the twin (source = twin), its copy from the release, or
# (source hardware) the run on the rig.
rule rrr_sampling_recording:
    input:
        codegen=CODEGEN_OK,
        code=RRR_REC_CODE,
        data=RRR_DATA,
    output:
        RRR_REC,
    log:
        f"{RRR_RES}/logs/sampling_recording.log",
    shell:
        RECORDING_SHELL(RRR_RECORD + " --output {output} > {log} 2>&1")


# Notebook 01: Table 2 (Kostic and Coulomb + viscous fits), Table 4, Fig. 4.
# Notebook 02: Table 5, Figs. 5-6 and 9-14 (tracking before / after compensation).
for _nb in RRR_NB:
    room_notebook("rrr", _nb, res=RRR_RES, params=_rrr_params(_nb), outputs={"figures": _rrr_figs(_nb), "recordings": RRR_NB_RECS[_nb]},
                  inputs={"recording": RRR_REC, "reads": RRR_READS[_nb], "data": RRR_DATA})
