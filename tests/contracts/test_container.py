"""The container image's recipe (container/) agrees with the package it installs.

None of these needs Docker: they read container/Dockerfile, container/build, .dockerignore and
pyproject.toml. The image itself is built and checked by container/build (`make container`, CI).
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import tomllib

import pytest

from paperlib.provenance import REPO_ROOT

ROOT = REPO_ROOT
CONTAINER = ROOT / "container"

#: Debian release -> the minor of its python3 (the base image's Python is the release's own)
DEBIAN_PYTHON = {"bullseye": "3.9", "bookworm": "3.11", "trixie": "3.13"}


def _required_minor() -> str:
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    m = re.fullmatch(r">=(\d+)\.(\d+),<(\d+)\.(\d+)", spec.replace(" ", ""))
    assert m, f"requires-python is not one minor (>=X.Y,<X.Y+1): {spec!r}"
    lo, hi = (int(m[1]), int(m[2])), (int(m[3]), int(m[4]))
    assert hi == (lo[0], lo[1] + 1), f"requires-python allows more than one minor: {spec!r}"
    return f"{lo[0]}.{lo[1]}"


def _shell_var(text: str, name: str) -> str:
    m = re.search(rf"^{name}=([^\s#]+)", text, re.M)
    assert m, f"container/build sets no {name}="
    return m[1]


def test_no_top_level_dockerfile():
    # repo2docker / Binder build from a top-level Dockerfile and then ignore environment.yml
    assert not (ROOT / "Dockerfile").exists()
    assert (CONTAINER / "Dockerfile").is_file()


def test_dockerfile_python_is_pyprojects():
    text = (CONTAINER / "Dockerfile").read_text()
    m = re.search(r"^ARG PYTHON_MINOR=(\S+)", text, re.M)
    assert m, "container/Dockerfile has no ARG PYTHON_MINOR"
    assert m[1] == _required_minor()
    # the ARG is used: the build stops when the base's python3 is another minor
    assert re.search(r"^RUN .*\$\{PYTHON_MINOR\}", text, re.M)


def test_base_release_ships_pyprojects_python():
    text = (CONTAINER / "build").read_text()
    suite = _shell_var(text, "SUITE")
    assert DEBIAN_PYTHON.get(suite) == _required_minor(), f"Debian {suite}'s python3 is {DEBIAN_PYTHON.get(suite)}"
    assert "--variant=minbase" in text
    packages = _shell_var(text, "BASE_PACKAGES").split(",")
    for needed in ("python3", "python3-venv", "make"):  # the Dockerfile runs `make kernel`
        assert needed in packages


def _ignored(path: str, patterns: list[tuple[bool, str]]) -> bool:
    """Docker's rule: the last pattern matching the path (or a folder above it) decides."""
    parts = path.split("/")
    ignored = False
    for negated, pattern in patterns:
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            if fnmatch.fnmatchcase(prefix, pattern) or (
                pattern.startswith("**/") and fnmatch.fnmatchcase(parts[i - 1], pattern[3:])
            ):
                ignored = not negated
                break
    return ignored


def _dockerignore() -> list[tuple[bool, str]]:
    patterns = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append((line.startswith("!"), line.lstrip("!").rstrip("/")))
    return patterns


def test_dockerignore_keeps_builds_and_environments_out():
    patterns = _dockerignore()
    for path in (".venv/bin/python", ".venv-cff/bin/cffconvert", ".git/HEAD", "results/bearing/x.md",
                 "figures/bearing/fig4.png", "data/recordings/tx40.nc", "paperlib/__pycache__/cli.cpython-311.pyc"):
        assert _ignored(path, patterns), f"{path} would be sent to docker build"


def test_dockerignore_keeps_what_the_image_needs():
    patterns = _dockerignore()
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout (e.g. inside the image): no list of committed files")
    left_out = [p for p in tracked if _ignored(p, patterns)]
    assert not left_out, f"committed files .dockerignore leaves out of the image: {left_out[:10]}"


def test_build_script_is_executable_and_make_calls_it():
    assert os.access(CONTAINER / "build", os.X_OK)
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^container:\n\t.*container/build", makefile, re.M)
    assert "container/build" in (ROOT / ".ci" / "run").read_text()


def test_build_settings_come_up_without_a_build(tmp_path):
    """The script's settings part runs under `set -euo pipefail` (a failing pipeline there ended CI's build silently)."""
    import os
    import shutil
    import subprocess

    if shutil.which("bash") is None or not (ROOT / ".git").exists():
        pytest.skip("needs bash and a git checkout")
    out = subprocess.run(["bash", str(ROOT / "container" / "build"), "--print-config"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PAPERLIB_CONTAINER_HOST_CAS": "0"})
    assert out.returncode == 0, out.stderr
    conf = dict(line.split("=", 1) for line in out.stdout.splitlines())
    assert conf["suite"] == "bookworm" and conf["mirror"]
    assert conf["base"].startswith("paperlib-base:bookworm-") and conf["image"].startswith("paperlib:")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert conf["commit"].removesuffix("-dirty") == head
