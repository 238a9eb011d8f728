"""Room ``industrial``: *Dynamic and Friction Parameters of an Industrial Robot: Identification,
Comparison and Repetitiveness Analysis* (``../shared/papers/001_aac6e6d8f1764b7f.txt``; two 6-DOF
EFORT ER3A-C60). The paper's robots and data are not public; this room runs its identification
method (base parameters, eqs. 1-6; friction of eq. 4; excitation of eqs. 7-10) on a real, public
recording of another 6-axis arm, a Stäubli TX40 (``source = hardware``), and compares the
friction with published values for that robot.

=====================  ==================================================================  ========================
module                 what                                                                notebook
=====================  ==================================================================  ========================
``identification``     TX40 identification (OLS/WLS/SDP), hold-out validation, stability   01_tx40_identification
                       over cut-off and gate, literature comparison
``comparison``         headline rows: TX40 friction beside BIRDy's and FIGAROH's values    --
=====================  ==================================================================  ========================

Other helpers add modules here (the thermal model of Sec. 2.3, Table 1): keep this list in step.
"""

PAPER = {
    "slug": "industrial",
    "title": "Dynamic and Friction Parameters of an Industrial Robot (6-DOF identification, thermal friction)",
    "status": "partial",
    "builds": "base-parameter and friction identification of a real Staubli TX40 recording (source hardware), "
              "validated on held-out motion and compared with published TX40 friction",
}
