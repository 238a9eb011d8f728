"""The ``mems`` room's plan: configuration, which recordings come from where, notebook parameters, outputs.

``rules/mems.smk`` is thin: it asks this module what to build. Data flow::

    codegen check -> recordings -> notebooks/mems (papermill, -f params) -> figures/mems, results/mems/*.json
                                                                         -> results/mems/paper_comparison.{csv,md}

Configuration (``config/mems.yaml``; a run configuration given to ``paperlib reproduce --config``,
e.g. ``config/smoke.yaml``, is merged over it key by key from its ``mems:`` section, and its
``results_root`` / ``figures_root`` move the outputs to ``<root>/mems``):

``source``
    ``twin`` (default): recordings listed by name in ``data/recordings/registry.toml`` are
    read from there, the others are made by the twin into ``<results_dir>/recordings/``.
    ``hardware``: the same, but missing recordings are made on the robot
    (``paperlib run --rig hardware``); needs ``rig_config`` and refuses without a rig.
    ``archive``: every recording must be in the registry; nothing is made.
``rig_config``
    Rig TOML (``config/rig.example.toml`` documents the keys); hardware only.
``use_archive``
    Take registered recordings from the archive (default true).
``results_dir``, ``figures_dir``
    Output folders (``results/mems``, ``figures/mems``).
``formats``
    Figure formats (``[png, svg]``).
``recording_storage``
    What the pipeline stores of each twin recording it makes: ``analysis`` (default) keeps only
    the data variables the notebooks read (:data:`NOTEBOOK_READS`, plus the online estimate of a
    recording another one warm-starts from), with the variables of ``float32_channels`` in single
    precision; ``full`` keeps everything the twin logs, in float64 at the full rate
    (``paperlib reproduce mems --full-recordings``). Archived and hardware recordings are never
    reduced: a twin recording can be made again from its spec, a measured one cannot.
``float32_channels``
    Variables stored in single precision when ``recording_storage`` is ``analysis``.
``recordings``
    name -> recording spec (:data:`paperlib.experiments.mems.sources.SPEC_KEYS`; plus optional
    ``archive_name``, the registry name if it differs).
``notebooks``
    notebook -> its settings (recordings it uses by role, and analysis parameters).

Command line (used by the Snakefile's shell rules)::

    python -m paperlib.experiments.mems.pipeline record --name N --spec JSON --source twin --output F.nc [--warm-from W.nc] [--store JSON]
    python -m paperlib.experiments.mems.pipeline verify --name N --file F.nc --output CHECK
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import yaml

from paperlib import provenance
from paperlib.experiments.kit.config import deep_merge, read_run_config
from paperlib.experiments.kit.registry import load_room_config
from paperlib.experiments.kit.parameters import check as check_parameters
from paperlib.experiments.mems import sources
from paperlib.recordings.storage import KEEP_MODES, check_mode, storage_plan

__all__ = ["ROOT", "DEFAULT_CONFIG", "NOTEBOOKS", "NOTEBOOK_READS", "NOTEBOOK_RUNS", "beyond_storage", "KEEP_MODES", "storage", "load_config", "merge",
           "normalise_config", "reproduce_check", "recording_plan", "notebook_params", "notebook_outputs", "figure_files", "final_targets", "code_inputs", "codegen_inputs",
           "write_params", "made_outputs", "main"]

ROOT = provenance.REPO_ROOT
DEFAULT_CONFIG = ROOT / "config" / "mems.yaml"
SLUG = "mems"
NOTEBOOK_DIR = "notebooks/mems"

#: Notebook -> the figure stems it writes (named after the paper's figures).
NOTEBOOKS: dict[str, list[str]] = {
    "01_workspace_trajectories": ["fig04a_condition_index_joint_space", "fig04b_condition_index_task_space"],
    "02_model_order": ["fig05_model_order"],
    "03_friction_fits": ["fig06a_friction_velocity_joint1", "fig06b_friction_velocity_joint2",
                         "fig07a_friction_time_joint1", "fig07b_friction_time_joint2"],
    "04_controller_comparison": ["fig08_peak_errors", "fig09_rms_errors", "fig10a_setpoint_acceleration",
                                 "fig10b_setpoint_velocity", "fig10c_setpoint_position", "fig10d_errors_pd",
                                 "fig10e_errors_ctc", "fig10f_errors_ac", "fig11_torque_shares"],
    "05_temperature_convergence": ["fig12a_friction_temperature_joint1", "fig12b_friction_temperature_joint2",
                                   "fig13_pi_pds", "fig14a_pi_F_order0", "fig14b_pi_F_order1",
                                   "fig15a_pi_F_order2", "fig15b_pi_F_order3"],
    # beyond the paper (issue 17): IMU vs encoder-only, automatic model order, uncertainty
    "06_beyond_the_paper": ["beyond_imu_vs_encoder", "beyond_sweeps", "beyond_model_selection", "beyond_calibration",
                            "beyond_friction_bands"],
    # issue 28: notebook 04's runs and a short identification campaign on the twin calibrated to Fig. 11
    "07_calibrated_twin": ["calibrated_fig11_torque_shares", "calibrated_headlines"],
}

_PIPELINE_ONLY_SPEC_KEYS = ("archive_name", "description")

#: The data variables each notebook reads from its recordings (its own code and the layers' it
#: calls: the estimator replay reads q, qd, qdd, tau_m; Figs. 6-7 and 12-15 the online estimate and
#: the twin's true friction; Figs. 8-11 the setpoints, q and the torque parts). With
#: ``recording_storage: analysis`` a twin recording keeps the union over the notebooks that use it.
NOTEBOOK_READS: dict[str, tuple[str, ...]] = {
    "01_workspace_trajectories": (),
    "02_model_order": ("q", "qd", "qdd", "tau_m"),
    "03_friction_fits": ("q", "qd", "qdd", "tau_m", "pi_hat", "Q_F_true", "tau_F_true"),
    "04_controller_comparison": ("q", "q_sp", "qd_sp", "qdd_sp", "tau_parts"),
    "05_temperature_convergence": ("q", "qd", "qdd", "tau_m", "pi_hat", "temperature", "Q_F_true", "tau_F_true"),
    "06_beyond_the_paper": ("q", "qd", "qdd", "tau_m"),  # model selection replays; friction bands read qd
    "07_calibrated_twin": (),  # none of the plan's: it makes its own runs (calibrated_storage)
}
#: What a recording keeps when another one warm-starts from it (:func:`sources.final_estimate`
#: averages the online estimate over its last seconds).
WARM_START_READS: tuple[str, ...] = ("pi_hat",)


#: The one merge rule of run configurations (:func:`paperlib.experiments.kit.config.deep_merge`).
merge = deep_merge


def load_config(path: str | Path | None = None, results_root: str | None = None,
                figures_root: str | None = None) -> dict[str, Any]:
    """The room's configuration, with a run configuration ``path`` (if given) merged over it, normalised.

    Parameters
    ----------
    path : path-like, optional
        A run configuration: its ``mems:`` section is merged over ``config/mems.yaml``; its
        ``results_root`` / ``figures_root`` (unless given here) place the outputs in
        ``<root>/mems``.
    results_root, figures_root : str, optional
        Output roots (default ``results``, ``figures``).
    """
    over: dict[str, Any] = {}
    if path is not None and Path(path).resolve() != DEFAULT_CONFIG.resolve():
        over = read_run_config(path)
    cfg = load_room_config(SLUG, over, path=DEFAULT_CONFIG)
    results_root = results_root or over.get("results_root")
    figures_root = figures_root or over.get("figures_root")
    if results_root:
        cfg["results_dir"] = f"{results_root}/{SLUG}"
    if figures_root:
        cfg["figures_dir"] = f"{figures_root}/{SLUG}"
    return normalise_config(cfg)


def normalise_config(cfg: Mapping[str, Any], *, check_rig: bool = True) -> dict[str, Any]:
    """Check a configuration and fill defaults.

    ``check_rig=False`` skips the rig check of ``source: hardware`` (the rules of every room are read
    for any build; a hardware recording still checks its rig when it is made).

    Raises
    ------
    ValueError
        Unknown source, unknown notebook, a notebook using an undefined recording.
    sources.RigUnavailable
        ``source: hardware`` without a usable rig.
    """
    cfg = copy.deepcopy(dict(cfg))
    cfg.setdefault("source", "twin")
    cfg.setdefault("rig_config", None)
    cfg.setdefault("use_archive", True)
    cfg.setdefault("results_dir", f"results/{SLUG}")
    cfg.setdefault("figures_dir", f"figures/{SLUG}")
    cfg.setdefault("formats", ["png", "svg"])
    cfg.setdefault("registry", "data/recordings/registry.toml")
    cfg.setdefault("recordings", {})
    cfg.setdefault("notebooks", {})
    cfg.setdefault("sweep", None)
    cfg.setdefault("sensitivity", None)
    cfg.setdefault("recording_storage", "analysis")
    cfg.setdefault("float32_channels", [])
    cfg.setdefault("archive", None)
    check_mode(cfg["recording_storage"])
    if cfg["archive"] and cfg["source"] != "archive":
        raise ValueError(f"config: archive {cfg['archive']!r} is a data release; it needs source 'archive', "
                         f"not {cfg['source']!r}")
    if cfg["source"] not in sources.SOURCES:
        raise ValueError(f"config: source must be one of {sources.SOURCES}, not {cfg['source']!r}")
    if cfg["source"] == "hardware" and check_rig:
        sources.require_rig(cfg["rig_config"])
    unknown = sorted(set(cfg["notebooks"]) - set(NOTEBOOKS))
    if unknown:
        raise ValueError(f"config: unknown notebook(s) {unknown}; known: {sorted(NOTEBOOKS)}")
    for nb in NOTEBOOKS:
        cfg["notebooks"].setdefault(nb, {})
        for role, rec in _notebook_recordings(cfg, nb).items():
            if rec not in cfg["recordings"]:
                raise ValueError(f"config: notebook {nb} uses recording {rec!r} ({role}), which is not under 'recordings'")
    for name, spec in cfg["recordings"].items():
        bad = sorted(set(spec) - set(sources.SPEC_KEYS) - set(_PIPELINE_ONLY_SPEC_KEYS))
        if bad:
            raise ValueError(f"config: recording {name!r} has unknown key(s) {bad}")
        if spec.get("warm_start") and spec["warm_start"] not in cfg["recordings"]:
            raise ValueError(f"config: recording {name!r} warm-starts from unknown recording {spec['warm_start']!r}")
    return cfg


def _notebook_recordings(cfg: Mapping[str, Any], nb: str) -> dict[str, str]:
    """Role -> recording name used by a notebook (``recording`` or ``recordings`` settings)."""
    s = cfg["notebooks"].get(nb, {})
    out: dict[str, str] = {}
    if s.get("recording"):
        out["main"] = s["recording"]
    out.update(s.get("recordings") or {})
    return out


def reproduce_check(run_config: Mapping[str, Any], args: Any) -> None:
    """``paperlib reproduce``'s check of the room's configuration, before Snakemake runs.

    Loads the configuration as the rules will (``--config``, output roots) and applies
    ``--source`` / ``--rig-config``. Raises ``ValueError`` / ``OSError`` for a bad configuration and
    :class:`~paperlib.experiments.mems.sources.RigUnavailable` for ``--source hardware`` without a rig.
    """
    results_root = getattr(args, "results_dir", None) or run_config.get("results_root") or "results"
    figures_root = getattr(args, "figures_dir", None) or run_config.get("figures_root") or "figures"
    cfg = load_config(getattr(args, "config", None), results_root=results_root, figures_root=figures_root)
    given = {k: v for k, v in (("source", getattr(args, "source", None)),
                               ("rig_config", getattr(args, "rig_config", None))) if v is not None}
    if given:
        normalise_config(merge(cfg, given))


def recording_plan(cfg: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Where each recording comes from.

    Returns
    -------
    dict name -> {"path": str (relative to the repo root), "origin": "archive" | "twin" | "hardware",
                  "spec": dict (run spec without pipeline-only keys), "warm_from": name or None}

    With a data release (``archive``: ``paperlib reproduce mems --archive DIR``) every recording
    has origin ``"release"``: it is the file of the same name the release keeps (copied out by
    the recording rule, checked by sha256), not the registry's.

    Raises
    ------
    ValueError
        ``source: archive`` without a release and a recording is not in the registry.
    """
    plan: dict[str, dict[str, Any]] = {}
    registry = ROOT / cfg["registry"]
    rdir = Path(cfg["results_dir"]) / "recordings"
    for name, spec in cfg["recordings"].items():
        spec = dict(spec)
        if cfg.get("archive"):
            plan[name] = {"path": str(rdir / f"{name}.nc"), "origin": "release",
                          "spec": {k: v for k, v in spec.items() if k not in _PIPELINE_ONLY_SPEC_KEYS},
                          "warm_from": None}
            continue
        arch_name = spec.get("archive_name") or name
        archived = sources.registry_lookup(arch_name, registry) if (cfg["use_archive"] or cfg["source"] == "archive") else None
        run_spec = {k: v for k, v in spec.items() if k not in _PIPELINE_ONLY_SPEC_KEYS}
        if archived is not None:
            path = archived.resolve()
            try:
                rel = str(path.relative_to(ROOT))
            except ValueError:
                rel = str(path)
            plan[name] = {"path": rel, "origin": "archive", "spec": run_spec, "warm_from": None, "archive_name": arch_name}
        elif cfg["source"] == "archive":
            raise ValueError(f"config: source 'archive' but recording {name!r} (registry name {arch_name!r}) is not "
                             f"listed in {cfg['registry']}")
        else:
            warm = run_spec.pop("warm_start", None)
            plan[name] = {"path": str(rdir / f"{name}.nc"), "origin": cfg["source"], "spec": run_spec, "warm_from": warm}
    return plan


