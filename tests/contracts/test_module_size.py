"""One concept per file: no hand-written module of the package is over 800 lines (issue 24).

Generated modules (their first line reads ``# GENERATED FILE - DO NOT EDIT``, see
``paperlib/codegen.py``) are exempt: their length is the symbolic model's.
"""

from __future__ import annotations

from pathlib import Path

from paperlib.provenance import REPO_ROOT

LIMIT = 800
GENERATED = "# GENERATED FILE - DO NOT EDIT"


def oversized(root: Path, limit: int = LIMIT) -> list[tuple[int, str]]:
    """(lines, path relative to ``root``) of every hand-written ``*.py`` under ``root`` over ``limit`` lines."""
    out = []
    for p in sorted(root.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        text = p.read_text(encoding="utf-8")
        if text.startswith(GENERATED):
            continue
        n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if n > limit:
            out.append((n, str(p.relative_to(root))))
    return out


def test_no_hand_written_module_is_over_the_limit() -> None:
    over = oversized(REPO_ROOT / "paperlib")
    assert not over, f"hand-written modules over {LIMIT} lines (split them by concept): {over}"


def test_the_check_sees_a_long_module_and_skips_a_generated_one(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "ok.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "gen.py").write_text(GENERATED + "\n" + "x = 1\n" * (2 * LIMIT))
    assert oversized(tmp_path) == [(LIMIT + 1, "long.py")]
