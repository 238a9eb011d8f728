"""provenance.git_commit against a throw-away repository: the head, -dirty on a tracked change only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from paperlib import provenance

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "first")
    monkeypatch.setattr(provenance, "REPO_ROOT", tmp_path)
    return tmp_path


def test_clean_tree_gives_the_head_commit(repo: Path) -> None:
    assert provenance.git_commit() == _git(repo, "rev-parse", "HEAD")


def test_untracked_file_is_not_a_change_but_an_edit_is(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "new.txt").write_text("untracked\n")
    assert provenance.git_commit() == head
    (repo / "a.txt").write_text("two\n")
    assert provenance.git_commit() == head + "-dirty"


def test_without_a_repository_the_built_from_commit_or_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provenance, "REPO_ROOT", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("PAPERLIB_COMMIT", raising=False)
    assert provenance.git_commit() == "unknown"
    monkeypatch.setenv("PAPERLIB_COMMIT", "f" * 40)
    assert provenance.git_commit() == "f" * 40


def test_repository_without_commits_is_not_a_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _git(tmp_path, "init", "-q")
    monkeypatch.setattr(provenance, "REPO_ROOT", tmp_path)
    monkeypatch.delenv("PAPERLIB_COMMIT", raising=False)
    assert provenance.git_commit() == "unknown"
