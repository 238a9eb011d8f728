"""Analog input terminals: the rig tables, the emulated bridge and RTD (physics and numbers), the master's decoding.

Pure tests first: a bridge's counts -> N m round trip through the terminal's scaling and the
master's decoding, the tare, the ADC limit, the noise and drift, the 50-Hz FIR, a broken wire; an RTD's
first-order lag against its exact solution, its range and wiring faults; and the master raising
:class:`TerminalFault` on the very cycle a reply carries a terminal's error bit (a stand-in for
SOEM feeds it replies). Then, as root, the real pysoem/SOEM master against an emulated drive, bridge
and RTD in lock step: the settings written by SDO at PRE-OP, the tare, the values, an open RTD.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np
import pytest

from paperlib.hardware.analog_terminals import (
    CW_TARA,
    ST_ERROR,
    ST_OVERRANGE,
    ST_UNDERRANGE,
    TerminalBank,
    TerminalFault,
    status_fault,
)
from paperlib.hardware.emulators.bridge_terminal import BridgeTerminal
from paperlib.hardware.emulators.rtd_terminal import RtdTerminal
from paperlib.hardware.ethercat_config import EthercatConfig, chain_from_tables

DRIVE = {"name": "D", "vendor_id": 0x6A, "product_code": 0x5300, "role": "drive", "n_axes": 1}


def _bridge_table(**channel: Any) -> dict[str, Any]:
    ch = {"signal": "tau_s", "rated_output_mV_V": 2.0, "rated_load": 20.0, **channel}
    return {"name": "EL3356 joint torque", "vendor_id": 2, "product_code": 0x0D1C3052, "role": "bridge", "channels": [ch]}


RTD = {"name": "EL3202", "vendor_id": 2, "product_code": 0x0C823052, "role": "rtd",
       "channels": [{"signal": "temperature", "wires": 4}, {"signal": "temperature", "joint": 2, "channel": 2}]}


def _sample(term: Any, n: int = 1) -> None:
    """``n`` samples, as ``n`` process-data frames would trigger them."""
    for _ in range(n):
        term.samples += 1
        term.sample(0.0)


def _configured_bridge(rated_load: float = 20.0, nominal_load: float = 20.0, **kw: Any) -> BridgeTerminal:
    """A bridge whose sensor is ``rated_load`` at 2 mV/V, with the master's nominal settings written."""
    t = BridgeTerminal(sensitivity_mV_V=2.0, rated_load=rated_load, **kw)
    for sub, v in ((0x23, 2.0), (0x24, nominal_load), (0x25, 0.0), (0x27, 1000.0), (0x01, 0)):
        t.od.set(0x8000, sub, v)
    return t


# --------------------------------------------------------------------------------------------
# rig tables
# --------------------------------------------------------------------------------------------

def test_terminal_tables_map_channels_to_recording_channels():
    got = chain_from_tables([DRIVE, _bridge_table(tare=True, filter="FIR 50 Hz"), RTD])
    chans = got["terminals"]
    assert [(c.slave, c.role, c.channel, c.signal, c.joint, c.unit) for c in chans] == [
        (1, "bridge", 0, "tau_s", 0, "N m"), (2, "rtd", 0, "temperature", 0, "degC"),
        (2, "rtd", 1, "temperature", 1, "degC")]
    assert chans[0].tare and chans[0].filter == "FIR 50 Hz" and chans[1].wires == 4
    src = TerminalBank(chans).sources()
    assert src["tau_s"]["1"]["terminal"] == "EL3356 joint torque" and src["tau_s"]["1"]["class"] == "EL3356"
    assert src["temperature"]["2"]["channel"] == 2 and src["temperature"]["2"]["unit"] == "degC"
    assert EthercatConfig(**got).terminals == chans


@pytest.mark.parametrize("table, match", [
    (_bridge_table(signal="temperature"), "not one of"),
    (_bridge_table(unit="N"), "recorded in 'N m'"),
    (_bridge_table(rated_output_mV_V=0.0), "must be > 0"),
    (_bridge_table(filter="IIR 12"), "filter 'IIR 12'"),
    (_bridge_table(gain=3), "unknown key"),
    ({**RTD, "channels": [{"signal": "temperature", "wires": 5}]}, "wires must be 2, 3 or 4"),
    ({**RTD, "channels": [{"signal": "temperature", "element": "PT1000"}]}, "only PT100"),
    ({**RTD, "channels": []}, "needs channels"),
    ({**DRIVE, "channels": [{"signal": "tau_s"}]}, "channels belong to an analog terminal"),
])
def test_bad_terminal_tables_are_refused(table, match):
    tables = [table] if table.get("role") == "drive" else [DRIVE, table]
    with pytest.raises(ValueError, match=match):
        chain_from_tables(tables)


