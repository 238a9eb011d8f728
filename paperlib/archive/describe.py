"""What a release file is, in one record: read from the recording's own attributes and axes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["RecordingInfo", "describe", "SOURCE_WORDS"]

#: How the release says where a recording's data came from.
SOURCE_WORDS = {"twin": "simulated by the digital twin, not measured", "hardware": "measured on the robot"}


@dataclass(frozen=True)
class RecordingInfo:
    """A recording's bookkeeping, as its file states it."""

    source: str  # "twin" | "hardware"
    robot: str
    sample_rate_hz: float  # [Hz]
    n_samples: int
    duration_s: float  # time span from the first to the last sample [s]
    joints: int
    channels: tuple[str, ...]  # the data variables on the time axis
    controller: str
    description: str
    licence: str | None  # a third-party licence the file states (imported data), else None
    origin_url: str | None  # where imported data are published, else None
    reduced: bool  # a storage copy keeping only some channels (recordings.reduce_recording)

    @property
    def source_words(self) -> str:
        """``twin (simulated by the digital twin, not measured)``, ``hardware (measured on the robot)``."""
        return f"{self.source} ({SOURCE_WORDS.get(self.source, 'unknown origin')})"


def describe(path: Path) -> RecordingInfo:
    """Read a recording's attributes and axes (lazily: the data are not loaded).

    Parameters
    ----------
    path : Path
        A ``paperlib.recording`` file.

    Returns
    -------
    RecordingInfo
    """
    import warnings

    import xarray as xr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with xr.open_dataset(path, engine="h5netcdf", decode_times=False, decode_timedelta=False) as ds:
            attrs = dict(ds.attrs)
            time = ds["time"].values
            channels = tuple(sorted(str(v) for v in ds.data_vars if "time" in ds[v].dims))
            joints = int(ds.sizes.get("joint", 0))
    n = int(time.shape[0])
    return RecordingInfo(
        source=str(attrs.get("source", "?")), robot=str(attrs.get("robot", "?")),
        sample_rate_hz=float(attrs.get("sample_rate_hz", float("nan"))), n_samples=n,
        duration_s=float(time[-1] - time[0]) if n else 0.0, joints=joints, channels=channels,
        controller=str(attrs.get("controller", "")), description=str(attrs.get("description", "")),
        licence=str(attrs["licence"]) if "licence" in attrs else None,
        origin_url=str(attrs["origin_url"]) if "origin_url" in attrs else None, reduced="reduced" in attrs)
