"""``paperlib reproduce --source``: a room that has no path for the source asked refuses, naming
the sources it has; nothing falls back to the twin.

Every room of the compendium now reads ``twin``, ``hardware`` and ``archive``, so the refusal is
exercised on a twin-only toy room written into a temporary folder and found through
``PAPERLIB_ROOMS_PATH`` (as a sixth lab's room would be).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperlib.cli import main as cli_main
from paperlib.experiments.kit import registry

TOY_INIT = '''\
"""A twin-only toy room (written by tests/layers/experiments/test_sources.py)."""
from paperlib.experiments.kit import Paper, Room

PAPER = Paper(slug="twinonly", title="A twin-only toy paper", seed_file="999_twinonly.txt", status="partial",
              builds="a toy figure from its twin")
ROOM = Room(paper=PAPER, sources=("twin",))
'''


@pytest.fixture
def twin_only_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    d = tmp_path / "rooms" / "twinonly"
    d.mkdir(parents=True)
    (d / "__init__.py").write_text(TOY_INIT)
    monkeypatch.setenv(registry.ROOMS_PATH_ENV, str(tmp_path / "rooms"))
    registry.reset()
    yield "twinonly"
    monkeypatch.delenv(registry.ROOMS_PATH_ENV)
    registry.reset()


@pytest.mark.parametrize("source", ["hardware", "archive"])
def test_a_room_without_the_source_refuses(source, twin_only_room, capsys):
    assert registry.room(twin_only_room).sources == ("twin",)
    rc = cli_main(["reproduce", twin_only_room, "--source", source, "--dry-run"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{twin_only_room} cannot read its recordings from --source {source}" in err
    assert "twin" in err and "falls back" in err


@pytest.mark.parametrize("source", ["hardware", "archive"])
def test_the_refusal_names_the_room_that_cannot(source, twin_only_room, capsys):
    """With several papers, the one that cannot is named, even when another one can."""
    can = [r.slug for r in registry.rooms() if source in r.sources]
    assert can, f"no room of the compendium reads --source {source}"
    rc = cli_main(["reproduce", can[0], twin_only_room, "--source", source, "--dry-run"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{twin_only_room} cannot read its recordings from --source {source}" in err
    assert f"{can[0]} cannot" not in err


def test_every_room_of_the_compendium_rebuilds_from_its_twin_and_from_a_release():
    lacking = {r.slug: r.sources for r in registry.rooms() if not {"twin", "archive"} <= set(r.sources)}
    assert not lacking, f"rooms without the twin or the archive source: {lacking}"
