"""figures/<slug>/README.md is written from the sidecars: it lists what exists, with its provenance."""

from __future__ import annotations

import json
from pathlib import Path

import holoviews as hv
import numpy as np
import pytest

from paperlib.figures import io as fio
from paperlib.figures.catalog import catalog_text, figure_entries, main, write_catalog

hv.extension("matplotlib")


def _figure(folder: Path, stem: str, recordings: list[dict]) -> None:
    curve = hv.Curve((np.arange(5.0), np.arange(5.0) ** 2), "t [s]", "q [rad]")
    fio.save(curve, folder / stem, ("png",), provenance={"notebook": "notebooks/toy/01_x.ipynb", "source": "twin",
                                                          "git_commit": "a" * 40, "recordings": recordings})


def test_catalog_lists_every_figure_with_its_recordings_and_nothing_else(tmp_path: Path) -> None:
    made = {"file": "results/toy/recordings/run_1.nc", "seed": 7, "sha256": "b" * 64, "recording_git_commit": "c" * 40}
    foreign = {"file": "data/tx40.nc", "sha256": "d" * 64}  # another program's data: no commit to name
    group = {"name": "01_x-*.nc", "files": [{"file": "01_x-a.nc"}, {"file": "01_x-b.nc"}]}
    _figure(tmp_path, "fig03c_components", [made])
    _figure(tmp_path, "periodogram", [foreign, group])
    (tmp_path / "notes.json").write_text(json.dumps({"not": "a sidecar"}))  # no "files": not a figure
    entries = figure_entries(tmp_path)
    assert [e["stem"] for e in entries] == ["fig03c_components", "periodogram"]
    assert entries[0]["paper_figure"] == "Fig. 3c" and entries[1]["paper_figure"] == ""
    assert entries[0]["recordings"] == ["`run_1.nc` (seed 7, sha256 bbbbbbbbbbbb, made at cccccccccccc)"]
    assert entries[1]["recordings"] == ["`tx40.nc` (sha256 dddddddddddd)",
                                        "01_x-*.nc (2 files, each with its sha256 in the sidecar)"]
    path = write_catalog(tmp_path, title="Figures of the room `toy`")
    text = path.read_text()
    assert text == catalog_text(tmp_path, title="Figures of the room `toy`")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 2 and "notes" not in text and "`aaaaaaaaaaaa`" in text
    assert "| `fig03c_components` | Fig. 3c | png |" in rows[0]


def test_catalog_says_when_an_image_is_gone(tmp_path: Path) -> None:
    _figure(tmp_path, "fig01_x", [])
    (tmp_path / "fig01_x.png").unlink()
    [entry] = figure_entries(tmp_path)
    assert entry["formats"] == [] and entry["missing"] == ["fig01_x.png"]
    assert "(missing: fig01_x.png)" in catalog_text(tmp_path)


def test_no_figures_no_catalogue_and_a_broken_sidecar_is_named(tmp_path: Path, capsys) -> None:
    assert write_catalog(tmp_path) is None and not (tmp_path / "README.md").exists()
    (tmp_path / "fig01_x.json").write_text("{not json")
    with pytest.raises(ValueError, match="fig01_x.json: not a figure sidecar"):
        figure_entries(tmp_path)
    assert main([str(tmp_path)]) == 1 and "fig01_x.json" in capsys.readouterr().err
