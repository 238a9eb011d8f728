"""Every room from its own data release, bit for bit, with no twin code run (issue 23).

For each registered room that understands ``--source archive``: build it from the twin into an
empty folder (the smoke configuration, ``config/smoke.yaml``), release what the build used
(``paperlib archive pack``), build it again from the release into another empty folder with every
twin run forbidden (``PAPERLIB_FORBID_TWIN``, which ``reproduce --archive`` also sets itself), and
compare the two ``paper_comparison.csv`` byte for byte. Minutes per room: marker ``archive``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperlib.experiments.kit import registry
from paperlib.twin.guard import FORBID_ENV

pytestmark = pytest.mark.archive

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE_ROOMS = [r.slug for r in registry.rooms() if "archive" in r.sources and r.paper.status != "planned"]


def _paperlib(*args: str, forbid: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop(FORBID_ENV, None)
    if forbid:
        env[FORBID_ENV] = "1"
    return subprocess.run([sys.executable, "-m", "paperlib", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True)


def _ok(proc: subprocess.CompletedProcess, what: str) -> None:
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"


@pytest.mark.parametrize("slug", ARCHIVE_ROOMS)
def test_room_rebuilds_from_its_release_bit_for_bit(slug: str, tmp_path: Path) -> None:
    twin, again, release = tmp_path / "twin", tmp_path / "archive", tmp_path / "release"
    common = ["--config", "config/smoke.yaml", "--cores", "2", "--quiet"]
    _ok(_paperlib("reproduce", slug, *common, "--results-dir", str(twin / "results"),
                  "--figures-dir", str(twin / "figures")), f"reproduce {slug} (twin)")
    _ok(_paperlib("archive", "pack", slug, "--results-root", str(twin / "results"), "--figures-root",
                  str(twin / "figures"), "--output", str(release)), f"archive pack {slug}")
    _ok(_paperlib("archive", "verify", str(release)), "archive verify")
    _ok(_paperlib("reproduce", slug, *common, "--archive", str(release), "--results-dir", str(again / "results"),
                  "--figures-dir", str(again / "figures"), forbid=True), f"reproduce {slug} --archive")
    a = (twin / "results" / slug / "paper_comparison.csv").read_bytes()
    b = (again / "results" / slug / "paper_comparison.csv").read_bytes()
    assert a == b, f"{slug}: the table from the release differs from the twin build's"
    made = sorted(p.name for p in (again / "results" / slug / "recordings").glob("*.nc"))
    assert made, f"{slug}: the build from the release read no recording"
