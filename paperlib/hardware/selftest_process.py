"""What the self-tests share: the emulated rig as a subprocess in the slave namespace, the JSON encoding.

Used by :mod:`paperlib.hardware.selftest` (the 5R's rig), :mod:`paperlib.hardware.joint_selftest`
(joint-space rigs) and :mod:`paperlib.hardware.arm_selftest` (a position-controlled arm); the last
two run through :func:`emulated_selftest`.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from paperlib.hardware import netns
from paperlib.hardware.ethercat_config import found_summary

__all__ = ["SelftestUnavailable", "EmulatorProcess", "json_default", "emulated_selftest", "REPO"]

REPO = Path(__file__).resolve().parents[2]


class SelftestUnavailable(RuntimeError):
    """The self-test cannot run here (not root, no network namespaces)."""


class EmulatorProcess:
    """The emulated rig as a subprocess in the pair's slave namespace."""

    def __init__(self, pair: netns.NetnsPair, config: dict[str, Any], imu_dest: tuple[str, int] | None,
                 rt_priority: int = 0, cpu: int | None = None, timeout_s: float = 300.0, workdir: Path | None = None,
                 module: str = "paperlib.hardware.emulators.twin_rig") -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        argv = [sys.executable, "-m", module, "--ifname", pair.ifname["slave"], "--config", json.dumps(config)]
        if imu_dest is not None:
            argv += ["--imu-dest", f"{imu_dest[0]}:{imu_dest[1]}"]
        if rt_priority:
            argv += ["--rt-priority", str(rt_priority)]
        if cpu is not None:
            argv += ["--cpu", str(cpu)]
        self._err_path = Path(tempfile.mkstemp(prefix="twin_rig_", suffix=".err", dir=workdir)[1])
        self._err = self._err_path.open("w")
        self.proc = pair.popen("slave", argv, stdout=subprocess.PIPE, stderr=self._err, text=True, cwd=str(REPO),
                               env=env)
        self.info: dict[str, Any] = {}
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        line = ""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.proc.poll() is None:
            if sel.select(0.2):
                line = self.proc.stdout.readline().strip()  # type: ignore[union-attr]
                break
        sel.close()
        if not line.startswith("READY"):
            self.kill()
            raise RuntimeError(f"the emulated rig did not start: {line!r}; stderr: {self.stderr()[-3000:]}")
        self.info = json.loads(line[len("READY"):].strip() or "{}")

    def stderr(self) -> str:
        try:
            self._err.flush()
            return self._err_path.read_text()
        except OSError:
            return ""

    def stop(self) -> dict[str, Any]:
        """SIGTERM; the STATS report (or what is known when it died)."""
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate(timeout=5)
        report: dict[str, Any] = {"returncode": self.proc.returncode}
        for line in (out or "").splitlines():
            if line.startswith("STATS "):
                report.update(json.loads(line[6:]))
        if "serve" not in report:
            report["stderr"] = self.stderr()[-2000:]
        self._cleanup()
        return report

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.communicate(timeout=5)
        except Exception:  # noqa: BLE001
            pass

    def _cleanup(self) -> None:
        try:
            self._err.close()
            self._err_path.unlink(missing_ok=True)
        except OSError:
            pass


def json_default(o: Any) -> Any:
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    return str(o)


def emulated_selftest(identity: Any, summary: dict[str, Any], *, emulator_module: str, emulator_config: dict[str, Any],
                      make_rig: Callable[[Any], Any], run: Callable[[Any, "EmulatorProcess | None"], Any],
                      signals: Callable[[Any, Any], dict[str, Any] | None] | None = None,
                      report_keys: tuple[str, ...] = ("returncode", "twin", "drive", "terminals", "stderr"),
                      workdir: Path, cycle_hz: float, max_lost_frames: int, receive_timeout_s: float,
                      pd_watchdog_s: float, start_emulator: bool = True,
                      json_out: str | os.PathLike[str] | None = None, log: Callable[[str], None] | None = None
                      ) -> dict[str, Any]:
    """A rig file's self-test against its emulated devices: the part every drive-and-terminals rig shares.

    In a fresh pair of network namespaces: start the emulator process (``emulator_module`` with
    ``emulator_config``) in the slave namespace, build the rig (``make_rig``) from ``identity`` with
    the master's interface and the self-test's link thresholds, run the experiment (``run(rig,
    emulator)``, returning a session result with ``summary``, ``recording``, ``recording_valid``
    and ``validation_error``), and fill ``summary`` with what was found on the link, the session's
    summary, ``signals(result, rig)`` when the recording is valid, a fault (a rig fault, an OS or
    value error: ``stop_reason`` "bring-up fault" before the first cycle, else "fault") and the
    emulator's report (``report_keys``).

    Parameters
    ----------
    identity : RigSettings
    summary : dict
        The summary so far (robot, rig file, ...; must hold ``cycles`` = 0); filled in place.
    workdir : Path
        Exists; the recording and the emulator's files go there.
    cycle_hz, max_lost_frames, receive_timeout_s, pd_watchdog_s : float, int, float, float
        The rig's loop rate [Hz] and the link thresholds [-, s, s].
    json_out : path-like, optional
        Where the summary is written as JSON.

    Returns
    -------
    dict
        The summary, as JSON would give it back.

    Raises
    ------
    SelftestUnavailable
        Not root / no network namespaces.
    """
    from paperlib.rig import RigFault

    say = log or (lambda s: None)
    reason = netns.unavailable_reason()
    if reason:
        raise SelftestUnavailable(f"paperlib hardware selftest {reason}")
    t_start = time.perf_counter()
    emu = None
    with netns.NetnsPair() as pair:
        try:
            if start_emulator:
                emu = EmulatorProcess(pair, emulator_config, None, workdir=workdir, module=emulator_module)
                say(f"emulated rig started (pid {emu.info.get('pid')})")
            settings = replace(identity, interface=pair.ifname["master"], netns=pair.ns["master"], name="selftest",
                               emulated=True, cycle_hz=cycle_hz, max_lost_frames=max_lost_frames,
                               receive_timeout_s=receive_timeout_s, pd_watchdog_s=pd_watchdog_s)
            rig = make_rig(settings)
            try:
                res = run(rig, emu)
            finally:
                m = rig.master
                if m is not None and m.found:
                    summary["slaves_found"] = len(m.found)
                    summary["slaves"] = found_summary(m.found, m.config.chain)
                    summary["expected_wkc"] = m.expected_wkc
            summary.update(res.summary)
            summary.update(recording=None if res.recording is None else str(res.recording),
                           recording_valid=res.recording_valid, validation_error=res.validation_error,
                           source=rig.source, rig=rig.rig_label)
            if signals is not None and res.recording is not None and res.recording_valid:
                found = signals(res, rig)
                if found is not None:
                    summary["signals"] = found
        except (RigFault, RuntimeError, OSError, ValueError) as exc:
            summary["fault"] = f"{type(exc).__name__}: {exc}"
            summary["stop_reason"] = "bring-up fault" if summary["cycles"] == 0 else "fault"
            say("fault: " + summary["fault"])
        finally:
            if emu is not None:
                report = emu.stop()
                summary["emulator"] = {k: report.get(k) for k in report_keys if k in report}
    summary["wall_s"] = round(time.perf_counter() - t_start, 2)
    if summary["cycles"]:
        summary["wall_per_cycle_ms"] = round(1e3 * summary["wall_s"] / summary["cycles"], 4)
    if json_out is not None:
        Path(json_out).write_text(json.dumps(summary, indent=2, default=json_default) + "\n")
    return json.loads(json.dumps(summary, default=json_default))
