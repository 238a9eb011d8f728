"""The flagship's headline numbers on the twin calibrated to the paper's Fig. 11 torque shares (issue 28).

Issue 28 asks that a published quantity a twin can compute be calibrated to, by a stated rule,
and the headline numbers compared only then. For the 5R that quantity is Fig. 11's torque shares
under AC; the rule and its solution are :mod:`paperlib.experiments.mems.share_calibration`. The
solution (a friction ripple of +/- 42 % / 77 % per motor revolution) spoils the room's
identifications, so the stated twin does not adopt it; instead, notebook
``07_calibrated_twin`` remakes the pipeline's controller runs (identification, PD, CTC, AC: the
same specs and seeds) and a short identification campaign on the calibrated twin, and the room's
comparison table shows those numbers in a column of their own beside the stated twin's
(:func:`paperlib.comparison.add_calibrated`), the shares labelled "calibrated".

:func:`results_block` is what the notebook writes under ``calibrated_twin``: the calibration
(file, sha256, rule, values), the row keys it was calibrated to, and per notebook stem the numbers
in the shape that notebook writes them, so the table's rows read them with the same paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import xarray as xr

from paperlib.experiments.mems import tracking as tr

__all__ = ["CONTROLLER_NOTEBOOK", "IDENTIFICATION_NOTEBOOK", "RUN_PREFIX", "obtainer", "calibrated_recordings",
           "side_by_side", "identification_numbers", "results_block", "target_keys"]

#: The notebooks whose numbers the calibrated twin recomputes (the table's rows read them by these stems).
CONTROLLER_NOTEBOOK = "04_controller_comparison"
IDENTIFICATION_NOTEBOOK = "06_beyond_the_paper"
#: Recording names of the calibrated twin's runs start with this (they sit beside the stated twin's).
RUN_PREFIX = "calibrated_"

Obtain = Callable[[str, Callable[[], Any]], Any]


def obtainer(source: Any, stores: Mapping[str, Any] | None = None) -> Obtain:
    """``obtain(name, make)`` for the calibrated twin's runs: stored as ``calibrated_<name>`` and read back.

    Parameters
    ----------
    source : RecordingSource
        Where the runs go (or, for ``archive``, the release they are read from).
    stores : mapping, optional
        Run name (without the prefix) -> what is kept of it (:func:`paperlib.recordings.storage.apply_storage`
        plans; a name not listed is kept whole).
    """
    from paperlib.experiments.mems.beyond import run_obtainer

    stores = dict(stores or {})

    def obtain(name: str, make: Callable[[], Any]) -> Any:
        return run_obtainer(source, stores.get(name.lower()))(RUN_PREFIX + name.lower(), make)

    return obtain


def calibrated_recordings(specs: Mapping[str, Mapping[str, Any]], twin_params: Any, obtain: Obtain) -> dict[str, xr.Dataset]:
    """The runs ``specs`` (role -> run spec, ``warm_start`` naming another role) made on ``twin_params``.

    Parameters
    ----------
    specs : mapping
        As notebook 04's ``specs``: controller, duration_s, seed, model, warm_start.
    twin_params : TwinParams
        The calibrated twin (:func:`paperlib.experiments.mems.share_calibration.calibrated_twin`).
    obtain : callable
        ``obtain(name, make)`` (:func:`obtainer`).

    Returns
    -------
    dict role -> xarray.Dataset
    """
    from paperlib.experiments.mems import sources
    from paperlib.robots.five_bar import FiveBar

    return sources.obtain_recordings(specs, source="twin", twin={"twin_params": twin_params, "robot": FiveBar.default()},
                                     obtain=obtain)


def identification_numbers(seeds: Sequence[int], duration_s: float, twin_params: Any, obtain: Obtain,
                           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Notebook 06's IMU-vs-encoder campaign (no resolution or noise variants) on ``twin_params``.

    Returns
    -------
    dict
        ``{"imu_vs_encoder": label -> medians and quartiles}`` (:func:`beyond.summarise`), the shape
        notebook 06 writes.
    """
    from paperlib.experiments.mems import beyond as bd

    camp = bd.seed_campaign(seeds, duration_s, obtain=obtain, progress=progress, twin_params=twin_params)
    return {"imu_vs_encoder": bd.summarise(camp)}


