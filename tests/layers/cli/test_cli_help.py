"""The ``paperlib`` command tree: every option explained, nothing offered that is then refused, plain help text."""

from __future__ import annotations

import argparse

import pytest

from paperlib.cli import build_parser, iter_commands, main


COMMANDS = list(iter_commands(build_parser()))


def test_the_tree_has_every_command() -> None:
    names = {" ".join(p) for p, _ in COMMANDS}
    assert {"record", "identify", "validate", "reproduce", "run", "hardware selftest", "serial identify",
            "bearing fit", "thermal fit", "rrr identify", "data fetch", "book build", "sweep"} <= names


def test_every_option_and_argument_has_help() -> None:
    missing = []
    for path, parser in COMMANDS:
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                helped = {c.dest for c in action._choices_actions if (c.help or "").strip()}
                missing += [f"paperlib {' '.join(path + (name,))} (sub-command)" for name in action.choices
                            if name not in helped]
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"paperlib {' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without help text:\n" + "\n".join(missing)


@pytest.mark.parametrize("path,parser", COMMANDS, ids=[" ".join(p) or "paperlib" for p, _ in COMMANDS])
def test_help_is_plain_text(path, parser) -> None:
    """No RST markup (``literal``, :func:`role`) or stray backticks in any --help."""
    text = parser.format_help()
    assert "`" not in text, text


def test_record_offers_only_the_twin() -> None:
    """`record --rig hardware` was offered by --help and then refused: now --help offers only twin, and the
    error says where the robot is recorded."""
    rec = dict(COMMANDS)[("record",)]
    assert "hardware" not in rec.format_usage()
    with pytest.raises(SystemExit) as exc:
        main(["record", "--rig", "hardware", "--duration", "1", "--output", "x.nc"])
    assert exc.value.code == 2


def test_record_hardware_error_points_to_run(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["record", "--rig", "hardware", "--duration", "1", "--output", "x.nc"])
    assert "paperlib run --rig hardware" in capsys.readouterr().err


def test_choice_lists_are_what_the_commands_accept() -> None:
    """Every choice offered for a controller or a model is one the code knows."""
    from paperlib.control.controllers import CONTROLLER_SWITCHES
    from paperlib.friction import TABLE4

    seen = 0
    for path, parser in COMMANDS:
        for action in parser._actions:
            if action.choices is None or isinstance(action, argparse._SubParsersAction):
                continue
            if action.dest == "controller":
                assert set(action.choices) <= set(CONTROLLER_SWITCHES), (path, action.choices)
                seen += 1
            if action.dest == "model" and all(isinstance(c, int) for c in action.choices):
                assert set(action.choices) <= set(TABLE4), (path, action.choices)
                seen += 1
    assert seen >= 4


def test_reproduce_offers_only_papers_it_builds() -> None:
    """`reproduce PAPER` lists the slugs it builds; a planned paper (refused) is named as such, not offered."""
    from paperlib.experiments import papers

    rep = dict(COMMANDS)[("reproduce",)]
    action = next(a for a in rep._actions if a.dest == "papers")
    offered = action.help.split("to build: ")[1].split(" (default")[0].split(", ")
    status = {p["slug"]: p["status"] for p in papers()}
    assert offered and all(status[s] != "planned" for s in offered)
    assert set(offered) == {s for s, st in status.items() if st != "planned"}


def test_compile_notice_only_when_the_cache_is_cold(tmp_path, monkeypatch) -> None:
    from paperlib import _numba_cache
    from paperlib.cli import compile_notice

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    msg = compile_notice("record")
    assert msg is not None and "compiling kernels (first run only" in msg
    assert compile_notice("validate") is None
    _numba_cache.mark_warm("record")
    assert compile_notice("record") is None
