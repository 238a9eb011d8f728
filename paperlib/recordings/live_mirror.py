"""A recording while it is written: the writer's chunks in shared files that another process reads.

A :class:`~paperlib.recordings.writer.RecordingWriter` given a :class:`LiveMirror` keeps its
in-memory chunks in memory-mapped ``.npy`` files of the mirror's folder instead of private
arrays, and stores the number of samples appended after each sample into a one-number counter
file. The control loop writes exactly what it writes without a mirror (the same values into the
same preallocated rows; one more integer store per sample, the count), so the recording the
writer produces at the end is the same with and without a mirror, and the loop does no file
I/O for it: the kernel shares the pages with any reader.

A :class:`LiveReader` in another process (the live page, :mod:`paperlib.live`) maps the same
files read-only and copies the rows below the counter. A row is complete before the counter
passes it (the writer stores the row, its time last, and then the count; x86-64 keeps stores in
order); the reader also stops at the first row whose time is not yet written (NaN), so a torn
read shows fewer rows, never wrong ones.

Files of a mirror folder
------------------------
``layout.json``
    Written atomically when the writer is made: channels (units, long name, per-sample dims,
    dtype, shape), coordinates, joint labels, chunk size, sample rate and the recording's
    global attributes (robot, source, controller, config...).
``count.npy``
    int64 ``[samples appended, state]`` (state 0 running, 1 finished).
``chunk-<k>.time.npy``, ``chunk-<k>.<channel>.npy``
    Chunk ``k`` (rows ``k * chunk_size`` ...) of the time and of each channel.
``status.json``
    Written atomically when the writer finishes: the file written, the fault (if any).

The folder lives as long as its owner keeps it (the ``paperlib run --live`` command makes it in
``/dev/shm`` when there is one and removes it after the page closes; the folder of a run killed
before it could, e.g. by SIGKILL, is removed when the next live run starts:
:func:`paperlib.hardware.live_launch.remove_orphaned_mirrors`); a 4 kHz run of the 5R takes about
1.2 MB of it per second.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["LiveMirror", "LiveReader", "LiveSnapshot", "STATE_RUNNING", "STATE_FINISHED"]

#: Values of the counter's state field.
STATE_RUNNING, STATE_FINISHED = 0, 1

_LAYOUT, _COUNT, _STATUS = "layout.json", "count.npy", "status.json"


def _write_json_atomic(path: Path, obj: Any) -> None:
    """Write ``obj`` as JSON to ``path`` through a temporary file and a rename (readers see all or nothing)."""
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=1, default=str)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _chunk_file(folder: Path, k: int, name: str) -> Path:
    return folder / f"chunk-{k:05d}.{name}.npy"


class LiveMirror:
    """Where a :class:`~paperlib.recordings.writer.RecordingWriter` keeps its chunks for a live reader.

    Parameters
    ----------
    folder : path-like
        An existing, empty folder (fast storage: ``/dev/shm`` where there is one).

    Notes
    -----
    Give it to one writer (``RecordingWriter(..., mirror=LiveMirror(folder))``); the writer calls
    :meth:`start`, :meth:`chunk`, :meth:`finish`. A chunk is made (files created and filled with
    NaN, so their pages are resident) when the writer allocates it: preallocate the run's samples
    so that no chunk is made inside the loop.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"live mirror folder {self.folder} does not exist")
        if any(self.folder.iterdir()):
            raise FileExistsError(f"live mirror folder {self.folder} is not empty")
        self._count: np.ndarray | None = None
        self._channels: dict[str, tuple[str, tuple[int, ...]]] = {}

    def start(self, *, channels: Mapping[str, Mapping[str, Any]], shapes: Mapping[str, tuple[int, ...]],
              coords: Mapping[str, list[Any]], joint_labels: list[int], chunk_size: int, sample_rate_hz: float,
              attrs: Mapping[str, Any]) -> np.ndarray:
        """Write the layout and the counter; returns the counter (int64, ``[samples, state]``)."""
        self._channels = {c: (str(spec["dtype"]), tuple(shapes[c])) for c, spec in channels.items()}
        layout = {
            "channels": {c: {**dict(spec), "shape": list(shapes[c])} for c, spec in channels.items()},
            "coords": {k: [v if isinstance(v, (int, float, str)) else str(v) for v in vals]
                       for k, vals in coords.items()},
            "joint": [int(j) for j in joint_labels],
            "chunk_size": int(chunk_size),
            "sample_rate_hz": float(sample_rate_hz),
            "attrs": {k: (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
                      for k, v in attrs.items()},
        }
        count = np.lib.format.open_memmap(self.folder / _COUNT, mode="w+", dtype=np.int64, shape=(2,))
        count[:] = (0, STATE_RUNNING)
        _write_json_atomic(self.folder / _LAYOUT, layout)
        self._count = count
        return count

    def chunk(self, k: int, chunk_size: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Chunk ``k``: the time and every channel as memory-mapped arrays (floats NaN, integers 0)."""
        def mapped(name: str, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
            arr = np.lib.format.open_memmap(_chunk_file(self.folder, k, name), mode="w+", dtype=np.dtype(dtype),
                                            shape=(chunk_size, *shape))
            arr[...] = np.nan if arr.dtype.kind == "f" else 0
            return arr

        t = mapped("time", "float64", ())
        return t, {c: mapped(c, dtype, shape) for c, (dtype, shape) in self._channels.items()}

    def finish(self, path: str | os.PathLike[str] | None, fault: str | None) -> None:
        """Mark the run finished (``status.json``, then the counter's state)."""
        _write_json_atomic(self.folder / _STATUS, {"recording": None if path is None else str(path), "fault": fault})
        if self._count is not None:
            self._count[1] = STATE_FINISHED


@dataclass
class LiveSnapshot:
    """Rows a :class:`LiveReader` copied: ``time`` (n,) [s] and each channel ``(n, *shape)``."""

    time: np.ndarray
    channels: dict[str, np.ndarray]
    first: int  # index of the first row
    total: int  # samples the writer had appended when read
    finished: bool

    def __len__(self) -> int:
        return int(self.time.shape[0])


class LiveReader:
    """Read-only view of a :class:`LiveMirror` folder from another process.

    Parameters
    ----------
    folder : path-like
        The mirror's folder; :meth:`ready` is False until the writer wrote its layout.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.layout: dict[str, Any] | None = None
        self._count: np.ndarray | None = None
        self._chunks: dict[tuple[int, str], np.ndarray] = {}

    def ready(self) -> bool:
        """True once the layout is there (the writer was made)."""
        if self.layout is None:
            try:
                layout = json.loads((self.folder / _LAYOUT).read_text())
            except FileNotFoundError:
                return False
            self._count = np.load(self.folder / _COUNT, mmap_mode="r")
            self.layout = layout
        return True

    @property
    def channels(self) -> dict[str, dict[str, Any]]:
        """Channel name -> layout entry (units, long_name, dims, dtype, shape)."""
        return {} if self.layout is None else self.layout["channels"]

    @property
    def attrs(self) -> dict[str, Any]:
        """The recording's global attributes as the writer had them at construction."""
        return {} if self.layout is None else self.layout["attrs"]

    def status(self) -> dict[str, Any] | None:
        """``{"recording", "fault"}`` once the writer finished, else None."""
        try:
            return json.loads((self.folder / _STATUS).read_text())
        except FileNotFoundError:
            return None

    def counts(self) -> tuple[int, bool]:
        """(samples appended so far, finished)."""
        if not self.ready():
            return 0, False
        assert self._count is not None
        n, state = (int(x) for x in np.array(self._count))
        return n, state == STATE_FINISHED

    def _array(self, k: int, name: str) -> np.ndarray:
        arr = self._chunks.get((k, name))
        if arr is None:
            arr = np.load(_chunk_file(self.folder, k, name), mmap_mode="r")
            self._chunks[(k, name)] = arr
        return arr

    def read(self, start: int = 0, *, stride: int = 1, names: list[str] | None = None) -> LiveSnapshot:
        """Copy rows ``start, start + stride, ...`` below the writer's count.

        Parameters
        ----------
        start : int
            First row to copy.
        stride : int
            Keep every ``stride``-th row (from ``start``).
        names : list of str, optional
            Channels to copy (default: all).

        Returns
        -------
        LiveSnapshot
            Rows whose time is written (a row being written is left for the next read).
        """
        if stride < 1:
            raise ValueError("stride must be >= 1")
        total, finished = self.counts()
        names = list(self.channels) if names is None else list(names)
        if total <= start:
            empty = {c: np.empty((0, *self.channels[c]["shape"]), self.channels[c]["dtype"]) for c in names}
            return LiveSnapshot(np.empty(0), empty, start, total, finished)
        assert self.layout is not None
        size = int(self.layout["chunk_size"])
        rows = np.arange(start, total, stride)
        parts_t: list[np.ndarray] = []
        parts: dict[str, list[np.ndarray]] = {c: [] for c in names}
        for k in range(rows[0] // size, (rows[-1] // size) + 1):
            local = rows[(rows >= k * size) & (rows < (k + 1) * size)] - k * size
            parts_t.append(np.array(self._array(k, "time")[local]))
            for c in names:
                parts[c].append(np.array(self._array(k, c)[local]))
        t = np.concatenate(parts_t)
        bad = ~np.isfinite(t)
        keep = int(np.argmax(bad)) if bad.any() else t.shape[0]
        return LiveSnapshot(t[:keep], {c: np.concatenate(v)[:keep] for c, v in parts.items()}, start, total,
                            finished)
