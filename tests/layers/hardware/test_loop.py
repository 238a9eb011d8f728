"""Real-time loop runner: timing statistics, catch-up policy, safety stops (fake rig, loopback).

No assertion here depends on how fast this machine is: timing statistics are checked for
consistency, not against thresholds (the measured numbers go into the report instead).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import math
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from paperlib.hardware.imu_link import ImuJointCalibration, ImuReceiver, imu_to_joint_rates
from paperlib.hardware.loop import DEFAULT_LOG_CHANNELS, FreeRunClock, Limits, LoopStats, Watchdog, run_loop
from paperlib.rig import Measurement, Rig, RigFault
from simulated_clock import SimulatedClock  # this folder's helper module

RATE = 4000.0
WITH_LATENESS = DEFAULT_LOG_CHANNELS + ("lateness",)


class FakeRig(Rig):
    """Two joints; q follows ``q_of_cycle``; health attributes settable per cycle."""

    robot = "fake"
    source = "twin"
    n_joints = 2
    sample_rate_hz = RATE

    def __init__(self, q_of_cycle=None, imu_age_of_cycle=None, lost_of_cycle=None, fail_at=None):
        self.m = Measurement(2)
        self.q_of_cycle = q_of_cycle or (lambda k: (0.0, 0.0))
        self.imu_age_of_cycle = imu_age_of_cycle or (lambda k: 0.001)
        self.lost_of_cycle = lost_of_cycle or (lambda k: 0)
        self.fail_at = fail_at
        self.k = -1
        self.imu_age_s = 0.0
        self.consecutive_frame_errors = 0
        self.commands: list[np.ndarray] = []
        self.opened = self.closed = 0

    def open(self) -> None:
        self.opened += 1

    def read(self) -> Measurement:
        self.k += 1
        if self.fail_at is not None and self.k == self.fail_at:
            raise RigFault("working counter 1, expected 3")
        self.m.q[:] = self.q_of_cycle(self.k)
        self.m.tau_m[:] = 0.1 * self.k
        self.imu_age_s = self.imu_age_of_cycle(self.k)
        self.consecutive_frame_errors = self.lost_of_cycle(self.k)
        return self.m

    def command(self, tau_tgt: np.ndarray) -> None:
        assert not self.closed, "command after close"
        self.commands.append(np.array(tau_tgt, dtype=float))

    def close(self) -> None:
        self.closed += 1

    def counters(self) -> dict[str, int]:
        return {"wkc_errors": 0, "imu_lost": 3}


class FakeWriter:
    """In-memory stand-in for paperlib.recordings.RecordingWriter (copies what it gets)."""

    def __init__(self) -> None:
        self.t: list[float] = []
        self.rows: list[dict[str, object]] = []
        self.finished = 0
        self.fault: str | None = "not finished"

    def append(self, t: float, **channels: object) -> None:
        self.t.append(t)
        self.rows.append({k: np.array(v, copy=True) for k, v in channels.items()})

    def finish(self, fault: str | None = None) -> None:
        self.finished += 1
        self.fault = fault

    def column(self, name: str) -> np.ndarray:
        return np.array([r[name] for r in self.rows])


def zero_step(m: Measurement, t: float) -> np.ndarray:
    return np.zeros(2)


def _check_consistent(stats: LoopStats, writer: FakeWriter | None = None) -> None:
    # counts, misses against the per-cycle lateness, the maximum, stalls against misses: LoopStats.inconsistencies
    assert stats.inconsistencies() == []
    if writer is not None:
        assert len(writer.rows) == stats.cycles
        assert writer.finished == 1 and writer.fault == stats.fault
        assert np.all(np.diff(writer.t) > 0)
        if writer.rows and "lateness" in writer.rows[0]:
            np.testing.assert_allclose(writer.column("lateness") * 1e6, stats.lateness_us, atol=1e-6)
    assert gc.isenabled()


def test_loop_runs_one_second_at_4khz_with_statistics():
    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, zero_step, 1.0, RATE, writer,
                     log_channels=DEFAULT_LOG_CHANNELS + ("temperature", "digital_inputs", "lateness"))
    print("\n4 kHz, 1 s, trivial step:", stats.summary())
    assert stats.stop_reason == "completed" and stats.fault is None
    assert stats.slots == stats.cycles == 4000 and stats.skipped == 0  # default: no skipping
    _check_consistent(stats, writer)
    assert rig.opened == 1 and rig.closed == 1
    assert rig.commands[-1].tolist() == [0.0, 0.0]
    assert stats.rig_counters == {"wkc_errors": 0, "imu_lost": 3}
    # Logged times are the grid times of the executed slots.
    k = np.rint(np.asarray(writer.t) * RATE)
    np.testing.assert_allclose(writer.t, k / RATE, atol=1e-12)
    assert set(writer.rows[0]) == {"q", "qd", "qdd", "tau_m", "temperature", "digital_inputs",
                                   "tau_tgt", "lateness"}
    np.testing.assert_allclose(writer.t, np.arange(4000) / RATE, atol=1e-12)  # gap-free grid
    json.dumps(stats.as_dict())


def test_slow_steps_are_counted_as_misses_and_still_logged():
    # The loop keeps its deadlines on a simulated clock: the 600 us of work are the step's own, so
    # the counts below are the loop's doing, whatever the host's load.
    clock = SimulatedClock()

    def slow_step(m, t):
        if round(t * RATE) % 50 == 10:  # 600 us of work every 50th cycle
            clock.spend(600_000)
        return np.zeros(2)

    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, slow_step, 0.5, RATE, writer, log_channels=WITH_LATENESS, clock=clock,
                     sleep_margin_s=None, handle_sigint=False)
    print("\nslow step every 50th cycle:", stats.summary())
    n_slow = 2000 // 50
    # Each slow cycle makes the next one start > 1 period late; nothing is skipped. The clock is the
    # simulated one above: the loop's bookkeeping is checked against the schedule it was given (600 us of
    # simulated work every 50th cycle), not against the host's speed.
    missed, stalled = stats.deadline_misses, stats.stalls
    assert missed >= n_slow - 1
    assert stalled >= n_slow // 2  # each slow cycle starts its own run of misses
    assert stats.skipped == 0 and stats.cycles == stats.slots == 2000
    _check_consistent(stats, writer)
    np.testing.assert_allclose(writer.t, np.arange(2000) / RATE, atol=1e-12)  # every cycle logged


def test_a_free_running_clock_runs_every_slot_back_to_back_without_waiting(monkeypatch):
    # Lock-step rigs: the clock is moved to each deadline instead of being waited on. The loop must
    # neither sleep nor spin (time.sleep would raise here), and run and log every slot on its grid.
    def no_sleep(s):
        raise AssertionError(f"the loop slept {s} s on a free-running clock")

    monkeypatch.setattr(time, "sleep", no_sleep)
    reads = [0]
    clock = FreeRunClock()

    def counted_clock():
        reads[0] += 1
        return clock()

    counted_clock.advance_to = clock.advance_to
    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, lambda m, t: np.zeros(2), 0.25, RATE, writer, log_channels=WITH_LATENESS,
                     clock=counted_clock, sleep_margin_s=None, handle_sigint=False)
    n = 1000
    # the loop's bookkeeping of the schedule it was given (a clock moved to every deadline), named: every
    # slot run once, none skipped, none counted late; the host's speed does not enter it
    given = {"cycles": n, "slots": n, "skipped": 0, "deadline_misses": 0, "lateness_max_us": 0.0}
    assert {k: getattr(stats, k) for k in given} == given
    np.testing.assert_allclose(writer.t, np.arange(n) / RATE, atol=1e-12)
    # one reading per cycle and a few around the loop: no spinning on the clock
    assert reads[0] <= n + 10, reads[0]
    # the clock ends on the last deadline (it never moves back)
    period_ns = round(1e9 / RATE)
    assert clock.now_ns == period_ns * n
    clock.advance_to(0)
    assert clock.now_ns == period_ns * n


def _nth_call(n: int):
    """A predicate that is true on the n-th call only (slots may be skipped under load)."""
    calls = [0]

    def hit() -> bool:
        calls[0] += 1
        return calls[0] == n + 1

    return hit


def test_catch_up_policy_skips_slots_beyond_max_catch_up():
    hit = _nth_call(100)
    clock = SimulatedClock()  # the stall is simulated: the host's speed does not enter the test

    def stall_once(m, t):
        if hit():
            clock.spend(5_000_000)  # 5 ms: 20 periods
        return np.zeros(2)

    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, stall_once, 0.2, RATE, writer, max_catch_up=2, log_channels=WITH_LATENESS,
                     clock=clock, sleep_margin_s=None, handle_sigint=False)
    print("\n5 ms stall, max_catch_up=2:", stats.summary())
    assert stats.skipped >= 15
    assert stats.cycles + stats.skipped == stats.slots == 800
    _check_consistent(stats, writer)
    gap = np.max(np.diff(writer.t))
    assert gap >= 15 / RATE  # the schedule jumped over the missed slots


def test_watchdog_stale_imu_stops_with_zero_torque():
    rig = FakeRig(imu_age_of_cycle=lambda k: 0.001 if k < 200 else 0.0061)
    writer = FakeWriter()
    stats = run_loop(rig, lambda m, t: np.array([0.5, -0.5]), 1.0, RATE, writer,
                     watchdog=Watchdog(max_imu_age_s=0.005))
    assert stats.stop_reason == "fault"
    assert "IMU data stale" in stats.fault and "6.100 ms" in stats.fault
    assert rig.closed == 1
    assert rig.commands[-1].tolist() == [0.0, 0.0]
    assert len(rig.commands) == 201  # 200 normal cycles, then only the zero command
    assert rig.commands[199].tolist() == [0.5, -0.5]
    # Every cycle up to and including the faulting one is in the recording.
    assert stats.cycles == 201
    _check_consistent(stats, writer)
    assert writer.column("tau_tgt")[-1].tolist() == [0.0, 0.0]
    assert writer.column("tau_tgt")[-2].tolist() == [0.5, -0.5]
    assert "IMU" in writer.fault


def test_watchdog_lost_ethercat_frames():
    rig, writer = FakeRig(lost_of_cycle=lambda k: max(0, k - 99)), FakeWriter()
    stats = run_loop(rig, zero_step, 1.0, RATE, writer, watchdog=Watchdog(max_frame_errors=3))
    assert stats.stop_reason == "fault" and "4 consecutive EtherCAT cycles" in stats.fault
    assert stats.cycles == 104 and rig.closed == 1
    _check_consistent(stats, writer)


def test_rig_fault_on_read_stops_cleanly():
    rig, writer = FakeRig(fail_at=50), FakeWriter()
    stats = run_loop(rig, zero_step, 1.0, RATE, writer)
    assert stats.stop_reason == "fault" and "working counter" in stats.fault and "read" in stats.fault
    assert stats.cycles == 50 and rig.closed == 1 and rig.commands[-1].tolist() == [0.0, 0.0]
    _check_consistent(stats, writer)


def test_joint_limit_fault():
    rig = FakeRig(q_of_cycle=lambda k: (1e-3 * k, 0.0))
    writer = FakeWriter()
    limits = Limits(q_min=[-0.2, -1.0], q_max=[0.2, 1.0], tau_max=[5.0, 5.0])
    stats = run_loop(rig, lambda m, t: np.array([1.0, 1.0]), 1.0, RATE, writer, limits=limits)
    assert stats.stop_reason == "fault" and "joint limit: q[0]" in stats.fault
    assert stats.cycles == 202  # q = 0.201 rad at cycle 201
    assert writer.column("q")[-1][0] == pytest.approx(0.201)
    assert rig.commands[-1].tolist() == [0.0, 0.0] and rig.closed == 1
    _check_consistent(stats, writer)


def test_nan_joint_angle_is_a_limit_fault():
    rig = FakeRig(q_of_cycle=lambda k: (np.nan if k == 5 else 0.0, 0.0))
    stats = run_loop(rig, zero_step, 0.1, RATE, limits=Limits([-1, -1], [1, 1], 1.0))
    assert stats.stop_reason == "fault" and "nan" in stats.fault.lower()


def test_torque_commands_are_clipped_and_counted():
    rig, writer = FakeRig(), FakeWriter()
    limits = Limits(q_min=[-1, -1], q_max=[1, 1], tau_max=[2.0, 3.0])
    stats = run_loop(rig, lambda m, t: np.array([10.0, -1.0 if t < 0.05 else -7.0]), 0.1, RATE,
                     writer, limits=limits)
    assert stats.stop_reason == "completed"
    tau = writer.column("tau_tgt")
    assert np.all(tau[:, 0] == 2.0)
    assert np.all(np.isin(tau[:, 1], [-1.0, -3.0]))
    n_second = int(np.count_nonzero(tau[:, 1] == -3.0))
    assert stats.torque_clips == stats.cycles + n_second
    assert stats.clipped_cycles == stats.cycles
    cmds = np.array(rig.commands)
    assert np.all(np.abs(cmds[:, 0]) <= 2.0) and np.all(np.abs(cmds[:, 1]) <= 3.0)
    _check_consistent(stats, writer)


def test_non_finite_torque_is_a_fault():
    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, lambda m, t: np.array([0.0, np.nan if t > 0.01 else 0.0]), 0.1, RATE, writer)
    assert stats.stop_reason == "fault" and "non-finite" in stats.fault
    assert rig.commands[-1].tolist() == [0.0, 0.0] and writer.column("tau_tgt")[-1].tolist() == [0, 0]


def test_keyboard_interrupt_from_step_is_a_clean_stop():
    hit = _nth_call(100)

    def step(m, t):
        if hit():
            raise KeyboardInterrupt
        return np.ones(2)

    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, step, 1.0, RATE, writer)
    assert stats.stop_reason == "interrupted" and stats.fault is None
    assert stats.cycles == 101  # the interrupted cycle is logged with the zero command
    assert rig.commands[-1].tolist() == [0.0, 0.0] and rig.closed == 1
    _check_consistent(stats, writer)


def test_sigint_stops_at_the_end_of_the_cycle():
    before = signal.getsignal(signal.SIGINT)

    hit = _nth_call(40)

    def step(m, t):
        if hit():
            signal.raise_signal(signal.SIGINT)
        return np.ones(2)

    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, step, 1.0, RATE, writer)
    assert stats.stop_reason == "interrupted" and stats.cycles == 41
    assert writer.column("tau_tgt")[-1].tolist() == [1.0, 1.0]  # cycle 40 completed normally
    assert rig.commands[-1].tolist() == [0.0, 0.0] and rig.closed == 1
    assert signal.getsignal(signal.SIGINT) is before
    _check_consistent(stats, writer)


def test_unexpected_exception_is_safe_stopped_then_reraised():
    hit = _nth_call(10)

    def step(m, t):
        if hit():
            raise ZeroDivisionError("bug in the controller")
        return np.ones(2)

    rig, writer = FakeRig(), FakeWriter()
    with pytest.raises(ZeroDivisionError):
        run_loop(rig, step, 1.0, RATE, writer)
    assert rig.closed == 1 and rig.commands[-1].tolist() == [0.0, 0.0]
    assert writer.finished == 1 and "ZeroDivisionError during step" in writer.fault
    assert len(writer.rows) == 11 and gc.isenabled()


def test_writer_without_fault_keyword_and_no_writer():
    class Plain:
        def __init__(self):
            self.n = 0
            self.closed = False

        def append(self, t, **ch):
            self.n += 1

        def close(self):
            self.closed = True

    w = Plain()
    stats = run_loop(FakeRig(), zero_step, 0.05, RATE, w)
    assert w.closed and w.n == stats.cycles
    stats = run_loop(FakeRig(), zero_step, 0.05, RATE)
    assert stats.stop_reason == "completed"
    with pytest.raises(ValueError, match="duration_s"):
        run_loop(FakeRig(), zero_step, 0.0, RATE)
    with pytest.raises(ValueError, match="q_min"):
        run_loop(FakeRig(), zero_step, 0.1, RATE, limits=Limits([1, 1], [0, 0], 1.0))
    with pytest.raises(ValueError, match="log_channels"):
        run_loop(FakeRig(), zero_step, 0.1, RATE, log_channels=("q", "jerk"))


class SetpointStep:
    """A controller step that publishes its setpoints as preallocated log channels."""

    def __init__(self) -> None:
        self.log_channels = {"q_sp": np.zeros(2), "qd_sp": np.zeros(2), "qdd_sp": np.zeros(2)}
        self.tau = np.zeros(2)

    def __call__(self, m: Measurement, t: float) -> np.ndarray:
        ch = self.log_channels
        ch["q_sp"][:] = (0.1 * np.sin(t), 0.2)
        ch["qd_sp"][:] = (0.1 * np.cos(t), 0.0)
        ch["qdd_sp"][:] = (-0.1 * np.sin(t), 0.0)
        np.multiply(ch["q_sp"] - m.q, 50.0, out=self.tau)
        return self.tau


def test_controller_channels_are_logged_from_step_log_channels():
    rig, writer, step = FakeRig(), FakeWriter(), SetpointStep()
    stats = run_loop(rig, step, 0.05, RATE, writer)
    assert set(writer.rows[0]) == {"q", "qd", "qdd", "tau_m", "tau_tgt", "q_sp", "qd_sp", "qdd_sp"}
    np.testing.assert_allclose(writer.column("q_sp")[:, 0], 0.1 * np.sin(np.asarray(writer.t)))
    np.testing.assert_allclose(writer.column("tau_tgt")[:, 1], 50.0 * 0.2)
    _check_consistent(stats, writer)
    with pytest.raises(ValueError, match="clash"):
        run_loop(FakeRig(), zero_step, 0.1, RATE, extra_channels={"q": np.zeros(2)})


def test_overload_fault_when_a_cycle_is_too_late():
    hit = _nth_call(20)

    def step(m, t):
        if hit():
            time.sleep(0.05)
        return np.ones(2)

    rig, writer = FakeRig(), FakeWriter()
    stats = run_loop(rig, step, 1.0, RATE, writer, max_lateness_s=0.01)
    assert stats.stop_reason == "fault" and stats.fault.startswith("overload")
    # Cycle 20 stalls, so cycle 21 is too late (a loaded machine may stall even earlier).
    assert stats.cycles <= 21 and rig.closed == 1 and rig.commands[-1].tolist() == [0.0, 0.0]
    _check_consistent(stats, writer)


def test_with_the_real_recording_writer(tmp_path):
    from paperlib import recordings  # the package's own module: an import error must fail, not skip
    kw = dict(robot="five_bar", source="hardware", sample_rate_hz=RATE, controller="PD",
              config={"test": "loop"}, origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor")
    with recordings.RecordingWriter(tmp_path / "ok.nc", [1, 2], **kw, preallocate=400) as rec:
        stats = run_loop(FakeRig(), SetpointStep(), 0.1, RATE, rec)
    ds = recordings.read_recording(tmp_path / "ok.nc")
    assert ds.sizes["time"] == stats.cycles == 400 and "fault" not in ds.attrs
    # A faulted run still leaves a valid recording of everything up to the fault.
    rec = recordings.RecordingWriter(tmp_path / "fault.nc", [1, 2], **kw, preallocate=400)
    rig = FakeRig(imu_age_of_cycle=lambda k: 0.001 if k < 150 else 1.0)
    stats = run_loop(rig, SetpointStep(), 0.1, RATE, rec)
    ds = recordings.read_recording(tmp_path / "fault.nc")
    assert stats.stop_reason == "fault" and ds.sizes["time"] == stats.cycles == 151
    assert "IMU data stale" in ds.attrs["fault"]
    assert ds["tau_tgt"].values[-1].tolist() == [0.0, 0.0]


class ImuRig(FakeRig):
    """A fake rig whose qd/qdd come from the real UDP link (receiver polled every read)."""

    def __init__(self, rx: ImuReceiver, cal: ImuJointCalibration):
        super().__init__()
        self.rx, self.cal = rx, cal

    def open(self) -> None:
        super().open()
        end = time.monotonic() + 5.0
        while self.rx.latest().seq < 0:  # streaming before we start
            if time.monotonic() > end:
                raise RigFault("no IMU packet within 5 s")
            self.rx.poll()
            time.sleep(0.001)

    def read(self) -> Measurement:
        self.rx.poll()
        s = self.rx.latest()
        imu_to_joint_rates(s.gyro, s.accel, self.cal, self.m.qd, self.m.qdd)
        self.imu_age_s = s.age_s
        self.m.t = s.timestamp_us * 1e-6
        return self.m

    def counters(self) -> dict[str, int]:
        return self.rx.counters.as_dict()


def test_loop_with_imu_link_trips_watchdog_when_the_emulator_dies():
    rx = ImuReceiver("127.0.0.1", 0)
    cmd = [sys.executable, "-m", "paperlib.hardware.emulators.imu",
           "--dest", f"127.0.0.1:{rx.address[1]}", "--duration-s", "30"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = json.loads(proc.stdout.readline())
        rx.set_expected_source(tuple(started["source"]))
        rig, writer = ImuRig(rx, ImuJointCalibration([0.05, 0.05])), FakeWriter()

        def step(m, t):
            if t >= 0.3 and proc.returncode is None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)  # the microcontroller goes silent
            return np.zeros(2)

        # 0.2 s: generous for a loaded 2-core VM (the test is about the path, not the
        # threshold); the hardware default is 5 ms.
        stats = run_loop(rig, step, 2.0, RATE, writer, watchdog=Watchdog(max_imu_age_s=0.2))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(5)
        rx.close()
    print("\nIMU link in the loop:", stats.summary(), stats.rig_counters)
    assert stats.stop_reason == "fault" and "IMU data stale" in stats.fault
    t_fault = writer.t[-1]
    assert 0.3 < t_fault < 1.9
    assert stats.rig_counters["imu_valid"] > 200
    qd = writer.column("qd")
    assert np.count_nonzero(qd) > 0  # the gyro signal reached the measurement
    assert rig.closed == 1 and rig.commands[-1].tolist() == [0.0, 0.0]
    _check_consistent(stats, writer)


def test_inconsistent_loop_records_are_named():
    """The consistency check the loop tests rely on fails on records that contradict themselves."""
    good = LoopStats(rate_hz=1000.0, slots=4, cycles=3, skipped=1, deadline_misses=1, stalls=1,
                     lateness_median_us=5.0, lateness_p99_us=1200.0, lateness_p999_us=1290.0, lateness_max_us=1300.0,
                     lateness_us=np.array([5.0, 1300.0, 4.0]))
    assert good.inconsistencies() == []
    assert LoopStats(rate_hz=1000.0).inconsistencies() == []  # no cycles: NaN statistics are fine
    bad = {
        "slots": dict(slots=5),
        "misses": dict(deadline_misses=4),
        "stalls": dict(stalls=0),
        "shape": dict(lateness_us=np.zeros(2)),
        "finite": dict(lateness_us=np.array([5.0, np.nan, 4.0])),
        "negative": dict(lateness_us=np.array([5.0, 1300.0, -1.0])),
        "order": dict(lateness_p99_us=1295.0),
        "missing": dict(lateness_max_us=math.nan),
        "max": dict(lateness_max_us=1310.0),
        "count": dict(deadline_misses=2),
    }
    for name, change in bad.items():
        assert len(dataclasses.replace(good, **change).inconsistencies()) == 1, name


def test_inconsistent_session_summaries_are_named():
    from paperlib.hardware.session import summary_problems

    good = {"cycles": 10, "deadline_misses": 2, "late_commands": 3, "deadline_met_fraction": 0.7,
            "lateness_median_us": 1.0, "lateness_p99_us": 2.0, "lateness_p999_us": 3.0, "lateness_max_us": 3.0}
    assert summary_problems(good) == []
    for change in ({"late_commands": 11}, {"deadline_misses": -1}, {"deadline_met_fraction": 1.2},
                   {"deadline_met_fraction": None}, {"lateness_p999_us": 1.5}):
        assert len(summary_problems({**good, **change})) == 1, change
    # the summary's consistency check on given numbers (no run, no clock): an empty run has no problems
    empty_run = {**good, "cycles": 0, "deadline_misses": 0, "late_commands": 0, "deadline_met_fraction": None,
                 "lateness_median_us": math.nan}
    assert summary_problems(empty_run) == []
