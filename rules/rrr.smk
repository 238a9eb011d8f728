# Paper 002 (rrr): 3-RRR, Kostic friction by NLS, tracking before/after compensation.
# Needs from the Snakefile: PY, RESULTS, FIGURES, CODEGEN_OK, PAPER_TARGETS, COMPARISONS.
#
#   twin sampling run -> 01_identification (Table 2, Table 4, Fig. 4) -> 02_tracking (Table 5, Figs. 5-6, 9-14)
#                     -> results/rrr/paper_comparison.{csv,md}

RRR_NB = ["01_identification", "02_tracking"]
RRR_REC = f"{RESULTS}/rrr/recordings/sampling_pd.nc"
RRR_FIGS = {
    "01_identification": ["fig04_sampling_positions", "fig_table2_friction_fits"],
    "02_tracking": ["fig05_location_error", "fig06_error_histogram", "fig09_joint_velocities",
                    "fig10_drive1_stages", "fig11_drive2_stages", "fig12_drive3_stages",
                    "fig13_friction_along_path", "fig14_speed_errors", "fig_peak_origin"],
}
RRR_CODE = sorted(glob.glob("paperlib/experiments/rrr/*.py")) + [
    "paperlib/twin/robots/three_rrr.py", "paperlib/robots/three_rrr.py", "paperlib/kernels/three_rrr.py",
    "paperlib/estimation/nls.py", "paperlib/friction/kostic.py", "paperlib/control/ladder.py",
    "data/robots/three_rrr.toml", "data/twin/three_rrr_twin.toml",
]


def _rrr_figs(nb):
    return [f"{FIGURES}/rrr/{s}.{ext}" for s in RRR_FIGS[nb] for ext in ("png", "svg", "json")]


PAPER_TARGETS["rrr"] = (
    [RRR_REC]
    + [f"{RESULTS}/rrr/{nb}.json" for nb in RRR_NB]
    + [f"{RESULTS}/rrr/notebooks/{nb}.ipynb" for nb in RRR_NB]
    + [f for nb in RRR_NB for f in _rrr_figs(nb)]
    + [f"{RESULTS}/rrr/paper_comparison.csv", f"{RESULTS}/rrr/paper_comparison.md"]
)
COMPARISONS["rrr"] = f"{RESULTS}/rrr/paper_comparison.csv"


rule rrr:
    input:
        PAPER_TARGETS["rrr"],


# The identification data: the 21-point sampling run on the twin (source = twin).
rule rrr_sampling_recording:
    input:
        codegen=CODEGEN_OK,
        code=RRR_CODE,
    output:
        RRR_REC,
    log:
        f"{RESULTS}/rrr/logs/sampling_recording.log",
    shell:
        "{PY} -m paperlib.experiments.rrr.run record-sampling --output {output} > {log} 2>&1"


rule rrr_params:
    wildcard_constraints:
        nb="|".join(RRR_NB),
    output:
        f"{RESULTS}/rrr/params/{{nb}}.yaml",
    run:
        import yaml

        p = {"results_file": f"{RESULTS}/rrr/{wildcards.nb}.json", "figures_dir": f"{FIGURES}/rrr",
             "formats": ["png", "svg"], "recording": RRR_REC}
        if wildcards.nb == "02_tracking":
            p["identification_file"] = f"{RESULTS}/rrr/01_identification.json"
        with open(output[0], "w") as fh:
            yaml.safe_dump(p, fh, sort_keys=True)


RRR_NB_SHELL = (
    "PYTHONPATH=$PWD {PY} -m papermill {input.nb} {output.nb} -f {input.params} -k paperlib --cwd . "
    "--no-progress-bar > {log} 2>&1"
)


# Notebook 01: Table 2 (Kostic and Coulomb + viscous fits), Table 4, Fig. 4.
rule rrr_notebook_identification:
    input:
        nb="notebooks/rrr/01_identification.ipynb",
        params=f"{RESULTS}/rrr/params/01_identification.yaml",
        rec=RRR_REC,
        code=RRR_CODE,
    output:
        nb=f"{RESULTS}/rrr/notebooks/01_identification.ipynb",
        res=f"{RESULTS}/rrr/01_identification.json",
        figs=_rrr_figs("01_identification"),
    log:
        f"{RESULTS}/rrr/logs/01_identification.log",
    shell:
        RRR_NB_SHELL


# Notebook 02: Table 5, Figs. 5-6 and 9-14 (tracking before / after compensation).
rule rrr_notebook_tracking:
    input:
        nb="notebooks/rrr/02_tracking.ipynb",
        params=f"{RESULTS}/rrr/params/02_tracking.yaml",
        rec=RRR_REC,
        ident=f"{RESULTS}/rrr/01_identification.json",
        code=RRR_CODE,
    output:
        nb=f"{RESULTS}/rrr/notebooks/02_tracking.ipynb",
        res=f"{RESULTS}/rrr/02_tracking.json",
        figs=_rrr_figs("02_tracking"),
    log:
        f"{RESULTS}/rrr/logs/02_tracking.log",
    shell:
        RRR_NB_SHELL


rule rrr_comparison:
    input:
        [f"{RESULTS}/rrr/{nb}.json" for nb in RRR_NB],
    output:
        csv=f"{RESULTS}/rrr/paper_comparison.csv",
        md=f"{RESULTS}/rrr/paper_comparison.md",
    shell:
        "{PY} -m paperlib.comparison --paper rrr --results {input} --csv {output.csv} --md {output.md}"
