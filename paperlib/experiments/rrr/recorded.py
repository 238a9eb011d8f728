"""The recordings notebook 02 makes itself, and the twin a recording was made with.

Notebook 02 does not only analyse the pipeline's sampling run: it drives the twin along the
Table 3 path (every speed x controller), along the 21 sampling positions with each compensation
(Figs. 5-6), and reruns the whole chain on variants of the twin
(:mod:`paperlib.experiments.rrr.sensitivity`). Every one of those runs is a recording (schema 2,
``source = twin``, the twin's truth in its attributes) obtained through one
:class:`~paperlib.experiments.kit.sources.RecordingSource`: with the twin it is simulated, written
to ``<results>/rrr/recordings/<name>.nc`` and read back (so ``paperlib archive pack`` releases
it); with ``--source archive`` it is copied from the release and the twin never runs. The
analysis reads only the file: ``q`` (encoders), ``tau_m``, ``qd_sp`` (drive-rate setpoints) and
``pd_true`` (the plant's platform velocity, the twin's "sensor" of the true speed error).

Names (:func:`path_name`, :func:`location_name`, :func:`sampling_name`; all of them:
:func:`paperlib.experiments.rrr.report.tracking_recordings`), under ``recordings/``::

    tracking/<variant>/path_<speed mm/s>_<controller>   Table 5 path run
    tracking/<variant>/location_<controller>            Figs. 5-6: the sampling path with a compensation
    tracking/<variant>/sampling                         a variant's identification run (the stated
                                                        twin's is the pipeline's sampling_pd.nc)

The twin's truth an analysis needs (true friction curves, k_f, static levels, gains) is read from
the recording it analyses (:func:`twin_from_recording`), never from the twin's description file
alone, so a build from a release uses the truth the release's data were made with.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import xarray as xr

from paperlib.experiments.kit.sources import RecordingSource
from paperlib.friction.lugre import FrictionJoint
from paperlib.recordings import truth as recording_truth
from paperlib.twin.robots.three_rrr import ThreeRRRTwin

__all__ = ["SLUG", "STATED", "sampling_name", "path_name", "location_name", "obtain", "twin_from_recording"]

SLUG = "rrr"
#: The variant name of the twin as stated in ``data/twin/three_rrr_twin.toml``.
STATED = "twin"


def sampling_name(variant: str) -> str:
    """Recording name of a twin variant's 21-point sampling run (not the stated twin's: that is ``sampling_pd``)."""
    return f"tracking/{variant}/sampling"


def path_name(variant: str, speed_m_s: float, controller: str) -> str:
    """Recording name of one Table 5 path run (speed [m/s], controller name)."""
    return f"tracking/{variant}/path_{speed_m_s * 1e3:.0f}_{controller}"


def location_name(variant: str, controller: str) -> str:
    """Recording name of the sampling path run with one controller (Figs. 5-6)."""
    return f"tracking/{variant}/location_{controller}"


def obtain(source: RecordingSource | None, name: str, make: Callable[[], xr.Dataset]) -> xr.Dataset:
    """Recording ``name`` through ``source`` (:meth:`RecordingSource.obtain`); without one, ``make()`` in memory.

    ``source=None`` is for tests and hand use only: nothing is written, and the twin runs.
    """
    if source is None:
        return make()
    return source.obtain(name, make)


def twin_from_recording(ds: xr.Dataset) -> ThreeRRRTwin:
    """The twin a 3-RRR twin recording was made with, its truth taken from the recording.

    Friction of the three drives, drive gain (so ``k_f``), temperature, PD gains from the
    recording's ``truth`` attribute, the control rate from its ``sample_rate_hz``. What the truth
    does not hold (encoder and command resolution, substeps, the joint inertia behind the gains:
    nothing an analysis number depends on) is the stated description
    (``data/twin/three_rrr_twin.toml``; reading it runs no twin).

    Parameters
    ----------
    ds : xarray.Dataset
        A ``source = twin`` recording of :func:`paperlib.twin.robots.three_rrr.to_recording`.

    Returns
    -------
    ThreeRRRTwin

    Raises
    ------
    paperlib.recordings.RecordingError
        If the recording carries no truth (a measured recording).
    """
    t: dict[str, Any] = recording_truth(ds)
    return dataclasses.replace(
        ThreeRRRTwin.default(),
        friction=tuple(FrictionJoint(**j) for j in t["friction"]),
        drive_gain=float(t["drive_gain"]),
        temperature_degC=float(t["temperature_degC"]),
        kp=np.asarray(t["kp_Nm_per_rad"], dtype=float),
        kd=np.asarray(t["kd_Nm_s_per_rad"], dtype=float),
        control_rate_hz=float(ds.attrs["sample_rate_hz"]),
    )
