"""The hardware path end to end: HardwareRig + 4 kHz loop + AC controller against the emulated rig.

The root tests (marked ``root``; skipped with the reason otherwise) create their own network
namespaces and veth pair (``paperlib.hardware.selftest``), start the emulated rig (EK1828-like
coupler with the proximity sensors, dual-axis CST drive and the IMU board around one twin of the
5R) and run the real pysoem master, the loop and the controller against it. Each fault test
checks a safe stop with a clear message and, when the loop had started, a valid recording of
everything up to the fault. Everything is torn down by the self-test itself (checked).

Timing on the 2-core CI machine: the loop runs under SCHED_FIFO with a sleep margin and the
emulator under SCHED_FIFO (the self-test's defaults; see ``paperlib.hardware.selftest``).

No test here depends on the host's timing. The self-test runs in its host-independent mode
(``lockstep``: the emulated robot advances one control cycle per process-data frame, never on
its own, and the master waits up to 50 ms for each reply; watchdogs widened to ``paperlib.hardware.selftest.LOCKSTEP_LINK``) so that a stalled
VM makes a run late, never different or stopped; the fault tests use faults that last (a pulled
cable, a dead emulator, a silent IMU), which every finite watchdog catches.
Nothing asserts a deadline fraction, a latency or a speed: those are measured and reported in
the self-test's JSON (``paperlib hardware selftest --json``) and recorded as test properties.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from paperlib.hardware import session
from paperlib.recordings import read_recording
from paperlib.provenance import REPO_ROOT

REPO = REPO_ROOT
#: The flagship's rig file: the robot and the EtherCAT chain the emulated rig stands in for.
RIG_FILE = REPO / "config" / "rigs" / "five_bar.toml"


def _chain_toml() -> str:
    from paperlib.hardware.rig import chain_toml

    return chain_toml(RIG_FILE)


def _unavailable() -> str | None:
    try:
        import pysoem  # noqa: F401
    except ImportError:
        return "pysoem is not installed"
    from paperlib.hardware import netns

    return netns.unavailable_reason()


@pytest.fixture(scope="module")
def root_env() -> None:
    reason = _unavailable()
    if reason:
        pytest.skip(f"hardware self-test {reason}")


def _namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def _test_link() -> dict:
    """The self-test's host-independent mode: lock-step emulator and wide link thresholds."""
    from paperlib.hardware.selftest import LOCKSTEP_LINK

    return {**LOCKSTEP_LINK, "lockstep": True}


def _selftest(tmp_path: Path, **kw) -> dict:
    from paperlib.hardware.selftest import selftest

    for k, v in _test_link().items():
        kw.setdefault(k, v)
    kw.setdefault("calibrate_s", 0.0)
    kw.setdefault("zeroing", False)
    kw.setdefault("rig_file", RIG_FILE)
    summary = selftest(workdir=tmp_path, json_out=tmp_path / "summary.json", log=print, **kw)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("emulator", "slaves")}, default=str)[:3000])
    ns = summary.get("namespaces", {})
    listed = _namespaces()
    assert all(name not in listed for name in ns.values()), "namespaces left behind"
    return summary


# --------------------------------------------------------------------------------------------
# the closed loop: AC on the emulated rig for several seconds at 4 kHz
# --------------------------------------------------------------------------------------------

RUN_S = 12.0
CALIB_S = 4.0


@pytest.fixture(scope="module")
def closed_loop(root_env, tmp_path_factory) -> dict:
    return _selftest(tmp_path_factory.mktemp("selftest"), duration_s=RUN_S, calibrate_s=CALIB_S, zeroing=True,
                     controller="AC", seed=1)


