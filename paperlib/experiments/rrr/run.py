"""Pipeline steps of paper 002 (called by ``rules/rrr.smk``).

``python -m paperlib.experiments.rrr.run record-sampling --output results/rrr/recordings/sampling_pd.nc``
    the 21-point sampling run on the twin, drive PD loops only (the identification data).

The same run on the 3-RRR's rig: ``python -m paperlib.experiments.rrr.rig_runs`` (its own module, so
the twin rule's code inputs never include the hardware layer).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

import xarray as xr

from paperlib.experiments.rrr import sampling
from paperlib.recordings import write_recording
from paperlib.robots.three_rrr import ThreeRRR
from paperlib.twin.robots.three_rrr import ThreeRRRTwin, simulate, to_recording

A_MAX_SAMPLING_M_S2 = sampling.A_MAX_SAMPLING_M_S2


def sampling_recording(robot: ThreeRRR, twin: ThreeRRRTwin, dwell_s: float = sampling.DWELL_S, **config: Any) -> xr.Dataset:
    """The 21-point sampling run on ``twin`` (drive PD loops only) as a ``source = twin`` recording.

    ``dwell_s``: the stay at each position [s] (the paper's 2 s by default). ``config`` entries are
    added to the recording's run configuration (e.g. ``variant="no-stribeck"``).
    """
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=A_MAX_SAMPLING_M_S2, dwell_s=dwell_s)
    run = simulate(robot, twin, ref)
    cfg = {"run": "21-point sampling", "speed_m_s": sampling.SAMPLING_SPEED_M_S, "a_max_m_s2": A_MAX_SAMPLING_M_S2,
           "dwell_s": dwell_s, "points_m": ref["points"].tolist(), **config}
    return to_recording(run, twin, controller="PD (drive loops, no compensation)", config=cfg)


def record_sampling(output: str | Path, twin_toml: str | Path | None = None) -> Path:
    """Simulate the sampling run and write it as a ``source = twin`` recording."""
    twin = ThreeRRRTwin.from_toml(twin_toml) if twin_toml else ThreeRRRTwin.default()
    return write_recording(sampling_recording(ThreeRRR.default(), twin), output)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.experiments.rrr.run", description="paper 002 pipeline steps")
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("record-sampling", help="simulate the 21-point sampling run on the twin and write the recording")
    p.add_argument("--output", required=True, help="recording file to write (.nc)")
    p.add_argument("--twin", default=None, help="twin description TOML (default data/twin/three_rrr_twin.toml)")
    a = ap.parse_args(argv)
    try:
        path = record_sampling(a.output, a.twin)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
