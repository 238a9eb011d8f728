"""What the self-tests share: the emulated rig as a subprocess in the slave namespace, the JSON encoding.

Used by :mod:`paperlib.hardware.selftest` (the 5R's rig) and :mod:`paperlib.hardware.joint_selftest`
(a single-joint rig's).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from paperlib.hardware import netns

__all__ = ["SelftestUnavailable", "EmulatorProcess", "json_default", "REPO"]

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
