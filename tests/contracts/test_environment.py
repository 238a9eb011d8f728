"""pyproject.toml's pins and environment.yml's pins agree; the README keeps its promises."""

from __future__ import annotations

import re
import tomllib

import yaml
from paperlib.provenance import REPO_ROOT

ROOT = REPO_ROOT


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject_pins() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    deps = data["project"]["dependencies"] + data["project"]["optional-dependencies"]["dev"]
    pins = {}
    for dep in deps:
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^;\s]+)", dep.strip())
        assert m, f"pyproject dependency is not pinned exactly: {dep!r}"
        pins[_norm(m.group(1))] = m.group(2)
    return pins


def _environment_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for pip_dep in dep.get("pip", []):
                m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", pip_dep)
                if m:
                    pins[_norm(m.group(1))] = m.group(2)
            continue
        name, _, version = dep.partition("=")
        if name in ("python", "pip"):
            continue
        pins[_norm(name)] = version
    return pins


def test_pins_agree():
    py, env = _pyproject_pins(), _environment_pins()
    assert set(py) == set(env), f"only in pyproject: {set(py) - set(env)}; only in environment.yml: {set(env) - set(py)}"
    mismatched = {k: (py[k], env[k]) for k in py if py[k] != env[k]}
    assert not mismatched, f"pins differ (pyproject, environment.yml): {mismatched}"


def test_installed_versions_match_pins():
    from importlib.metadata import version

    for name, pinned in _pyproject_pins().items():
        assert version(name) == pinned, f"{name}: installed {version(name)}, pinned {pinned}"


def test_readme_first_lines_give_the_two_commands():
    head = "\n".join((ROOT / "README.md").read_text().splitlines()[:15])
    assert "make reproduce" in head and "make test" in head
    assert "make test" in (ROOT / ".ci" / "run").read_text()
