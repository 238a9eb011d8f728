"""What ``rules/textbook.smk`` needs: the lessons, their parameters, the code they depend on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from paperlib.experiments.kit.registry import load_room_config
from paperlib.experiments.kit.parameters import check as check_parameters, declared
from paperlib.provenance import REPO_ROOT

__all__ = ["load_config", "notebooks", "notebook_params", "code_inputs", "book_code_inputs", "NOTEBOOK_DIR"]

SLUG = "textbook"
NOTEBOOK_DIR = f"notebooks/{SLUG}"


def load_config(path: str | Path = "config/textbook.yaml", override: Mapping | None = None) -> dict[str, Any]:
    """``config/textbook.yaml`` with a run configuration's ``textbook:`` section (``override``) merged over it.

    The merge is the kit's (:func:`paperlib.experiments.kit.config.deep_merge`) and the result is
    checked against the room's schema (a :class:`~paperlib.experiments.kit.config.ConfigError`,
    a ``ValueError``, names the key and the file).
    """
    p = Path(path)
    p = p if p.is_absolute() else REPO_ROOT / p
    try:
        cfg = load_room_config(SLUG, {SLUG: override} if override is not None else None, path=p)
    except OSError as exc:
        raise ValueError(f"{p}: cannot read the textbook configuration ({exc})") from exc
    cfg.setdefault("notebooks", {})
    cfg.setdefault("book", {}).setdefault("papers", "all")
    return cfg


def notebooks(cfg: Mapping[str, Any]) -> list[str]:
    """Lessons that exist in ``notebooks/textbook/`` and are listed in the configuration, in order.

    Raises
    ------
    ValueError
        A notebook in the folder that the configuration does not list (its outputs would be unknown).
    """
    present = sorted(p.stem for p in (REPO_ROOT / NOTEBOOK_DIR).glob("[0-9][0-9]_*.ipynb"))
    missing = [nb for nb in present if nb not in cfg["notebooks"]]
    if missing:
        raise ValueError(f"config/textbook.yaml: list the outputs of {', '.join(missing)} under notebooks:")
    return [nb for nb in present]


def notebook_params(cfg: Mapping[str, Any], nb: str, *, results_dir: str, figures_dir: str,
                    source: str | None = None, archive: str | None = None) -> dict[str, Any]:
    """Papermill parameters of a lesson: its output paths, where its recordings come from, then the
    configuration's overrides.

    Parameters
    ----------
    cfg : mapping
        :func:`load_config`.
    nb : str
        The lesson.
    results_dir, figures_dir : str
        The room's results and figures folders.
    source : {None, "twin", "archive"}
        Where the recordings come from (the Snakefile's ``SOURCE``; None: the twin).
    archive : str, optional
        The release folder for ``source="archive"`` (the Snakefile's ``ARCHIVE``).

    Notes
    -----
    Only a lesson that records something declares ``source``, ``archive`` and ``results_dir``
    (its :class:`~paperlib.experiments.textbook.lab.Lab` reads them); the others, which compute
    on the model alone, are not passed them. Nothing is refused here (every room's rules are read
    whatever is built): a source the course does not understand, or ``archive`` without a release,
    stops the lesson when it runs (:class:`~paperlib.experiments.textbook.lab.Lab`).
    """
    source = source or "twin"
    spec = cfg["notebooks"].get(nb, {})
    p = {"figures_dir": figures_dir, "views_dir": f"{results_dir}/views", "results_file": f"{results_dir}/{nb}.json"}
    if "source" in declared(f"{NOTEBOOK_DIR}/{nb}.ipynb"):
        p.update({"source": source, "archive": archive if source == "archive" else None, "results_dir": results_dir})
    p.update(spec.get("params", {}) or {})
    check_parameters(f"{NOTEBOOK_DIR}/{nb}.ipynb", p)
    return p


def code_inputs(nb: str | None = None) -> list[str]:
    """Source files whose change reruns lesson ``nb`` (default: any lesson).

    The ``paperlib`` modules the lesson's code imports, transitively (static import closure,
    :func:`paperlib.experiments.kit.code_inputs.code_inputs`).
    """
    from paperlib.experiments.kit.code_inputs import code_inputs as closure

    nbs = sorted(p.stem for p in (REPO_ROOT / NOTEBOOK_DIR).glob("[0-9][0-9]_*.ipynb")) if nb is None else [nb]
    return closure(notebooks=[f"{NOTEBOOK_DIR}/{n}.ipynb" for n in nbs], root=REPO_ROOT)


def book_code_inputs() -> list[str]:
    """Source files of the site builder (what ``python -m paperlib.book.cli build`` imports)."""
    from paperlib.experiments.kit.code_inputs import code_inputs as closure

    return closure(["paperlib.book.cli"], root=REPO_ROOT)
