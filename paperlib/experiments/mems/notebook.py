"""What every notebook does besides its science: get recordings, save figures, write results.

A notebook's ``parameters`` cell sets ``source``, ``recordings`` (role -> file, for
``archive``), ``specs`` (role -> run spec, for ``twin``/``hardware``), ``rig_config``,
``output_dir``, ``results_file`` and ``formats``; then::

    run = NotebookRun("02_model_order", source=source, recordings=recordings, specs=specs,
                      rig_config=rig_config, output_dir=output_dir, results_file=results_file,
                      formats=formats)
    recs = run.load(["main"])
    ...
    run.save(fig, "fig05_model_order", used=["main"])
    run.write_results({...})

Figures get a provenance sidecar (recordings with source, seed and sha256; code commit;
notebook; parameters); results get the same plus ``source`` -- the ``source`` attribute of
the recordings used (``twin`` / ``hardware``), or ``model`` when none was used.

Run alone (JupyterLab, default parameters), a notebook with ``source = "twin"`` first looks for
the pipeline's recordings (``results/mems/recordings/``) whose run configuration matches its
spec and reads those; only what is missing is simulated. Relative output paths are taken from
the repository root, wherever the notebook runs.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import xarray as xr

from paperlib import provenance
from paperlib.experiments.kit.outputs import Outputs
from paperlib.experiments.mems import sources

__all__ = ["NotebookRun", "PIPELINE_RECORDINGS", "matching_recording"]

#: Where the pipeline (rules/mems.smk, default configuration) keeps the recordings it made.
PIPELINE_RECORDINGS = provenance.REPO_ROOT / "results" / "mems" / "recordings"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def matching_recording(spec: Mapping[str, Any], folder: str | os.PathLike[str] = PIPELINE_RECORDINGS) -> Path | None:
    """A recording in ``folder`` made from ``spec`` (same controller, duration, seed, ...), or None.

    Only the attributes are read. A spec with ``warm_start`` matches only a warm-started run; a run of a
    calibrated twin (attribute ``twin_calibration``) matches none.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.nc")):
        try:
            with xr.open_dataset(path, engine="h5netcdf") as ds:
                cfg = json.loads(ds.attrs.get("config", "{}"))
                calibrated = bool(ds.attrs.get("twin_calibration"))
        except Exception:  # a partial or foreign file is simply not a match
            continue
        if bool(spec.get("warm_start")) != bool(cfg.get("warm_start_P0")):
            continue
        if calibrated:  # a run of a twin calibrated to the paper (notebook 07) never stands in for the stated twin's
            continue
        if all(k in cfg and _same(cfg[k], v) for k, v in spec.items() if k != "warm_start"):
            return path
    return None


class NotebookRun(Outputs):
    """Context of one notebook execution (see module docstring): the kit's :class:`Outputs` with
    recordings obtained from a source (archive files, the twin or the robot).

    Parameters
    ----------
    name : str
        Notebook name (e.g. ``"02_model_order"``).
    source : {"archive", "twin", "hardware"}
    recordings : mapping role -> path, optional
        Files to read for ``archive``.
    specs : mapping role -> spec, optional
        Runs to make for ``twin`` / ``hardware`` (``warm_start`` may name another role).
    rig_config : path-like, optional
        Needed for ``hardware``; without a usable rig the constructor raises
        :class:`~paperlib.experiments.mems.sources.RigUnavailable`.
    output_dir : path-like
        Figure directory.
    results_file : path-like
        Results JSON.
    formats : sequence of str
        Figure formats.
    parameters : mapping, optional
        The notebook's analysis parameters (recorded in sidecars and results).
    """

    def __init__(self, name: str, *, source: str, recordings: Mapping[str, Any] | None = None,
                 specs: Mapping[str, Mapping[str, Any]] | None = None, rig_config: Any = None,
                 output_dir: str | os.PathLike[str] = "figures", results_file: str | os.PathLike[str] | None = None,
                 formats: Sequence[str] = ("png", "svg"), parameters: Mapping[str, Any] | None = None,
                 progress: bool = True, use_pipeline_recordings: bool = True) -> None:
        sources.check_source(source, rig_config)
        super().__init__(f"notebooks/mems/{name}.ipynb", output_dir=output_dir,
                         results_file=results_file or Path("results") / "mems" / f"{name}.json", formats=formats,
                         parameters=parameters)
        self.name = name
        self.source = source
        self.paths = dict(recordings or {})
        self.specs = {k: dict(v) for k, v in (specs or {}).items()}
        self.rig_config = rig_config
        self.use_pipeline_recordings = use_pipeline_recordings
        self.progress = progress
        self.recs: dict[str, xr.Dataset] = {}
        self.captions: list[str] = []

    # -- recordings -----------------------------------------------------------------------------
    def load(self, roles: Iterable[str]) -> dict[str, xr.Dataset]:
        """The recordings of the given roles, read (``archive``) or made now (``twin``/``hardware``)."""
        roles = list(roles)
        if self.source == "archive":
            missing = [r for r in roles if r not in self.paths]
            if missing:
                raise sources.SourceError(
                    f"{self.name}: source 'archive' needs recording files for {missing} (parameter 'recordings'); "
                    f"got {sorted(self.paths)}")
            got = sources.obtain_recordings({r: {} for r in roles}, source="archive", paths=self.paths)
        else:
            missing = [r for r in roles if r not in self.specs]
            if missing:
                raise sources.SourceError(f"{self.name}: no run spec for {missing} (parameter 'specs')")
            got = {}
            if self.source == "twin" and self.use_pipeline_recordings:
                from paperlib.recordings import read_recording

                for r in roles:
                    path = matching_recording(self.specs[r])
                    if path is not None:
                        print(f"{self.name}: {r}: reading the pipeline's recording {path} (same run spec)")
                        got[r] = read_recording(path)
                        got[r].attrs["_path"] = str(path)
            todo = [r for r in roles if r not in got]
            if todo:
                need: dict[str, Mapping[str, Any]] = {}
                for r in todo:  # the run and the runs it warm-starts from
                    while r and r not in need:
                        need[r] = self.specs[r]
                        r = self.specs[r].get("warm_start")
                got.update(sources.obtain_recordings(need, source=self.source, rig_config=self.rig_config,
                                                     progress=self.progress))
        for r in roles:
            self.recs[r] = got[r]
        return {r: self.recs[r] for r in roles}

    def describe(self, roles: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Provenance of the recordings used."""
        roles = list(roles) if roles is not None else list(self.recs)
        out = []
        for r in roles:
            d = sources.describe_recording(self.recs[r], r)
            if self.recs[r].attrs.get("synthetic"):
                d["synthetic"] = True
            out.append(d)
        return out

    # -- outputs (the kit's provenance, save, note, write_results) -------------------------------
    def caption(self, text: str) -> None:
        """Show what a figure shows, in a sentence built from the cells' numbers (Markdown)."""
        self.captions.append(text)
        try:
            from IPython.display import Markdown, display
        except ImportError:  # pragma: no cover - outside Jupyter
            print(text)
        else:
            display(Markdown(text))
