"""The identification course (paper 003: textbook notes on dynamic parameter identification,
after Siciliano et al., *Robotics: Modelling, Planning and Control*, Sec. 7.3;
``shared/papers/003_6c546893b52ec8f3.txt``) on a planar 2R/3R arm twin
(:mod:`paperlib.twin.robots.planar_arm`).

The notes have no figures or numbers of their own; the course turns each of their claims into a
short notebook (``notebooks/textbook/``) that measures it on the twin:

==================  ============================================================  ==========
module              what                                                          notebooks
==================  ============================================================  ==========
``identify``        stacking ``Y pi = tau``, the left pseudo-inverse, errors       01, 02, 03
``excitation``      condition number of the stacked regressor vs the trajectory    04
``acceleration``    causal vs zero-phase reconstruction of qdd, bias of the fit    05
``sequential``      joint n..1 identification vs global, the accumulated error     06
``friction_models`` Coulomb, viscous, Stribeck, polynomial, Kostic, LuGre          07
``recursive``       batch vs recursive LS, forgetting                             08
``lab``             each recording: the twin now, or the data release (archive)    02, 04-06, 08
``plots``           the static figures in the compendium's style                  01-06, 08
``results``         results JSON with ``source`` and provenance                    all
==================  ============================================================  ==========
"""

from paperlib.experiments.kit import BookPage, Paper, Room
from paperlib.experiments.textbook.config_schema import SCHEMA

PAPER = Paper(
    slug="textbook",
    title="Dynamic parameter identification (textbook notes after Siciliano et al., Sec. 7.3)",
    seed_file="003_6c546893b52ec8f3.txt",
    status="reproduced",
    builds="the identification course: eight notebooks on a planar 2R/3R arm twin, each claim of the notes "
           "measured on it, with slider views; and the book that holds every paper's results",
    # the notes name no author or year; they are "based on Section 7.3 of" this book
    venue="Robotics: Modelling, Planning and Control (Sec. 7.3)",
)

ROOM = Room(
    paper=PAPER,
    config=SCHEMA,
    # twin: the lessons record on the planar arm twin; archive: they read those recordings from a data release
    # (``paperlib reproduce textbook --archive DIR``; :mod:`paperlib.experiments.textbook.lab`)
    sources=("twin", "archive"),
    book=BookPage(
        title="The identification course",
        landing_title="The identification course (textbook)",
        intro="Short notebooks on a planar arm, after the textbook notes on dynamic parameter identification "
              "(Siciliano et al., *Robotics: Modelling, Planning and Control*, Sec. 7.3). Each one runs alone in "
              "JupyterLab with its defaults and ends with exercises; the slider views below the text work "
              "in this page without a kernel (every frame is embedded).",
        toc_caption="Lessons",
        order=0,
    ),
)