@pytest.mark.root
def test_selftest_reaches_op_and_records_a_valid_run(closed_loop, record_property):
    s = closed_loop
    assert s["fault"] is None and s["stop_reason"] == "completed"
    assert s["slaves_found"] == 2 and [d["name"] for d in s["slaves"]] == ["EK1828", "BE2-090-20"]
    assert s["cycles"] == int(RUN_S * 4000)
    assert s["recording_valid"] is True
    record_property("time_to_op_ms", round(s["time_to_op_s"] * 1e3, 1))
    ds = read_recording(s["recording"])
    # simulated data, labelled as such
    assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "emulated-hardware"
    assert "fault" not in ds.attrs
    assert json.loads(ds.attrs["truth"])["pi_pds"] == pytest.approx(s["estimate"]["pi_pds_true"])
    # every cycle logged on the uniform grid, setpoints included, deadline statistics in the attrs
    assert ds.sizes["time"] == s["cycles"]
    np.testing.assert_allclose(np.diff(ds["time"].values), 1 / 4000.0, rtol=1e-6)
    for v in ("q_sp", "qd_sp", "qdd_sp", "tau_tgt", "pi_hat", "lateness", "imu_age"):
        assert v in ds
    for a in ("deadline_misses", "lateness_median_us", "lateness_p99_us", "lateness_p999_us", "lateness_max_us"):
        assert a in ds.attrs
    # the robot tracked its trajectory (joint error, after the first second). Not judged for 0.25 s
    # after a loop stall longer than 1 ms: the drive then holds its last torque while the robot
    # moves on (a 30-ms pause of this VM once gave 3.06 deg; the run's worst is recorded).
    err = np.degrees(np.abs(ds.q.values - ds.q_sp.values).max(axis=1))
    stalled = np.convolve(ds.lateness.values > 1e-3, np.ones(1000), mode="full")[:err.size] > 0
    record_property("max_tracking_error_deg", round(float(err[4000:].max()), 3))
    judged = ~stalled
    judged[:4000] = False
    record_property("tracking_judged_fraction", round(float(judged.sum() / (err.size - 4000)), 4))
    assert err[judged].max(initial=0.0) < 2.0, err[judged].max()
    # links: counted and reported (how many frames a Python emulator loses depends on the host)
    record_property("wkc_errors", s["wkc_errors"])
    assert s["stale_replies"] == 0  # the emulator answers only the newest frame after a pause, like an ESC
    assert s["imu_malformed"] == 0


@pytest.mark.root
def test_selftest_reports_its_deadline_statistics(closed_loop, record_property):
    # The 99 %-of-cycles-on-time target is the host's to meet, not the code's: it is measured and
    # reported (self-test JSON, `paperlib bench`), never asserted. What the code owes is a
    # consistent report of every cycle.
    s = closed_loop
    for key in ("deadline_met_fraction", "deadline_misses", "late_commands", "lateness_median_us",
                "lateness_p99_us", "lateness_p999_us", "lateness_max_us"):
        assert key in s, key
        record_property(key, s[key])
    assert s["report_problems"] == []  # counts, fractions and percentiles agree with each other
    ds = read_recording(s["recording"])
    late = ds.lateness.values
    assert late.size == s["cycles"] and np.isfinite(late).all()  # a late cycle is still logged


@pytest.mark.root
def test_zeroing_finds_the_emulated_encoder_offset(closed_loop):
    z = closed_loop["zeroing"]
    # the sensor switches within a cycle of motion (10 deg/s at 1 kHz) plus a frame of delay
    assert np.abs(z["error_deg"]).max() < 0.05, z
    assert 2.0 < min(z["travel_deg"]) and max(z["travel_deg"]) < 4.0


@pytest.mark.root
def test_ac_estimates_converge_as_on_the_twin(closed_loop, record_property):
    e = closed_loop["estimate"]
    print(f"\nIMU calibration: {closed_loop['imu_calibration']['rows']}\nestimate: {e}")
    at10 = np.abs(e["pi_pds_rel_error_at_10s"])
    final = np.abs(e["pi_pds_rel_error_final"])
    record_property("pi_pds_rel_error_at_10s", [round(x, 4) for x in e["pi_pds_rel_error_at_10s"]])
    # the twin's own AC run (same seed, calibrated IMUs) is within 0.3 % after 5 s. On the emulated rig,
    # measured over 11 self-tests with 15-425 missed deadlines and 13-381 lost frames each: within
    # 0.42 % at 5 s, 0.49 % at 10 s, 0.45 % at the end. (Before the master rejected stale replies, a pause of the
    # emulator could leave it reading inputs 32 cycles old for the rest of a run: 1.7 % then.)
    assert np.abs(e["pi_pds_rel_error_at_5s"]).max() < 0.01
    assert at10.max() < 0.01 and final.max() < 0.01
    record_property("estimator_holds", closed_loop.get("estimator_holds"))
    assert e["converged_s"] == e["converged_s"] and e["converged_s"] < 10.0  # switches (b), (c) closed


# --------------------------------------------------------------------------------------------
# faults: each a safe stop with a clear message (and a valid recording once the loop ran)
# --------------------------------------------------------------------------------------------

def _no_recording(s: dict, tmp_path: Path) -> None:
    assert s["recording"] is None and s["recording_valid"] is False and s["cycles"] == 0
    assert not list(tmp_path.glob("*.nc"))


