"""The room kit (:mod:`paperlib.experiments.kit`): one encoder, one merge rule, schemas, the registry.

A sixth toy room written into a temporary folder (found through ``PAPERLIB_ROOMS_PATH``) is
discovered and its command shows in ``paperlib --help`` with no other file edited.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperlib.experiments import kit
from paperlib.experiments.kit import config as kconfig
from paperlib.experiments.kit import jsonio, outputs, parameters, registry
from paperlib.provenance import REPO_ROOT

ROOM_SLUGS = ["mems", "industrial", "rrr", "textbook", "bearing"]


# -- the one encoder ------------------------------------------------------------------------------

def test_the_encoder_writes_nan_and_inf_as_null() -> None:
    data = {"a": float("nan"), "b": np.float64("nan"), "c": np.array([1.0, np.nan, np.inf]), "d": -math.inf,
            "e": np.float32("inf"), "f": [np.nan, {"g": np.nan}]}
    text = jsonio.dumps(data)
    assert "NaN" not in text and "Infinity" not in text
    back = json.loads(text)
    assert back == {"a": None, "b": None, "c": [1.0, None, None], "d": None, "e": None, "f": [None, {"g": None}]}


def test_the_encoder_writes_finite_data_as_json_dumps_sorted_indent_1() -> None:
    """For finite numbers the bytes are those the old writers made (``json.dumps(..., sort_keys, indent=1)``)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=5)
    data = {"z": np.float64(x[0]), "a": x, "n": np.int64(7), "flag": np.bool_(True), "nested": {"b": (1, 2.5)},
            "by_order": {2: "two", 10: "ten"}, "path": Path("results/x.json"), "f32": np.float32(0.1)}
    plain = {"z": float(x[0]), "a": [float(v) for v in x], "n": 7, "flag": True, "nested": {"b": [1, 2.5]},
             "by_order": {2: "two", 10: "ten"}, "path": "results/x.json", "f32": float(np.float32(0.1))}
    assert jsonio.dumps(data) == json.dumps(plain, sort_keys=True, indent=1)
    back = json.loads(jsonio.dumps(data))
    assert back["a"] == [float(v) for v in x]  # floats read back bit for bit
    assert list(back["by_order"]) == ["2", "10"]  # int keys sort as numbers, as json.dumps sorts them


def test_the_encoder_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="set"):
        jsonio.dumps({"s": {1, 2}})


def test_mixed_key_kinds_are_written_as_strings() -> None:
    assert json.loads(jsonio.dumps({1: "a", "b": 2})) == {"1": "a", "b": 2}


def test_write_results_sets_source_provenance_notes(tmp_path: Path) -> None:
    p = outputs.write_results(tmp_path / "r" / "x.json", {"v": np.float64(1.5), "source": "old", "bad": np.nan},
                              provenance={"notebook": "n.ipynb"}, source="twin", notes=["a note"])
    text = p.read_text()
    assert text.endswith("}\n") and json.loads(text) == {"v": 1.5, "source": "twin", "bad": None,
                                                         "provenance": {"notebook": "n.ipynb"}, "notes": ["a note"]}


def test_outputs_context_writes_results_with_the_model_source(tmp_path: Path) -> None:
    run = outputs.Outputs("notebooks/x/01.ipynb", output_dir=tmp_path / "fig", results_file=tmp_path / "res.json",
                          parameters={"k": 1})
    run.note("twin calibrated")
    out = json.loads(run.write_results({"value": np.array([1.0, 2.0])}).read_text())
    assert out["source"] == "model" and out["value"] == [1.0, 2.0] and out["notes"] == ["twin calibrated"]
    assert out["provenance"]["notebook"] == "notebooks/x/01.ipynb" and out["provenance"]["parameters"] == {"k": 1}


# -- configuration ------------------------------------------------------------------------------

