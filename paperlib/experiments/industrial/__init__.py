"""Paper 001 (``industrial``): *Dynamic and Friction Parameters of an Industrial Robot:
Identification, Comparison and Repetitiveness Analysis* (two 6-DOF EFORT ER3A-C60),
``/work/shared/papers/001_aac6e6d8f1764b7f.txt``.

Modules and what they reproduce (this file is shared by the room's helpers; the lead merges it):

==========================  ===================================================================
module                      reproduces
==========================  ===================================================================
``thermal``                 the warm-up campaign on the TX40 twin: Figs. 6, 7, 10 and Table 1
                            (friction at 60 % speed over time, double exponential per test and
                            mix), Fig. 11 (friction predicted by the thermal model, Algorithm 1)
``anomaly``                 Fig. 13: the 32 % friction step detected with / without the thermal
                            model, thresholds chosen on healthy days
``thermal_inertial``        Figs. 9 and 12: base parameters identified cycle by cycle (OLS on
                            each cycle's Fourier segment), both robots and the faulty day
``thermal_figures``         the figures of the modules above
``thermal_comparison``      comparison rows of the thermal campaign
``thermal_bench``           bench key ``thermal_campaign_s`` (whole campaign simulated + analysed)
==========================  ===================================================================
"""

PAPER = {
    "slug": "industrial",
    "title": "Dynamic and Friction Parameters of an Industrial Robot: Identification, Comparison and "
             "Repetitiveness Analysis",
    "status": "partial",
    "builds": "TX40 identification (industrial helper) and the thermal warm-up campaign on a TX40 twin: "
              "Table 1, Figs. 6, 7, 9-13",
}