def _faulted_recording(s: dict) -> object:
    assert s["stop_reason"] == "fault" and s["recording_valid"] is True, s
    ds = read_recording(s["recording"])
    assert ds.attrs["fault"] == s["fault"] or s["fault"] in ds.attrs["fault"]
    assert ds.sizes["time"] == s["cycles"] and s["cycles"] > 100
    return ds


@pytest.mark.root
def test_no_slave(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0, start_emulator=False)
    assert "no EtherCAT slave found" in s["fault"] and s["stop_reason"] == "bring-up fault"
    _no_recording(s, tmp_path)


@pytest.mark.root
def test_wrong_slave(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0,
                  emulator={"chain": [{"type": "ek1828"}, {"type": "dual_cst_drive", "product_code": 0x12345678}]})
    assert "ChainMismatchError" in s["fault"] and "0x12345678" in s["fault"] and "position 1" in s["fault"]
    _no_recording(s, tmp_path)


@pytest.mark.root
def test_sdo_abort(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0, emulator={
        "drive": {"sdo_aborts": [{"index": 0x6860, "subindex": 0, "code": 0x06090030}]}})
    assert "SdoAbortError" in s["fault"] and "0x6860:00" in s["fault"] and "0x06090030" in s["fault"]
    _no_recording(s, tmp_path)


@pytest.mark.root
def test_lost_frames_burst(root_env, tmp_path):
    # after ~1 s of process data the drive stops answering (a cable pulled)
    s = _selftest(tmp_path, duration_s=3.0, emulator={"faults": {"drop_after_n_pd": 5000}})
    # In lock-step the robot (and so its IMU stream) stops with the frames: whichever watchdog fires
    # first, the link's or the IMU's, the run stops safely.
    assert ("EtherCAT" in s["fault"] and ("consecutive" in s["fault"] or "in a row" in s["fault"])) or \
        "IMU data stale" in s["fault"], s["fault"]
    ds = _faulted_recording(s)
    assert ds.sizes["time"] < 3.0 * 4000
    # the drive's own process-data watchdog (1 s here, wider than any host stall) disabled it: the self-test
    # waits 1.5 watchdog periods after a link fault before reading the drive's state
    assert s["emulator"]["drive"]["axis_states"] != ["operation enabled"] * 2


@pytest.mark.root
def test_nan_gyro_sample_ends_in_safe_stop_with_valid_recording(root_env, tmp_path):
    # one rate sample of joint 2 turns NaN at t = 0.5 s (as tests/layers/control/test_step_guard.py does on the twin)
    s = _selftest(tmp_path, duration_s=1.5, controller="AC", zeroing=False, inject_nan_qd=(0.5, 2))
    assert "non-finite" in s["fault"] and "qd[2] = nan" in s["fault"], s["fault"]
    assert s["stop_reason"] == "fault" and s["recording_valid"] is True, s
    ds = read_recording(s["recording"])
    assert s["fault"] in ds.attrs["fault"]
    # cycle 2000 read the NaN, commanded zero torque and stopped the run; the writer keeps cycles 0 .. 1999
    assert s["cycles"] == 2001 and ds.sizes["time"] == 2000
    assert np.all(np.isfinite(ds.qd.values))
    assert s["emulator"]["drive"]["axis_states"] == ["switch on disabled"] * 2  # drive disabled at the stop


@pytest.mark.root
def test_sporadic_lost_frames_are_tolerated(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0, emulator={"faults": {"drop_every_n": 200}})
    assert s["fault"] is None and s["recording_valid"]
    assert s["lost_frames"] >= 30


def _command_to_reply_lag(ds, sl: slice) -> list[int]:
    """Cycles between a target torque and the drive's report of it (best alignment per axis)."""
    a, b = ds.tau_tgt.values, ds.tau_m.values
    t0, t1 = sl.start, sl.stop
    return [int(np.argmin([np.sum((b[t0:t1, j] - a[t0 - d:t1 - d, j]) ** 2) for d in range(60)])) for j in range(2)]


