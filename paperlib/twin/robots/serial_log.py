"""Twin of a serial arm's *logged* run: what a lab's logger hands over, with known truth.

A position-controlled arm follows an exciting trajectory (eq. 7 of paper 001,
:class:`paperlib.control.excitation.FourierTrajectory`); nothing is integrated: the joint
torque is the arm's inverse dynamics ``Y(q, qd, qdd) pi`` (rigid bodies of the robot file plus
the per-joint friction columns, :meth:`paperlib.robots.serial.SerialArm.regressor`), with an
optional payload rigidly fixed to the last link. What is logged is what real loggers give:

* sample times with jitter: the ``k``-th sample is taken at ``k / fs + u_k``,
  ``u_k ~ U(-jitter, jitter)``, and stamped with that time (the stamps are right, the steps
  are not uniform);
* encoder angles quantised to ``encoder_resolution_rad``;
* the torque as **motor current** ``i_j = tau_j / K_j + noise`` with per-joint drive gains ``K_j``
  [N m per A, joint side], or as joint-side torque.

:func:`logged_run` returns the raw log (:class:`LoggedRun`); :func:`run_recording` turns it into
a schema-2 recording (``source = twin``, the truth attached) through
:func:`paperlib.recordings.resample_uniform`, as the importers do for a user's log.
:func:`tx40_friction` reads the linear part (viscous and Coulomb at the reference temperature) of
the TX40 twin's friction, ``data/twin/tx40_thermal_campaign.toml``; the Stribeck dip, the
shear thinning and the temperature laws of that file are left out here, so the truth lies inside
the identification model and a recovery test measures the pipeline, not the model's reach.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from paperlib import provenance
from paperlib.control.excitation import FourierTrajectory
from paperlib.robots.serial import SerialArm
from paperlib.estimation.drive_gains import KnownPayload

__all__ = ["LoggedRun", "tx40_friction", "true_params", "exciting_trajectory", "logged_run",
           "run_recording", "identify_seconds"]

CAMPAIGN_FILE = provenance.REPO_ROOT / "data" / "twin" / "tx40_thermal_campaign.toml"


@dataclass
class LoggedRun:
    """A raw log: jittered stamps, angles, currents (or torques), and the truth behind them.

    Attributes
    ----------
    t : ndarray, shape (N,)
        Sample stamps [s] (not uniform).
    q : ndarray, shape (N, n)
        Quantised encoder angles [rad].
    tau : ndarray, shape (N, n)
        True joint torques [N m] (noise-free; payload included).
    current : ndarray, shape (N, n)
        Logged motor current [A] (noise included).
    truth : dict
        True parameters: ``params`` (name -> value, without the payload), ``drive_gains``
        [N m per A, joint side], ``payload``, noise levels.
    """

    t: np.ndarray
    q: np.ndarray
    tau: np.ndarray
    current: np.ndarray
    truth: dict[str, Any] = field(default_factory=dict)


def tx40_friction(path: str | None = None) -> dict[str, list[float]]:
    """Viscous [N m s/rad] and Coulomb [N m] friction of the TX40 twin (joint side, reference temperature).

    Also the drive-torque noise [N m] of the same file (``noise_Nm``).
    """
    d = tomllib.loads((CAMPAIGN_FILE if path is None else Path(path)).read_text())
    return {"fv": list(d["friction"]["viscous_Nm_s_per_rad"]), "fs": list(d["friction"]["coulomb_Nm"]),
            "noise_Nm": list(d["noise"]["torque_Nm"])}


def true_params(arm: SerialArm, fv: Sequence[float], fs: Sequence[float]) -> np.ndarray:
    """The arm's full parameter vector: nominal inertials, the given friction, every other column 0."""
    vals = {f"fv{j + 1}": float(fv[j]) for j in range(arm.n)} | {f"fs{j + 1}": float(fs[j]) for j in range(arm.n)}
    return arm.nominal_params(**{k: v for k, v in vals.items() if k in arm.param_names})


