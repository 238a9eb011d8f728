"""paperlib._toml.read_toml: parsed once per version of a file, every caller its own copy."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from paperlib._toml import read_toml


def test_same_document_as_tomllib_and_a_copy_per_caller(tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text('[robot]\nname = "x"\nlengths_m = [0.1, 0.2]\n')
    first = read_toml(f)
    assert first == tomllib.loads(f.read_text())
    first["robot"]["lengths_m"].append(9.0)  # a caller changing what it got ...
    assert read_toml(f)["robot"]["lengths_m"] == [0.1, 0.2]  # ... does not change the next caller's


def test_an_edited_file_is_read_again(tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text("x = 1\n")
    assert read_toml(f) == {"x": 1}
    st = f.stat()
    f.write_text("x = 2\n")  # same size; the modification time is set apart explicitly
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert read_toml(f) == {"x": 2}


def test_errors_are_the_parser_s_and_the_file_system_s(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("x = \n")
    with pytest.raises(tomllib.TOMLDecodeError):
        read_toml(bad)
    with pytest.raises(FileNotFoundError):
        read_toml(tmp_path / "missing.toml")
