"""LSM6DSV16BX-like IMUs on the proximal links and their 1 kHz UDP stream to the 4 kHz loop.

Signal chain, per IMU j (on proximal link j, rotating with the actuated joint q_j)::

    truth (link frame)   omega = qd_j,  a_tan = r_j qdd_j (y),  a_rad = -r_j qd_j^2 (x)
    mounting             sensor frame rotated by mu_j about z: x/y mix by a small angle
    sensor errors        (1 + scale) * signal + bias + bias random walk + white noise
    sampling             own ODR clock, 7.68 kHz nominal with a rate error and a phase;
                         the truth between the caller's time points is linearly interpolated
    digital low-pass     first-order IIR  y += a (u - y),  a = 1 - exp(-2 pi f_c / ODR)
    output register      round(y / sensitivity), saturated to int16 [-32768, 32767]
    microcontroller      reads both output registers (one I2C bus per IMU) every 1 ms of its
                         own clock (ppm error, phase) and sends one UDP packet (both IMUs)
    network              latency = min + Exp(mean extra), capped; packet loss probability p
    control loop         at each call uses the newest packet received so far (highest sequence
                         number; late out-of-order packets are discarded): zero-order-hold
                         "oversampling" of the 1 kHz stream at 4 kHz

Values reported to the loop are raw counts times the *nominal* sensitivity, in SI
(rad/s, m/s^2); the raw counts are reported as well.

Cost. Only the register values the microcontroller reads matter (1 kHz), not the ones in
between (7.68 kHz). The noise-free signal goes through the low-pass at every ODR sample (a few
flops); the filtered white noise, a first-order autoregression, is advanced from one read to
the next in one exact Gaussian step, and the bias walk likewise (:func:`_registers`): one
normal draw per channel and read instead of two per channel and ODR sample, with the same
distribution at every read.

Noise is not pre-drawn: it comes from a counter-based generator (SplitMix64 finalizer of
``key + counter * golden``, inverse normal CDF), one stream per IMU x channel (white noise and
walk increment as a pair per read) plus two for the link, with the 64-bit keys derived once
from the run's seed by ``numpy.random.SeedSequence``. A draw depends only on (seed, stream,
read number): the run is reproducible bit for bit, independent of numba's own RNG and of how
the caller splits time, and it costs no memory.

Layouts (float64 unless said):

* ``imu_params[j, IM_*]`` per IMU (see the ``IM_*`` constants; per-channel entries at
  ``IM_SCALE + ch``, ``IM_BIAS + ch``, ``IM_WALK + ch`` with ``ch`` in ``CH_GZ, CH_AY, CH_AX``);
* ``link_params[LK_*]`` for the microcontroller/UDP link;
* ``state[ST_*]``, one 1-D array for the whole stream (both IMUs, the link and the loop);
* ``keys[KEY_*]``, uint64;
* ``out[j, OUT_*]`` what the loop sees for IMU j.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from paperlib._jit import rt_njit

__all__ = [
    "N_IMUS", "CH_GZ", "CH_AY", "CH_AX", "N_CH",
    "IM_LEVER", "IM_MISALIGN", "IM_SCALE", "IM_BIAS", "IM_WALK", "IM_NOISE_G", "IM_NOISE_A",
    "IM_ODR", "IM_PHASE", "IM_LPF_ALPHA", "IM_SENS_G", "IM_SENS_A", "N_IMU_PARAMS",
    "LK_PERIOD", "LK_PHASE", "LK_LAT_MIN", "LK_LAT_EXTRA", "LK_LAT_MAX", "LK_P_LOSS",
    "N_LINK_PARAMS", "RING_SLOTS",
    "ST_T_PREV", "ST_QD_PREV", "ST_QDD_PREV", "ST_ODR_COUNT", "ST_LPF", "ST_WALK", "ST_REG",
    "ST_READ_COUNT", "ST_N_LOST", "ST_LATEST_SEQ", "ST_LATEST_READ_T", "ST_LATEST_RAW",
    "ST_T0", "ST_NOISE", "ST_NOISE_COUNT", "ST_RING", "RING_STRIDE", "N_STATE",
    "KEY_WHITE", "KEY_WALK", "KEY_LOSS", "KEY_LATENCY", "N_KEYS",
    "OUT_GZ", "OUT_AY", "OUT_AX", "OUT_RAW", "OUT_SEQ", "OUT_AGE", "OUT_VALID", "N_OUT",
    "STANDARD_GRAVITY", "INT16_MIN", "INT16_MAX",
    "ImuSensor", "ImuLink", "IMU_SENSOR_RANGES", "IMU_COMMON_RANGES", "IMU_LINK_RANGES",
    "imu_array", "link_array", "make_keys", "imu_stream_init",
    "imu_advance", "imu_read", "imu_stream_step", "run_imu_stream",
    "lowpass_alpha", "lowpass_enbw", "expected_static_std", "rng_normal", "rng_uniform",
]

N_IMUS = 2
CH_GZ = 0   #: gyroscope z [rad/s]
CH_AY = 1   #: accelerometer y (tangential) [m/s^2]
CH_AX = 2   #: accelerometer x (radial) [m/s^2]
N_CH = 3

STANDARD_GRAVITY = 9.80665  #: [m/s^2] per g
INT16_MIN = -32768.0
INT16_MAX = 32767.0

# --- per-IMU parameter row ---------------------------------------------------------------------
IM_LEVER = 0      #: true distance of the accelerometer from the base joint axis r_j [m]
IM_MISALIGN = 1   #: mounting rotation about z, mu_j [rad]
IM_SCALE = 2      #: + ch: relative scale errors (gz, ay, ax) [-]
IM_BIAS = 5       #: + ch: constant biases (gz [rad/s], ay, ax [m/s^2])
IM_WALK = 8       #: + ch: bias random walk (gz [rad/s/sqrt(s)], ay, ax [m/s^2/sqrt(s)])
IM_NOISE_G = 11   #: gyro white-noise density [rad/s/sqrt(Hz)]
IM_NOISE_A = 12   #: accelerometer white-noise density [m/s^2/sqrt(Hz)]
IM_ODR = 13       #: actual output data rate (nominal x (1 + error)) [Hz]
IM_PHASE = 14     #: time of the first ODR sample after t0 [s], in [0, 1/ODR)
IM_LPF_ALPHA = 15  #: first-order IIR coefficient a [-]
IM_SENS_G = 16    #: gyro sensitivity [rad/s per LSB]
IM_SENS_A = 17    #: accelerometer sensitivity [m/s^2 per LSB]
# derived once by imu_array (so the per-sample path does no trigonometry or square roots)
IM_COS_MIS = 18   #: cos(mu_j)
IM_SIN_MIS = 19   #: sin(mu_j)
IM_SIG_G = 20     #: gyro white-noise std per ODR sample, noise density x sqrt(ODR / 2) [rad/s]
IM_SIG_A = 21     #: accelerometer white-noise std per ODR sample [m/s^2]
IM_SQRT_DT = 22   #: sqrt(1 / ODR) [sqrt(s)], for the bias random walk
IM_LOG_KEEP = 23  #: log(1 - a): the IIR keeps (1 - a)^m of its state over m samples
IM_STAT_G = 24    #: stationary std of the filtered gyro white noise [rad/s]
IM_STAT_A = 25    #: stationary std of the filtered accelerometer white noise [m/s^2]
N_IMU_PARAMS = 26

# --- link (microcontroller + UDP) parameters --------------------------------------------------
LK_PERIOD = 0     #: actual read/send period of the microcontroller [s]
LK_PHASE = 1      #: time of the first read after t0 [s]
LK_LAT_MIN = 2    #: minimum read-to-loop latency [s]
LK_LAT_EXTRA = 3  #: mean of the exponential extra latency [s]
LK_LAT_MAX = 4    #: latency cap [s] (must be < (RING_SLOTS - 1) periods)
LK_P_LOSS = 5     #: packet loss probability [-]
N_LINK_PARAMS = 6

RING_SLOTS = 8    #: packets in flight kept by the model

# --- stream state -------------------------------------------------------------------------------
ST_T_PREV = 0            #: time of the previous call [s]
ST_QD_PREV = 1           #: (2) true joint velocities at ST_T_PREV [rad/s]
ST_QDD_PREV = 3          #: (2) true joint accelerations at ST_T_PREV [rad/s^2]
ST_ODR_COUNT = 5         #: (2) ODR samples taken per IMU
ST_LPF = 7               #: (2 x 3) low-pass states of the noise-free signal, index ST_LPF + 3 j + ch
ST_WALK = 13             #: (2 x 3) bias random-walk states (advanced at each read)
ST_REG = 19              #: (2 x 3) output registers at the last read [counts]
ST_READ_COUNT = 25       #: microcontroller reads (= packets sent, lost included)
ST_N_LOST = 26           #: packets lost
ST_LATEST_SEQ = 27       #: sequence number of the newest received packet (-1: none yet)
ST_LATEST_READ_T = 28    #: read time of that packet [s]
ST_LATEST_RAW = 29       #: (2 x 3) its raw counts
ST_T0 = 35               #: start time of the stream [s]
ST_NOISE = 36            #: (2 x 3) filtered white-noise states (advanced at each read)
ST_NOISE_COUNT = 42      #: (2) ODR sample count of IMU j at its noise state's last advance
ST_RING = 44             #: RING_SLOTS packets in flight, RING_STRIDE values each
RING_STRIDE = 9          #: arrival time (inf = empty), sequence, read time, 6 raw counts
N_STATE = ST_RING + RING_SLOTS * RING_STRIDE

# --- RNG stream keys ----------------------------------------------------------------------------
KEY_WHITE = 0            #: + 3 j + ch: white noise and walk increment of IMU j, channel ch (pair per read)
KEY_WALK = 6             #: + 3 j + ch: reserved (kept so the other keys do not move)
KEY_LOSS = 12            #: packet loss draws (counter = sequence number)
KEY_LATENCY = 13         #: packet latency draws
N_KEYS = 14

# --- loop output row ------------------------------------------------------------------------------
OUT_GZ = 0       #: gyro z [rad/s] (raw x nominal sensitivity)
OUT_AY = 1       #: accel y [m/s^2]
OUT_AX = 2       #: accel x [m/s^2]
OUT_RAW = 3      #: + ch: raw counts (gz, ay, ax)
OUT_SEQ = 6      #: packet sequence number
OUT_AGE = 7      #: time since the microcontroller read it [s] (diagnostic: truth)
OUT_VALID = 8    #: 1 once a packet has arrived, else 0 (other entries 0)
N_OUT = 9


# --- Python-level parameters -----------------------------------------------------------------
@dataclass(frozen=True)
class ImuSensor:
    """One mounted IMU (field names = keys of ``[imu.imuN]`` in the twin TOML)."""

    lever_arm_m: float
    lever_arm_nominal_m: float
    misalignment_deg: float
    gyro_scale_error: float
    accel_y_scale_error: float
    accel_x_scale_error: float
    gyro_bias_dps: float
    accel_y_bias_mg: float
    accel_x_bias_mg: float
    gyro_bias_walk_dps_per_sqrt_s: float
    accel_bias_walk_mg_per_sqrt_s: float
    odr_error: float
    odr_phase_fraction: float

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "ImuSensor":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})


@dataclass(frozen=True)
class ImuCommon:
    """Settings shared by both IMUs (keys of ``[imu]``)."""

    odr_Hz: float
    gyro_full_scale_dps: float
    gyro_sensitivity_mdps_per_LSB: float
    accel_full_scale_g: float
    accel_sensitivity_mg_per_LSB: float
    gyro_noise_density_mdps_per_sqrt_Hz: float
    accel_noise_density_ug_per_sqrt_Hz: float
    lowpass_cutoff_Hz: float

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "ImuCommon":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})


@dataclass(frozen=True)
class ImuLink:
    """Microcontroller read clock and UDP link (keys of ``[imu.link]``)."""

    read_rate_Hz: float
    clock_error_ppm: float
    read_phase_fraction: float
    latency_min_ms: float
    latency_extra_mean_ms: float
    latency_max_ms: float
    packet_loss_probability: float

    @classmethod
    def from_mapping(cls, table: Mapping[str, float]) -> "ImuLink":
        """Build from a validated TOML table (extra keys ignored)."""
        return cls(**{f.name: float(table[f.name]) for f in fields(cls)})


IMU_COMMON_RANGES: dict[str, tuple[float, float]] = {
    "odr_Hz": (100.0, 10000.0),
    "gyro_full_scale_dps": (100.0, 5000.0),
    "gyro_sensitivity_mdps_per_LSB": (1.0, 200.0),
    "accel_full_scale_g": (1.0, 32.0),
    "accel_sensitivity_mg_per_LSB": (0.01, 2.0),
    "gyro_noise_density_mdps_per_sqrt_Hz": (0.0, 50.0),
    "accel_noise_density_ug_per_sqrt_Hz": (0.0, 1000.0),
    "lowpass_cutoff_Hz": (1.0, 5000.0),
}
IMU_SENSOR_RANGES: dict[str, tuple[float, float]] = {
    "lever_arm_m": (0.01, 0.5),
    "lever_arm_nominal_m": (0.01, 0.5),
    "misalignment_deg": (-10.0, 10.0),
    "gyro_scale_error": (-0.1, 0.1),
    "accel_y_scale_error": (-0.1, 0.1),
    "accel_x_scale_error": (-0.1, 0.1),
    "gyro_bias_dps": (-10.0, 10.0),
    "accel_y_bias_mg": (-200.0, 200.0),
    "accel_x_bias_mg": (-200.0, 200.0),
    "gyro_bias_walk_dps_per_sqrt_s": (0.0, 0.1),
    "accel_bias_walk_mg_per_sqrt_s": (0.0, 1.0),
    "odr_error": (-0.05, 0.05),
    "odr_phase_fraction": (0.0, 1.0),
}
IMU_LINK_RANGES: dict[str, tuple[float, float]] = {
    "read_rate_Hz": (10.0, 10000.0),
    "clock_error_ppm": (-1000.0, 1000.0),
    "read_phase_fraction": (0.0, 1.0),
    "latency_min_ms": (0.0, 10.0),
    "latency_extra_mean_ms": (0.0, 10.0),
    "latency_max_ms": (0.0, 10.0),
    "packet_loss_probability": (0.0, 0.5),
}


def lowpass_alpha(cutoff_hz: float, odr_hz: float) -> float:
    """First-order IIR coefficient a = 1 - exp(-2 pi f_c / ODR) [-]."""
    return 1.0 - math.exp(-2.0 * math.pi * cutoff_hz / odr_hz)


def lowpass_enbw(alpha: float, odr_hz: float) -> float:
    """One-sided equivalent noise bandwidth [Hz] of the IIR: ODR a / (2 (2 - a))."""
    return odr_hz * alpha / (2.0 * (2.0 - alpha))


def imu_array(common: ImuCommon, sensors: list[ImuSensor]) -> np.ndarray:
    """Numba parameter rows, ndarray shape (len(sensors), N_IMU_PARAMS), SI units."""
    out = np.zeros((len(sensors), N_IMU_PARAMS))
    dps = math.pi / 180.0
    mg = 1e-3 * STANDARD_GRAVITY
    for j, s in enumerate(sensors):
        r = out[j]
        odr = common.odr_Hz * (1.0 + s.odr_error)
        r[IM_LEVER] = s.lever_arm_m
        r[IM_MISALIGN] = s.misalignment_deg * dps
        r[IM_SCALE + CH_GZ] = s.gyro_scale_error
        r[IM_SCALE + CH_AY] = s.accel_y_scale_error
        r[IM_SCALE + CH_AX] = s.accel_x_scale_error
        r[IM_BIAS + CH_GZ] = s.gyro_bias_dps * dps
        r[IM_BIAS + CH_AY] = s.accel_y_bias_mg * mg
        r[IM_BIAS + CH_AX] = s.accel_x_bias_mg * mg
        r[IM_WALK + CH_GZ] = s.gyro_bias_walk_dps_per_sqrt_s * dps
        r[IM_WALK + CH_AY] = s.accel_bias_walk_mg_per_sqrt_s * mg
        r[IM_WALK + CH_AX] = s.accel_bias_walk_mg_per_sqrt_s * mg
        r[IM_NOISE_G] = common.gyro_noise_density_mdps_per_sqrt_Hz * 1e-3 * dps
        r[IM_NOISE_A] = common.accel_noise_density_ug_per_sqrt_Hz * 1e-6 * STANDARD_GRAVITY
        r[IM_ODR] = odr
        r[IM_PHASE] = s.odr_phase_fraction / odr
        r[IM_LPF_ALPHA] = lowpass_alpha(common.lowpass_cutoff_Hz, odr)
        r[IM_SENS_G] = common.gyro_sensitivity_mdps_per_LSB * 1e-3 * dps
        r[IM_SENS_A] = common.accel_sensitivity_mg_per_LSB * mg
        r[IM_COS_MIS] = math.cos(r[IM_MISALIGN])
        r[IM_SIN_MIS] = math.sin(r[IM_MISALIGN])
        r[IM_SIG_G] = r[IM_NOISE_G] * math.sqrt(0.5 * odr)
        r[IM_SIG_A] = r[IM_NOISE_A] * math.sqrt(0.5 * odr)
        r[IM_SQRT_DT] = math.sqrt(1.0 / odr)
        a = r[IM_LPF_ALPHA]
        r[IM_LOG_KEEP] = math.log(1.0 - a) if a < 1.0 else -745.0
        gain = a / math.sqrt(1.0 - (1.0 - a) ** 2)  # std of the AR(1) output per unit input std
        r[IM_STAT_G] = gain * r[IM_SIG_G]
        r[IM_STAT_A] = gain * r[IM_SIG_A]
    return out


def link_array(link: ImuLink) -> np.ndarray:
    """Numba link parameters, ndarray shape (N_LINK_PARAMS,), SI units."""
    out = np.zeros(N_LINK_PARAMS)
    period = (1.0 / link.read_rate_Hz) * (1.0 + 1e-6 * link.clock_error_ppm)
    out[LK_PERIOD] = period
    out[LK_PHASE] = link.read_phase_fraction * period
    out[LK_LAT_MIN] = 1e-3 * link.latency_min_ms
    out[LK_LAT_EXTRA] = 1e-3 * link.latency_extra_mean_ms
    out[LK_LAT_MAX] = 1e-3 * link.latency_max_ms
    out[LK_P_LOSS] = link.packet_loss_probability
    if out[LK_LAT_MAX] >= (RING_SLOTS - 1) * period or out[LK_LAT_MAX] < out[LK_LAT_MIN]:
        raise ValueError("imu.link: need latency_min <= latency_max < (RING_SLOTS - 1) periods")
    return out


def expected_static_std(imu_row: np.ndarray, ch: int) -> float:
    """Std of a static channel's output, white noise through the IIR plus quantization.

    ``sqrt(ND^2 ENBW + LSB^2 / 12)`` in SI units (rad/s or m/s^2).
    """
    nd = imu_row[IM_NOISE_G] if ch == CH_GZ else imu_row[IM_NOISE_A]
    lsb = imu_row[IM_SENS_G] if ch == CH_GZ else imu_row[IM_SENS_A]
    enbw = lowpass_enbw(imu_row[IM_LPF_ALPHA], imu_row[IM_ODR])
    return math.sqrt(nd * nd * enbw + lsb * lsb / 12.0)


def make_keys(seed: int) -> np.ndarray:
    """The run's RNG stream keys, ndarray uint64 shape (N_KEYS,), from SeedSequence(seed)."""
    return np.random.SeedSequence(int(seed)).generate_state(N_KEYS, dtype=np.uint64)


