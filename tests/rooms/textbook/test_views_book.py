"""Slider views are self-contained (no outside URL they would load) and carry every frame; the
book finds rooms by folder, labels their sources, and builds a site from them."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import holoviews as hv

from paperlib.book.build import _landing, build_site
from paperlib.book.collect import discover
from paperlib.figures import views


def _hmap(freqs=(1.0, 2.0, 3.0)):
    t = np.linspace(0.0, 1.0, 50)
    return hv.HoloMap({f: hv.Curve((t, np.sin(2 * np.pi * f * t)), "time [s]", "y") for f in freqs},
                      kdims=[hv.Dimension("f", label="frequency [Hz]")])


def test_view_is_self_contained_and_holds_every_frame(tmp_path):
    p = views.save_view(_hmap((1.0, 2.0, 3.0, 4.0)), tmp_path / "v.html", title="test view",
                        provenance={"source": "model"})
    doc = p.read_text()
    # nothing loaded from outside: no script/link/img pointing at http(s)
    assert not re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="https?://', doc)
    assert "cdn.holoviz.org/panel" not in doc.split("<script", 1)[0]  # header links were inlined
    assert not re.findall(r'"https://cdn\.holoviz\.org/panel/[^"]+\.css', doc)
    side = json.loads(p.with_suffix(".json").read_text())
    assert side["frames"] == 4 and side["provenance"] == {"source": "model"}
    out = views.embed_view(p, height=300)
    assert f'class="{views.VIEW_CLASS}"' in out.data and "srcdoc=" in out.data


def test_view_shows_the_same_source_line_as_the_static_figures(tmp_path):
    from paperlib.figures.io import source_footer

    prov = {"source": "twin", "notebook": "notebooks/x.ipynb"}
    doc = views.save_view(_hmap(), tmp_path / "t.html", title="twin view", provenance=prov).read_text()
    line = source_footer(prov)
    assert "simulated" in line and line in doc  # the escaped line holds no HTML-special characters
    bare = views.save_view(_hmap(), tmp_path / "b.html", title="no source").read_text()
    assert f"{views.VIEW_CLASS}-source" in doc and f"{views.VIEW_CLASS}-source" not in bare


def test_dynamicmap_without_values_is_refused(tmp_path):
    dm = hv.DynamicMap(lambda f: hv.Curve([0, f]), kdims=["f"])
    with pytest.raises(ValueError, match="finite"):
        views.save_view(dm, tmp_path / "d.html", title="x")


def test_discover_rooms_sources_and_landing(tmp_path):
    res, fig = tmp_path / "results", tmp_path / "figures"
    (res / "alpha" / "notebooks").mkdir(parents=True)
    (res / "alpha" / "a.json").write_text(json.dumps({"source": "hardware"}))
    (res / "beta").mkdir()
    (res / "beta" / "b.json").write_text(json.dumps({"source": "twin"}))
    (res / "logs").mkdir()  # the pipeline's, not a room
    (res / "gamma").mkdir()
    (res / "gamma" / "paper_comparison.md").write_text("# an index of other tables\n")  # no table of its own
    (fig / "beta").mkdir(parents=True)
    (fig / "beta" / "f.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (fig / "beta" / "f.json").write_text(json.dumps({"source": "twin", "notebook": "notebooks/beta/01.ipynb"}))
    rooms = discover(res, fig)
    assert [r.slug for r in rooms] == ["alpha", "beta"]
    assert rooms[0].sources == {"hardware"} and rooms[1].sources == {"twin"}
    assert rooms[1].figures[0].notebook == "notebooks/beta/01.ipynb"
    page = _landing(rooms)
    assert "measured on hardware" in page and "digital twin (simulated)" in page
    assert "alpha/index" in page and "beta/index" in page


def test_broken_results_json_names_the_file(tmp_path):
    (tmp_path / "results" / "gamma").mkdir(parents=True)
    (tmp_path / "results" / "gamma" / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        discover(tmp_path / "results", tmp_path / "figures")


def test_build_refuses_an_empty_tree(tmp_path):
    from paperlib.book.build import BookError

    with pytest.raises(BookError, match="nothing to publish"):
        build_site(tmp_path / "results", tmp_path / "figures")


def test_static_copy_drops_cdn_loaders_and_stderr(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from paperlib.book.build import static_notebook

    nb = new_notebook(cells=[new_code_cell("x", outputs=[
        new_output("display_data", data={"application/javascript": "load('https://cdn.bokeh.org/x.js')",
                                         "application/vnd.holoviews_load.v0+json": "{}"}),
        new_output("display_data", data={"text/html": "<b>kept</b>", "application/vnd.holoviews_exec.v0+json": "{}"}),
        new_output("stream", name="stderr", text="progress 50%"),
        new_output("stream", name="stdout", text="kept too"),
    ])])
    src, dest = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    nbformat.write(nb, src)
    assert static_notebook(src, dest) == 4
    outs = json.loads(dest.read_text())["cells"][0]["outputs"]
    text = ["".join(o.get("data", {}).get("text/html") or o.get("text")) for o in outs]
    assert text == ["<b>kept</b>", "kept too"]
    assert "cdn.bokeh.org" not in dest.read_text()


def test_static_copy_removes_the_parameters_cells_and_keeps_the_rest(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from paperlib.book.build import static_notebook

    cells = [new_markdown_cell("# Lesson"), new_code_cell("seed = 1"), new_code_cell("# Parameters\nseed = 2"),
             new_code_cell("plot(seed)")]
    cells[1].metadata["tags"] = ["parameters"]
    cells[2].metadata["tags"] = ["injected-parameters"]
    src, dest = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    nbformat.write(new_notebook(cells=cells), src)
    static_notebook(src, dest)
    tags = [c["metadata"].get("tags", []) for c in json.loads(dest.read_text())["cells"]]
    assert ["remove-cell" in t for t in tags] == [False, True, True, False]


def test_pipeline_refuses_a_lesson_it_does_not_know(tmp_path, monkeypatch):
    from paperlib.experiments.textbook import pipeline as tp

    cfg = tp.load_config()
    assert set(tp.notebooks(cfg)) <= set(cfg["notebooks"])
    cfg["notebooks"].pop(tp.notebooks(cfg)[0])
    with pytest.raises(ValueError, match="list the outputs"):
        tp.notebooks(cfg)
    p = tp.notebook_params(tp.load_config(), "01_linear_model", results_dir="R/textbook", figures_dir="F/textbook")
    assert p == {"figures_dir": "F/textbook", "views_dir": "R/textbook/views", "results_file": "R/textbook/01_linear_model.json"}
