"""What the rrr notebooks compute, in one call each (the notebooks stay thin).

:func:`recording_source` -- where the recordings come from (``twin`` or ``archive``);
:func:`tracking_recordings` -- the names of every recording notebook 02 obtains itself;
:func:`identification` -- Table 2 (Kostic and Coulomb+viscous fits of the sampling recording), the
curve and k_f errors against the twin's truth, Table 4; :func:`fit_curves` -- the fitted and true curves
to draw; :func:`tracking` -- Table 5, the location
errors of Figs. 5-6 and the trends; :func:`save_figure` and :func:`write_results` -- outputs with
provenance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

import xarray as xr

from paperlib import provenance
from paperlib.experiments.kit.outputs import save_figure as kit_save_figure
from paperlib.experiments.kit.outputs import write_results as kit_write_results
from paperlib.experiments.kit.sources import RecordingSource, SourceError
from paperlib.experiments.rrr import chain, recorded, sampling, sensitivity
from paperlib.experiments.rrr import tracking as trk
from paperlib.experiments.rrr.run import record_sampling, sampling_recording
from paperlib.recordings import read_recording, sha256_file, truth as recording_truth
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin


#: A path relative to the repository root (absolute paths unchanged): :func:`paperlib.provenance.repo_path`.
resolve = provenance.repo_path


def recording_source(results_dir: str | Path, source: str = "twin", archive: str | Path | None = None) -> RecordingSource:
    """The room's :class:`~paperlib.experiments.kit.sources.RecordingSource` (recordings under ``results_dir/recordings``).

    ``source``: ``twin`` or ``archive`` (with ``archive`` the release folder). ``hardware`` is refused
    here: on a rig only the sampling run is made (the pipeline's rule,
    :mod:`paperlib.experiments.rrr.rig_runs`); the runs the notebooks make themselves are the twin's,
    and the pipeline passes them ``twin``.

    Raises
    ------
    paperlib.experiments.kit.sources.SourceError
        ``hardware``, an unknown source, or ``archive`` without a release folder.
    """
    if source == "hardware":
        raise SourceError("rrr: the notebooks' own runs cannot come from 'hardware': on the rig only the sampling run is "
                          "made (paperlib reproduce rrr --source hardware passes the notebooks 'twin'); use twin or archive")
    return RecordingSource(recorded.SLUG, resolve(results_dir), source=source,
                           archive=resolve(archive) if archive else None)


def ensure_sampling_recording(path: str | Path, source: RecordingSource | None = None) -> Path:
    """The sampling recording at ``path``; when it is not there, obtained first.

    Through ``source`` when its ``sampling_pd`` recording is that file (made by the twin, or
    copied from the release with ``archive``), else simulated on the twin.
    """
    p = resolve(path)
    if not p.exists():
        if source is not None and source.path("sampling_pd") == p:
            source.obtain("sampling_pd", lambda: sampling_recording(ThreeRRR.default(), ThreeRRRTwin.default()))
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            record_sampling(p)
    return p


def identification(recording: str | Path, n_starts: int = 8, seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit both models to the sampling recording; compare with the twin's truth when it has one.

    Returns
    -------
    results : dict
        JSON-ready (``source``, ``kostic``, ``coulomb_viscous``, ``limits``, ``paper_table2``, ...).
    objects : dict
        Estimators, data, twin and robot for the figures.
    """
    path = resolve(recording)
    ds = read_recording(path, require=("q", "tau_m"), analysis="3-RRR friction identification")
    robot = ThreeRRR.default()
    tr = recording_truth(ds)
    # the truth the recording was made with (not the twin file's: a release's data may be older)
    twin = recorded.twin_from_recording(ds) if ds.attrs.get("source") == "twin" and "friction" in tr else ThreeRRRTwin.default()
    truth_fn = (lambda v, i: twin.steady_friction(v, i)) if ds.attrs.get("source") == "twin" and "friction" in tr else None
    results, objects = chain.identification_results(ds, robot, twin, truth_fn, tr, n_starts=n_starts, seed=seed,
                                                    name=str(path))
    results["recording"] = {"path": str(path.relative_to(provenance.REPO_ROOT)) if path.is_relative_to(provenance.REPO_ROOT) else str(path),
                            "sha256": sha256_file(path)}
    return results, objects


