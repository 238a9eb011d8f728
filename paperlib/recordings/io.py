"""Recording files: :func:`write_recording` (validated, compressed, atomic) and :func:`read_recording`.

Files are NetCDF4 (HDF5, xarray's ``h5netcdf`` engine): gzip level 4 with shuffle, fletcher32
checksums on numeric variables, about 1 MiB chunks; a float64 variable with a ``resolution``
attribute whose values are all multiples of it is stored as int32 counts, read back bit for bit.
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterable

import h5py  # noqa: F401  -- the h5netcdf engine needs it and does not pull it in itself
import numpy as np
import xarray as xr

from paperlib import provenance
from paperlib.recordings.schema import SCHEMA_V1, RecordingError, canonical_units
from paperlib.recordings.validation import _is_real, require_channels, validate

__all__ = ["write_recording", "read_recording"]

_COMPRESSION = {"zlib": True, "complevel": 4, "shuffle": True, "fletcher32": True}
_CHUNK_BYTES = 1 << 20  # ~1 MiB chunks


def _counts(values: np.ndarray, step: float) -> np.ndarray | None:
    """``values / step`` as int32 counts if ``counts * step`` gives every value back bit for bit, else None."""
    if not (math.isfinite(step) and step > 0) or values.dtype.kind != "f" or values.size == 0:
        return None
    with np.errstate(all="ignore"):
        k = np.round(values / step)
    if not np.all(np.abs(k) < 2**31 - 1) or not np.array_equal(k.astype(np.int32) * step, values):
        return None
    return k.astype(np.int32)


def _encoding(ds: xr.Dataset) -> dict[str, dict[str, Any]]:
    """Per-variable encoding: compression and checksums on numeric arrays, no fill values.

    A float variable with a ``resolution`` attribute whose values are all exact multiples of it
    is stored as integer counts with that ``scale_factor`` (read back bit for bit as float64).
    """
    enc: dict[str, dict[str, Any]] = {}
    for vname, var in ds.variables.items():
        e: dict[str, Any] = {"_FillValue": None}
        if var.dtype.kind in "fiu" and var.ndim > 0 and var.size > 0:
            e.update(_COMPRESSION)
            itemsize = var.dtype.itemsize
            step = var.attrs.get("resolution")
            if _is_real(step) and var.dtype == np.float64 and _counts(np.asarray(var.values), float(step)) is not None:
                e.update({"dtype": "int32", "scale_factor": float(step)})
                itemsize = 4
            other = int(np.prod(var.shape[1:], dtype=np.int64)) if var.ndim > 1 else 1
            rows = max(1, min(var.shape[0], _CHUNK_BYTES // (itemsize * max(other, 1))))
            e["chunksizes"] = (rows, *var.shape[1:])
        enc[str(vname)] = e
    return enc


def _canonicalised(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` whose units attributes use the canonical spellings."""
    out = ds.copy(deep=False)
    for vname in out.variables:
        units = out[vname].attrs.get("units")
        canon = canonical_units(units)
        if canon is not None and canon != units:
            out[vname].attrs = {**out[vname].attrs, "units": canon}
    return out


def _file_mode(path: Path) -> int:
    """Permissions for a new file at ``path``: those of the file it replaces, else 0o666 & ~umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_recording(ds: xr.Dataset, path: str | os.PathLike[str]) -> Path:
    """Validate ``ds`` and write it atomically to ``path`` (NetCDF4, h5netcdf engine).

    A schema-1 dataset missing provenance attributes (``created``, ``paperlib_version``,
    ``git_commit``) is stamped now; a schema-2 dataset must carry its own ``created`` and
    ``writer`` (paperlib never signs another program's data). Units are written in their canonical spelling.
    The data go to a temporary file in the same directory, are fsync'ed, and the temporary
    file is renamed over ``path``: a crash leaves either the old file or the new one, never
    a partial file. Numeric variables are gzip-compressed with fletcher32 checksums.

    Parameters
    ----------
    ds : xarray.Dataset
        A recording.
    path : path-like
        Destination, conventionally ``*.nc``; its directory must exist.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    RecordingError
        If ``ds`` is invalid (nothing is written).
    """
    path = Path(path)
    ds = _canonicalised(ds)
    if ds.attrs.get("schema") == SCHEMA_V1 and any(k not in ds.attrs for k in ("created", "paperlib_version",
                                                                              "git_commit")):
        ds.attrs = {**provenance.stamp(), **ds.attrs}
    validate(ds, str(path))
    ds = ds.drop_encoding()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with warnings.catch_warnings():  # integer counts have no fill value: _encoding checked they hold no NaN
            warnings.filterwarnings("ignore", message=".*as an integer dtype without any _FillValue.*")
            ds.to_netcdf(tmp, engine="h5netcdf", encoding=_encoding(ds))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))  # mkstemp creates 0o600
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return path


def read_recording(path: str | os.PathLike[str], require: Iterable[str] = (),
                   analysis: str | None = None) -> xr.Dataset:
    """Read, fully load (the file is closed on return) and validate a recording.

    Parameters
    ----------
    path : path-like
        A ``paperlib.recording/2`` (or ``/1``) file.
    require : iterable of str
        Channels the caller needs (e.g. ``("q", "tau_s")``); a file without one is refused.
    analysis : str, optional
        What needs them, for the message (e.g. ``"the friction fit"``).

    Returns
    -------
    xarray.Dataset
        The recording in memory, units in their canonical spelling.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    RecordingError
        If the file is empty, truncated, corrupt or not NetCDF4/HDF5, violates the schema, or
        lacks a channel of ``require`` (the message names the file and the channel).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such recording file")
    size = path.stat().st_size
    if size == 0:
        raise RecordingError(f"{path}: empty file (0 bytes): truncated or corrupt recording")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. phony-dims warnings on foreign HDF5 files
            ds = xr.load_dataset(path, engine="h5netcdf", decode_times=False,
                                 decode_timedelta=False)
    except Exception as exc:  # h5py/h5netcdf raise OSError, ValueError, KeyError, RuntimeError...
        raise RecordingError(f"{path}: cannot be read as NetCDF4/HDF5 ({size} bytes): truncated "
                             f"or corrupt recording ({type(exc).__name__}: {exc})") from exc
    ds = _canonicalised(ds.drop_encoding())
    validate(ds, str(path))
    require_channels(ds, require, name=str(path), analysis=analysis)
    return _as_float64(ds)


def _as_float64(ds: xr.Dataset) -> xr.Dataset:
    """Single-precision data variables (a storage choice, :func:`reduce_recording`) as float64."""
    for v in [v for v in ds.data_vars if ds[v].dtype == np.float32]:
        ds[v] = ds[v].astype(np.float64)
    return ds
