"""Pass/fail inspection of bearing populations (the paper's motivation, Secs. 3 and 4.2).

A bearing fails when its measured torque RMS exceeds a threshold. Two populations of good and
worn bearings are drawn from the twin (:func:`paperlib.twin.robots.wheel_bearing.population`, distinct
seeds). Each bearing is inspected once (random start angle, fresh sensor noise and offset shift),
exactly as ``paperlib bearing inspect`` does, and its statistic is taken three ways:

* ``compensated``:   RMS of ``tau_s - predicted intrinsic`` (``bearing_torque_rms``),
* ``uncompensated``: RMS of ``tau_s``,
* ``reference``:     RMS of the load cell ``tau_ref`` (what an external sensor would give).

Threshold rule (:func:`choose_threshold`): on the *tuning* population, the threshold minimising
false rejects + false accepts (counts), midway between the two neighbouring statistics, the
middle one if several are optimal. False-reject rate (good bearings failed) and false-accept
rate (worn bearings passed) are then counted on the *held-out* population. Two ways of tuning
are reported: each statistic with its own threshold, and one threshold tuned on the reference
(a specification in load-cell torque) applied to the robot's sensor with and without compensation.

Each inspection is a recording (schema 2, ``source = twin``): what the rig's logger would store
of the trial (encoder ``q``, torque sensor ``tau_s``, load cell ``tau_ref``, setpoint), with the
bearing's parameters (its grade included) and its true friction-torque RMS in the ``truth``
attribute. It is obtained through a :class:`~paperlib.experiments.kit.sources.RecordingSource`
(:func:`population_name`: ``recordings/populations/<seed>/bearing_<i>.nc``): simulated, written
and read back with the twin, copied from the release with ``--source archive``. The statistics,
grades and true RMS are then read from the files, so a build from a release draws nothing.
The bearings themselves (parameter sets) are not stored apart: the analysis reads their
inspections, never the parameters, and each recording's truth holds the bearing it was made with.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm import tqdm

from paperlib import recordings as rec
from paperlib.estimation.basis_regression import BasisRegression
from paperlib.experiments.kit.sources import RecordingSource
from paperlib.experiments.bearing.inspection import inspect
from paperlib.experiments.bearing.runs import BearingProfile, bearing_run, to_recording
from paperlib.twin.robots.torque_joint import TorqueJointTwin
from paperlib.twin.robots.wheel_bearing import population

__all__ = ["STATISTICS", "population_name", "population_names", "inspect_population", "choose_threshold", "rates", "classification_study"]

STATISTICS = ("compensated", "uncompensated", "reference")


def population_name(seed: int, index: int) -> str:
    """Recording name (under the room's ``recordings/``) of bearing ``index`` of population ``seed``'s inspection."""
    return f"populations/{int(seed)}/bearing_{int(index):04d}"


def population_names(n_per_grade: int, seed: int) -> list[str]:
    """Every recording name of one population (``n_per_grade`` good then as many worn bearings)."""
    return [population_name(seed, i) for i in range(2 * int(n_per_grade))]


def inspect_population(model: BasisRegression, *, n_per_grade: int, seed: int, twin: TorqueJointTwin | None = None,
                       profile: BearingProfile = BearingProfile(), progress: bool = False,
                       source: RecordingSource | None = None) -> dict[str, Any]:
    """Draw ``n_per_grade`` good and worn bearings and inspect each once.

    Parameters
    ----------
    source : RecordingSource, optional
        Where each inspection's recording comes from (:func:`population_name`); None: simulated
        now and kept in memory (tests, hand use).

    Returns
    -------
    dict
        ``grade`` (list of str), ``true_rms`` [N m] (the bearing's own friction torque RMS),
        and one list [N m] per statistic of :data:`STATISTICS`; grade and true RMS as the
        recordings' truth states them.
    """
    rng = np.random.default_rng(seed)
    drawn: list = []

    def bearing(i: int):
        if not drawn:  # the parameter sets, drawn by the twin only when a recording is made
            drawn.extend(population("good", n_per_grade, seed) + population("worn", n_per_grade, seed + 1))
        return drawn[i]

    def make(i: int, run_seed: int, q0: float):
        run = bearing_run(bearing(i), twin or TorqueJointTwin(), seed=run_seed, q0=q0, profile=profile)
        return to_recording(run, kind="bearing", seed=run_seed, config={"population_seed": seed, "index": i})

    out: dict[str, list] = {"grade": [], "true_rms": [], **{k: [] for k in STATISTICS}}
    for i in tqdm(range(2 * n_per_grade), desc=f"inspecting population {seed}", disable=not progress):
        run_seed = int(rng.integers(2 ** 31))
        q0 = float(rng.uniform(0, 2 * np.pi))
        mk = lambda i=i, run_seed=run_seed, q0=q0: make(i, run_seed, q0)  # noqa: E731
        ds = mk() if source is None else source.obtain(population_name(seed, i), mk)
        r = inspect(ds, model, name=f"population {seed} bearing {i}")
        truth = rec.truth(ds)
        # the twin's truth names the part "wheel_bearing"; releases made before 2026-12-06 say "bearing"
        out["grade"].append((truth.get("wheel_bearing") or truth["bearing"])["grade"])
        out["true_rms"].append(truth["run"]["bearing_torque_rms_Nm"])
        out["compensated"].append(r["bearing_torque_rms"])
        out["uncompensated"].append(r["bearing_torque_rms_uncompensated"])
        out["reference"].append(r["tau_ref_rms"])
    return out


def choose_threshold(stat: np.ndarray, worn: np.ndarray) -> float:
    """Threshold [N m] minimising false rejects + false accepts on a tuning set (module docstring).

    Parameters
    ----------
    stat : ndarray (n,)
        Statistic per bearing [N m].
    worn : ndarray of bool (n,)
        True for a worn bearing (should fail).
    """
    stat = np.asarray(stat, float)
    worn = np.asarray(worn, bool)
    s = np.sort(stat)
    cands = np.concatenate([[s[0] - 1e-9], 0.5 * (s[1:] + s[:-1]), [s[-1] + 1e-9]])
    errs = np.array([np.sum((stat > t) & ~worn) + np.sum((stat <= t) & worn) for t in cands])
    best = np.flatnonzero(errs == errs.min())
    return float(cands[best[len(best) // 2]])


def rates(stat: np.ndarray, worn: np.ndarray, threshold: float) -> dict[str, float]:
    """False-reject rate (good failed) and false-accept rate (worn passed) at ``threshold``."""
    stat = np.asarray(stat, float)
    worn = np.asarray(worn, bool)
    return {"false_reject_rate": float(np.mean(stat[~worn] > threshold)),
            "false_accept_rate": float(np.mean(stat[worn] <= threshold)),
            "n_good": int((~worn).sum()), "n_worn": int(worn.sum())}


def classification_study(model: BasisRegression, *, n_per_grade: int = 100, tune_seed: int = 1000,
                         test_seed: int = 2000, twin: TorqueJointTwin | None = None,
                         progress: bool = False, source: RecordingSource | None = None) -> dict[str, Any]:
    """Tune thresholds on one population, report rates on another (with and without compensation).

    ``source``: where the inspections' recordings come from (:func:`inspect_population`).

    Returns
    -------
    dict
        ``own_threshold`` and ``reference_threshold`` results per statistic (threshold [N m],
        rates on the tuning and held-out populations), and the raw populations.
    """
    if tune_seed == test_seed:
        raise ValueError("classification_study: tuning and held-out populations must differ")
    tune = inspect_population(model, n_per_grade=n_per_grade, seed=tune_seed, twin=twin, progress=progress, source=source)
    test = inspect_population(model, n_per_grade=n_per_grade, seed=test_seed, twin=twin, progress=progress, source=source)
    w_tune = np.array(tune["grade"]) == "worn"
    w_test = np.array(test["grade"]) == "worn"
    own, ref = {}, {}
    t_ref = choose_threshold(np.array(tune["reference"]), w_tune)
    for k in STATISTICS:
        t = choose_threshold(np.array(tune[k]), w_tune)
        own[k] = {"threshold_Nm": t, "tuning": rates(tune[k], w_tune, t), "held_out": rates(test[k], w_test, t)}
        ref[k] = {"threshold_Nm": t_ref, "tuning": rates(tune[k], w_tune, t_ref),
                  "held_out": rates(test[k], w_test, t_ref)}
    return {"rule": "threshold minimising false rejects + false accepts on the tuning population",
            "tuning_population_seed": tune_seed, "held_out_population_seed": test_seed,
            "n_per_grade": n_per_grade, "own_threshold": own, "reference_threshold": ref,
            "populations": {"tuning": tune, "held_out": test}}