# --- counter-based RNG --------------------------------------------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S11 = np.uint64(11)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_TWO = np.uint64(2)
_ONE = np.uint64(1)


@rt_njit
def _mix64(x: np.uint64) -> np.uint64:
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@rt_njit
def rng_uniform(key: np.uint64, counter: np.uint64) -> float:
    """Uniform in (0, 1), the ``counter``-th draw of stream ``key`` (SplitMix64)."""
    h = _mix64(key + counter * _GOLDEN)
    return ((h >> _S11) + 0.5) * (1.0 / 9007199254740992.0)


@rt_njit
def rng_normal(key: np.uint64, counter: int) -> float:
    """Standard normal, the ``counter``-th draw of stream ``key`` (Box-Muller on 2 uniforms)."""
    c = np.uint64(counter) * _TWO
    u1 = rng_uniform(key, c)
    u2 = rng_uniform(key, c + _ONE)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


# Rational approximation of the inverse standard normal CDF (P. J. Acklam's coefficients; relative
# error below 1.2e-9): one uniform and no trigonometry per normal draw.
_ACK_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
          1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACK_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
          6.680131188771972e+01, -1.328068155288572e+01)
_ACK_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
          -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACK_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
_ACK_P_LOW = 0.02425


@rt_njit
def inverse_normal_cdf(p: float) -> float:
    """Standard normal quantile of p in (0, 1) (rational approximation, |rel. error| < 1.2e-9)."""
    a, b, c, d = _ACK_A, _ACK_B, _ACK_C, _ACK_D
    if p < _ACK_P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    if p > 1.0 - _ACK_P_LOW:
        q = math.sqrt(-2.0 * math.log(1.0 - p))
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
                ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)


