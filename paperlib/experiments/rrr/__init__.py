"""Paper 002 (``rrr``): *Nonlinear friction dynamic modeling and performance analysis of flexible
parallel robot* (3-RRR planar, redundantly actuated), ``/work/shared/papers/002_3fd4e1fcf1512ee3.txt``.

Reproduced on the digital twin of :mod:`paperlib.twin.robots.three_rrr` (``source = twin``):

=====================  ======================================================  ==================
module                 what                                                    paper
=====================  ======================================================  ==================
``sampling``           the 21 sampling positions and the identification run    Fig. 4, Sec. "Identification"
``identification``     Kostic NLS with k_f, Coulomb + viscous baseline         eqs. 38-41, Table 2
``limits``             V_max, a_max from singular values over the work region   Table 4
``tracking``           LVCA paths 100-400 mm/s, before / after compensation     Table 5, Figs. 5-6, 9-14
``plots``              the figures                                             Figs. 4-6, 9-14
``comparison``         headline numbers beside the paper's                     --
``run``                pipeline steps (``python -m paperlib.experiments.rrr.run``)
``cli``                ``paperlib rrr identify RECORDING.nc``
=====================  ======================================================  ==================

The model (eqs. 1-37) is :mod:`paperlib.symbolic.three_rrr` -> :mod:`paperlib.kernels.three_rrr` ->
:class:`paperlib.robots.three_rrr.ThreeRRR`; the law is :mod:`paperlib.friction.kostic`, the
estimators :mod:`paperlib.estimation.nls`, the LVCA paths :mod:`paperlib.control.ladder`.
"""

from paperlib.experiments.kit import Paper, Room
from paperlib.experiments.rrr.config_schema import SCHEMA

PAPER = Paper(
    slug="rrr",
    title="Nonlinear friction dynamic modeling and performance analysis of flexible parallel robot",
    seed_file="002_3fd4e1fcf1512ee3.txt",
    status="partial",
    builds="3-RRR constrained dynamics and kernels, Kostic NLS with k_f (Table 2), V_max/a_max (Table 4), "
           "LVCA tracking before/after Kostic and Coulomb+viscous compensation (Table 5, Figs. 5-6, 9-14) on a twin",
    # the text names one author (under "ORCID iD") and its publisher; no year or DOI
    authors=("Lei Zhao",),
    venue="SAGE Journals",
)

ROOM = Room(
    paper=PAPER,
    commands=("paperlib.experiments.rrr.cli",),
    figures=("paperlib.experiments.rrr.plots",),
    config=SCHEMA,
)
