"""Per-seed runner of the ``rrr`` room's sweeps (``paperlib sweep``): the chain on a twin with changed assumptions.

One call of :func:`run_seed` builds the robot model and the twin from their files, applies the
factors (:data:`ASSUMPTIONS`: unpublished parameters of the twin, each with its stated value and
the range a study may use), and runs what the notebooks run, with the same functions
(:mod:`paperlib.experiments.rrr.chain`): the 21-point sampling run, the Kostic (NLS) and
Coulomb + viscous (LS) identifications, Table 4, Table 5 before and after compensation at the
paper's four speeds, the location errors before and after, and the paper's trends. The values are
read out of those results by the comparison table's own rows
(:data:`paperlib.experiments.rrr.comparison.HEADLINES`), so a key means the same number here and
in ``results/rrr/paper_comparison.csv``. Every run is made in memory (no recording is read back).

Seeds: the twin has no noise; the sweep seed is the seed of the NLS multi-start (seed 0 is the
room's build). A study of the assumptions varies factors, not seeds.

Settings (all optional): ``n_starts`` (NLS starts, default 8 as the room), ``dwell_s`` (the stay
at each sampling position [s], default 2 as the paper), ``speeds_m_s`` (Table 5's speeds,
default the paper's four). :data:`FAST` is a cheaper setting checked against the room's build
(``tests/rooms/rrr/test_rrr_sweep.py``; the measured differences in ``docs/rrr.md``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

import numpy as np

from paperlib.sweeps.assumptions import Assumption, check_factors

__all__ = ["ASSUMPTIONS", "FACTORS", "FAST", "apply_factors", "run_seed", "headlines", "code_inputs"]

#: The unpublished parameters a study may vary: name -> stated value, range, reason.
ASSUMPTIONS: dict[str, Assumption] = {a.name: a for a in (
    Assumption("velocity_bandwidth_hz", 25.0, 10.0, 100.0, "Hz",
               "velocity-loop bandwidth w_v of the drives' PD law (Kd = J w_v), data/twin/three_rrr_twin.toml [controller]",
               "servo drives behind a 100:1 reducer are tuned to a few tens of Hz; 100 Hz is a stiff, well-damped "
               "mechanism, below 10 Hz a drive is detuned", log=True),
    Assumption("position_bandwidth_hz", 5.0, 2.0, 10.0, "Hz",
               "position-loop bandwidth w_p (Kp = J w_v w_p), data/twin/three_rrr_twin.toml [controller]",
               "cascade tuning puts the position loop at a fifth to a third of the velocity loop; 2-10 Hz keeps the "
               "loop damped (damping 0.5 or more) over the velocity range above", log=True),
    Assumption("velocity_filter_s", 0.001, 0.00025, 0.004, "s",
               "time constant of the drives' speed-feedback filter, data/twin/three_rrr_twin.toml [controller]",
               "drives filter the encoder-differenced speed over one to a few control periods (0.25-4 ms at 1 kHz)",
               log=True),
    Assumption("drive_gain", 0.94, 0.85, 1.10, "1",
               "applied / commanded torque of the drives (k_f = 1 / drive_gain), data/twin/three_rrr_twin.toml [drives]",
               "servo motors' torque constants are catalogued to about +/-10 %, and the amplifier's current scaling adds "
               "a few %"),
    Assumption("coulomb_scale", 1.0, 0.5, 2.0, "1",
               "factor on the Coulomb and static levels of all three drives, data/twin/three_rrr_twin.toml [friction.jointN]",
               "the friction of small harmonic or planetary reducers differs by a factor 2 either way between units, "
               "preloads, greases and run-in states", log=True),
    Assumption("stribeck_excess_scale", 1.0, 0.0, 2.0, "1",
               "factor on the static excess (static - Coulomb) of all three drives (0: no Stribeck peak), "
               "data/twin/three_rrr_twin.toml [friction.jointN]",
               "lubricated gear trains show static/Coulomb ratios from 1 (no breakaway peak) to about 2; the stated "
               "ratios are 1.6 and the range spans both ends"),
    Assumption("viscous_scale", 1.0, 0.5, 2.0, "1",
               "factor on the viscous coefficients of all three drives, data/twin/three_rrr_twin.toml [friction.jointN]",
               "grease viscosity halves or doubles over 15-20 K of temperature and between greases", log=True),
    Assumption("I_r_kg_m2", 4.4445, 2.2, 8.9, "kg m^2",
               "reflected rotor inertia of each drive (calibrated, data/robots/three_rrr.toml [inertia] I_r_rule); the "
               "drive gains follow it (J = I_r + the driving link's part)",
               "half to twice the calibrated value: the calibration reads Cai's acceleration bound in its best "
               "direction (the every-direction reading gives about 0.6x) and rests on link masses that are themselves "
               "assumed", log=True),
)}

#: Factors a sweep may vary (name -> meaning): the assumptions.
FACTORS: dict[str, str] = {k: a.meaning for k, a in ASSUMPTIONS.items()}

#: A cheaper setting (fewer NLS starts): on the stated twin it gives the default's values (tests/rooms/rrr/test_rrr_sweep.py).
#: Shorter stays at the sampling positions (``dwell_s``) do not: 0.5 s moves the location error after
#: compensation by 18 % and flips kostic_beats_cv_peak.
FAST: dict[str, Any] = {"n_starts": 6}


def apply_factors(factors: Mapping[str, Any] | None = None, robot: Any = None, twin: Any = None) -> tuple[Any, Any]:
    """The robot model and the twin with the factors applied (both from their files by default).

    Parameters
    ----------
    factors : mapping, optional
        :data:`ASSUMPTIONS` name -> value (in the assumption's unit); unknown names are refused.
    robot : ThreeRRR, optional
    twin : ThreeRRRTwin, optional

    Returns
    -------
    (ThreeRRR, ThreeRRRTwin)
        Gains ``kd = J w_v``, ``kp = J w_v w_p`` with ``J`` the joint inertia after the change of ``I_r``
        (the stated twin's ``J`` minus its robot's ``I_r`` is the link part, kept).

    Raises
    ------
    ValueError
        An unknown factor, or a value outside its stated range.
    """
    from paperlib.experiments.rrr.limits import with_rotor_inertia
    from paperlib.robots.three_rrr import ThreeRRR
    from paperlib.twin.robots.three_rrr import ThreeRRRTwin

    factors = dict(factors or {})
    unknown = sorted(set(factors) - set(ASSUMPTIONS))
    if unknown:
        raise ValueError(f"rrr sweep: unknown factor(s) {unknown}; known: {sorted(ASSUMPTIONS)}")
    f = {k: a.baseline for k, a in ASSUMPTIONS.items()}
    f.update(check_factors(factors, ASSUMPTIONS))
    robot = robot if robot is not None else ThreeRRR.default()
    twin = twin if twin is not None else ThreeRRRTwin.default()
    ct = twin.description["controller"]
    J_link = float(ct["joint_inertia_kg_m2"]) - robot.param("Ir1")
    robot = with_rotor_inertia(robot, f["I_r_kg_m2"])
    J = f["I_r_kg_m2"] + J_link
    w_v, w_p = 2 * math.pi * f["velocity_bandwidth_hz"], 2 * math.pi * f["position_bandwidth_hz"]
    fric = []
    for j in twin.friction:
        fc = j.coulomb_Nm * f["coulomb_scale"]
        fs = fc + (j.static_Nm - j.coulomb_Nm) * f["coulomb_scale"] * f["stribeck_excess_scale"]
        fric.append(dataclasses.replace(j, coulomb_Nm=fc, static_Nm=fs,
                                        viscous_Nm_s_per_rad=j.viscous_Nm_s_per_rad * f["viscous_scale"]))
    twin = dataclasses.replace(twin, friction=tuple(fric), drive_gain=f["drive_gain"],
                               velocity_filter_s=f["velocity_filter_s"],
                               kd=np.full(3, J * w_v), kp=np.full(3, J * w_v * w_p))
    return robot, twin


def run_seed(seed: int, factors: Mapping[str, Any] | None = None, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One sweep job: the room's chain on the twin with ``factors`` applied; its headline numbers.

    Parameters
    ----------
    seed : int
        Sweep seed (>= 0): the seed of the Kostic fit's multi-start (0: the room's build).
    factors : mapping, optional
        :data:`ASSUMPTIONS` name -> value.
    settings : mapping, optional
        ``n_starts`` (int, default 8), ``dwell_s`` (float [s], default 2.0), ``speeds_m_s`` (list of
        float, default Table 5's four); ``recordings_dir`` (set by a sweep's ``keep_recordings``: the
        sampling run is written there as ``sampling.nc``; the path and location runs stay in memory).

    Returns
    -------
    dict
        ``values`` (every key of :func:`headlines` -> number, bool or None), ``results`` (the two
        notebooks' results dicts, reduced to what the rows read), ``factors_applied`` (every
        assumption's value used), ``source`` ("twin").
    """
    from paperlib.experiments.rrr import chain, comparison, sampling
    from paperlib.experiments.rrr import tracking as trk
    from paperlib.experiments.rrr.run import sampling_recording

    if int(seed) < 0:
        raise ValueError(f"rrr sweep: seed must be >= 0, not {seed}")
    settings = dict(settings or {})
    unknown = sorted(set(settings) - {"n_starts", "dwell_s", "speeds_m_s", "recordings_dir"})
    if unknown:
        raise ValueError(f"rrr sweep: unknown setting(s) {unknown}; known: n_starts, dwell_s, speeds_m_s")
    n_starts = int(settings.get("n_starts", 8))
    dwell_s = float(settings.get("dwell_s", sampling.DWELL_S))
    speeds = tuple(float(v) for v in settings.get("speeds_m_s", trk.SPEEDS_M_S))
    robot, twin = apply_factors(factors)
    ds = sampling_recording(robot, twin, dwell_s=dwell_s, variant="sweep")
    if settings.get("recordings_dir"):
        from pathlib import Path

        from paperlib.recordings import write_recording

        d = Path(settings["recordings_dir"])
        d.mkdir(parents=True, exist_ok=True)
        write_recording(ds, d / "sampling.nc")
    truth_fn = lambda v, i: twin.steady_friction(v, i)  # noqa: E731
    ident, _ = chain.identification_results(ds, robot, twin, truth_fn, {"k_f": twin.k_f}, n_starts=n_starts,
                                            seed=int(seed), name="rrr sweep sampling run")
    track, _ = chain.tracking_results(ident, robot, twin, controllers=trk.CONTROLLERS,
                                      location_controllers=("none", "kostic"), speeds=speeds, dwell_s=dwell_s)
    results = {comparison.NB_ID: ident, comparison.NB_TR: track}
    values = {h.key: h.get(results[h.notebook]) for h in comparison.HEADLINES}
    f = {k: a.baseline for k, a in ASSUMPTIONS.items()}
    f.update(check_factors(dict(factors or {}), ASSUMPTIONS))
    keep = {comparison.NB_ID: {k: ident[k] for k in ("source", "limits", "limits_coherence")} | {
                "kostic": {k: ident["kostic"].get(k) for k in ("params", "k_f_rel_error", "curve_errors")}},
            comparison.NB_TR: {k: track[k] for k in ("source", "table5", "location", "trends")}}
    return {"values": values, "results": keep, "factors_applied": f, "source": "twin"}


def headlines() -> list[Any]:
    """The comparison table's rows this runner gives a value for (all of the room's)."""
    from paperlib.experiments.rrr import comparison

    return list(comparison.HEADLINES)


def code_inputs(settings: Mapping[str, Any] | None = None) -> list[str]:
    """Files whose change reruns a sweep's jobs: this module's import closure and the robot and twin files."""
    from paperlib.experiments.kit.code_inputs import code_inputs as closure

    return sorted(set(["data/robots/three_rrr.toml", "data/twin/three_rrr_twin.toml"] + closure([__name__])))
