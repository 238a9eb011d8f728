"""``paperlib reproduce --report FILE.html``: Snakemake's report of the build, asked for with the build's own
targets and configuration. (The report of a real build: tests/contracts/test_sixth_room_builds.py, marker
``build``, and CI's course build, .ci/run.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperlib.cli import build_parser
from paperlib.experiments.cli import report_command, snakemake_command


def test_report_command_is_the_builds_own_command_reporting(tmp_path: Path) -> None:
    args = build_parser().parse_args(["reproduce", "bearing", "rrr", "--cores", "1", "--config", "config/smoke.yaml",
                                      "--forceall", "--quiet", "--report", str(tmp_path / "r.html")])
    assert args.report == (tmp_path / "r.html").resolve()
    build, report = snakemake_command(args), report_command(args)
    assert report[-2:] == ["--report", str(tmp_path / "r.html")]
    assert "--forceall" in build and "--forceall" not in report and "--quiet" not in report
    assert "--dry-run" not in report
    # same targets, Snakefile, directory and configuration as the build
    for piece in ("bearing", "rrr", "--snakefile", "--directory"):
        assert piece in report
    assert [c for c in report if c.startswith("config_file=")] == [c for c in build if c.startswith("config_file=")]


@pytest.mark.parametrize("value, says", [("report.pdf", "a .html or a .zip"), ("afile/r.html", "is a file"),
                                         ("r.html/", "is a directory")])
def test_a_bad_report_file_is_refused_while_parsing(value: str, says: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    (tmp_path / "r.html").mkdir()
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["reproduce", "bearing", "--report", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--report" in err and says in err
