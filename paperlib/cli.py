"""The ``paperlib`` command.

Each sub-command lives in the module that owns its logic; that module exposes
``add_parser(subparsers)`` which registers the sub-command and sets ``func``. The layers'
modules are listed in :data:`COMMAND_MODULES`; the rooms' come from the room registry
(:func:`paperlib.experiments.kit.registry.command_modules`), so a room's commands appear
without an edit here.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# (module, what it provides) -- one entry per layer module that registers sub-commands.
COMMAND_MODULES: tuple[str, ...] = (
    "paperlib.bench",                 # bench
    "paperlib.recordings.cli",        # validate, recordings verify
    "paperlib.recordings.import_cli", # import csv | rosbag2
    "paperlib.twin.cli",              # record
    "paperlib.estimation.cli",        # identify
    "paperlib.hardware.cli",          # run, hardware probe / selftest
    "paperlib.experiments.cli",       # reproduce
    "paperlib.book.cli",              # book build / serve
    "paperlib.sweeps.cli",            # sweep
    "paperlib.data.cli",              # data fetch
    "paperlib.serial_cli",            # serial identify
    "paperlib.estimation.thermal_cli",  # thermal fit / monitor
    "paperlib.archive.cli",           # archive pack | verify | resolve
)


def command_modules() -> list[str]:
    """The layers' command modules, then the rooms' (from the room registry, in room order)."""
    from paperlib.experiments.kit import registry

    return list(COMMAND_MODULES) + [m for m in registry.command_modules() if m not in COMMAND_MODULES]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperlib",
        description="Reproduce robot friction-identification papers from recordings, a twin or hardware.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # the module is not written yet; anything else is a real error
                continue
            raise
        module.add_parser(sub)
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
    """(command path, parser) for ``parser`` and every sub-command below it, depth first."""
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
