"""The pipeline's rules: code inputs from the import closure, one set of templates, hand runs kept out.

- :mod:`paperlib.experiments.kit.code_inputs`: a module's closure holds what it imports, transitively,
  and nothing else; changing an imported file changes the rule's inputs (and reruns it).
- ``rules/common.smk``: the papermill command stands once; no room keeps a hand list of code files.
- Notebooks run by hand write into ``scratch/<slug>/``, never into ``figures/`` or ``results/``; the
  comparison step refuses an output whose recorded parameters are not the pipeline's
  (:mod:`paperlib.experiments.kit.outputs_guard`).
- ``snakemake textbook`` plans the course alone; the site is the target ``book``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
import yaml

from paperlib.experiments.kit import code_inputs as CI
from paperlib.experiments.kit import outputs_guard as G
from paperlib.provenance import REPO_ROOT

ROOMS = sorted(p.name for p in (REPO_ROOT / "notebooks").iterdir() if p.is_dir())
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))
#: Parameters that name where a notebook writes.
OUTPUT_ROOTS = ("output_dir", "figures_dir", "results_file", "results_dir", "views_dir")


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A small package ``pkg``: a -> b (relative) -> c (inside a function); d imported by nobody."""
    _write(tmp_path, "pkg/__init__.py", "")
    _write(tmp_path, "pkg/sub/__init__.py", "from . import helpers\n")
    _write(tmp_path, "pkg/sub/helpers.py", "X = 1\n")
    _write(tmp_path, "pkg/a.py", """\
        from __future__ import annotations
        from typing import TYPE_CHECKING
        import numpy as np
        from . import b
        from pkg.sub import helpers
        if TYPE_CHECKING:
            from pkg import typing_only
        """)
    _write(tmp_path, "pkg/b.py", """\
        def run():
            from .c import go
            return go()
        """)
    _write(tmp_path, "pkg/c.py", "def go():\n    return 1\n")
    _write(tmp_path, "pkg/d.py", "import importlib\nM = importlib.import_module('pkg.e')\n")
    _write(tmp_path, "pkg/e.py", "")
    _write(tmp_path, "pkg/typing_only.py", "")
    return tmp_path


# -- code inputs ----------------------------------------------------------------------------------

def test_closure_holds_what_a_module_imports_transitively_and_nothing_else(tree: Path) -> None:
    files = CI.code_inputs(["pkg.a"], package="pkg", root=tree)
    assert files == ["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/sub/__init__.py",
                     "pkg/sub/helpers.py"]
    # d and e are imported by nobody a reaches; typing_only only under TYPE_CHECKING (never executed)
    assert CI.code_inputs(["pkg.d"], package="pkg", root=tree) == ["pkg/__init__.py", "pkg/d.py", "pkg/e.py"]
    with pytest.raises(ValueError, match="no source file"):
        CI.code_inputs(["pkg.nope"], package="pkg", root=tree)


def test_changing_an_imported_file_changes_the_inputs(tree: Path) -> None:
    before = CI.code_inputs(["pkg.a"], package="pkg", root=tree)
    c = tree / "pkg" / "c.py"
    c.write_text("from pkg import d\n\ndef go():\n    return d.M\n")
    os.utime(c, ns=(c.stat().st_mtime_ns + 10**9,) * 2)
    after = CI.code_inputs(["pkg.a"], package="pkg", root=tree)
    assert set(after) - set(before) == {"pkg/d.py", "pkg/e.py"}


def test_notebook_imports(tree: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("import pkg.d"),
                nbformat.v4.new_code_cell("%matplotlib inline\nimport os\nfrom pkg import a\n!ls"),
                nbformat.v4.new_code_cell("import pkg.sub.helpers as h")]
    path = tree / "n.ipynb"
    nbformat.write(nb, path)
    assert CI.notebook_imports(path, package="pkg", root=tree) == ["pkg", "pkg.a", "pkg.sub.helpers"]
    assert "pkg/c.py" in CI.code_inputs(notebooks=[path], package="pkg", root=tree)
    assert "pkg/d.py" not in CI.code_inputs(notebooks=[path], package="pkg", root=tree)


