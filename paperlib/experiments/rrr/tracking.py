"""Table 5, Figs. 5-6 and 9-14: tracking before and after compensation on the twin.

* **Paths** (Figs. 7-8, Table 3): the straight line E1 -> E2 under LVCA at 100-400 mm/s with
  ``a_max = 7.00 m/s^2`` (Table 4's "actual" value), at rest before and after.
* **Controllers**: the drives' joint PD loops alone ("before compensation"), plus a feed-forward
  ``tau_ff = k_f E(ref) + f(qd_ref)`` with the identified model: Kostic ("after compensation")
  or Coulomb + viscous (the paper's "common method", Fig. 14). ``E`` is eq. 37's minimum-norm
  torque along the reference.
* **Speed error** (step 6 of the paper): ``Delta e_v(t) = v(t) - v'(t)``, the planned path speed
  minus the measured one (platform velocity from the drive encoders, ``fk`` then a zero-phase
  derivative, projected on the path direction), over the motion. Table 5 lists its largest and
  smallest values and its mean magnitude.
* **Location error** (Figs. 5-6): at each of the 21 sampling positions, the distance between the
  measured platform point and the position at the instant the reference arrives there, in the
  sampling run with each controller.
* **Stages** (the paper's Figs. 10-12): acceleration, uniform and deceleration stage of the LVCA,
  from the sign of the reference's path acceleration; :func:`run_path` also gives each stage's
  largest and mean speed error, which tell *where* the Table 5 peaks come from.
* **True-friction feed-forward** (twin only, not a method of the paper): the same feed-forward
  with the twin's own steady-state friction and k_f (:func:`true_friction_compensation`): what a
  perfect static friction model, fed forward on the reference, gives on this rig. It separates
  what a fitted model misses from what feed-forward of a static law does not remove.
* **Recordings**: every run is a ``source = twin`` recording (:func:`path_recording`,
  :func:`location_recording`) obtained through the room's
  :class:`~paperlib.experiments.kit.sources.RecordingSource` (:mod:`paperlib.experiments.rrr.recorded`):
  made and read back with the twin, read from the release with ``--source archive``. The metrics
  are computed from the file (:func:`path_metrics`), never from the simulator's memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import xarray as xr

from paperlib.control.ladder import point_sequence
from paperlib.experiments.kit.sources import RecordingSource
from paperlib.experiments.rrr import recorded, sampling
from paperlib.experiments.rrr.identification import min_norm
from paperlib.friction.kostic import KosticLaw
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.signals import zero_phase_derivatives
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, reference_joints, simulate, to_recording

#: Table 5's speeds [m/s] and the acceleration the paper used [m/s^2].
SPEEDS_M_S = (0.100, 0.200, 0.300, 0.400)
A_MAX_M_S2 = 7.00
MEASURED_VELOCITY_CUTOFF_HZ = 50.0

#: Table 5 of the paper: speed -> (before, after) x (max peak, min peak, mean) [mm/s].
PAPER_TABLE5: dict[float, dict[str, tuple[float, float, float]]] = {
    0.4: {"before": (9.80, -9.99, 7.76), "after": (3.97, -3.86, 3.43)},
    0.3: {"before": (7.49, -7.30, 4.28), "after": (2.82, -2.94, 2.11)},
    0.2: {"before": (7.18, -4.92, 3.08), "after": (1.83, -1.92, 1.36)},
    0.1: {"before": (3.98, -3.83, 1.94), "after": (1.49, -1.47, 1.32)},
}
#: Figs. 5-6: location error [mm] before / after compensation (max, mean, min).
PAPER_LOCATION_MM = {"before": (7.09, 3.88, 0.45), "after": (1.88, 0.55, 0.13)}
#: Numbers the paper's text gives about its figures: Fig. 5, centre-area location error after compensation
#: [mm]; Fig. 9, drive 3's largest sudden rate change at 400 mm/s before / after [rad/s]; Fig. 13, the range of
#: the largest friction at the uniform stage and its largest variation, in the paper's unit "N" (its drives'
#: torque, unit not stated).
PAPER_TEXT = {"centre_after_mm": (-0.18, 0.19), "drive3_jump_rad_s": {"none": 1.81, "kostic": 0.58},
              "friction_max_range": (2.0, 7.4), "friction_variation": 0.7}

CONTROLLERS = ("none", "kostic", "coulomb-viscous")
#: Controllers that exist on the twin only (a reference for the paper's two models, not a method of the paper).
TWIN_ONLY_CONTROLLERS = ("true-friction",)
LABELS = {"none": "before compensation (PD)", "kostic": "Kostic compensation", "coulomb-viscous": "Coulomb + viscous compensation",
          "true-friction": "twin's true friction as feed-forward (reference)"}
#: The LVCA's stages (Figs. 10-12).
STAGES = ("acceleration", "uniform", "deceleration")


@dataclass(frozen=True)
class Compensation:
    """An identified model used as feed-forward: ``tau_ff = k_f E + friction(qd)``."""

    name: str
    k_f: float
    friction: Callable[[np.ndarray], np.ndarray]  # (n, 3) rates -> (n, 3) torques [N m], reported units

    @classmethod
    def from_summary(cls, s: Mapping[str, Any]) -> "Compensation":
        """From the ``to_dict`` / ``summary`` of a fit (:mod:`paperlib.experiments.rrr.identification`)."""
        p = s["params"]
        if s["model"] == "kostic":
            laws = [KosticLaw(*(p[f"{n}_{i}"] for n in ("k_v", "f_1", "f_2", "m_1", "m_2"))) for i in (1, 2, 3)]
            return cls("kostic", p["k_f"], lambda v: np.stack([laws[i].torque(v[:, i]) for i in range(3)], 1))
        if s["model"] == "coulomb-viscous":
            fc = np.array([p[f"f_c_{i}"] for i in (1, 2, 3)])
            kv = np.array([p[f"k_v_{i}"] for i in (1, 2, 3)])
            return cls("coulomb-viscous", p["k_f"], lambda v: np.sign(v) * fc + v * kv)
        raise ValueError(f"unknown model {s['model']!r} in the identification summary")


def true_friction_compensation(twin: ThreeRRRTwin) -> Compensation:
    """The twin's own steady-state friction and k_f as a feed-forward model (twin only).

    Parameters
    ----------
    twin : ThreeRRRTwin
        Its ``steady_friction`` (joint side, N m) and ``k_f`` = 1 / drive gain.

    Returns
    -------
    Compensation
        Named ``"true-friction"``; ``friction(qd)`` in reported units (k_f times N m), as a fit's.
    """
    k_f = twin.k_f
    return Compensation("true-friction", k_f,
                        lambda v: k_f * np.stack([twin.steady_friction(v[:, i], i) for i in range(3)], 1))


def compensations(kostic: Mapping[str, Any], coulomb_viscous: Mapping[str, Any], twin: ThreeRRRTwin) -> dict[str, Compensation]:
    """The feed-forward models of Table 5: both fits (their ``summary`` dicts) and the twin's true friction."""
    return {"kostic": Compensation.from_summary(kostic), "coulomb-viscous": Compensation.from_summary(coulomb_viscous),
            "true-friction": true_friction_compensation(twin)}