def target_keys() -> list[str]:
    """The comparison rows the calibration was solved to meet (all six shares: the targeted two fix the third)."""
    from paperlib.experiments.mems import share_calibration as sc

    parts = list(sc.TARGET_PARTS) + [p for p in tr.PAPER_FIG11_SHARES if p not in sc.TARGET_PARTS]
    return [f"share_{p}_j{j}" for p in parts for j in (1, 2)]


def results_block(calibration_file: str | Path, controller: Mapping[str, Any], identification: Mapping[str, Any],
                  n_seeds: int, duration_s: float) -> dict[str, Any]:
    """The ``calibrated_twin`` block of notebook 07's results (module docstring).

    Parameters
    ----------
    calibration_file : path-like
        The ``[calibration]`` table applied (``data/twin/five_bar_fig11_calibration.toml``).
    controller, identification : mapping
        :func:`tracking.controller_summary`'s summary and :func:`identification_numbers`.
    n_seeds, duration_s : int, float
        The identification campaign's size (it is smaller than notebook 06's).
    """
    from paperlib._toml import read_toml
    from paperlib.provenance import repo_path
    from paperlib.recordings import sha256_file

    path = repo_path(calibration_file)
    table = read_toml(path)["calibration"]
    label = (f"twin calibrated to Fig. 11 (friction level x {', '.join(f'{x:.3g}' for x in table['friction_level_factor'])}, "
             f"position ripple +/- {', '.join(f'{100 * x:.0f}' for x in table['ripple_relative'])} %)")
    return {
        "label": label,
        "calibration_file": str(calibration_file),
        "calibration_sha256": sha256_file(path),
        "calibration": {k: table[k] for k in ("friction_level_factor", "ripple_relative", "ripple_cycles_per_joint_rev",
                                              "rule", "published")},
        "calibrated_to": target_keys(),
        "identification_campaign": {"n_seeds": int(n_seeds), "duration_s": float(duration_s)},
        "results": {CONTROLLER_NOTEBOOK: {**dict(controller), "source": "twin"},
                    IDENTIFICATION_NOTEBOOK: {**dict(identification), "source": "twin"}},
    }


def side_by_side(stated_results: Mapping[str, str] | None, controller: Mapping[str, Any],
                 identification: Mapping[str, Any], label: str) -> Any:
    """Notebook 07's side-by-side figure, or None when the stated twin's results are not there.

    Parameters
    ----------
    stated_results : mapping or None
        Notebook stem -> results file of the stated twin (04's and 06's), relative to the repository root.
    controller, identification : mapping
        The calibrated twin's :func:`tracking.controller_summary` summary and :func:`identification_numbers`.
    label : str
        What the calibrated twin is (:func:`results_block`'s ``label``).
    """
    import json

    from paperlib.experiments.mems.calibrated_figures import headlines_side_by_side
    from paperlib.provenance import repo_path

    paths = {k: repo_path(v) for k, v in (stated_results or {}).items()}
    if set(paths) != {CONTROLLER_NOTEBOOK, IDENTIFICATION_NOTEBOOK} or not all(p.is_file() for p in paths.values()):
        print("the stated twin's results of notebooks 04 and 06 are not there: run them first for the side-by-side figure")
        return None
    s04, s06 = (json.loads(paths[k].read_text()) for k in (CONTROLLER_NOTEBOOK, IDENTIFICATION_NOTEBOOK))
    return headlines_side_by_side([s04["ratios"], controller["ratios"]],
                                  [s06["imu_vs_encoder"], identification["imu_vs_encoder"]], label)
