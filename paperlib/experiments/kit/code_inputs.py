"""Code inputs of a pipeline rule: the ``.py`` files of the static ``paperlib`` import closure.

A rule that runs a module (``python -m paperlib.experiments.<slug>.run ...``) or a notebook depends
on every ``paperlib`` source file that code can import: its own file, what it imports, what those
import, and so on, plus the ``__init__.py`` of every package on the way (importing ``a.b.c``
executes ``a/__init__.py`` and ``a/b/__init__.py``). :func:`code_inputs` finds them by reading
the sources with :mod:`ast`; nothing is imported or executed. It follows

- ``import a.b`` and ``from a import b`` (``b`` a submodule when ``a/b.py`` or ``a/b/__init__.py``
  exists, else a name defined in ``a``), absolute and relative, at any depth (imports inside
  functions count: the rule may run them);
- ``importlib.import_module("a.b")`` with a literal string;

and leaves out imports under ``if TYPE_CHECKING:`` (never executed) and modules outside the
package (``numpy``, ...: the environment, not the repository). A module named at run time
(``import_module(name)``) cannot be seen: name it in the rule's modules.

Used by every ``rules/<slug>.smk`` (through ``rules/common.smk``) so that no rule keeps a hand list::

    code_inputs(modules=["paperlib.experiments.<slug>.run"])
    code_inputs(notebooks=["notebooks/<slug>/01_analysis.ipynb"])

Command line (what a rule would get)::

    python -m paperlib.experiments.kit.code_inputs paperlib.experiments.<slug>.run notebooks/<slug>/01_analysis.ipynb
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Iterable

__all__ = ["code_inputs", "import_closure", "module_file", "module_imports", "notebook_imports"]

#: The repository root (the folder holding ``paperlib/``); rules run from there.
REPO_ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "paperlib"

# (file, mtime_ns, size) -> the module names its source imports (parsed once per Snakefile parse)
_PARSED: dict[tuple[str, int, int], frozenset[str]] = {}


def module_file(name: str, root: str | Path = REPO_ROOT) -> Path | None:
    """The source file of module ``name`` under ``root`` (``a/b.py`` or ``a/b/__init__.py``), or None."""
    base = Path(root).joinpath(*name.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """Collects the module names a source imports (absolute names; relative ones resolved)."""

    def __init__(self, package: str | None, root: Path) -> None:
        self.package = package  # the package a relative import starts from (None: top level)
        self.root = root
        self.found: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            if self.package is None:
                return
            parts = self.package.split(".")
            if node.level - 1 >= len(parts):
                return
            stem = ".".join(parts[: len(parts) - (node.level - 1)])
            base = f"{stem}.{node.module}" if node.module else stem
        else:
            base = node.module or ""
        self.found.add(base)
        for alias in node.names:
            if alias.name != "*" and module_file(f"{base}.{alias.name}", self.root) is not None:
                self.found.add(f"{base}.{alias.name}")

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if (name == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and not node.args[0].value.startswith(".")):
            self.found.add(node.args[0].value)
        self.generic_visit(node)


def _parse(source: str, where: str) -> ast.Module:
    try:
        return ast.parse(source, filename=where)
    except SyntaxError as exc:
        raise ValueError(f"{where}: cannot read its imports ({exc.msg}, line {exc.lineno})") from exc


def module_imports(name: str, root: str | Path = REPO_ROOT) -> frozenset[str]:
    """Module names the source of module ``name`` imports (empty when it has no file under ``root``)."""
    root = Path(root)
    path = module_file(name, root)
    if path is None:
        return frozenset()
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _PARSED:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0] or None
        v = _Imports(package, root)
        v.visit(_parse(path.read_text(encoding="utf-8"), str(path)))
        _PARSED[key] = frozenset(v.found)
    return _PARSED[key]


def notebook_imports(notebook: str | Path, package: str = PACKAGE, root: str | Path = REPO_ROOT) -> list[str]:
    """Sorted names of the ``package`` modules a notebook's code cells import.

    IPython lines (``%magic``, ``!shell``) are left out; a code cell Python cannot parse otherwise
    raises ``ValueError`` naming the notebook (its imports would be unknown).
    """
    root = Path(root)
    nb_path = Path(notebook)
    nb_path = nb_path if nb_path.is_absolute() else root / nb_path
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    v = _Imports(None, root)
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in src.splitlines()]
        v.visit(_parse("\n".join(lines), f"{notebook} (cell {i})"))
    return sorted(m for m in v.found if m == package or m.startswith(package + "."))


def import_closure(modules: Iterable[str], package: str = PACKAGE, root: str | Path = REPO_ROOT) -> list[str]:
    """Sorted names of the ``package`` modules with a source file that ``modules`` import transitively.

    Includes the modules themselves and every parent package (its ``__init__`` runs on import).
    """
    root = Path(root)
    seen: set[str] = set()
    todo = [m for m in modules]
    while todo:
        name = todo.pop()
        if name in seen or not (name == package or name.startswith(package + ".")):
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:k]) for k in range(1, len(parts))]
        todo += sorted(module_imports(name, root))
    return sorted(m for m in seen if module_file(m, root) is not None)


def code_inputs(modules: Iterable[str] = (), notebooks: Iterable[str | Path] = (), package: str = PACKAGE,
                root: str | Path = REPO_ROOT) -> list[str]:
    """The sorted ``.py`` files (relative to ``root``, POSIX) of the import closure of a rule's code.

    Parameters
    ----------
    modules : iterable of str
        Modules the rule runs (``python -m NAME``, or imports in its ``run:`` block).
    notebooks : iterable of path-like
        Notebooks the rule executes (relative to ``root`` or absolute); their imports count.
    package : str
        The package whose files count (``paperlib``).
    root : path-like
        The folder holding the package (the repository root).

    Raises
    ------
    ValueError
        A module named in ``modules`` has no source file under ``root`` (a typo would silently
        drop the rule's dependencies), or a source cannot be parsed.
    """
    root = Path(root)
    modules = list(modules)
    missing = [m for m in modules if module_file(m, root) is None]
    if missing:
        raise ValueError(f"code inputs: no source file for module(s) {missing} under {root}")
    names = modules + [m for nb in notebooks for m in notebook_imports(nb, package, root)]
    files = {module_file(m, root) for m in import_closure(names, package, root)}
    return sorted(p.relative_to(root).as_posix() for p in files if p is not None)


def main(argv: list[str] | None = None) -> int:
    """Print the code inputs of the modules and notebooks (``.ipynb``) named on the command line."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python -m paperlib.experiments.kit.code_inputs MODULE|NOTEBOOK.ipynb ...", file=sys.stderr)
        return 2
    nbs = [a for a in args if a.endswith(".ipynb")]
    try:
        files = code_inputs([a for a in args if not a.endswith(".ipynb")], nbs)
    except (ValueError, OSError) as exc:
        print(f"code inputs: {exc}", file=sys.stderr)
        return 1
    print("\n".join(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