def test_one_recording_channel_has_one_source():
    with pytest.raises(ValueError, match="tau_s of joint 1 comes from both"):
        chain_from_tables([DRIVE, _bridge_table(), {**_bridge_table(), "name": "second"}])


# --------------------------------------------------------------------------------------------
# the emulated bridge and the master's decoding
# --------------------------------------------------------------------------------------------

def _decode(term: BridgeTerminal, bank: TerminalBank) -> float:
    """The master's value [N m] of the terminal's current inputs (their process-data bytes)."""
    class _Slave:
        input = struct.pack("<Hi", *term.inputs())
        output = b"\0\0"

    bank.attach([None, _Slave()])
    assert bank.unpack() is None
    return float(bank.values[0])


@pytest.mark.parametrize("load", [-17.3, -0.001, 0.0, 0.4567, 12.345])
def test_bridge_scaling_round_trip_counts_to_newton_metres(load):
    """load -> mV/V (the sensor) -> counts (the terminal's scaling) -> N m (the master): the load, to one count."""
    bank = TerminalBank(chain_from_tables([DRIVE, _bridge_table()])["terminals"])
    t = _configured_bridge()
    t.source = lambda: load
    _sample(t)
    assert t.last_mV_V == pytest.approx(load * 2.0 / 20.0, abs=1e-12)
    assert _decode(t, bank) == pytest.approx(load, abs=0.5e-3)  # 1 count = 1 mN m at the scale factor 1000


def test_bridge_nominal_values_that_differ_from_the_sensor_scale_the_reading():
    """A rig file that says 10 N m at 2 mV/V for a 20-N m sensor reads half the load: the terminal's formula."""
    t = _configured_bridge(rated_load=20.0, nominal_load=10.0)
    t.source = lambda: 8.0
    _sample(t)
    assert t.value == 4000


def test_bridge_tare_zeroes_the_reading_on_the_rising_edge():
    t = _configured_bridge()
    load = [3.21]
    t.source = lambda: load[0]
    _sample(t, 5)
    assert t.value == 3210
    t.control = CW_TARA
    _sample(t, 3)  # one tare at the edge, not one per cycle while the bit is held
    t.control = 0
    _sample(t)
    assert t.value == 0 and t.counts["tares"] == 1
    load[0] = 3.21 + 0.5
    _sample(t)
    assert t.value == 500  # what changed since the tare


def test_bridge_saturates_at_the_adc_limit_without_an_error():
    t = _configured_bridge(adc_limit_mV_V=4.0)
    t.source = lambda: 50.0  # 5 mV/V > 4 mV/V
    _sample(t)
    assert t.status & ST_OVERRANGE and not t.status & ST_ERROR
    assert t.value == 40000  # 4 mV/V / 2 mV/V * 20 N m * 1000
    assert status_fault("bridge", t.status) is None  # a saturated reading, not an invalid one
    t.source = lambda: -50.0
    _sample(t)
    assert t.status & ST_UNDERRANGE and t.value == -40000


def test_bridge_noise_and_drift_in_newton_metres():
    fs = 1000.0
    t = _configured_bridge(noise_mV_V=0.002, drift_mV_V_per_s=0.001, sample_period_s=1.0 / fs, seed=3)
    values = []
    for _ in range(20000):
        _sample(t)
        values.append(t.value / 1000.0)
    v = np.asarray(values)
    time = np.arange(1, v.size + 1) / fs
    slope, offset = np.polyfit(time, v, 1)
    resid = v - (slope * time + offset)
    # 0.001 mV/V/s at 10 N m per mV/V = 0.01 N m/s; noise 0.002 mV/V = 0.02 N m (plus the 1-mN m quantization)
    assert slope == pytest.approx(0.01, rel=0.02)
    assert np.std(resid) == pytest.approx(math.hypot(0.02, 1e-3 / math.sqrt(12.0)), rel=0.03)


def test_bridge_fir_50_hz_removes_mains_pickup_and_keeps_the_load():
    fs = 1000.0
    t = _configured_bridge(sample_period_s=1.0 / fs)
    t.od.set(0x8000, 0x01, 1)
    t.od.set(0x8000, 0x11, 0)  # FIR 50 Hz
    k = [0]
    t.source = lambda: 2.0 + 1.0 * math.sin(2 * math.pi * 50.0 * k[0] / fs + 0.3)
    out = []
    for _ in range(200):
        k[0] += 1
        _sample(t)
        out.append(t.value / 1000.0)
    assert t.filter_name() == "FIR 50 Hz"
    assert np.max(np.abs(np.asarray(out[40:]) - 2.0)) <= 1e-3  # one mains period averaged: the 50 Hz is gone


