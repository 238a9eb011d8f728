"""A master configured by the rig file: any chain of CiA 402 drives, any number of axes each.

Pure tests of the rig tables (axes per drive, offsets, errors), of the axis count against the
robot's drives and of the emulated chain a rig file describes; then, as root, the real
pysoem/SOEM master against emulated chains of four single-axis drives and of two dual-axis
drives in lock step (each process-data frame advances the emulated motors by exactly one
250-us cycle, so nothing here depends on the host's timing): bring-up to OP, every axis enabled,
and a position loop closed through every axis at the 4-kHz cycle, each axis to its own target;
and the flagship's run against the chain its rig file spells out, bit for bit the run against the
emulator's former built-in chain.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperlib.hardware.emulators.devices import build_chain
from paperlib.hardware.emulators.rig_chain import emulated_chain
from paperlib.hardware.ethercat_config import DriveAxis, EthercatConfig, chain_from_tables
from paperlib.provenance import REPO_ROOT

RIG_FILE = REPO_ROOT / "config" / "rigs" / "five_bar.toml"
CYCLE_S = 1.0 / 4000.0


def _drive(name: str, product: int, **axes: Any) -> dict[str, Any]:
    return {"name": name, "vendor_id": 0x6A, "product_code": product, "role": "drive", **axes}


#: Four single-axis drives behind a coupler whose DIs are read, the velocity unit of each its own.
FOUR_SINGLE = [{"name": "EK1828", "vendor_id": 2, "product_code": 0x07242C52, "role": "digital_inputs"}] + [
    _drive(f"S{k}", 0x5100 + k, n_axes=1, velocity_unit_counts_s=(0.1 if k % 2 else 1.0)) for k in range(4)]
#: Two dual-axis drives: one lists its axes, the other gives a count and the ETG.6010 step.
TWO_DUAL = [_drive("D0", 0x5200, axes=[{"offset": 0x000}, {"offset": 0x800, "name": "D0-second"}],
                   velocity_unit_counts_s=0.1),
            _drive("D1", 0x5201, n_axes=2, axis_object_offset=0x800)]


def test_axes_of_each_drive_in_wiring_order():
    got = chain_from_tables(FOUR_SINGLE)
    assert got["coupler_index"] == 0
    assert [(a.slave, a.offset, a.name) for a in got["axes"]] == [(k + 1, 0, f"S{k}/A") for k in range(4)]
    assert [a.velocity_unit_counts_s for a in got["axes"]] == [1.0, 0.1, 1.0, 0.1]
    got = chain_from_tables(TWO_DUAL)
    assert got["coupler_index"] is None
    assert [(a.slave, a.offset, a.name) for a in got["axes"]] == [
        (0, 0, "D0/A"), (0, 0x800, "D0-second"), (1, 0, "D1/A"), (1, 0x800, "D1/B")]
    # a drive may list its axes in any order of offsets: the list order is the robot's drive order
    swapped = chain_from_tables([_drive("X", 1, axes=[{"offset": 0x800}, {"offset": 0}])])["axes"]
    assert [a.offset for a in swapped] == [0x800, 0]


@pytest.mark.parametrize("axes, match", [
    ({"axes": [{"offset": 0}], "n_axes": 1}, "not both"),
    ({"axes": []}, "non-empty list"),
    ({"axes": [{"offset": 0}, {"offset": 0}]}, "distinct multiples of 0x800"),
    ({"axes": [{"offset": 0x400}]}, "distinct multiples of 0x800"),
    ({"axes": [{"index": 0}]}, "needs offset"),
    ({"n_axes": 0}, "n_axes must be >= 1"),
    ({"n_axes": 5}, "at most 4"),
    ({"n_axes": 1, "velocity_unit_counts_s": 0.0}, "velocity_unit_counts_s must be > 0"),
])
def test_bad_axis_lists_are_refused(axes, match):
    with pytest.raises(ValueError, match=match):
        chain_from_tables([_drive("X", 1, **axes)])


def test_config_needs_one_gear_ratio_per_axis_and_axes_on_drives():
    fields = chain_from_tables(FOUR_SINGLE)
    assert EthercatConfig(**fields).gear_ratio == (1.0,) * 4
    with pytest.raises(ValueError, match="2 gear ratio.*4 axes"):
        EthercatConfig(**fields, gear_ratio=(1.0, 2.0))
    with pytest.raises(ValueError, match="not a slave with role 'drive'"):
        EthercatConfig(chain=fields["chain"], axes=(DriveAxis(0),))  # position 0 is the coupler
    with pytest.raises(ValueError, match="no CiA 402 axis"):
        EthercatConfig(chain=fields["chain"])


def _rig_file(tmp_path: Path, tables: list[dict[str, Any]]) -> Path:
    from paperlib.hardware.rig_settings import _toml_value

    text = '[rig]\nrobot = "five_bar"\n[ethercat]\ninterface = "eth9"\n[imu]\nudp_port = 5005\n'
    for t in tables:
        text += "\n[[ethercat.slave]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in t.items())
    path = tmp_path / "rig.toml"
    path.write_text(text)
    return path


def test_rig_refuses_an_axis_count_other_than_the_robots_drives(tmp_path):
    from paperlib.hardware.rig import HardwareRig, load_rig_settings

    settings = load_rig_settings(_rig_file(tmp_path, FOUR_SINGLE))
    assert len(settings.axes) == 4
    with pytest.raises(ValueError, match=r"4 CiA 402 axis/axes \(S0/A, S1/A, S2/A, S3/A\).*'five_bar' has 2 drive"):
        HardwareRig(settings)
    # the same robot on two single-axis drives is a valid rig: one axis per drive
    rig = HardwareRig(load_rig_settings(_rig_file(tmp_path, FOUR_SINGLE[:3])))
    assert [a.name for a in rig.ethercat_config().axes] == ["S0/A", "S1/A"]


def test_the_emulated_chain_is_the_rig_files():
    fields = chain_from_tables(TWO_DUAL)
    chain, _, first = build_chain({"chain": emulated_chain(fields["chain"], fields["axes"])})
    assert [s.name for s in chain.slaves] == ["D0", "D1"] and first is chain.slaves[0]
    assert [s.axis_offsets for s in chain.slaves] == [[0, 0x800], [0, 0x800]]
    assert [s.vel_unit for s in chain.slaves] == [0.1, 1.0]
    assert [s.od.value(0x1018, 2) for s in chain.slaves] == [0x5200, 0x5201]
    fields = chain_from_tables(FOUR_SINGLE)
    chain, _, _ = build_chain({"chain": emulated_chain(fields["chain"], fields["axes"])})
    assert [len(s.axes) for s in chain.slaves[1:]] == [1] * 4 and chain.slaves[0].name == "EK1828"
    with pytest.raises(ValueError, match="no role"):
        emulated_chain(chain_from_tables([{"name": "x", "vendor_id": 1, "product_code": 1}, TWO_DUAL[1]])["chain"],
                       fields["axes"])


def test_the_flagships_rig_file_describes_the_emulators_default_chain():
    """The chain the flagship's rig file spells out builds the emulated devices its runs always had."""
    from paperlib.hardware.emulators.devices import DEFAULT_CONFIG

    with RIG_FILE.open("rb") as fh:
        fields = chain_from_tables(tomllib.load(fh)["ethercat"]["slave"])
    from_rig, _, _ = build_chain({"chain": emulated_chain(fields["chain"], fields["axes"])})
    default, _, _ = build_chain(DEFAULT_CONFIG)
    assert len(from_rig.slaves) == len(default.slaves)
    for a, b in zip(from_rig.slaves, default.slaves):
        assert type(a) is type(b) and a.name == b.name and bytes(a.sii) == bytes(b.sii)
        assert getattr(a, "axis_offsets", None) == getattr(b, "axis_offsets", None)
        assert getattr(a, "vel_unit", None) == getattr(b, "vel_unit", None)
        if hasattr(a, "od"):
            assert {k: e.value for k, e in a.od._entries.items()} == {k: e.value for k, e in b.od._entries.items()}