def test_deep_merge_merges_nested_mappings_and_leaves_inputs_alone() -> None:
    base = {"a": 1, "n": {"x": 1, "y": {"p": 1, "q": 2}}, "l": [1, 2]}
    over = {"n": {"y": {"q": 3}, "z": 4}, "l": [9], "b": None}
    out = kconfig.deep_merge(base, over)
    assert out == {"a": 1, "n": {"x": 1, "y": {"p": 1, "q": 3}, "z": 4}, "l": [9], "b": None}
    assert base == {"a": 1, "n": {"x": 1, "y": {"p": 1, "q": 2}}, "l": [1, 2]} and over["n"] == {"y": {"q": 3}, "z": 4}
    out["n"]["y"]["p"] = 99
    assert base["n"]["y"]["p"] == 1  # a deep copy


SCHEMA = kconfig.Schema({
    "source": kconfig.Key(str, allowed=("twin", "hardware")),
    "rate_hz": kconfig.Key(float),
    "seeds": kconfig.Key(list, items=int),
    "notebooks": kconfig.Key(dict, values=kconfig.Schema({"n": kconfig.Key(int, required=True)})),
})


@pytest.mark.parametrize("cfg,key", [
    ({"sorce": "twin"}, "sorce"),
    ({"source": "robot"}, "source"),
    ({"rate_hz": "fast"}, "rate_hz"),
    ({"rate_hz": True}, "rate_hz"),
    ({"seeds": [1, 2.5]}, "seeds[1]"),
    ({"notebooks": {"01_a": {"n": "x"}}}, "notebooks.01_a.n"),
    ({"notebooks": {"01_a": {}}}, "notebooks.01_a.n"),
    ({"notebooks": {"01_a": {"n": 1, "m": 2}}}, "notebooks.01_a.m"),
])
def test_validation_names_the_key_and_the_file(tmp_path: Path, cfg: dict, key: str) -> None:
    f = tmp_path / "room.yaml"
    f.write_text(json.dumps(cfg))  # JSON is YAML
    with pytest.raises(kconfig.ConfigError) as exc:
        registry.load_room_config("toy", path=f, schema=SCHEMA)
    assert key in str(exc.value) and str(f) in str(exc.value)


def test_a_valid_configuration_loads_and_the_run_section_is_merged(tmp_path: Path) -> None:
    f = tmp_path / "room.yaml"
    f.write_text("source: twin\nrate_hz: 200\nnotebooks:\n  01_a: {n: 1}\n")
    cfg = registry.load_room_config("toy", {"toy": {"notebooks": {"01_a": {"n": 5}}}, "other": {"x": 1}}, path=f,
                                   schema=SCHEMA)
    assert cfg == {"source": "twin", "rate_hz": 200, "notebooks": {"01_a": {"n": 5}}}
    with pytest.raises(kconfig.ConfigError, match=r"run configuration.*notebooks\.01_a\.n"):
        registry.load_room_config("toy", {"toy": {"notebooks": {"01_a": {"n": 0.5}}}}, path=f, schema=SCHEMA)


@pytest.mark.parametrize("slug", ROOM_SLUGS)
def test_every_room_has_its_config_file_and_it_validates(slug: str) -> None:
    assert kconfig.config_path(slug).is_file(), f"config/{slug}.yaml missing"
    r = registry.room(slug)
    assert r.config is not None, f"{slug}: no configuration schema"
    r.config.validate(kconfig.read_yaml(kconfig.config_path(slug)), str(kconfig.config_path(slug)))


def test_the_smoke_run_configuration_validates_for_every_room() -> None:
    run = kconfig.read_yaml(REPO_ROOT / "config" / "smoke.yaml")
    for slug in ROOM_SLUGS:
        registry.load_room_config(slug, run)


def test_a_bad_run_section_is_refused_by_a_room_naming_the_key() -> None:
    from paperlib.experiments.bearing import pipeline as B

    with pytest.raises(kconfig.ConfigError, match="n_per_grde"):
        B.load_config({"bearing": {"n_per_grde": 10}})
    with pytest.raises(ValueError, match="cutoff_hz"):
        B.load_config({"bearing": {"cutoff_hz": "high"}})


