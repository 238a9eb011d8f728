"""The device emulator (:mod:`paperlib.hardware.emulators.devices`) as a subprocess, for the hardware tests.

Shared by ``test_ethercat.py`` and ``test_ethercat_chains.py`` (imported by name: pytest puts this
folder on ``sys.path`` for its test modules).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
from typing import Any

from paperlib.hardware import netns
from paperlib.provenance import REPO_ROOT


class Emulator:
    """The emulator subprocess in the pair's slave namespace."""

    def __init__(self, pair: netns.NetnsPair, config: dict[str, Any] | None = None, timeout: float = 20.0) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        argv = [sys.executable, "-m", "paperlib.hardware.emulators.devices",
                "--ifname", pair.ifname["slave"], "--config", json.dumps(config or {})]
        self.proc = pair.popen("slave", argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=str(REPO_ROOT), env=env)
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        line = ""
        if sel.select(timeout):
            line = self.proc.stdout.readline().strip()
        sel.close()
        if line != "READY":
            self.proc.kill()
            _, err = self.proc.communicate(timeout=5)
            raise RuntimeError(f"emulator did not start: {line!r} {err[-2000:]}")

    def stop(self) -> dict[str, Any]:
        """SIGTERM; return the STATS report."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=20)
        for line in out.splitlines():
            if line.startswith("STATS "):
                return json.loads(line[6:])
        return {"stderr": err[-2000:], "returncode": self.proc.returncode}

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=5)
