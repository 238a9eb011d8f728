"""Data releases (paperlib.archive): pack a build's recordings, verify a release, resolve a folder or URL.

The build is a small tree made here: schema-2 recordings written with the project's writer
(twin and hardware, one imported from third-party data with its own licence, one outside the
results folder named only by a figure sidecar), and the sidecar / result JSON that name them with
their sha256, as the rooms write them.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
import yaml

from paperlib.archive import ArchiveError, METADATA_FILES, pack, resolve, verify
from paperlib.archive.citation import CFF_REQUIRED, ZENODO_REQUIRED
from paperlib.cli import main
from paperlib.recordings import from_arrays, load_recording_registry, verify_registry, write_recording

PAPER = "toy"
TWIN_A = "results/toy/recordings/run_a.nc"
HW_B = "results/toy/recordings/run_b.nc"
SHARED = "data/recordings/shared.nc"
ALL = (TWIN_A, HW_B, SHARED)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write(path: Path, source: str, *, n: int, fs: float, seed: int, attrs: dict | None = None) -> Path:
    rng = np.random.default_rng(seed)
    t = np.arange(n) / fs
    q = np.column_stack([np.sin(2 * np.pi * 0.5 * t), 0.3 * np.cos(2 * np.pi * 0.2 * t)])
    tau = 0.1 * np.sign(np.gradient(q, axis=0)) + 0.01 * rng.standard_normal(q.shape)
    extra = {"truth": {"coulomb_Nm": [0.1, 0.1]}, "seed": seed} if source == "twin" else {}
    ds = from_arrays(q, sample_rate_hz=fs, robot="toy_arm", source=source, channels={"tau_m": tau},
                     torque_side="motor", controller="PD", attrs=attrs, **extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_recording(ds, path)


@pytest.fixture()
def build(tmp_path: Path) -> Path:
    """A repository root with a built paper `toy`: results/, figures/ and one recording in data/."""
    root = tmp_path / "repo"
    a = _write(root / TWIN_A, "twin", n=300, fs=100.0, seed=1, attrs={"description": "PD sweep, twin"})
    b = _write(root / HW_B, "hardware", n=250, fs=50.0, seed=2,
               attrs={"licence": "Apache-2.0", "origin_url": "https://example.org/toy-data/",
                      "description": "imported public recording"})
    c = _write(root / SHARED, "twin", n=120, fs=200.0, seed=3)
    fig = root / "figures" / PAPER / "fig01_fit.json"
    fig.parent.mkdir(parents=True)
    fig.write_text(json.dumps({"notebook": "notebooks/toy/01_fit.ipynb", "git_commit": "0123456789abcdef0123",
                               "recordings": [{"file": SHARED, "sha256": _sha(c), "source": "twin"},
                                              {"file": str(a), "sha256": _sha(a), "source": "twin"}],
                               "files": {"fig01_fit.png": {"sha256": "00" * 32, "bytes": 1}}}))
    res = root / "results" / PAPER / "01_fit.json"
    res.write_text(json.dumps({"notebook": "01_fit", "git_commit": "0123456789abcdef0123",
                               "recording": {"path": HW_B, "sha256": _sha(b)}, "value": 1.5}))
    return root


@pytest.fixture()
def release(build: Path, tmp_path: Path) -> Path:
    return pack([PAPER], tmp_path / "release", results_root=build / "results", authors=["Doe, Jane", "Lab X"],
                date="2026-12-03")


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_pack_copies_every_used_recording_byte_for_byte(build: Path, release: Path) -> None:
    assert _files(release) == set(ALL) | set(METADATA_FILES)
    for rel in ALL:
        assert (release / rel).read_bytes() == (build / rel).read_bytes(), rel
    entries = {e.file: e for e in load_recording_registry(release / "registry.toml")}
    assert set(entries) == set(ALL)
    for rel, e in entries.items():
        assert e.sha256 == _sha(build / rel)
    assert entries[TWIN_A].source == "twin" and entries[SHARED].source == "twin"
    assert entries[HW_B].source == "hardware"
    assert "simulated by the digital twin" in entries[TWIN_A].description
    assert verify(release) == []
    assert verify_registry(release / "registry.toml") == []  # the compendium's own registry check reads it


def test_readme_says_what_each_file_is(release: Path) -> None:
    text = (release / "README.md").read_text()
    rows = {line.split("|")[1].strip(" `"): [c.strip() for c in line.split("|")[1:-1]]
            for line in text.splitlines() if line.startswith("| `") and line.split("|")[1].strip(" `") in ALL}
    assert set(rows) == set(ALL)
    # file | source | paper | experiment | robot | rate | samples | duration | joints | channels | licence | bytes | sha256
    assert rows[TWIN_A][1] == "twin" and rows[HW_B][1] == "hardware"
    assert rows[TWIN_A][2] == PAPER
    assert "01_fit" in rows[SHARED][3] and "fig01_fit.json" in rows[SHARED][3]
    assert float(rows[TWIN_A][5]) == 100.0 and int(rows[TWIN_A][6]) == 300
    assert float(rows[TWIN_A][7]) == pytest.approx(299 / 100.0)
    assert float(rows[SHARED][5]) == 200.0 and int(rows[SHARED][6]) == 120
    assert rows[TWIN_A][9].startswith("q, tau_m")
    assert rows[HW_B][10] == "Apache-2.0" and rows[TWIN_A][10] == "CC-BY-4.0"
    assert "not measured" in text


def test_citation_cff_is_valid_yaml_with_the_required_keys(release: Path) -> None:
    doc = yaml.safe_load((release / "CITATION.cff").read_text())
    assert all(k in doc for k in CFF_REQUIRED)
    assert doc["cff-version"] == "1.2.0" and doc["type"] == "dataset"
    assert doc["authors"] == [{"family-names": "Doe", "given-names": "Jane"}, {"name": "Lab X"}]
    assert str(doc["date-released"]) == "2026-12-03"
    assert doc["license"] == ["CC-BY-4.0", "Apache-2.0"]  # the imported file keeps its licence
    assert doc["commit"] == "0123456789abcdef0123"


def test_zenodo_metadata_has_the_datacite_fields(release: Path) -> None:
    doc = json.loads((release / ".zenodo.json").read_text())
    assert all(k in doc for k in ZENODO_REQUIRED)
    assert doc["upload_type"] == "dataset" and doc["license"] == "cc-by-4.0"
    assert doc["creators"] == [{"name": "Doe, Jane"}, {"name": "Lab X"}]
    assert doc["publication_date"] == "2026-12-03"
    assert {"identifier": "https://example.org/toy-data/", "relation": "isDerivedFrom",
            "scheme": "url"} in doc["related_identifiers"]
    assert "Apache-2.0" in doc["notes"]
    licence = (release / "LICENSE-data.md").read_text()
    assert "CC-BY-4.0" in licence and HW_B in licence
    assert "MIT License" in (release / "LICENSE-code.md").read_text()


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("fault", ["flipped", "missing", "extra"])
def test_verify_names_each_fault(release: Path, fault: str, capsys) -> None:
    if fault == "flipped":
        _flip_byte(release / TWIN_A)
        name, word = TWIN_A, "sha256 mismatch"
    elif fault == "missing":
        (release / HW_B).unlink()
        name, word = HW_B, "missing"
    else:
        (release / "results/toy/recordings/notes.txt").write_text("not a release file")
        name, word = "results/toy/recordings/notes.txt", "extra file"
    faults = verify(release)
    assert faults and all(name in f for f in faults) and any(word in f for f in faults), faults
    assert main(["archive", "verify", str(release)]) == 1
    out = capsys.readouterr().out
    assert name in out and out.startswith("FAIL ")


def test_verify_refuses_malformed_metadata(release: Path) -> None:
    cff = yaml.safe_load((release / "CITATION.cff").read_text())
    del cff["authors"]
    cff["cff-version"] = "1.1.0"
    (release / "CITATION.cff").write_text(yaml.safe_dump(cff))
    zen = json.loads((release / ".zenodo.json").read_text())
    zen["upload_type"] = "software"
    del zen["creators"]
    (release / ".zenodo.json").write_text(json.dumps(zen))
    (release / "README.md").write_text("# nothing said\n")
    faults = verify(release)
    assert any("CITATION.cff" in f and "'authors'" in f for f in faults)
    assert any("CITATION.cff" in f and "1.1.0" in f for f in faults)
    assert any(".zenodo.json" in f and "upload_type" in f for f in faults)
    assert any(".zenodo.json" in f and "'creators'" in f for f in faults)
    assert sum("README.md" in f for f in faults) == len(ALL)


def test_pack_refuses_a_recording_changed_after_the_build(build: Path, tmp_path: Path) -> None:
    _write(build / SHARED, "twin", n=120, fs=200.0, seed=4)  # rewritten: the sidecar's sha256 is stale
    with pytest.raises(ArchiveError) as exc:
        pack([PAPER], tmp_path / "rel", results_root=build / "results")
    assert any("fig01_fit.json" in p and SHARED in p and "changed after the build" in p for p in exc.value.problems)
    assert not (tmp_path / "rel").exists()


def test_pack_refuses_a_missing_paper_and_a_used_folder(build: Path, tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="no results for paper 'nopaper'"):
        pack(["nopaper"], tmp_path / "rel", results_root=build / "results")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ArchiveError, match="not an empty folder"):
        pack([PAPER], tmp_path / "full", results_root=build / "results")


def test_cli_pack_then_verify(build: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cli_release"
    assert main(["archive", "pack", PAPER, "--output", str(out), "--results-root", str(build / "results"),
                 "--date", "2026-12-03"]) == 0
    assert "3 recording(s) (2 twin, 1 hardware)" in capsys.readouterr().out
    assert main(["archive", "verify", str(out)]) == 0
    assert yaml.safe_load((out / "CITATION.cff").read_text())["authors"] == [{"name": "paperlib maintainers"}]


def test_resolve_a_folder_verifies_it(release: Path) -> None:
    assert resolve(release) == release
    _flip_byte(release / SHARED)
    with pytest.raises(ArchiveError) as exc:
        resolve(str(release))
    assert any(SHARED in p and "sha256 mismatch" in p for p in exc.value.problems)


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).requests.append(self.path)
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def served(release: Path, monkeypatch):
    """The release served over http on the loopback interface (an ephemeral port), stopped after the test."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    handler = type("Handler", (_CountingHandler,), {"requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(release)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_resolve_a_loopback_url_fetches_checks_and_caches(release: Path, served, tmp_path: Path) -> None:
    url, handler = served
    cache = tmp_path / "cache"
    folder = resolve(url, cache_dir=cache)
    assert folder.is_relative_to(cache) and verify(folder) == []
    assert _files(folder) == _files(release)
    for rel in ALL:
        assert (folder / rel).read_bytes() == (release / rel).read_bytes()
    fetched = [p for p in handler.requests if p.endswith(".nc")]
    assert sorted(fetched) == sorted("/" + r for r in ALL)

    handler.requests.clear()  # again: the recordings come from the cache
    assert resolve(url, cache_dir=cache) == folder
    assert not [p for p in handler.requests if p.endswith(".nc")] and "/registry.toml" in handler.requests

    _flip_byte(folder / TWIN_A)  # a damaged cached copy is fetched again
    handler.requests.clear()
    assert resolve(url, cache_dir=cache) == folder and verify(folder) == []
    assert [p for p in handler.requests if p.endswith(".nc")] == ["/" + TWIN_A]