@pytest.mark.root
def test_stale_replies_after_held_back_frames_are_detected_and_flushed(root_env, tmp_path):
    # The emulator holds back the replies to 40 process-data frames (it acts on them, the master
    # gives each up after its receive timeout), then sends them all, oldest first, before the
    # reply to the next frame. SOEM matches replies by one of 16 frame indices, so a late reply
    # passes for the answer to the newer frame with its index; unchecked, the master went on
    # reading inputs 40 cycles old for the rest of the run. The master must recognise it and
    # flush the queue. Counted in frames, in lock step: nothing here depends on the host's speed.
    held = 40
    s = _selftest(tmp_path, duration_s=3.0, controller="AC",
                  emulator={"faults": {"withhold_after_n_pd": 6000, "withhold_count": held}})
    assert s["fault"] is None and s["recording_valid"], s["fault"]
    serve = s["emulator"]["serve"]
    assert serve["withheld"] == held and serve["released"] == held
    assert s["stale_replies"] >= 1 and s["flushed_replies"] >= 1
    ds = read_recording(s["recording"])
    link = (ds.sample_faults.values & 2) != 0
    paused = np.flatnonzero(link)
    # the held-back frames are in the log: its longest run of cycles with a lost or stale frame
    edges = np.flatnonzero(np.diff(np.r_[0, link.astype(int), 0]))
    starts, stops = edges[::2], edges[1::2]
    longest = int(np.argmax(stops - starts))
    end = ds.sizes["time"]
    assert stops[longest] - starts[longest] >= held and stops[longest] < end - 4000
    # afterwards the inputs are fresh again: the drive reports the torque of 2 cycles before
    assert max(_command_to_reply_lag(ds, slice(end - 3000, end))) <= 3
    # and the estimator held back over the faulty cycles
    st = ds.estimator_status.values
    assert (st[paused[paused < end - 10]] == -5).mean() > 0.9


@pytest.mark.root
def test_a_pause_without_queuing_supersedes_old_frames(root_env, tmp_path):
    # the emulator's default, like an ESC: frames that waited during its pause are not answered
    s = _selftest(tmp_path, duration_s=2.0, emulator={"faults": {"pause_after_n_pd": 5000, "pause_s": 0.2}})
    assert s["fault"] is None and s["recording_valid"]
    assert s["emulator"]["serve"]["superseded"] >= 2 and s["stale_replies"] == 0
    ds = read_recording(s["recording"])
    end = ds.sizes["time"]
    assert max(_command_to_reply_lag(ds, slice(end - 2000, end))) <= 3


@pytest.mark.root
def test_killed_emulator(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=3.0, emulator={"faults": {"exit_after_n_pd": 5000}})
    assert ("EtherCAT" in s["fault"] and "in a row" in s["fault"]) or "IMU data stale" in s["fault"] or \
        "consecutive EtherCAT" in s["fault"], s["fault"]
    _faulted_recording(s)
    assert s["emulator"]["returncode"] == 3  # it really died


@pytest.mark.root
def test_imu_packet_loss_is_tolerated_and_counted(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0, emulator={"imu_faults": {"loss": 0.05, "seed": 3}})
    assert s["fault"] is None and s["recording_valid"]
    dropped = s["emulator"]["imu"]["dropped"]
    assert dropped > 20
    # the receiver sees the gaps of the run (the emulator's count includes bring-up; a busy host may drop
    # a few more packets in its own socket buffers, so the count is not bounded above here)
    assert s["imu_packets_lost"] >= 0.5 * dropped


@pytest.mark.root
def test_imu_burst_shorter_than_the_watchdog_is_tolerated(root_env, tmp_path):
    # ~10 ms without IMU packets (40 process-data frames): below the watchdog
    s = _selftest(tmp_path, duration_s=2.0, emulator={"imu_faults": {"silent_pd_frames": [5000, 5040]}})
    assert s["fault"] is None and s["recording_valid"]
    assert s["emulator"]["imu"]["silenced"] >= 8 and s["imu_packets_lost"] >= 8
    age = read_recording(s["recording"])["imu_age"].values
    assert age.max() > 0.008  # the gap is seen (how much longer it looked depends on the host)


@pytest.mark.root
def test_imu_silent_beyond_the_watchdog(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=3.0, emulator={"imu_faults": {"silent_after_pd_frames": 5000}})
    assert "watchdog: IMU data stale" in s["fault"]
    _faulted_recording(s)


@pytest.mark.root
def test_imu_garbage_is_rejected_and_counted(root_env, tmp_path):
    s = _selftest(tmp_path, duration_s=2.0, emulator={"imu_faults": {"garbage": 0.1, "foreign": 0.05, "seed": 5}})
    assert s["fault"] is None and s["recording_valid"]
    emu = s["emulator"]["imu"]
    assert s["imu_malformed"] > 50 and s["imu_foreign"] > 20
    assert s["imu_malformed"] <= emu["garbage"] and s["imu_foreign"] <= emu["foreign"]
    assert set(s["imu_malformed_reasons"]) <= {"crc", "size", "version"}


