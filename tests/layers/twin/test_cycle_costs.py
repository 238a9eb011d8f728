"""runner.captured_runs replays a run bit for bit; twin.cycle_costs times every phase of a cycle."""

from __future__ import annotations

import copy
import math

import numpy as np

from paperlib.twin import runner
from paperlib.twin.cycle_costs import PHASES, cycle_costs
from paperlib.twin.robots import twin_module


def test_captured_arrays_replay_the_run_bit_for_bit() -> None:
    simulate = twin_module().simulate
    with runner.captured_runs() as runs:
        ds = simulate(controller="AC", duration_s=0.25, seed=3, imu_calibration="none")
    assert len(runs) == 1
    la = copy.deepcopy(runs[0].values)
    status, k_stop = runner.closed_loop(0, la["q_sp"].shape[0], *(la[k] for k in runner.LoopArrays.ORDER))
    assert (status, k_stop) == (0, la["q_sp"].shape[0])
    # the replay logs what the run recorded: angles as the encoder saw them, estimates, true torques
    np.testing.assert_array_equal(la["log_f"][:, 0, :2], ds["q"].values)
    np.testing.assert_array_equal(la["log_pi"], ds["pi_hat"].values)
    np.testing.assert_array_equal(la["log_truth"][:, 3, :2], ds["tau_m_true"].values)
    # outside the block nothing is captured
    simulate(controller="PD", duration_s=0.01, seed=3, imu_calibration="none")
    assert len(runs) == 1


def test_every_phase_of_a_cycle_is_timed() -> None:
    costs = cycle_costs(duration_s=0.05, n_calls=500, repeats=1)
    assert tuple(costs) == PHASES
    assert all(math.isfinite(v) for v in costs.values())
    # CPU times of real work (their size is the host's business; only that they were measured)
    assert all(costs[p] > 0 for p in ("loop", "plant_state", "imu", "control_step", "drives_friction", "rk4_heat"))

