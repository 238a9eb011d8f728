"""Sensitivity study files: which assumptions, which headlines, how many samples, where results go.

A study file is YAML::

    name: assumptions          # results/<paper>/sensitivity/<name>/, figures/<paper>/sensitivity_<name>_*
    paper: PAPER               # a room with a sweep runner that declares ASSUMPTIONS
    description: one line, for people
    assumptions: all           # or a list of names of the runner's ASSUMPTIONS
    headlines: [KEY, ...]      # headline keys of the runner's headlines() (the comparison rows)
    seeds: [1]                 # sweep seeds each sample runs with; a sample's value is their mean
    morris: {trajectories: 6, levels: 4, seed: 1}
    sobol: {base_n: 16, top_k: 3, seed: 2}      # N (a power of 2): N x (top_k + 2) runs
    settings: {}               # runner settings of every run (e.g. shorter durations_s)
    resources: {mem_mb: 2000, runtime_min: 10}  # per run (a sweep file's resources)
    slurm: {partition: null, account: null}

Validation names the file and the problem (:class:`StudyConfigError`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


__all__ = ["StudyConfigError", "Study", "load_study", "runner_module", "TOP_KEYS"]

#: Keys a study file may hold, with their meaning.
TOP_KEYS: dict[str, str] = {
    "name": "study name (letters, digits, _ and -): its output folder",
    "paper": "room slug whose runner declares ASSUMPTIONS",
    "description": "one line, for people",
    "assumptions": "'all' or a list of names of the runner's ASSUMPTIONS",
    "headlines": "list of headline keys (the runner's headlines())",
    "seeds": "list of sweep seeds every sample runs with (its value: their mean)",
    "morris": "trajectories (r), levels (even, >= 2), seed",
    "sobol": "base_n (power of 2), top_k (assumptions going on to Sobol'), seed",
    "settings": "runner settings of every run",
    "resources": "per-run resources of the sweep engine: mem_mb, runtime_min, cpus",
    "slurm": "partition and account for SLURM (null: the cluster's defaults)",
}


class StudyConfigError(ValueError):
    """A study file is missing, unreadable or inconsistent (the message names the file)."""


@dataclass
class Study:
    """A validated study (module docstring).

    Attributes
    ----------
    path : Path
    name, paper, description : str
    assumptions : list of str
        Names of the runner's ``ASSUMPTIONS`` studied, in the file's order.
    headlines : list of str
    seeds : list of int
    morris : dict (``trajectories``, ``levels``, ``seed``)
    sobol : dict (``base_n``, ``top_k``, ``seed``)
    settings, resources, slurm : dict
    """

    path: Path
    name: str
    paper: str
    assumptions: list[str]
    headlines: list[str]
    seeds: list[int] = field(default_factory=lambda: [1])
    morris: dict[str, int] = field(default_factory=dict)
    sobol: dict[str, int] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, Any] = field(default_factory=dict)
    slurm: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def out_dir(self, results: str = "results") -> str:
        """``<results>/<paper>/sensitivity/<name>``."""
        return f"{results}/{self.paper}/sensitivity/{self.name}"

    def summary_file(self, results: str = "results") -> str:
        """The study's ``summary.json``."""
        return f"{self.out_dir(results)}/summary.json"

    def sweep_name(self, stage: str) -> str:
        """Name of the sweep a stage runs on (``sensitivity-<name>-<stage>``)."""
        return f"sensitivity-{self.name}-{stage}"

    def figure_stem(self, kind: str, figures: str = "figures") -> str:
        """``<figures>/<paper>/sensitivity_<name>_<kind>`` (without extension)."""
        return f"{figures}/{self.paper}/sensitivity_{self.name}_{kind}"

    @property
    def n_morris_runs(self) -> int:
        """Runs of stage 1: r x (k + 1) Morris points plus the stated twin, times the seeds."""
        return (self.morris["trajectories"] * (len(self.assumptions) + 1) + 1) * len(self.seeds)

    @property
    def n_sobol_runs(self) -> int:
        """Runs of stage 2: N x (top_k + 2) Saltelli points, times the seeds."""
        k = min(self.sobol["top_k"], len(self.assumptions))
        return self.sobol["base_n"] * (k + 2) * len(self.seeds)


def runner_module(paper: str) -> Any:
    """The room's sweep runner module (from the registry, :func:`paperlib.sweeps.runners`)."""
    from paperlib.sweeps import runners

    run = runners()
    if paper not in run:
        raise StudyConfigError(f"no sweep runner for paper {paper!r}; papers with one: {sorted(run)}")
    return importlib.import_module(run[paper])