# --------------------------------------------------------------------------------------------
# network tests: the real master against the emulated chains, in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")

from paperlib.hardware import netns  # noqa: E402
from emulator_process import Emulator  # noqa: E402  (this folder's helper module)
from paperlib.hardware.ethercat import EthercatMaster  # noqa: E402


def _lockstep(spec: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each drive advances its motors one control cycle per frame and never between frames."""
    return [({**s, "fixed_dt": CYCLE_S, "idle_step_s": math.inf} if s["type"] == "cst_drive" else s) for s in spec]


def _close_the_loop(tables: list[dict[str, Any]], gear: tuple[float, ...], cycles: int = 3000) -> None:
    """Bring the chain up, hold each axis at its own joint target with PD control; check against the plants."""
    fields = chain_from_tables(tables)
    n = len(fields["axes"])
    cfg = EthercatConfig(**fields, gear_ratio=gear, cycle_time_s=CYCLE_S, receive_timeout_s=0.5,
                         max_consecutive_errors=400, pd_watchdog_s=2.0, state_timeout_s=10.0, cia402_timeout_s=5.0)
    inertia, viscous = 5e-4, 2e-3  # the emulated motors (InertiaPlant's defaults) [kg m^2], [N m s/rad]
    omega, zeta = 40.0, 1.0  # closed-loop natural frequency [rad/s] and damping on the motor side
    kp, kd = inertia * omega**2, 2.0 * zeta * omega * inertia - viscous  # [N m/rad], [N m s/rad]
    target = 0.1 * np.arange(1, n + 1) * np.where(np.arange(n) % 2, -1.0, 1.0)  # joint targets [rad], all distinct
    g = np.asarray(gear)
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": _lockstep(emulated_chain(fields["chain"], fields["axes"]))})
        m = EthercatMaster(cfg)
        try:
            m.open(pair.ifname["master"], netns=pair.ns["master"])
            assert m.operational and m.enabled and m.n_axes == n
            assert [d["name"] for d in m.found] == [t["name"] for t in tables]
            n_drives = len({a.slave for a in fields["axes"]})
            assert m.expected_wkc == 3 * n_drives + (3 if fields["coupler_index"] is not None else 0)
            tau = np.zeros(n)
            bad = 0
            for _ in range(cycles):
                q, qd, _, _, ok = m.exchange(tau)
                bad += not ok
                tau = g * (kp * (target - q) - kd * qd)  # motor torque from the motor-side error
            final = m.position.copy()
            # torques go out in per mille of the rated torque: the loop rests where |kp * error| rounds to 0
            deadband = (0.5e-3 * m.rated_torque_Nm / kp + 2.0 * 2.0 * math.pi / cfg.counts_per_rev) / g  # [rad]
        finally:
            m.close()
            report = emu.stop()
    assert "drives" in report, f"no STATS from the emulator: {report}"
    assert bad < cycles // 100, f"{bad} bad cycles of {cycles}"
    # every axis reached its own target, as the master sees it (joint side) ...
    assert np.all(np.abs(final - target) <= deadband), (final, target, deadband)
    # ... and as the emulated motors are (motor side: the master applied each axis' own gear ratio)
    motors = np.concatenate([d["q_rad"] for d in report["drives"]])
    np.testing.assert_allclose(motors / g, final, rtol=0.0, atol=2.0 * math.pi / cfg.counts_per_rev)
    assert all(s == "switch on disabled" for d in report["drives"] for s in d["axis_states"])


@pytest.mark.root
def test_four_single_axis_drives_close_the_loop(netns_available):
    _close_the_loop(FOUR_SINGLE, gear=(1.0, 2.0, 3.0, 4.0))


@pytest.mark.root
def test_two_dual_axis_drives_close_the_loop(netns_available):
    _close_the_loop(TWO_DUAL, gear=(2.0, 1.0, 4.0, 3.0))


def _flagship_run(emulator_chain: list[dict[str, Any]], cycles: int = 2000) -> dict[str, np.ndarray]:
    """The flagship's chain (its rig file's) through the master in lock step: a PD-tracked sine per joint.

    Returns the per-cycle measured positions, velocities and torques and the commanded torques
    (the digital inputs are left out: the coupler samples the drive's position between frames).
    """
    with RIG_FILE.open("rb") as fh:
        fields = chain_from_tables(tomllib.load(fh)["ethercat"]["slave"])
    gear = (10.0, 10.0)
    cfg = EthercatConfig(**fields, gear_ratio=gear, cycle_time_s=CYCLE_S, receive_timeout_s=0.5,
                         max_consecutive_errors=400, pd_watchdog_s=2.0, state_timeout_s=10.0, cia402_timeout_s=5.0)
    t = np.arange(cycles) * CYCLE_S
    q_sp = np.stack([0.3 * np.sin(2 * np.pi * t), 0.2 * np.sin(2 * np.pi * 1.7 * t + 0.5)], axis=1)  # [rad]
    kp, kd = 0.8, 0.038  # motor side [N m/rad], [N m s/rad]
    out = {k: np.zeros((cycles, 2)) for k in ("q", "qd", "tau", "tau_cmd")}
    spec = [({**s, "fixed_dt": CYCLE_S, "idle_step_s": math.inf, "encoder_offset_counts": [123456, -98765]}
             if s["type"] in ("cst_drive", "dual_cst_drive") else s) for s in emulator_chain]
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": spec})
        m = EthercatMaster(cfg)
        try:
            m.open(pair.ifname["master"], netns=pair.ns["master"])
            tau = np.zeros(2)
            q0 = None
            for k in range(cycles):
                q, qd, tq, _, ok = m.exchange(tau)
                assert ok, f"bad cycle {k}"
                q0 = q.copy() if q0 is None else q0
                tau = np.asarray(gear) * (kp * (q_sp[k] - (q - q0)) - kd * qd)
                out["q"][k], out["qd"][k], out["tau"][k], out["tau_cmd"][k] = q, qd, tq, tau
        finally:
            m.close()
            emu.stop()
    return out


@pytest.mark.root
def test_the_flagships_spelled_out_chain_runs_bit_for_bit_as_before(netns_available):
    """Against the chain its rig file spells out, the flagship's run is the run against the former built-in chain."""
    from paperlib.hardware.emulators.devices import DEFAULT_CONFIG

    with RIG_FILE.open("rb") as fh:
        fields = chain_from_tables(tomllib.load(fh)["ethercat"]["slave"])
    from_rig = _flagship_run(emulated_chain(fields["chain"], fields["axes"]))
    former = _flagship_run(DEFAULT_CONFIG["chain"])
    assert np.ptp(from_rig["q"], axis=0).min() > 0.1  # the joints moved
    for key in from_rig:
        assert np.array_equal(from_rig[key], former[key]), key
