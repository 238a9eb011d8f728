"""``paperlib reproduce --source``: a room that has no path for the source asked refuses, naming
the sources it has; nothing falls back to the twin."""

from __future__ import annotations

import pytest

from paperlib.cli import main as cli_main
from paperlib.experiments.kit import registry


def _twin_only() -> list[str]:
    return [r.slug for r in registry.rooms() if "hardware" not in r.sources]


@pytest.mark.parametrize("source", ["hardware", "archive"])
def test_a_room_without_the_source_refuses(source, capsys):
    rooms = [r.slug for r in registry.rooms() if source not in r.sources]
    assert rooms, f"every room has --source {source}: nothing left to refuse"
    slug = rooms[0]
    rc = cli_main(["reproduce", slug, "--source", source, "--dry-run"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{slug} cannot read its recordings from --source {source}" in err
    assert ", ".join(registry.room(slug).sources) in err and "falls back" in err


def test_the_refusal_names_the_first_room_that_cannot(capsys):
    """With several papers, the one that cannot is named, even when another can."""
    can = [r.slug for r in registry.rooms() if "hardware" in r.sources]
    cannot = _twin_only()
    if not can or not cannot:
        pytest.skip("needs one room with a hardware path and one without")
    rc = cli_main(["reproduce", can[0], cannot[0], "--source", "hardware", "--dry-run"])
    assert rc == 2 and f"{cannot[0]} cannot read its recordings from --source hardware" in capsys.readouterr().err
