"""Importers of what labs log: a CSV with a header, a ROS 2 bag of ``sensor_msgs/JointState``.

Both resample the (usually jittery) stamps onto a uniform grid
(:func:`paperlib.recordings.resample_uniform`, its report returned) and build a schema-2
recording with ``source = hardware`` (the user's measured log) and ``writer`` naming the
importer and the input file.

CSV column specification (``--columns``): entries separated by ``;``, each
``CHANNEL=COLUMN[,COLUMN...][@UNIT]``: ``time`` takes one column, every other channel one column
per joint, in joint order; ``{1..6}`` in a column name expands to six names. Units: time
``s|ms|us|ns``; angles ``rad|deg``; velocities ``rad/s|deg/s``; torques ``N m|mN m``; currents
``A|mA`` (default: the channel's SI unit). Example::

    time=stamp@ms;q=pos_{1..6}@deg;qd=vel_{1..6}@deg/s;current=i_{1..6}
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from paperlib.recordings.resample import DEFAULT_MAX_GAP_PERIODS, JitterReport, logged_time_variable, resample_uniform
from paperlib.recordings.schema import CHANNELS, RecordingError

__all__ = ["UNIT_SCALES", "parse_columns", "import_csv", "import_rosbag2"]

#: unit -> (canonical unit, factor to SI)
UNIT_SCALES: dict[str, tuple[str, float]] = {
    "s": ("s", 1.0), "ms": ("s", 1e-3), "us": ("s", 1e-6), "ns": ("s", 1e-9),
    "rad": ("rad", 1.0), "deg": ("rad", math.pi / 180.0),
    "rad/s": ("rad/s", 1.0), "deg/s": ("rad/s", math.pi / 180.0),
    "rad/s^2": ("rad/s^2", 1.0), "deg/s^2": ("rad/s^2", math.pi / 180.0),
    "N m": ("N m", 1.0), "mN m": ("N m", 1e-3),
    "A": ("A", 1.0), "mA": ("A", 1e-3),
}


def _expand(name: str) -> list[str]:
    m = re.search(r"\{(\d+)\.\.(\d+)\}", name)
    if not m:
        return [name]
    a, b = int(m.group(1)), int(m.group(2))
    return [name[: m.start()] + str(k) + name[m.end():] for k in range(a, b + 1)]


def parse_columns(spec: str) -> dict[str, tuple[list[str], float]]:
    """``CHANNEL -> (columns, factor to SI)`` from a column specification (module docstring).

    Raises
    ------
    ValueError
        Unknown channel or unit, no time or no q, time with several columns, channels with
        different joint counts; each message shows the expected form.
    """
    form = "expected CHANNEL=COL[,COL...][@UNIT] entries separated by ';', e.g. 'time=stamp@ms;q=pos_{1..6}@deg'"
    out: dict[str, tuple[list[str], float]] = {}
    for entry in filter(None, (e.strip() for e in spec.split(";"))):
        if "=" not in entry:
            raise ValueError(f"--columns entry {entry!r}: {form}")
        chan, rest = (x.strip() for x in entry.split("=", 1))
        unit = None
        if "@" in rest:
            rest, unit = (x.strip() for x in rest.rsplit("@", 1))
        if chan != "time" and chan not in CHANNELS:
            raise ValueError(f"--columns: {chan!r} is not a channel of the schema ({', '.join(['time', *CHANNELS])})")
        canon = "s" if chan == "time" else CHANNELS[chan].units
        if unit is None:
            unit = canon
        if unit not in UNIT_SCALES or UNIT_SCALES[unit][0] != canon:
            ok = [u for u, (c, _) in UNIT_SCALES.items() if c == canon]
            raise ValueError(f"--columns: unit {unit!r} of {chan!r} is not one of {ok}")
        cols = [c for part in rest.split(",") if part.strip() for c in _expand(part.strip())]
        if not cols:
            raise ValueError(f"--columns entry {entry!r} names no column; {form}")
        out[chan] = (cols, UNIT_SCALES[unit][1])
    for need in ("time", "q"):
        if need not in out:
            raise ValueError(f"--columns has no {need!r}: every recording needs time and q; {form}")
    if len(out["time"][0]) != 1:
        raise ValueError(f"--columns: time takes one column; got {out['time'][0]}")
    n = len(out["q"][0])
    bad = {k: len(v[0]) for k, v in out.items() if k != "time" and len(v[0]) != n}
    if bad:
        raise ValueError(f"--columns: q has {n} columns (one per joint), but {bad}: give every channel one column per joint")
    return out


def _build(t: np.ndarray, data: dict[str, np.ndarray], *, robot: str, name: str, writer: str,
           origins: Mapping[str, str] | None, torque_side: str | None, sample_rate_hz: float | None,
           max_gap_periods: float, attrs: Mapping[str, Any]) -> tuple[Any, JitterReport]:
    from paperlib.recordings.build import from_arrays

    time, out, report = resample_uniform(t, data, sample_rate_hz=sample_rate_hz, max_gap_periods=max_gap_periods,
                                         name=name)
    q = out.pop("q")
    if "qd" in out and not (origins or {}).get("qd"):
        raise ValueError(f"{name}: qd needs its origin: give --qd-origin (tachometer, drive, gyroscope, encoder-derived, "
                         "model)")
    if any(c in out for c in ("tau_m", "tau_tgt")) and torque_side is None:
        raise ValueError(f"{name}: tau_m needs its side: give --torque-side joint (after the gearbox) or motor")
    ds = from_arrays(q, sample_rate_hz=report.sample_rate_hz, robot=robot, source="hardware", channels=out,
                     extra_vars=logged_time_variable(t, report),
                     origins={k: v for k, v in (origins or {}).items() if k in out} or None,
                     torque_side=torque_side if any(c in out for c in ("tau_m", "tau_tgt")) else None,
                     writer=writer, time=time,
                     attrs={"imported_from": Path(name).name, "resampling": report.describe(), **attrs})
    return ds, report


def import_csv(path: str | Path, columns: str, *, robot: str, origins: Mapping[str, str] | None = None,
               torque_side: str | None = None, sample_rate_hz: float | None = None,
               max_gap_periods: float = DEFAULT_MAX_GAP_PERIODS, delimiter: str | None = None) -> tuple[Any, JitterReport]:
    """A schema-2 recording (``source = hardware``) from a CSV log with a header row.

    Parameters
    ----------
    path : path-like
        The CSV file (first row: column names; ``,`` ``;`` or tab separated, sniffed unless given).
    columns : str
        Column specification (module docstring).
    robot : str
        The recording's ``robot``.
    origins : dict, optional
        ``{"qd": "drive", ...}`` (required for ``qd`` / ``qdd``).
    torque_side : {"joint", "motor"}, optional
        Required with ``tau_m``.
    sample_rate_hz, max_gap_periods
        As for :func:`paperlib.recordings.resample_uniform`.

    Returns
    -------
    (xarray.Dataset, JitterReport)
    """
    path = Path(path)
    spec = parse_columns(columns)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from None
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text.splitlines()[0] if text else "", delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    rows = list(csv.reader(text.splitlines(), delimiter=delimiter))
    if len(rows) < 2:
        raise ValueError(f"{path}: needs a header row and data rows; got {len(rows)} rows")
    header = [h.strip() for h in rows[0]]
    missing = [c for cols, _ in spec.values() for c in cols if c not in header]
    if missing:
        raise ValueError(f"{path}: column(s) {missing} not in the header {header}: fix --columns")
    idx = {h: i for i, h in enumerate(header)}
    body = [r for r in rows[1:] if any(x.strip() for x in r)]
    data: dict[str, np.ndarray] = {}
    for chan, (cols, factor) in spec.items():
        try:
            arr = np.array([[float(r[idx[c]]) for c in cols] for r in body], dtype=np.float64)
        except (ValueError, IndexError) as exc:
            raise ValueError(f"{path}: channel {chan!r}: a row is short or not numeric ({exc}): fix or drop it") from None
        data[chan] = arr * factor
    t = data.pop("time")[:, 0]
    return _build(t, data, robot=robot, name=str(path), writer=f"paperlib import csv ({path.name})", origins=origins,
                  torque_side=torque_side, sample_rate_hz=sample_rate_hz, max_gap_periods=max_gap_periods,
                  attrs={"columns": columns})


def import_rosbag2(bag: str | Path, topic: str = "/joint_states", *, robot: str, joints: Sequence[str] | None = None,
                   effort_channel: str = "tau_m", velocity_origin: str = "drive", sample_rate_hz: float | None = None,
                   max_gap_periods: float = DEFAULT_MAX_GAP_PERIODS) -> tuple[Any, JitterReport]:
    """A schema-2 recording (``source = hardware``) from a ROS 2 bag of ``sensor_msgs/msg/JointState``.

    Time is each message's header stamp; ``position`` -> ``q`` [rad], ``velocity`` -> ``qd``
    [rad/s] (origin ``velocity_origin``), ``effort`` -> joint-side torque [N m] in
    ``effort_channel`` (``tau_m`` with ``side = joint``, or ``tau_s``). Fields that are empty
    in every message are left out. Joints are matched by name (``joints``: which and in what
    order; default the first message's).

    Raises
    ------
    ValueError
        No such bag or topic (the topics present are listed), another message type, a joint
        missing from a message, or a field present in some messages only.
    """
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    bag = Path(bag)
    if not bag.exists():
        raise ValueError(f"{bag}: no such bag (give the bag's directory)")
    if effort_channel not in ("tau_m", "tau_s"):
        raise ValueError(f"effort channel must be tau_m or tau_s; got {effort_channel!r}")
    typestore = get_typestore(Stores.ROS2_HUMBLE)
    t, pos, vel, eff = [], [], [], []
    names: list[str] | None = list(joints) if joints else None
    with Reader(bag) as reader:
        conns = [c for c in reader.connections if c.topic == topic]
        if not conns:
            raise ValueError(f"{bag}: no topic {topic!r}; topics: {sorted({c.topic for c in reader.connections})}: "
                             "give --topic")
        if conns[0].msgtype != "sensor_msgs/msg/JointState":
            raise ValueError(f"{bag}: topic {topic!r} carries {conns[0].msgtype}, not sensor_msgs/msg/JointState")
        for conn, _, raw in reader.messages(connections=conns):
            msg = typestore.deserialize_cdr(raw, conn.msgtype)
            if names is None:
                names = list(msg.name)
            where = {nm: i for i, nm in enumerate(msg.name)}
            lost = [nm for nm in names if nm not in where]
            if lost:
                raise ValueError(f"{bag}: message {len(t)} has no joint(s) {lost} (it has {list(msg.name)}): "
                                 "give --joints with the joints every message carries")
            sel = [where[nm] for nm in names]
            t.append(msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec)
            for store, field in ((pos, msg.position), (vel, msg.velocity), (eff, msg.effort)):
                store.append(np.asarray(field, dtype=np.float64)[sel] if len(field) else None)
    if not t:
        raise ValueError(f"{bag}: topic {topic!r} holds no message")
    order = np.argsort(np.asarray(t), kind="stable")
    data: dict[str, np.ndarray] = {}
    for chan, store, label in (("q", pos, "position"), ("qd", vel, "velocity"), (effort_channel, eff, "effort")):
        have = [x is not None for x in store]
        if not any(have):
            if chan == "q":
                raise ValueError(f"{bag}: no message carries position: q cannot be imported")
            continue
        if not all(have):
            raise ValueError(f"{bag}: {label} is empty in {have.count(False)} of {len(have)} messages: cut the bag to "
                             "the messages that carry it")
        data[chan] = np.asarray(store)[order]
    origins = {"qd": velocity_origin} if "qd" in data else None
    return _build(np.asarray(t)[order], data, robot=robot, name=str(bag), writer=f"paperlib import rosbag2 ({bag.name})",
                  origins=origins, torque_side="joint" if effort_channel == "tau_m" else None,
                  sample_rate_hz=sample_rate_hz, max_gap_periods=max_gap_periods,
                  attrs={"topic": topic, "joint_names": ",".join(names or [])})
