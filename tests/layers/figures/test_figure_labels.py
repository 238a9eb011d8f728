"""Every figure says where its data came from (footer drawn from the provenance's source)."""

from __future__ import annotations

import json

import numpy as np

from paperlib.figures import io as fio


def test_footer_names_the_source_and_the_recordings():
    text = fio.source_footer({"source": "twin", "recordings": [{"file": "results/mems/recordings/ac.nc"}],
                              "notebook": "notebooks/mems/04_controller_comparison.ipynb"})
    assert "digital twin" in text and "simulated" in text and "ac.nc" in text and "04_controller" in text
    assert "measured on the robot" in fio.source_footer({"source": "hardware"})
    assert "robot model" in fio.source_footer({"source": "model"})
    assert fio.source_footer({}) is None


def test_footer_says_when_the_data_came_through_the_emulated_rig():
    rig = {"file": "results/rrr/recordings/sampling_pd.nc", "rig": "emulated-hardware"}
    twin = {"file": "results/rrr/recordings/t5_400.nc"}
    assert "digital twin (simulated, not measured) through the emulated rig |" in fio.source_footer(
        {"source": "twin", "recordings": [rig]})
    assert "(partly through the emulated rig)" in fio.source_footer({"source": "twin", "recordings": [rig, twin]})
    assert "emulated rig" not in fio.source_footer({"source": "twin", "recordings": [twin]})


def test_saved_figure_carries_the_footer(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure

    drawn = []
    real_text = matplotlib.figure.Figure.text

    def spy(self, x, y, s, *a, **k):
        drawn.append(s)
        return real_text(self, x, y, s, *a, **k)

    monkeypatch.setattr(matplotlib.figure.Figure, "text", spy)
    fig = matplotlib.figure.Figure()
    fig.add_subplot().plot(np.arange(3))
    files = fio.save(fig, tmp_path / "f", ("png",), provenance={"source": "hardware"})
    assert any("measured on the robot" in s for s in drawn)
    side = json.loads(files[-1].read_text())
    assert side["source"] == "hardware" and "f.png" in side["files"]
