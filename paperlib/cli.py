"""The ``paperlib`` command.

Each sub-command lives in the module that owns its logic; that module exposes
``add_parser(subparsers)`` which registers the sub-command and sets ``func``. The layers'
commands are declared in :data:`COMMANDS` (name, module, help); the rooms' come from the room
registry (:func:`paperlib.experiments.kit.registry.commands`), so a room's commands appear
without an edit here.

A command's module is imported only when that command is the one given (or when the whole tree
is walked, :func:`iter_commands`): ``paperlib --help`` and ``paperlib reproduce --list`` import no
numpy, xarray, scipy, numba or snakemake. ``paperlib --help`` lists each command's declared help;
a test checks it is the text the module registers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterator, Mapping

from paperlib.experiments.kit.room import Command

#: The layers' sub-commands, in ``paperlib --help`` order: (name, module with ``add_parser``, help line).
COMMANDS: tuple[Command, ...] = (
    Command("bench", "paperlib.bench", "measure kernel, twin and estimator speed"),
    Command("validate", "paperlib.recordings.cli",
            "check recording files against the recording schema (paperlib.recording/2, or /1)"),
    Command("recordings", "paperlib.recordings.cli", "the registry of archived recordings"),
    Command("import", "paperlib.recordings.import_cli", "import a lab's log (CSV, ROS 2 bag) as a schema-2 recording"),
    Command("record", "paperlib.twin.cli", "record a run of the digital twin (schema paperlib.recording/2)"),
    Command("identify", "paperlib.estimation.cli", "run the EWR-RLS friction/drive-gain estimator over a recording"),
    Command("run", "paperlib.hardware.cli", "run a controller on the hardware or the twin at 4 kHz and record it"),
    Command("hardware", "paperlib.hardware.cli", "EtherCAT / IMU rig tools: probe, selftest, calibrate-imu"),
    Command("reproduce", "paperlib.experiments.cli", "rebuild the figures and tables of one, several or all papers"),
    Command("book", "paperlib.book.cli", "the static site: course and every paper's results"),
    Command("sweep", "paperlib.sweeps.cli",
            "Monte-Carlo sweep of a paper's headline numbers (Snakemake; local or SLURM)"),
    Command("sensitivity", "paperlib.sensitivity.cli",
            "global sensitivity of headline numbers to the twin's assumptions (Morris, then Sobol'; SALib on the sweep engine)"),
    Command("data", "paperlib.data.cli", "public external data: fetch, verify and import into recordings"),
    Command("serial", "paperlib.serial_cli", "serial arms: identification from a recording"),
    Command("thermal", "paperlib.estimation.thermal_cli",
            "temperature-dependent friction from warm-up recordings (paper 001)"),
    Command("compare", "paperlib.comparison_builds",
            "grade one build's comparison table against another's, row by row, by each row's rule"),
    Command("archive", "paperlib.archive.cli",
            "data releases: pack the recordings a build used, verify a release, fetch one"),
)

#: The layers' command modules, each once.
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(c.module for c in COMMANDS))


def commands() -> list[Command | str]:
    """The layers' commands, then the rooms' (room registry order; a room may give a bare module name)."""
    from paperlib.experiments.kit import registry

    return list(COMMANDS) + list(registry.commands())


def command_modules() -> list[str]:
    """The layers' command modules, then the rooms' (from the room registry, in room order)."""
    from paperlib.experiments.kit import registry

    return list(COMMAND_MODULES) + [m for m in registry.command_modules() if m not in COMMAND_MODULES]


def _import_command_module(name: str):
    """The command module ``name``, or None when it is not written yet (any other import error is raised)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


class _LazyParsers(Mapping):
    """name -> sub-parser, where a declared command's parser is built (its module imported) on first lookup.

    argparse looks a chosen command up with ``[]`` and checks a name with ``in``; neither builds
    the other commands. Iterating over items (:func:`iter_commands`) builds every one.
    """

    def __init__(self, action: "_LazySubParsersAction") -> None:
        self._action = action
        self.built: dict[str, argparse.ArgumentParser] = {}
        self.pending: dict[str, str] = {}  # declared name -> module not imported yet

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        if name not in self.built and name in self.pending:
            self._action.load(self.pending[name])
        return self.built[name]

    def __setitem__(self, name: str, parser: argparse.ArgumentParser) -> None:
        self.built[name] = parser
        self.pending.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self.built or name in self.pending

    def __iter__(self) -> Iterator[str]:  # the names only (argparse's "invalid choice" message): nothing built
        return iter(list(dict.fromkeys([*self.built, *self.pending])))

    def __len__(self) -> int:
        return len(set(self.built) | set(self.pending))

    def items(self):  # every parser: import every pending module first
        self._action.load_all()
        return self.built.items()

    def values(self):
        self._action.load_all()
        return self.built.values()


