"""A robot's twin behind the :class:`~paperlib.rig.Rig` interface, stepped one cycle per ``command``.

:class:`TwinRig` lets the *hardware* code path -- :func:`paperlib.hardware.loop.run_loop` with its
absolute deadlines, watchdog and limits, the controller called from Python, the streaming
recording writer -- run without any device: ``paperlib run --rig twin``. The physics is
:class:`paperlib.twin.plant.TwinPlant` (the twin's plant, drives and IMU sensors, the same
compiled functions as the closed-loop simulators of :mod:`paperlib.twin.robots`).

Per cycle, as on the rig: ``read()`` returns the encoder angle (quantized to the drive's
2^16 counts per motor revolution, divided by the gear ratio), the drive-reported motor torque,
and the IMU rates of the newest microcontroller read made so far (zero-order hold of the
1 kHz stream; raw counts times the nominal sensitivity, through the IMU conversion rows and the
nominal lever arm, :func:`paperlib.estimation.imu_calibration.imu_to_joint`); ``command(tau)``
advances the twin by one 250-us cycle with that target torque. So cycle k sees the state the
commands up to k - 1 produced. The twin's network model (UDP latency, loss) is not applied:
a read is visible from the cycle after it was made.

Time is the twin's own (one cycle per ``command``), so the loop's wall-clock pacing does not
change the physics. Recordings are ``source = "twin"`` with ``rig = "twin"`` and the twin's
truth.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from paperlib.rig import Measurement, Rig, RigFault

__all__ = ["TwinRig"]


class TwinRig(Rig):
    """The twin as a rig (see the module docstring).

    Parameters
    ----------
    seed : int
        Seeds the twin's sensor noise.
    q0 : array_like, shape (2,), optional
        Initial joint angles [rad] (default: the twin's, (120, 60) deg).
    imu_rows : array_like, shape (2, N_IC), optional
        IMU conversion rows (default identity: nominal sensitivities and lever arm).
    robot : RobotModel, optional
        Robot model (default: the robot the twin parameter file names, ``[meta] robot_name``).
    twin_params : optional
        Twin parameters (default: the repository's file).
    """

    source = "twin"
    rig_label = "twin"
    n_joints = 2

    def __init__(self, seed: int = 1, q0: Any = None, imu_rows: Any = None, robot: Any = None,
                 twin_params: Any = None, sample_rate_hz: float | None = None) -> None:
        from paperlib import robots
        from paperlib.estimation.imu_calibration import identity_conversion
        from paperlib.twin import drives as dr

        self.seed = int(seed)
        self.q0 = None if q0 is None else np.asarray(q0, float)
        self.robot_model = robot or robots.load((twin_params or dr.load_twin_params()).robot_name)
        self.robot = self.robot_model.name
        self.twin_params = twin_params
        rate = self.robot_model.sample_rate_hz  # the twin steps in whole control cycles of the robot's rate
        if sample_rate_hz is not None and abs(float(sample_rate_hz) - rate) > 1e-9:
            raise ValueError(f"the twin steps in cycles of the robot's control rate: sample_rate_hz must be {rate:g}")
        self.sample_rate_hz = rate
        self.imu_rows = identity_conversion(2) if imu_rows is None else np.array(imu_rows, float)
        self.imu_calibrated = imu_rows is not None
        desc = self.robot_model.description
        self.lever = np.asarray(desc["imu"]["lever_arm_m"], float)
        counts = float(desc["sensors"]["encoder_counts_per_motor_rev"])
        self._count = 2.0 * math.pi / counts  # motor rad per count
        self.plant: Any = None
        self._m = Measurement(2)
        self._pos = np.zeros(2)
        self._tau = np.zeros(2)
        self._raw = np.zeros((2, 3))
        self._read_t = -math.inf
        self._seq = -1
        self.imu_age_s = math.inf
        self.consecutive_frame_errors = 0
        self._cycle = 0
        self._closed = False
        self._sens: np.ndarray | None = None
        self._timing = False
        self.t_read_ns = np.zeros(0, dtype=np.int64)
        self.t_cmd_ns = np.zeros(0, dtype=np.int64)

    @property
    def imu_delay_cycles(self) -> int:
        from paperlib.estimation.imu_calibration import IC_DELAY

        return int(round(float(np.mean(self.imu_rows[:, IC_DELAY]))))

    def set_imu_rows(self, rows: Any) -> None:
        self.imu_rows = np.array(rows, dtype=float)
        self.imu_calibrated = True

    def open(self) -> None:
        from paperlib.twin import imu as im
        from paperlib.twin.plant import TwinPlant

        if self.plant is not None and not self._closed:
            return
        self.plant = TwinPlant(seed=self.seed, q0=self.q0, twin_params=self.twin_params, robot=self.robot_model)
        self.gear = self.plant.iota.copy()
        self._sens = np.stack([self.plant.imu_p[:, im.IM_SENS_G], self.plant.imu_p[:, im.IM_SENS_A]], axis=1)
        pos, _, tau = self.plant.step(np.zeros(2), 0.0)
        self._pos[:] = pos
        self._tau[:] = tau
        self._closed = False
        self._cycle = 0
        # like the rig's bring-up: let the twin run (zero torque) until the first IMU read exists
        for _ in range(400):
            self.command(np.zeros(2))
            self._take_imu()
            if self._seq >= 0:
                break
        else:
            raise RigFault("twin: no IMU read within 0.1 s of twin time")
        self._cycle = 0

    def truth(self) -> dict[str, Any]:
        """The twin's true values (for the recording's ``truth`` attribute)."""
        from paperlib.twin.truth import twin_truth

        if self.plant is None:
            self.open()
        t = twin_truth(self.plant)
        t.pop("emulated_hardware", None)
        return t

    def read(self) -> Measurement:
        if self.plant is None or self._closed:
            raise RigFault("read() on a closed twin rig")
        from paperlib.estimation.imu_calibration import IC_ALPHA_A, IC_ALPHA_G, IC_BIAS_A, IC_BIAS_G, IC_LEAK

        k = self._cycle
        if self._timing and k < self.t_read_ns.size:
            self.t_read_ns[k] = time.perf_counter_ns()
        m = self._m
        c = self._count
        for j in (0, 1):
            m.q[j] = math.floor(self._pos[j] / c + 0.5) * c / self.gear[j]
            m.tau_m[j] = self._tau[j]
        self._take_imu()
        self.imu_age_s = self.plant.t - self._read_t
        r = self.imu_rows
        sens = self._sens
        for j in (0, 1):
            gz = self._raw[j, 0] * sens[j, 0]
            ay = self._raw[j, 1] * sens[j, 1]
            qd = r[j, IC_ALPHA_G] * gz + r[j, IC_BIAS_G]
            m.qd[j] = qd
            m.qdd[j] = r[j, IC_ALPHA_A] * ay / self.lever[j] + r[j, IC_LEAK] * qd * qd + r[j, IC_BIAS_A]
        m.digital_inputs = 0
        m.t = self._cycle / self.sample_rate_hz
        return m

    def prepare_timing(self, n_cycles: int) -> None:
        """Preallocate per-cycle read/command timestamps (deadline analysis, as the hardware rig)."""
        self.t_read_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self.t_cmd_ns = np.zeros(n_cycles + 2, dtype=np.int64)
        self._cycle = 0
        self._timing = True

    def _take_imu(self) -> None:
        reads = self.plant.imu_reads()
        if reads:
            seq, t_read, raw = reads[-1]
            if seq > self._seq:
                self._seq, self._read_t = seq, t_read
                self._raw[:] = raw

    def command(self, tau_tgt: np.ndarray) -> None:
        if self.plant is None or self._closed:
            return
        try:
            pos, _, tau = self.plant.step(tau_tgt, 1.0 / self.sample_rate_hz)
        except RuntimeError as exc:
            raise RigFault(f"twin: {exc}") from exc
        self._pos[:] = pos
        self._tau[:] = tau
        k = self._cycle
        if self._timing and k < self.t_cmd_ns.size:
            self.t_cmd_ns[k] = time.perf_counter_ns()
        self._cycle = k + 1

    def close(self) -> None:
        self._closed = True
        self._timing = False

    def counters(self) -> dict[str, Any]:
        return {"cycles": self._cycle, "imu_reads": self._seq + 1}
