"""What a pipeline stores of a twin recording it makes: the ``analysis`` and ``full`` storage modes.

A twin recording can be made again from its spec, so a pipeline need not keep more of it than its
notebooks read. A room's pipeline says which data variables each notebook reads; with
``recording_storage: analysis`` a recording keeps the union of these over the notebooks that use
it, some channels in single precision where that changes no number, and the channels the twin
quantizes (encoder counts, a drive's torque LSB) as exact integer counts
(:func:`paperlib.recordings.reduce_recording`, :func:`paperlib.recordings.write_recording`).
``recording_storage: full`` keeps everything the twin logs, in float64
(``paperlib reproduce --full-recordings``). Archived and hardware recordings are never reduced: a
measured recording cannot be made again.

A plan (:func:`storage_plan`) is a plain JSON-ready dict, ``{"keep", "float32", "resolution",
"purpose"}``, that a room's record command receives and :func:`apply_storage` carries out.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import xarray as xr

__all__ = ["KEEP_MODES", "FULL_PLAN", "check_mode", "storage_plan", "apply_storage"]

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
        Where it comes from, for the message (e.g. ``"config/industrial.yaml"``).

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
        ``"paperlib reproduce mems --full-recordings"``).
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
    """``ds`` as a plan stores it: reduced (:func:`paperlib.recordings.reduce_recording`), or as it is.

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
    from paperlib.recordings import reduce_recording

    return reduce_recording(ds, keep=plan.get("keep"), float32=plan.get("float32", ()),
                            resolution=plan.get("resolution"), purpose=str(plan.get("purpose", "")))
