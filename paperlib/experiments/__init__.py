"""One room per paper: the experiments behind each paper's figures and tables.

A room (``paperlib/experiments/<slug>/``) only composes the generic layers (symbolic models,
kernels, robots, friction, estimation, control, twin, hardware, recordings, figures); no layer
imports a room. Each room's ``__init__`` names its paper and defines ``PAPER`` (slug, title,
status, what it builds); its notebooks are ``notebooks/<slug>/``, its rules ``rules/<slug>.smk``,
its outputs ``figures/<slug>/`` and ``results/<slug>/`` (with ``paper_comparison.{csv,md}``).

A sixth paper: add ``paperlib/experiments/<slug>/`` (with ``PAPER`` and a ``comparison.py``
listing its headline numbers), ``notebooks/<slug>/``, ``rules/<slug>.smk`` and a line in
:data:`PAPER_SLUGS`; ``paperlib reproduce <slug>`` then builds it and the index lists it.
"""

from __future__ import annotations

import importlib
from typing import Any

#: The papers of the compendium, in the order of ``../shared/papers/`` (slug -> title, paper file).
PAPER_SLUGS: dict[str, tuple[str, str]] = {
    "mems": ("Real Time MEMS-Based Joint Friction Identification (5R parallel robot, the flagship)",
             "000_c6f0077da58a3d66.txt"),
    "industrial": ("Dynamic and Friction Parameters of an Industrial Robot (6-DOF, thermal friction)",
                   "001_aac6e6d8f1764b7f.txt"),
    "rrr": ("Nonlinear friction dynamic modeling of a flexible 3-RRR parallel robot", "002_3fd4e1fcf1512ee3.txt"),
    "textbook": ("Dynamic parameter identification, textbook notes (the course and the book)",
                 "003_6c546893b52ec8f3.txt"),
    "bearing": ("Intrinsic joint friction and torque ripple with a joint torque sensor; wheel-bearing inspection",
                "004_d42d9155ba7ec20d.txt"),
}

STATUSES = ("reproduced", "partial", "planned")


def papers() -> list[dict[str, Any]]:
    """Every paper with its status: the room's ``PAPER`` where the room exists, else ``planned``.

    Returns
    -------
    list of dict
        Keys ``slug``, ``title``, ``paper_file``, ``status`` (reproduced | partial | planned) and
        ``builds`` (one line).
    """
    out = []
    for slug, (title, paper_file) in PAPER_SLUGS.items():
        entry: dict[str, Any] = {"slug": slug, "title": title, "paper_file": paper_file, "status": "planned",
                                 "builds": "nothing yet"}
        try:
            room = importlib.import_module(f"paperlib.experiments.{slug}")
        except ModuleNotFoundError as exc:
            if exc.name != f"paperlib.experiments.{slug}":
                raise
        else:
            entry.update({k: v for k, v in getattr(room, "PAPER", {}).items() if k in ("title", "status", "builds")})
        if entry["status"] not in STATUSES:
            raise ValueError(f"paper {slug}: status {entry['status']!r} is not one of {STATUSES}")
        out.append(entry)
    return out
