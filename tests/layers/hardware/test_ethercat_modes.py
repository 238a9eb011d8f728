"""Cyclic synchronous position (CSP) and velocity (CSV) next to torque (CST), per axis from the rig file.

Pure tests of the rig tables (``mode`` per drive and per axis, unknown modes refused) and of the
process-data layout each mode maps; then, as root, the real pysoem/SOEM master against emulated
drives in lock step (each frame advances the emulated motors by exactly one 250-us cycle): a CSP
axis tracks a position ramp through the drive's own loop, a CSV axis follows a velocity step, a
CST axis next to them on the same drive still takes its torque, and a rig file that asks a drive
for a mode the drive does not offer is refused at bring-up, naming the axis and the mode.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import pytest

from paperlib.hardware import cia402
from paperlib.hardware.emulators.rig_chain import emulated_chain
from paperlib.hardware.ethercat_config import EthercatConfig, chain_from_tables
from paperlib.hardware.ethercat_drives import drives_of

CYCLE_S = 1.0 / 4000.0
COUNTS_PER_REV = 65536


def _drive(name: str, product: int, **kw: Any) -> dict[str, Any]:
    return {"name": name, "vendor_id": 0x6A, "product_code": product, "role": "drive", **kw}


#: A dual-axis drive whose axis A runs in CSP and axis B in CSV, and a single-axis drive in CST.
MIXED = [_drive("P", 0x5300, axes=[{"offset": 0x000, "mode": "csp"}, {"offset": 0x800, "mode": "csv"}]),
         _drive("T", 0x5301, n_axes=1)]


def test_modes_per_drive_and_per_axis():
    axes = chain_from_tables(MIXED)["axes"]
    assert [(a.name, a.mode) for a in axes] == [("P/A", "csp"), ("P/B", "csv"), ("T/A", "cst")]
    # a drive's mode applies to its axes; an axis' own mode overrides it
    axes = chain_from_tables([_drive("X", 1, mode="csv", axes=[{"offset": 0}, {"offset": 0x800, "mode": "csp"}])])["axes"]
    assert [a.mode for a in axes] == ["csv", "csp"]
    assert [a.mode for a in chain_from_tables([_drive("X", 1, n_axes=3, mode="csp")])["axes"]] == ["csp"] * 3


@pytest.mark.parametrize("table, match", [
    (_drive("X", 1, n_axes=1, mode="pp"), r"mode 'pp' is not one of 'cst', 'csp', 'csv'"),
    (_drive("X", 1, axes=[{"offset": 0, "mode": "CSP"}]), r"mode 'CSP' is not one of"),
    ({"name": "EL", "vendor_id": 2, "product_code": 3, "role": "", "mode": "csp"}, "belong to a drive's table"),
])
def test_unknown_modes_are_refused(table, match):
    with pytest.raises(ValueError, match=match):
        chain_from_tables([table, *MIXED[1:]])


def test_each_mode_maps_its_target_object():
    fields = chain_from_tables(MIXED)
    p, t = drives_of(fields["axes"])
    assert p.modes == ("csp", "csv") and t.modes == ("cst",)
    # RxPDO per axis: controlword + target position 0x607A (32 bits) / target velocity 0x60FF + 0x800 (32 bits)
    assert p.rx_pdos() == [(0x1600, (0x60400010, 0x607A0020)), (0x1601, (0x68400010, 0x68FF0020))]
    assert t.rx_pdos() == [(0x1600, (0x60400010, 0x60710010))]
    # TxPDO the same in every mode: statusword, position, velocity, torque actual
    assert p.tx_pdos()[0][1] == t.tx_pdos()[0][1] == (0x60410010, 0x60640020, 0x606C0020, 0x60770010)
    assert (p.rx.size, p.tx.size, t.rx.size, t.tx.size) == (12, 24, 4, 12)
    # the packed outputs hold each axis' controlword and target in the mode's width
    assert struct.unpack("<HiHi", p.pack([0x0F, 0x07, 0x0F], [-70000, 123456, 5])) == (0x0F, -70000, 0x07, 123456)


def test_the_emulated_drive_offers_the_modes_its_axes_run_in():
    from paperlib.hardware.emulators.devices import build_chain

    fields = chain_from_tables(MIXED)
    spec = emulated_chain(fields["chain"], fields["axes"])
    assert spec[0]["modes"] == ["cst", "csp", "csv"] and "modes" not in spec[1]
    chain, _, _ = build_chain({"chain": spec})
    p, t = chain.slaves
    sup = cia402.SUPPORTED_DRIVE_MODES
    assert p.od.value(sup) == (1 << 7) | (1 << 8) | (1 << 9) and t.od.value(sup) == 1 << 9
    assert p.od.get(cia402.TARGET_POSITION, 0) is not None and t.od.get(cia402.TARGET_POSITION, 0) is None
    assert p.od.get(cia402.TARGET_VELOCITY + 0x800, 0) is not None and t.od.get(cia402.TARGET_VELOCITY, 0) is None


def test_the_drive_loop_tracks_a_ramp_on_its_own_motor():
    """The emulated drive's CSP loop (no master): the motor follows a ramp, the torque is the one applied."""
    from paperlib.hardware.emulators.devices import AxisLoop, InertiaPlant

    plant, loop = InertiaPlant(inertia=(5e-4,), viscous=(2e-3,), coulomb=(0.0,), q0=(0.0,)), AxisLoop()
    slope = 2.0  # [rad/s]
    q, qd, _ = plant.step(np.zeros(1), 0.0)
    n = 4000
    errs, taus = np.zeros(n), np.zeros(n)
    for k in range(n):
        target = slope * k * CYCLE_S
        tau = loop.torque(cia402.MODE_CSP, target, float(q[0]), float(qd[0]), CYCLE_S, 4.8)
        q, qd, applied = plant.step(np.array([tau]), CYCLE_S)
        errs[k], taus[k] = target + slope * CYCLE_S - q[0], applied[0]
    # after the start-up the ramp is followed: lag below 1 mrad, the steady torque = viscous x slope
    assert np.max(np.abs(errs[n // 2:])) < 1e-3
    np.testing.assert_allclose(np.mean(taus[n // 2:]), 2e-3 * slope, rtol=0.05)


# --------------------------------------------------------------------------------------------
# network tests: the real master against the emulated drives, in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")

from paperlib.hardware import netns  # noqa: E402
from emulator_process import Emulator  # noqa: E402  (this folder's helper module)
from paperlib.hardware.ethercat import BringUpError, EthercatMaster  # noqa: E402


def _lockstep(spec: list[dict[str, Any]], **extra: Any) -> list[dict[str, Any]]:
    return [({**s, "fixed_dt": CYCLE_S, "idle_step_s": math.inf, **extra} if s["type"] == "cst_drive" else s)
            for s in spec]


def _config(tables: list[dict[str, Any]], gear: tuple[float, ...]) -> EthercatConfig:
    return EthercatConfig(**chain_from_tables(tables), gear_ratio=gear, cycle_time_s=CYCLE_S, receive_timeout_s=0.5,
                          max_consecutive_errors=400, pd_watchdog_s=2.0, state_timeout_s=10.0, cia402_timeout_s=5.0)


@pytest.mark.root
def test_csp_tracks_a_ramp_csv_a_step_and_cst_a_torque(netns_available):
    gear = (3.0, 2.0, 1.0)
    cfg = _config(MIXED, gear)
    n = 4000  # 1 s at 4 kHz
    slope = 0.5  # joint-side ramp of the CSP axis [rad/s]
    v_step = 1.5  # joint-side velocity step of the CSV axis at 0.25 s [rad/s]
    tau_t = 0.01  # torque of the CST axis [N m]
    q = np.zeros((n, 3))
    qd = np.zeros((n, 3))
    tq = np.zeros((n, 3))
    cmd = np.zeros((n, 3))
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": _lockstep(emulated_chain(cfg.chain, cfg.axes))})
        m = EthercatMaster(cfg)
        try:
            m.open(pair.ifname["master"], netns=pair.ns["master"])
            assert m.operational and m.enabled
            q0 = m.position.copy()
            rated = float(m.rated_torque_Nm[2])
            bad = 0
            for k in range(n):
                t = k * CYCLE_S
                cmd[k] = (q0[0] + slope * t, v_step if t >= 0.25 else 0.0, tau_t)
                pos, vel, tau, _, ok = m.exchange(cmd[k])
                bad += not ok
                q[k], qd[k], tq[k] = pos, vel, tau
        finally:
            m.close()
            report = emu.stop()
    assert bad == 0
    print(f"\nCSP lag max {np.max(np.abs(cmd[n // 2:-1, 0] - q[n // 2 + 1:, 0])) * 1e3:.3f} mrad, torque "
          f"{np.mean(tq[n // 2:, 0]) * 1e3:.3f} mN m; CSV error after 0.1 s "
          f"{np.max(np.abs(qd[int(0.35 / CYCLE_S):, 1] - v_step)):.2e} rad/s; CST end speed {qd[-1, 2]:.4f} rad/s")
    # CSP: after the start-up the joint follows the ramp (what the master reads back, one cycle late)
    lag = cmd[n // 2:-1, 0] - q[n // 2 + 1:, 0]
    assert np.max(np.abs(lag)) < 2e-3 / gear[0] + 4 * 2 * math.pi / COUNTS_PER_REV, np.max(np.abs(lag))
    assert q[-1, 0] - q0[0] == pytest.approx(slope * (n - 1) * CYCLE_S, abs=2e-3)
    # ... and the drive reports the torque its loop applies: the default motor's viscous torque at the ramp's speed
    motor_speed = slope * gear[0]
    np.testing.assert_allclose(np.mean(tq[n // 2:, 0]), 2e-3 * motor_speed, rtol=0.1)
    # CSV: at rest before the step, at the new velocity within 0.1 s after it
    assert np.max(np.abs(qd[100:999, 1])) < 1e-3
    settled = qd[int(0.35 / CYCLE_S):, 1]
    np.testing.assert_allclose(settled, v_step, atol=0.01 * v_step)
    # CST on the other drive: the default motor under a constant torque: J w' = tau - b w, with the torque
    # the drive received (per mille of its rated torque)
    motor = report["drives"][1]
    assert motor["axis_states"] == ["switch on disabled"]
    w_end = qd[-1, 2] * gear[2]
    tau_sent = round(tau_t / rated * 1000.0) * 1e-3 * rated
    w_model = tau_sent / 2e-3 * (1.0 - math.exp(-2e-3 / 5e-4 * (n - 1) * CYCLE_S))
    assert w_end == pytest.approx(w_model, rel=0.02)


@pytest.mark.root
def test_a_mode_the_drive_lacks_is_refused_naming_it(netns_available):
    """The rig file asks for CSP; the drive (CST only, as the flagship's) refuses: bring-up names axis and mode."""
    tables = [_drive("P", 0x5300, n_axes=1, mode="csp")]
    cfg = _config(tables, (1.0,))
    cst_only = [{**s, "modes": ["cst"]} for s in emulated_chain(cfg.chain, cfg.axes)]
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": _lockstep(cst_only)})
        m = EthercatMaster(cfg)
        try:
            with pytest.raises(BringUpError, match=r"axis P/A .*asks for mode 'csp' \(cyclic synchronous position\), "
                                                   r"which the drive does not offer .*0x00000200: cst\)"):
                m.open(pair.ifname["master"], netns=pair.ns["master"])
            assert not m.operational
        finally:
            m.close()
            emu.stop()
