"""``paperlib bench``: speed and memory targets, measured, printed as JSON.

Each layer module listed in :data:`BENCH_MODULES`, and each bench module a room declares
(:func:`paperlib.experiments.kit.registry.bench_modules`), exposes ``benchmarks() -> dict[str, Callable[[], float]]``
(a layer's benchmark that needs a robot is bound to one by the room that declares it, as the
flagship's room does for the controller step);
every callable returns one number (its unit is in the key's name: ``_ns``, ``_us``, ``_per_s``...).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Callable

BENCH_MODULES: tuple[str, ...] = (
    "paperlib.cli_bench",
    "paperlib.robots.serial_bench",
    "paperlib.twin.bench",
    "paperlib.twin.cycle_costs",
    "paperlib.estimation.bench",
    "paperlib.hardware.bench",
)

def bench_modules() -> list[str]:
    """The layers' bench modules, then the rooms' (room registry order)."""
    from paperlib.experiments.kit import registry

    return list(BENCH_MODULES) + [m for m in registry.bench_modules() if m not in BENCH_MODULES]


def collect(only: list[str] | None = None) -> dict[str, Callable[[], float]]:
    """Benchmark key -> callable, from every bench module (only the keys ``only`` names, when given)."""
    found: dict[str, Callable[[], float]] = {}
    for name in bench_modules():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        found.update(module.benchmarks())
    if only:
        unknown = sorted(set(only) - set(found))
        if unknown:
            raise SystemExit(f"paperlib bench: unknown benchmark(s) {unknown}; known: {sorted(found)}")
        found = {k: v for k, v in found.items() if k in only}
    return found


def run(args: argparse.Namespace) -> int:
    results: dict[str, float] = {}
    for key, fn in collect(args.only).items():
        if not args.json:
            print(f"{key} ...", file=sys.stderr, flush=True)
        results[key] = float(fn())
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
    else:
        for key, value in results.items():
            print(f"{key:32s} {value:14.4g}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure kernel, twin and estimator speed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--only", nargs="*", help="run only these benchmark keys")
    p.set_defaults(func=run)
