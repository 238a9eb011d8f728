"""Every command that writes a file checks where it writes before it starts working.

`record --output missing_dir/x.nc` used to simulate the whole run and then crash with a traceback.
Each command below is given an unwritable output; it must stop while the command line is read
(exit 2, nothing run: the command's function is replaced by one that fails the test) with a
message naming the option and the path.
"""

from __future__ import annotations


import pytest

from paperlib import cli
from paperlib.cli import iter_commands
from paperlib.cli_args import OUTPUT_TYPES, output_problem

#: option dests that name something a command writes
OUTPUT_DESTS = {"output", "json", "json_out", "out", "keep_source", "workdir", "results_dir", "figures_dir"}


def _output_options():
    for path, parser in iter_commands(cli.build_parser()):
        for action in parser._actions:
            if action.dest in OUTPUT_DESTS and action.option_strings and action.nargs != 0:  # not --json flags
                yield path, action


def test_every_output_option_is_checked() -> None:
    unchecked = [f"paperlib {' '.join(p)} {a.option_strings[0]}" for p, a in _output_options()
                 if a.type not in OUTPUT_TYPES]
    assert not unchecked, "output options not checked before the work starts:\n" + "\n".join(unchecked)
    assert len(list(_output_options())) >= 15


# (argv with OUT where the output goes, whether the command creates missing folders itself)
COMMANDS = [
    (["record", "--duration", "150", "--output", "OUT"], False),
    (["run", "--rig", "twin", "--duration", "150", "--output", "OUT"], False),
    (["run", "--rig", "twin", "--duration", "1", "--output", "ok.nc", "--json", "OUT"], False),
    (["identify", "rec.nc", "--json", "OUT"], False),
    (["data", "fetch", "tx40", "--output", "OUT"], False),
    (["hardware", "selftest", "--json", "OUT"], False),
    (["hardware", "calibrate-imu", "rec.nc", "--output", "OUT"], False),
    (["serial", "identify", "rec.nc", "--robot", "tx40", "--json", "OUT"], True),
    (["thermal", "fit", "day.nc", "--json", "OUT"], True),
    (["thermal", "monitor", "day.nc", "--model", "m.json", "--json", "OUT"], True),
    (["rrr", "identify", "rec.nc", "--json", "OUT"], True),
    (["bearing", "fit", "rec.nc", "--json", "OUT"], True),
    (["bearing", "inspect", "rec.nc", "--model", "m.json", "--json", "OUT"], True),
    (["bearing", "twin", "--kind", "no-load", "--output", "OUT"], True),
]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command's function is ever called."""
    real = cli.build_parser

    def build():
        parser = real()
        for _, p in iter_commands(parser):
            if p.get_default("func") is not None:
                p.set_defaults(func=lambda args: pytest.fail("the command started working"))
        return parser

    monkeypatch.setattr(cli, "build_parser", build)


def _run(argv, out, capsys):
    argv = [str(out) if a == "OUT" else a for a in argv]
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    return exc.value.code, capsys.readouterr().err


@pytest.mark.parametrize("argv,creates", COMMANDS, ids=[" ".join(a[:2]) + f" {a[-2]}" for a, _ in COMMANDS])
def test_output_under_a_file_fails_at_once(argv, creates, tmp_path, monkeypatch, capsys, no_work) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a directory")
    code, err = _run(argv, tmp_path / "afile" / "x.out", capsys)
    assert code == 2
    assert "afile" in err and "is a file, not a directory" in err


@pytest.mark.parametrize("argv,creates", [c for c in COMMANDS if not c[1]],
                         ids=[" ".join(a[:2]) + f" {a[-2]}" for a, c in COMMANDS if not c])
def test_output_in_a_missing_directory_fails_at_once(argv, creates, tmp_path, monkeypatch, capsys, no_work) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = _run(argv, "missing_dir/x.out", capsys)
    assert code == 2
    assert "missing_dir/x.out" in err and "does not exist" in err


def test_output_that_is_a_directory_fails(tmp_path, monkeypatch, capsys, no_work) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    code, err = _run(["record", "--duration", "1", "--output", "OUT"], "d", capsys)
    assert code == 2 and "is a directory" in err


def test_folders_a_command_creates_may_be_missing(tmp_path) -> None:
    assert output_problem(tmp_path / "new" / "deeper" / "x.json", create_parents=True) is None
    assert output_problem(tmp_path / "new" / "x.json") is not None
    assert output_problem(tmp_path / "newdir", is_dir=True) is None
    (tmp_path / "f").write_text("")
    assert "is a file" in output_problem(tmp_path / "f", is_dir=True)


def test_a_good_output_passes_to_the_command(tmp_path, monkeypatch) -> None:
    """The check does not refuse what is fine: the command gets the path as given."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # the first-run marker goes here, not the real cache
    seen = {}
    real = cli.build_parser

    def build():
        parser = real()
        for _, p in iter_commands(parser):
            if p.get_default("func") is not None:
                p.set_defaults(func=lambda args: seen.setdefault("output", args.output) and 0)
        return parser

    monkeypatch.setattr(cli, "build_parser", build)
    assert cli.main(["record", "--duration", "1", "--output", "run.nc"]) == 0
    assert seen["output"] == "run.nc"
