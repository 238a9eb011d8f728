"""Morris screening and Sobol' indices (SALib 1.6) over a room's stated assumption ranges.

Sampling happens in a unit space per assumption: its range, or the logarithm of its range when
the assumption says ``log`` (:class:`paperlib.sweeps.assumptions.Assumption`); :func:`to_values`
maps samples to the values the runner gets. Morris' mu* is therefore in the headline's unit per
whole (log-)range, comparable across assumptions.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["problem", "to_values", "morris_sample", "morris_indices", "sobol_sample", "sobol_indices",
           "leaders", "rank_assumptions"]


def problem(names: Sequence[str], assumptions: Mapping[str, Any]) -> dict[str, Any]:
    """The SALib problem of the named assumptions (bounds in the sampling space: log for ``log`` ones).

    Parameters
    ----------
    names : sequence of str
        Assumptions studied.
    assumptions : mapping name -> Assumption
        The runner's ``ASSUMPTIONS`` (or any objects with ``low``, ``high``, ``log``).
    """
    bounds = []
    for n in names:
        a = assumptions[n]
        bounds.append([math.log(a.low), math.log(a.high)] if a.log else [float(a.low), float(a.high)])
    return {"num_vars": len(names), "names": list(names), "bounds": bounds}


def to_values(X: np.ndarray, names: Sequence[str], assumptions: Mapping[str, Any]) -> list[dict[str, float]]:
    """Sample rows (sampling space, shape (n, k)) -> factor dicts in the assumptions' units, clipped to their ranges."""
    out = []
    for row in np.atleast_2d(X):
        d = {}
        for n, x in zip(names, row):
            a = assumptions[n]
            v = math.exp(float(x)) if a.log else float(x)
            d[n] = float(min(max(v, a.low), a.high))  # exp(log(x)) may step over an end by one ulp
        out.append(d)
    return out


def morris_sample(prob: Mapping[str, Any], trajectories: int, levels: int, seed: int) -> np.ndarray:
    """Morris trajectories (SALib ``sample.morris``), shape (trajectories x (k + 1), k)."""
    from SALib.sample import morris as ms

    return ms.sample(dict(prob), N=int(trajectories), num_levels=int(levels), seed=int(seed))


def morris_indices(prob: Mapping[str, Any], X: np.ndarray, Y: np.ndarray, levels: int, seed: int = 0
                   ) -> dict[str, Any]:
    """mu, mu*, sigma and mu*'s 95 % interval half-width per assumption.

    Trajectories with a missing (NaN) output are dropped whole (a Morris effect needs both ends);
    ``n_trajectories`` says how many were used. Returns ``None`` values when fewer than two remain.

    Parameters
    ----------
    prob : mapping
        :func:`problem`.
    X : ndarray, shape (r (k + 1), k)
        :func:`morris_sample`.
    Y : ndarray, shape (r (k + 1),)
        The output at each sample.
    levels : int
        The sample's levels.

    Returns
    -------
    dict
        ``names``, ``mu``, ``mu_star``, ``sigma``, ``mu_star_conf`` (lists, by name), ``n_trajectories``.
    """
    from SALib.analyze import morris as ma

    k = int(prob["num_vars"])
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    r = len(Y) // (k + 1)
    keep = np.isfinite(Y.reshape(r, k + 1)).all(axis=1)
    out: dict[str, Any] = {"names": list(prob["names"]), "n_trajectories": int(keep.sum())}
    if keep.sum() < 2:
        return {**out, **{f: [None] * k for f in ("mu", "mu_star", "sigma", "mu_star_conf")}}
    rows = np.repeat(keep, k + 1)
    res = ma.analyze(dict(prob), X[rows], Y[rows], num_levels=int(levels), seed=int(seed))
    for f in ("mu", "mu_star", "sigma", "mu_star_conf"):
        out[f] = [float(x) for x in np.asarray(res[f], float)]
    return out


def sobol_sample(prob: Mapping[str, Any], base_n: int, seed: int) -> np.ndarray:
    """Saltelli's scheme on a scrambled Sobol' sequence (SALib ``sample.sobol``, first and total
    order only), shape (base_n x (k + 2), k)."""
    from SALib.sample import sobol as ss

    return ss.sample(dict(prob), int(base_n), calc_second_order=False, seed=int(seed))


def sobol_indices(prob: Mapping[str, Any], Y: np.ndarray, seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """First-order S1 and total ST with 95 % bootstrap half-widths (SALib ``analyze.sobol``).

    Returns ``None`` indices (and ``reason``) when an output is missing or the output does not vary
    (no variance to share).
    """
    from SALib.analyze import sobol as sa

    Y = np.asarray(Y, float)
    k = int(prob["num_vars"])
    out: dict[str, Any] = {"names": list(prob["names"]), "n_runs": int(len(Y))}
    empty = {f: [None] * k for f in ("S1", "S1_conf", "ST", "ST_conf")}
    if not np.isfinite(Y).all():
        return {**out, **empty, "reason": f"{int((~np.isfinite(Y)).sum())} of {len(Y)} runs gave no value"}
    if float(np.var(Y)) == 0.0:
        return {**out, **empty, "reason": "the value is the same in every run"}
    res = sa.analyze(dict(prob), Y, calc_second_order=False, num_resamples=int(resamples), seed=int(seed))
    for f in ("S1", "S1_conf", "ST", "ST_conf"):
        out[f] = [float(x) for x in np.asarray(res[f], float)]
    return out


def leaders(morris: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The assumptions that have the largest Morris mu* of at least one headline (problem order).

    When there are more of them than a study's ``sobol.top_k``, some headline's most influential
    assumption gets no Sobol' index: the study says so (:func:`paperlib.sensitivity.engine.run_study`).
    """
    tops: set[str] = set()
    names: list[str] = []
    for res in morris.values():
        names = names or list(res["names"])
        mus = [m if m is not None else -1.0 for m in res["mu_star"]]
        if max(mus, default=0.0) > 0:
            tops.add(res["names"][mus.index(max(mus))])
    return [n for n in names if n in tops]


def rank_assumptions(morris: Mapping[str, Mapping[str, Any]], top_k: int) -> list[str]:
    """The assumptions that go on to Sobol': every headline's largest-mu* assumption first, then the
    rest by score, at most ``top_k``.

    Per headline, mu* is divided by its largest value over the assumptions (so every headline
    counts alike whatever its unit); an assumption's score is its largest share over the
    headlines. Each headline's top assumption is taken first (in score order), so that every
    headline's most influential assumption gets Sobol' indices when ``top_k`` allows; the
    remaining places go by score. Ties keep the problem's order.

    Parameters
    ----------
    morris : mapping headline -> :func:`morris_indices` result
    top_k : int
    """
    names: list[str] = []
    best: dict[str, float] = {}
    for res in morris.values():
        names = names or list(res["names"])
        mus = [m for m in res["mu_star"] if m is not None]
        top = max(mus) if mus else 0.0
        for n, m in zip(res["names"], res["mu_star"]):
            share = (m / top) if (m is not None and top > 0) else 0.0
            best[n] = max(best.get(n, 0.0), share)
    tops = set(leaders(morris))
    order = sorted(names, key=lambda n: -best.get(n, 0.0))
    chosen = [n for n in order if n in tops] + [n for n in order if n not in tops]
    return chosen[:int(top_k)]