@rt_njit
def rng_normal_pair(key: np.uint64, counter: int) -> tuple[float, float]:
    """Two independent standard normals, the ``counter``-th pair of stream ``key`` (inverse CDF)."""
    c = np.uint64(counter) * _TWO
    return inverse_normal_cdf(rng_uniform(key, c)), inverse_normal_cdf(rng_uniform(key, c + _ONE))


# --- stream kernels ------------------------------------------------------------------------------
def imu_stream_init(imu_params: np.ndarray, t0: float = 0.0,
                    qd0: np.ndarray | None = None, qdd0: np.ndarray | None = None
                    ) -> np.ndarray:
    """A fresh stream state at time ``t0`` [s] with the truth (qd0, qdd0) at t0.

    Returns
    -------
    ndarray, shape (N_STATE,)
        Filters start at the noise-free value of the truth; no packet received yet.
    """
    st = np.zeros(N_STATE)
    st[ST_T0] = t0
    st[ST_T_PREV] = t0
    qd0 = np.zeros(N_IMUS) if qd0 is None else np.asarray(qd0, dtype=float)
    qdd0 = np.zeros(N_IMUS) if qdd0 is None else np.asarray(qdd0, dtype=float)
    st[ST_QD_PREV:ST_QD_PREV + N_IMUS] = qd0
    st[ST_QDD_PREV:ST_QDD_PREV + N_IMUS] = qdd0
    st[ST_LATEST_SEQ] = -1.0
    tr = np.empty(N_CH)
    for j in range(N_IMUS):
        _truth_sensor_frame(imu_params[j], qd0[j], qdd0[j], tr)
        for ch in range(N_CH):
            p = imu_params[j]
            st[ST_LPF + 3 * j + ch] = (1.0 + p[IM_SCALE + ch]) * tr[ch] + p[IM_BIAS + ch]
    for s in range(RING_SLOTS):
        st[ST_RING + s * RING_STRIDE] = np.inf
    return st


