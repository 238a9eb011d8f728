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
``recorded``           the runs notebook 02 makes itself, as recordings; the twin's truth from a recording  --
``rig_runs``           the sampling run on the 3-RRR's rig (``source hardware``)     --
``chain``              fits, Table 5, locations, trends on a model and twin    --
``sweep``              sweep runner: the chain with ASSUMPTIONS changed        --
``run``                pipeline steps (``python -m paperlib.experiments.rrr.run``)
``cli``                ``paperlib rrr identify RECORDING.nc``
=====================  ======================================================  ==================

Sources (``paperlib reproduce rrr --source twin|archive|hardware``; ``hardware`` needs ``--rig-config``,
e.g. ``config/rigs/three_rrr.toml``, and runs the sampling run on the rig, :mod:`.rig_runs`; with
``--emulate-rig`` on emulated drives around the twin, labelled ``source = twin``,
``rig = emulated-hardware``; notebook 02's own runs stay the twin's). Every time series the room analyses is a recording under ``results/rrr/recordings/``:
the pipeline's sampling run (``sampling_pd.nc``, rule ``rrr_sampling_recording``) and, under
``tracking/``, every run notebook 02 makes itself: the 16 Table 5 path runs (4 speeds x 4
controllers), the 3 location runs of Figs. 5-6 and, for each twin variant of the sensitivity study,
its sampling run and its 16 path runs (53 files, about 15 MB). With ``twin`` each is simulated,
written and read back (the analysis reads only the file); with ``archive`` the rule and the notebook
copy each from the release (sha256-checked) and the twin never runs. The twin's truth (true
friction, k_f, gains) that the comparisons with the truth need is read from the recording analysed
(:func:`paperlib.experiments.rrr.recorded.twin_from_recording`), so a release brings its own truth.

The model (eqs. 1-37) is :mod:`paperlib.symbolic.three_rrr` -> :mod:`paperlib.kernels.three_rrr` ->
:class:`paperlib.robots.three_rrr.ThreeRRR`; the law is :mod:`paperlib.friction.kostic`, the
estimators :mod:`paperlib.estimation.nls`, the LVCA paths :mod:`paperlib.control.ladder`.
"""

from paperlib.experiments.kit import Command, Paper, Room
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
    commands=(Command("rrr", "paperlib.experiments.rrr.cli",
                      "paper 002 (3-RRR): friction identification from a recording"),),
    figures=("paperlib.experiments.rrr.plots",),
    config=SCHEMA,
    config_checks=("paperlib.experiments.rrr.rig_runs:reproduce_check",),
    sources=("twin", "hardware", "archive"),
    sweep_runner="paperlib.experiments.rrr.sweep",
)