def test_schemas_allow_what_the_rooms_accept() -> None:
    from paperlib.experiments.bearing import study
    from paperlib.experiments.bearing.config_schema import SCHEMA as BEARING
    from paperlib.experiments.mems import sources
    from paperlib.experiments.mems.config_schema import SCHEMA as MEMS
    from paperlib.recordings.storage import KEEP_MODES

    assert set(MEMS.keys["source"].allowed) == set(sources.SOURCES)
    assert set(MEMS.keys["recording_storage"].allowed) == set(KEEP_MODES)
    assert set(BEARING.keys) == set(study.DEFAULTS) | {"formats"}


def test_rrr_config_holds_the_notebooks_defaults() -> None:
    """config/rrr.yaml was written from the notebooks' defaults: the same numbers."""
    from paperlib.experiments.rrr import pipeline as R

    cfg = R.load_config()
    for nb in R.NOTEBOOKS:
        declared = parameters.declared(REPO_ROOT / "notebooks" / "rrr" / f"{nb}.ipynb")
        for k, v in (cfg["notebooks"].get(nb) or {}).items():
            assert declared[k] == v, f"{nb}: {k} = {v} in config/rrr.yaml, {declared[k]} in the notebook"
        params = R.notebook_params(nb, cfg, "results/rrr", "figures/rrr", "results/rrr/recordings/sampling_pd.nc")
        parameters.check(REPO_ROOT / "notebooks" / "rrr" / f"{nb}.ipynb", params)
        assert params["formats"] == declared["formats"]


# -- the notebook-parameter check ----------------------------------------------------------------

def test_parameter_check_refuses_an_undeclared_parameter() -> None:
    nb = REPO_ROOT / "notebooks" / "rrr" / "01_identification.ipynb"
    names = parameters.declared(nb)
    parameters.check(nb, {k: names[k] for k in list(names)[:2]})
    with pytest.raises(parameters.ParameterError, match="n_strats"):
        parameters.check(nb, {"n_strats": 3})


# -- the registry --------------------------------------------------------------------------------

def test_discovery_finds_the_five_rooms_in_seed_file_order() -> None:
    rooms = registry.rooms()
    assert [r.slug for r in rooms] == ROOM_SLUGS
    files = [r.paper.seed_file for r in rooms]
    assert files == sorted(files) and all(re.match(r"^\d{3}_[0-9a-f]+\.txt$", f) for f in files)
    pkgs = sorted(p.parent.name for p in (REPO_ROOT / "paperlib" / "experiments").glob("*/__init__.py"))
    assert sorted(r.slug for r in rooms) == [p for p in pkgs if p != "kit"]


def test_every_room_declares_paper_and_room() -> None:
    import importlib

    for r in registry.rooms():
        mod = importlib.import_module(f"paperlib.experiments.{r.slug}")
        assert mod.PAPER is r.paper and isinstance(r.paper, kit.Paper) and r.paper.slug == r.slug
        command_modules = [getattr(c, "module", c) for c in r.commands]  # a kit Command or a module name
        for name in [*command_modules, *r.bench, *r.figures] + ([r.sweep_runner] if r.sweep_runner else []):
            assert importlib.util.find_spec(name) is not None, f"{r.slug}: {name} does not exist"
        for check in registry.config_checks(r.slug):
            assert callable(check)


def test_papers_come_from_the_registry() -> None:
    from paperlib.experiments import papers

    rows = papers()
    assert [p["slug"] for p in rows] == ROOM_SLUGS
    assert all(p["status"] in kit.STATUSES and p["paper_file"] for p in rows)


