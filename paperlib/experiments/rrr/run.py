"""Pipeline steps of paper 002 (called by ``rules/rrr.smk``).

``python -m paperlib.experiments.rrr.run record-sampling --output results/rrr/recordings/sampling_pd.nc``
    the 21-point sampling run on the twin, drive PD loops only (the identification data).
``python -m paperlib.experiments.rrr.run record-sampling-rig --rig-config RIG.toml [--emulated] --output ...``
    the same run on the 3-RRR's rig (:mod:`paperlib.experiments.rrr.rig_runs`; ``--emulated``: the rig
    file's drives emulated around the twin, labelled ``source = twin``, ``rig = emulated-hardware``).
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


def sampling_recording(robot: ThreeRRR, twin: ThreeRRRTwin, **config: Any) -> xr.Dataset:
    """The 21-point sampling run on ``twin`` (drive PD loops only) as a ``source = twin`` recording.

    ``config`` entries are added to the recording's run configuration (e.g. ``variant="no-stribeck"``).
    """
    ref = sampling.sampling_reference(robot, twin.control_rate_hz, a_max=A_MAX_SAMPLING_M_S2)
    run = simulate(robot, twin, ref)
    cfg = {"run": "21-point sampling", "speed_m_s": sampling.SAMPLING_SPEED_M_S, "a_max_m_s2": A_MAX_SAMPLING_M_S2,
           "dwell_s": sampling.DWELL_S, "points_m": ref["points"].tolist(), **config}
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
    r = sub.add_parser("record-sampling-rig", help="run the 21-point sampling run on the rig of a rig file and write the recording")
    r.add_argument("--rig-config", required=True, metavar="RIG.toml", help="the rig file (config/rigs/three_rrr.toml)")
    r.add_argument("--emulated", action="store_true",
                   help="emulate the rig file's devices around the twin (root; recording labelled source = twin, "
                        "rig = emulated-hardware)")
    r.add_argument("--output", required=True, help="recording file to write (.nc)")
    a = ap.parse_args(argv)
    if a.step == "record-sampling-rig":
        from paperlib.experiments.rrr.rig_runs import record_sampling_on_rig

        try:
            ds = record_sampling_on_rig(a.rig_config, a.output, emulated=a.emulated, log=print)
        except (OSError, ValueError, RuntimeError) as exc:  # RigUnavailable, RigRunError
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {a.output} (source = {ds.attrs['source']}, rig = {ds.attrs.get('rig')}, "
              f"{ds.sizes['time']} samples)")
        return 0
    try:
        path = record_sampling(a.output, a.twin)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
