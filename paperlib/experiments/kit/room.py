"""What a room declares to the layers: ``ROOM = Room(paper=PAPER, commands=[...], ...)`` in its ``__init__``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from paperlib.experiments.kit.config import Schema
from paperlib.experiments.kit.paper import Paper

__all__ = ["Room", "BookPage", "Command"]


@dataclass(frozen=True)
class BookPage:
    """How the book (:mod:`paperlib.book`) shows a room.

    Parameters
    ----------
    title : str, optional
        Page title (default: the paper's title).
    landing_title : str, optional
        Title in the landing page's table (default: ``title``, else the paper's title).
    intro : str, optional
        Text under the page title, instead of the room's status line and what it builds.
    toc_caption : str
        Caption of the page's notebook list.
    order : int
        Rooms are listed by (order, slug): ``0`` puts a room first (the course).
    flat_legacy : bool
        Collect the outputs an old pipeline wrote straight into ``results/`` and ``figures/``
        (``results/notebooks/``, ``results/*.json``, ``figures/*.png``) as this room's, when it has
        no folder of its own.
    """

    title: str | None = None
    landing_title: str | None = None
    intro: str | None = None
    toc_caption: str = "Notebooks"
    order: int = 1
    flat_legacy: bool = False


@dataclass(frozen=True)
class Command:
    """A ``paperlib`` sub-command declared by name, so ``paperlib --help`` lists it without importing it.

    Parameters
    ----------
    name : str
        The sub-command (``paperlib NAME``).
    module : str
        The module whose ``add_parser(subparsers)`` registers it; imported only when ``NAME`` is the
        command given (or the whole command tree is walked).
    help : str
        The one line ``paperlib --help`` shows; the same text the module registers (a test compares them).
    """

    name: str
    module: str
    help: str


@dataclass(frozen=True)
class Room:
    """A room's registration (see :mod:`paperlib.experiments.kit`).

    Parameters
    ----------
    paper : Paper
    commands : sequence of Command or str
        The room's ``paperlib`` sub-commands: a :class:`Command` (name, module, help: the module is
        imported only when that command runs), or the name of a module with ``add_parser(subparsers)``
        (imported whenever the command line is built, which slows ``paperlib --help``).
    sweep_runner : str, optional
        Module of the room's per-seed sweep runner (:mod:`paperlib.sweeps`).
    bench : sequence of str
        Modules with ``benchmarks() -> dict[str, Callable[[], float]]`` (``paperlib bench``).
    figures : sequence of str
        The room's figure modules.
    config_checks : sequence of callables or ``"module:function"`` strings
        ``check(run_config, args)`` (a string is imported only when the check runs) run by ``paperlib reproduce`` before Snakemake when the room
        is built; ``run_config`` is the ``--config`` file's mapping, ``args`` the parsed options.
        Raise ``ValueError`` / ``OSError`` with a message to refuse.
    config : Schema, optional
        The schema of ``config/<slug>.yaml`` (checked on load).
    book : BookPage
    sources : sequence of str
        The ``--source`` values the room understands (``twin``, ``hardware``, ``archive``).
    own_archive : bool
        The room keeps an archive of its own in the repository, which ``--source archive`` reads
        when no release is given (``--archive``); without one such a build is refused.
    """

    paper: Paper
    commands: Sequence[str | Command] = ()
    sweep_runner: str | None = None
    bench: Sequence[str] = ()
    figures: Sequence[str] = ()
    config_checks: Sequence[str | Callable[[dict[str, Any], Any], None]] = ()
    config: Schema | None = None
    book: BookPage = field(default_factory=BookPage)
    sources: Sequence[str] = ("twin",)
    own_archive: bool = False

    @property
    def slug(self) -> str:
        return self.paper.slug
