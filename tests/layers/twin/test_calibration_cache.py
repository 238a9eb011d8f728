"""The 5R twin's IMU calibration: made once per process for the same inputs, handed out as a copy."""

from __future__ import annotations

import numpy as np

from paperlib.twin import runner
from paperlib.twin.robots import twin_module


def test_a_calibration_is_run_once_per_process_and_handed_out_as_a_copy() -> None:
    fb = twin_module("five_bar")
    with runner.captured_runs() as runs:
        first = fb.calibration_run(777, duration_s=0.5)
        again = fb.calibration_run(777, duration_s=0.5)
        assert len(runs) == 1  # the second came from the process's calibrations
        np.testing.assert_array_equal(first.rows, again.rows)
        again.rows[:] = 0.0  # a caller changing its copy ...
        np.testing.assert_array_equal(fb.calibration_run(777, duration_s=0.5).rows, first.rows)  # ... changes nothing
        fb.calibration_run(778, duration_s=0.5)  # another seed is another run
        assert len(runs) == 2