def fit_curves(res: Mapping[str, Any], objects: Mapping[str, Any], v_max: float = 2.8, n: int = 561) -> dict[str, Any]:
    """The curves of the Table 2 figure: both fits and the twin's truth on a grid of joint rates.

    Parameters
    ----------
    res, objects : mapping
        The two returns of :func:`identification`.
    v_max : float
        The grid spans [-v_max, v_max] [rad/s].
    n : int
        Number of grid points.

    Returns
    -------
    dict
        Keyword arguments of :func:`paperlib.experiments.rrr.plots.friction_fits`: ``v`` (n,) [rad/s];
        ``kostic``, ``cv``, ``truth`` (n, 3) [N m]; ``ranges`` (3, 2) [rad/s]; ``samples`` (rates (m, 3)
        [rad/s], ``tau / k_f - E`` (m, 3) [N m]).
    """
    import numpy as np

    k, cv, data, twin = objects["kostic"], objects["cv"], objects["data"], objects["twin"]
    v = np.linspace(-v_max, v_max, n)
    return {"v": v, "kostic": k.friction_curves(v), "cv": cv.friction_curves(v),
            "truth": np.stack([twin.steady_friction(v, i) for i in range(3)], 1),
            "ranges": np.array(res["kostic"]["speed_range_rad_s"]), "samples": (data.v, data.tau / k.k_f_ - data.E)}


def tracking(ident: Mapping[str, Any], source: RecordingSource | None = None,
             recording: str | Path | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Table 5 and Figs. 5-6 with the compensations identified in ``ident`` (see :func:`identification`).

    Besides the paper's controllers, Table 5 is also run with the twin's true friction as feed-forward
    (``true-friction``, a reference only the twin has). ``trend_checks`` holds each of the paper's trends
    on each Table 5 metric (:func:`paperlib.experiments.rrr.trends.trend_checks`).

    Parameters
    ----------
    ident : mapping
        :func:`identification`'s results (or notebook 01's JSON).
    source : RecordingSource, optional
        Where every run's recording comes from (:mod:`paperlib.experiments.rrr.recorded`); None:
        simulated now, in memory (tests, hand use).
    recording : path-like, optional
        The sampling recording: the twin's truth (true friction, k_f, gains) is taken from it;
        without it, from the twin's description file.
    """
    robot = ThreeRRR.default()
    if recording is not None:
        twin = recorded.twin_from_recording(read_recording(resolve(recording)))
    else:
        twin = ThreeRRRTwin.default()
    return chain.tracking_results(ident, robot, twin, source=source)


def tracking_recordings() -> list[str]:
    """Every recording name notebook 02 obtains (its variants included), in a fixed order."""
    names = [recorded.path_name(recorded.STATED, v, c) for v in trk.SPEEDS_M_S for c in trk.CONTROLLERS + trk.TWIN_ONLY_CONTROLLERS]
    names += [recorded.location_name(recorded.STATED, c) for c in trk.CONTROLLERS]
    for variant in sensitivity.VARIANTS:
        if variant == recorded.STATED:
            continue
        names.append(recorded.sampling_name(variant))
        names += [recorded.path_name(variant, v, c) for v in trk.SPEEDS_M_S for c in trk.CONTROLLERS + trk.TWIN_ONLY_CONTROLLERS]
    return names


def save_figure(fig: Any, figures_dir: str | Path, stem: str, formats: Iterable[str], used: Iterable[str | Path] = (),
                notebook: str = "", source: str = "twin") -> list[Path]:
    """Save a figure (PNG/SVG + JSON sidecar naming the recordings, the source and the commit).

    ``source``: ``twin`` for figures of twin runs, ``model`` for figures drawn from the robot model and
    the planner alone (then ``used`` names the recordings the notebook read, not data drawn).
    """
    recs = []
    for r in used:
        p = resolve(r)
        if p.exists():
            with xr.open_dataset(p, engine="h5netcdf") as ds:
                rec_source = str(ds.attrs.get("source", "unknown"))
            recs.append({"file": str(r), "sha256": sha256_file(p), "source": rec_source})
    prov = {"figure": stem, "notebook": notebook, "source": source, "recordings": recs, **provenance.stamp()}
    prov.pop("created", None)
    return kit_save_figure(fig, resolve(figures_dir) / stem, tuple(formats), prov)


def write_results(path: str | Path, results: Mapping[str, Any]) -> Path:
    """Write a results JSON (the kit's one writer: sorted keys, NaN as null; commit and version stamped)."""
    st = provenance.stamp()
    return kit_write_results(resolve(path), results,
                             provenance={"git_commit": st["git_commit"], "paperlib_version": st["paperlib_version"]})


__all__ = ["resolve", "recording_source", "ensure_sampling_recording", "tracking_recordings", "identification", "fit_curves", "tracking", "save_figure", "write_results", "sampling"]
