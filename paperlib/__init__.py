"""paperlib: a reproducible research compendium for robot friction identification.

Data flows one way::

    symbolic --codegen--> kernels --> twin / hardware rig --> recording (.nc)
                                            |                     |
                               controllers <-- estimators <-------+
                                            |
                experiments --> notebooks (papermill) --> figures/, results/
"""

from __future__ import annotations

from paperlib import _numba_cache

_numba_cache.configure()  # before any numba import: a source change never runs stale compiled code

__version__ = "0.1.0"
