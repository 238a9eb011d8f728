"""The room's pipeline plan, shared by ``rules/bearing.smk`` and the tests.

Configuration: ``config/bearing.yaml`` with a run configuration's ``bearing:`` section merged over
it (:func:`load_config`); recordings from :func:`paperlib.experiments.bearing.study.recording_plan`;
notebooks, their figures and the parameters the pipeline passes them (:data:`NOTEBOOKS`,
:func:`notebook_params`), the recordings notebook 02 obtains itself (:func:`notebook_recordings`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping


from paperlib.experiments.bearing import classifier, study
from paperlib.experiments.kit.registry import load_room_config
from paperlib.experiments.kit.parameters import check as check_parameters
from paperlib.provenance import REPO_ROOT

__all__ = ["CONFIG_FILE", "NOTEBOOKS", "load_config", "reproduce_check", "notebook_outputs", "notebook_params", "notebook_recordings",
           "targets"]

CONFIG_FILE = REPO_ROOT / "config" / "bearing.yaml"

#: notebook -> figures it writes, recording roles it reads, pipeline files it reads.
NOTEBOOKS: dict[str, dict[str, Any]] = {
    "01_intrinsic_identification": {
        "figures": ["fig03a_sensed_torque_time", "fig03b_sensed_torque_angle", "fig03c_components",
                    "fig03d_residual", "periodogram_orders"],
        "recordings": ["no_load_1", "no_load_2"],
        "files": [],
        "config_params": ["cutoff_hz", "display_lowpass_hz"],
    },
    "02_bearing_inspection": {
        "figures": ["fig05a_trial_time", "fig05b_velocity", "classifier_histograms"],
        "recordings": ["trial_1", "trial_2", "trial_3", "no_load_1"],
        "files": ["model.json", "inspect_trials.json"],
        "config_params": ["cutoff_hz", "n_per_grade", "tune_seed", "test_seed"],
    },
}


def load_config(run_cfg: Mapping[str, Any] | None = None, path: str | Path = CONFIG_FILE) -> dict[str, Any]:
    """``config/bearing.yaml`` (over :data:`study.DEFAULTS`) with ``run_cfg["bearing"]`` merged over it.

    The merge is the kit's (:func:`paperlib.experiments.kit.config.deep_merge`); an unknown key or a
    value of the wrong type raises :class:`~paperlib.experiments.kit.config.ConfigError` (a
    ``ValueError``) naming the key and the file.
    """
    cfg = load_room_config("bearing", run_cfg, path=path)
    return {**study.DEFAULTS, **cfg}


def reproduce_check(run_config: Mapping[str, Any], args: Any) -> None:
    """``paperlib reproduce``'s check of ``--source hardware``, before Snakemake runs.

    Raises
    ------
    paperlib.experiments.kit.rig_config.RigUnavailable
        No rig file (``--rig-config``), a file without the room's keys, a real rig whose interface is
        absent, or ``--emulate-rig`` where the emulated devices cannot be brought up (not root, no
        network namespaces).
    """
    from paperlib.experiments.bearing.rig_runs import RIG_REQUIRED_KEYS
    from paperlib.experiments.kit.rig_runs import hardware_check

    hardware_check("bearing", args, RIG_REQUIRED_KEYS, "the joint twin")


def notebook_outputs(nb: str, res: str, fig: str, formats: list[str]) -> dict[str, Any]:
    """Executed notebook, results JSON and figure files (with sidecars) of one notebook."""
    figs = [f"{fig}/{f}.{ext}" for f in NOTEBOOKS[nb]["figures"] for ext in list(formats) + ["json"]]
    return {"executed": f"{res}/notebooks/{nb}.ipynb", "results": f"{res}/{nb}.json", "figures": figs}


def notebook_recordings(nb: str, cfg: Mapping[str, Any], res: str) -> list[str]:
    """The recordings ``nb`` obtains itself (through its RecordingSource): notebook 02's bearing populations."""
    if nb != "02_bearing_inspection":
        return []
    names = (classifier.population_names(cfg["n_per_grade"], cfg["tune_seed"])
             + classifier.population_names(cfg["n_per_grade"], cfg["test_seed"]))
    return [f"{res}/recordings/{n}.nc" for n in names]


def notebook_params(nb: str, cfg: Mapping[str, Any], res: str, fig: str, *, source: str = "twin",
                    archive: str | None = None) -> dict[str, Any]:
    """The papermill parameters the pipeline passes to ``nb``.

    ``source`` (``twin``, ``hardware`` or ``archive``) and ``archive`` (the release folder): where the
    recordings the notebook obtains itself come from; ``results_dir`` is ``res``. With ``hardware`` the
    no-load runs and trials are the rig's (made by the pipeline's recording rule, passed as files), and
    the pass/fail study's bearing populations (notebook 02: ``2 x 2 x n_per_grade`` inspections of
    twin-drawn bearings) are made by the twin, labelled so (``source = twin``, no ``rig`` attribute):
    they are not run on the rig.
    """
    if source == "hardware":
        source = "twin"
    plan = study.recording_plan(cfg, root=f"{res}/recordings")
    p: dict[str, Any] = {k: cfg[k] for k in NOTEBOOKS[nb]["config_params"]}
    p.update({"source": source, "archive": archive, "results_dir": res})
    p.update({"recordings": {r: plan[r]["path"] for r in NOTEBOOKS[nb]["recordings"]},
              "output_dir": fig, "results_file": f"{res}/{nb}.json", "formats": list(cfg.get("formats", ["png", "svg"]))})
    if nb == "02_bearing_inspection":
        p["model_file"] = f"{res}/model.json"
    check_parameters(f"notebooks/bearing/{nb}.ipynb", p)
    return p


def targets(cfg: Mapping[str, Any], res: str, fig: str) -> list[str]:
    """Every output of the room."""
    plan = study.recording_plan(cfg, root=f"{res}/recordings")
    out = [s["path"] for s in plan.values()] + [f"{res}/model.json", f"{res}/inspect_trials.json"]
    for nb in NOTEBOOKS:
        out += notebook_recordings(nb, cfg, res)
        o = notebook_outputs(nb, res, fig, list(cfg.get("formats", ["png", "svg"])))
        out += [o["executed"], o["results"], *o["figures"]]
    return out + [f"{res}/paper_comparison.csv", f"{res}/paper_comparison.md"]
