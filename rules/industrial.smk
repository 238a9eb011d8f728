# Room `industrial`: paper 001 (Dynamic and Friction Parameters of an Industrial Robot).
#
#   public TX40 files (mirror / download, sha256) -> results/industrial/recordings/tx40.nc (source: hardware)
#   -> notebooks/industrial/01_tx40_identification (papermill, -f params) -> figures/industrial, results/industrial
#   -> results/industrial/paper_comparison.{csv,md}
#
# The recording is imported public data, never committed. The files come from a local mirror
# (PAPERLIB_DATA_MIRROR or ../shared/external/staubli_tx40) or their public source (pooch).
# --source archive (paperlib reproduce industrial --archive DIR): the recordings are copied from the release
# (RECORDING_SHELL) and the notebooks get source/archive, so nothing is imported or simulated. --source hardware:
# the TX40 file is imported as with twin; the campaign's days come through the arm's rig (industrial_thermal.smk).

import yaml as _ind_yaml

with open("config/industrial.yaml") as _fh:
    IND_CFG = _ind_yaml.safe_load(_fh)
IND_CFG["tx40_identification"].update((_RUN_CFG.get("industrial") or {}).get("tx40_identification", {}))
IND_RES = f"{RESULTS}/industrial"
IND_FIG = f"{FIGURES}/industrial"
IND_NB = "01_tx40_identification"
IND_FIGS = [f"{IND_FIG}/{IND_NB.split('_')[0]}_tx40_{n}.{ext}" for n in ("validation", "stability", "friction")
            for ext in ("png", "svg", "json")]
IND_NOTEBOOK = f"notebooks/industrial/{IND_NB}.ipynb"
# Data the import and the notebook read (code inputs come from the import closure).
IND_DATA = ["paperlib/data/registry.toml", "data/robots/tx40.toml"]

# rules/industrial_thermal.smk adds the thermal campaign's targets, and its notebook, after this file.
PAPER_TARGETS["industrial"] = [f"{IND_RES}/{IND_NB}.json", f"{IND_RES}/notebooks/{IND_NB}.ipynb", *IND_FIGS,
                               f"{IND_RES}/paper_comparison.csv", f"{IND_RES}/paper_comparison.md"]
room_table("industrial", res=IND_RES)  # both notebooks' results, in their order


# Imported public data (source: hardware): fetched or read from a mirror, sha256 checked (archive: the release's copy).
rule industrial_tx40_recording:
    input:
        code=CODE_INPUTS(["paperlib.data.cli", "paperlib.data.tx40"]),  # the importer is named at run time
        registry="paperlib/data/registry.toml",
    output:
        f"{IND_RES}/recordings/tx40.nc",
    log:
        f"{IND_RES}/logs/tx40_recording.log",
    shell:
        RECORDING_SHELL("{PY} -m paperlib data fetch tx40 --output {output} > {log} 2>&1")


room_notebook("industrial", IND_NB, res=IND_RES, notebook=IND_NOTEBOOK, outputs={"figures": IND_FIGS},
              params={**IND_CFG["tx40_identification"], "recording": f"{IND_RES}/recordings/tx40.nc",
                      "results_dir": IND_RES, "figures_dir": IND_FIG, "source": "twin" if SOURCE in (None, "hardware") else SOURCE, "archive": ARCHIVE},
              inputs={"recording": f"{IND_RES}/recordings/tx40.nc", "codegen": CODEGEN_OK, "data": IND_DATA})