@pytest.mark.root
def test_ctrl_c_stops_cleanly_with_a_valid_recording(root_env, tmp_path):
    out = tmp_path / "summary.json"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperlib", "hardware", "selftest", "--duration", "30", "--calibrate", "0",
         "--no-zero", "--lockstep", "--json", str(out), "--workdir", str(tmp_path)],
        cwd=str(REPO), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        line = ""
        while time.monotonic() - t0 < 120:
            line = proc.stderr.readline()
            if not line or line.startswith("control loop running"):
                break
        assert line.startswith("control loop running"), line
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    print(stderr[-2000:])
    s = json.loads(out.read_text())
    assert s["stop_reason"] == "interrupted" and s["fault"] is None
    assert 1000 < s["cycles"] < 30 * 4000
    assert s["recording_valid"] is True
    ds = read_recording(s["recording"])
    assert ds.sizes["time"] == s["cycles"] and "fault" not in ds.attrs
    listed = _namespaces()
    assert all(name not in listed for name in s["namespaces"].values())


@pytest.mark.root
def test_run_cli_against_emulated_hardware_is_labelled_simulated(root_env, tmp_path):
    """`paperlib run --rig hardware` on an emulated chain whose config does not say so: the drive's
    identity gives it away and the recording is labelled source = twin, rig = emulated-hardware."""
    from paperlib.hardware import netns
    from paperlib.hardware.selftest import IMU_PORT, EmulatorProcess

    with netns.NetnsPair() as pair:
        cpus = sorted(os.sched_getaffinity(0))
        ncpu = len(cpus)
        emu = EmulatorProcess(pair, {"seed": 2, "lockstep": True}, (pair.ip["master"], IMU_PORT), rt_priority=20,
                              cpu=cpus[0] if ncpu >= 2 else None)
        cfg = tmp_path / "rig.toml"
        cfg.write_text(f"""
[rig]
name = "emulated"
robot = "five_bar"
[ethercat]
interface = "{pair.ifname['master']}"
netns = "{pair.ns['master']}"
pd_watchdog_s = 1.0
max_lost_frames = 400            # the lock-step thresholds (selftest.LOCKSTEP_LINK): host stalls make the run late
receive_timeout_s = 0.05
[imu]
udp_port = {IMU_PORT}
bind_address = "{pair.ip['master']}"
source_address = "{pair.ip['slave']}"
max_age_s = 0.5
[loop]
rt_priority = 10
{'cpu = %d' % cpus[-1] if ncpu >= 2 else ''}
""" + _chain_toml())
        try:
            out = tmp_path / "run.nc"
            probe = subprocess.run([sys.executable, "-m", "paperlib", "hardware", "probe", "--interface",
                                    pair.ifname["master"], "--netns", pair.ns["master"]],
                                   cwd=str(REPO), capture_output=True, text=True, timeout=60)
            assert probe.returncode == 0 and "EK1828" in probe.stdout and "BE2-090-20" in probe.stdout, probe
            r = subprocess.run([sys.executable, "-m", "paperlib", "run", "--rig", "hardware", "--config", str(cfg),
                                "--controller", "PD", "--duration", "1.5", "--seed", "2", "--output", str(out)],
                               cwd=str(REPO), capture_output=True, text=True, timeout=300)
            # the rig by hand: cycles, then close twice (zero torque, drive disabled, chain in INIT)
            from paperlib.hardware.rig import HardwareRig, load_rig_settings

            rig = HardwareRig(load_rig_settings(cfg))
            rig.open()
            assert rig.source == "twin" and rig.emulated and rig.identity["software_version"].startswith("paperlib")
            for _ in range(400):
                m = rig.read()
                rig.command(np.array([0.05, -0.05]))
                time.sleep(0.00025)
            # data flow both ways (how fresh it is depends on the host: not judged here)
            assert np.all(np.isfinite(m.qd)) and np.isfinite(rig.imu_age_s) and rig.consecutive_frame_errors < 400
            rig.close()
            rig.close()
            assert not rig.master.operational
        finally:
            stats = emu.stop()
    print(r.stdout[-3000:], r.stderr[-3000:])
    assert stats["drive"]["axis_states"] == ["switch on disabled"] * 2
    assert [s["al_state"] for s in stats["slaves"]] == [1, 1]  # INIT
    assert r.returncode == 0
    ds = read_recording(out)
    assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "emulated-hardware"
    missing = [k for k in session.LOOP_ATTRS if k not in ds.attrs]
    assert ds.sizes["time"] == 6000 and not missing, missing