def test_bridge_broken_wire_sets_the_error_status():
    t = _configured_bridge(broken_wire_after_samples=10)
    t.source = lambda: 1.0
    _sample(t, 9)
    assert status_fault("bridge", t.status) is None and t.value == 1000
    _sample(t)
    assert t.status & ST_ERROR and t.status & ST_OVERRANGE and t.broken_at == 10
    assert "broken bridge wire" in status_fault("bridge", t.status)


# --------------------------------------------------------------------------------------------
# the emulated RTD
# --------------------------------------------------------------------------------------------

def test_rtd_step_response_is_the_first_order_solution():
    dt, tau = 0.01, 2.0
    temp = [20.0]
    t = RtdTerminal([lambda: temp[0], lambda: 25.0], time_constant_s=tau, sample_period_s=dt)
    assert t.temperature[0] == 20.0  # at rest at its first input
    temp[0] = 80.0
    for k in range(1, 1001):
        _sample(t)
        exact = 80.0 + (20.0 - 80.0) * math.exp(-k * dt / tau)
        assert t.temperature[0] == pytest.approx(exact, abs=1e-9)
        assert t.value[0] == round(exact / 0.1)  # 0.1 degC per count
    assert t.value[1] == 250 and t.status[0] & ST_ERROR == 0


def test_rtd_range_and_wiring_faults():
    t = RtdTerminal([lambda: 900.0, lambda: 25.0], time_constant_s=0.01, sample_period_s=0.01,
                    initial_degC=[840.0, 25.0], faults=[{"channel": 2, "kind": "open", "after_samples": 5}])
    _sample(t)
    assert t.temperature[0] > 850.0 and t.status[0] & ST_OVERRANGE and t.status[0] & ST_ERROR
    assert t.value[0] == 8500 and status_fault("rtd", t.status[0]).startswith("error bit set: overrange")
    _sample(t, 3)
    assert t.status[1] & ST_ERROR == 0 and t.value[1] == 250
    _sample(t)
    assert t.status[1] & ST_ERROR and t.value[1] == 0x7FFF and "open circuit" in status_fault("rtd", t.status[1])
    short = RtdTerminal([lambda: 25.0], faults=[{"channel": 1, "kind": "short", "after_samples": 1}])
    _sample(short)
    assert short.status[0] & ST_UNDERRANGE and "short circuit" in status_fault("rtd", short.status[0])


# --------------------------------------------------------------------------------------------
# the master stops on the cycle a reply carries the error bit
# --------------------------------------------------------------------------------------------

class _FakeSoem:
    """What :meth:`EthercatMaster.receive` uses of pysoem's master: a reply with the expected working counter."""

    def __init__(self, wkc: int) -> None:
        self.wkc = wkc

    def send_processdata(self) -> None:
        pass

    def receive_processdata(self, timeout_us: int) -> int:
        return self.wkc


class _FakeSlave:
    def __init__(self, n_in: int, n_out: int) -> None:
        self.input = bytes(n_in)
        self.output = bytes(n_out)


def test_the_master_raises_on_the_first_reply_with_the_error_bit():
    from paperlib.hardware.ethercat import EthercatMaster

    fields = chain_from_tables([DRIVE, _bridge_table(signal="tau_ref")])
    m = EthercatMaster(EthercatConfig(**fields))
    drive, bridge = _FakeSlave(12, 4), _FakeSlave(6, 2)
    m.master, m.slaves = _FakeSoem(wkc=6), [drive, bridge]
    m._drive_slaves, m._drive = [drive], drive
    m.terminals.attach(m.slaves)
    m.expected_wkc, m._operational, m._enabled = 6, True, False
    m.rated_torque_Nm[:] = 1.0
    fault_at = 37
    for cycle in range(1, 100):
        status = ST_ERROR | ST_OVERRANGE if cycle >= fault_at else 0
        bridge.input = struct.pack("<Hi", status, 1234 + cycle)
        m.send(np.zeros(1))
        if cycle < fault_at:
            m.receive()
            assert m.terminals.values[0] == pytest.approx((1234 + cycle) / 1000.0)
            continue
        with pytest.raises(TerminalFault, match=r"cycle 37: EL3356 joint torque .*tau_ref of joint 1.*broken bridge wire"):
            m.receive()
        break
    assert cycle == fault_at
    assert m.terminals.values[0] == pytest.approx((1234 + fault_at - 1) / 1000.0)  # the last good value is kept


