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
``results``         results JSON with ``source`` and provenance                    all
==================  ============================================================  ==========
"""

PAPER = {
    "slug": "textbook",
    "title": "Dynamic parameter identification (textbook notes after Siciliano et al., Sec. 7.3)",
    "status": "reproduced",
    "builds": "the identification course: eight notebooks on a planar 2R/3R arm twin, each claim of the notes "
              "measured on it, with slider views; and the book that holds every paper's results",
}