@rt_njit
def _truth_sensor_frame(p: np.ndarray, qd: float, qdd: float, out: np.ndarray) -> None:
    """True signals in the sensor frame: gz [rad/s], ay, ax [m/s^2]."""
    r = p[IM_LEVER]
    a_tan = r * qdd
    a_rad = -r * qd * qd
    c = math.cos(p[IM_MISALIGN])
    s = math.sin(p[IM_MISALIGN])
    out[CH_GZ] = qd
    out[CH_AY] = -s * a_rad + c * a_tan
    out[CH_AX] = c * a_rad + s * a_tan


@rt_njit
def _odr_sample(st: np.ndarray, p: np.ndarray, j: int, t_s: float,
                t: float, qd: np.ndarray, qdd: np.ndarray) -> None:
    """Take IMU j's next ODR sample at time t_s in (ST_T_PREV, t]: the noise-free signal through
    the low-pass (the noise is added, exactly, when the microcontroller reads: :func:`_mcu_read`)."""
    t_prev = st[ST_T_PREV]
    f = (t_s - t_prev) / (t - t_prev) if t > t_prev else 1.0
    w = st[ST_QD_PREV + j] + f * (qd[j] - st[ST_QD_PREV + j])
    al = st[ST_QDD_PREV + j] + f * (qdd[j] - st[ST_QDD_PREV + j])
    a = p[IM_LPF_ALPHA]
    r = p[IM_LEVER]
    c = p[IM_COS_MIS]
    s = p[IM_SIN_MIS]
    a_tan = r * al
    a_rad = -r * w * w
    il = ST_LPF + 3 * j
    u = (1.0 + p[IM_SCALE + CH_GZ]) * w + p[IM_BIAS + CH_GZ]
    st[il + CH_GZ] += a * (u - st[il + CH_GZ])
    u = (1.0 + p[IM_SCALE + CH_AY]) * (-s * a_rad + c * a_tan) + p[IM_BIAS + CH_AY]
    st[il + CH_AY] += a * (u - st[il + CH_AY])
    u = (1.0 + p[IM_SCALE + CH_AX]) * (c * a_rad + s * a_tan) + p[IM_BIAS + CH_AX]
    st[il + CH_AX] += a * (u - st[il + CH_AX])
    st[ST_ODR_COUNT + j] += 1.0