def test_the_generic_layers_name_no_room() -> None:
    """The layers that read the registry hold no room slug (code, comments or docstrings)."""
    layers = [REPO_ROOT / "paperlib" / f for f in ("cli.py", "bench.py", "comparison.py", "experiments/cli.py",
                                                  "experiments/__init__.py")]
    for d in ("sweeps", "sensitivity", "book", "figures"):
        layers += sorted((REPO_ROOT / "paperlib" / d).glob("*.py"))
    pattern = re.compile(r"\b(" + "|".join(r.slug for r in registry.rooms()) + r")\b")
    hits = [f"{p.relative_to(REPO_ROOT)}:{i}" for p in layers for i, line in enumerate(p.read_text().splitlines(), 1)
            if pattern.search(line)]
    assert not hits, f"room slugs in generic layers: {hits}"


TOY_INIT = '''\
"""A toy sixth room (written by tests/layers/experiments/test_room_kit.py)."""
from paperlib.experiments.kit import Key, Paper, Room, Schema

PAPER = Paper(slug="{slug}", title="A toy paper", seed_file="999_toy.txt", status="planned", builds="nothing")
ROOM = Room(paper=PAPER, commands=("paperlib.experiments.{slug}.cli",), config=Schema({{"x": Key(int)}}))
'''

TOY_CLI = '''\
def add_parser(sub):
    p = sub.add_parser("{slug}", help="the toy room's own command")
    p.set_defaults(func=lambda args: print("toy ran") or 0)
'''


def _toy_room(root: Path, slug: str = "toyroom") -> Path:
    d = root / slug
    d.mkdir(parents=True)
    (d / "__init__.py").write_text(TOY_INIT.format(slug=slug))
    (d / "cli.py").write_text(TOY_CLI.format(slug=slug))
    return root


def _paperlib(*argv: str, rooms_path: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(registry.ROOMS_PATH_ENV, None)
    if rooms_path is not None:
        env[registry.ROOMS_PATH_ENV] = str(rooms_path)
    return subprocess.run([sys.executable, "-m", "paperlib", *argv], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_sixth_room_in_its_own_folder_is_discovered_and_its_command_listed(tmp_path: Path) -> None:
    root = _toy_room(tmp_path / "rooms")
    before = _paperlib("--help")
    assert before.returncode == 0 and "toyroom" not in before.stdout
    after = _paperlib("--help", rooms_path=root)
    assert after.returncode == 0, after.stderr
    assert re.search(r"^\s+toyroom\s+the toy room's own command", after.stdout, re.M), after.stdout
    ran = _paperlib("toyroom", rooms_path=root)
    assert ran.returncode == 0 and "toy ran" in ran.stdout
    listed = _paperlib("reproduce", "--list", rooms_path=root)
    assert listed.returncode == 0 and re.search(r"^toyroom\s+planned\s+A toy paper", listed.stdout, re.M)
    assert listed.stdout.index("bearing") < listed.stdout.index("toyroom")  # ordered by seed file (999_ last)


def test_the_toy_room_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _toy_room(tmp_path / "rooms", slug="toyroom_b")
    monkeypatch.setenv(registry.ROOMS_PATH_ENV, str(root))
    registry.reset()
    try:
        assert registry.slugs()[-1] == "toyroom_b"
        assert "paperlib.experiments.toyroom_b.cli" in registry.command_modules()
        with pytest.raises(kconfig.ConfigError, match="'x'"):
            registry.room("toyroom_b").config.validate({"x": "one"}, "toy.yaml")
    finally:
        monkeypatch.delenv(registry.ROOMS_PATH_ENV)
        registry.reset()
    with pytest.raises(KeyError, match="toyroom_b"):
        registry.room("toyroom_b")


def test_a_room_whose_slug_is_not_its_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "rooms" / "wrongname"
    d.mkdir(parents=True)
    (d / "__init__.py").write_text(TOY_INIT.format(slug="other"))
    monkeypatch.setenv(registry.ROOMS_PATH_ENV, str(tmp_path / "rooms"))
    registry.reset()
    try:
        with pytest.raises(ValueError, match="wrongname"):
            registry.rooms()
    finally:
        monkeypatch.delenv(registry.ROOMS_PATH_ENV)
        registry.reset()
