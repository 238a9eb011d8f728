"""Global sensitivity of a room's headline numbers to its twin's unpublished assumptions.

A study file (``config/sensitivity/<slug>.yaml``, :mod:`paperlib.sensitivity.study`) names a
room, the assumptions of its sweep runner's ``ASSUMPTIONS`` (:mod:`paperlib.sweeps.assumptions`)
and the headline keys to study. ``paperlib sensitivity run FILE`` (:mod:`paperlib.sensitivity.cli`)
runs it in two stages on the sweep engine (:mod:`paperlib.sweeps`: Snakemake, local cores or
SLURM, resumable): Morris screening of every named assumption (mu*, sigma), then Sobol' indices
(S1, ST with confidence intervals) of the few that matter most, the others at their stated
values (:mod:`paperlib.sensitivity.analysis`, SALib). The summary
(``results/<slug>/sensitivity/<name>/summary.json``, :mod:`paperlib.sensitivity.engine`) gives,
per headline: the paper's value, the twin's value at the stated assumptions, the range over the
samples, and whether (and where) the paper's value is reached inside the stated ranges, by the
comparison row's own agreement rule. It is never used to change the twin.
:mod:`paperlib.sensitivity.notes` writes the comparison table's notes from a summary;
:mod:`paperlib.sensitivity.figures` the tornado chart and the value-vs-top-2 scatters.

A generic layer: rooms are reached through the registry (``paperlib.sweeps.runners()``), never
imported.
"""

from __future__ import annotations

__all__: list[str] = []
