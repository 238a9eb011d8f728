"""The hardware benchmarks name every rig file, and are left out where the self-test cannot run."""

from __future__ import annotations

from paperlib.hardware import bench


def test_selftest_keys_cover_every_rig_file_or_none(monkeypatch):
    rigs = bench.rig_files()
    assert rigs, "config/rigs/ holds no rig file"
    monkeypatch.setattr("paperlib.hardware.netns.unavailable_reason", lambda: None)
    keys = bench.benchmarks()
    assert len(keys) == len(rigs) * len(bench.KEYS)
    for rig in rigs:
        assert f"selftest_{rig.stem}_deadline_met_fraction" in keys
    monkeypatch.setattr("paperlib.hardware.netns.unavailable_reason", lambda: "needs root")
    assert bench.benchmarks() == {}
