"""One plant moved by the axes of several emulated drives (a robot whose joints are on separate drives).

Each emulated drive (:class:`~paperlib.hardware.emulators.devices.Cia402Drive`) steps its own
plant after every process-data frame. A robot whose drives are coupled through its mechanism (a
parallel robot's three single-axis drives, say) is *one* plant: :class:`SharedPlant` gives every
drive a :class:`PlantView` of it. The drives run their applications one after the other, in
wiring order, after the same frame; each view hands its drive's torques to the shared plant,
and the plant advances once, by the frame's ``dt``, when the last of them has done so (all the
torques of that frame applied together, as drives synchronised by distributed clocks apply
theirs). The drives that ran before it get the new actual values pushed to their process image
(:meth:`~paperlib.hardware.emulators.devices.Cia402Drive.set_actuals`), so every drive's reply to
the next frame reports the same plant instant.

A view that steps twice before the others have stepped once (drives ticking on their own clocks,
outside lock-step) advances the plant with the torques held so far: the plant never stalls on a
drive that is not in OP.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["SharedPlant", "PlantView"]


class PlantView:
    """A drive's axes of a :class:`SharedPlant` (what the drive sees as its ``plant``).

    Parameters
    ----------
    shared : SharedPlant
        The plant.
    index : int
        The view's position among the shared plant's views (wiring order of the drives).
    axes : slice
        The plant axes this drive moves.
    """

    def __init__(self, shared: "SharedPlant", index: int, axes: slice) -> None:
        self.shared = shared
        self.index = index
        self.axes = axes
        self.drive: Any = None  # set once the chain is built: the drive to refresh after the plant moved

    def step(self, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hand this drive's motor torques [N m] to the plant; its axes' (position, velocity, torque)."""
        return self.shared.submit(self.index, torque_Nm, dt)


class SharedPlant:
    """A multi-axis plant shared by several drives (module docstring).

    Parameters
    ----------
    plant : object
        ``step(torque_Nm (n,), dt) -> (position, velocity, torque)`` over all ``n`` axes
        (:class:`~paperlib.hardware.emulators.devices.Plant`).
    axes_per_drive : sequence of int
        How many consecutive plant axes each drive moves, in wiring order (their sum is ``n``).
    """

    def __init__(self, plant: Any, axes_per_drive: Sequence[int]) -> None:
        self.plant = plant
        counts = [int(a) for a in axes_per_drive]
        if not counts or min(counts) < 1:
            raise ValueError(f"a shared plant needs drives of one axis or more, got {counts}")
        edges = np.cumsum([0, *counts])
        self.n_axes = int(edges[-1])
        self.views = [PlantView(self, k, slice(int(edges[k]), int(edges[k + 1]))) for k in range(len(counts))]
        self.torque = np.zeros(self.n_axes)
        self._pending = [False] * len(counts)
        self._dt = 0.0
        self.advances = 0
        q, qd, tau = plant.step(np.zeros(self.n_axes), 0.0)
        self.q, self.qd, self.tau = (np.asarray(v, float).copy() for v in (q, qd, tau))

    def submit(self, index: int, torque_Nm: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A drive's torques for the coming ``dt`` [s]; advances the plant when every drive has given its own."""
        sl = self.views[index].axes
        if dt > 0.0 and self._pending[index]:  # stepped again before the others: do not stall on them
            self._advance(skip=index)
        self.torque[sl] = np.asarray(torque_Nm, float)
        if dt > 0.0:
            self._pending[index] = True
            self._dt = float(dt)
            if all(self._pending):
                self._advance(skip=index)
        return self.q[sl].copy(), self.qd[sl].copy(), self.tau[sl].copy()

    def _advance(self, skip: int) -> None:
        q, qd, tau = self.plant.step(self.torque.copy(), self._dt)
        self.q, self.qd, self.tau = (np.asarray(v, float).copy() for v in (q, qd, tau))
        self._pending = [False] * len(self._pending)
        self.advances += 1
        for view in self.views:
            if view.index != skip and view.drive is not None:
                sl = view.axes
                view.drive.set_actuals(self.q[sl], self.qd[sl], self.tau[sl])
