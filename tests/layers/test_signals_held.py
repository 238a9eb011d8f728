"""A held (zero-order-hold) torque paired with zero-phase accelerations (:func:`paperlib.signals.held_to_centred`):
on an exactly integrated rotor, the centred torque balances the inertia times the estimated acceleration; the torque
as logged is half a sample late and does not."""

from __future__ import annotations

import numpy as np

from paperlib.signals import held_to_centred, zero_phase_derivatives


def _rotor(n: int = 4000, fs: float = 1000.0, inertia: float = 4.0, seed: int = 1):
    """A rotor driven by a torque held over each cycle, integrated exactly (piecewise constant acceleration)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / fs
    # a torque that changes every cycle, with content up to 40 Hz (below the filter's 80 Hz): what a stiff
    # drive loop commands; the only mismatch left is then the timing of the held torque
    freqs = np.array([1.3, 4.7, 11.0, 23.0, 37.0])
    tau = sum(80.0 * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)) for f in freqs)
    dt = 1.0 / fs
    a = tau / inertia
    v = np.concatenate([[0.0], np.cumsum(a * dt)])[:-1]
    q = np.concatenate([[0.0], np.cumsum(v * dt + 0.5 * a * dt * dt)])[:-1]
    return q, tau, fs, inertia


def test_the_centred_torque_balances_the_zero_phase_acceleration():
    q, tau, fs, inertia = _rotor()
    _, _, qdd = zero_phase_derivatives(q, fs, 80.0)
    inner = slice(200, -200)  # away from the filter's edges
    held = held_to_centred(tau)
    r_centred = held[inner] - inertia * qdd[inner]
    r_logged = tau[inner] - inertia * qdd[inner]
    # the logged torque is half a sample late: inertia x jerk x dt / 2 of error, several times the centred one's (the rest is the filter's attenuation)
    assert np.sqrt(np.mean(r_centred ** 2)) < 0.2 * np.sqrt(np.mean(r_logged ** 2))
    # least squares for the inertia from the centred torque (the filter attenuates the 37-Hz part a little)
    est = lambda y: float(np.dot(qdd[inner], y[inner]) / np.dot(qdd[inner], qdd[inner]))  # noqa: E731
    assert abs(est(held) / inertia - 1.0) < 0.01


def test_held_to_centred_is_the_mean_of_neighbours_and_keeps_the_first_sample():
    x = np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]])
    np.testing.assert_array_equal(held_to_centred(x), [[1.0, 2.0], [2.0, 4.0], [4.0, 8.0]])
    c = np.full(7, 2.5)
    np.testing.assert_array_equal(held_to_centred(c), c)  # a constant torque is unchanged
