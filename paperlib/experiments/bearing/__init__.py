"""Paper 004 (slug ``bearing``): intrinsic joint friction and torque ripple with a joint torque sensor.

*Identification of Intrinsic Friction and Torque Ripple for a Robotic Joint with Integrated
Torque Sensors with Application to Wheel-Bearing Characterization* (Kinova Gen3 joint 7),
plain text in ``/work/shared/papers/004_d42d9155ba7ec20d.txt``.

The paper's data are not public: everything here runs on the twin of the rig
(:mod:`paperlib.twin.robots.torque_joint`, :mod:`paperlib.twin.robots.wheel_bearing`), labelled ``source = twin``.

Modules
-------
``runs``        the twin's recordings (schema 2): the no-load trapezoidal torque run
                (Sec. 3.1.1) and the bearing-turning trials (Sec. 3.1.2)
``inspection``  fit the intrinsic model on no-load recordings (eqs. 3-16, Fig. 3), subtract it
                from a bearing trial and compare with the load cell (Sec. 4.1, Fig. 5a), three
                trials (Sec. 4.2, Fig. 5b)
``classifier``  pass/fail of bearing populations, threshold tuned on one population, false-reject
                and false-accept rates on another, with and without compensation (the paper's
                motivation, Sec. 3 and 4.2)
``figures``     Figs. 3 and 5
``comparison``  the rows of ``results/bearing/paper_comparison``
``rig_runs``    the no-load runs and trials on the rig of a rig file (``source hardware``)
``cli``         ``paperlib bearing twin | rig | fit | inspect``

Sources
-------
``paperlib reproduce bearing --source twin|archive|hardware``. With ``hardware`` (``--rig-config
config/rigs/bearing.toml``, and ``--emulate-rig`` for paperlib's emulated devices, root, lock-step) the
no-load runs and the three trials are the experiments' motions on the single-joint rig
(``rig_runs``: the real master, the one real-time loop and recording writer; emulated recordings are
labelled ``source = twin``, ``rig = emulated-hardware``); the pass/fail populations stay on the twin.
Without a rig file ``hardware`` is refused. Every time series the room analyses is a recording under
``results/bearing/recordings/``: the no-load runs and the three trials (rule
``bearing_recording``) and, under ``populations/<seed>/``, one recording per inspection of the
pass/fail study's two bearing populations (notebook 02, through the kit's ``RecordingSource``:
``2 x 2 x n_per_grade`` files, 400 of about 0.4 MB each with the normal configuration, 40 with
the smoke one). With ``twin`` each is simulated, written and read back; with ``archive`` each is
copied from the release and the twin never runs.

Why the populations are recordings: a population is drawn as a list of bearing parameter sets,
but the analysis never reads those parameters. It reads each bearing's *inspection*: the
trial's encoder angle, torque sensor and load cell, from which the intrinsic model (itself fitted
at build time) is subtracted. Storing only the per-bearing statistics would freeze them to one
model; storing the parameter sets would need the twin to turn them into data. So the honest
release is the inspections themselves, as the rig's logger would store them, each with the
bearing it was made with (grade included) and its true friction-torque RMS in its ``truth``
attribute, where the study reads grade and true RMS from.
"""

from paperlib.experiments.bearing.config_schema import SCHEMA
from paperlib.experiments.kit import Command, Paper, Room

PAPER = Paper(
    slug="bearing",
    title=("Identification of Intrinsic Friction and Torque Ripple for a Robotic Joint with Integrated "
           "Torque Sensors with Application to Wheel-Bearing Characterization"),
    # the text names no author, year, venue or DOI
    seed_file="004_d42d9155ba7ec20d.txt",
    status="reproduced",
    builds=("no-load basis regression (alpha and ripple orders by blocked CV, periodogram orders), "
            "Fig. 3 components, bearing inspection vs load cell over 3 trials (Fig. 5), "
            "pass/fail rates on held-out bearing populations; twin data"),
)

ROOM = Room(
    paper=PAPER,
    commands=(Command("bearing", "paperlib.experiments.bearing.cli",
                      "joint intrinsic torque model and wheel-bearing inspection (paper 004)"),),
    bench=("paperlib.experiments.bearing.bench",),
    figures=("paperlib.experiments.bearing.figures",),
    config=SCHEMA,
    config_checks=("paperlib.experiments.bearing.pipeline:reproduce_check",),
    sources=("twin", "hardware", "archive"),
)
