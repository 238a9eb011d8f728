"""The rrr room's friction identification on a MuJoCo recording of the 3-RRR (issue 28: within 2x the own twin's).

The 21-point sampling run (drive PD loops only) simulated by MuJoCo under the twin's drive loop
(:mod:`paperlib.crosscheck.mujoco_three_rrr`) and by the own twin; Kostic NLS on each. Measured with the
calibrated rotor inertia: the largest relative curve errors 36.68 / 30.15 / 48.09 % (MuJoCo) and
36.62 / 30.08 / 48.07 % (own twin); with the light rotors before it, 1.21 / 1.06 / 0.79 % and 1.22 / 1.06 / 0.80 %.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from paperlib.crosscheck.mujoco_three_rrr import recording, simulate  # noqa: E402
from paperlib.experiments.rrr import identification as idf  # noqa: E402
from paperlib.experiments.rrr import sampling  # noqa: E402
from paperlib.experiments.rrr.run import A_MAX_SAMPLING_M_S2  # noqa: E402
from paperlib.robots.three_rrr import ThreeRRR  # noqa: E402
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, to_recording  # noqa: E402
from paperlib.twin.robots.three_rrr import simulate as own_simulate  # noqa: E402


@pytest.mark.slow
def test_kostic_identification_on_mujoco_matches_the_own_twin():
    robot, twin = ThreeRRR.default(), ThreeRRRTwin.default()
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=A_MAX_SAMPLING_M_S2)
    cfg = {"run": "21-point sampling"}
    runs = {"own": to_recording(own_simulate(robot, twin, ref), twin, controller="PD", config=cfg),
            "mujoco": recording(simulate(robot, twin, ref), twin, controller="PD", config=cfg)}
    err = {}
    for name, ds in runs.items():
        data = idf.friction_data(ds, robot)
        s = idf.summary(idf.identify(data, "kostic"), data, twin.truth(), twin.steady_friction)
        err[name] = np.array(s["curve_errors"]["max_rel"])
        assert abs(s["k_f_rel_error"]) < 0.01
    assert np.all(err["own"] > 1e-3)  # a real fit error to compare with
    assert np.all(err["mujoco"] < 2 * err["own"])  # the criterion
    # measured with the torque centred (2026-12-07): MuJoCo 1.05 / 1.41 / 1.32 %, own 1.06 / 1.36 / 1.23 %, at most
    # 0.09 points apart (before the centring 0.07 points of 30-48 %; 1e-4 of 1 % with the light rotors)
    np.testing.assert_allclose(err["mujoco"], err["own"], rtol=0.0, atol=1.5e-3)
