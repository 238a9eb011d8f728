# Paper 001 (industrial), thermal campaign on the TX40 twin: recordings -> notebook 02 -> figures, results.
# Written against the Snakefile contract (PY, RESULTS, FIGURES, PAPER_TARGETS, CODE_INPUTS, room_notebook);
# rules/industrial.smk registers the room's table, which reads this notebook's results too.

from paperlib.experiments.industrial import thermal as _TH

# recording_storage: config/industrial.yaml's thermal_campaign section, a run configuration's
# industrial.thermal_campaign over it, `--config recording_storage=full` (paperlib reproduce --full-recordings) last
TH_STORAGE, TH_FLOAT32 = _TH.storage_settings(_RUN_CFG, config.get("recording_storage"))
TH_DAYS = ["r1_d1", "r1_d2", "r1_d3", "r1_d4", "r2_d1", "r2_d2", "r2_d3", "r2_d4", "r2_d5_fault"]
TH_REC = f"{RESULTS}/industrial/recordings"
TH_FIG = f"{FIGURES}/industrial"
TH_FIGURES = ["table1_time_constants", "fig09_parameters_per_cycle", "fig12_robots_and_fault", "fig06_joint3_friction_time", "fig07_all_joints_friction_time",
              "fig10_friction_velocity_cold_hot", "fig11_thermal_model_prediction", "fig13_anomaly_detection"]
TH_NOTEBOOK = "notebooks/industrial/02_thermal_campaign.ipynb"
TH_DATA = ["data/twin/tx40_thermal_campaign.toml"]  # the campaign's twin (code inputs come from the import closure)

PAPER_TARGETS.setdefault("industrial", []).extend(
    [f"{RESULTS}/industrial/notebooks/02_thermal_campaign.ipynb", f"{RESULTS}/industrial/02_thermal_campaign.json"]
    + [f"{TH_FIG}/{f}.{ext}" for f in TH_FIGURES for ext in ("png", "svg", "json")]
)


# --source hardware (paperlib reproduce industrial --source hardware --rig-config RIG --emulate-rig): each day is
# recorded through the arm's rig (paperlib.experiments.industrial.rig_days: the real master, loop and writer
# against the emulated drives and RTDs around the campaign twin, in free-running lock step; source = twin,
# rig = emulated-hardware), then stored as the twin's days are. The rig file is an input: a changed rig reruns.
TH_RIG = config.get("rig_config") or ""
if SOURCE == "hardware":
    TH_REC_CODE = CODE_INPUTS(["paperlib.experiments.industrial.thermal", "paperlib.experiments.industrial.rig_days",
                               "paperlib.hardware.arm_selftest", "paperlib.hardware.arm_rig",
                               "paperlib.hardware.emulators.arm_rig", "paperlib.twin.robots.campaign_plant"])
    TH_REC_RIG = f" --rig-config '{TH_RIG}' --emulate-rig"
    TH_REC_INPUTS = TH_DATA + [TH_RIG]
else:
    TH_REC_CODE = CODE_INPUTS(["paperlib.experiments.industrial.thermal"])
    TH_REC_RIG = ""
    TH_REC_INPUTS = TH_DATA


# Twin recordings (source twin): with recording_storage analysis only what notebook 02 reads, the angles as
# integer counts (paperlib.experiments.industrial.thermal.storage); full keeps everything in float64.
# --source archive: the release's files, exactly as they were stored (RECORDING_SHELL); nothing simulated.
rule industrial_thermal_recording:
    input:
        code=TH_REC_CODE,
        data=TH_REC_INPUTS,
    output:
        f"{TH_REC}/{{thday}}.nc",
    wildcard_constraints:
        thday=r"r\d_d\d(_fault)?",
    params:
        storage=TH_STORAGE,
        float32=" ".join(TH_FLOAT32),
        plan=lambda wc: _TH.storage(TH_STORAGE, TH_FLOAT32),
    log:
        f"{RESULTS}/industrial/logs/recording_{{thday}}.log",
    # through the rig, a day is two processes in lock step (the master and the emulated devices, each polling for
    # the other's frame): one day at a time. Two at once on 2 cores took 0.82 ms a cycle each against 0.34 ms
    # alone (5,000 cycles, 2026-12-07), slower in sum, and far slower beside other jobs.
    threads: 2 if SOURCE == "hardware" else 1
    shell:
        RECORDING_SHELL("{PY} -m paperlib.experiments.industrial.thermal record --day {wildcards.thday} --output {output} "
                        "--storage {params.storage} --float32 {params.float32}" + TH_REC_RIG + " > {log} 2>&1")


room_notebook("industrial", "02_thermal_campaign", res=f"{RESULTS}/industrial", notebook=TH_NOTEBOOK,
              params={"recordings_dir": TH_REC, "figures_dir": TH_FIG,
                      "results_file": f"{RESULTS}/industrial/02_thermal_campaign.json",
                      "source": "twin" if SOURCE in (None, "hardware") else SOURCE, "archive": ARCHIVE},
              outputs={"figures": [f"{TH_FIG}/{f}.{ext}" for f in TH_FIGURES for ext in ("png", "svg", "json")]},
              inputs={"recordings": [f"{TH_REC}/{d}.nc" for d in TH_DAYS], "data": TH_DATA})
