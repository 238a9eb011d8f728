"""Sweep files: what to run (paper, seeds, factors, runner settings) and where it goes.

A sweep file is YAML::

    name: seeds               # results/<paper>/sweeps/<name>/, figures/<paper>/sweep_<name>_*
    paper: PAPER              # a room's slug; its runner is the room's sweep_runner (paperlib.sweeps.runners())
    seeds: {start: 1, count: 100}   # or a list of ints, or an int N (= 1..N)
    factors:                  # optional: every combination of the values is run with every seed
      half_life_s: [300.0, 600.0]
    points:                   # optional, instead of factors: explicit factor combinations, run as
      - {half_life_s: 300.0, lambda_reg: 0.001}    # combos p0000, p0001, ... (a sensitivity study's samples)
    settings:                 # passed to the runner (paper-specific; see its run_seed)
      config: null            # pipeline configuration merged over config/default.yaml
    keep_recordings: false    # true: also write each job's recordings (.nc, large) beside its result
    resources:                # per job, for Snakemake (and SLURM through the executor plugin)
      mem_mb: 2000
      runtime_min: 30         # per seed: a job of several seeds asks for their sum
      seeds_per_job: 1        # seeds one job (one process) runs in turn, sharing its start-up
    slurm:
      partition: null         # null: the cluster's default partition
      account: null

Validation names the file and the problem (:class:`SweepConfigError`).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

__all__ = ["SweepConfigError", "Sweep", "load_sweep", "read_config_file", "combo_id", "point_id", "TOP_KEYS"]

#: Keys a sweep file may hold, with their meaning.
TOP_KEYS: dict[str, str] = {
    "name": "sweep name (letters, digits, _ and -): its output folder",
    "paper": "paper slug whose headline numbers are swept",
    "seeds": "list of ints, an int N (seeds 1..N), or {start, count}",
    "factors": "name -> list of values; every combination runs with every seed",
    "points": "list of explicit factor combinations (name -> number), run as combos p0000, p0001, ... (not with factors)",
    "settings": "runner settings (paper-specific)",
    "keep_recordings": "also write each job's recordings (.nc) beside its result",
    "resources": "per-job resources: mem_mb, runtime_min (per seed), cpus, seeds_per_job",
    "slurm": "partition and account for SLURM (null: the cluster's defaults)",
    "description": "one line, for people",
}

_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


class SweepConfigError(ValueError):
    """A sweep file is missing, unreadable or inconsistent (the message names the file)."""


def combo_id(factors: Mapping[str, Any]) -> str:
    """Folder name of one factor combination: ``base`` without factors, else ``k=v__k=v`` (sorted)."""
    if not factors:
        return "base"
    return "__".join(f"{k}={_fmt(v)}" for k, v in sorted(factors.items()))


def point_id(i: int) -> str:
    """Folder name of a sweep file's ``i``-th explicit point (0-based): ``p0000``, ``p0001``, ..."""
    return f"p{int(i):04d}"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    return str(v)


