"""The mems room's ``source: hardware`` path against the emulated rig, warm start included.

Root only (network namespaces, as ``tests/layers/hardware/test_hardware_rig.py``): the emulated EtherCAT drive and
IMU board run around one twin in their own namespace; each recording is made by the real
``paperlib run --rig hardware --config RIG.toml`` subprocess that ``sources.hardware_command``
builds, the warm-started run with the previous run's estimate *and covariance* (the estimator
configuration passed whole). Its recordings are simulated data and say so (``source = twin``,
``rig = emulated-hardware``). Link thresholds wide, as in the hardware tests: no assertion on
the host's timing.

Lock-step, as ``tests/layers/hardware/test_hardware_rig.py``: the emulated robot advances one control cycle per
process-data frame and never on its own, and the link thresholds are
:data:`paperlib.hardware.selftest.LOCKSTEP_LINK`, so a host stall makes a run late, never
different. (The real-time emulator let the robot coast on its last torque through a ~7-s stall
of a loaded host and reach a joint limit: that failed the host, not the code.) Root; ~10 s.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from paperlib.provenance import REPO_ROOT

import numpy as np
import pytest


def _unavailable() -> str | None:
    try:
        import pysoem  # noqa: F401  (an external package: its absence may skip; paperlib's may not)
    except ImportError:
        return "pysoem is not installed"
    from paperlib.hardware import netns

    return netns.unavailable_reason()


@pytest.mark.root
def test_obtain_recordings_from_the_emulated_rig_with_a_warm_start(tmp_path: Path) -> None:
    reason = _unavailable()
    if reason:
        pytest.skip(f"emulated rig: {reason}")
    from paperlib.estimation.config import EstimatorConfig
    from paperlib.experiments.mems import sources
    from paperlib.hardware import netns
    from paperlib.hardware.rig import chain_toml
    from paperlib.hardware.selftest import IMU_PORT, LOCKSTEP_LINK, EmulatorProcess

    with netns.NetnsPair() as pair:
        link = LOCKSTEP_LINK
        emu = EmulatorProcess(pair, {"seed": 5, "q0_deg": [120.0, 60.0], "encoder_offset_counts": [0, 0],
                                     "lockstep": True, "pd_watchdog_s": link["pd_watchdog_s"]}, (pair.ip["master"], IMU_PORT), workdir=tmp_path)
        try:
            rig_toml = tmp_path / "rig.toml"
            rig_toml.write_text(f"""
[rig]
name = "emulated"
robot = "five_bar"
emulated = true
[ethercat]
interface = "{pair.ifname['master']}"
netns = "{pair.ns['master']}"
max_lost_frames = {link["max_lost_frames"]}
receive_timeout_s = {link["receive_timeout_s"]}
pd_watchdog_s = {link["pd_watchdog_s"]}
[imu]
udp_port = {IMU_PORT}
bind_address = "{pair.ip['master']}"
source_address = "{pair.ip['slave']}"
max_age_s = {link["max_imu_age_s"]}
wait_s = 3.0
[loop]
rt_priority = 0
""" + chain_toml(REPO_ROOT / "config" / "rigs" / "five_bar.toml"))
            specs = {"first": {"controller": "AC", "duration_s": 1.5, "seed": 31, "model": 3},
                     "warm": {"controller": "AC", "duration_s": 1.0, "seed": 32, "model": 3, "warm_start": "first"}}
            got = sources.obtain_recordings(specs, source="hardware", rig_config=rig_toml)
        finally:
            emu.stop()
    first, warm = got["first"], got["warm"]
    for ds in (first, warm):
        assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "emulated-hardware"
    est = EstimatorConfig.from_recording(warm)
    assert est.closed_from_start  # the warm start reached the hardware run whole ...
    assert np.allclose(est.P0, np.ravel(json.loads(first.attrs["estimator_P"])))  # ... with its covariance
    pds, _ = sources.final_estimate(first, 3)  # the warm-start rule obtain_recordings applies
    np.testing.assert_allclose(est.pi_pds0, pds)
    assert float(warm.attrs["converged_s"]) == 0.0 and math.isfinite(float(warm.attrs["converged_s"]))