def exciting_trajectory(arm: SerialArm, seed: int = 0, period_s: float = 10.0, harmonics: int = 5,
                        speed_fraction: float = 0.5, max_speed_rad_s: float = 3.0) -> FourierTrajectory:
    """A random eq.-7 trajectory whose peak speed is ``speed_fraction`` of each joint's limit (at most ``max_speed_rad_s``)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (harmonics, arm.n))
    b = rng.uniform(-1.0, 1.0, (harmonics, arm.n))
    wf = 2.0 * np.pi / period_s
    tr = FourierTrajectory(wf, np.zeros(arm.n), a, b)
    _, dv, _ = tr.bounds()
    k = speed_fraction * np.minimum(arm.velocity_limit, max_speed_rad_s) / dv
    return FourierTrajectory(wf, np.zeros(arm.n), a * k, b * k)


def logged_run(arm: SerialArm, params: np.ndarray, *, duration_s: float, sample_rate_hz: float = 100.0,
               jitter_s: float = 0.005, drive_gains: Sequence[float] | None = None,
               payload: KnownPayload | None = None, noise_nm: Sequence[float] | float = 0.0,
               encoder_resolution_rad: float = 2e-7, trajectory_seed: int = 0, seed: int = 0,
               chunk: int = 50_000, trajectory: FourierTrajectory | None = None) -> LoggedRun:
    """Simulate a logged run (see the module docstring).

    Parameters
    ----------
    arm : SerialArm
    params : ndarray, shape (arm.n_params,)
        True parameters (:func:`true_params`).
    duration_s : float
        Length of the log [s].
    sample_rate_hz : float
        Nominal logging rate [Hz].
    jitter_s : float
        Half-width of the uniform jitter of the sampling instants [s] (must stay below half a period).
    drive_gains : sequence of n float, optional
        ``K_j`` [N m per A, joint side]; default all 1.
    payload : KnownPayload, optional
        Fixed to the last link.
    noise_nm : float or sequence of n float
        Standard deviation of the white noise on each joint's torque [N m] (logged as current: divided by ``K_j``).
    encoder_resolution_rad : float
        Angle quantisation step [rad] (0: none).
    trajectory_seed, seed : int
        Seeds of the trajectory's coefficients and of the jitter and noise.
    chunk : int
        Samples per regressor evaluation (memory bound for long runs).
    trajectory : FourierTrajectory, optional
        The motion (default :func:`exciting_trajectory` of ``trajectory_seed``).
    """
    period = 1.0 / sample_rate_hz
    if not 0.0 <= jitter_s <= 0.5 * period:
        raise ValueError(f"jitter {jitter_s} s must lie in [0, half a period = {0.5 * period} s] to keep the stamps ordered")
    rng = np.random.default_rng(seed)
    n_samples = int(round(duration_s * sample_rate_hz))
    t = np.arange(n_samples) * period + rng.uniform(-jitter_s, jitter_s, n_samples)
    t[0] = 0.0
    tr = exciting_trajectory(arm, seed=trajectory_seed) if trajectory is None else trajectory
    gains = np.ones(arm.n) if drive_gains is None else np.asarray(drive_gains, dtype=np.float64).reshape(arm.n)
    full = np.asarray(params, dtype=np.float64).copy()
    if payload is not None:
        full[10 * (arm.n - 1): 10 * arm.n] += payload.standard()
    q = np.empty((n_samples, arm.n))
    tau = np.empty((n_samples, arm.n))
    for s in range(0, n_samples, chunk):
        qs, qds, qdds = tr(t[s: s + chunk])
        q[s: s + chunk] = qs
        tau[s: s + chunk] = arm.regressor(qs, qds, qdds) @ full
    noise = np.broadcast_to(np.asarray(noise_nm, dtype=np.float64), (arm.n,))
    tau_noisy = tau + rng.normal(size=tau.shape) * noise
    current = tau_noisy / gains
    if encoder_resolution_rad > 0:
        q = np.round(q / encoder_resolution_rad) * encoder_resolution_rad
    truth = {"params": dict(zip(arm.param_names, map(float, params))), "drive_gains": gains.tolist(),
             "drive_gains_side": "joint", "noise_Nm": noise.tolist(), "jitter_s": jitter_s,
             "encoder_resolution_rad": encoder_resolution_rad,
             "payload": None if payload is None else payload.to_dict(),
             "trajectory": {"seed": trajectory_seed, "period_s": tr.period, "harmonics": int(tr.a.shape[0])}}
    return LoggedRun(t=t, q=q, tau=tau, current=current, truth=truth)


def run_recording(run: LoggedRun, robot: str, *, channel: str = "current", sample_rate_hz: float | None = None) -> Any:
    """The schema-2 recording (``source = twin``) of a logged run, resampled onto the uniform grid.

    ``channel`` is ``current`` (the logged current) or ``tau_s`` (the noise-free torque plus
    the same noise, joint side). The resampling's jitter report is stored in the ``config``.
    """
    from paperlib.recordings import from_arrays, resample_uniform
    from paperlib.recordings.resample import logged_time_variable

    gains = np.asarray(run.truth["drive_gains"])
    values = run.current if channel == "current" else run.current * gains
    time, out, report = resample_uniform(run.t, {"q": run.q, channel: values}, sample_rate_hz=sample_rate_hz,
                                         name="twin log")
    return from_arrays(out["q"], sample_rate_hz=report.sample_rate_hz, robot=robot, source="twin",
                       channels={channel: out[channel]}, truth=run.truth, time=time,
                       extra_vars=logged_time_variable(run.t, report),
                       config={"resampled_from": report.to_dict()})


def identify_seconds(duration_s: float = 3600.0, sample_rate_hz: float = 1000.0) -> float:
    """Wall time [s] of :func:`~paperlib.estimation.serial_identification.identify_recording` on a TX40 log.

    The log (``duration_s`` at ``sample_rate_hz``, uniform, joint-side torque ``tau_s`` with the
    twin's noise) is generated and written to a temporary file first; only the identification
    (read, rates, filter, regressor, WLS) is timed. ``paperlib bench``'s ``serial_identify_1h_s``.
    """
    import tempfile
    import time as _time

    from paperlib.estimation.serial_identification import IdentificationConfig, identify_recording
    from paperlib.recordings import from_arrays, write_recording

    arm = SerialArm.named("tx40")
    fr = tx40_friction()
    run = logged_run(arm, true_params(arm, fr["fv"], fr["fs"]), duration_s=duration_s, sample_rate_hz=sample_rate_hz,
                     jitter_s=0.0, noise_nm=fr["noise_Nm"], chunk=200_000)
    tau = run.current * np.asarray(run.truth["drive_gains"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "serial_log.nc"
        write_recording(from_arrays(run.q, sample_rate_hz=sample_rate_hz, robot=arm.name, source="twin",
                                    channels={"tau_s": tau}, truth=run.truth), path)
        del run, tau
        t0 = _time.perf_counter()
        identify_recording(path, arm, IdentificationConfig())
        return _time.perf_counter() - t0