def storage(cfg: Mapping[str, Any], name: str) -> dict[str, Any]:
    """How the pipeline stores the twin recording ``name``: ``{"keep", "float32", "purpose"}``.

    ``keep`` is None (everything, float64) with ``recording_storage: full``; otherwise the union of
    :data:`NOTEBOOK_READS` over the notebooks that use the recording, plus
    :data:`WARM_START_READS` when another recording warm-starts from it. ``float32`` lists the
    kept variables of ``float32_channels``, except the warm-start ones of such a recording (the
    next run starts from them: rounding them would change that run). ``resolution``: the steps
    the twin quantizes ``q`` and ``tau_m`` to (:func:`sources.twin_resolutions`), stored as
    integer counts, bit for bit.
    """
    users = [nb for nb in NOTEBOOKS if name in _notebook_recordings(cfg, nb).values()]
    warm_source = any(spec.get("warm_start") == name for spec in cfg["recordings"].values())
    return storage_plan(cfg["recording_storage"], {nb: NOTEBOOK_READS.get(nb) for nb in users},
                        also={"the warm start": WARM_START_READS} if warm_source else None,
                        float32=cfg["float32_channels"], resolution=sources.twin_resolutions(),
                        full_command="paperlib reproduce mems --full-recordings")


def notebook_params(cfg: Mapping[str, Any], plan: Mapping[str, Mapping[str, Any]], nb: str) -> dict[str, Any]:
    """The papermill parameters of one notebook in the pipeline (recordings read as files)."""
    s = dict(cfg["notebooks"].get(nb, {}))
    roles = _notebook_recordings(cfg, nb)
    s.pop("recording", None)
    s.pop("recordings", None)
    params: dict[str, Any] = {
        "source": "archive",
        "recordings": {role: plan[rec]["path"] for role, rec in roles.items()},
        "rig_config": None,
        "output_dir": cfg["figures_dir"],
        "results_file": str(Path(cfg["results_dir"]) / f"{nb}.json"),
        "formats": list(cfg["formats"]),
        "pipeline_source": cfg["source"],
    }
    if nb in NOTEBOOK_RUNS:
        # the notebook's own twin runs: made now (twin) or read from the release (archive)
        params.update({"runs_source": "archive" if cfg.get("archive") else "twin", "archive": cfg.get("archive"),
                       "runs_results_dir": cfg["results_dir"], "runs_store": beyond_storage(cfg)})
    if nb == CALIBRATED_NOTEBOOK:  # no recording of the plan: only runs of its own, always of the (calibrated) twin
        for k in ("source", "recordings", "rig_config"):
            params.pop(k)
        runs = s.pop("runs")
        params.update({"specs": calibrated_specs(cfg, runs), "runs_store": calibrated_storage(cfg, runs),
                       "stated_results": {k: str(Path(cfg["results_dir"]) / f"{k}.json") for k in CALIBRATED_READS}})
    params.update(s)
    check_parameters(f"{NOTEBOOK_DIR}/{nb}.ipynb", params)
    return params


