"""The streaming writer of a recording: :class:`RecordingWriter` appends one sample per control
cycle into preallocated chunks and writes a valid file at the end (or on a fault).
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import xarray as xr

from paperlib import provenance
from paperlib.recordings.build import _coords, _global_attrs, _qualifiers
from paperlib.recordings.io import write_recording
from paperlib.recordings.live_mirror import LiveMirror
from paperlib.recordings.schema import ALLOWED_NAN, CHANNELS, GRID_TOL, LOOP_CHANNELS, STEP_RTOL, RecordingError
from paperlib.recordings.validation import _check_attrs, _check_joint

__all__ = ["Channel", "RecordingWriter"]


@dataclass(frozen=True)
class Channel:
    """A per-sample channel of a :class:`RecordingWriter`.

    Attributes
    ----------
    long_name : str
        CF long name.
    units : str
        UDUNITS string (``"1"`` for dimensionless values or counts).
    dims : tuple of str
        Per-sample dimensions (``time`` is prepended): ``("joint",)``, ``()`` for a scalar
        per sample, or e.g. ``("param",)`` with the coordinate given to the writer.
    dtype : str
        Storage dtype.
    """

    long_name: str
    units: str
    dims: tuple[str, ...] = ("joint",)
    dtype: str = "float64"


_VOCAB_CHANNELS = {k: Channel(long_name=spec.long_name, units=spec.units) for k, spec in CHANNELS.items()}


class RecordingWriter:
    """Streaming logger: append one sample per control cycle, write a valid file at the end.

    Samples go into preallocated in-memory chunks (one array per channel and chunk; a new
    chunk is allocated every ``chunk_size`` samples unless preallocated), so :meth:`append`
    allocates no arrays and copies nothing. :meth:`finish` / :meth:`close` / leaving the
    ``with`` block writes everything appended so far atomically; leaving it on an exception
    records the exception as the ``fault`` attribute and re-raises it. Memory: 8 bytes per
    value, e.g. ~128 B per sample and joint for the eight required channels.

    The metadata are checked at construction (a twin without seed fails before the run,
    not after it). Time is checked on every append against the nominal grid
    ``t0 + k / sample_rate_hz`` (see the module's time tolerances): log nominal sample times.

    Parameters
    ----------
    path : path-like
        Destination file.
    joint_labels : sequence of int
        Actuated joint labels, e.g. ``[1, 2]``.
    robot, source, sample_rate_hz, controller, config, seed, truth, attrs
        As for :func:`make_recording`; ``source`` is mandatory.
    channels : iterable of str
        Channels of :data:`CHANNELS` given with every sample (default :data:`LOOP_CHANNELS`,
        what the 5R's loops log); must include ``q``.
    origins, torque_side, writer
        Qualifiers of ``qd``/``qdd`` and ``tau_m``/``tau_tgt``, and the writing program, as for
        :func:`make_recording`.
    optional : iterable of str
        Further channels of :data:`CHANNELS` that may be left out of a sample, e.g.
        ``("temperature",)``.
    extra_channels : dict of str -> Channel, optional
        Further channels (raw IMU, estimator history...).
    coords : dict of str -> sequence, optional
        Coordinates of the extra channels' dimensions, e.g. ``{"param": ["pi_1", ...]}``.
    chunk_size : int
        Samples per in-memory chunk.
    preallocate : int
        Samples to allocate up front (e.g. ``duration * fs``) so the loop never allocates.
    flush_every_s : float, optional
        Also write the file every this many seconds of recording time. A flush rewrites the
        whole file (O(samples so far)): do not use it inside a hard real-time loop.
    mirror : LiveMirror, optional
        Keep the chunks in the mirror's shared files, for a reader in another process while the
        run goes (:mod:`paperlib.recordings.live_mirror`; the live page). The samples and the
        file written are the same as without it; :meth:`append` does no file I/O for it.

    Examples
    --------
    >>> with RecordingWriter("run.nc", [1, 2], robot="five_bar", source="hardware",
    ...                      sample_rate_hz=4000.0, controller="PD", config=cfg) as rec:
    ...     for k in range(n):
    ...         m = rig.read()
    ...         rec.append(k / 4000.0, q=m.q, qd=m.qd, qdd=m.qdd, tau_m=m.tau_m,
    ...                    tau_tgt=tau, q_sp=q_sp, qd_sp=qd_sp, qdd_sp=qdd_sp)
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        joint_labels: Sequence[int],
        *,
        robot: str,
        source: str,
        sample_rate_hz: float,
        controller: str | None = None,
        config: Mapping[str, Any] | None = None,
        seed: int | None = None,
        truth: Mapping[str, Any] | None = None,
        attrs: Mapping[str, Any] | None = None,
        channels: Iterable[str] = LOOP_CHANNELS,
        origins: Mapping[str, str] | None = None,
        torque_side: str | None = None,
        writer: str | None = None,
        optional: Iterable[str] = (),
        extra_channels: Mapping[str, Channel] | None = None,
        coords: Mapping[str, Sequence[Any]] | None = None,
        chunk_size: int = 1 << 14,
        preallocate: int = 0,
        flush_every_s: float | None = None,
        mirror: LiveMirror | None = None,
    ) -> None:
        self.path = Path(path)
        self._name = str(self.path)
        self._attrs = _global_attrs(self._name, robot=robot, source=source,
                                    sample_rate_hz=sample_rate_hz, controller=controller,
                                    config=config, seed=seed, truth=truth, attrs=attrs, writer=writer)
        self._qualifiers: dict[str, dict[str, str]] = {}
        problems = _check_attrs(self._attrs, self._name)
        if problems:
            raise RecordingError(problems)
        self._joint_labels = list(joint_labels)
        problems = _check_joint(xr.Dataset(coords={"joint": _coords(np.zeros(0), joint_labels)["joint"]}),
                                self._name)
        if problems:
            raise RecordingError(problems)
        self._coords = {k: list(v) for k, v in (coords or {}).items()}
        sizes = {"joint": len(self._joint_labels), **{k: len(v) for k, v in self._coords.items()}}
        logged = list(channels)
        for cname in [*logged, *optional]:
            if cname not in CHANNELS:
                raise RecordingError(f"{self._name}: variable {cname!r}: not a channel of the schema "
                                     f"({', '.join(CHANNELS)}); use extra_channels")
        if "q" not in logged:
            raise RecordingError(f"{self._name}: variable 'q': every recording logs it")
        self._qualifiers = _qualifiers(self._name, [*logged, *optional], origins, torque_side)
        channels = {c: _VOCAB_CHANNELS[c] for c in logged}
        for oname in optional:
            channels[oname] = _VOCAB_CHANNELS[oname]
        for cname, spec in (extra_channels or {}).items():
            if cname in channels or cname in ("time", "joint"):
                raise RecordingError(f"{self._name}: variable {cname!r}: already defined")
            unknown = [d for d in spec.dims if d not in sizes]
            if unknown:
                raise RecordingError(f"{self._name}: variable {cname!r}: dimension(s) {unknown} "
                                     "have no coordinate: pass coords={...}")
            channels[cname] = spec
        self._channels = channels
        self._shapes = {c: tuple(sizes[d] for d in spec.dims) for c, spec in channels.items()}
        self._required = frozenset(logged)
        self._fs = float(sample_rate_hz)
        self._dt = 1.0 / self._fs
        self._step_tol = STEP_RTOL * self._dt
        self._grid_tol = GRID_TOL * self._dt
        self._chunk_size = int(chunk_size)
        if self._chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        self._mirror = mirror
        # samples appended, and a state field: the mirror's shared counter, or a private one
        self._count = np.zeros(2, dtype=np.int64) if mirror is None else mirror.start(
            channels={c: {"long_name": spec.long_name, "units": spec.units, "dims": list(spec.dims),
                          "dtype": spec.dtype} for c, spec in channels.items()},
            shapes=self._shapes, coords=self._coords, joint_labels=self._joint_labels,
            chunk_size=self._chunk_size, sample_rate_hz=self._fs, attrs=self._attrs)
        self._chunks: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
        for _ in range(max(1, -(-int(preallocate) // self._chunk_size))):
            self._chunks.append(self._new_chunk())
        self._ci = 0  # current chunk index
        self._t_buf, self._buf = self._chunks[0]
        self._j = 0  # next row in the current chunk
        self._n = 0  # samples appended
        self._t0 = 0.0
        self._t_last = 0.0
        self._flush_every = flush_every_s
        self._next_flush = None if flush_every_s is None else float(flush_every_s)
        self._closed = False
        self._fault: str | None = None

    # -- buffers ---------------------------------------------------------------------------
    def _new_chunk(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        if self._mirror is not None:
            return self._mirror.chunk(len(self._chunks), self._chunk_size)
        t = np.full(self._chunk_size, np.nan)
        bufs = {}
        for cname, spec in self._channels.items():
            shape = (self._chunk_size, *self._shapes[cname])
            dtype = np.dtype(spec.dtype)
            bufs[cname] = np.full(shape, np.nan, dtype) if dtype.kind == "f" else np.zeros(shape, dtype)
        return t, bufs

    def _advance_chunk(self) -> None:
        self._ci += 1
        if self._ci == len(self._chunks):
            self._chunks.append(self._new_chunk())
        self._t_buf, self._buf = self._chunks[self._ci]
        self._j = 0

    @property
    def n_samples(self) -> int:
        """Number of samples appended so far."""
        return self._n

    def append(self, t: float, **channels: Any) -> None:
        """Record one sample.

        Parameters
        ----------
        t : float
            Sample time [s], the nominal ``t0 + k / sample_rate_hz``.
        **channels : array_like
            One value per channel, shaped per sample (``(n_joint,)`` for joint channels). The
            first call must give every required channel; a channel left out later stays NaN
            (which a finished recording rejects for non-NaN-able channels).

        Raises
        ------
        ValueError
            On a time off the grid, an unknown channel or a wrongly shaped value; nothing of
            that sample is kept.
        RuntimeError
            After the writer was finished.
        """
        if self._closed:
            raise RuntimeError(f"{self._name}: writer already finished")
        if self._n == 0:
            if not math.isfinite(t):
                raise ValueError(f"{self._name}: first sample time {float(t)!r} is not finite")
            missing = self._required - channels.keys()
            if missing:
                raise ValueError(f"{self._name}: first sample lacks required channel(s) "
                                 f"{sorted(missing)}")
        elif not (abs(t - self._t_last - self._dt) <= self._step_tol
                  and abs(t - self._t0 - self._n * self._dt) <= self._grid_tol):
            raise ValueError(f"{self._name}: sample time {float(t)!r} s at index {self._n} is off the "
                             f"grid t0 + k/{self._fs!r} Hz (previous {self._t_last!r} s)")
        if self._j == self._chunk_size:
            self._advance_chunk()
        j = self._j
        buf = self._buf
        try:
            for cname, value in channels.items():
                buf[cname][j] = value
        except KeyError:
            self._clear_row(j)
            how = (f"declare it with optional=({cname!r},)" if cname in CHANNELS
                   else "declare it with extra_channels={...}")
            raise ValueError(f"{self._name}: unknown channel {cname!r} ({how}); known: "
                             f"{sorted(self._channels)}") from None
        except Exception:
            self._clear_row(j)
            raise
        self._t_buf[j] = t
        if self._n == 0:
            self._t0 = t
        self._t_last = t
        self._j = j + 1
        self._n += 1
        self._count[0] = self._n  # after the row: a live reader copies rows below the count
        if self._next_flush is not None and t >= self._next_flush:
            self._next_flush = t + self._flush_every
            self.flush()

    def _clear_row(self, j: int) -> None:
        for arr in self._buf.values():
            arr[j] = np.nan if arr.dtype.kind == "f" else 0

    # -- output ----------------------------------------------------------------------------
    def _dataset(self, fault: str | None) -> xr.Dataset | None:
        """Everything appended so far as a dataset (cut before any non-finite sample)."""
        n = self._n
        parts = [self._chunks[i] for i in range(-(-n // self._chunk_size))]

        def gather(get) -> np.ndarray:
            arr = np.concatenate([get(p) for p in parts]) if parts else np.empty(0)
            return arr[:n]

        time = gather(lambda p: p[0])
        data = {c: gather(lambda p, c=c: p[1][c]) for c in self._channels}
        # Keep the longest prefix where every channel is valid, so a fault that produced a
        # NaN (a dead sensor) still leaves a valid file; the cut is recorded in `fault`.
        cut, culprit = n, None
        for cname, arr in data.items():
            if arr.dtype.kind != "f":
                continue
            bad = np.isinf(arr) if cname in ALLOWED_NAN else ~np.isfinite(arr)
            rows = bad.reshape(n, -1).any(axis=1) if n else bad
            if rows.any():
                k = int(np.argmax(rows))
                if k < cut:
                    cut, culprit = k, cname
        if culprit is not None:
            note = (f"non-finite {culprit!r} at time index {cut} (t = {float(time[cut])!r} s): "
                    f"recording cut to {cut} of {n} samples")
            fault = f"{fault}; {note}" if fault else note
            warnings.warn(f"{self._name}: {note}", RuntimeWarning, stacklevel=3)
        if cut < 2:
            return None
        attrs = dict(self._attrs)
        if "paperlib_version" in attrs:  # paperlib wrote the file: stamp the time of writing
            attrs.update(provenance.stamp())
        if fault:
            attrs["fault"] = fault
        ds = xr.Dataset(
            {c: (("time", *spec.dims), data[c][:cut], {"units": spec.units, "long_name": spec.long_name,
                                                        **self._qualifiers.get(c, {})})
             for c, spec in self._channels.items()},
            coords={**_coords(time[:cut], self._joint_labels),
                    **{k: (k, np.asarray(v)) for k, v in self._coords.items()}},
            attrs=attrs,
        )
        return ds

    def flush(self) -> Path | None:
        """Write everything appended so far (atomically); None if fewer than 2 samples."""
        ds = self._dataset(self._fault)
        return None if ds is None else write_recording(ds, self.path)

    def finish(self, fault: str | None = None) -> Path | None:
        """Write the recording and close the writer; idempotent.

        Parameters
        ----------
        fault : str, optional
            Why the run ended early; stored as the ``fault`` attribute.

        Returns
        -------
        Path or None
            The file written; None (with a warning) when a faulted run left fewer than two
            valid samples, or when the writer was already finished.

        Raises
        ------
        RecordingError
            If a run without fault has fewer than two valid samples.
        """
        if self._closed:
            return None
        self._closed = True
        if fault is not None:
            self._fault = str(fault) or "fault"
        ds = self._dataset(self._fault)
        if ds is None:
            msg = f"{self._name}: fewer than 2 valid samples ({self._n} appended): nothing written"
            self._mirror_finished(None, self._fault or msg)
            if self._fault is None:
                raise RecordingError(msg)
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            return None
        try:
            path = write_recording(ds, self.path)
        except BaseException as exc:
            self._mirror_finished(None, f"{type(exc).__name__}: {exc}")
            raise
        self._mirror_finished(path, self._fault)
        return path

    def _mirror_finished(self, path: Path | None, fault: str | None) -> None:
        if self._mirror is not None:
            self._mirror.finish(path, fault)

    def close(self) -> Path | None:
        """Write the recording (without fault) and close; same as ``finish(None)``."""
        return self.finish(None)

    def __enter__(self) -> "RecordingWriter":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> bool:
        if exc_type is None:
            self.finish(None)
            return False
        try:
            self.finish(f"{exc_type.__name__}: {exc}")
        except Exception as write_exc:  # never mask the run's own exception
            warnings.warn(f"{self._name}: could not write the recording after "
                          f"{exc_type.__name__}: {write_exc}", RuntimeWarning, stacklevel=2)
        return False
