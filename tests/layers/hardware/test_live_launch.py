"""A live run killed without clean-up leaves its mirror folder; the next live run removes it, and only it."""

import os
import subprocess
import sys

from paperlib.hardware.live_launch import FOLDER_PREFIX, OWNER_FILE, remove_orphaned_mirrors


def test_only_folders_of_runs_that_are_gone_are_removed(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its pid names no process now
    folders = {}
    for name, owner in (("dead", str(gone.pid)), ("alive", str(os.getpid())), ("unowned", None), ("garbled", "x")):
        d = tmp_path / f"{FOLDER_PREFIX}{name}"
        (d / "mirror").mkdir(parents=True)
        if owner is not None:
            (d / OWNER_FILE).write_text(owner + "\n")
        folders[name] = d
    other = tmp_path / "someone-else"
    other.mkdir()

    removed = remove_orphaned_mirrors(tmp_path)

    assert removed == [folders["dead"]]
    assert not folders["dead"].exists()
    assert all(folders[n].is_dir() for n in ("alive", "unowned", "garbled")) and other.is_dir()
