"""The 5R twin's unpublished parameters a sensitivity study may vary (``paperlib sensitivity``).

:data:`ASSUMPTIONS` follows the protocol of :mod:`paperlib.sweeps.assumptions`: each name is a
factor of :func:`paperlib.experiments.mems.sweep.run_seed`, and :func:`varied_twin` applies the
given values to a copy of the stated twin (``data/twin/five_bar_twin.toml``) and robot
description (``data/robots/five_bar.toml``) before the campaign's runs. Nothing is written: the
stated twin stays what its files say. A varied value passes the twin loader's own range checks
(:func:`paperlib.twin.drives.twin_params_from_doc`).

Every range is what the field would call plausible for a robot of this class, with its reason;
none was chosen to reach a paper's number.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Mapping

from paperlib.sweeps.assumptions import Assumption, check_factors

__all__ = ["ASSUMPTIONS", "varied_twin"]

_TWIN = "data/twin/five_bar_twin.toml"
_ROBOT = "data/robots/five_bar.toml"
_ACTUATED = ("joint1", "joint2")


def _assumptions() -> dict[str, Assumption]:
    a = [
        Assumption("friction_scale", 1.0, 0.5, 1.8, "1",
                   f"factor on the actuated gearboxes' Coulomb, static and viscous friction levels ({_TWIN} "
                   "[friction.joint1], [friction.joint2]); bristle stiffness, shape and thermal network unchanged",
                   "nominally identical gearboxes of this class differ by up to ~2x in no-load friction with "
                   "preload, lubricant fill and run-in; 1.8 keeps the viscous level inside the twin loader's range",
                   log=True),
        Assumption("viscous_exponent", 0.5, 0.3, 1.0, "1",
                   f"exponent of the actuated joints' sub-linear viscous term ({_TWIN} viscous_exponent)",
                   "1 is a Newtonian lubricant (linear viscous); greases shear-thin with power-law indices of "
                   "~0.3-0.8"),
        Assumption("stiction_excess_scale", 1.0, 0.0, 3.0, "1",
                   f"factor on the static-over-Coulomb excess of the actuated joints ({_TWIN} static_Nm - "
                   "coulomb_Nm, 14 % of Coulomb as stated)",
                   "gearbox breakaway torque is 0-50 % above the Coulomb level (0: no Stribeck bump; 3: ~43 %)"),
        Assumption("kp_scale", 1.0, 0.6, 1.6, "1",
                   f"factor on both joints' proportional gain K_P ({_ROBOT} [control] kp_Nm_per_rad, 300 N m/rad)",
                   "the stated gain gives a ~12 Hz loop; 0.6-1.6 spans ~9-15 Hz, the band a 4-kHz loop with "
                   "~1 ms gyroscope latency is commonly tuned in"),
        Assumption("kd_scale", 1.0, 0.6, 1.6, "1",
                   f"factor on both joints' derivative gain K_D ({_ROBOT} [control] kd_Nm_s_per_rad, 6 N m s/rad)",
                   "damping ratio ~0.45-1.2 around the stated ~0.75, the usual tuning band"),
        Assumption("imu_noise_scale", 1.0, 0.3, 3.0, "1",
                   f"factor on the gyroscope and accelerometer noise densities ({_TWIN} [imu])",
                   "the stated densities are datasheet typicals; units and mounting vibration give ~0.3-3x",
                   log=True),
        Assumption("current_loop_bandwidth_hz", 1500.0, 500.0, 3000.0, "Hz",
                   f"the drives' current-loop bandwidth ({_TWIN} [drives] current_loop_bandwidth_Hz)",
                   "industrial servo drives close their current loops at ~0.5-3 kHz", log=True),
        Assumption("encoder_counts_per_rev", 65536.0, 4096.0, 1048576.0, "1",
                   f"counts per motor revolution of the drive's resolver-derived encoder ({_ROBOT} [sensors])",
                   "drives configure resolver emulation from 12 to 20 bits per revolution", log=True),
        Assumption("drive_gain_error_scale", 1.0, 0.0, 2.0, "1",
                   f"factor on each drive's true deviation from its nameplate gain ({_TWIN} [drives.axisN] "
                   "torque_constant_true / nominal and current_sense_gain: pi_pds 0.93 / 1.02 as stated)",
                   "torque constants are within ~10 % of nameplate and current sensing within ~3 %: 0 is a "
                   "perfect drive, 2 twice the stated errors"),
    ]
    return {x.name: x for x in a}


#: name -> the twin's stated value and the range a study may vary it over.
ASSUMPTIONS: dict[str, Assumption] = _assumptions()


def varied_twin(factors: Mapping[str, Any]) -> dict[str, Any] | None:
    """The twin and robot of a run with the given assumptions applied, or None when none is given.

    Parameters
    ----------
    factors : mapping
        Any factors of a sweep job; those named in :data:`ASSUMPTIONS` are applied (checked
        against their ranges), the others ignored.

    Returns
    -------
    dict or None
        ``{"twin_params": TwinParams, "robot": FiveBar}`` for
        :func:`paperlib.experiments.mems.sources.obtain_recordings` (``twin=``).

    Raises
    ------
    ValueError
        A value outside its stated range.
    """
    from paperlib.robots.five_bar import FiveBar
    from paperlib.twin import drives as dr

    vals = check_factors(factors, ASSUMPTIONS)
    if not vals:
        return None
    v = {k: vals.get(k, a.baseline) for k, a in ASSUMPTIONS.items()}
    tp0 = dr.load_twin_params()
    doc = copy.deepcopy(tp0.raw)  # only the values given are rewritten: the others stay the file's, bit for bit
    if vals.keys() & {"friction_scale", "stiction_excess_scale", "viscous_exponent"}:
        for j in _ACTUATED:
            t = doc["friction"][j]
            excess = (float(t["static_Nm"]) - float(t["coulomb_Nm"])) * v["stiction_excess_scale"]
            t["coulomb_Nm"] = float(t["coulomb_Nm"]) * v["friction_scale"]
            t["static_Nm"] = t["coulomb_Nm"] + excess * v["friction_scale"]
            t["viscous_Nm_s_per_rad"] = float(t["viscous_Nm_s_per_rad"]) * v["friction_scale"]
            t["viscous_exponent"] = v["viscous_exponent"]
    if "imu_noise_scale" in vals:
        imu = doc["imu"]
        for key in ("gyro_noise_density_mdps_per_sqrt_Hz", "accel_noise_density_ug_per_sqrt_Hz"):
            imu[key] = float(imu[key]) * v["imu_noise_scale"]
    if "current_loop_bandwidth_hz" in vals:
        doc["drives"]["current_loop_bandwidth_Hz"] = v["current_loop_bandwidth_hz"]
    if "drive_gain_error_scale" in vals:
        for name, ax in doc["drives"].items():
            if name.startswith("axis") and isinstance(ax, dict):
                kt_bar = float(ax["torque_constant_nominal_Nm_per_A"])
                ax["torque_constant_true_Nm_per_A"] = kt_bar + (float(ax["torque_constant_true_Nm_per_A"]) - kt_bar) \
                    * v["drive_gain_error_scale"]
                ax["current_sense_gain"] = 1.0 + (float(ax["current_sense_gain"]) - 1.0) * v["drive_gain_error_scale"]
    tp = dr.twin_params_from_doc(doc, tp0.path)
    robot = FiveBar.default()
    desc = copy.deepcopy(robot.description)
    for key, name in (("kp_scale", "kp_Nm_per_rad"), ("kd_scale", "kd_Nm_s_per_rad")):
        if key in vals:
            desc["control"][name] = [float(x) * v[key] for x in desc["control"][name]]
    if "encoder_counts_per_rev" in vals:
        desc["sensors"]["encoder_counts_per_motor_rev"] = v["encoder_counts_per_rev"]
    return {"twin_params": tp, "robot": dataclasses.replace(robot, description=desc)}