def _int_section(doc: Mapping[str, Any], key: str, defaults: Mapping[str, int], where: str) -> dict[str, int]:
    raw = doc.get(key) or {}
    if not isinstance(raw, Mapping):
        raise StudyConfigError(f"{where}: {key} must be a mapping ({TOP_KEYS[key]})")
    extra = sorted(set(raw) - set(defaults))
    if extra:
        raise StudyConfigError(f"{where}: unknown {key} key(s) {extra}; known: {sorted(defaults)}")
    out = {**defaults, **raw}
    for k, v in out.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < (0 if k == "seed" else 1):
            raise StudyConfigError(f"{where}: {key}.{k} must be a positive int, got {v!r}")
    return out


def load_study(path: str | Path) -> Study:
    """Read and check a study file.

    Raises
    ------
    StudyConfigError
        Missing file, bad YAML, unknown key, a room without ``ASSUMPTIONS``, an unknown
        assumption or headline, bad sample sizes (Morris levels odd or < 2, Sobol' N not a power
        of 2, fewer than 2 trajectories), bad seeds.
    """
    from paperlib.sweeps.config import read_config_file

    p = Path(path)
    where = f"study file {p}"
    doc = read_config_file(p, "study file", TOP_KEYS, ("name", "paper", "headlines"), StudyConfigError)
    name = str(doc["name"])
    paper = str(doc["paper"])
    try:
        mod = runner_module(paper)
    except StudyConfigError as exc:
        raise StudyConfigError(f"{where}: {exc}") from None
    declared = getattr(mod, "ASSUMPTIONS", None)
    if not declared:
        raise StudyConfigError(f"{where}: the sweep runner of {paper!r} ({mod.__name__}) declares no ASSUMPTIONS")
    raw_a = doc.get("assumptions", "all")
    names = list(declared) if raw_a == "all" else raw_a
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise StudyConfigError(f"{where}: assumptions must be 'all' or a non-empty list of names")
    bad = sorted(set(names) - set(declared))
    if bad:
        raise StudyConfigError(f"{where}: unknown assumption(s) {bad} of {paper!r}; declared: {sorted(declared)}")
    if len(set(names)) != len(names) or len(names) < 2:
        raise StudyConfigError(f"{where}: assumptions must name at least 2 distinct assumptions, got {names}")
    heads = doc["headlines"]
    known = [h.key for h in mod.headlines()]
    if not isinstance(heads, list) or not heads or not all(isinstance(h, str) for h in heads):
        raise StudyConfigError(f"{where}: headlines must be a non-empty list of headline keys")
    bad = sorted(set(heads) - set(known))
    if bad:
        raise StudyConfigError(f"{where}: unknown headline(s) {bad} of {paper!r}; known: {known}")
    seeds = doc.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                                          for s in seeds) or len(set(seeds)) != len(seeds):
        raise StudyConfigError(f"{where}: seeds must be a non-empty list of distinct ints >= 0, got {seeds!r}")
    morris = _int_section(doc, "morris", {"trajectories": 6, "levels": 4, "seed": 1}, where)
    if morris["levels"] < 2 or morris["levels"] % 2:
        raise StudyConfigError(f"{where}: morris.levels must be even and >= 2, got {morris['levels']}")
    if morris["trajectories"] < 2:
        raise StudyConfigError(f"{where}: morris.trajectories must be >= 2 (a spread needs two), got {morris['trajectories']}")
    sobol = _int_section(doc, "sobol", {"base_n": 16, "top_k": 3, "seed": 2}, where)
    n = sobol["base_n"]
    if n < 2 or n & (n - 1):
        raise StudyConfigError(f"{where}: sobol.base_n must be a power of 2 >= 2 (Sobol' sequence), got {n}")
    settings = doc.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise StudyConfigError(f"{where}: settings must be a mapping")
    res = doc.get("resources") or {}
    slurm = doc.get("slurm") or {}
    if not isinstance(res, Mapping) or not isinstance(slurm, Mapping):
        raise StudyConfigError(f"{where}: resources and slurm must be mappings")
    return Study(path=p, name=name, paper=paper, assumptions=list(names), headlines=list(heads), seeds=list(seeds),
                 morris=morris, sobol=sobol, settings=dict(settings), resources=dict(res), slurm=dict(slurm),
                 description=str(doc.get("description", "")))
