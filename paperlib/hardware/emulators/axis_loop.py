"""An emulated CiA 402 drive's own position / velocity loop (cyclic synchronous position and velocity).

Part of the emulated rig devices (:mod:`paperlib.hardware.emulators.devices`, which re-exports it).
"""

from __future__ import annotations

import dataclasses

from paperlib.hardware.cia402 import MODE_CSP

__all__ = ["AxisLoop", "LOOP_CST", "LOOP_CSP", "LOOP_CSV", "LOOP_OFF"]

#: What an axis does over a frame of inner steps (:meth:`AxisLoop.frame`, the plant's ``step_loops``):
#: hold a torque (CST or disabled), or close the position or the velocity loop at every inner step.
LOOP_CST, LOOP_CSP, LOOP_CSV, LOOP_OFF = 0, 1, 2, 3

@dataclasses.dataclass
class AxisLoop:
    """An emulated drive's own position/velocity loop (CSP and CSV), on the motor side.

    A cascade as in a servo drive: CSP turns the target position into a velocity command
    ``v = v_ff + kp_pos (q_target - q)`` (``v_ff``: the target's change per cycle), CSV takes the
    target velocity as ``v``; a PI velocity loop then gives the torque
    ``tau = kp_vel (v - qd) + i``, ``i += ki_vel (v - qd) dt``, clamped to the max torque 0x6072
    (the integral is not advanced while clamped). The defaults suit the default motor
    (:class:`InertiaPlant`: 5e-4 kg m^2): velocity-loop crossover ``kp_vel / J`` = 400 rad/s.

    Attributes
    ----------
    kp_pos : float
        Position gain [1/s].
    kp_vel : float
        Velocity gain [N m s/rad].
    ki_vel : float
        Velocity integral gain [N m/rad].
    """

    kp_pos: float = 100.0
    kp_vel: float = 0.2
    ki_vel: float = 20.0

    def __post_init__(self) -> None:
        self.integral = 0.0
        self.last_target: float | None = None

    def reset(self) -> None:
        """Forget the integral and the last target (the axis left 'operation enabled' or changed mode)."""
        self.integral = 0.0
        self.last_target = None

    def frame(self, mode: int, target: float, dt: float) -> tuple[float, float]:
        """The frame's references for a loop closed at inner steps (a drive faster than its frames).

        A servo drive closes its velocity loop many times per process-data frame. For a frame of
        ``dt`` starting now, this gives the position reference's start ``q_ref`` [rad] and its rate
        ``v_ff`` [rad/s] (CSP: the target's change per frame, the reference moving on along it,
        ``q_ref + v_ff t``; CSV: ``q_ref`` 0 and ``v_ff`` the target velocity), and moves
        ``last_target`` on. The inner steps (the plant's ``step_loops``) use :attr:`kp_pos`,
        :attr:`kp_vel`, :attr:`ki_vel` and advance :attr:`integral` as :meth:`torque` does.
        """
        if mode == MODE_CSP:
            last = self.last_target
            v_ff = (target - last) / dt if last is not None and dt > 0.0 else 0.0
            self.last_target = target
            return target, v_ff
        return 0.0, target

    def torque(self, mode: int, target: float, q: float, qd: float, dt: float, limit_Nm: float) -> float:
        """The torque the drive applies this cycle [N m].

        Parameters
        ----------
        mode : int
            MODE_CSP or MODE_CSV.
        target : float
            Target position [rad] (CSP) or velocity [rad/s] (CSV), motor side.
        q, qd : float
            Motor position [rad] and velocity [rad/s].
        dt : float
            Cycle [s] (0: no integration, no feedforward).
        limit_Nm : float
            Torque clamp [N m].
        """
        if mode == MODE_CSP:
            last = self.last_target
            v_ff = (target - last) / dt if last is not None and dt > 0.0 else 0.0
            self.last_target = target
            v = v_ff + self.kp_pos * (target - q)
        else:
            v = target
        e = v - qd
        tau = self.kp_vel * e + self.integral
        if tau > limit_Nm:
            return limit_Nm
        if tau < -limit_Nm:
            return -limit_Nm
        if dt > 0.0:
            self.integral += self.ki_vel * e * dt
        return tau