def test_the_repository_closures() -> None:
    rec = CI.code_inputs(["paperlib.experiments.rrr.run"])
    assert {"paperlib/experiments/rrr/run.py", "paperlib/twin/robots/three_rrr.py", "paperlib/recordings/__init__.py",
            "paperlib/__init__.py", "paperlib/experiments/__init__.py"} <= set(rec)
    assert not any(f.startswith(("paperlib/experiments/mems/", "paperlib/book/", "paperlib/hardware/")) for f in rec)
    nb = CI.code_inputs(notebooks=["notebooks/rrr/02_tracking.ipynb"])
    assert {"paperlib/experiments/rrr/report.py", "paperlib/experiments/rrr/sensitivity.py"} <= set(nb)
    assert all((REPO_ROOT / f).is_file() and f.endswith(".py") for f in rec + nb)
    assert rec == sorted(rec)


def test_a_change_to_an_imported_file_reruns_the_rule(tree: Path) -> None:
    """Through Snakemake: a rule whose code inputs are the closure reruns when a file it imports changes."""
    (tree / "Snakefile").write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(REPO_ROOT)!r})
        from paperlib.experiments.kit.code_inputs import code_inputs

        rule made:
            input:
                code_inputs(["pkg.a"], package="pkg", root=workflow.basedir),
            output:
                "out.txt",
            shell:
                "echo made > {{output}}"
        """))
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", "--directory", str(tree), "--snakefile",
           str(tree / "Snakefile")]
    r = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = tree / "out.txt"  # made a while ago; then c.py (imported by b inside a function, b by a) is edited
    os.utime(out, ns=(out.stat().st_mtime_ns - 100 * 10**9,) * 2)
    c = tree / "pkg" / "c.py"
    c.write_text(c.read_text() + "# edited\n")
    r = subprocess.run(cmd + ["--dry-run"], cwd=tree, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "rule made:" in r.stdout and "pkg/c.py" in r.stdout, r.stdout[-2000:]


# -- the rule files ---------------------------------------------------------------------------------

def _rule_files() -> list[Path]:
    return [REPO_ROOT / "Snakefile", *sorted((REPO_ROOT / "rules").glob("*.smk"))]


def test_the_papermill_command_stands_once() -> None:
    hits = [(p.name, line) for p in _rule_files() for line in p.read_text().splitlines() if "-m papermill" in line]
    assert len(hits) == 1 and hits[0][0] == "common.smk", hits


#: The code-generation check's inputs: the generator and what it reads and writes (no import closure).
_CODEGEN = ('"paperlib/symbolic/*.py"', '"paperlib/codegen.py"', '"paperlib/kernels/*.py"')


def test_no_room_keeps_a_hand_list_of_code_files() -> None:
    """Code inputs come from CODE_INPUTS / code_inputs; no rule file or room pipeline names .py files."""
    files = _rule_files() + sorted((REPO_ROOT / "paperlib" / "experiments").glob("*/pipeline.py"))
    for p in files:
        src = p.read_text()
        for pattern in _CODEGEN:
            src = src.replace(pattern, "")
        assert not re.findall(r"""["'][^"' ]*\.py["']""", src), p.name


# -- notebooks run by hand ---------------------------------------------------------------------------

def _parameters(path: Path) -> dict:
    return G.notebook_defaults(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_notebook_run_by_hand_writes_into_scratch(path: Path) -> None:
    slug = path.parent.name
    params = _parameters(path)
    roots = {k: v for k, v in params.items() if k in OUTPUT_ROOTS}
    assert roots, f"{slug}/{path.stem}: no output-root parameter"
    for k, v in roots.items():
        assert str(v).startswith(f"scratch/{slug}/") or v == f"scratch/{slug}", (k, v)
    for k, v in params.items():  # anything else it may write (recordings made when missing) is in scratch too
        if isinstance(v, str) and v.startswith(("results/", "figures/")):
            assert k == "recordings_dir" and slug == "industrial", f"{k} = {v!r}: read only, or scratch"
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown" and f"scratch/{slug}/" in first.source and "docs/notebooks.md" in first.source


@pytest.mark.slow
def test_the_pipeline_passes_every_output_root(tmp_path: Path) -> None:
    """The parameters files the pipeline writes name its own folders for every output root of every notebook."""
    res, fig = tmp_path / "res", tmp_path / "fig"
    targets = [f"{res}/{p.parent.name}/params/{p.stem}.yaml" for p in NOTEBOOKS]
    r = subprocess.run([sys.executable, "-m", "snakemake", *targets, "--snakefile", str(REPO_ROOT / "Snakefile"),
                        "--directory", str(REPO_ROOT), "--cores", "1", "--config", f"results_dir={res}",
                        f"figures_dir={fig}"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    for nb, target in zip(NOTEBOOKS, targets):
        passed = yaml.safe_load(Path(target).read_text())
        roots = {k for k in _parameters(nb) if k in OUTPUT_ROOTS}
        assert roots <= set(passed), f"{nb.parent.name}/{nb.stem}: the pipeline does not pass {sorted(roots - set(passed))}"
        for k in roots:
            assert str(passed[k]).startswith((f"{res}/{nb.parent.name}", f"{fig}/{nb.parent.name}")), (nb.stem, k)


def _tree_state(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    return {str(p.relative_to(root)): f"{p.stat().st_mtime_ns}:{hashlib.sha256(p.read_bytes()).hexdigest()}"
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_a_papermill_run_with_a_changed_parameter_leaves_the_pipeline_outputs_alone(tmp_path: Path) -> None:
    nb = "03_base_parameters"
    before = {d: _tree_state(REPO_ROOT / d) for d in ("figures", "results")}
    made = [REPO_ROOT / "scratch" / "textbook" / f"{nb}.json"]
    existed = {p: p.exists() for p in made}
    r = subprocess.run([sys.executable, "-m", "papermill", str(REPO_ROOT / "notebooks" / "textbook" / f"{nb}.ipynb"),
                        str(tmp_path / "out.ipynb"), "-p", "n_states", "120", "-p", "seed", "3", "-k", "paperlib",
                        "--cwd", str(REPO_ROOT), "--no-progress-bar"],
                       cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    try:
        assert r.returncode == 0, r.stderr[-3000:]
        after = {d: _tree_state(REPO_ROOT / d) for d in ("figures", "results")}
        assert after == before, "a hand run wrote into the pipeline's figures/ or results/"
        out = json.loads(made[0].read_text())  # it wrote its numbers into scratch/
        assert out
    finally:
        for p in made:
            if not existed[p] and p.exists():
                p.unlink()


# -- the comparison step refuses outputs the pipeline did not make ------------------------------------

def _room(tmp_path: Path, recorded: dict | None, passed: dict) -> tuple[Path, Path, Path]:
    nbp = tmp_path / "01_fit.ipynb"
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('cutoff_hz = 20.0\nseeds = [1, 2]\ntol = {"a": 0.1, "b": 0.2}\n'
                                     'results_file = "scratch/x/01_fit.json"')
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    nbformat.write(nb, nbp)
    params = tmp_path / "params" / "01_fit.yaml"
    params.parent.mkdir()
    params.write_text(yaml.safe_dump(passed))
    res = tmp_path / "01_fit.json"
    res.write_text(json.dumps({"x": 1.0, **({"provenance": {"parameters": recorded}} if recorded is not None else {})}))
    return res, params, nbp


def test_the_guard_passes_the_pipelines_outputs(tmp_path: Path) -> None:
    res, params, nb = _room(tmp_path, {"cutoff_hz": 20, "seeds": [1, 2], "tol": {"a": 0.1, "b": 0.2},
                                       "results_file": str(tmp_path / "01_fit.json")},
                            {"results_file": str(tmp_path / "01_fit.json")})
    assert G.check([res], [params], [nb]) == {"checked": 1, "unrecorded": 0}
    (tmp_path / "u").mkdir()
    res, params, nb = _room(tmp_path / "u", None, {})  # an output that records no parameters
    assert G.check([res], [params], [nb]) == {"checked": 0, "unrecorded": 1}


@pytest.mark.parametrize("recorded,passed,name", [
    ({"cutoff_hz": 10.0}, {}, "cutoff_hz"),                          # a hand run: -p cutoff_hz 10
    ({"cutoff_hz": 20.0}, {"cutoff_hz": 40.0}, "cutoff_hz"),         # the configuration changed it
    ({"tol": {"a": 0.1, "b": 0.3}}, {}, "tol.b"),                     # nested
    ({"seeds": [1, 3]}, {}, "seeds"),
])
def test_the_guard_refuses_other_parameters_and_names_them(tmp_path: Path, recorded: dict, passed: dict,
                                                           name: str) -> None:
    res, params, nb = _room(tmp_path, recorded, passed)
    with pytest.raises(G.OutputMismatch, match=rf"made with {re.escape(name)} = ") as exc:
        G.check([res], [params], [nb])
    assert str(res) in str(exc.value) and str(params) in str(exc.value)
    assert G.main(["--results", str(res), "--params", str(params), "--notebooks", str(nb)]) == 1


def test_the_guard_pairs_files_by_notebook(tmp_path: Path) -> None:
    res, params, nb = _room(tmp_path, {"cutoff_hz": 20.0}, {})
    with pytest.raises(ValueError, match="no parameters file or notebook named 01_fit"):
        G.check([res], [], [nb])


# -- targets ------------------------------------------------------------------------------------------

def _dry_run(tmp_path: Path, *args: str) -> dict[str, int]:
    r = subprocess.run([sys.executable, "-m", "snakemake", *args, "--snakefile", str(REPO_ROOT / "Snakefile"),
                        "--directory", str(REPO_ROOT), "--cores", "1", "--dry-run", "--config",
                        f"results_dir={tmp_path}/res", f"figures_dir={tmp_path}/fig"],
                       cwd=REPO_ROOT, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    stats = r.stdout[r.stdout.index("Job stats:"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M) if m.group(1) != "total"}


def test_textbook_plans_the_course_alone_and_book_the_site(tmp_path: Path) -> None:
    from paperlib.experiments.textbook import pipeline as T

    lessons = T.notebooks(T.load_config())
    jobs = _dry_run(tmp_path, "textbook")
    assert jobs == {"textbook": 1, "textbook_notebook_params": len(lessons), "textbook_paper_comparison": 1,
                    **{f"textbook_notebook_{nb}": 1 for nb in lessons}}, jobs
    site = _dry_run(tmp_path, "book")
    sweep_jobs = sum(n for rule, n in site.items() if rule.startswith("sweep_run"))  # groups of seeds: a rule each
    assert site["book"] == 1 and sweep_jobs > 0 and "mems_paper_comparison" in site  # book.papers: all


@pytest.mark.parametrize("room", ["mems", "rrr"])
def test_a_sensitivity_study_depends_on_its_rooms_runner_and_twin(tmp_path: Path, room: str) -> None:
    """A change to the room's twin or analysis must rerun its study (the runs whose code changed)."""
    from paperlib.sensitivity.study import load_study

    study = load_study(REPO_ROOT / "config" / "sensitivity" / f"{room}.yaml")
    target = study.summary_file(f"{tmp_path}/res")
    r = subprocess.run([sys.executable, "-m", "snakemake", str(target), "--snakefile", str(REPO_ROOT / "Snakefile"),
                        "--directory", str(REPO_ROOT), "--cores", "1", "--dry-run", "--config",
                        f"results_dir={tmp_path}/res", f"figures_dir={tmp_path}/fig"],
                       cwd=REPO_ROOT, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    block = r.stdout[r.stdout.index(f"rule {room}_sensitivity:"):]
    inputs = block[block.index("input:"):block.index("\n", block.index("input:"))]
    for needed in (f"paperlib/experiments/{room}/sweep.py", "paperlib/sensitivity/engine.py",
                   "paperlib/twin/plant.py" if room == "mems" else "paperlib/twin/robots/three_rrr.py"):
        assert needed in inputs, needed
