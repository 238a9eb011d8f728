# Paper 001 (industrial), thermal campaign on the TX40 twin: recordings -> notebook 02 -> figures, results.
# Written against the Snakefile contract (PY, RESULTS, FIGURES, PAPER_TARGETS, COMPARISONS); the
# industrial room's rules/industrial.smk defines `rule industrial` over PAPER_TARGETS["industrial"].

from pathlib import Path

from paperlib.experiments.industrial import thermal as _TH

# recording_storage: config/industrial.yaml's thermal_campaign section, a run configuration's
# industrial.thermal_campaign over it, `--config recording_storage=full` (paperlib reproduce --full-recordings) last
TH_STORAGE, TH_FLOAT32 = _TH.storage_settings(_RUN_CFG, config.get("recording_storage"))
TH_DAYS = ["r1_d1", "r1_d2", "r1_d3", "r1_d4", "r2_d1", "r2_d2", "r2_d3", "r2_d4", "r2_d5_fault"]
TH_REC = f"{RESULTS}/industrial/recordings"
TH_FIG = f"{FIGURES}/industrial"
TH_FIGURES = ["table1_time_constants", "fig09_parameters_per_cycle", "fig12_robots_and_fault", "fig06_joint3_friction_time", "fig07_all_joints_friction_time",
              "fig10_friction_velocity_cold_hot", "fig11_thermal_model_prediction", "fig13_anomaly_detection"]
TH_CODE = ["paperlib/twin/robots/campaign.py", "paperlib/twin/thermal.py", "paperlib/friction/lugre.py",
           "paperlib/estimation/plateaus.py", "paperlib/estimation/thermal.py",
           "paperlib/estimation/thermal_monitor.py", "paperlib/experiments/industrial/thermal.py",
           "paperlib/experiments/industrial/thermal_figures.py", "paperlib/experiments/industrial/thermal_inertial.py", "data/twin/tx40_thermal_campaign.toml"]

PAPER_TARGETS.setdefault("industrial", []).extend(
    [f"{RESULTS}/industrial/notebooks/02_thermal_campaign.ipynb", f"{RESULTS}/industrial/02_thermal_campaign.json"]
    + [f"{TH_FIG}/{f}.{ext}" for f in TH_FIGURES for ext in ("png", "svg", "json")]
)


# Twin recordings (source twin): with recording_storage analysis only what notebook 02 reads, the angles as
# integer counts (paperlib.experiments.industrial.thermal.storage); full keeps everything in float64.
rule industrial_thermal_recording:
    input:
        TH_CODE[:3] + ["data/twin/tx40_thermal_campaign.toml", "paperlib/recordings/storage.py"],
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
    shell:
        "{PY} -m paperlib.experiments.industrial.thermal record --day {wildcards.thday} --output {output} "
        "--storage {params.storage} --float32 {params.float32} > {log} 2>&1"


rule industrial_thermal_params:
    output:
        f"{RESULTS}/industrial/params/02_thermal_campaign.yaml",
    run:
        import yaml

        Path(output[0]).parent.mkdir(parents=True, exist_ok=True)
        Path(output[0]).write_text(yaml.safe_dump({
            "recordings_dir": TH_REC, "figures_dir": TH_FIG,
            "results_file": f"{RESULTS}/industrial/02_thermal_campaign.json",
        }))


rule industrial_thermal_notebook:
    input:
        notebook="notebooks/industrial/02_thermal_campaign.ipynb",
        params=f"{RESULTS}/industrial/params/02_thermal_campaign.yaml",
        recordings=[f"{TH_REC}/{d}.nc" for d in TH_DAYS],
        code=TH_CODE,
    output:
        executed=f"{RESULTS}/industrial/notebooks/02_thermal_campaign.ipynb",
        results=f"{RESULTS}/industrial/02_thermal_campaign.json",
        figures=[f"{TH_FIG}/{f}.{ext}" for f in TH_FIGURES for ext in ("png", "svg", "json")],
    log:
        f"{RESULTS}/industrial/logs/02_thermal_campaign.log",
    shell:
        "MPLBACKEND=Agg {PY} -m papermill {input.notebook} {output.executed} -f {input.params} -k paperlib "
        "--cwd . --no-progress-bar > {log} 2>&1"
