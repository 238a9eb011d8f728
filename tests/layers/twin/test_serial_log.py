"""The twin of a serial arm's logged run: jittered stamps, current through drive gains, payload; its bench key."""

from __future__ import annotations

import numpy as np

from paperlib.estimation.drive_gains import KnownPayload
from paperlib.robots.serial import SerialArm
from paperlib.twin.robots import serial_log as sl


def test_logged_current_is_inverse_dynamics_over_the_gains_and_payload_adds_its_torque() -> None:
    arm = SerialArm.named("tx40")
    fr = sl.tx40_friction()
    pi = sl.true_params(arm, fr["fv"], fr["fs"])
    K = np.array([0.9, 1.1, 1.0, 0.8, 1.2, 1.05])
    pay = KnownPayload(1.5, (0.0, 0.02, 0.05))
    a = sl.logged_run(arm, pi, duration_s=2.0, drive_gains=K, encoder_resolution_rad=0.0, seed=3)
    b = sl.logged_run(arm, pi, duration_s=2.0, drive_gains=K, payload=pay, encoder_resolution_rad=0.0, seed=3)
    assert np.all(np.abs(np.diff(a.t) - 0.01) <= 0.01 + 1e-12) and np.ptp(np.diff(a.t)) > 0.005
    tr = sl.exciting_trajectory(arm, seed=0)
    q, qd, qdd = tr(a.t)
    np.testing.assert_allclose(a.q, q)
    np.testing.assert_allclose(a.current * K, arm.regressor(q, qd, qdd) @ pi, atol=1e-9)
    # the payload's torque: the arm with the payload merged into its last link, by Newton-Euler
    inert = arm.inertial.copy()
    inert[-1] += pay.standard()
    from dataclasses import replace

    loaded = replace(arm, inertial=inert)
    np.testing.assert_allclose((b.current - a.current) * K, loaded.inverse_dynamics(q, qd, qdd) - arm.inverse_dynamics(q, qd, qdd),
                               atol=1e-9)


def test_serial_identify_bench_is_registered_and_runs_on_a_short_log() -> None:
    from paperlib.twin.bench import benchmarks, bench_serial_identify_1h

    assert "serial_identify_1h_s" in benchmarks()
    assert bench_serial_identify_1h(duration_s=30.0, sample_rate_hz=200.0) > 0.0
