"""The cold-start bench keys: registered with ``paperlib bench``, and a failing command is an error, not a time."""

from __future__ import annotations

import pytest

from paperlib import bench, cli_bench


def test_the_keys_are_collected() -> None:
    found = bench.collect(["cli_help_s", "reproduce_list_s"])
    assert set(found) == {"cli_help_s", "reproduce_list_s"}


def test_a_failing_command_raises_with_its_error() -> None:
    with pytest.raises(RuntimeError, match="(?s)exited with 2.*invalid choice: 'nosuch'"):
        cli_bench.median_wall_s(["nosuch"], runs=1)
    with pytest.raises(ValueError, match="runs must be >= 1"):
        cli_bench.median_wall_s(["--help"], runs=0)