# --------------------------------------------------------------------------------------------
# network: the real master against an emulated drive, bridge and RTD, in lock step
# --------------------------------------------------------------------------------------------

pysoem = pytest.importorskip("pysoem")

from paperlib.hardware import netns  # noqa: E402
from emulator_process import Emulator  # noqa: E402  (this folder's helper module)


def _chain(load: float, temps: list[float], rtd_faults: list[dict[str, Any]] | None = None):
    from paperlib.hardware.emulators.rig_chain import emulated_chain

    fields = chain_from_tables([DRIVE, _bridge_table(filter="IIR 3", tare=False), RTD])
    spec = emulated_chain(fields["chain"], fields["axes"], fields["terminals"])
    spec[0].update(fixed_dt=2.5e-4, idle_step_s=math.inf)
    spec[1].update(load=load)
    spec[2].update(temperature_degC=temps, faults=rtd_faults or [])
    cfg = EthercatConfig(**fields, cycle_time_s=2.5e-4, receive_timeout_s=0.5, max_consecutive_errors=400,
                         pd_watchdog_s=2.0, state_timeout_s=10.0, cia402_timeout_s=5.0)
    return cfg, spec


@pytest.mark.root
def test_master_configures_and_reads_the_terminals(netns_available):
    from paperlib.hardware.ethercat import EthercatMaster

    cfg, spec = _chain(load=1.234, temps=[41.0, 23.5])
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": spec})
        m = EthercatMaster(cfg)
        try:
            m.open(pair.ifname["master"], netns=pair.ns["master"])
            assert m.expected_wkc == 3 + 3 + 1  # drive and bridge: outputs and inputs; RTD: inputs only
            for _ in range(200):
                m.exchange(np.zeros(1))
            values = m.terminals.values.copy()
        finally:
            m.close()
            report = emu.stop()
    np.testing.assert_allclose(values, [1.234, 41.0, 23.5], rtol=0, atol=1e-9)
    bridge, rtd = report["terminals"]
    assert bridge["filter"] == "IIR 3" and bridge["nominal_load"] == 20.0 and bridge["tares"] == 0
    assert rtd["wires"] == [2, 1]  # 4 wires on channel 1 (0x8000:1A = 2), channel 2 the default 3 (= 1)


@pytest.mark.root
def test_an_open_rtd_is_a_terminal_fault_and_the_drive_is_disabled(netns_available):
    from paperlib.hardware.ethercat import EthercatMaster

    cfg, spec = _chain(load=0.0, temps=[30.0, 30.0], rtd_faults=[{"channel": 2, "kind": "open", "after_samples": 600}])
    with netns.NetnsPair() as pair:
        emu = Emulator(pair, {"chain": spec})
        m = EthercatMaster(cfg)
        try:
            m.open(pair.ifname["master"], netns=pair.ns["master"])
            with pytest.raises(TerminalFault, match=r"EL3202 \(chain position 2, channel 2.*temperature of joint 2.*open"):
                for _ in range(2000):
                    m.exchange(np.zeros(1))
        finally:
            m.close()
            report = emu.stop()
    assert report["terminals"][1]["wiring"] == ["ok", "open"]
    assert report["drives"][0]["axis_states"] == ["switch on disabled"]


@pytest.mark.root
def test_the_flagships_rig_with_gearbox_rtds_records_their_temperatures(netns_available, tmp_path):
    """config/rigs/five_bar_gearbox_rtd.toml: the 5R's self-test records each gearbox case's RTD as ``temperature``."""
    from paperlib.hardware.selftest import LOCKSTEP_LINK, selftest
    from paperlib.provenance import REPO_ROOT
    from paperlib.recordings import read_recording

    s = selftest(1.0, calibrate_s=0.0, zeroing=False, rig_file=REPO_ROOT / "config" / "rigs" / "five_bar_gearbox_rtd.toml",
                 workdir=tmp_path, lockstep=True, **LOCKSTEP_LINK)
    assert s["robot"] == "five_bar" and s["fault"] is None and s["recording_valid"], s
    ds = read_recording(s["recording"])
    truth = json.loads(ds.attrs["truth"])
    # the twin's gearbox cases (22 degC at the start; a 1-s run heats them by far less than a count, 0.1 degC)
    np.testing.assert_allclose(ds["temperature"].values, np.broadcast_to(truth["gearbox_case_temperature_start_degC"],
                                                                         ds["temperature"].shape), atol=0.05)
    assert ds["temperature"].attrs["units"] == "degC"
    src = json.loads(ds.attrs["channel_sources"])["temperature"]
    assert [src[j]["channel"] for j in ("1", "2")] == [1, 2] and src["2"]["terminal"] == "EL3202 gearboxes"