@rt_njit
def _registers(st: np.ndarray, keys: np.ndarray, imu_params: np.ndarray, m: int) -> None:
    """Output registers of both IMUs now (read ``m``): noise and bias walk advanced to the last ODR sample.

    The IIR is linear, so its output is the filtered noise-free signal (``ST_LPF``, updated at
    every ODR sample) plus the filtered white noise. Over the ``k`` ODR samples since the last
    read, the noise state follows ``e <- (1 - a)^k e + a sum_i (1 - a)^(k - 1 - i) sigma n_i``,
    a Gaussian step drawn at once: ``e <- c e + s_stat sqrt(1 - c^2) n`` with ``c = (1 - a)^k``
    and ``s_stat`` the stationary std. Exact in distribution at every read, with one normal per
    channel instead of one per ODR sample. The bias random walk (``walk sqrt(k / ODR) n``) is
    added after the filter: it drifts over seconds, the filter settles in a fraction of a
    millisecond.
    """
    for j in range(N_IMUS):
        p = imu_params[j]
        k = st[ST_ODR_COUNT + j] - st[ST_NOISE_COUNT + j]
        if k > 0.0:
            st[ST_NOISE_COUNT + j] = st[ST_ODR_COUNT + j]
            c = math.exp(k * p[IM_LOG_KEEP])
            g = math.sqrt(max(1.0 - c * c, 0.0))
            sk = math.sqrt(k) * p[IM_SQRT_DT]
            for ch in range(N_CH):
                n_white, n_walk = rng_normal_pair(keys[KEY_WHITE + 3 * j + ch], m)
                stat = p[IM_STAT_G] if ch == CH_GZ else p[IM_STAT_A]
                ie = ST_NOISE + 3 * j + ch
                st[ie] = c * st[ie] + g * stat * n_white
                st[ST_WALK + 3 * j + ch] += p[IM_WALK + ch] * sk * n_walk
        for ch in range(N_CH):
            lsb = p[IM_SENS_G] if ch == CH_GZ else p[IM_SENS_A]
            i = 3 * j + ch
            y = st[ST_LPF + i] + st[ST_WALK + i] + st[ST_NOISE + i]
            st[ST_REG + i] = min(max(math.floor(y / lsb + 0.5), INT16_MIN), INT16_MAX)


