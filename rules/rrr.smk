# Paper 002 (rrr): 3-RRR, Kostic friction by NLS, tracking before/after compensation.
# Needs from the Snakefile: PY, RESULTS, FIGURES, CODEGEN_OK, PAPER_TARGETS, CODE_INPUTS, room_notebook, room_table.
#
#   twin sampling run -> 01_identification (Table 2, Table 4, Fig. 4) -> 02_tracking (Table 5, Figs. 5-6, 9-14)
#                     -> results/rrr/paper_comparison.{csv,md}
#
# Sources: twin (default) or archive (`paperlib reproduce rrr --archive DIR`): the sampling run's rule copies
# it from the release (RECORDING_SHELL), and notebook 02 obtains each run it makes itself (the Table 5 paths,
# the location runs, the twin variants: recordings/tracking/...) through the kit's RecordingSource, from the
# release with no twin run. hardware is refused (Room.sources): there is no live 3-RRR rig yet.

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


def _rrr_figs(nb):
    return [f"{FIGURES}/rrr/{s}.{ext}" for s in RRR_FIGS[nb] for ext in ("png", "svg", "json")]


def _rrr_params(nb):
    p = {"results_file": f"{RRR_RES}/{nb}.json", "figures_dir": f"{FIGURES}/rrr", "formats": ["png", "svg"],
         "recording": RRR_REC, "source": SOURCE or "twin", "archive": ARCHIVE, "results_dir": RRR_RES}
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
room_table("rrr", res=RRR_RES)


# The identification data: the 21-point sampling run on the twin (source = twin), or its copy from the release.
rule rrr_sampling_recording:
    input:
        codegen=CODEGEN_OK,
        code=CODE_INPUTS(["paperlib.experiments.rrr.run"]),
        data=RRR_DATA,
    output:
        RRR_REC,
    log:
        f"{RRR_RES}/logs/sampling_recording.log",
    shell:
        RECORDING_SHELL("{PY} -m paperlib.experiments.rrr.run record-sampling --output {output} > {log} 2>&1")


# Notebook 01: Table 2 (Kostic and Coulomb + viscous fits), Table 4, Fig. 4.
# Notebook 02: Table 5, Figs. 5-6 and 9-14 (tracking before / after compensation).
for _nb in RRR_NB:
    room_notebook("rrr", _nb, res=RRR_RES, params=_rrr_params(_nb), outputs={"figures": _rrr_figs(_nb), "recordings": RRR_NB_RECS[_nb]},
                  inputs={"recording": RRR_REC, "reads": RRR_READS[_nb], "data": RRR_DATA})
