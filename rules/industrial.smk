# Room `industrial`: paper 001 (Dynamic and Friction Parameters of an Industrial Robot).
#
#   public TX40 files (mirror / download, sha256) -> results/industrial/recordings/tx40.nc (source: hardware)
#   -> notebooks/industrial/01_tx40_identification (papermill, -f params) -> figures/industrial, results/industrial
#   -> results/industrial/paper_comparison.{csv,md}
#
# The recording is imported public data, never committed. The files come from a local mirror
# (PAPERLIB_DATA_MIRROR or ../shared/external/staubli_tx40) or their public source (pooch).

import yaml as _ind_yaml

with open("config/industrial.yaml") as _fh:
    IND_CFG = _ind_yaml.safe_load(_fh)
IND_CFG["tx40_identification"].update((_RUN_CFG.get("industrial") or {}).get("tx40_identification", {}))
IND_RES = f"{RESULTS}/industrial"
IND_FIG = f"{FIGURES}/industrial"
IND_NB = "01_tx40_identification"
IND_FIGS = [f"{IND_FIG}/{IND_NB.split('_')[0]}_tx40_{n}.{ext}" for n in ("validation", "stability", "friction")
            for ext in ("png", "svg", "json")]
IND_CODE = sorted(glob.glob("paperlib/estimation/*.py") + glob.glob("paperlib/experiments/industrial/*.py")
                  + glob.glob("paperlib/robots/serial/*.py")
                  + ["paperlib/data/tx40.py", "paperlib/data/registry.py",
                     "paperlib/data/registry.toml", "paperlib/control/excitation.py", "data/robots/tx40.toml"])

PAPER_TARGETS["industrial"] = [f"{IND_RES}/{IND_NB}.json", f"{IND_RES}/notebooks/{IND_NB}.ipynb", *IND_FIGS,
                               f"{IND_RES}/paper_comparison.csv", f"{IND_RES}/paper_comparison.md"]
COMPARISONS["industrial"] = f"{IND_RES}/paper_comparison.csv"


rule industrial:
    input:
        lambda wc: PAPER_TARGETS["industrial"],  # rules/industrial_thermal.smk adds its targets after this file


# Imported public data (source: hardware): fetched or read from a mirror, sha256 checked.
rule industrial_tx40_recording:
    input:
        "paperlib/data/registry.toml",
        "paperlib/data/tx40.py",
    output:
        f"{IND_RES}/recordings/tx40.nc",
    log:
        f"{IND_RES}/logs/tx40_recording.log",
    shell:
        "{PY} -m paperlib data fetch tx40 --output {output} > {log} 2>&1"


rule industrial_notebook_params:
    output:
        f"{IND_RES}/params/{IND_NB}.yaml",
    params:
        p=lambda wc: {**IND_CFG["tx40_identification"], "recording": f"{IND_RES}/recordings/tx40.nc",
                      "results_dir": IND_RES, "figures_dir": IND_FIG},
    run:
        import os

        text = _ind_yaml.safe_dump(params.p, sort_keys=True)
        if not os.path.exists(output[0]) or open(output[0]).read() != text:
            os.makedirs(os.path.dirname(output[0]), exist_ok=True)
            with open(output[0], "w") as fh:
                fh.write(text)


rule industrial_notebook_01:
    input:
        notebook=f"notebooks/industrial/{IND_NB}.ipynb",
        params=f"{IND_RES}/params/{IND_NB}.yaml",
        recording=f"{IND_RES}/recordings/tx40.nc",
        codegen=CODEGEN_OK,
        code=IND_CODE,
    output:
        executed=f"{IND_RES}/notebooks/{IND_NB}.ipynb",
        results=f"{IND_RES}/{IND_NB}.json",
        figures=IND_FIGS,
    log:
        f"{IND_RES}/logs/{IND_NB}.log",
    shell:
        "MPLBACKEND=Agg {PY} -m papermill {input.notebook} {output.executed} -f {input.params} -k paperlib "
        "--cwd . --no-progress-bar --log-output > {log} 2>&1"


rule industrial_paper_comparison:
    input:
        f"{IND_RES}/{IND_NB}.json",
        f"{IND_RES}/02_thermal_campaign.json",
    output:
        csv=f"{IND_RES}/paper_comparison.csv",
        md=f"{IND_RES}/paper_comparison.md",
    shell:
        "{PY} -m paperlib.comparison --paper industrial --results {input} --csv {output.csv} --md {output.md}"