def stage_masks(ref: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Boolean masks (n,) of the acceleration, uniform and deceleration stages of a path reference.

    From the sign of the along-path acceleration ``pdd . direction`` while ``segment >= 0``.
    """
    moving = np.asarray(ref["segment"]) >= 0
    a = np.asarray(ref["pdd"]) @ np.asarray(ref["direction"])
    tol = 1e-9 * max(1.0, float(np.abs(a).max()))
    return {"acceleration": moving & (a > tol), "uniform": moving & (np.abs(a) <= tol), "deceleration": moving & (a < -tol)}


def feedforward(robot: ThreeRRR, ref: Mapping[str, np.ndarray], comp: Compensation | None) -> np.ndarray:
    """Feed-forward torque (n, 3) [N m] along a platform reference (zeros without a model)."""
    n = np.shape(ref["p"])[0]
    if comp is None:
        return np.zeros((n, 3))
    F, J, qd = robot.inverse_dynamics(ref["p"], ref["pd"], ref["pdd"])
    return comp.k_f * min_norm(J, F) + comp.friction(qd)


def path_reference(robot: ThreeRRR, speed: float, fs_hz: float, a_max: float = A_MAX_M_S2,
                   lead_s: float = 0.2, tail_s: float = 0.4) -> dict[str, Any]:
    """The Table 3 path E1 -> E2 at ``speed`` under LVCA, sampled at ``fs_hz``."""
    E1, E2 = robot.path_endpoints()
    ref = point_sequence([E1, E2], speed, a_max, tail_s, fs_hz, lead_s=lead_s)
    ref["direction"] = (E2 - E1) / np.linalg.norm(E2 - E1)
    return ref


def measured_platform(robot: ThreeRRR, q: np.ndarray, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """Platform point and velocity (n, 2) from the encoders: fk, then a zero-phase derivative."""
    p = robot.fk(q)
    _, pd, _ = zero_phase_derivatives(p, fs, MEASURED_VELOCITY_CUTOFF_HZ)
    return p, pd


def path_recording(robot: ThreeRRR, twin: ThreeRRRTwin, speed: float, comp: Compensation | None,
                   variant: str = "twin") -> xr.Dataset:
    """Simulate one Table 3 path run on ``twin`` and return it as a ``source = twin`` recording.

    Parameters
    ----------
    robot : ThreeRRR
        The a priori model (reference, feed-forward).
    twin : ThreeRRRTwin
        The rig simulated.
    speed : float
        Path speed [m/s].
    comp : Compensation or None
        The feed-forward model (None: the drives' PD loops alone).
    variant : str
        Name of the twin variant (stored in the recording's run configuration).
    """
    ref = path_reference(robot, speed, twin.control_rate_hz)
    run = simulate(robot, twin, ref, feedforward(robot, ref, comp))
    name = comp.name if comp else "none"
    cfg = {"run": "Table 3 path E1 -> E2 (LVCA)", "speed_m_s": speed, "a_max_m_s2": A_MAX_M_S2, "compensation": name,
           "variant": variant}
    return to_recording(run, twin, controller=f"PD (drive loops) + {LABELS[name]}", config=cfg)


def run_path(robot: ThreeRRR, twin: ThreeRRRTwin, speed: float, comp: Compensation | None, *,
             source: RecordingSource | None = None, variant: str = "twin") -> dict[str, Any]:
    """One path run: the reference, the run (a recording, see :mod:`~paperlib.experiments.rrr.recorded`) and its metrics.

    ``source``: where the run's recording comes from (None: simulated now, kept in memory).
    ``twin`` and ``comp`` are used only when the recording is made.
    """
    name = comp.name if comp else "none"
    ds = recorded.obtain(source, recorded.path_name(variant, speed, name),
                         lambda: path_recording(robot, twin, speed, comp, variant))
    return path_metrics(robot, ds, speed, name)


def path_metrics(robot: ThreeRRR, ds: xr.Dataset, speed: float, controller: str) -> dict[str, Any]:
    """Speed-error series, stage metrics and Table 5 metrics of a path recording (:func:`path_recording`).

    Reads the recording's ``q`` (encoders), ``qd_sp``, ``pd_true`` and ``tau_m``; the reference is
    rebuilt from the robot model and the planner at the recording's sample rate.
    """
    fs = float(ds.attrs["sample_rate_hz"])
    ref = path_reference(robot, speed, fs)
    q = np.asarray(ds["q"].values, dtype=float)
    if q.shape[0] != np.shape(ref["t"])[0]:
        raise ValueError(f"path recording at {speed} m/s: {q.shape[0]} samples, the path reference has {np.shape(ref['t'])[0]}")
    p_m, pd_m = measured_platform(robot, q, fs)
    u = ref["direction"]
    v_ref = ref["pd"] @ u
    v_act = pd_m @ u
    moving = ref["segment"] >= 0
    dev = v_ref - v_act
    _, qd_m, _ = zero_phase_derivatives(q, fs, MEASURED_VELOCITY_CUTOFF_HZ)
    stages = stage_masks(ref)
    stage_peak = {k: float(np.abs(dev[m]).max() * 1e3) if m.any() else float("nan") for k, m in stages.items()}
    stage_mean = {k: float(np.abs(dev[m]).mean() * 1e3) if m.any() else float("nan") for k, m in stages.items()}
    return {
        "speed": speed, "controller": controller, "t": ref["t"], "moving": moving,
        "stages": stages, "stage_peak_mm_s": stage_peak, "stage_mean_mm_s": stage_mean,
        "v_ref": v_ref, "v_act": v_act, "v_true": np.asarray(ds["pd_true"].values, dtype=float) @ u, "speed_error": dev,
        "qd": qd_m, "qd_ref": np.asarray(ds["qd_sp"].values, dtype=float),
        "position_error": np.linalg.norm(p_m - ref["p"], axis=1), "tau_m": np.asarray(ds["tau_m"].values, dtype=float),
        "max_peak_mm_s": float(dev[moving].max() * 1e3), "min_peak_mm_s": float(dev[moving].min() * 1e3),
        "mean_abs_mm_s": float(np.mean(np.abs(dev[moving])) * 1e3),
        "max_position_error_mm": float(run_position_max(p_m, ref) * 1e3),
    }


def run_position_max(p_m: np.ndarray, ref: Mapping[str, np.ndarray]) -> float:
    """Largest distance [m] between the measured point and the reference during the motion."""
    moving = ref["segment"] >= 0
    return float(np.linalg.norm(p_m - ref["p"], axis=1)[moving].max())


def table5(robot: ThreeRRR, twin: ThreeRRRTwin, comps: Mapping[str, Compensation],
           controllers: tuple[str, ...] = CONTROLLERS, *, source: RecordingSource | None = None,
           variant: str = "twin", speeds: tuple[float, ...] = SPEEDS_M_S) -> dict[str, Any]:
    """All speeds x controllers: the metrics (JSON-ready) and the series (for the figures).

    ``controllers`` names entries of ``comps`` (``"none"`` needs none); a missing model raises KeyError.
    ``source`` and ``variant``: where each run's recording comes from (:func:`run_path`); ``speeds``
    [m/s] (Table 5's by default).
    """
    rows, series = [], {}
    for v in speeds:
        for name in controllers:
            r = run_path(robot, twin, v, comps[name] if name != "none" else None, source=source, variant=variant)
            series[(v, name)] = r
            rows.append({k: r[k] for k in ("speed", "controller", "max_peak_mm_s", "min_peak_mm_s", "mean_abs_mm_s",
                                           "max_position_error_mm", "stage_peak_mm_s", "stage_mean_mm_s")})
    return {"rows": rows, "series": series}


def start_transient(series: Mapping[tuple[float, str], Mapping[str, Any]]) -> dict[str, Any]:
    """Where each controller's largest speed error falls, and how alike the runs' starts are.

    With the same ``a_max`` at every speed, the first ``v_min / a_max`` seconds of motion (14 ms for
    100 mm/s) are the same reference at every speed. Returns, per controller, the time of its largest
    speed-error magnitude after the start of the motion [s] and the stage it falls in at each speed, and
    the largest difference [mm/s] between the slowest and the fastest run's speed error over that common
    window (the platform's true velocity, so the zero-phase filter of the measured one plays no part).
    """
    speeds = sorted({v for v, _ in series})
    names = sorted({c for _, c in series}, key=lambda c: (CONTROLLERS + TWIN_ONLY_CONTROLLERS).index(c))
    window_s = speeds[0] / A_MAX_M_S2
    out: dict[str, Any] = {"common_window_s": window_s, "controllers": {}}
    for c in names:
        at, stage = [], []
        for v in speeds:
            r = series[(v, c)]
            m = r["moving"]
            k = int(np.flatnonzero(m)[np.argmax(np.abs(r["speed_error"][m]))])
            at.append(float(r["t"][k] - r["t"][np.flatnonzero(m)[0]]))
            stage.append(next(s for s, mk in r["stages"].items() if mk[k]))
        a, b = series[(speeds[0], c)], series[(speeds[-1], c)]
        i0 = int(np.flatnonzero(a["moving"])[0])
        n = int(np.floor(window_s * (1.0 / (a["t"][1] - a["t"][0])) + 1e-9))
        diff = float(np.abs(a["v_true"][i0:i0 + n] - b["v_true"][i0:i0 + n]).max() * 1e3) if n > 0 else float("nan")
        out["controllers"][c] = {"largest_error_after_start_s": at, "largest_error_stage": stage,
                                 "start_window_difference_mm_s": diff}
    return out


def location_recording(robot: ThreeRRR, twin: ThreeRRRTwin, comp: Compensation | None, variant: str = "twin",
                       dwell_s: float = sampling.DWELL_S) -> xr.Dataset:
    """Simulate the 21-point sampling path with ``comp`` as feed-forward; a ``source = twin`` recording.

    ``dwell_s``: the stay at each position [s] (the paper's 2 s by default).
    """
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=A_MAX_M_S2, dwell_s=dwell_s)
    run = simulate(robot, twin, ref, feedforward(robot, ref, comp))
    name = comp.name if comp else "none"
    cfg = {"run": "21-point sampling (location error)", "speed_m_s": sampling.SAMPLING_SPEED_M_S, "a_max_m_s2": A_MAX_M_S2,
           "dwell_s": dwell_s, "compensation": name, "variant": variant}
    return to_recording(run, twin, controller=f"PD (drive loops) + {LABELS[name]}", config=cfg)


def location_errors(robot: ThreeRRR, twin: ThreeRRRTwin, comp: Compensation | None, *,
                    source: RecordingSource | None = None, variant: str = "twin",
                    dwell_s: float = sampling.DWELL_S) -> dict[str, Any]:
    """Figs. 5-6: error [mm] at each of the 21 sampling positions when the reference arrives there.

    The run is a recording obtained through ``source`` (None: simulated now, in memory); ``twin``
    and ``comp`` are used only when it is made. Reads its ``q``. ``dwell_s``: the stay at each
    position [s] the run was made with.
    """
    name = comp.name if comp else "none"
    ds = recorded.obtain(source, recorded.location_name(variant, name),
                         lambda: location_recording(robot, twin, comp, variant, dwell_s))
    fs = float(ds.attrs["sample_rate_hz"])
    ref = sampling.sampling_reference(robot, fs, a_max=A_MAX_M_S2, dwell_s=dwell_s)
    p_m = robot.fk(np.asarray(ds["q"].values, dtype=float))
    k = np.clip(np.round(ref["arrivals"] * fs).astype(int), 0, len(ref["t"]) - 1)
    err = np.linalg.norm(p_m[k] - ref["points"], axis=1) * 1e3
    return {"controller": name, "error_mm": err.tolist(), "max_mm": float(err.max()),
            "mean_mm": float(err.mean()), "min_mm": float(err.min()),
            "boundary_mean_mm": float(err[:sampling.N_BOUNDARY].mean()),
            "centre_mean_mm": float(err[sampling.N_BOUNDARY:].mean())}


def friction_along(run: Mapping[str, Any], comp: Compensation, twin: ThreeRRRTwin) -> dict[str, np.ndarray]:
    """Fig. 13: the identified friction (in N m, over k_f) and the twin's true one along a run's measured rates."""
    qd = np.asarray(run["qd"])
    model = comp.friction(qd) / comp.k_f
    true = np.stack([twin.steady_friction(qd[:, i], i) for i in range(3)], 1)
    return {"model_Nm": model, "true_Nm": true}


__all__ = ["SPEEDS_M_S", "A_MAX_M_S2", "PAPER_TABLE5", "PAPER_LOCATION_MM", "PAPER_TEXT", "CONTROLLERS", "TWIN_ONLY_CONTROLLERS",
           "LABELS", "STAGES", "Compensation", "true_friction_compensation", "compensations", "stage_masks", "feedforward", "path_reference", "measured_platform", "path_recording", "run_path", "path_metrics", "table5",
           "location_recording", "location_errors",
           "friction_along", "reference_joints", "start_transient"]
