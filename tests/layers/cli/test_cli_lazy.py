"""The command line imports a command's module only when that command runs.

``paperlib --help`` and ``paperlib reproduce --list`` must not import the numerical stack (numpy,
xarray, scipy, numba, snakemake...): what is imported is checked in a fresh interpreter, never how
long it takes. The help each command is declared with (listed without importing it) must be the
help its module registers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from paperlib import cli
from paperlib.experiments.kit import Command
from paperlib.provenance import REPO_ROOT

HEAVY = ("numpy", "xarray", "scipy", "numba", "snakemake", "pandas", "matplotlib", "holoviews", "sympy", "h5py")


def _modules_after(argv: list[str]) -> tuple[int, str, set[str]]:
    """Exit code, stdout and the imported module names of ``paperlib.cli.main(argv)`` in a fresh interpreter."""
    code = (
        "import json, sys, io, contextlib\n"
        "from paperlib.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        f"        rc = main({argv!r})\n"
        "    except SystemExit as exc:\n"
        "        rc = exc.code\n"
        "print(json.dumps({'rc': rc, 'out': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    return res["rc"], res["out"], set(res["modules"])


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize("argv", [["--help"], ["reproduce", "--list"], []], ids=["--help", "reproduce --list", "none"])
def test_help_and_list_import_no_numerical_stack(argv) -> None:
    rc, out, modules = _modules_after(argv)
    assert rc in (0, 2), out  # no command: the help, exit 2 as before
    assert "reproduce" in out or "industrial" in out
    assert not _heavy(modules), f"paperlib {' '.join(argv)} imported {_heavy(modules)[:20]}"
    assert set(cli.COMMAND_MODULES) & modules <= {"paperlib.experiments.cli"}  # reproduce's own, for --list


def test_a_command_imports_its_own_module_only() -> None:
    """``paperlib serial identify --help`` builds the serial parser and no other command's."""
    rc, out, modules = _modules_after(["serial", "identify", "--help"])
    assert rc == 0 and "--robot" in out
    own = next(c.module for c in cli.COMMANDS if c.name == "serial")
    assert own in modules
    others = set(cli.command_modules()) - {own}
    assert not others & modules, sorted(others & modules)


def _top_level(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_declared_help_is_what_each_module_registers() -> None:
    """The help ``paperlib --help`` lists (declared) equals the help after every module registered itself."""
    parser = cli.build_parser()
    declared = [(c.dest, c.help) for c in _top_level(parser)._choices_actions]
    list(cli.iter_commands(parser))  # imports every command module: each replaces its declared entry
    registered = [(c.dest, c.help) for c in _top_level(parser)._choices_actions]
    assert declared == registered
    names = [c.name for c in cli.commands() if isinstance(c, Command)]
    assert len(names) == len(set(names)) and set(names) <= set(_top_level(parser).choices)
    # every declared command now has its real parser, with the function it runs or sub-commands
    for name in names:
        sub = _top_level(parser).choices[name]
        assert sub.get_default("func") is not None or any(
            isinstance(a, argparse._SubParsersAction) for a in sub._actions), name


def test_a_command_no_module_registers_is_refused_clearly(monkeypatch, capsys) -> None:
    """A declared command whose module does not register it is an argparse error, not a traceback."""
    monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + (Command("ghost", "paperlib.bench", "nothing registers me"),))
    assert "ghost" in cli.build_parser().format_help()
    with pytest.raises(SystemExit) as exc:
        cli.main(["ghost"])
    assert exc.value.code == 2
    assert "ghost" in capsys.readouterr().err


def test_a_declared_module_not_written_yet_is_dropped(monkeypatch) -> None:
    monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + (Command("later", "paperlib.not_written_yet", "soon"),))
    parser = cli.build_parser()
    paths = {p for p, _ in cli.iter_commands(parser)}
    assert ("later",) not in paths and ("bench",) in paths
    assert "later" not in parser.format_help()
