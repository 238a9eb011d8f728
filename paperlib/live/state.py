"""What the live page shows, computed from a run's live mirror (no Panel, no browser).

:class:`LiveState` follows a :class:`~paperlib.recordings.LiveReader`: each :meth:`LiveState.update`
copies the rows the writer appended since the last one (every ``stride``-th row for the plotted
histories; every row of ``lateness``, for exact deadline statistics) and keeps them. The page's
figures are made from its accessors:

* :meth:`LiveState.friction_curves`: the friction torque of each actuated friction joint against
  its velocity at the estimator's current estimate and at earlier times of the run (the curves
  converging), from the recording's estimator configuration and ``pi_hat``;
* :meth:`LiveState.drive_gains`: the drive-gain estimates ``pi_pds,j`` over time;
* :meth:`LiveState.tracking_errors`: ``q_sp - q`` per joint [rad] over time;
* :meth:`LiveState.deadlines`: the loop's deadline statistics so far
  (:func:`paperlib.hardware.loop.deadline_statistics`, the numbers ``paperlib run`` prints at the end).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from paperlib.estimation.config import EstimatorConfig
from paperlib.friction import FrictionModel
from paperlib.hardware.loop import deadline_statistics
from paperlib.recordings import LiveReader

__all__ = ["LiveState", "FrictionCurve"]

#: Plotted channels (those a run records; a channel the run lacks is left out).
PLOTTED = ("q", "qd", "q_sp", "pi_hat")


class FrictionCurve:
    """Friction torque of one joint against velocity at one estimate.

    Attributes
    ----------
    joint : int
        1-based friction joint label.
    t_s : float
        Recording time of the estimate [s].
    v_rad_s : ndarray, shape (n,)
        Velocities [rad/s].
    tau_Nm : ndarray, shape (n,)
        Friction torque resisting the motion [N m].
    """

    def __init__(self, joint: int, t_s: float, v_rad_s: np.ndarray, tau_Nm: np.ndarray) -> None:
        self.joint, self.t_s, self.v_rad_s, self.tau_Nm = joint, t_s, v_rad_s, tau_Nm


class LiveState:
    """The growing record of a run that the live page draws.

    Parameters
    ----------
    reader : LiveReader
        The run's live mirror.
    stride : int
        Keep every ``stride``-th sample of the plotted channels (40 at 4 kHz: 100 points per second).
    """

    def __init__(self, reader: LiveReader, stride: int = 40) -> None:
        if stride < 1:
            raise ValueError("stride must be >= 1")
        self.reader = reader
        self.stride = int(stride)
        self._next = 0  # next plotted row
        self._next_late = 0  # next lateness row
        self._t: list[np.ndarray] = []
        self._ch: dict[str, list[np.ndarray]] = {}
        self._late: list[np.ndarray] = []
        self.total = 0
        self.finished = False
        self._model: FrictionModel | None = None
        self._friction_idx: np.ndarray | None = None
        self._gain_idx: list[int] = []
        self._param_names: list[str] = []

    # -- reading ---------------------------------------------------------------------------------
    def _configure(self) -> None:
        layout = self.reader.layout or {}
        self._param_names = [str(p) for p in layout.get("coords", {}).get("param", [])]
        self._gain_idx = [i for i, p in enumerate(self._param_names) if p.startswith("pi_pds,")]
        try:
            est = json.loads(self.reader.attrs.get("config", "{}")).get("estimator")
            model = EstimatorConfig.from_dict(est).friction_model if est else None
        except (ValueError, TypeError):
            model = None
        names = model.param_names() if model is not None else []
        if model is not None and all(n in self._param_names for n in names):
            self._model = model
            self._friction_idx = np.array([self._param_names.index(n) for n in names], dtype=np.int64)

    def update(self) -> int:
        """Copy what the writer appended since the last call; returns the number of new plotted rows."""
        if not self.reader.ready():
            return 0
        if not self._ch:
            self._ch = {c: [] for c in PLOTTED if c in self.reader.channels}
            self._configure()
        snap = self.reader.read(self._next, stride=self.stride, names=list(self._ch))
        if len(snap):
            self._t.append(snap.time)
            for c, arr in snap.channels.items():
                self._ch[c].append(arr)
            self._next += len(snap) * self.stride
        if "lateness" in self.reader.channels:
            late = self.reader.read(self._next_late, names=["lateness"])
            if len(late):
                self._late.append(late.channels["lateness"])
                self._next_late += len(late)
        self.total = snap.total
        self.finished = snap.finished and self._next >= snap.total
        self._compact()
        return len(snap)

    def _compact(self) -> None:
        if len(self._t) > 1:
            self._t = [np.concatenate(self._t)]
            for c, parts in self._ch.items():
                self._ch[c] = [np.concatenate(parts)]
        if len(self._late) > 1:
            self._late = [np.concatenate(self._late)]

    # -- accessors -------------------------------------------------------------------------------
    @property
    def sample_rate_hz(self) -> float:
        """The run's control rate [Hz] (NaN before the layout is read)."""
        return float((self.reader.layout or {}).get("sample_rate_hz", math.nan))

    @property
    def time(self) -> np.ndarray:
        """Times of the plotted samples [s], shape (n,)."""
        return self._t[0] if self._t else np.empty(0)

    def channel(self, name: str) -> np.ndarray | None:
        """A plotted channel, shape (n, ...), or None when the run does not record it."""
        parts = self._ch.get(name)
        return None if parts is None else (parts[0] if parts else np.empty((0,)))

    @property
    def joints(self) -> list[int]:
        """Joint labels of the recording."""
        return [int(j) for j in (self.reader.layout or {}).get("joint", [])]

    def tracking_errors(self) -> dict[int, np.ndarray]:
        """Joint label -> ``q_sp - q`` [rad] at :attr:`time` (empty without a set-point channel)."""
        q, q_sp = self.channel("q"), self.channel("q_sp")
        if q is None or q_sp is None or q.size == 0:
            return {}
        return {j: q_sp[:, i] - q[:, i] for i, j in enumerate(self.joints)}

    def drive_gains(self) -> dict[str, np.ndarray]:
        """Parameter name (``pi_pds,j``) -> its estimate at :attr:`time` (empty without ``pi_hat``)."""
        pi = self.channel("pi_hat")
        if pi is None or pi.size == 0:
            return {}
        return {self._param_names[i]: pi[:, i] for i in self._gain_idx}

    def true_drive_gains(self) -> dict[str, float]:
        """``pi_pds,j`` -> the twin's true drive gain (a twin run's ``truth`` attribute); empty otherwise."""
        try:
            truth = json.loads(self.reader.attrs.get("truth") or "{}")
        except (TypeError, ValueError):
            return {}
        values = truth.get("pi_pds") if isinstance(truth, dict) else None
        if not isinstance(values, list):
            return {}
        return {f"pi_pds,{j + 1}": float(v) for j, v in enumerate(values) if f"pi_pds,{j + 1}" in self._param_names}

    def friction_curves(self, n_estimates: int = 5, n_v: int = 81) -> list[FrictionCurve]:
        """Friction torque against velocity of each actuated friction joint, at ``n_estimates`` estimates.

        The estimates are the latest one and those at equal steps back to the first second of
        the run (older curves first; ``n_estimates`` curves per joint even when fewer samples
        are in, some then repeated). The velocity range is the largest joint rate seen so far
        (at least 0.1 rad/s). Empty when the run has no estimate or an unknown friction model.

        Parameters
        ----------
        n_estimates : int
            Curves per joint.
        n_v : int
            Velocities per curve.
        """
        pi, qd = self.channel("pi_hat"), self.channel("qd")
        t = self.time
        if self._model is None or self._friction_idx is None or pi is None or pi.shape[0] == 0:
            return []
        start = int(np.searchsorted(t, t[0] + min(1.0, 0.5 * (t[-1] - t[0]))))
        # always n_estimates rows (repeated early in the run), so the page's figure keeps its layers
        rows = np.linspace(start, t.shape[0] - 1, n_estimates).round().astype(int)
        out = []
        for j in self._model.joints:
            if j > len(self.joints):  # a passive joint: no velocity of its own in the recording
                continue
            v_max = max(0.1, float(np.nanmax(np.abs(qd[:, j - 1]))) if qd is not None and qd.size else 0.1)
            v = np.linspace(-v_max, v_max, n_v)
            for r in rows:
                tau = self._model.torque(pi[r, self._friction_idx], v, j)
                out.append(FrictionCurve(j, float(t[r]), v, tau))
        return out

    def lateness_s(self) -> np.ndarray:
        """Start lateness of every cycle so far [s], shape (cycles,)."""
        return self._late[0] if self._late else np.empty(0)

    def deadlines(self) -> dict[str, Any]:
        """Deadline statistics of the cycles so far (:func:`~paperlib.hardware.loop.deadline_statistics`)."""
        lat = self.lateness_s()
        rate = self.sample_rate_hz
        period_ns = round(1e9 / rate) if rate > 0 else 0
        missed = np.rint(lat * 1e9) > period_ns  # the loop logs whole nanoseconds, in seconds
        return {**deadline_statistics(lat * 1e6, missed), "period_us": period_ns * 1e-3}
