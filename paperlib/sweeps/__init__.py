"""Monte-Carlo sweeps of a paper's headline numbers: many seeds (x factors), one Snakemake job each.

A sweep file (YAML, e.g. ``config/sweeps/<paper>.yaml``; :mod:`paperlib.sweeps.config`) names a
paper, its seeds and optional factors. ``rules/sweep.smk`` turns every (factor combination,
seed) into one job that writes a small JSON result (:mod:`paperlib.sweeps.run`; the paper's
runner computes the headline numbers with the pipeline's own code), and one aggregation job
per sweep writes, for every headline number, its median and 5-95 % interval beside the
paper's value (table and figures; :mod:`paperlib.sweeps.aggregate`). ``paperlib sweep FILE``
(:mod:`paperlib.sweeps.cli`) runs it on local cores with a progress bar, or on SLURM with
``--profile config/profiles/slurm`` (``docs/cluster.md``). Snakemake decides what is missing,
so an interrupted sweep restarted runs only the jobs without a result.

Runners, by paper slug (:func:`runners`, also as ``RUNNERS``): the module a room declares as its
``sweep_runner`` (:class:`paperlib.experiments.kit.Room`), read from the room registry --
a module with ``FACTORS`` (name -> meaning), ``run_seed(seed, factors, settings) -> dict`` whose
``values`` maps each headline key of the paper's comparison table to a number, a bool or None,
``headlines()`` (the comparison rows it gives values for) and ``code_inputs(settings)`` (files
whose change reruns the jobs).
"""

from __future__ import annotations

from typing import Any

__all__ = ["runners"]


def runners() -> dict[str, str]:
    """Paper slug -> module of its per-seed runner (the rooms that declare one)."""
    from paperlib.experiments.kit import registry

    return registry.sweep_runners()


def __getattr__(name: str) -> Any:
    if name == "RUNNERS":  # read from the registry each time (a room found later is included)
        return runners()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
