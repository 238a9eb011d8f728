"""The hardware benchmarks name every rig file, and are left out where the self-test cannot run."""

from __future__ import annotations

from paperlib.hardware import bench


def test_selftest_keys_cover_every_rig_file_or_none(monkeypatch):
    rigs = bench.rig_files()
    assert rigs, "config/rigs/ holds no rig file"
    monkeypatch.setattr("paperlib.hardware.netns.unavailable_reason", lambda: None)
    keys = bench.benchmarks()
    assert len(keys) == len(rigs) * len(bench.KEYS)
    # key names only: the values are the host's and are reported by `paperlib bench`, never asserted
    assert set(keys) == {f"selftest_{rig.stem}_{key}" for rig in rigs for key in bench.KEYS}
    monkeypatch.setattr("paperlib.hardware.netns.unavailable_reason", lambda: "needs root")
    assert bench.benchmarks() == {}
