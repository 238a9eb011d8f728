"""The room kit: what every room (``paperlib/experiments/<slug>/``) uses and none copies.

A room is a package ``paperlib/experiments/<slug>/`` whose ``__init__`` defines ``PAPER`` (a
:class:`Paper`) and ``ROOM`` (a :class:`Room`). Rooms register themselves: the registry finds
them by scanning the packages of ``paperlib.experiments`` (and the folders named in the
environment variable ``PAPERLIB_ROOMS_PATH``, ``os.pathsep``-separated, which are added to the
package's ``__path__``: a room folder there imports as ``paperlib.experiments.<slug>``). No
layer names a room; every layer that needs "the rooms" asks the registry.

API (stable; other branches code against it)
--------------------------------------------
Metadata -- :mod:`paperlib.experiments.kit.paper`
    ``Paper(slug, title, seed_file, status, builds, authors=(), year=None, doi=None, venue=None)``
    frozen dataclass; ``status`` in ``STATUSES = ("reproduced", "partial", "planned")``;
    ``seed_file`` is the paper text's file name in ``../shared/papers/`` (``000_....txt``);
    ``paper.as_dict()`` gives the plain dict (``slug``, ``title``, ``status``, ``builds``,
    ``paper_file``, ``authors``, ``year``, ``doi``, ``venue``); ``paper["title"]`` also works.

Registration -- :mod:`paperlib.experiments.kit.room`
    ``Room(paper, commands=(), sweep_runner=None, bench=(), figures=(), config_checks=(),
    config=None, book=BookPage())``: ``commands`` are ``Command(name, module, help)`` (listed by
    ``paperlib --help``; the module, exposing ``add_parser(subparsers)``, imported only when that
    command runs) or bare module names (imported whenever the command line is built); ``sweep_runner`` a module name
    (``FACTORS``, ``run_seed``, ``headlines``, ``code_inputs``; see :mod:`paperlib.sweeps`);
    ``bench`` module names exposing ``benchmarks()``; ``figures`` the room's figure modules (they live in the room);
    ``config_checks`` callables ``check(run_config: dict, args) -> None`` run by
    ``paperlib reproduce`` before Snakemake (raise ``ValueError``/``OSError`` with a message; a
    :class:`~paperlib.experiments.kit.config.ConfigError` names the key and the file);
    ``config`` the room's :class:`~paperlib.experiments.kit.config.Schema`;
    ``sources`` the ``--source`` values the room understands (default ``("twin",)``);
    ``book`` a ``BookPage(title=None, intro=None, toc_caption="Notebooks", order=1,
    flat_legacy=False)`` (how the book shows the room; ``order=0`` comes first).
    ``room.slug`` is ``room.paper.slug``.

Registry -- :mod:`paperlib.experiments.kit.registry`
    ``rooms() -> list[Room]`` every room, ordered by ``paper.seed_file``;
    ``room(slug) -> Room`` (``KeyError`` listing the known slugs); ``slugs() -> list[str]``;
    ``command_modules()``, ``bench_modules()``, ``sweep_runners() -> dict[slug, module]``,
    ``figure_modules()``, ``config_checks(slug)`` (resolved callables; a check may be given as
    ``"module:function"`` and is imported only when it runs), ``resolve(ref)``; ``ROOMS_PATH_ENV = "PAPERLIB_ROOMS_PATH"``; ``reset()`` forgets the
    cached scan (tests).

Configuration -- :mod:`paperlib.experiments.kit.config`
    ``deep_merge(base, over) -> dict`` THE merge rule for run configurations (nested mappings
    merged key by key, ``over`` wins, inputs not modified); ``Key(types, allowed=None,
    required=False, schema=None, items=None, values=None)`` and ``Schema(keys, open=False)`` declare a room's
    ``config/<slug>.yaml``; ``schema.validate(cfg, where)`` raises ``ConfigError`` naming the key
    path and the file; ``registry.load_room_config(slug, run_config=None, path=None) -> dict`` reads
    ``config/<slug>.yaml``, merges the run configuration's ``<slug>:`` section over it
    (``deep_merge``) and validates it against the room's schema; ``config_path(slug)``;
    ``read_run_config(path) -> dict``.

Outputs -- :mod:`paperlib.experiments.kit.jsonio`, :mod:`paperlib.experiments.kit.outputs`
    ``jsonable(x)`` (numpy scalars/arrays, tuples, Paths -> JSON values; NaN/inf -> None);
    ``dumps(obj) -> str`` (sorted keys, indent 1); ``write_json(path, obj) -> Path``
    (``dumps`` + newline; folders made). ``write_results(path, results, provenance=None,
    notes=None) -> Path`` the one results writer; ``save_figure(obj, path_stem, formats,
    provenance) -> list[Path]`` through :func:`paperlib.figures.io.save`; ``Outputs`` the one
    notebook-run context (recordings read from files, figures, results, notes).

Pipeline rules -- :mod:`paperlib.experiments.kit.code_inputs` (the code inputs of a pipeline
    rule, from the static import closure of the modules or notebook it runs) and
    :mod:`paperlib.experiments.kit.outputs_guard` (the notebooks' output guard); both from the
    ``rulekit`` branch.

Recordings -- :mod:`paperlib.experiments.kit.sources`
    ``RecordingSource(slug, results_dir, source="twin", archive=None)``; ``.obtain(name, make)``
    returns recording ``name``: ``make()`` written to ``<results_dir>/recordings/<name>.nc`` and read
    back, or (``source="archive"``) the release's ``results/<slug>/recordings/<name>.nc`` copied
    there, sha256-checked, and read (``make`` never called). Pipeline rules that make recordings
    wrap their command in the Snakefile's ``RECORDING_SHELL(cmd)``; ``paperlib reproduce --archive``
    forbids every twin run meanwhile (:mod:`paperlib.twin.guard`).

Notebook parameters -- :mod:`paperlib.experiments.kit.parameters`
    ``declared(notebook) -> dict`` names and literal values of the cell tagged ``parameters``;
    ``check(notebook, params)`` raises ``ParameterError`` (a ``ValueError``) naming every
    parameter the notebook does not declare.
"""

from paperlib.experiments.kit.config import ConfigError, Key, Schema, deep_merge
from paperlib.experiments.kit.paper import STATUSES, Paper
from paperlib.experiments.kit.registry import load_room_config, room, rooms, slugs
from paperlib.experiments.kit.room import BookPage, Command, Room

__all__ = ["Paper", "STATUSES", "Room", "BookPage", "Command", "Key", "Schema", "ConfigError", "deep_merge", "load_room_config",
           "rooms", "room", "slugs"]