# --------------------------------------------------------------------------------------------
# without root
# --------------------------------------------------------------------------------------------

def test_run_twin_rig_through_the_real_time_loop(tmp_path):
    out = tmp_path / "twin.nc"
    r = subprocess.run([sys.executable, "-m", "paperlib", "run", "--rig", "twin", "--controller", "AC", "--duration",
                        "1.0", "--seed", "4", "--output", str(out)],
                       cwd=str(REPO), capture_output=True, text=True, timeout=600)
    print(r.stdout[-2000:], r.stderr[-2000:])
    assert r.returncode == 0
    ds = read_recording(out)
    assert ds.attrs["source"] == "twin" and ds.attrs["rig"] == "twin" and ds.sizes["time"] == 4000
    assert "pi_pds" in json.loads(ds.attrs["truth"])
    assert np.all(np.isfinite(ds.pi_hat.values))


def test_rig_example_config_loads():
    from paperlib.hardware.rig import IDENTITY_FIELDS, HardwareRig, load_rig_settings

    s = load_rig_settings(REPO / "config" / "rig.example.toml")
    assert s.interface and s.udp_port == 5005 and {s.chain[ax.slave].vendor_id for ax in s.axes} == {0xAB}
    # the example documents the flagship's rig: the same robot and chain as its own rig file
    flagship = load_rig_settings(RIG_FILE)
    assert all(getattr(s, k) == getattr(flagship, k) for k in IDENTITY_FIELDS)
    # the robot is the file's, loaded at run time (paperlib.robots.load), and sets the rate and the scaling
    rig = HardwareRig(flagship)
    assert rig.robot == "five_bar" and rig.robot_model.description["robot"]["name"] == "five_bar"
    assert rig.sample_rate_hz == rig.robot_model.sample_rate_hz == 4000.0
    cfg = rig.ethercat_config()
    assert (cfg.chain, cfg.axes, cfg.coupler_index) == (flagship.chain, flagship.axes, 0)
    assert cfg.gear_ratio == tuple(rig.gear) and len(cfg.axes) == rig.robot_model.n_drives
    assert cfg.counts_per_rev == rig.robot_model.description["sensors"]["encoder_counts_per_motor_rev"]
    lim = rig.robot_model.description["limits"]
    # the safety limits must admit the planning polygon: not tighter than the robot's own range
    assert np.all(np.asarray(s.q_min_deg) <= np.asarray(lim["q_min_deg"]) + 1e-9)
    assert np.all(np.asarray(s.q_max_deg) >= np.asarray(lim["q_max_deg"]) - 1e-9)


def test_rig_file_must_name_its_robot_and_chain(tmp_path):
    from paperlib.hardware.rig import load_rig_settings

    base = '[ethercat]\ninterface = "eth9"\n'
    imu = '[imu]\nudp_port = 5005\n'
    cases = (('[rig]\nname = "x"\n' + base + _chain_toml() + "\n" + imu, r"\[rig\] robot is required"),
             ('[rig]\nrobot = "five_bar"\n' + base + imu, r"\[\[ethercat.slave\]\].*required"),
             ('[rig]\nrobot = "five_bar"\n' + base + 'coupler = true\n' + _chain_toml() + "\n" + imu,
              "now spelled out"))
    for k, (text, match) in enumerate(cases):
        f = tmp_path / f"rig{k}.toml"
        f.write_text(text)
        with pytest.raises(ValueError, match=match):
            load_rig_settings(f)


def test_imu_packets_from_the_twin_decode_to_the_twins_reads():
    from paperlib.hardware.emulators.twin_rig import ImuSender
    from paperlib.hardware.imu_link import decode_packet

    sender = ImuSender(("127.0.0.1", 9))
    try:
        raw = np.array([[1200.0, -340.0, 55.0], [-7.0, 16000.0, -16001.0]])
        pkt = decode_packet(sender.encode(12, 0.0123456, raw))
    finally:
        sender.close()
    assert pkt.seq == 12 and pkt.timestamp_us == 12346
    np.testing.assert_array_equal(pkt.gyro_counts[:, 2], raw[:, 0])
    np.testing.assert_array_equal(pkt.accel_counts[:, 1], raw[:, 1])
    np.testing.assert_array_equal(pkt.accel_counts[:, 0], raw[:, 2])
    assert pkt.gyro_fs_dps == (1000, 1000) and pkt.accel_fs_g == (2, 2)
