"""Where a lesson's recordings come from: the planar arm twin now, or a data release.

A lesson that measures something on the twin asks its :class:`Lab` for each recording by a
short name instead of calling :func:`paperlib.twin.robots.planar_arm.simulate` itself::

    lab = Lab(name, source=source, archive=archive, results_dir=results_dir)
    ds = lab.record("fourier", arm, traj, duration_s=30.0, seed=2)

- ``source="twin"`` (a lesson run by hand, and ``paperlib reproduce textbook``): the twin
  records it now; the recording is written to ``<results_dir>/recordings/<lesson>-<what>.nc``
  and read back from that file, so the lesson analyses exactly what a release will hold
  (``paperlib archive pack textbook`` takes every recording in that folder);
- ``source="archive"`` (``paperlib reproduce textbook --archive DIR``): the same file is copied
  out of the release (sha256 checked) and read; the twin is not called (it would refuse:
  ``PAPERLIB_FORBID_TWIN``).

Both go through the kit's :class:`paperlib.experiments.kit.RecordingSource`. The lab also keeps
the provenance of what it handed out (:attr:`Lab.provenance`, :attr:`Lab.used`): each recording's
file, sha256 and source, which the lesson's figure sidecars and results file carry, so a release
names what every output was made from (``paperlib archive pack`` finds each ``file``/``sha256``
entry wherever it sits in those files).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import xarray as xr

from paperlib.experiments.kit.sources import RecordingSource
from paperlib.provenance import repo_path
from paperlib.robots.serial import SerialArm

__all__ = ["Lab", "SLUG"]

SLUG = "textbook"


class Lab:
    """The recordings of one lesson.

    Parameters
    ----------
    lesson : str
        The notebook's stem (``"02_least_squares"``): it prefixes every recording's file name.
    source : {"twin", "archive"}
        Record on the twin now, or read the recordings from the release ``archive``.
    archive : path-like, optional
        The release folder (required for ``source="archive"``).
    results_dir : path-like
        The room's results folder (relative paths from the repository root); the recordings go
        to its ``recordings/``.

    Notes
    -----
    When the lab is made, the lesson's earlier recordings in that folder
    (``<lesson>-*.nc``) are removed, so the folder holds what this run used and nothing a
    previous run with other parameters left there.
    """

    def __init__(self, lesson: str, *, source: str = "twin", archive: str | os.PathLike[str] | None = None,
                 results_dir: str | os.PathLike[str] = "scratch/textbook") -> None:
        if source not in ("twin", "archive"):
            raise ValueError(f"{lesson}: the course's recordings come from 'twin' or 'archive', not {source!r}")
        self.lesson = lesson
        self.source = source
        self._src = RecordingSource(SLUG, repo_path(results_dir), source=source, archive=archive)
        self._got: dict[str, xr.Dataset] = {}
        #: What each recording handed out so far is (file, sha256, source, how it was obtained).
        self.used: list[dict[str, Any]] = []
        # the lesson's recordings as one entry of the figures' provenance (see provenance), kept up to date
        self._group: dict[str, Any] = {"name": "", "source": "twin", "files": self.used}
        #: Figure provenance (``paperlib.figures.io.save``, ``views.slider_view``): ``source``, ``notebook``
        #: and ``recordings``: one entry naming the lesson's recordings together (``<lesson>-fourier.nc``, or
        #: ``<lesson>-*.nc (13 files)``), so the footer line under a figure stays short, with each file,
        #: its sha256 and source under its ``files`` (:attr:`used`). Filled in as the lesson obtains them.
        self.provenance: dict[str, Any] = {"source": "twin", "notebook": f"notebooks/{SLUG}/{lesson}.ipynb",
                                           "recordings": [self._group]}
        for old in sorted(self._src.recordings_dir.glob(f"{lesson}-*.nc")):
            old.unlink()

    def path(self, what: str) -> Path:
        """The file of recording ``what`` of this lesson."""
        return self._src.path(self._name(what))

    def record(self, what: str, arm: SerialArm, trajectory: Callable[[np.ndarray], tuple[np.ndarray, ...]],
               **simulate_kw: Any) -> xr.Dataset:
        """Recording ``what``: the twin following ``trajectory`` now, or the release's copy.

        Parameters
        ----------
        what : str
            Its name within the lesson (letters, digits, ``_``, ``.``); the same name twice in one run
            gives the recording already obtained (the twin is not run again).
        arm, trajectory, **simulate_kw
            As for :func:`paperlib.twin.robots.planar_arm.simulate` (``duration_s`` [s],
            ``sample_rate_hz`` [Hz], ``torque_noise_Nm`` [N m], ``seed``, ``params``, ...);
            used only when the source is the twin.

        Returns
        -------
        xarray.Dataset
            The recording as read back from its file (``source = twin``, the twin's truth in
            its ``truth`` attribute).
        """
        name = self._name(what)
        if name not in self._got:
            def make() -> xr.Dataset:
                from paperlib.twin.robots.planar_arm import simulate

                return simulate(arm, trajectory, **simulate_kw)

            ds = self._src.obtain(name, make)
            self._got[name] = ds
            self.used.append(self._reference(name, ds))
            n = len(self.used)
            self._group["name"] = f"{name}.nc" if n == 1 else f"{self.lesson}-*.nc ({n} files)"
        return self._got[name]

    def _name(self, what: str) -> str:
        if not what or what[0] == "." or not all(c.isalnum() or c in "_." for c in what):
            raise ValueError(f"{self.lesson}: recording name {what!r}: use letters, digits, '_' and '.'")
        return f"{self.lesson}-{what}"

    def _reference(self, name: str, ds: xr.Dataset) -> dict[str, Any]:
        from paperlib.recordings import sha256_file

        path = self._src.path(name)
        return {"file": _shown(path), "sha256": sha256_file(path), "source": str(ds.attrs.get("source", "")),
                "obtained": "release" if self.source == "archive" else "twin"}


def _shown(path: Path) -> str:
    """``path`` relative to the repository root when inside it, else absolute."""
    from paperlib.provenance import REPO_ROOT

    p = path.resolve()
    return str(p.relative_to(REPO_ROOT)) if p.is_relative_to(REPO_ROOT) else str(p)
