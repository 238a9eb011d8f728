"""Room ``mems``: the flagship paper, *Real Time MEMS-Based Joint Friction Identification for Enhanced
Dynamic Performance in Robotic Applications* (``../shared/papers/000_c6f0077da58a3d66.txt``; 5R
parallel robot). Sec. 3.2-3.3, Figs. 4-15: the logic the notebooks in ``notebooks/mems/`` call.

One module per experiment; each returns plain numbers or xarray objects (SI units) that the
figure builders (``figures``, ``beyond_figures``) plot and the notebooks write to ``results/``:

=====================  ==========================================================  =========
module                 what                                                        figures
=====================  ==========================================================  =========
``workspace``          condition index, planning polygon, random test motions      4a, 4b
``model_order``        Table-4 models replayed on one run; the knee rule           5
``friction_fits``      eq. 51 measured vs eq. 11 modelled friction; Q_m fit        6, 7, 12
``tracking``           PD / CTC / AC errors, improvement ratios, torque shares     8-11
``temperature``        cold vs warm friction, convergence times (stated rule)      12-15
``comparison``         headline numbers beside the paper's (CSV + Markdown)        --
=====================  ==========================================================  =========

Plumbing: ``sources`` (archive / twin / hardware, rig checks), ``notebook`` (what every
notebook does besides its science), ``pipeline`` (the plan of ``rules/mems.smk``),
``synthetic`` (idealized recordings for tests -- never the twin).
"""

from paperlib.experiments.kit import BookPage, Paper, Room
from paperlib.experiments.mems.config_schema import SCHEMA

PAPER = Paper(
    slug="mems",
    title=("Real Time MEMS-Based Joint Friction Identification for Enhanced Dynamic Performance in Robotic "
           "Applications"),
    # the text (a copy without its title page) names no author, year, venue or DOI
    seed_file="000_c6f0077da58a3d66.txt",
    status="reproduced",
    builds="Figs. 4-15 and the headline table from twin recordings (or the robot: source hardware)",
)

ROOM = Room(
    paper=PAPER,
    sweep_runner="paperlib.experiments.mems.sweep",
    bench=("paperlib.experiments.mems.kernel_bench", "paperlib.experiments.mems.control_bench",
           "paperlib.experiments.mems.sweep_bench"),
    figures=("paperlib.experiments.mems.figures", "paperlib.experiments.mems.beyond_figures"),
    config_checks=("paperlib.experiments.mems.pipeline:reproduce_check",),
    config=SCHEMA,
    book=BookPage(flat_legacy=True),
    sources=("twin", "hardware", "archive"),
    own_archive=True,  # data/recordings/registry.toml
)