@rt_njit
def _mcu_read(st: np.ndarray, keys: np.ndarray, imu_params: np.ndarray, link: np.ndarray, t_r: float) -> None:
    """The microcontroller reads both registers at t_r and sends (or loses) one packet."""
    m = int(st[ST_READ_COUNT])
    st[ST_READ_COUNT] = m + 1
    _registers(st, keys, imu_params, m)
    if rng_uniform(keys[KEY_LOSS], np.uint64(m)) < link[LK_P_LOSS]:
        st[ST_N_LOST] += 1.0
        return
    u = rng_uniform(keys[KEY_LATENCY], np.uint64(m))
    lat = min(link[LK_LAT_MIN] - link[LK_LAT_EXTRA] * math.log(u), link[LK_LAT_MAX])
    b = ST_RING + (m % RING_SLOTS) * RING_STRIDE
    st[b] = t_r + lat
    st[b + 1] = m
    st[b + 2] = t_r
    for i in range(N_IMUS * N_CH):
        st[b + 3 + i] = st[ST_REG + i]


@rt_njit
def imu_advance(state: np.ndarray, keys: np.ndarray, imu_params: np.ndarray,
                link_params: np.ndarray, t: float, qd: np.ndarray, qdd: np.ndarray) -> None:
    """Run sensors, microcontroller and network up to time ``t``, in place.

    Call with nondecreasing ``t`` (loop rate, or sub-step rate for a finer interpolation of
    the truth). Every ODR sample and every read with time in (previous t, t] is processed
    in time order; packets that arrived by ``t`` are delivered.

    Parameters
    ----------
    state : ndarray, shape (N_STATE,)
    keys : ndarray, uint64, shape (N_KEYS,)
    imu_params : ndarray, shape (2, N_IMU_PARAMS)
    link_params : ndarray, shape (N_LINK_PARAMS,)
    t : float
        [s].
    qd, qdd : ndarray, shape (2,)
        True actuated joint velocities q1_dot, q2_dot [rad/s] and accelerations [rad/s^2] at t.
    """
    t0 = state[ST_T0]
    while True:
        t_best = np.inf
        who = -2
        for j in range(N_IMUS):
            p = imu_params[j]
            ts = t0 + p[IM_PHASE] + state[ST_ODR_COUNT + j] / p[IM_ODR]
            if ts < t_best:
                t_best = ts
                who = j
        tr = t0 + link_params[LK_PHASE] + state[ST_READ_COUNT] * link_params[LK_PERIOD]
        if tr < t_best:
            t_best = tr
            who = -1
        if t_best > t:
            break
        if who >= 0:
            _odr_sample(state, imu_params[who], who, t_best, t, qd, qdd)
        else:
            _mcu_read(state, keys, imu_params, link_params, t_best)
    _deliver(state, t)
    state[ST_T_PREV] = t
    for j in range(N_IMUS):
        state[ST_QD_PREV + j] = qd[j]
        state[ST_QDD_PREV + j] = qdd[j]


