"""The README's first screen: what a newcomer runs and reads first, and the papers it names."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from paperlib.cli import build_parser
from paperlib.experiments import papers

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    nxt = README.find("\n## ", start + 3)
    return README[start:nxt if nxt > 0 else None]


def test_room_is_said_before_it_is_used():
    first_use = re.search(r"\brooms?\b", README).start()
    assert README.index("a **room**") <= first_use


def test_first_ten_minutes_commands_exist():
    """Every ``paperlib`` command of the first ten minutes parses (a renamed subcommand or option fails here)."""
    block = re.search(r"```bash\n(.*?)```", _section("First ten minutes"), re.S).group(1)
    cmds = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert cmds[0] == "make kernel" and any("reproduce bearing" in c for c in cmds)
    parser = build_parser()
    for cmd in cmds:
        words = shlex.split(cmd)
        if words[0].endswith("/paperlib"):
            parser.parse_args(words[1:])  # SystemExit on an unknown command or option
    assert "make reproduce" in README[:300] and "make test" in README[:300]
    text = _section("First ten minutes")
    for where in ("figures/bearing/", "results/bearing/paper_comparison.md", "results/bearing/notebooks/"):
        assert where in text


@pytest.mark.parametrize("paper", papers(), ids=lambda p: p["slug"])
def test_papers_table_agrees_with_the_rooms(paper):
    rows = [line for line in _section("The papers").splitlines() if line.startswith(f"| `{paper['slug']}` |")]
    assert len(rows) == 1, f"{paper['slug']}: one row in the README's papers table"
    row = rows[0]
    assert paper["title"] in row and f"../shared/papers/{paper['paper_file']}" in row
    for author in paper["authors"]:
        assert author in row
    for key in ("year", "doi", "venue"):
        if paper.get(key):
            assert str(paper[key]) in row
    if not paper["authors"]:
        assert "not named in the text" in row
    if not paper.get("doi"):
        assert "DOI" not in row.replace("no DOI in the text", "")


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
