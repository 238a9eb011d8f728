"""Room ``industrial``: *Dynamic and Friction Parameters of an Industrial Robot: Identification,
Comparison and Repetitiveness Analysis* (``../shared/papers/001_aac6e6d8f1764b7f.txt``; two 6-DOF
EFORT ER3A-C60). The paper's robots and data are not public; this room runs its identification
method (base parameters, eqs. 1-6; friction of eq. 4; excitation of eqs. 7-10) on a real, public
recording of another 6-axis arm, a Stäubli TX40 (``source = hardware``), compares the friction
with published values for that robot, and runs the thermal warm-up campaign (Sec. 2.3) on a
TX40 twin (``source = twin``).

==========================  ===================================================================  ========================
module                      reproduces                                                           notebook
==========================  ===================================================================  ========================
``identification``          TX40 identification (OLS/WLS/SDP), hold-out validation, stability    01_tx40_identification
                            over cut-off and gate, literature comparison
``comparison``              headline rows: TX40 friction beside BIRDy's and FIGAROH's values,    --
                            plus the thermal campaign's rows
``thermal``                 the warm-up campaign on the TX40 twin: Figs. 6, 7, 10 and Table 1    02_thermal_campaign
                            (friction at 60 % speed over time, double exponential per test and
                            mix), Fig. 11 (friction predicted by the thermal model, Algorithm 1)
``anomaly``                 Fig. 13: the 32 % friction step detected with / without the thermal  02_thermal_campaign
                            model, thresholds chosen on healthy days
``thermal_inertial``        Figs. 9 and 12: base parameters identified cycle by cycle            02_thermal_campaign
``thermal_figures``         the figures of the thermal modules                                   --
``thermal_comparison``      comparison rows of the thermal campaign                              --
``thermal_bench``           bench key ``thermal_campaign_s`` (whole campaign simulated+analysed)  --
``serial_bench``            bench key ``serial_identify_tx40_s`` (serial identify on TX40 data)   --
``sources``                 ``--source twin`` / ``hardware`` / ``archive``: the room's sources   both
``rig_days``                ``--source hardware``: campaign days through the arm's emulated rig  --
==========================  ===================================================================  ========================
"""

from paperlib.experiments.kit import Paper, Room
from paperlib.experiments.industrial.config_schema import SCHEMA
from paperlib.experiments.industrial.sources import SOURCES

PAPER = Paper(
    slug="industrial",
    title="Dynamic and Friction Parameters of an Industrial Robot: Identification, Comparison and Repetitiveness Analysis",
    # the text names no author, year, venue or DOI (only where its robots stand: the University of Brescia)
    seed_file="001_aac6e6d8f1764b7f.txt",
    status="partial",
    builds="identification of a real Staubli TX40 recording (source hardware) validated on held-out motion and "
           "compared with published TX40 friction; the thermal warm-up campaign on a TX40 twin: Table 1, Figs. 6, "
           "7, 9-13",
)

ROOM = Room(
    paper=PAPER,
    bench=("paperlib.experiments.industrial.thermal_bench", "paperlib.experiments.industrial.serial_bench"),
    figures=("paperlib.experiments.industrial.thermal_figures", "paperlib.experiments.industrial.identification"),
    config_checks=("paperlib.experiments.industrial.thermal:reproduce_check",
                   "paperlib.experiments.industrial.sources:hardware_check"),
    config=SCHEMA,
    sources=SOURCES,  # twin, hardware (the campaign through the emulated arm's rig), archive
)
