"""Argument types shared by the ``paperlib`` sub-commands: outputs checked when the command line is read.

A command that simulates for minutes and then cannot write its file wastes the minutes and ends
in a traceback. Every option naming a file a command writes therefore takes one of these as its
argparse ``type``: argparse calls it while it reads the command line, before any work starts, and
a bad path stops the command at once (exit 2) with a message naming the option and the path::

    paperlib record: error: argument --output: cannot write missing_dir/x.nc: directory missing_dir does not exist

:func:`output_file` requires the file's directory to exist (the command does not create it);
:func:`output_file_in_new_dir` accepts a missing directory that the command creates, as long as
the nearest existing ancestor is a writable directory; :func:`output_dir` is for a folder the
command creates or fills.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

__all__ = ["add_robot_arguments", "plain_text", "output_problem", "output_file", "output_file_in_new_dir", "output_dir", "OUTPUT_TYPES"]


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def output_problem(path: str | os.PathLike[str], *, create_parents: bool = False, is_dir: bool = False) -> str | None:
    """Why ``path`` cannot be written, or None if it can.

    Parameters
    ----------
    path : path-like
        The file (or, with ``is_dir``, the folder) a command will write.
    create_parents : bool
        The command creates missing parent folders itself (then only the nearest existing
        ancestor must be a writable directory).
    is_dir : bool
        ``path`` is a folder the command creates or fills (it must not be a file).

    Returns
    -------
    str or None
        A one-line reason naming the path, or None.
    """
    p = Path(path)
    if not str(path).strip():
        return "empty path"
    if is_dir:
        if p.exists() and not p.is_dir():
            return f"cannot write into {p}: it is a file, not a directory"
        target = p if p.exists() else p.parent
        create_parents = True
    else:
        if p.is_dir():
            return f"cannot write {p}: it is a directory"
        if p.exists() and not os.access(p, os.W_OK):
            return f"cannot write {p}: the file exists and is not writable"
        target = p.parent
    if not target.exists():
        if not create_parents:
            return f"cannot write {p}: directory {target} does not exist (create it first)"
        target = _nearest_existing(target)
    if not target.is_dir():
        return f"cannot write {p}: {target} is a file, not a directory"
    if not os.access(target, os.W_OK | os.X_OK):
        return f"cannot write {p}: directory {target} is not writable"
    return None


def output_file(text: str) -> str:
    """argparse type: a file to write whose directory exists and is writable (returns ``text``)."""
    why = output_problem(text)
    if why:
        raise argparse.ArgumentTypeError(why)
    return text


def output_file_in_new_dir(text: str) -> str:
    """argparse type: a file to write; missing folders are created by the command."""
    why = output_problem(text, create_parents=True)
    if why:
        raise argparse.ArgumentTypeError(why)
    return text


def output_dir(text: str) -> str:
    """argparse type: a folder the command creates (with its parents) or writes into."""
    why = output_problem(text, is_dir=True)
    if why:
        raise argparse.ArgumentTypeError(why)
    return text


#: The argparse types that check an output (a test asserts every output option uses one).
OUTPUT_TYPES = (output_file, output_file_in_new_dir, output_dir)


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_INTERPRETED = re.compile(r"`([^`]+)`")


def plain_text(doc: str | None) -> str:
    """A module docstring as terminal text for ``--help``: RST literals and roles without their backticks.

    ````paperlib reproduce```` and ``:func:`x``` become ``paperlib reproduce`` and ``x``; single
    backticks become quotes.
    """
    text = _ROLE.sub(r"\1", doc or "")
    text = _LITERAL.sub(r"\1", text)
    return _INTERPRETED.sub(r"'\1'", text)


def add_robot_arguments(parser: argparse.ArgumentParser, *, help: str) -> None:
    """The robot options every command that takes ``--robot`` shares: ``--robot`` and, for a URDF, ``--base-link`` / ``--tip-link``.

    The command passes ``args.base_link`` and ``args.tip_link`` on to
    ``SerialArm.named(args.robot, base_link=..., tip_link=...)`` (one loader for every command).
    """
    parser.add_argument("--robot", required=True, help=help)
    parser.add_argument("--base-link", metavar="LINK",
                        help="URDF only: link the arm is mounted on (default: the root link)")
    parser.add_argument("--tip-link", metavar="LINK",
                        help="URDF only: last link of the chain, when the tree holds several movable branches "
                             "(a mobile base with an arm, a torso with two arms); found by itself when there is one")