#: Notebooks that make twin runs of their own (beyond the plan's recordings), stored as recordings
#: under ``<results>/mems/recordings/`` through the kit's RecordingSource.
NOTEBOOK_RUNS: tuple[str, ...] = ("06_beyond_the_paper", "07_calibrated_twin")
#: The notebook that remakes notebook 04's runs on the twin calibrated to Fig. 11 (issue 28), and the
#: notebooks whose results it reads (the stated twin's numbers, for its side-by-side figure).
CALIBRATED_NOTEBOOK = "07_calibrated_twin"
CALIBRATED_READS: tuple[str, ...] = ("04_controller_comparison", "06_beyond_the_paper")


def calibrated_specs(cfg: Mapping[str, Any], runs: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Notebook 07's run specs: role -> the plan's spec of recording ``runs[role]``, warm starts named by role.

    Raises
    ------
    ValueError
        A role names no recording of the configuration, or warm-starts from a recording no role names.
    """
    role_of = {rec: role for role, rec in runs.items()}
    out: dict[str, dict[str, Any]] = {}
    for role, rec in runs.items():
        if rec not in cfg["recordings"]:
            raise ValueError(f"notebooks.{CALIBRATED_NOTEBOOK}.runs: {role} names no recording {rec!r}")
        spec = {k: v for k, v in cfg["recordings"][rec].items() if k not in _PIPELINE_ONLY_SPEC_KEYS}
        warm = spec.pop("warm_start", None)
        if warm:
            if warm not in role_of:
                raise ValueError(f"notebooks.{CALIBRATED_NOTEBOOK}.runs: {rec} warm-starts from {warm!r}, which no "
                                 "role names")
            spec["warm_start"] = role_of[warm]
        out[role] = spec
    return out


def calibrated_storage(cfg: Mapping[str, Any], runs: Mapping[str, str]) -> dict[str, Any]:
    """What is kept of notebook 07's runs, by role in lower case (the names it stores them under).

    The controller runs keep what notebook 04 reads of them, a run others warm-start from keeps the
    warm start's variables, as :func:`storage` does for the plan's recordings.
    """
    warm_sources = {cfg["recordings"][rec].get("warm_start") for rec in runs.values()}
    out = {}
    for role, rec in runs.items():
        users = {"04_controller_comparison": NOTEBOOK_READS["04_controller_comparison"]} \
            if rec in _notebook_recordings(cfg, "04_controller_comparison").values() else {}
        out[role.lower()] = storage_plan(cfg["recording_storage"], users,
                                         also={"the warm start": WARM_START_READS} if rec in warm_sources else None,
                                         float32=cfg["float32_channels"], resolution=sources.twin_resolutions(),
                                         full_command="paperlib reproduce mems --full-recordings")
    return out


def notebook_data(nb: str) -> list[str]:
    """Data files a notebook reads: the robot's, and the twin's and its calibration for notebook 07."""
    return list(NOTEBOOK_DATA) + (list(RECORDING_DATA[1:]) + [CALIBRATION_DATA] if nb == CALIBRATED_NOTEBOOK else [])


def notebook_result_inputs(cfg: Mapping[str, Any], nb: str) -> list[str]:
    """Other notebooks' results a notebook reads (notebook 07: 04's and 06's)."""
    return [str(Path(cfg["results_dir"]) / f"{k}.json") for k in CALIBRATED_READS] if nb == CALIBRATED_NOTEBOOK else []


def beyond_storage(cfg: Mapping[str, Any]) -> dict[str, Any] | None:
    """What is stored of notebook 06's own twin runs: None, the whole run, float64.

    Its studies read the run's encoder and IMU channels, the twin's truth and the quantizers'
    settings (:func:`paperlib.experiments.mems.beyond.variants` re-quantizes the channels), so
    nothing is dropped whatever ``recording_storage`` says; the analysis reads the file back, so a
    build from the release computes the same numbers.
    """
    return None


def write_params(path: str | Path, params: Mapping[str, Any]) -> None:
    """Write a papermill parameters file (YAML, keys sorted)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(yaml.safe_dump(json.loads(json.dumps(params)), sort_keys=True))


def figure_files(cfg: Mapping[str, Any], nb: str) -> list[str]:
    """Figure files (each format plus the provenance sidecar ``.json``) a notebook writes."""
    fdir = Path(cfg["figures_dir"])
    out = []
    for stem in NOTEBOOKS[nb]:
        out += [str(fdir / f"{stem}.{fmt}") for fmt in cfg["formats"]]
        out.append(str(fdir / f"{stem}.json"))
    return out


def notebook_outputs(cfg: Mapping[str, Any], nb: str) -> dict[str, Any]:
    """Executed notebook, results file and figure files of a notebook."""
    r = Path(cfg["results_dir"])
    return {"executed": str(r / "notebooks" / f"{nb}.ipynb"), "results": str(r / f"{nb}.json"),
            "figures": figure_files(cfg, nb)}


def notebook_recording_inputs(cfg: Mapping[str, Any], plan: Mapping[str, Mapping[str, Any]], nb: str) -> list[str]:
    """Recording files (and archive checks) a notebook depends on."""
    out = []
    for rec in _notebook_recordings(cfg, nb).values():
        out.append(plan[rec]["path"])
        if plan[rec]["origin"] == "archive":
            out.append(str(Path(cfg["results_dir"]) / "checks" / f"archive_{rec}.ok"))
    return out


def comparison_outputs(cfg: Mapping[str, Any]) -> list[str]:
    r = Path(cfg["results_dir"])
    return [str(r / "paper_comparison.csv"), str(r / "paper_comparison.md")]


def final_targets(cfg: Mapping[str, Any]) -> list[str]:
    """Everything ``rule all`` asks for."""
    out = []
    for nb in NOTEBOOKS:
        o = notebook_outputs(cfg, nb)
        out += [o["executed"], o["results"]] + o["figures"]
    return out + comparison_outputs(cfg)


#: Data files the notebooks read (the robot's parameters). Code inputs are found, not listed.
NOTEBOOK_DATA: tuple[str, ...] = ("data/robots/five_bar.toml",)
#: Data files the twin reads when it makes a recording: the 5R's own files only (the other rooms'
#: twins in ``data/twin/`` are not read, so their edits must not re-make the 5R's recordings and sweeps).
RECORDING_DATA: tuple[str, ...] = ("data/robots/five_bar.toml", "data/twin/five_bar_twin.toml")
#: The calibration notebook 07 applies (issue 28; not read by the stated twin).
CALIBRATION_DATA = "data/twin/five_bar_fig11_calibration.toml"


def _data_files(patterns: tuple[str, ...]) -> list[str]:
    files: list[str] = []
    for p in patterns:
        files += sorted(str(f.relative_to(ROOT)) for f in ROOT.glob(p))
    return files


def code_inputs(nb: str | None = None) -> list[str]:
    """Files whose change should re-run notebook ``nb`` (default: every notebook).

    The ``paperlib`` sources the notebook's code imports, transitively (static import closure,
    :func:`paperlib.experiments.kit.code_inputs.code_inputs`), and :data:`NOTEBOOK_DATA`.
    """
    from paperlib.experiments.kit.code_inputs import code_inputs as closure

    nbs = list(NOTEBOOKS) if nb is None else [nb]
    return sorted(set(closure(notebooks=[f"{NOTEBOOK_DIR}/{n}.ipynb" for n in nbs], root=ROOT))
                  | set(_data_files(NOTEBOOK_DATA)))


def recording_code_inputs() -> list[str]:
    """Files whose change should re-make twin recordings: what ``pipeline record`` imports, and :data:`RECORDING_DATA`."""
    from paperlib.experiments.kit.code_inputs import code_inputs as closure

    return sorted(set(closure(["paperlib.experiments.mems.pipeline"], root=ROOT)) | set(_data_files(RECORDING_DATA)))


def codegen_inputs() -> list[str]:
    """Inputs of the code-generation check (symbolic sources, generator, generated kernels)."""
    pats = ["paperlib/symbolic/*.py", "paperlib/codegen.py", "paperlib/kernels/*.py"]
    files: list[str] = []
    for p in pats:
        files += sorted(str(f.relative_to(ROOT)) for f in ROOT.glob(p))
    return files


def made_outputs(cfg: Mapping[str, Any]) -> dict[str, list[str]]:
    """What the pipeline makes, grouped, for the end-of-run listing (existing files only)."""
    figs = []
    for nb in NOTEBOOKS:
        figs += [f for f in figure_files(cfg, nb) if not f.endswith(".json")]
    r = Path(cfg["results_dir"])
    tables = comparison_outputs(cfg) + [str(r / f"{nb}.json") for nb in NOTEBOOKS]
    notebooks = [notebook_outputs(cfg, nb)["executed"] for nb in NOTEBOOKS]
    recs = [str(r / "recordings" / p.name) for p in sorted((ROOT / r / "recordings").glob("*.nc"))]
    exist = lambda fs: [f for f in fs if (ROOT / f).exists()]  # noqa: E731  (ROOT / absolute = absolute)
    return {"figures": exist(figs), "tables": exist(tables), "notebooks": exist(notebooks), "recordings": recs}


# --------------------------------------------------------------------------------------------
# command line (called by the Snakefile's shell rules)
# --------------------------------------------------------------------------------------------

def _cmd_record(a: argparse.Namespace) -> int:
    from paperlib.recordings import read_recording

    spec = json.loads(a.spec)
    store = json.loads(a.store) if a.store else {"keep": None, "float32": []}
    warm = read_recording(a.warm_from) if a.warm_from else None
    t0 = time.perf_counter()
    ds = sources.make_recording_now(spec, source=a.source, rig_config=a.rig_config or None, warm_from=warm,
                                    output=a.output, progress=True, store=store)
    wall = time.perf_counter() - t0
    dur = float(ds["time"].values[-1])
    size = Path(a.output).stat().st_size / 1e6
    kept = "whole" if "reduced" not in ds.attrs else f"{len(ds.data_vars)} variables ({', '.join(ds.data_vars)})"
    print(f"recording {a.name}: {a.source}, {spec.get('controller')} {dur:.1f} s, seed {spec.get('seed')}, "
          f"converged_s = {ds.attrs.get('converged_s')}, made in {wall:.1f} s -> {a.output} ({size:.1f} MB, {kept})")
    return 0


def _cmd_verify(a: argparse.Namespace) -> int:
    from paperlib.recordings import load_recording_registry, read_recording, sha256_file

    entries = {e.name: e for e in load_recording_registry(a.registry)}
    if a.name not in entries:
        print(f"{a.name}: not in {a.registry}", file=sys.stderr)
        return 1
    e = entries[a.name]
    digest = sha256_file(e.path)
    if digest != e.sha256:
        print(f"{a.name}: sha256 mismatch for {e.path}: registry {e.sha256}, file {digest}", file=sys.stderr)
        return 1
    ds = read_recording(e.path)
    if ds.attrs.get("source") != e.source:
        print(f"{a.name}: registry says source {e.source!r}, the file {ds.attrs.get('source')!r}", file=sys.stderr)
        return 1
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(f"{e.name} {e.file} sha256={digest} source={e.source}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.mems.pipeline")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="make one recording (twin or hardware)")
    r.add_argument("--name", required=True, help="the recording's name in the configuration")
    r.add_argument("--spec", required=True, help="recording spec as JSON")
    r.add_argument("--source", required=True, choices=["twin", "hardware"], help="who makes the recording")
    r.add_argument("--rig-config", default="", help="rig configuration TOML (hardware)")
    r.add_argument("--warm-from", default="", help="recording whose final estimate initialises the estimator")
    r.add_argument("--output", required=True, help="recording file to write (.nc)")
    r.add_argument("--store", default="", help="what to keep, as JSON (pipeline.storage); default: everything")
    r.set_defaults(func=_cmd_record)
    v = sub.add_parser("verify", help="check an archived recording against the registry")
    v.add_argument("--name", required=True, help="registry name of the recording")
    v.add_argument("--registry", default=str(ROOT / "data" / "recordings" / "registry.toml"), help="registry file")
    v.add_argument("--output", required=True, help="check file to write")
    v.set_defaults(func=_cmd_verify)
    a = ap.parse_args(argv)
    return int(a.func(a))


if __name__ == "__main__":
    sys.exit(main())
