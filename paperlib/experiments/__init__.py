"""One room per paper: the experiments behind each paper's figures and tables.

A room (``paperlib/experiments/<slug>/``) only composes the generic layers (symbolic models,
kernels, robots, friction, estimation, control, twin, hardware, recordings, figures); no layer
imports a room. Each room's ``__init__`` defines ``PAPER`` (a :class:`~paperlib.experiments.kit.Paper`:
title, authors, year, DOI or venue, the seed text, status, what it builds) and ``ROOM`` (a
:class:`~paperlib.experiments.kit.Room`: its CLI commands, sweep runner, bench keys, figure
modules, configuration schema and checks); its notebooks are ``notebooks/<slug>/``, its rules
``rules/<slug>.smk``, its settings ``config/<slug>.yaml``, its outputs ``figures/<slug>/`` and
``results/<slug>/`` (with ``paper_comparison.{csv,md}``). Everything rooms share is the room kit,
:mod:`paperlib.experiments.kit`.

Rooms register themselves: :mod:`paperlib.experiments.kit.registry` finds every package here
that defines ``ROOM`` (and those in the folders of ``PAPERLIB_ROOMS_PATH``). A sixth paper adds
its folders and touches no other file.
"""

from __future__ import annotations

from typing import Any

from paperlib.experiments.kit.paper import STATUSES

__all__ = ["papers", "STATUSES"]


def papers() -> list[dict[str, Any]]:
    """Every room's paper, in registry order (by the paper's seed file).

    Returns
    -------
    list of dict
        :meth:`paperlib.experiments.kit.Paper.as_dict` of each room: ``slug``, ``title``,
        ``paper_file``, ``status`` (reproduced | partial | planned), ``builds`` (one line),
        ``authors``, ``year``, ``doi``, ``venue``.
    """
    from paperlib.experiments.kit import registry

    return [r.paper.as_dict() for r in registry.rooms()]


def __getattr__(name: str) -> Any:
    if name == "PAPER_SLUGS":  # derived from the registry (slug -> (title, paper file)), for older callers
        from paperlib.experiments.kit import registry

        return {r.slug: (r.paper.title, r.paper.seed_file) for r in registry.rooms()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
