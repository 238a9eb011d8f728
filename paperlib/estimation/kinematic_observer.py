"""The causal observer of ``[q, qd, qdd]`` behind the encoder-only kinematics
(:mod:`paperlib.estimation.encoder_kinematics`), on its own so that the noise-level estimator
(:mod:`paperlib.estimation.observer_noise`) can run it too.

Both designs are one linear observer of the triple integrator ``x = [q, qd, qdd]`` (constant
acceleration between samples, sample time ``T``)::

    A = [[1, T, T^2/2], [0, 1, T], [0, 0, 1]],   H = [1, 0, 0]
    predict  x- = A x
    correct  x  = x- + L (q_k - x-[0])

so every polynomial motion up to second degree is followed without error (zero lag on ramps and
parabolas); on a sinusoid of frequency f the estimates lag by the observer's group delay at f
(:meth:`EncoderObserver.lag_s`). They differ in the gain ``L``:

``kalman`` (default)
    The steady-state Kalman gain for a white jerk of power spectral density ``jerk_psd``
    [rad^2/s^5] and a white measurement error of variance ``step^2 / 12`` (the encoder's
    quantization, ``step`` [rad]) plus ``noise_rad^2``. In the scaled state
    ``[q, T qd, T^2 qdd]`` the gain depends on the one ratio ``jerk_psd T^5 / R`` alone; it is
    found from the discrete algebraic Riccati equation. Coarser encoders give a narrower
    bandwidth by themselves.
``observer``
    Pole placement: all three poles of the error dynamics ``(I - L H) A`` at
    ``exp(-2 pi bandwidth_hz T)`` (a critically damped third-order tracking differentiator,
    Ackermann's formula).

The default ``jerk_psd`` (:data:`DEFAULT_JERK_PSD`) is a design choice for the flagship paper's
robot (4 kHz, 2^16-count motor encoders behind a 10:1 gear); see its comment. Pass another for
another robot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numba as nb

__all__ = ["EncoderObserver", "DEFAULT_JERK_PSD", "DEFAULT_BANDWIDTH_HZ", "METHODS", "kalman_gain_scaled",
           "observer_gain_scaled"]

#: White-jerk power spectral density of the Kalman design [rad^2/s^5]. Chosen once, before the
#: comparison, as the jerk level of the Table 3 motions held over one motion: (440 rad/s^3)^2 x
#: 0.1 s ~ 2e4, rounded to 1e4 (with the flagship robot's 9.6 urad encoder step at 4 kHz this
#: puts the bandwidth near 170 Hz).
DEFAULT_JERK_PSD = 1.0e4
#: Bandwidth of the pole-placement design [Hz].
DEFAULT_BANDWIDTH_HZ = 60.0
METHODS = ("kalman", "observer")

def _scaled_a() -> np.ndarray:
    return np.array([[1.0, 1.0, 0.5], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]])


def kalman_gain_scaled(ratio: float) -> np.ndarray:
    """Steady-state Kalman gain (scaled state ``[q, T qd, T^2 qdd]``) for ``ratio = S_j T^5 / R``."""
    from scipy.linalg import solve_discrete_are

    if not ratio > 0:
        raise ValueError(f"jerk_psd T^5 / R must be > 0, got {ratio!r}")
    A = _scaled_a()
    Q = ratio * np.array([[1 / 20, 1 / 8, 1 / 6], [1 / 8, 1 / 3, 1 / 2], [1 / 6, 1 / 2, 1.0]])
    H = np.array([[1.0, 0.0, 0.0]])
    P = solve_discrete_are(A.T, H.T, Q, np.array([[1.0]]))  # a-priori covariance (units of R)
    return (P @ H.T / (H @ P @ H.T + 1.0)).ravel()


def observer_gain_scaled(pole: float) -> np.ndarray:
    """Gain (scaled state) placing the three poles of ``(I - L H) A`` at ``pole`` (Ackermann)."""
    A = _scaled_a()
    C = np.array([[1.0, 0.0, 0.0]]) @ A  # correct-form observer: pair (A, H A)
    O = np.vstack([C, C @ A, C @ A @ A])
    phi = A @ A @ A - 3 * pole * A @ A + 3 * pole ** 2 * A - pole ** 3 * np.eye(3)
    # error dynamics A - L H A: Ackermann gives L A' for the pair (A, C) with L' = phi(A) O^-1 e3
    return (phi @ np.linalg.solve(O, np.array([0.0, 0.0, 1.0]))).ravel()


@nb.njit(cache=True)
def _observe(q, Ls, T, x0, out_qd, out_qdd, out_q):  # pragma: no cover - compiled
    n, m = q.shape
    for j in range(m):
        x0_, x1, x2 = x0[0, j], x0[1, j], x0[2, j]  # scaled: q, T qd, T^2 qdd
        for k in range(n):
            p0 = x0_ + x1 + 0.5 * x2
            p1 = x1 + x2
            p2 = x2
            e = q[k, j] - p0
            x0_ = p0 + Ls[0] * e
            x1 = p1 + Ls[1] * e
            x2 = p2 + Ls[2] * e
            out_q[k, j] = x0_
            out_qd[k, j] = x1 / T
            out_qdd[k, j] = x2 / (T * T)


@dataclass(frozen=True)
class EncoderObserver:
    """A causal observer of ``[q, qd, qdd]`` from sampled encoder angles (module docstring).

    Parameters
    ----------
    sample_rate_hz : float
        Encoder sample rate [Hz].
    method : {"kalman", "observer"}
    step_rad : float
        Encoder quantization step at the joint [rad] (Kalman measurement noise ``step^2/12``).
    jerk_psd : float
        Kalman process noise: white-jerk PSD [rad^2/s^5].
    noise_rad : float
        Additional white angle noise [rad] (Kalman).
    bandwidth_hz : float
        Pole-placement bandwidth [Hz] (``observer``).
    """

    sample_rate_hz: float
    method: str = "kalman"
    step_rad: float = 2 * math.pi / (2 ** 16 * 10)
    jerk_psd: float = DEFAULT_JERK_PSD
    noise_rad: float = 0.0
    bandwidth_hz: float = DEFAULT_BANDWIDTH_HZ
    gain_scaled: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"encoder kinematics: method must be one of {METHODS}, not {self.method!r}")
        if not self.sample_rate_hz > 0:
            raise ValueError(f"sample rate must be > 0 Hz, got {self.sample_rate_hz!r}")
        T = 1.0 / self.sample_rate_hz
        if self.method == "kalman":
            R = self.step_rad ** 2 / 12.0 + self.noise_rad ** 2
            if not R > 0:
                raise ValueError("the Kalman design needs a quantization step or an angle noise > 0")
            L = kalman_gain_scaled(self.jerk_psd * T ** 5 / R)
        else:
            if not 0 < self.bandwidth_hz < 0.5 * self.sample_rate_hz:
                raise ValueError(f"bandwidth {self.bandwidth_hz!r} Hz must lie in (0, {0.5 * self.sample_rate_hz:g}) Hz")
            L = observer_gain_scaled(math.exp(-2 * math.pi * self.bandwidth_hz * T))
        object.__setattr__(self, "gain_scaled", np.asarray(L, dtype=float))

    @property
    def T(self) -> float:
        return 1.0 / self.sample_rate_hz

    def describe(self) -> str:
        """The design in words, with its numbers."""
        L = ", ".join(f"{x:.4g}" for x in self.gain_scaled)
        base = ("causal observer of [q, qd, qdd] (triple integrator, predict-correct, exact on polynomials up to "
                f"degree 2) at {self.sample_rate_hz:g} Hz; ")
        if self.method == "kalman":
            base += (f"steady-state Kalman gain for white jerk of PSD {self.jerk_psd:g} rad^2/s^5 and angle noise "
                     f"variance step^2/12 + noise^2 (step {self.step_rad:.3g} rad, noise {self.noise_rad:.3g} rad)")
        else:
            base += f"pole placement, triple pole at exp(-2 pi {self.bandwidth_hz:g} Hz T)"
        return base + f"; scaled gain [{L}]; -3 dB bandwidth of qd {self.bandwidth_3db_hz():.3g} Hz"

    def frequency_response(self, f_hz: np.ndarray) -> np.ndarray:
        """Complex response (3, len(f)) of ``[q, qd, qdd]`` estimates to ``q = exp(i 2 pi f t)``, divided by the
        true ``[1, i w, -w^2]`` (1 = perfect)."""
        f = np.atleast_1d(np.asarray(f_hz, dtype=float))
        A = _scaled_a()
        L = self.gain_scaled.reshape(3, 1)
        H = np.array([[1.0, 0.0, 0.0]])
        F = (np.eye(3) - L @ H) @ A
        out = np.empty((3, len(f)), dtype=complex)
        scale = np.array([1.0, self.T, self.T ** 2])
        for i, fi in enumerate(f):
            z = np.exp(2j * math.pi * fi * self.T)
            x = np.linalg.solve(z * np.eye(3) - F, L.ravel() * z)  # x_k = G(z) q_k
            w = 2 * math.pi * fi
            truth = np.array([1.0, 1j * w, -w * w]) if fi > 0 else np.array([1.0, 1.0, 1.0])
            est = x / scale
            out[:, i] = est / truth if fi > 0 else np.array([est[0], 1.0, 1.0])
        return out

    def lag_s(self, f_hz: float, derivative: int = 1) -> float:
        """Delay [s] of the estimate of derivative ``derivative`` (0: q, 1: qd, 2: qdd) on a sinusoid of ``f_hz``."""
        h = self.frequency_response(np.array([f_hz]))[derivative, 0]
        return float(-np.angle(h) / (2 * math.pi * f_hz))

    def bandwidth_3db_hz(self) -> float:
        """Frequency at which the velocity estimate's gain falls to 1/sqrt(2) of the truth's [Hz]."""
        f = np.geomspace(0.1, 0.499 * self.sample_rate_hz, 400)
        g = np.abs(self.frequency_response(f)[1])
        low = np.flatnonzero(g < 1 / math.sqrt(2))
        return float(f[low[0]]) if low.size else float(f[-1])

    def run(self, q: np.ndarray, x0: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Filter angles ``q`` (N,) or (N, m) [rad]: (q_hat, qd_hat [rad/s], qdd_hat [rad/s^2]), same shape.

        Starts at rest at the first sample unless ``x0`` (3, m), the state ``[q, qd, qdd]`` at the first sample in
        SI units, is given.
        """
        q = np.asarray(q, dtype=np.float64)
        one = q.ndim == 1
        Q = np.ascontiguousarray(q.reshape(len(q), -1))
        if not np.isfinite(Q).all():
            raise ValueError("encoder kinematics: non-finite angle")
        m = Q.shape[1]
        scale = np.array([1.0, self.T, self.T ** 2]).reshape(3, 1)
        X0 = np.zeros((3, m))
        X0[0] = Q[0]
        if x0 is not None:
            X0 = np.asarray(x0, dtype=float).reshape(3, m) * scale
        X0 = np.linalg.solve(_scaled_a(), X0)  # the state one sample before the first: its prediction is x0
        outs = [np.empty_like(Q) for _ in range(3)]
        _observe(Q, self.gain_scaled, self.T, X0, outs[1], outs[2], outs[0])
        if one:
            return tuple(o[:, 0] for o in outs)  # type: ignore[return-value]
        return outs[0], outs[1], outs[2]
