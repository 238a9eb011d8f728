"""What a twin recording carries as its ``truth``: the true values estimates are compared with.

Shared by the closed-loop twin (:mod:`paperlib.twin.robots`), the twin rig
(:mod:`paperlib.twin.rig`) and the emulated hardware (:mod:`paperlib.hardware.emulators.twin_rig`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperlib.twin import drives as dr
from paperlib.twin import thermal as th

#: Names of a LuGre friction row's entries (:mod:`paperlib.friction.lugre`), as the truth lists them.
FRICTION_PARAM_NAMES = ("Fc_Nm", "Fs_Nm", "vs_rad_s", "delta", "Fv_Nm_s_rad", "v_thin_rad_s", "delta_v",
                        "sigma0_Nm_rad", "sigma1_Nm_s_rad", "v_d_rad_s", "T_ref_degC", "alpha_c_per_K", "beta_v_per_K",
                        "ripple_relative", "ripple_cycles_per_rev")


def truth_dict(tp: dr.TwinParams, drv: np.ndarray, robot: Any, therm_x: np.ndarray) -> dict[str, Any]:
    """The true values a twin recording carries (so estimates can be compared with them).

    Parameters
    ----------
    tp : TwinParams
        The twin's parameter set.
    drv : ndarray, shape (n_drives, N_DRIVE_PARAMS)
        Drive rows (:func:`paperlib.twin.drives.drive_array`).
    robot : RobotModel
        The known model (its ``param_names`` and ``params`` are listed).
    therm_x : ndarray, shape (n_gearboxes, N_THERMAL_STATE)
        Thermal state at the run's start.
    """
    return {
        "pi_pds": tp.pi_pds.tolist(),
        "gear_ratio": drv[:, dr.DR_GEAR].tolist(),
        "friction_parameter_names": list(FRICTION_PARAM_NAMES),
        "friction": tp.friction.tolist(),
        "ambient_degC": tp.ambient_degC,
        "gearbox_case_temperature_start_degC": [float(th.case_temperature(x)) for x in therm_x],
        "gearbox_inner_temperature_start_degC": [float(th.friction_temperature(x)) for x in therm_x],
        "twin_parameter_file": tp.path.name,
        "robot_params": dict(zip(robot.param_names, robot.params.tolist())),
    }


def twin_truth(twin: Any) -> dict[str, Any]:
    """True values of the emulated robot (for recordings labelled ``source = "twin"``).

    ``twin`` is a :class:`paperlib.twin.plant.TwinPlant` (its ``tp``, ``dt``, ``robot``, ``therm_x``).
    """
    drv = twin.tp.drive_array(twin.dt)
    truth = truth_dict(twin.tp, drv, twin.robot, twin.therm_x)
    truth["emulated_hardware"] = ("the EtherCAT drive and the IMU board were emulated (paperlib.hardware.emulators."
                                  "twin_rig) around the robot's twin; the data are simulated")
    truth["rated_torque_Nm"] = drv[:, dr.DR_RATED].tolist()
    return truth