@rt_njit
def _deliver(st: np.ndarray, t: float) -> None:
    for s in range(RING_SLOTS):
        b = ST_RING + s * RING_STRIDE
        if st[b] <= t:
            if st[b + 1] > st[ST_LATEST_SEQ]:
                st[ST_LATEST_SEQ] = st[b + 1]
                st[ST_LATEST_READ_T] = st[b + 2]
                for i in range(N_IMUS * N_CH):
                    st[ST_LATEST_RAW + i] = st[b + 3 + i]
            st[b] = np.inf


@rt_njit
def imu_read(state: np.ndarray, imu_params: np.ndarray, t: float, out: np.ndarray) -> None:
    """What the control loop sees at time ``t`` (after :func:`imu_advance` to t), in place.

    Parameters
    ----------
    state : ndarray, shape (N_STATE,)
    imu_params : ndarray, shape (2, N_IMU_PARAMS)
    t : float
        Loop time [s].
    out : ndarray, shape (2, N_OUT)
        Row j: ``OUT_*`` layout for IMU j.
    """
    valid = state[ST_LATEST_SEQ] >= 0.0
    for j in range(N_IMUS):
        p = imu_params[j]
        for ch in range(N_CH):
            raw = state[ST_LATEST_RAW + 3 * j + ch] if valid else 0.0
            out[j, OUT_RAW + ch] = raw
            out[j, OUT_GZ + ch] = raw * (p[IM_SENS_G] if ch == CH_GZ else p[IM_SENS_A])
        out[j, OUT_SEQ] = state[ST_LATEST_SEQ] if valid else 0.0
        out[j, OUT_AGE] = t - state[ST_LATEST_READ_T] if valid else 0.0
        out[j, OUT_VALID] = 1.0 if valid else 0.0


@rt_njit
def imu_stream_step(state: np.ndarray, keys: np.ndarray, imu_params: np.ndarray,
                    link_params: np.ndarray, t: float, qd: np.ndarray, qdd: np.ndarray,
                    out: np.ndarray) -> None:
    """:func:`imu_advance` to ``t`` then :func:`imu_read` into ``out`` (one loop cycle)."""
    imu_advance(state, keys, imu_params, link_params, t, qd, qdd)
    imu_read(state, imu_params, t, out)


@rt_njit
def run_imu_stream(state: np.ndarray, keys: np.ndarray, imu_params: np.ndarray,
                   link_params: np.ndarray, t: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                   out: np.ndarray) -> None:
    """Offline helper: the loop's view at every time of ``t``.

    Parameters
    ----------
    t : ndarray, shape (n,)
        Loop times [s], nondecreasing, after the state's t0.
    qd, qdd : ndarray, shape (n, 2)
        Truth at those times.
    out : ndarray, shape (n, 2, N_OUT)
        Written in place.
    """
    for k in range(t.shape[0]):
        imu_stream_step(state, keys, imu_params, link_params, t[k], qd[k], qdd[k], out[k])
