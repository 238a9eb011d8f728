"""The ``paperlib`` command.

Each sub-command lives in the module that owns its logic; that module exposes
``add_parser(subparsers)`` which registers the sub-command and sets ``func``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# (module, what it provides) -- one entry per module that registers sub-commands.
COMMAND_MODULES: tuple[str, ...] = (
    "paperlib.bench",                 # bench
    "paperlib.recordings_cli",        # validate, recordings verify
    "paperlib.twin.cli",              # record
    "paperlib.estimation.cli",        # identify
    "paperlib.hardware.cli",          # run, hardware probe / selftest
    "paperlib.experiments.cli",       # reproduce
    "paperlib.book.cli",              # book build / serve
    "paperlib.sweeps.cli",            # sweep
    "paperlib.experiments.bearing.cli",  # bearing fit | inspect | twin
    "paperlib.data.cli",              # data fetch
    "paperlib.estimation.serial_identification",  # serial identify
    "paperlib.experiments.rrr.cli",   # rrr identify
    "paperlib.estimation.thermal_cli",  # thermal fit / monitor
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperlib",
        description="Reproduce robot friction-identification papers from recordings, a twin or hardware.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # the module is not written yet; anything else is a real error
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    result = args.func(args)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
