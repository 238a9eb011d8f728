"""Beyond the flagship paper: IMU vs encoder-only identification, automatic model order, uncertainty.

Three studies on the 5R twin (``source = twin`` always: each needs the twin's truth), composed of
the estimation layer's :mod:`~paperlib.estimation.encoder_kinematics`,
:mod:`~paperlib.estimation.model_selection` and :mod:`~paperlib.estimation.uncertainty`:

1. **IMU vs encoder** (:func:`seed_campaign`): per seed one identification run of the twin (CTC:
   friction is not fed forward, so the data do not depend on the estimate), replayed through the
   same EWR-RLS (model 3, the paper's settings) with the kinematics of each variant: the IMU's
   ``qd``/``qdd`` as recorded, or a causal observer on the encoder angle. Same closed-loop data,
   only the estimator's input differs. Sweeps, offline on the same runs: the encoder re-quantized
   from the twin's true angle to coarser resolutions; the IMU's ``qd``/``qdd`` with extra white
   noise (held over the 1-kHz packets), as multiples of the twin's IMU noise.
2. **Known-order friction** (:func:`known_order_twin`): the twin with its friction replaced by
   one whose steady curve *is* an odd polynomial of known order on the active joints (Stribeck
   dip removed, ``delta_v`` = 1 or 3 so that ``f_v = Fv v (1 + v^2/v_thin^2)`` is exactly
   linear + cubic, thermal coefficients zero, passive joints scaled down 100x; LuGre presliding
   kept), on which ``--model auto`` must find the order.
3. **Calibration of the std** (:func:`calibration_table`), against two truths. (a)
   :func:`truth_parameters`: the twin's drive gains, and for a polynomial coefficient the
   least-squares fit of the twin's true steady friction curve, at the gearbox temperature at the
   start of the run, at the true velocities of the samples that updated the estimate
   (:func:`paperlib.estimation.uncertainty.polynomial_truth`). (b) :func:`ideal_estimate`: what
   the same estimator gives on the same run measured by perfect sensors: the target of the
   estimator itself, which differs from (a) because the summed row fits both joints' friction in
   one equation and the twin's LuGre friction is not steady.

The twin runs of these studies are recordings like the pipeline's: :func:`seed_campaign` and
:func:`model_choice_runs` take them from an ``obtain(name, make)`` (the kit's
:meth:`paperlib.experiments.kit.sources.RecordingSource.obtain`, bound by :func:`run_obtainer`), so
that a build writes them to ``<results>/mems/recordings/`` (named by :func:`campaign_name` and
:func:`order_name`), analyses what it wrote, and a build from a data release
(``paperlib reproduce mems --archive DIR``) reads the same files from the release instead of
running the twin. What is stored of each run is the pipeline's choice
(:func:`paperlib.experiments.mems.pipeline.beyond_storage`: with ``recording_storage: analysis``
the variables of ``pipeline.NOTEBOOK_RUN_READS``, float64, the quantized channels as exact integer
counts, so the numbers are those of the run in memory).

Errors (:func:`kinematics_metrics`): friction-curve error = RMS over 60 velocities from
:data:`V_LOW` to the 99th percentile of the visited |qd_j| of (identified - true steady curve),
relative to the true curve's largest value there, per joint [%]; drive-gain error
``|pi_hat - pi_true| / pi_true`` [%]; convergence = the window criterion of the online step
(``converged_s``) and the settling time (``settled_s``).
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from paperlib.estimation.encoder_kinematics import with_encoder_kinematics
from paperlib.estimation.replay import replay
from paperlib.estimation.uncertainty import coverage, parameter_std, polynomial_truth
from paperlib.friction import lugre as fr

__all__ = ["V_LOW", "PAYOFF_FACTOR", "imu_noise_rms", "twin_run", "campaign_name", "order_name",
           "run_obtainer", "known_order_twin", "truth_parameters",
           "kinematics_metrics", "variants", "seed_campaign", "summarise", "payoff", "calibration_table", "model_choice_runs", "model_table", "true_model_of", "native_counts", "band_curves"]

#: Lowest velocity of the friction-curve error [rad/s] (the estimator's sliding gate).
V_LOW = 0.1
#: The IMU "pays off" where the encoder-only median error exceeds the IMU's by this factor.
PAYOFF_FACTOR = 1.25
#: ``obtain(name, make)``: a recording by name, made by ``make()`` or read (a bound
#: :meth:`~paperlib.experiments.kit.sources.RecordingSource.obtain`).
Obtain = Callable[[str, Callable[[], Any]], Any]


def imu_noise_rms(twin_file: str | None = None) -> tuple[float, float]:
    """The twin IMU's white-noise RMS at the loop, as joint rate [rad/s] and acceleration [rad/s^2].

    Noise density times sqrt of the equivalent noise bandwidth of its first-order filter
    (``pi/2 f_c``), divided by the nominal lever arm for the acceleration (``data/twin/five_bar_twin.toml``).
    """
    from paperlib.provenance import REPO_ROOT

    path = twin_file or REPO_ROOT / "data" / "twin" / "five_bar_twin.toml"
    with open(path, "rb") as fh:
        imu = tomllib.load(fh)["imu"]
    enbw = math.pi / 2 * float(imu["lowpass_cutoff_Hz"])
    gyro = float(imu["gyro_noise_density_mdps_per_sqrt_Hz"]) * 1e-3 * math.pi / 180 * math.sqrt(enbw)
    acc = float(imu["accel_noise_density_ug_per_sqrt_Hz"]) * 1e-6 * 9.80665 * math.sqrt(enbw)
    return gyro, acc / float(imu["imu1"]["lever_arm_nominal_m"])


def twin_run(seed: int, duration_s: float = 30.0, controller: str = "CTC", twin_params: Any = None) -> Any:
    """One twin identification run (model 3, the paper's estimator settings, IMU calibrated first)."""
    from paperlib.twin.robots.five_bar import simulate

    return simulate(controller=controller, duration_s=float(duration_s), seed=int(seed), model=3,
                    twin_params=twin_params)


def _seconds(duration_s: float) -> str:
    return f"{float(duration_s):g}".replace(".", "p")


def campaign_name(seed: int, duration_s: float, controller: str = "CTC") -> str:
    """Recording name of one run of the seed campaign, e.g. ``beyond_ctc_s0101_30s``."""
    return f"beyond_{controller.lower()}_s{int(seed):04d}_{_seconds(duration_s)}s"


def order_name(order: int, seed: int, duration_s: float) -> str:
    """Recording name of one known-order run, e.g. ``beyond_order3_s0201_20s``."""
    return f"beyond_order{int(order)}_s{int(seed):04d}_{_seconds(duration_s)}s"


def run_obtainer(source: Any, store: Mapping[str, Any] | None = None) -> Obtain:
    """``obtain(name, make)`` of a :class:`~paperlib.experiments.kit.sources.RecordingSource`, storing what
    ``make()`` returns as ``store`` says (:func:`paperlib.recordings.storage.apply_storage`; None: whole).

    With ``source.source == "archive"`` the recording is read from the release and ``make`` is not called.
    """
    from paperlib.recordings.storage import apply_storage

    def obtain(name: str, make: Callable[[], Any]) -> Any:
        ds = source.obtain(name, lambda: apply_storage(make(), store))
        ds.attrs["_path"] = str(source.path(name))
        return ds

    return obtain


def _in_memory(name: str, make: Callable[[], Any]) -> Any:
    return make()


def known_order_twin(order: int, twin_params: Any = None) -> Any:
    """Twin parameters whose active joints' steady friction is an odd polynomial of ``order`` (1 or 3).

    Joint j keeps its Coulomb level and viscous coefficient; order 3 adds ``Fv v^3 / v_thin^2`` with
    ``v_thin = 3 rad/s`` and half the viscous coefficient (module docstring).
    """
    from paperlib.twin import drives as dr

    if order not in (1, 3):
        raise ValueError(f"the twin's friction law gives exact odd polynomials of order 1 or 3, not {order}")
    tp = twin_params or dr.load_twin_params()
    f = np.array(tp.friction, dtype=float, copy=True)
    for j in (0, 1):
        f[j, fr.FR_FS] = f[j, fr.FR_FC]
        f[j, fr.FR_DV] = float(order)
        f[j, fr.FR_VTHIN] = 3.0 if order == 3 else 1e3
        f[j, fr.FR_FV] = 0.5 * f[j, fr.FR_FV] if order == 3 else f[j, fr.FR_FV]
        f[j, fr.FR_ALPHA_C] = 0.0
        f[j, fr.FR_BETA_V] = 0.0
    for j in range(2, f.shape[0]):
        for c in (fr.FR_FC, fr.FR_FS, fr.FR_FV, fr.FR_SIGMA0, fr.FR_SIGMA1):
            f[j, c] *= 0.01
    return dataclasses.replace(tp, friction=f)


def _true_curve(truth: Mapping[str, Any], joint: int, v: np.ndarray, T: float) -> np.ndarray:
    """The twin's steady friction of joint (1-based) at |v|, by interpolation on a fine grid [N m]."""
    row = np.asarray(truth["friction"][joint - 1], dtype=float)
    vmax = float(np.max(np.abs(v))) * 1.001 + 1e-9
    grid = np.linspace(1e-6, vmax, 1500)
    curve = fr.steady_friction_curve(grid, row, T)
    return np.sign(v) * np.interp(np.abs(v), grid, curve)


def _temperatures(truth: Mapping[str, Any]) -> list[float]:
    return [float(x) for x in truth["gearbox_inner_temperature_start_degC"]]


def _visited(ds: Any, res: Any) -> np.ndarray:
    """True joint rates (N_inf, 2) of the samples that updated the estimate."""
    _, _, mask = res.extra["rows"]
    qd_true = np.asarray(ds["qd_true"].values)[: len(mask)]
    return qd_true[mask]


def truth_parameters(ds: Any, res: Any) -> np.ndarray:
    """The values (n_pi,) the estimate should converge to (module docstring, point 3)."""
    truth = _truth(ds)
    v = _visited(ds, res)
    T = _temperatures(truth)
    out = list(np.asarray(truth["pi_pds"], dtype=float))
    for j in sorted(set(int(c[0]) + 1 for c in res.model.columns())):
        if j > 2:
            raise ValueError("the truth of passive-joint coefficients is not defined here (active joints only)")
        vj = v[:, j - 1]
        out += list(polynomial_truth(res.model, vj, _true_curve(truth, j, vj, T[j - 1]), j))
    return np.array(out)


def _truth(ds: Any) -> dict[str, Any]:
    import json

    t = ds.attrs["truth"]
    return json.loads(t) if isinstance(t, str) else dict(t)


def ideal_recording(ds: Any) -> Any:
    """The same run as perfect sensors would have recorded it: the twin's true angle, rate, acceleration and
    motor torque (divided by the true drive gains, as the drive would report it without error)."""
    truth = _truth(ds)
    d = ds.copy(deep=False)
    for ch, src in (("q", "q_true"), ("qd", "qd_true"), ("qdd", "qdd_true")):
        d[ch] = ds[src]
    d["tau_m"] = ds["tau_m_true"] / np.asarray(truth["pi_pds"], dtype=float)
    return d


def ideal_estimate(ds: Any) -> np.ndarray:
    """Truth (b) of :func:`calibration_table`: the estimate of the same estimator (model 3) on :func:`ideal_recording`."""
    return replay(ideal_recording(ds), 3, imu_delay_cycles=0).estimator.theta.copy()


def kinematics_metrics(ds_true: Any, res: Any, ideal: np.ndarray | None = None) -> dict[str, Any]:
    """Errors of one replay against the twin's truth (module docstring)."""
    truth = _truth(ds_true)
    T = _temperatures(truth)
    v = _visited(ds_true, res)
    nd = res.n_drives
    pi_true = np.asarray(truth["pi_pds"], dtype=float)
    curve_err = []
    for j in (1, 2):
        v_hi = float(np.percentile(np.abs(v[:, j - 1]), 99))
        grid = np.linspace(V_LOW, max(v_hi, 2 * V_LOW), 60)
        true = _true_curve(truth, j, grid, T[j - 1])
        est = res.model.torque(res.pi_F, grid, joint=j)
        curve_err.append(float(100 * np.sqrt(np.mean((est - true) ** 2)) / np.max(np.abs(true))))
    u = parameter_std(res)
    theta = res.estimator.theta.copy()
    tru = truth_parameters(ds_true, res)
    return {
        "friction_curve_error_pct": curve_err,
        "drive_gain_error_pct": [float(100 * abs(res.pi_pds[i] - pi_true[i]) / pi_true[i]) for i in range(nd)],
        "converged_s": float(res.converged_s), "settled_s": float(res.settled_s),
        "theta": theta.tolist(), "std": u["std"].tolist(), "std_corrected": u["std_corrected"].tolist(),
        "truth": tru.tolist(), "truth_ideal": None if ideal is None else np.asarray(ideal).tolist(),
        "tau_samples": u["tau_samples"], "n_informative": u["n_informative"],
        "param_names": list(res.param_names),
    }


def _requantize(q_true: np.ndarray, step: float) -> np.ndarray:
    return np.floor(q_true / step + 0.5) * step


def _held_noise(shape: tuple[int, int], hold: int, rng: np.random.Generator) -> np.ndarray:
    n = -(-shape[0] // hold)
    return np.repeat(rng.standard_normal((n, shape[1])), hold, axis=0)[: shape[0]]


def variants(ds: Any, *, counts: Sequence[int] = (), imu_noise: Sequence[float] = (), seed: int = 0,
             methods: Sequence[str] = ("kalman", "observer")) -> dict[str, tuple[Any, int | None]]:
    """The estimator inputs compared on one run: label -> (recording, imu delay cycles).

    ``imu``: as recorded; ``encoder:METHOD``: the observer on the recorded encoder angle;
    ``encoder:kalman@COUNTS``: the twin's true angle re-quantized to COUNTS per motor revolution;
    ``imu x K``: the IMU's qd, qdd with white noise added so that its RMS is K times the twin IMU's
    (:func:`imu_noise_rms`), held over each 1-kHz packet.
    """
    from paperlib import robots

    robot = robots.load(ds.attrs["robot"])
    out: dict[str, tuple[Any, int | None]] = {"imu": (ds, None)}
    for m in methods:
        out[f"encoder:{m}"] = (with_encoder_kinematics(ds, m, robot=robot), 0)
    gear = float(np.max(robot.gear_ratios))
    for c in counts:
        step = 2 * math.pi / (float(c) * gear)
        q = _requantize(np.asarray(ds["q_true"].values), step)
        out[f"encoder:kalman@{int(c)}"] = (with_encoder_kinematics(ds, "kalman", q=q, robot=robot, step_rad=step), 0)
    if imu_noise:
        g, a = imu_noise_rms()
        fs = float(ds.attrs["sample_rate_hz"])
        hold = max(1, int(round(fs / 1000.0)))
        rng = np.random.default_rng(1000 + int(seed))
        for k in imu_noise:
            extra = math.sqrt(max(float(k) ** 2 - 1.0, 0.0))
            d = ds.copy(deep=False)
            shp = ds["qd"].shape
            d["qd"] = ds["qd"] + extra * g * _held_noise(shp, hold, rng)
            d["qdd"] = ds["qdd"] + extra * a * _held_noise(shp, hold, rng)
            out[f"imu x{k:g}"] = (d, None)
    return out


def seed_campaign(seeds: Sequence[int], duration_s: float, *, counts: Sequence[int] = (),
                  imu_noise: Sequence[float] = (), progress: Callable[[str], None] | None = None,
                  obtain: Obtain | None = None, twin_params: Any = None) -> dict[str, Any]:
    """Every variant of :func:`variants` on one twin run per seed: label -> list of metrics (one per seed).

    ``obtain(name, make)`` gives each run (named :func:`campaign_name`; :func:`run_obtainer`);
    default: the twin run in memory. ``twin_params``: the twin (default the stated one).
    """
    obtain = obtain or _in_memory
    out: dict[str, list[dict[str, Any]]] = {}
    for s in seeds:
        ds = obtain(campaign_name(int(s), duration_s), lambda s=s: twin_run(int(s), duration_s, twin_params=twin_params))
        ideal = ideal_estimate(ds)
        for label, (d, delay) in variants(ds, counts=counts, imu_noise=imu_noise, seed=int(s)).items():
            res = replay(d, 3, keep_rows=True, imu_delay_cycles=delay)
            m = kinematics_metrics(ds, res, ideal)
            m["seed"] = int(s)
            out.setdefault(label, []).append(m)
        if progress:
            progress(f"seed {s}: done")
    return out


def _med(x: Sequence[float]) -> tuple[float, float, float]:
    a = np.asarray(x, dtype=float)
    a = a[np.isfinite(a)]
    if not a.size:
        return (math.nan, math.nan, math.nan)
    return float(np.median(a)), float(np.percentile(a, 25)), float(np.percentile(a, 75))


def summarise(campaign: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Median and quartiles over seeds of every error and time, per variant."""
    out: dict[str, dict[str, Any]] = {}
    for label, runs in campaign.items():
        d: dict[str, Any] = {"n_seeds": len(runs)}
        for j in (0, 1):
            d[f"friction_curve_error_pct_j{j + 1}"] = _med([r["friction_curve_error_pct"][j] for r in runs])
            d[f"drive_gain_error_pct_j{j + 1}"] = _med([r["drive_gain_error_pct"][j] for r in runs])
        d["converged_s"] = _med([r["converged_s"] for r in runs])
        d["converged_fraction"] = float(np.mean([math.isfinite(r["converged_s"]) for r in runs]))
        d["settled_s"] = _med([r["settled_s"] for r in runs])
        out[label] = d
    return out


def _score(s: Mapping[str, Any], what: str) -> float:
    """The larger of the two joints' median error for 'friction_curve' or 'drive_gain'."""
    return max(s[f"{what}_error_pct_j1"][0], s[f"{what}_error_pct_j2"][0])


def payoff(summary: Mapping[str, Mapping[str, Any]], counts: Sequence[int], imu_noise: Sequence[float],
           native_counts: int, factor: float = PAYOFF_FACTOR) -> dict[str, Any]:
    """Where the IMU starts to pay off (rule: :data:`PAYOFF_FACTOR`).

    Encoder resolution: the finest resolution (counts per motor revolution, native included) at which
    the encoder-only median error (larger joint) exceeds ``factor`` x the IMU's, for the friction
    curve and for the drive gains. IMU noise: the smallest noise multiple at which the IMU's median
    error exceeds ``factor`` x the encoder's (native resolution): above it the IMU no longer pays off (1 when the
    IMU does not pay off at native resolution even with its own noise).
    """
    res: dict[str, Any] = {"rule": (f"the IMU pays off where the encoder-only median error (larger of the two joints, "
                                    f"over seeds) exceeds {factor:g} x the IMU's; the IMU stops paying off where its "
                                    f"median error exceeds {factor:g} x the native encoder's"), "factor": factor}
    for what in ("friction_curve", "drive_gain"):
        imu = _score(summary["imu"], what)
        enc_native = _score(summary["encoder:kalman"], what)
        ladder = sorted([(native_counts, "encoder:kalman")] + [(int(c), f"encoder:kalman@{int(c)}") for c in counts],
                        reverse=True)
        at = next((c for c, lab in ladder if lab in summary and _score(summary[lab], what) > factor * imu), None)
        res[f"{what}_imu_pays_off_at_counts"] = at
        if imu * factor > enc_native:  # no advantage even at the twin's own IMU noise
            noise_at = 1.0
        else:
            noise_at = next((k for k in sorted(imu_noise) if f"imu x{k:g}" in summary
                             and _score(summary[f"imu x{k:g}"], what) > factor * enc_native), None)
        res[f"{what}_imu_stops_paying_at_noise_x"] = noise_at
        res[f"{what}_imu_median_pct"] = imu
        res[f"{what}_encoder_native_median_pct"] = enc_native
    res["imu_better_native"] = bool(res["friction_curve_imu_median_pct"] < res["friction_curve_encoder_native_median_pct"])
    return res


def calibration_table(runs: Sequence[Mapping[str, Any]], z: float = 1.959964) -> dict[str, Any]:
    """Coverage of the 95 % intervals over seeds, per parameter, for ``std`` and ``std_corrected``.

    Two truths: (a) ``coverage_*``: the twin's drive gains and the per-joint least-squares fit of its true
    steady friction at the visited velocities (:func:`truth_parameters`); (b) ``coverage_ideal_*``: what the
    same estimator gives on the same run measured by perfect sensors (:func:`ideal_estimate`), i.e. the
    errors the measurements cause, without the model's misfit of the twin's LuGre friction.
    """
    names = runs[0]["param_names"]
    th = np.array([r["theta"] for r in runs])
    tr = np.array([r["truth"] for r in runs])
    ti = np.array([r["truth_ideal"] for r in runs], dtype=float) if runs[0].get("truth_ideal") is not None else None
    out: dict[str, Any] = {"param_names": names, "n_seeds": len(runs)}
    for key in ("std", "std_corrected"):
        sd = np.array([r[key] for r in runs])
        out[f"coverage_{key}"] = coverage(th, sd, tr, z).tolist()
        if ti is not None:
            out[f"coverage_ideal_{key}"] = coverage(th, sd, ti, z).tolist()
            out[f"min_coverage_ideal_{key}"] = float(np.min(out[f"coverage_ideal_{key}"]))
        out[f"median_{key}"] = np.median(sd, axis=0).tolist()
    out["min_coverage_plain"] = float(min(out["coverage_std"]))
    out["min_coverage_corrected"] = float(min(out["coverage_std_corrected"]))
    out["seed_spread"] = th.std(axis=0, ddof=1).tolist()
    out["median_bias"] = np.median(th - tr, axis=0).tolist()
    # what the spread over seeds alone would say: the std needed for 95 % coverage, relative to the reported one
    err = np.abs(th - tr)
    sdc = z * np.median(np.array([r["std_corrected"] for r in runs]), axis=0)
    out["needed_over_corrected"] = (np.percentile(err, 95, axis=0) / sdc).tolist()
    if ti is not None:
        out["needed_over_corrected_ideal"] = (np.percentile(np.abs(th - ti), 95, axis=0) / sdc).tolist()
        out["median_bias_ideal"] = np.median(th - ti, axis=0).tolist()
    return out


def model_choice_runs(orders: Sequence[int], seeds: Sequence[int], duration_s: float,
                      criterion: str | None = None, obtain: Obtain | None = None) -> list[dict[str, Any]]:
    """``--model auto`` on known-order twin runs: one row per (order, seed) with every criterion's pick.

    ``obtain(name, make)`` gives each run (named :func:`order_name`; :func:`run_obtainer`);
    default: the twin run in memory. The known-order twin parameters are made only when a run is.
    """
    from paperlib.estimation.model_selection import AUTO_CRITERION, select_friction_model

    obtain = obtain or _in_memory
    rows = []
    for order in orders:
        true_model = true_model_of(int(order))
        for s in seeds:
            ds = obtain(order_name(int(order), int(s), duration_s),
                        lambda o=int(order), s=int(s): twin_run(s, duration_s, twin_params=known_order_twin(o)))
            sel = select_friction_model(ds, criterion=criterion or AUTO_CRITERION)
            rows.append({"order": int(order), "true_model": true_model, "seed": int(s), "chosen": int(sel["chosen"]),
                         "picks": {k: int(v) for k, v in sel["picks"].items()}, "selection": sel})
    return rows


def model_table(sel: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per candidate of a :func:`~paperlib.estimation.model_selection.select_friction_model` result."""
    rows = []
    for c, d in sel["candidates"].items():
        rows.append({"model": c, "n_params": d["n_params"], "rms_Nm": d["rms_Nm"], "aic": d["aic"], "bic": d["bic"],
                     "aic_eff": d["aic_eff"], "bic_eff": d["bic_eff"], "cv_mse_Nm2": d["cv_mse_Nm2"],
                     "cv_se_Nm2": d["cv_se_Nm2"], "rho_rms_prior_Nm": d["rho_rms_prior_Nm"]})
    return rows


def true_model_of(order: int) -> int:
    """Table 4's model that holds a known-order twin's friction exactly (active joints, that order)."""
    return {1: 5, 3: 3}[int(order)]


def native_counts(robot: Any = None) -> int:
    """The 5R's encoder counts per motor revolution (``data/robots/five_bar.toml``)."""
    from paperlib.robots.five_bar import FiveBar

    robot = robot or FiveBar.default()
    return int(robot.description["sensors"]["encoder_counts_per_motor_rev"])


def band_curves(ds: Any, res: Any, n: int = 80) -> dict[int, dict[str, np.ndarray]]:
    """Identified friction curve of each active joint with its 95 % band (std x sqrt(tau)) and, for twin
    recordings, the true steady curve at the start temperature; velocities from :data:`V_LOW` to the 99th
    percentile of the visited |qd_j|."""
    from paperlib.estimation.uncertainty import friction_band

    _, _, mask = res.extra["rows"]
    qd = np.asarray(ds["qd"].values)[-len(mask):][mask]
    truth = _truth(ds) if "truth" in ds.attrs and "friction" in str(ds.attrs["truth"]) else None
    out: dict[int, dict[str, np.ndarray]] = {}
    for j in (1, 2):
        v = np.linspace(V_LOW, max(float(np.percentile(np.abs(qd[:, j - 1]), 99)), 2 * V_LOW), n)
        curve, half = friction_band(res, j, v)
        out[j] = {"v": v, "curve": curve, "half": half}
        if truth is not None:
            out[j]["truth"] = _true_curve(truth, j, v, _temperatures(truth)[j - 1])
    return out