def test_resolve_refuses_a_served_file_that_does_not_match(release: Path, served, tmp_path: Path) -> None:
    url, _ = served
    _flip_byte(release / HW_B)  # the server now hands out bytes the registry does not list
    with pytest.raises(ArchiveError) as exc:
        resolve(url, cache_dir=tmp_path / "cache")
    assert any(HW_B in p for p in exc.value.problems)
    assert not any(p.name == "run_b.nc" for p in (tmp_path / "cache").rglob("*"))


def test_resolve_a_file_url_and_a_pinned_registry(release: Path, tmp_path: Path) -> None:
    pin = _sha(release / "registry.toml")
    folder = resolve(release.as_uri() + f"#sha256={pin}", cache_dir=tmp_path / "cache")
    assert verify(folder) == [] and _files(folder) == _files(release)
    with pytest.raises(ArchiveError, match="registry.toml"):
        resolve(release.as_uri() + "#sha256=" + "0" * 64, cache_dir=tmp_path / "cache2")
    with pytest.raises(ArchiveError, match="no such release folder"):
        resolve(tmp_path / "nowhere")


def test_resolve_uses_the_per_user_cache_by_default(monkeypatch, tmp_path: Path) -> None:
    from paperlib.archive import default_cache_dir

    monkeypatch.delenv("PAPERLIB_ARCHIVE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "paperlib" / "archive"
    monkeypatch.setenv("PAPERLIB_ARCHIVE_CACHE", str(tmp_path / "elsewhere"))
    assert default_cache_dir() == tmp_path / "elsewhere"


def test_copy_is_verified(build: Path, tmp_path: Path, monkeypatch) -> None:
    """A copy that differs from its source (a failing disk, a racing writer) stops the pack."""
    import paperlib.archive.writer as pack_mod

    real = shutil.copyfile

    def bad_copy(src, dst):
        real(src, dst)
        if str(src).endswith("run_a.nc"):
            _flip_byte(Path(dst))
        return dst

    monkeypatch.setattr(pack_mod.shutil, "copyfile", bad_copy)
    with pytest.raises(ArchiveError, match="run_a.nc"):
        pack([PAPER], tmp_path / "rel", results_root=build / "results")


def test_pack_a_build_with_its_own_results_folder(tmp_path: Path) -> None:
    """A run configuration writing into results/smoke/ (figures in results/smoke/figures/): outputs name their
    recordings from the repository root; the release files them under the standard results/<slug>/ layout."""
    root = tmp_path / "repo"
    rec = _write(root / "results/smoke/toy/recordings/run.nc", "twin", n=80, fs=100.0, seed=5)
    side = root / "results/smoke/figures/toy/fig.json"
    side.parent.mkdir(parents=True)
    side.write_text(json.dumps({"recordings": [{"file": "results/smoke/toy/recordings/run.nc", "sha256": _sha(rec)}]}))
    with pytest.raises(ArchiveError, match="which is not there"):  # from the wrong root the sidecar's path is not found
        pack([PAPER], tmp_path / "wrong", results_root=root / "results/smoke",
             figures_root=root / "results/smoke/figures")
    out = pack([PAPER], tmp_path / "rel", results_root=root / "results/smoke", figures_root=root / "results/smoke/figures",
               root=root)
    assert _files(out) == {"results/toy/recordings/run.nc"} | set(METADATA_FILES)
    assert "fig.json" in load_recording_registry(out / "registry.toml")[0].description