@dataclass
class Sweep:
    """A validated sweep (module docstring).

    Attributes
    ----------
    path : Path
        The sweep file.
    name, paper : str
    seeds : list of int
    factors : dict name -> list of values
    points : list of dict name -> float
        Explicit factor combinations (instead of ``factors``): combo ``p0000`` is the first.
    settings : dict
    keep_recordings : bool
    resources : dict (``mem_mb``, ``runtime_min`` per seed, ``cpus``, ``seeds_per_job``)
    slurm : dict (``partition``, ``account``)
    """

    path: Path
    name: str
    paper: str
    seeds: list[int]
    factors: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, float]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    keep_recordings: bool = False
    resources: dict[str, Any] = field(default_factory=dict)
    slurm: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def combos(self) -> dict[str, dict[str, Any]]:
        """combo id -> factor values, every combination of the factors (one ``base`` without), or the points."""
        if self.points:
            return {point_id(i): dict(p) for i, p in enumerate(self.points)}
        keys = sorted(self.factors)
        out: dict[str, dict[str, Any]] = {}
        for values in itertools.product(*(self.factors[k] for k in keys)):
            f = dict(zip(keys, values))
            out[combo_id(f)] = f
        return out

    @property
    def seeds_per_job(self) -> int:
        """Seeds one job runs in turn in one process (``resources.seeds_per_job``, default 1)."""
        return int(self.resources.get("seeds_per_job", 1))

    def seed_batches(self) -> list[list[int]]:
        """The seeds in the jobs' groups: consecutive runs of ``seeds_per_job`` in the file's order."""
        n = self.seeds_per_job
        return [self.seeds[i:i + n] for i in range(0, len(self.seeds), n)]

    def out_dir(self, results: str = "results") -> str:
        """``<results>/<paper>/sweeps/<name>``."""
        return f"{results}/{self.paper}/sweeps/{self.name}"

    def run_file(self, combo: str, seed: int, results: str = "results") -> str:
        """Result file of one job."""
        return f"{self.out_dir(results)}/runs/{combo}/seed_{int(seed):04d}.json"

    def run_files(self, results: str = "results") -> list[str]:
        """Every job's result file."""
        return [self.run_file(c, s, results) for c in self.combos for s in self.seeds]

    def summary_files(self, results: str = "results") -> dict[str, str]:
        """The aggregation's table files."""
        d = self.out_dir(results)
        return {"csv": f"{d}/summary.csv", "md": f"{d}/summary.md", "json": f"{d}/summary.json"}

    def figure_stems(self, figures: str = "figures") -> list[str]:
        """The aggregation's figures (without extension)."""
        return [f"{figures}/{self.paper}/sweep_{self.name}_intervals", f"{figures}/{self.paper}/sweep_{self.name}_violins"]

    def job_settings(self, combo: str) -> str:
        """JSON of what one job of ``combo`` runs (its Snakemake ``params``: a change reruns it)."""
        return json.dumps({"paper": self.paper, "factors": self.combos[combo], "settings": self.settings,
                           "keep_recordings": self.keep_recordings}, sort_keys=True)


def _seeds(raw: Any, where: str) -> list[int]:
    if isinstance(raw, bool):
        raise SweepConfigError(f"{where}: seeds must be a list of ints, an int or {{start, count}}, not {raw!r}")
    if isinstance(raw, int):
        if raw < 1:
            raise SweepConfigError(f"{where}: seeds = {raw}: need at least one seed")
        return list(range(1, raw + 1))
    if isinstance(raw, Mapping):
        extra = sorted(set(raw) - {"start", "count"})
        if extra or "count" not in raw:
            raise SweepConfigError(f"{where}: seeds as a mapping needs 'count' (and optional 'start'), got {sorted(raw)}")
        start, count = raw.get("start", 1), raw["count"]
        if not (isinstance(start, int) and isinstance(count, int)) or start < 0 or count < 1:
            raise SweepConfigError(f"{where}: seeds start must be an int >= 0 and count an int >= 1, got {start!r}, {count!r}")
        return list(range(start, start + count))
    if isinstance(raw, list) and raw and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in raw):
        if len(set(raw)) != len(raw):
            raise SweepConfigError(f"{where}: seeds repeat: {raw}")
        return list(raw)
    raise SweepConfigError(f"{where}: seeds must be a non-empty list of ints >= 0, an int or {{start, count}}, not {raw!r}")


def _points(raw: Any, runner_factors: Mapping[str, str], paper: str, where: str) -> list[dict[str, float]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not raw:
        raise SweepConfigError(f"{where}: points must be a non-empty list of mappings factor -> number")
    out = []
    for i, pt in enumerate(raw):
        if not isinstance(pt, Mapping):
            raise SweepConfigError(f"{where}: point {i} is not a mapping factor -> number: {pt!r}")
        bad = sorted(set(pt) - set(runner_factors))
        if bad:
            raise SweepConfigError(f"{where}: point {i}: unknown factor(s) {bad} for paper {paper!r}; "
                                   f"known: {sorted(runner_factors)}")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in pt.values()):
            raise SweepConfigError(f"{where}: point {i}: every value must be a number, got {dict(pt)!r}")
        out.append({str(k): float(x) for k, x in pt.items()})
    return out


