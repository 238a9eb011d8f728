"""What is stored of a recording: a smaller copy (:func:`reduce_recording`) and the ``analysis`` and
``full`` storage modes of a pipeline's twin recordings.

A twin recording can be made again from its spec, so a pipeline need not keep more of it than its
notebooks read. A room's pipeline says which data variables each notebook reads; with
``recording_storage: analysis`` a recording keeps the union of these over the notebooks that use
it, some channels in single precision where that changes no number, and the channels the twin
quantizes (encoder counts, a drive's torque LSB) as exact integer counts
(:func:`reduce_recording`, :func:`paperlib.recordings.io.write_recording`).
``recording_storage: full`` keeps everything the twin logs, in float64
(``paperlib reproduce --full-recordings``). Archived and hardware recordings are never reduced: a
measured recording cannot be made again.

A plan (:func:`storage_plan`) is a plain JSON-ready dict, ``{"keep", "float32", "resolution",
"purpose"}``, that a room's record command receives and :func:`apply_storage` carries out.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

import numpy as np
import xarray as xr

from paperlib.recordings.io import _counts
from paperlib.recordings.schema import CORE_CHANNELS

__all__ = ["reduce_recording", "KEEP_MODES", "FULL_PLAN", "check_mode", "storage_plan", "apply_storage"]


def reduce_recording(ds: xr.Dataset, *, keep: Iterable[str] | None = None, float32: Iterable[str] = (),
                     resolution: Mapping[str, float] | None = None, purpose: str = "") -> xr.Dataset:
    """A smaller copy of a recording for storage: only the variables an analysis reads, some in float32.

    The core channel ``q``, the coordinates of the kept variables and every global attribute
    stay; ``time`` stays float64 (the schema's rule). The copy states what was left out in its
    ``reduced`` attribute (JSON: ``kept``, ``dropped``, ``float32``, ``integer_counts``,
    ``purpose``), so a reader knows it is not the whole log. :func:`read_recording` returns float32 variables as float64,
    so analyses compute in double precision whatever the storage.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording.
    keep : iterable of str, optional
        Data variables to keep (``q`` is always kept); None keeps all.
    float32 : iterable of str
        Kept floating-point data variables to store in single precision (a relative rounding of
        at most 6e-8).
    resolution : mapping of str to float, optional
        Kept variables whose every value is an integer multiple of a known step (an encoder's
        count, a drive's torque LSB), in the variable's units: when ``round(x / step) * step``
        gives back every value bit for bit, the step is noted in the variable's ``resolution``
        attribute and :func:`write_recording` stores the integer counts (lossless); otherwise the
        variable is left as it is.
    purpose : str
        Why, in a few words (e.g. "the notebooks' channels"), for the ``reduced`` attribute.

    Returns
    -------
    xarray.Dataset
        The reduced copy (valid if ``ds`` is).

    Raises
    ------
    ValueError
        A name in ``keep`` or ``float32`` is not a data variable of ``ds``, or a ``float32``
        variable is not floating point or not kept.
    """
    names = [str(v) for v in ds.data_vars]
    keep_set = set(names) if keep is None else set(keep) | (set(CORE_CHANNELS) & set(names))
    f32 = set(float32)
    unknown = sorted((keep_set | f32) - set(names))
    if unknown:
        raise ValueError(f"reduce_recording: {unknown} not in the recording (variables: {sorted(names)})")
    not_kept = sorted(f32 - keep_set)
    if not_kept:
        raise ValueError(f"reduce_recording: float32 variable(s) {not_kept} are not kept")
    not_float = sorted(v for v in f32 if ds[v].dtype.kind != "f")
    if not_float:
        raise ValueError(f"reduce_recording: {not_float} are not floating point")
    dropped = [v for v in names if v not in keep_set]
    out = ds.drop_vars(dropped)
    unused = [str(c) for c in out.coords if c not in out.dims and str(c) not in ("time", "joint")]
    unused += [str(d) for d in out.dims if d not in ("time", "joint")
               and not any(d in out[v].dims for v in out.data_vars)]
    out = out.drop_vars([c for c in dict.fromkeys(unused) if c in out.variables])
    for v in sorted(f32):
        out[v] = out[v].astype(np.float32)
    packed = []
    for v, step in (resolution or {}).items():
        if v in out.data_vars and v not in f32 and _counts(out[v].values, float(step)) is not None:
            out[v] = out[v].copy(deep=False).assign_attrs(resolution=float(step))  # ds's attrs stay untouched
            packed.append(v)
    previous = json.loads(ds.attrs["reduced"]) if "reduced" in ds.attrs else None
    note = {"kept": sorted(str(v) for v in out.data_vars), "dropped": dropped, "float32": sorted(f32),
            "integer_counts": sorted(packed), "purpose": purpose}
    if previous:
        note["dropped"] = sorted(set(previous.get("dropped", [])) | set(dropped))
        note["float32"] = sorted(set(previous.get("float32", [])) | f32)
        note["integer_counts"] = sorted(set(previous.get("integer_counts", [])) | set(packed))
    out.attrs = {**ds.attrs, "reduced": json.dumps(note)}
    return out


#: Values of ``recording_storage``.
KEEP_MODES = ("analysis", "full")
#: The plan of ``recording_storage: full``: everything, float64.
FULL_PLAN: dict[str, Any] = {"keep": None, "float32": [], "purpose": "full"}


def check_mode(mode: object, where: str = "config") -> str:
    """``mode`` if it is a value of :data:`KEEP_MODES`.

    Parameters
    ----------
    mode : object
        The ``recording_storage`` setting.
    where : str
        Where it comes from, for the message (e.g. ``"config/<slug>.yaml"``).

    Raises
    ------
    ValueError
        Any other value, naming the allowed ones.
    """
    if mode not in KEEP_MODES:
        raise ValueError(f"{where}: recording_storage must be one of {KEEP_MODES}, not {mode!r}")
    return str(mode)


def storage_plan(mode: str, reads: Mapping[str, Iterable[str] | None], *, full_command: str,
                 also: Mapping[str, Iterable[str]] | None = None, float32: Iterable[str] = (),
                 resolution: Mapping[str, float] | None = None) -> dict[str, Any]:
    """How to store one twin recording.

    Parameters
    ----------
    mode : {"analysis", "full"}
        The ``recording_storage`` setting (:func:`check_mode`).
    reads : mapping of str to iterable of str or None
        The notebooks that use the recording -> the data variables each reads; None for a notebook
        that has not said, which keeps the whole recording.
    full_command : str
        How to get the whole log, for the ``reduced`` attribute (e.g.
        ``"paperlib reproduce <slug> --full-recordings"``).
    also : mapping of str to iterable of str, optional
        Other readers of the recording (e.g. ``{"the warm start": ["pi_hat"]}``): their variables
        are kept, never in single precision (e.g. a next run starts from them).
    float32 : iterable of str
        Variables to store in single precision if kept (only those whose rounding changes no
        reported number).
    resolution : mapping of str to float, optional
        Steps the twin quantizes variables to (variable -> step in its units): kept, float64
        variables among them are stored as integer counts where every value is a multiple.

    Returns
    -------
    dict
        ``{"keep": sorted names | None, "float32": sorted names, "resolution": {name: step},
        "purpose": str}``; ``keep`` None (and no ``resolution``) keeps everything in float64.

    Raises
    ------
    ValueError
        ``mode`` is not one of :data:`KEEP_MODES`.
    """
    if check_mode(mode, "storage_plan") == "full":
        return dict(FULL_PLAN)
    undeclared = [nb for nb, r in reads.items() if r is None]
    if undeclared:  # a notebook that has not said what it reads gets the whole recording
        return {**FULL_PLAN, "purpose": f"full: {', '.join(undeclared)} declares no NOTEBOOK_READS"}
    also = {who: list(v) for who, v in (also or {}).items()}
    keep = {"q"}.union(*(set(r) for r in reads.values() if r is not None), *(set(r) for r in also.values()))
    f32 = (set(float32) & keep) - {v for r in also.values() for v in r}
    purpose = (f"the variables read by {', '.join(reads) or 'no notebook'}"
               + "".join(f" and {who}" for who in also)
               + f"; the whole log: recording_storage: full ({full_command})")
    steps = {v: float(s) for v, s in (resolution or {}).items() if v in keep and v not in f32}
    return {"keep": sorted(keep), "float32": sorted(f32), "resolution": steps, "purpose": purpose}


def apply_storage(ds: xr.Dataset, plan: Mapping[str, Any] | None) -> xr.Dataset:
    """``ds`` as a plan stores it: reduced (:func:`reduce_recording`), or as it is.

    Parameters
    ----------
    ds : xarray.Dataset
        A twin recording as the twin made it.
    plan : mapping, optional
        :func:`storage_plan`'s result; None or :data:`FULL_PLAN` leaves ``ds`` whole.

    Returns
    -------
    xarray.Dataset
        What to write; a reduced copy says so in its ``reduced`` attribute (what was kept, dropped,
        stored in float32 or as integer counts, and how to get the whole log).

    Raises
    ------
    ValueError
        A plan that reduces, given a recording whose ``source`` is not ``twin`` (a measured
        recording cannot be made again: it is always stored whole).
    """
    if not plan or (plan.get("keep") is None and not plan.get("float32") and not plan.get("resolution")):
        return ds
    if ds.attrs.get("source") != "twin":
        raise ValueError(f"apply_storage: only twin recordings are reduced; this one has source = "
                         f"{ds.attrs.get('source')!r} and is stored whole")
    return reduce_recording(ds, keep=plan.get("keep"), float32=plan.get("float32", ()),
                            resolution=plan.get("resolution"), purpose=str(plan.get("purpose", "")))
