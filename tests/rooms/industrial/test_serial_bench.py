"""Bench key ``serial_identify_tx40_s``: offered only where the TX40 files are on this machine."""

from __future__ import annotations

from paperlib.data import registry as data_registry
from paperlib.experiments.industrial import serial_bench


def test_no_mirror_no_key(monkeypatch) -> None:
    monkeypatch.setattr(data_registry, "find_mirror", lambda name, mirror=None: None)
    assert serial_bench.benchmarks() == {}


def test_a_mirror_offers_the_key(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(data_registry, "find_mirror", lambda name, mirror=None: tmp_path)
    assert list(serial_bench.benchmarks()) == ["serial_identify_tx40_s"]