class _LazySubParsersAction(argparse._SubParsersAction):
    """Sub-commands declared by name and help; a command's module runs its ``add_parser`` when needed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._name_parser_map = _LazyParsers(self)
        self.choices = self._name_parser_map
        self._loaded: set[str] = set()

    def declare(self, command: Command) -> None:
        """List ``command`` in the help; its module is imported when the command is looked up."""
        self._name_parser_map.pending[command.name] = command.module
        self._choices_actions.append(self._ChoicesPseudoAction(command.name, (), command.help))

    def load(self, module_name: str) -> None:
        """Import ``module_name`` and let it register its commands (once)."""
        if module_name in self._loaded:
            return
        self._loaded.add(module_name)
        module = _import_command_module(module_name)
        if module is None:  # not written yet: its declared commands go
            pending = self._name_parser_map.pending
            for name in [n for n, m in pending.items() if m == module_name]:
                del pending[name]
            self._choices_actions[:] = [c for c in self._choices_actions if c.dest in self._name_parser_map]
            return
        module.add_parser(self)

    def load_all(self) -> None:
        """Import every declared command's module (walking the whole tree)."""
        for module_name in list(dict.fromkeys(self._name_parser_map.pending.values())):
            self.load(module_name)

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        """argparse's, but a declared command keeps its place in the help (with the help the module gives)."""
        declared = [i for i, c in enumerate(self._choices_actions) if c.dest == name]
        if name not in self._name_parser_map.built:  # declared, not built yet: not a conflict
            self._name_parser_map.pending.pop(name, None)
        parser = super().add_parser(name, **kwargs)
        if declared and "help" in kwargs:
            new = self._choices_actions.pop()
            self._choices_actions[declared[0]] = new
        return parser


def build_parser() -> argparse.ArgumentParser:
    """The ``paperlib`` parser; a command's module is imported when that command is parsed (or walked)."""
    parser = argparse.ArgumentParser(
        prog="paperlib",
        description="Reproduce robot friction-identification papers from recordings, a twin or hardware.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", action=_LazySubParsersAction)
    for command in commands():
        if isinstance(command, Command):
            sub.declare(command)
        else:  # a bare module name: imported now, as it gives no name and help of its own
            sub.load(command)
    return parser


#: Commands that compile numba kernels on their first run with a given source tree, and about how
#: long that takes [s]: CPU time of a first run (empty cache) minus that of the second run, on
#: the 2-core VM (record 22.2 - 3.2 s, run --rig twin 20.8 - 4.0 s, identify 5.5 - 2.2 s; measured
#: under load, where the wall time was several times longer). The cache is keyed by the package's
#: sources (:mod:`paperlib._numba_cache`), so the message returns after a source change, when
#: numba really compiles again.
FIRST_RUN_COMPILE_S: dict[str, int] = {
    "record": 19,
    "run": 17,
    "identify": 3,
}


def _command_tag(args: argparse.Namespace) -> str:
    """``record``, ``serial identify``, ...: the command path of parsed arguments."""
    parts = [str(args.command)]
    for key, val in vars(args).items():
        if key.endswith("_command") and isinstance(val, str):
            parts.append(val)
    return " ".join(parts)


def compile_notice(tag: str) -> str | None:
    """The first-run message for a command, or None when its kernels are compiled already."""
    from paperlib import _numba_cache

    seconds = FIRST_RUN_COMPILE_S.get(tag)
    if seconds is None or _numba_cache.is_warm(tag):
        return None
    return (f"paperlib {tag}: compiling kernels (first run only, ~{seconds} s on a 2-core machine; "
            f"cached in {_numba_cache.cache_dir()})")


def iter_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, parser) for ``parser`` and every sub-command below it, depth first.

    Walking the tree imports every command's module.
    """
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from iter_commands(sub, path + (name,))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    tag = _command_tag(args)
    notice = compile_notice(tag)
    if notice:
        print(notice, file=sys.stderr, flush=True)
    result = int(args.func(args) or 0)
    if notice and result == 0:
        from paperlib import _numba_cache

        _numba_cache.mark_warm(tag)
    return result


if __name__ == "__main__":
    sys.exit(main())