def read_config_file(p: Path, what: str, top_keys: Mapping[str, str], required: tuple[str, ...],
                     error: type[ValueError]) -> dict[str, Any]:
    """The mapping of a YAML configuration file (a sweep or a study file), its keys checked.

    Parameters
    ----------
    p : Path
    what : str
        How the messages name the file ("sweep file").
    top_keys : mapping key -> meaning
        The keys it may hold.
    required : tuple of str
        Keys it must hold; ``name`` (when required) may hold only letters, digits, ``_`` and ``-``.
    error : exception class
        Raised with a message naming the file and the problem.
    """
    if not p.is_file():
        raise error(f"{what} {p} not found")
    try:
        doc = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise error(f"{what} {p} is not valid YAML: {exc}") from None
    if not isinstance(doc, Mapping):
        raise error(f"{what} {p}: expected a mapping of keys, got {type(doc).__name__}")
    unknown = sorted(set(doc) - set(top_keys))
    if unknown:
        raise error(f"{what} {p}: unknown key(s) {unknown}; known: {sorted(top_keys)}")
    for key in required:
        if key not in doc:
            raise error(f"{what} {p}: missing '{key}' ({top_keys[key]})")
    if "name" in required and not _NAME.match(str(doc["name"])):
        raise error(f"{what} {p}: name {str(doc['name'])!r} may hold only letters, digits, _ and -")
    return dict(doc)


def load_sweep(path: str | Path, runner_factors: Mapping[str, str] | None = None) -> Sweep:
    """Read and check a sweep file.

    Parameters
    ----------
    path : path-like
        The YAML file.
    runner_factors : mapping, optional
        Factors the paper's runner accepts (default: its module's ``FACTORS`` and ``ASSUMPTIONS``).

    Raises
    ------
    SweepConfigError
        Missing file, bad YAML, unknown key, unknown paper or factor, bad seeds or values.
    """
    from paperlib.sweeps import RUNNERS

    p = Path(path)
    doc = read_config_file(p, "sweep file", TOP_KEYS, ("name", "paper", "seeds"), SweepConfigError)
    name = str(doc["name"])
    paper = str(doc["paper"])
    if paper not in RUNNERS:
        raise SweepConfigError(f"sweep file {p}: no sweep runner for paper {paper!r}; papers with one: {sorted(RUNNERS)}")
    seeds = _seeds(doc["seeds"], f"sweep file {p}")
    factors = doc.get("factors") or {}
    if not isinstance(factors, Mapping):
        raise SweepConfigError(f"sweep file {p}: factors must map a name to a list of values")
    if runner_factors is None:
        import importlib

        mod = importlib.import_module(RUNNERS[paper])
        # a runner's factors: its FACTORS and the names of its ASSUMPTIONS (paperlib.sweeps.assumptions)
        runner_factors = {**{k: a.meaning for k, a in getattr(mod, "ASSUMPTIONS", {}).items()},
                          **getattr(mod, "FACTORS", {})}
    bad = sorted(set(factors) - set(runner_factors))
    if bad:
        raise SweepConfigError(f"sweep file {p}: unknown factor(s) {bad} for paper {paper!r}; known: {sorted(runner_factors)}")
    fac: dict[str, list[Any]] = {}
    for k, v in factors.items():
        vals = v if isinstance(v, list) else [v]
        if not vals or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            raise SweepConfigError(f"sweep file {p}: factor {k!r} needs a non-empty list of numbers, got {v!r}")
        if len(set(vals)) != len(vals):
            raise SweepConfigError(f"sweep file {p}: factor {k!r} repeats a value: {vals}")
        fac[str(k)] = [float(x) for x in vals]
    points = _points(doc.get("points"), runner_factors, paper, f"sweep file {p}")
    if points and fac:
        raise SweepConfigError(f"sweep file {p}: give either factors (a grid) or points (explicit combinations), not both")
    settings = doc.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise SweepConfigError(f"sweep file {p}: settings must be a mapping")
    res = {"mem_mb": 2000, "runtime_min": 30, "cpus": 1, "seeds_per_job": 1}
    extra_res = sorted(set(doc.get("resources") or {}) - set(res))
    if extra_res:
        raise SweepConfigError(f"sweep file {p}: unknown resource(s) {extra_res}; known: {sorted(res)}")
    res.update(doc.get("resources") or {})
    for k, v in res.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise SweepConfigError(f"sweep file {p}: resources.{k} must be a positive int, got {v!r}")
    slurm = {"partition": None, "account": None}
    extra_s = sorted(set(doc.get("slurm") or {}) - set(slurm))
    if extra_s:
        raise SweepConfigError(f"sweep file {p}: unknown slurm key(s) {extra_s}; known: {sorted(slurm)}")
    slurm.update(doc.get("slurm") or {})
    return Sweep(path=p, name=name, paper=paper, seeds=seeds, factors=fac, points=points, settings=dict(settings),
                 keep_recordings=bool(doc.get("keep_recordings", False)), resources=res, slurm=slurm,
                 description=str(doc.get("description", "")))
